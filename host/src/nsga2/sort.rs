//! Non-dominated ranking, crowding distance and survivor selection over [`Point`]s.

use super::Point;
use std::cmp::Ordering;

/// Whether `a` dominates `b`: no worse in both objectives and better in one (§5.4.3).
#[inline]
pub fn dominates(a: &Point, b: &Point) -> bool {
    a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1])
}

/// How solutions are ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranking {
    /// The dissertation's rank: 1 + the number of solutions that dominate it (§5.4.4).
    Dominators,
    /// Deb's fronts: rank 1 is the non-dominated set, rank 2 the non-dominated set of what
    /// is left, and so on.
    Fronts,
}

/// How many points dominate each point, by comparing every pair.
pub(crate) fn dominator_counts_pairwise(points: &[Point]) -> Vec<u32> {
    let n = points.len();
    let mut dominators = vec![0u32; n];
    for i in 0..n {
        for j in 0..n {
            if i != j && dominates(&points[j], &points[i]) {
                dominators[i] += 1;
            }
        }
    }
    dominators
}

/// How many points dominate each point, in O(n log n): `j` dominates `i` when it is no
/// worse in both objectives and not equal in both, so the count is the points no worse in
/// both (a sweep by the first objective, whole groups of equal first values at once, with
/// a Fenwick tree over the second's ranks) less the points equal to `i` (itself included).
/// The same integers as [`dominator_counts_pairwise`] (`-0.0` and `0.0` compare equal, as
/// [`dominates`] reads them); points with a NaN take the pairwise path.
pub(crate) fn dominator_counts(points: &[Point]) -> Vec<u32> {
    let n = points.len();
    if points.iter().any(|p| p[0].is_nan() || p[1].is_nan()) {
        return dominator_counts_pairwise(points);
    }
    // Adding 0.0 turns -0.0 into 0.0 and leaves every other value as it is.
    let key = |i: usize, k: usize| points[i][k] + 0.0;
    let mut by1: Vec<usize> = (0..n).collect();
    by1.sort_unstable_by(|&a, &b| key(a, 1).total_cmp(&key(b, 1)));
    let mut r1 = vec![0usize; n];
    let mut r = 0;
    for w in 0..n {
        if w > 0 && key(by1[w], 1) != key(by1[w - 1], 1) {
            r += 1;
        }
        r1[by1[w]] = r + 1;
    }
    let mut by0: Vec<usize> = (0..n).collect();
    by0.sort_unstable_by(|&a, &b| key(a, 0).total_cmp(&key(b, 0)).then(r1[a].cmp(&r1[b])));
    let mut tree = vec![0u32; r + 2];
    let mut out = vec![0u32; n];
    let mut at = 0;
    while at < n {
        let v = key(by0[at], 0);
        let end = at + by0[at..].iter().take_while(|&&i| key(i, 0) == v).count();
        for &i in &by0[at..end] {
            let mut x = r1[i];
            while x < tree.len() {
                tree[x] += 1;
                x += x & x.wrapping_neg();
            }
        }
        // Within the group (sorted by the second rank), runs of equal points.
        let mut w = at;
        while w < end {
            let run = by0[w..end]
                .iter()
                .take_while(|&&i| r1[i] == r1[by0[w]])
                .count();
            let mut x = r1[by0[w]];
            let mut no_worse = 0;
            while x > 0 {
                no_worse += tree[x];
                x -= x & x.wrapping_neg();
            }
            for &i in &by0[w..w + run] {
                out[i] = no_worse - run as u32;
            }
            w += run;
        }
        at = end;
    }
    out
}

/// Each point's rank (1 is non-dominated) under `how`.
pub fn ranks(points: &[Point], how: Ranking) -> Vec<u32> {
    let n = points.len();
    let dominators = dominator_counts(points);
    match how {
        Ranking::Dominators => dominators.iter().map(|d| d + 1).collect(),
        Ranking::Fronts => {
            let mut rank = vec![0u32; n];
            let mut left = dominators;
            let mut current: Vec<usize> = (0..n).filter(|&i| left[i] == 0).collect();
            let mut r = 1;
            while !current.is_empty() {
                let mut next = Vec::new();
                for &i in &current {
                    rank[i] = r;
                }
                for &i in &current {
                    for j in 0..n {
                        if rank[j] == 0 && dominates(&points[i], &points[j]) {
                            left[j] -= 1;
                            if left[j] == 0 {
                                next.push(j);
                            }
                        }
                    }
                }
                next.sort_unstable();
                next.dedup();
                current = next;
                r += 1;
            }
            rank
        }
    }
}

/// The indices of the non-dominated points, ascending.
pub fn non_dominated(points: &[Point]) -> Vec<usize> {
    (0..points.len())
        .filter(|&i| !points.iter().any(|q| dominates(q, &points[i])))
        .collect()
}

fn by_value(points: &[Point], k: usize) -> impl Fn(&usize, &usize) -> Ordering + '_ {
    move |&a, &b| points[a][k].total_cmp(&points[b][k]).then(a.cmp(&b))
}

/// Deb's crowding distance of each of `members` (indices into `points`), in the order of
/// `members`: per objective, the members sorted by value (ties by index), the two ends get
/// infinity and each other member the gap between its neighbours over the objective's
/// range (nothing when the range is zero), summed over both objectives.
pub fn crowding(points: &[Point], members: &[usize]) -> Vec<f64> {
    let n = members.len();
    let mut d = vec![0.0; n];
    if n == 0 {
        return d;
    }
    let mut order: Vec<usize> = (0..n).collect();
    for k in 0..2 {
        order.sort_by(|&a, &b| by_value(points, k)(&members[a], &members[b]));
        let lo = points[members[order[0]]][k];
        let hi = points[members[order[n - 1]]][k];
        d[order[0]] = f64::INFINITY;
        d[order[n - 1]] = f64::INFINITY;
        let range = hi - lo;
        if range > 0.0 {
            for w in 1..n.saturating_sub(1) {
                let gap = points[members[order[w + 1]]][k] - points[members[order[w - 1]]][k];
                d[order[w]] += gap / range;
            }
        }
    }
    d
}

/// The `n` survivors of `points` (indices, ascending): whole ranks in order while they fit,
/// then the members of the rank that does not fit by decreasing crowding distance (ties by
/// index).
pub fn select(points: &[Point], n: usize, how: Ranking) -> Vec<usize> {
    let rank = ranks(points, how);
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| (rank[i], i));
    let mut chosen = Vec::with_capacity(n);
    let mut at = 0;
    while chosen.len() < n && at < order.len() {
        let r = rank[order[at]];
        let end = at + order[at..].iter().take_while(|&&i| rank[i] == r).count();
        let group = &order[at..end];
        if chosen.len() + group.len() <= n {
            chosen.extend_from_slice(group);
        } else {
            let d = crowding(points, group);
            let mut by: Vec<usize> = (0..group.len()).collect();
            by.sort_by(|&a, &b| d[b].total_cmp(&d[a]).then(group[a].cmp(&group[b])));
            let need = n - chosen.len();
            chosen.extend(by[..need].iter().map(|&w| group[w]));
        }
        at = end;
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
#[path = "sort_tests.rs"]
mod tests;

//! Non-dominated ranking, crowding distance and survivor selection over [`Point`]s.

use super::Point;

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

/// `x` as an integer that orders as [`f64::total_cmp`] orders the values, so that sorts
/// compare integers (every comparison below is of such keys, never of a float).
#[inline]
pub(crate) fn total_key(x: f64) -> u64 {
    let b = x.to_bits();
    // Negative values: every bit but the sign flipped; then the sign flipped for all.
    (b ^ ((((b as i64) >> 63) as u64) >> 1)) ^ (1 << 63)
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
    let key = |i: usize, k: usize| total_key(points[i][k] + 0.0);
    // Sorted as (value, index) pairs packed in one integer: the index rides in the low bits.
    let mut by1: Vec<u128> = (0..n)
        .map(|i| (key(i, 1) as u128) << 32 | i as u128)
        .collect();
    by1.sort_unstable();
    let mut r1 = vec![0u32; n];
    let mut r = 0u32;
    for w in 0..n {
        if w > 0 && by1[w] >> 32 != by1[w - 1] >> 32 {
            r += 1;
        }
        r1[by1[w] as u32 as usize] = r + 1;
    }
    // (first value, second's rank, index).
    let mut by0: Vec<u128> = (0..n)
        .map(|i| (key(i, 0) as u128) << 64 | (r1[i] as u128) << 32 | i as u128)
        .collect();
    by0.sort_unstable();
    let value = |w: usize| (by0[w] >> 64) as u64;
    let rank1 = |w: usize| (by0[w] >> 32) as u32 as usize;
    let index = |w: usize| by0[w] as u32 as usize;
    let mut tree = vec![0u32; r as usize + 2];
    let mut out = vec![0u32; n];
    let mut at = 0;
    while at < n {
        let v = value(at);
        let mut end = at + 1;
        while end < n && value(end) == v {
            end += 1;
        }
        for w in at..end {
            let mut x = rank1(w);
            while x < tree.len() {
                tree[x] += 1;
                x += x & x.wrapping_neg();
            }
        }
        // Within the group (sorted by the second rank), runs of equal points.
        let mut w = at;
        while w < end {
            let mut run = 1;
            while w + run < end && rank1(w + run) == rank1(w) {
                run += 1;
            }
            let mut x = rank1(w);
            let mut no_worse = 0;
            while x > 0 {
                no_worse += tree[x];
                x -= x & x.wrapping_neg();
            }
            for u in w..w + run {
                out[index(u)] = no_worse - run as u32;
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
    // (value, member, position in `members`): members are distinct, so the order is total.
    let mut order: Vec<u128> = Vec::with_capacity(n);
    #[allow(clippy::needless_range_loop)] // k is the objective: a point's second index
    for k in 0..2 {
        order.clear();
        order.extend(members.iter().enumerate().map(|(w, &i)| {
            (total_key(points[i][k]) as u128) << 64 | (i as u128) << 32 | w as u128
        }));
        order.sort_unstable();
        let at = |w: usize| order[w] as u32 as usize;
        let lo = points[members[at(0)]][k];
        let hi = points[members[at(n - 1)]][k];
        d[at(0)] = f64::INFINITY;
        d[at(n - 1)] = f64::INFINITY;
        let range = hi - lo;
        if range > 0.0 {
            for w in 1..n.saturating_sub(1) {
                let gap = points[members[at(w + 1)]][k] - points[members[at(w - 1)]][k];
                d[at(w)] += gap / range;
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
    // (rank, index) packed, ascending: a counting sort, as ranks run from 1 to the count.
    let mut order: Vec<u64> = vec![0; points.len()];
    let mut start = vec![0usize; points.len() + 2];
    for &r in &rank {
        start[r as usize + 1] += 1;
    }
    for r in 1..start.len() {
        start[r] += start[r - 1];
    }
    for (i, &r) in rank.iter().enumerate() {
        order[start[r as usize]] = (r as u64) << 32 | i as u64;
        start[r as usize] += 1;
    }
    let mut chosen = Vec::with_capacity(n);
    let mut at = 0;
    while chosen.len() < n && at < order.len() {
        let r = order[at] >> 32;
        let mut end = at + 1;
        while end < order.len() && order[end] >> 32 == r {
            end += 1;
        }
        if chosen.len() + (end - at) <= n {
            chosen.extend(order[at..end].iter().map(|&o| o as u32 as usize));
        } else {
            let group: Vec<usize> = order[at..end].iter().map(|&o| o as u32 as usize).collect();
            let d = crowding(points, &group);
            // Decreasing distance (the key's complement), ties by index.
            let mut by: Vec<u128> = (0..group.len())
                .map(|w| (!total_key(d[w]) as u128) << 64 | (group[w] as u128) << 32 | w as u128)
                .collect();
            by.sort_unstable();
            let need = n - chosen.len();
            chosen.extend(by[..need].iter().map(|&b| group[b as u32 as usize]));
        }
        at = end;
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
#[path = "sort_tests.rs"]
mod tests;

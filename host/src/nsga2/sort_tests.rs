use super::*;
use proptest::prelude::*;

/// A(1,5) B(2,3) C(4,1) D(3,4) E(5,5) F = B: worked by hand in the comments.
fn six() -> Vec<Point> {
    vec![
        [1.0, 5.0],
        [2.0, 3.0],
        [4.0, 1.0],
        [3.0, 4.0],
        [5.0, 5.0],
        [2.0, 3.0],
    ]
}

#[test]
fn dominance_needs_one_strict_improvement() {
    assert!(dominates(&[1.0, 1.0], &[1.0, 2.0]));
    assert!(dominates(&[0.0, 1.0], &[1.0, 1.0]));
    assert!(!dominates(&[1.0, 1.0], &[1.0, 1.0]));
    assert!(!dominates(&[0.0, 2.0], &[1.0, 1.0]));
}

#[test]
fn ranks_by_hand() {
    // D is dominated by B and F; E by all five others; A, B, C, F by none.
    assert_eq!(ranks(&six(), Ranking::Dominators), vec![1, 1, 1, 3, 6, 1]);
    // Deb: {A, B, C, F}, then {D}, then {E}.
    assert_eq!(ranks(&six(), Ranking::Fronts), vec![1, 1, 1, 2, 3, 1]);
    assert_eq!(non_dominated(&six()), vec![0, 1, 2, 5]);
}

#[test]
fn crowding_by_hand() {
    // Front A, B, C: B's neighbours span 3 of 3 in objective 0 and 4 of 4 in objective 1.
    let d = crowding(&six(), &[0, 1, 2]);
    assert!(d[0].is_infinite() && d[2].is_infinite());
    assert_eq!(d[1], 2.0);
    // Four points on a line x + y = 4: each interior point's gaps are 3/4 and 3/4.
    let line = vec![[0.0, 4.0], [1.0, 3.0], [3.0, 1.0], [4.0, 0.0]];
    assert_eq!(crowding(&line, &[0, 1, 2, 3])[1..3], [1.5, 1.5]);
    // A range of zero adds nothing; one or two members are ends.
    let flat = vec![[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]];
    let d = crowding(&flat, &[0, 1, 2]);
    assert_eq!(d[1], 0.0);
    assert!(crowding(&flat, &[2]).iter().all(|x| x.is_infinite()));
}

#[test]
fn select_by_hand() {
    // Ranks 1 (A B C F) and 3 (D) fit in five.
    assert_eq!(select(&six(), 5, Ranking::Dominators), vec![0, 1, 2, 3, 5]);
    // Three of rank 1: A and C are ends; F (duplicate of B, later in the tie order) has
    // crowding 2/3 + 1/2 against B's 1/3 + 1/2.
    assert_eq!(select(&six(), 3, Ranking::Dominators), vec![0, 2, 5]);
    assert_eq!(select(&six(), 6, Ranking::Fronts), vec![0, 1, 2, 3, 4, 5]);
}

fn points() -> impl Strategy<Value = Vec<Point>> {
    // Small integer grids make ties and duplicates common.
    prop::collection::vec(
        (0u8..12, 0u8..12).prop_map(|(a, b)| [a as f64, b as f64]),
        1..60,
    )
}

proptest! {
    #[test]
    fn the_sweep_counts_dominators_as_every_pair_does(
        p in points(),
        signs in prop::collection::vec(any::<bool>(), 60),
    ) {
        // Negative zeros beside zeros, and negative values, as negated utilities give.
        let p: Vec<Point> = p
            .iter()
            .zip(&signs)
            .map(|(q, &neg)| if neg { [-q[0], q[1] - 3.0] } else { *q })
            .collect();
        prop_assert_eq!(dominator_counts(&p), dominator_counts_pairwise(&p));
    }

    #[test]
    fn the_front_is_mutually_non_dominated_and_dominates_the_rest(p in points()) {
        let f = non_dominated(&p);
        prop_assert!(!f.is_empty());
        for &a in &f {
            for &b in &f {
                prop_assert!(!dominates(&p[a], &p[b]));
            }
        }
        for i in 0..p.len() {
            if !f.contains(&i) {
                prop_assert!(f.iter().any(|&a| dominates(&p[a], &p[i])));
            }
        }
        let r = ranks(&p, Ranking::Fronts);
        let d = ranks(&p, Ranking::Dominators);
        #[allow(clippy::needless_range_loop)] // i and j index three parallel vectors
        for i in 0..p.len() {
            prop_assert_eq!(r[i] == 1, f.contains(&i));
            prop_assert_eq!(d[i] == 1, f.contains(&i));
            // A dominated point is a front later than each point dominating it.
            for j in 0..p.len() {
                if dominates(&p[j], &p[i]) {
                    prop_assert!(r[j] < r[i] && d[j] < d[i]);
                }
            }
        }
    }

    #[test]
    fn select_keeps_whole_better_ranks(p in points(), n in 1usize..60, deb in any::<bool>()) {
        let how = if deb { Ranking::Fronts } else { Ranking::Dominators };
        let n = n.min(p.len());
        let s = select(&p, n, how);
        prop_assert_eq!(s.len(), n);
        prop_assert!(s.windows(2).all(|w| w[0] < w[1]));
        let r = ranks(&p, how);
        let worst_kept = s.iter().map(|&i| r[i]).max().unwrap();
        for (i, &ri) in r.iter().enumerate() {
            if !s.contains(&i) {
                prop_assert!(ri >= worst_kept);
            }
        }
    }
}

/// The selection as it was written before its sorts compared integer keys: comparison
/// sorts over `f64::total_cmp`, kept here as the reference the keyed one must equal.
fn select_by_comparisons(points: &[Point], n: usize, how: Ranking) -> Vec<usize> {
    use std::cmp::Ordering;
    let by_value = |k: usize| {
        move |a: &usize, b: &usize| -> Ordering {
            points[*a][k].total_cmp(&points[*b][k]).then(a.cmp(b))
        }
    };
    let crowding = |members: &[usize]| {
        let m = members.len();
        let mut d = vec![0.0; m];
        let mut order: Vec<usize> = (0..m).collect();
        #[allow(clippy::needless_range_loop)] // k is the objective: a point's second index
        for k in 0..2 {
            order.sort_by(|&a, &b| by_value(k)(&members[a], &members[b]));
            let lo = points[members[order[0]]][k];
            let hi = points[members[order[m - 1]]][k];
            d[order[0]] = f64::INFINITY;
            d[order[m - 1]] = f64::INFINITY;
            let range = hi - lo;
            if range > 0.0 {
                for w in 1..m.saturating_sub(1) {
                    let gap = points[members[order[w + 1]]][k] - points[members[order[w - 1]]][k];
                    d[order[w]] += gap / range;
                }
            }
        }
        d
    };
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
            let d = crowding(group);
            let mut by: Vec<usize> = (0..group.len()).collect();
            by.sort_by(|&a, &b| d[b].total_cmp(&d[a]).then(group[a].cmp(&group[b])));
            chosen.extend(by[..n - chosen.len()].iter().map(|&w| group[w]));
        }
        at = end;
    }
    chosen.sort_unstable();
    chosen
}

#[test]
fn total_keys_order_as_total_cmp() {
    let v = [
        f64::NEG_INFINITY,
        -1e300,
        -1.5,
        -f64::MIN_POSITIVE,
        -0.0,
        0.0,
        f64::MIN_POSITIVE,
        1.0,
        1.5,
        1e300,
        f64::INFINITY,
    ];
    for a in v {
        for b in v {
            assert_eq!(total_key(a).cmp(&total_key(b)), a.total_cmp(&b), "{a} {b}");
        }
    }
}

proptest! {
    /// Integer-keyed sorts choose exactly the survivors the comparison sorts chose: ties in
    /// rank, in value (duplicates, -0.0 beside 0.0) and in crowding distance included.
    #[test]
    fn keyed_selection_equals_selection_by_comparisons(
        p in prop::collection::vec(
            (0u8..8, 0u8..8, any::<bool>(), any::<bool>()).prop_map(|(a, b, neg, frac)| {
                let x = if frac { a as f64 / 3.0 } else { a as f64 };
                [if neg { -x } else { x }, b as f64 * 0.7 - 2.0]
            }),
            1..120,
        ),
        n in 1usize..120,
        deb in any::<bool>(),
    ) {
        let how = if deb { Ranking::Fronts } else { Ranking::Dominators };
        let n = n.min(p.len());
        prop_assert_eq!(select(&p, n, how), select_by_comparisons(&p, n, how));
    }
}

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

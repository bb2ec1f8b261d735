//! The pass's pieces held to what they stand for: the read-so-far bounds, branch and bound
//! against the first highest value, and sifting into the hole against swapping.
extern crate std;

use super::best::{branch_and_bound, ReadSoFar};
use super::bounds::MAX_OPTIONS;
use super::*;
use crate::limits::MAX_PSTATES;
use crate::plan::Choice;
use crate::platform::{ClusterId, PState};
use crate::units::Micros;
use proptest::prelude::*;
use std::vec::Vec;

#[test]
fn a_known_start_bounds_only_longer_runs_on_its_cluster() {
    let (a, b) = (ClusterId(0), ClusterId(1));
    let mut k = ReadSoFar::new();
    assert_eq!(k.start_bound(a, Micros(10)), None);
    k.add_start(a, Micros(10), Micros(100));
    k.add_start(a, Micros(20), Micros(300));
    k.add_start(b, Micros(5), Micros(900));
    assert!(k.read_on(a) && k.read_on(b) && !k.read_on(ClusterId(2)));
    // Shorter than any run read on the cluster: nothing bounds it.
    assert_eq!(k.start_bound(a, Micros(9)), None);
    assert_eq!(k.start_bound(a, Micros(10)), Some(Micros(100)));
    // The latest start of the runs no longer than asked.
    assert_eq!(k.start_bound(a, Micros(25)), Some(Micros(300)));
    assert_eq!(k.start_bound(b, Micros(25)), Some(Micros(900)));
    // Utilities: the latest completion at or before the one asked, with the margin.
    k.add(Micros(50), 0.5);
    k.add(Micros(80), 0.25);
    assert_eq!(k.bound(Micros(49)), None);
    let u = k.bound(Micros(79)).unwrap();
    assert!((0.5..0.5 + 1e-9).contains(&u));
    let u = k.bound(Micros(1000)).unwrap();
    assert!((0.25..0.25 + 1e-9).contains(&u));
}

/// What the exhaustive loop picks from `values` (`None`: no option): the first highest.
fn first_highest(values: &[Option<f64>]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (k, v) in values.iter().enumerate() {
        if let Some(v) = v {
            if best.is_none_or(|b| *v > values[b].unwrap()) {
                best = Some(k);
            }
        }
    }
    best
}

/// Runs [`branch_and_bound`] from an option worth `first` over `values` under `bounds`:
/// its pick (0: `first`, k + 1: option k), whether it skipped one, and how many it
/// worked out.
///
/// With `drop_losers`, the evaluator answers `None` for an option whose value `loses`
/// (as [`best`] does when a known utility bounds it): the pick must not change.
fn search_with(
    first: f64,
    bounds: &[f64],
    values: &[Option<f64>],
    drop_losers: bool,
) -> (usize, bool, usize) {
    let mut worked = 0;
    let (pick, skipped) = branch_and_bound(bounds, (0, first), |k, loses| {
        worked += 1;
        Ok(values[k]
            .filter(|&v| !(drop_losers && loses(v)))
            .map(|v| (k + 1, v)))
    })
    .unwrap();
    (pick, skipped, worked)
}

/// [`search_with`], every option worked out whole.
fn search(first: f64, bounds: &[f64], values: &[Option<f64>]) -> (usize, bool, usize) {
    search_with(first, bounds, values, false)
}

/// A bound equal to the best so far but earlier in index order is still worked out, and
/// wins the tie; one later in index order is skipped.
#[test]
fn an_equal_bound_earlier_in_order_is_worked_out() {
    // Option 1 ranks first (bound 2) and is worth 1; option 0's bound is exactly 1.
    assert_eq!(
        search(0.0, &[1.0, 2.0], &[Some(1.0), Some(1.0)]),
        (1, false, 2)
    );
    // Option 0 ranks first and is worth 1; option 1's equal bound cannot win the tie.
    assert_eq!(
        search(0.0, &[2.0, 1.0], &[Some(1.0), Some(1.0)]),
        (1, true, 1)
    );
    // Nor can any equal bound against the first option found.
    assert_eq!(
        search(1.0, &[1.0, 1.0], &[Some(1.0), Some(1.0)]),
        (0, true, 0)
    );
    // Below the best: skipped.
    assert_eq!(
        search(0.0, &[3.0, 0.5], &[Some(1.0), Some(0.5)]),
        (1, true, 1)
    );
    let ninf = f64::NEG_INFINITY;
    assert_eq!(
        search(ninf, &[ninf, ninf], &[Some(ninf), None]),
        (0, true, 0)
    );
    assert_eq!(search(ninf, &[], &[]), (0, false, 0));
}

/// The swapping sift-down that [`sift_down`] replaces.
fn sift_down_by_swaps(h: &mut [Work], mut i: usize) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < h.len() && above(&h[l], &h[m]) {
            m = l;
        }
        if r < h.len() && above(&h[r], &h[m]) {
            m = r;
        }
        if m == i {
            return;
        }
        h.swap(i, m);
        i = m;
    }
}

proptest! {
    /// Over values with many ties (and bounds often equal to them), the search picks what
    /// the exhaustive loop picks, and reports a skip exactly when it worked out fewer.
    #[test]
    fn picks_as_the_exhaustive_loop(
        first in 0u8..4,
        options in prop::collection::vec(
            (prop::option::of(0u8..4), 0u8..3, any::<bool>()),
            0..MAX_OPTIONS,
        ),
    ) {
        let to_f64 = |v: u8| if v == 0 { f64::NEG_INFINITY } else { v as f64 };
        let values: Vec<Option<f64>> =
            options.iter().map(|&(v, _, _)| v.map(to_f64)).collect();
        // A bound is at least the value (anything when there is none), or infinite as a
        // NaN bound is kept.
        let bounds: Vec<f64> = options
            .iter()
            .map(|&(v, up, inf)| if inf { f64::INFINITY } else { to_f64(v.unwrap_or(0) + up) })
            .collect();
        let (pick, skipped, worked) = search(to_f64(first), &bounds, &values);
        let all: Vec<Option<f64>> =
            core::iter::once(Some(to_f64(first))).chain(values.iter().copied()).collect();
        prop_assert_eq!(Some(pick), first_highest(&all));
        prop_assert_eq!(skipped, worked < values.len());
        // An evaluator that drops the options that cannot win picks the same.
        let (dropping, ..) = search_with(to_f64(first), &bounds, &values, true);
        prop_assert_eq!(dropping, pick);
    }

    /// Building a heap and popping it through [`sift_down`] leaves every entry where the
    /// swapping sift-down does, over values with many ties (broken by the slot).
    #[test]
    fn sifting_into_the_hole_orders_as_swapping(
        values in prop::collection::vec(prop::option::of(0u8..6), 0..80),
    ) {
        let mut a: Vec<Work> = values
            .iter()
            .enumerate()
            .map(|(k, v)| {
                let mut ch = Choice::bound(
                    &crate::platform::Placement {
                        nodes: crate::units::NodeCount(1),
                        etc: [Micros(1); MAX_PSTATES],
                        apc: [crate::units::MilliWatts(1); MAX_PSTATES],
                    },
                    ClusterId(0),
                    PState(0),
                    Micros(0),
                );
                ch.value = v.map_or(f64::NEG_INFINITY, f64::from);
                Work { slot: (k * 7 % 80) as u32, best: Some(ch), may_start_now: false, stamp: 0, bound_u: f64::NAN }
            })
            .collect();
        let mut b = a.clone();
        for i in (0..a.len() / 2).rev() {
            sift_down(&mut a, i);
            sift_down_by_swaps(&mut b, i);
        }
        let slots = |h: &[Work]| h.iter().map(|w| w.slot).collect::<Vec<_>>();
        prop_assert_eq!(slots(&a), slots(&b));
        while !a.is_empty() {
            let n = a.len() - 1;
            a.swap(0, n);
            b.swap(0, n);
            a.truncate(n);
            b.truncate(n);
            sift_down(&mut a, 0);
            sift_down_by_swaps(&mut b, 0);
            prop_assert_eq!(slots(&a), slots(&b));
        }
    }
}

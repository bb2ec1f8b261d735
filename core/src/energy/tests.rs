extern crate std;
use super::*;
use crate::platform::{Cluster, ClusterKind, Placement};
use crate::units::{MilliWatts, NodeCount};
use proptest::prelude::*;
use std::string::ToString;
use std::vec::Vec;

fn j(x: u64) -> MilliJoules {
    MilliJoules::from_joules(x)
}

/// Core-seconds.
fn cs(x: u64) -> CoreMicros {
    CoreMicros(x as u128 * 1_000_000)
}

fn inputs() -> FilterInputs {
    FilterInputs {
        energy_remaining: j(6_000),
        resources_remaining: cs(20_000),
        day_resources: cs(100_000),
        energy_spent: j(4_000),
        budget: j(10_000),
        averages: Averages {
            resources_core_s: 100.0,
            energy_j: 50.0,
        },
    }
}

#[test]
fn ledger_refuses_over_budget_and_changes_nothing() {
    let mut l = EnergyLedger::new(j(100));
    assert_eq!(l.commit(j(60)), Ok(()));
    assert!(l.can_afford(j(40)));
    assert!(!l.can_afford(MilliJoules(40_001)));
    let before = l;
    assert_eq!(
        l.commit(MilliJoules(40_001)),
        Err(OverBudget {
            requested: MilliJoules(40_001),
            remaining: j(40)
        })
    );
    assert_eq!(l, before);
    // An early completion: 60 J committed, 45 J used; the other 15 J are free again.
    l.settle(j(60), j(45));
    assert_eq!(
        (l.consumed(), l.committed(), l.remaining()),
        (j(45), j(0), j(55))
    );
    assert_eq!(l.commit(j(55)), Ok(()));
    assert_eq!(l.remaining(), j(0));
    l.release(j(5));
    assert_eq!((l.committed(), l.remaining()), (j(50), j(5)));
    assert!(OverBudget {
        requested: j(1),
        remaining: j(0)
    }
    .to_string()
    .contains("1000 mJ asked"));
    // Unconstrained: everything is affordable up to u64::MAX.
    let mut u = EnergyLedger::new(MilliJoules::MAX);
    assert!(u.is_unlimited());
    assert_eq!(u.commit(MilliJoules(u64::MAX - 1)), Ok(()));
    assert!(u.commit(MilliJoules(2)).is_err());
}

#[test]
fn window_share_counts_the_day_part() {
    // 1,000 J over 10 h, 7 h of it inside the day.
    let day = (Micros::ZERO, Micros::from_hours(24));
    let e = window_share(
        j(1_000),
        Micros::from_hours(17),
        Micros::from_hours(27),
        day.0,
        day.1,
    );
    assert_eq!(e, j(700));
    let next = window_share(
        j(1_000),
        Micros::from_hours(17),
        Micros::from_hours(27),
        day.1,
        Micros::MAX,
    );
    assert_eq!(e + next, j(1_000));
    assert_eq!(window_share(j(9), Micros(5), Micros(5), day.0, day.1), j(9));
}

#[test]
fn filter_kind_names_round_trip() {
    for k in FilterKind::ALL {
        assert_eq!(k.to_string().parse::<FilterKind>(), Ok(k));
    }
    assert_eq!(
        "per-resource".parse::<FilterKind>(),
        Ok(FilterKind::PerResource)
    );
    assert_eq!("PerTask".parse::<FilterKind>(), Err(ParseFilterKindError));
    assert_eq!(
        EnergyFilter::with_default_leniency(FilterKind::PerTask).leniency,
        2.0
    );
    assert_eq!(
        EnergyFilter::with_default_leniency(FilterKind::PerResource).leniency,
        4.0
    );
}

#[test]
fn filters_by_hand() {
    // e_rem = 6,000 J, res_rem = 20,000 core-s, avg 100 core-s and 50 J an option.
    // Per task: n = min(20,000 / 100, 6,000 / 50) = min(200, 120) = 120;
    //   budget = 2 x 6,000 / 120 = 100 J.
    let x = inputs();
    let b = EnergyFilter {
        kind: FilterKind::PerTask,
        leniency: 2.0,
    }
    .budget(&x);
    assert_eq!(b, Budget::PerTask(100.0));
    assert!(b.admits(j(100), cs(1)));
    assert!(!b.admits(MilliJoules(100_001), cs(1)));
    // Resource-bound instead: avg energy 10 J -> n = min(200, 600) = 200; 2 x 6,000 / 200 = 60 J.
    let mut y = x;
    y.averages.energy_j = 10.0;
    assert_eq!(
        EnergyFilter {
            kind: FilterKind::PerTask,
            leniency: 2.0
        }
        .budget(&y),
        Budget::PerTask(60.0)
    );
    // Per resource: 4 x 6,000 J / 20,000 core-s = 1.2 J per core-s.
    let r = EnergyFilter {
        kind: FilterKind::PerResource,
        leniency: 4.0,
    }
    .budget(&x);
    assert_eq!(r, Budget::PerResource(1.2));
    // 1,200 J over 1,000 core-s is exactly 1.2: passes; 1,201 J does not.
    assert!(r.admits(j(1_200), cs(1_000)));
    assert!(!r.admits(j(1_201), cs(1_000)));
    // Adaptive: target E / T = 10,000 / 100,000 = 0.1 J per core-s; spent 4,000 J over
    // T - res_rem = 80,000 core-s = 0.05; lambda = 2. Budget = 1 x 2 x 6,000 / 120 = 100 J.
    assert_eq!(adaptive_lambda(&x), 2.0);
    let a = EnergyFilter {
        kind: FilterKind::Adaptive,
        leniency: 1.0,
    }
    .budget(&x);
    assert_eq!(a, Budget::PerTask(100.0));
    // Spending too fast: 4,000 J over 20,000 core-s = 0.2 > 0.1 target: lambda = 0.5.
    let mut fast = x;
    fast.resources_remaining = cs(80_000);
    assert_eq!(adaptive_lambda(&fast), 0.5);
    // No filter.
    assert_eq!(EnergyFilter::NONE.budget(&x), Budget::Unlimited);
}

#[test]
fn an_unlimited_day_is_never_filtered() {
    let mut x = inputs();
    x.budget = MilliJoules::MAX;
    for k in FilterKind::ALL {
        assert_eq!(
            EnergyFilter::with_default_leniency(k).budget(&x),
            Budget::Unlimited
        );
    }
}

#[test]
fn guard_adaptive_start_of_day_nothing_spent() {
    // Start of the day: nothing spent, nothing used (T - res_rem = 0): lambda = 1.
    let mut x = inputs();
    x.energy_spent = j(0);
    x.energy_remaining = x.budget;
    x.resources_remaining = x.day_resources;
    assert_eq!(adaptive_lambda(&x), 1.0);
    // n = min(100,000 / 100, 10,000 / 50) = 200; budget = 10,000 / 200 = 50 J = avg e.
    assert_eq!(
        EnergyFilter {
            kind: FilterKind::Adaptive,
            leniency: 1.0
        }
        .budget(&x),
        Budget::PerTask(50.0)
    );
    // Nothing spent after some of the day went by idle: still 1, not infinite.
    x.resources_remaining = cs(50_000);
    assert_eq!(adaptive_lambda(&x), 1.0);
}

#[test]
fn guard_adaptive_no_resource_used() {
    // Energy spent but no resource used or allocated (or res_rem > T): lambda = 1.
    let mut x = inputs();
    x.resources_remaining = x.day_resources;
    assert_eq!(adaptive_lambda(&x), 1.0);
    x.resources_remaining = cs(200_000);
    assert_eq!(adaptive_lambda(&x), 1.0);
}

#[test]
fn guard_adaptive_zero_day() {
    let mut x = inputs();
    x.day_resources = CoreMicros(0);
    x.resources_remaining = CoreMicros(0);
    assert_eq!(adaptive_lambda(&x), 1.0);
}

#[test]
fn guard_no_resources_left() {
    // res_rem = 0: n would be 0; it is 1, so the per-task budget is leniency x e_rem.
    let mut x = inputs();
    x.resources_remaining = CoreMicros(0);
    assert_eq!(
        tasks_remaining(x.resources_remaining, x.energy_remaining, &x.averages),
        1.0
    );
    assert_eq!(
        EnergyFilter {
            kind: FilterKind::PerTask,
            leniency: 2.0
        }
        .budget(&x),
        Budget::PerTask(12_000.0)
    );
    // Per resource: nothing to pace, unlimited while energy remains, 0 once it does not.
    assert_eq!(
        EnergyFilter {
            kind: FilterKind::PerResource,
            leniency: 4.0
        }
        .budget(&x),
        Budget::Unlimited
    );
    x.energy_remaining = j(0);
    let r = EnergyFilter {
        kind: FilterKind::PerResource,
        leniency: 4.0,
    }
    .budget(&x);
    assert_eq!(r, Budget::PerResource(0.0));
    assert!(r.admits(j(0), cs(10)) && !r.admits(MilliJoules(1), cs(10)));
}

#[test]
fn guard_no_energy_left() {
    // e_rem = 0: n would be 0 and e_rem / n = 0 / 0; the budget is 0 (only free options).
    let mut x = inputs();
    x.energy_remaining = j(0);
    for kind in [FilterKind::PerTask, FilterKind::Adaptive] {
        let b = EnergyFilter {
            kind,
            leniency: 2.0,
        }
        .budget(&x);
        assert_eq!(b, Budget::PerTask(0.0));
        assert!(b.admits(j(0), cs(1)) && !b.admits(MilliJoules(1), cs(1)));
    }
    assert_eq!(
        EnergyFilter {
            kind: FilterKind::PerResource,
            leniency: 4.0
        }
        .budget(&x),
        Budget::PerResource(0.0)
    );
}

#[test]
fn guard_zero_averages() {
    let mut x = inputs();
    // Average resources 0: only the energy bound, n = 6,000 / 50 = 120.
    x.averages.resources_core_s = 0.0;
    assert_eq!(
        tasks_remaining(x.resources_remaining, x.energy_remaining, &x.averages),
        120.0
    );
    // Average energy 0: only the resource bound, n = 20,000 / 100 = 200.
    let mut y = inputs();
    y.averages.energy_j = 0.0;
    assert_eq!(
        tasks_remaining(y.resources_remaining, y.energy_remaining, &y.averages),
        200.0
    );
    // Both 0 (no option at all): n = 1, budget = leniency x e_rem.
    x.averages = Averages::default();
    assert_eq!(
        tasks_remaining(x.resources_remaining, x.energy_remaining, &x.averages),
        1.0
    );
    assert_eq!(
        EnergyFilter {
            kind: FilterKind::PerTask,
            leniency: 2.0
        }
        .budget(&x),
        Budget::PerTask(12_000.0)
    );
}

#[test]
fn zero_resource_options() {
    assert!(Budget::PerResource(1.0).admits(j(0), CoreMicros(0)));
    assert!(!Budget::PerResource(1.0).admits(MilliJoules(1), CoreMicros(0)));
    assert!(!Budget::PerTask(f64::NAN).admits(j(0), cs(1)));
}

#[test]
fn averages_cover_every_type_cluster_and_pstate() {
    let cl = Cluster {
        nodes: NodeCount(10),
        cores_per_node: 4,
        kind: ClusterKind::General,
    };
    let mut p = Platform::new(&[cl, cl], 2).unwrap();
    let pl = |secs: [u64; 2], watts: [u32; 2], nodes| Placement {
        nodes: NodeCount(nodes),
        etc: [
            Micros::from_secs(secs[0]),
            Micros::from_secs(secs[1]),
            Micros::ZERO,
            Micros::ZERO,
        ],
        apc: [
            MilliWatts(watts[0] * 1000),
            MilliWatts(watts[1] * 1000),
            MilliWatts(0),
            MilliWatts(0),
        ],
    };
    // Type 0 on both clusters, type 1 on cluster 1 only: 3 placements x 2 P-states = 6.
    p.add_resolved_type(&[
        Some(pl([10, 20], [100, 50], 1)),
        Some(pl([5, 10], [200, 100], 2)),
    ])
    .unwrap();
    p.add_resolved_type(&[None, Some(pl([1, 2], [10, 5], 1))])
        .unwrap();
    // Resources (core-s): 4x10, 4x20, 8x5, 8x10, 4x1, 4x2 = 40+80+40+80+4+8 = 252 -> 42.
    // Energy (J): 1,000, 1,000, 2 x 200 x 5 = 2,000, 2,000, 10, 10 = 6,020 -> 1,003.33.
    let a = Averages::of_platform(&p);
    assert_eq!(a.resources_core_s, 42.0);
    assert!(libm::fabs(a.energy_j - 6_020.0 / 6.0) < 1e-9);
    assert_eq!(
        Averages::of_platform(&Platform::new(&[cl], 1).unwrap()),
        Averages::default()
    );
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Commit(u64),
    Settle(usize, u64),
    Release(usize),
}

fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            (0u64..400).prop_map(Op::Commit),
            (0usize..8, 0u64..=100).prop_map(|(i, pct)| Op::Settle(i, pct)),
            (0usize..8).prop_map(Op::Release),
        ],
        0..60,
    )
}

proptest! {
    #[test]
    fn ledger_never_exceeds_its_budget(budget in 0u64..2_000, ops in arb_ops()) {
        let mut l = EnergyLedger::new(MilliJoules(budget));
        // The commitments of tasks still open, so settle and release act on real ones.
        let mut open: Vec<u64> = Vec::new();
        for op in ops {
            match op {
                Op::Commit(e) => {
                    let before = l;
                    let fits = l.consumed().0 + l.committed().0 + e <= budget;
                    match l.commit(MilliJoules(e)) {
                        Ok(()) => { prop_assert!(fits); open.push(e); }
                        Err(_) => { prop_assert!(!fits); prop_assert_eq!(l, before); }
                    }
                }
                Op::Settle(i, pct) if !open.is_empty() => {
                    let e = open.remove(i % open.len());
                    let (c0, s0) = (l.committed().0, l.consumed().0);
                    l.settle(MilliJoules(e), MilliJoules(e * pct / 100));
                    prop_assert_eq!(l.committed().0, c0 - e);
                    prop_assert_eq!(l.consumed().0, s0 + e * pct / 100);
                }
                Op::Release(i) if !open.is_empty() => {
                    let e = open.remove(i % open.len());
                    l.release(MilliJoules(e));
                }
                _ => {}
            }
            prop_assert!(l.consumed().0 + l.committed().0 <= budget);
            prop_assert_eq!(l.committed().0, open.iter().sum::<u64>());
            prop_assert_eq!(l.remaining().0, budget - l.consumed().0 - l.committed().0);
        }
    }

    #[test]
    fn settle_and_release_never_break_the_budget(budget in 0u64..1_000, c in 0u64..1_000, s in 0u64..3_000, a in 0u64..3_000, r in 0u64..3_000) {
        // Even with amounts that do not match any commitment.
        let mut l = EnergyLedger::new(MilliJoules(budget));
        let _ = l.commit(MilliJoules(c));
        l.settle(MilliJoules(s), MilliJoules(a));
        prop_assert!(l.consumed().0 + l.committed().0 <= budget);
        l.release(MilliJoules(r));
        prop_assert!(l.consumed().0 + l.committed().0 <= budget);
    }

    #[test]
    fn admitted_options_are_within_their_budget(
        e_rem in 0u64..1u64 << 50,
        res_rem in 0u128..1u128 << 60,
        day_extra in 0u128..1u128 << 60,
        spent in 0u64..1u64 << 50,
        avg_res in prop_oneof![Just(0.0), 0.0f64..1e9],
        avg_e in prop_oneof![Just(0.0), 0.0f64..1e9],
        leniency in 0.0f64..8.0,
        kind in prop::sample::select(&FilterKind::ALL[..]),
        options in prop::collection::vec((0u64..1u64 << 50, 0u128..1u128 << 60, prop_oneof![Just(None), (0.99f64..1.01).prop_map(Some)]), 1..20),
    ) {
        let x = FilterInputs {
            energy_remaining: MilliJoules(e_rem),
            resources_remaining: CoreMicros(res_rem),
            day_resources: CoreMicros(res_rem + day_extra),
            energy_spent: MilliJoules(spent),
            budget: MilliJoules(e_rem + spent),
            averages: Averages { resources_core_s: avg_res, energy_j: avg_e },
        };
        let b = EnergyFilter { kind, leniency }.budget(&x);
        if let Budget::PerTask(v) | Budget::PerResource(v) = b {
            prop_assert!(v.is_finite() && v >= 0.0, "{:?}", b);
        }
        if kind == FilterKind::PerTask {
            // Never more than leniency x e_rem: n is at least 1.
            prop_assert!(matches!(b, Budget::PerTask(v) if v <= leniency * (e_rem as f64 / 1000.0)));
        }
        for (e, r, near) in options {
            // Half the options land within 1% of the budget, where a wrong comparison shows.
            let e = match (near, b) {
                (Some(f), Budget::PerTask(v)) => (v * f * 1000.0) as u64,
                (Some(f), Budget::PerResource(v)) => (v * f * (r as f64 / 1e6) * 1000.0) as u64,
                _ => e,
            };
            let (e, r) = (MilliJoules(e), CoreMicros(r));
            let ok = b.admits(e, r);
            match b {
                Budget::Unlimited => prop_assert!(ok),
                // Checked without the division admits uses: e (J) <= v, e <= v x r (core-s),
                // up to one part in 1e12 of float rounding.
                Budget::PerTask(v) => {
                    let ej = e.0 as f64 / 1000.0;
                    if ok { prop_assert!(ej <= v * (1.0 + 1e-12)); } else { prop_assert!(ej >= v * (1.0 - 1e-12)); }
                }
                Budget::PerResource(v) => {
                    let ej = e.0 as f64 / 1000.0;
                    let rs = r.0 as f64 / 1e6;
                    if ok { prop_assert!(ej <= v * rs * (1.0 + 1e-12)); } else { prop_assert!(ej >= v * rs * (1.0 - 1e-12)); }
                }
            }
        }
    }
}

/// A test type's table: per cluster, `None` or (nodes, minutes at P-state 0, watts).
type TestType = Vec<Option<(u32, u64, u32)>>;

/// A platform of `clusters` (cores a node) with `pstates` P-states and a type for each
/// entry of `types`.
fn verdict_platform(clusters: &[u32], pstates: u8, types: &[TestType]) -> Platform {
    let cl: Vec<Cluster> = clusters
        .iter()
        .map(|&cores| Cluster {
            nodes: NodeCount(64),
            cores_per_node: cores,
            kind: ClusterKind::General,
        })
        .collect();
    let mut p = Platform::new(&cl, pstates).unwrap();
    for t in types {
        let placements: Vec<Option<Placement>> = t
            .iter()
            .map(|o| {
                o.map(|(nodes, mins, watts)| Placement {
                    nodes: NodeCount(nodes),
                    etc: core::array::from_fn(|k| Micros::from_mins(mins + 7 * k as u64)),
                    apc: core::array::from_fn(|k| MilliWatts(watts - watts / 5 * k as u32)),
                })
            })
            .collect();
        p.add_resolved_type(&placements).unwrap();
    }
    p
}

/// Every option of type `t` that `b` admits, as [`Budget::admits`] says one by one.
fn admitted_one_by_one(platform: &Platform, b: Budget, t: TaskTypeId) -> u32 {
    let mut mask = 0;
    let Ok(ty) = platform.task_type(t) else {
        return 0;
    };
    for c in (0..platform.clusters().len() as u8).map(ClusterId) {
        let Some(pl) = ty.on(c) else { continue };
        for p in (0..platform.pstates()).map(PState) {
            if b.admits(pl.energy(p), platform.resources(c, pl, p)) {
                mask |= option_bit(c, p);
            }
        }
    }
    mask
}

/// Verdicts worked out at one budget are forgotten when the budget is set again: each
/// call gives the current budget's (fails if `set_budget` kept the old masks).
#[test]
fn a_new_budget_forgets_the_old_verdicts() {
    // One type on the second of two clusters, two P-states: 1 node of 32 cores for 10 and
    // 17 minutes at 100 and 80 W: 60 kJ over 19,200 core-s, 81.6 kJ over 32,640 core-s.
    let platform = verdict_platform(&[16, 32], 2, &[std::vec![None, Some((1, 10, 100_000))]]);
    let t = TaskTypeId(0);
    let both = option_bit(ClusterId(1), PState(0)) | option_bit(ClusterId(1), PState(1));
    let mut v = Verdicts::new(Budget::Unlimited);
    assert_eq!(v.of_type(&platform, t), both);
    v.set_budget(Budget::PerTask(0.0));
    assert_eq!(v.of_type(&platform, t), 0);
    // 60,000 / 19,200 = 3.125 J per core-s; 81,600 / 32,640 = 2.5: only P-state 1.
    v.set_budget(Budget::PerResource(3.0));
    assert_eq!(v.budget(), Budget::PerResource(3.0));
    assert_eq!(v.of_type(&platform, t), option_bit(ClusterId(1), PState(1)));
    v.set_budget(Budget::PerTask(60_000.0));
    assert_eq!(v.of_type(&platform, t), option_bit(ClusterId(1), PState(0)));
    v.set_budget(Budget::PerResource(f64::NAN));
    assert_eq!(v.of_type(&platform, t), 0);
    // A type the platform lacks, inside and beyond the cache, has no option.
    assert_eq!(v.of_type(&platform, TaskTypeId(5)), 0);
    assert_eq!(v.of_type(&platform, TaskTypeId(u16::MAX)), 0);
    // Each option's bit names it back.
    for c in (0..MAX_CLUSTERS as u8).map(ClusterId) {
        for p in (0..MAX_PSTATES as u8).map(PState) {
            assert_eq!(option_at(option_bit(c, p).trailing_zeros()), (c, p));
        }
    }
    // Options no platform has have no bit.
    assert_eq!(option_bit(ClusterId(MAX_CLUSTERS as u8), PState(0)), 0);
    assert_eq!(option_bit(ClusterId(0), PState(MAX_PSTATES as u8)), 0);
}

proptest! {
    /// Over random platforms and a run of budgets (many exactly at an option's ratio or
    /// energy, or one step of an `f64` away), every verdict is [`Budget::admits`]'s, asked
    /// in any order and more than once, and a table's verdicts are its type's.
    #[test]
    fn verdicts_are_the_budgets(
        clusters in prop::collection::vec(1u32..128, 1..=MAX_CLUSTERS),
        pstates in 1u8..=MAX_PSTATES as u8,
        types in prop::collection::vec(
            prop::collection::vec(
                prop::option::of((1u32..64, 1u64..2_000, 5_000u32..400_000)),
                MAX_CLUSTERS,
            ),
            1..12,
        ),
        budgets in prop::collection::vec((0u8..4, any::<prop::sample::Index>(), -1i8..=1), 1..8),
        asks in prop::collection::vec(any::<prop::sample::Index>(), 1..40),
    ) {
        // A type runs somewhere: one that can run nowhere is refused.
        let types: Vec<TestType> = types
            .into_iter()
            .map(|t| {
                let mut t = t[..clusters.len()].to_vec();
                if t.iter().all(Option::is_none) {
                    t[0] = Some((1, 1, 5_000));
                }
                t
            })
            .collect();
        let platform = verdict_platform(&clusters, pstates, &types);
        // Each option's energy (J) and ratio (J per core-s): the budgets' boundaries.
        let mut edges: Vec<(f64, f64)> = Vec::new();
        for ty in platform.types() {
            for c in (0..clusters.len() as u8).map(ClusterId) {
                let Some(pl) = ty.on(c) else { continue };
                for p in (0..pstates).map(PState) {
                    let e = pl.energy(p).as_joules_f64();
                    edges.push((e, e / platform.resources(c, pl, p).as_core_secs_f64()));
                }
            }
        }
        prop_assume!(!edges.is_empty());
        let step = |x: f64, s: i8| match s {
            -1 => f64::from_bits(x.to_bits() - 1),
            1 => f64::from_bits(x.to_bits() + 1),
            _ => x,
        };
        let mut v = Verdicts::new(Budget::Unlimited);
        for (kind, at, s) in budgets {
            let (e, r) = edges[at.index(edges.len())];
            let b = match kind {
                0 => Budget::Unlimited,
                1 => Budget::PerTask(step(e, s)),
                _ => Budget::PerResource(step(r, s)),
            };
            v.set_budget(b);
            for a in &asks {
                let t = TaskTypeId(a.index(platform.types().len()) as u16);
                let want = admitted_one_by_one(&platform, b, t);
                prop_assert_eq!(v.of_type(&platform, t), want);
                let table = platform.task_type(t).unwrap();
                prop_assert_eq!(v.of_table(&platform, table), want);
            }
        }
    }
}

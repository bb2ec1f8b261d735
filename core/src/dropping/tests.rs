use super::*;
use crate::platform::{Cluster, ClusterKind, Placement, TaskTypeId};
use crate::task::TaskId;
use crate::units::{MilliWatts, NodeCount};
use crate::utility::{TableC1, UtilityCurve};

const A: u8 = UtilityClasses::essc20_index(TableC1::A, 0);

fn place(mins: [u64; 3]) -> Placement {
    Placement {
        nodes: NodeCount(1),
        etc: [
            Micros::from_mins(mins[0]),
            Micros::from_mins(mins[1]),
            Micros::from_mins(mins[2]),
            Micros::ZERO,
        ],
        apc: [MilliWatts(100_000); 4],
    }
}

/// A platform with a slow cluster (40 min at P-state 0) and a fast one (10 min at
/// P-state 0, 8 min at P-state 1: a P-state's randomness can make it the fastest).
fn platform() -> Platform {
    let cl = Cluster {
        nodes: NodeCount(4),
        cores_per_node: 8,
        kind: ClusterKind::General,
    };
    let mut p = Platform::new(&[cl, cl], 3).unwrap();
    p.add_resolved_type(&[Some(place([40, 50, 60])), Some(place([10, 8, 12]))])
        .unwrap();
    p
}

/// Class A, priority 1, urgency 0.1 per minute, F = 20 minutes, arrived at 100 minutes.
fn task() -> Task {
    Task {
        id: TaskId(1),
        arrival: Micros::from_mins(100),
        demand: Demand::Typed(TaskTypeId(0)),
        curve: UtilityCurve::PiecewiseExp {
            priority: 1.0,
            urgency_per_min: 0.1,
            first: Micros::from_mins(20),
            class: A,
        },
        actual: None,
    }
}

#[test]
fn threshold_at_the_fastest_cluster_and_pstate() {
    let (p, cs, t) = (platform(), UtilityClasses::essc20(), task());
    // F = 20 min. Now = arrival + 15 min; fastest = 8 min (cluster 1, P-state 1), so it
    // would complete 23 min after arrival: 3 min into k = 2 of class A:
    //   U = (1 - 0.6) x e^(-0.11 x 3) + 0.6 = 0.4 x 0.718924 + 0.6 = 0.887570.
    let now = Micros::from_mins(115);
    assert!(!should_drop(&t, now, &p, &cs, 0.887).unwrap());
    assert!(should_drop(&t, now, &p, &cs, 0.888).unwrap());
    // Exactly the value: kept (dropping is strictly below).
    let v = t.curve.value_at(Micros::from_mins(23), &cs).unwrap();
    assert!(!should_drop(&t, now, &p, &cs, v).unwrap());
    assert!(should_drop(&t, now, &p, &cs, v + 1e-12).unwrap());
}

#[test]
fn kept_by_its_fast_cluster_though_the_slow_one_is_below() {
    let (p, cs, t) = (platform(), UtilityClasses::essc20(), task());
    // Now = arrival: the fast cluster completes at 8 min (still the flat first interval,
    // 1.0); the slow cluster at 40 min = F + 20 min, where class A is at 0.2 (< 0.5).
    assert!(t.curve.value_at(Micros::from_mins(40), &cs).unwrap() < 0.5);
    assert!(!should_drop(&t, t.arrival, &p, &cs, 0.5).unwrap());
    // The same task on the slow cluster alone would be dropped.
    let mut slow = platform();
    slow.add_resolved_type(&[Some(place([40, 50, 60])), None])
        .unwrap();
    let mut ts = task();
    ts.demand = Demand::Typed(TaskTypeId(1));
    assert!(should_drop(&ts, ts.arrival, &slow, &cs, 0.5).unwrap());
}

#[test]
fn bad_inputs_are_errors() {
    let (p, cs, t) = (platform(), UtilityClasses::essc20(), task());
    assert_eq!(
        should_drop(&t, Micros::from_mins(99), &p, &cs, 0.5),
        Err(Error::Input(InputError::TimeWentBackwards))
    );
    assert_eq!(
        should_drop(&t, t.arrival, &p, &cs, f64::NAN),
        Err(Error::Input(InputError::BadNumber))
    );
    let mut u = task();
    u.demand = Demand::Typed(TaskTypeId(7));
    assert_eq!(
        should_drop(&u, u.arrival, &p, &cs, 0.5),
        Err(Error::Input(InputError::UnknownTaskType(7)))
    );
}

//! Task dropping (seed 000 §III.C): at the start of a mapping event, a task that could not
//! earn at least the dropping threshold even in the best case is removed from the mappable set.
//!
//! The best case is an upper bound: the task starting now on the cluster and P-state with its
//! minimum execution time, ignoring whether nodes are free. Dropping keeps reservations from
//! being made far into the future for tasks that would earn little (seed 000 §III.C).

use crate::error::{Error, InputError};
use crate::platform::Platform;
use crate::task::{Demand, Task};
use crate::units::Micros;
use crate::utility::UtilityClasses;

/// One value of a task's utility curve, `value` at `since` after its arrival. The dropping
/// check at an event's start asks for completing after the task's fastest option from now,
/// which is what the utility-aware pass's bound of the task asks when that option is
/// admitted: the task's slot keeps the point so the bound reads it instead of another `exp`
/// (the curve is a function, so a point never goes stale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// Time since arrival.
    pub since: Micros,
    /// The curve's value then.
    pub value: f64,
}

/// [`drop_check`], working out the task's fastest duration itself.
#[cfg(test)]
pub(crate) fn should_drop(
    task: &Task,
    now: Micros,
    platform: &Platform,
    classes: &UtilityClasses,
    threshold: f64,
) -> Result<bool, Error> {
    let fastest = task.fastest(platform).map(|(_, d)| d);
    drop_check(task, fastest, now, platform, classes, threshold).map(|(drop, _)| drop)
}

/// Whether `task` should be dropped at `now`: the utility it would earn starting now on its
/// fastest cluster and P-state ([`Task::fastest`]) is strictly below `threshold` (a task that
/// could earn exactly the threshold is kept, as seed 002 §4.3.2 says: "not less than the
/// threshold ... remains").
///
/// Errors: `now` before the task's arrival is [`InputError::TimeWentBackwards`]; a NaN
/// threshold is [`InputError::BadNumber`]; an unknown task type, or a task with no cluster to
/// run on ([`InputError::NoEligibleCluster`], with `u16::MAX` for a task's own table), or a
/// curve error from [`crate::utility::UtilityCurve::value_at`].
///
/// `fastest` is the task's fastest duration (`Task::fastest`, which depends on its type
/// alone: the caller may keep it per type); the point of its curve read (its best case)
/// comes back with the answer.
pub fn drop_check(
    task: &Task,
    fastest: Option<Micros>,
    now: Micros,
    platform: &Platform,
    classes: &UtilityClasses,
    threshold: f64,
) -> Result<(bool, CurvePoint), Error> {
    if threshold.is_nan() {
        return Err(InputError::BadNumber.into());
    }
    if now < task.arrival {
        return Err(InputError::TimeWentBackwards.into());
    }
    // Surfaces an unknown task type as such, before asking for the fastest placement.
    task.table(platform)?;
    let Some(fastest) = fastest else {
        let id = match task.demand {
            Demand::Typed(t) => t.0,
            Demand::Own(_) => u16::MAX,
        };
        return Err(InputError::NoEligibleCluster(id).into());
    };
    let since = (now - task.arrival).saturating_add(fastest);
    let value = task.curve.value_at(since, classes)?;
    Ok((value < threshold, CurvePoint { since, value }))
}

#[cfg(test)]
mod tests {
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
}

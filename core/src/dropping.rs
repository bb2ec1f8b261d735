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
mod tests;

//! The heuristics of seed 000 §III.D-E, one per file, and what they share.
//!
//! Every heuristic considers, for a task, the earliest start of each (cluster, P-state)
//! option (seed 000 §III.F). The comparison heuristics walk the mappable tasks in arrival
//! order at P-state 0 and reserve permanently; the utility-aware ones run the Min-Min
//! framework of Algorithm 1 (`greedy`) with one objective each.

use crate::config::Heuristic;
use crate::error::Error;
#[cfg(test)]
use crate::plan::Choice;
use crate::plan::{Decision, Planner};

mod common;
mod conservative;
mod easy;
mod fcfs;
mod greedy;
pub mod knapsack;
mod max_upe;
mod max_upr;
mod max_upt;
mod max_util;
mod max_value;
mod multi_queue;
mod random;

/// Runs the configured heuristic for one mapping event.
pub(crate) fn run(
    ctl: &mut Planner<'_>,
    early_completions: bool,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    let reservations = ctl.config().reservations;
    match ctl.config().heuristic {
        Heuristic::Random => random::run(ctl, sink),
        Heuristic::Conservative => conservative::run(ctl, early_completions, sink),
        Heuristic::Easy => easy::run(ctl, sink),
        Heuristic::MultiQueue => multi_queue::run(ctl, early_completions, sink),
        Heuristic::MaxUtil => greedy::run(ctl, reservations, max_util::MaxUtil, sink),
        Heuristic::MaxUpt => greedy::run(ctl, reservations, max_upt::MaxUpt, sink),
        Heuristic::MaxUpr => greedy::run(ctl, reservations, max_upr::MaxUpr, sink),
        Heuristic::MaxUpe => greedy::run(ctl, reservations, max_upe::MaxUpe, sink),
        Heuristic::Fcfs => fcfs::run(ctl, sink),
        Heuristic::Knapsack => knapsack::run(ctl, sink),
        Heuristic::MaxValue => greedy::run(ctl, reservations, max_value::MaxValue, sink),
    }
}

/// Task slot `i`'s best under the configured utility-aware heuristic, as the Min-Min
/// framework finds it and as the exhaustive loop it prunes does (`None`: not one of them).
#[cfg(test)]
pub(crate) fn greedy_bests(
    ctl: &mut Planner<'_>,
    i: u32,
) -> Result<Option<[greedy::Best; 2]>, Error> {
    fn both(
        ctl: &mut Planner<'_>,
        i: u32,
        o: impl greedy::Objective,
    ) -> Result<Option<[greedy::Best; 2]>, Error> {
        // The second working out reads the utility the first kept, as a later one in an
        // event does.
        let (mut types, mut u) = (type_bounds(), f64::NAN);
        greedy::best(ctl, i, o, &mut types, &mut u)?;
        let pruned = greedy::best(ctl, i, o, &mut types, &mut u)?;
        let exhaustive = greedy::best_exhaustive(ctl, i, o)?;
        Ok(Some([pruned, exhaustive]))
    }
    match ctl.config().heuristic {
        Heuristic::MaxUtil => both(ctl, i, max_util::MaxUtil),
        Heuristic::MaxUpt => both(ctl, i, max_upt::MaxUpt),
        Heuristic::MaxUpr => both(ctl, i, max_upr::MaxUpr),
        Heuristic::MaxUpe => both(ctl, i, max_upe::MaxUpe),
        Heuristic::MaxValue => both(ctl, i, max_value::MaxValue),
        _ => Ok(None),
    }
}

/// An event's [`greedy::TypeBounds`], none worked out yet.
#[cfg(test)]
pub(crate) fn type_bounds() -> greedy::TypeBounds {
    [greedy::TypeBound::Unknown; crate::limits::MAX_TASK_TYPES]
}

/// A task's bound through its type and option by option, and whether its type's kept costs
/// give its options' bounds and its objective keeps to its costs (see [`greedy_bounds`]).
#[cfg(test)]
pub(crate) type BoundsCheck = ([Option<Choice>; 2], bool);

/// Task slot `i`'s bound under the configured utility-aware heuristic as the pass finds it
/// (through `types`, kept for one event) and from each of its options' bounds, and whether
/// the bounds a best reads from the kept costs are its options' bounds and the objective's
/// values are the utility over its costs, for each `u` of `us` and each of the task's
/// options, where it says so (`None`: not one of them).
#[cfg(test)]
pub(crate) fn greedy_bounds(
    ctl: &mut Planner<'_>,
    i: u32,
    types: &mut greedy::TypeBounds,
    us: &[f64],
) -> Result<Option<BoundsCheck>, Error> {
    fn both(
        ctl: &mut Planner<'_>,
        i: u32,
        o: impl greedy::Objective,
        types: &mut greedy::TypeBounds,
        us: &[f64],
    ) -> Result<Option<BoundsCheck>, Error> {
        let b = greedy::bounds_both(ctl, i, o, types)?;
        let kept = greedy::kept_bounds_agree(ctl, i, o, types)?;
        Ok(Some((b, kept && greedy::per_cost_holds(ctl, i, o, us)?)))
    }
    match ctl.config().heuristic {
        Heuristic::MaxUtil => both(ctl, i, max_util::MaxUtil, types, us),
        Heuristic::MaxUpt => both(ctl, i, max_upt::MaxUpt, types, us),
        Heuristic::MaxUpr => both(ctl, i, max_upr::MaxUpr, types, us),
        Heuristic::MaxUpe => both(ctl, i, max_upe::MaxUpe, types, us),
        Heuristic::MaxValue => both(ctl, i, max_value::MaxValue, types, us),
        _ => Ok(None),
    }
}

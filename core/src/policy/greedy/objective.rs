//! What a utility-aware heuristic ranks options by: an [`Objective`], the value of an option
//! for a task that earns a given utility when it completes. Each Max-* heuristic is one
//! objective (its own file in `policy/`); the pass, the bounds and the best are generic over
//! it, so each objective is inlined where they compute.

use crate::error::Error;
use crate::plan::{Choice, Planner};

/// An objective: the value of an option for a task that earns `u` when it completes.
///
/// It must not decrease as `u` grows (none does: `u` over a positive measure of the option,
/// or a monotone packing of `u` and the completion), and for a given `u` it must not grow as
/// the option starts later: `bounds::bounds` relies on both.
///
/// The pass is generic over it, so each heuristic's objective is inlined where bounds are
/// computed (once an option for every mappable task at every event), and what it does not
/// read of an option is not computed.
pub(crate) trait Objective: Copy {
    /// Whether [`value`](Self::value) is `u / cost`, bit for bit, with the option's
    /// [`cost`](Self::cost): then the highest bound of a task's options is its utility over
    /// the least cost, which is the same for every task of a type (see [`TypeBound`]).
    const PER_COST: bool;

    /// Whether an option is first checked against the options read before it, unqueried
    /// (see [`loses_unread`]): worth it where a longer run on the same cluster seldom
    /// wins, as when the cost grows with the run's duration.
    const CHECK_UNREAD: bool = true;

    /// The value of option `ch` for a task that earns `u` when it completes: by default the
    /// utility over the option's [`cost`](Self::cost), what [`PER_COST`](Self::PER_COST)
    /// promises.
    fn value(self, ctl: &Planner<'_>, ch: &Choice, u: f64) -> Result<f64, Error> {
        Ok(u / self.cost(ctl, ch)?)
    }

    /// What the utility is divided by when [`PER_COST`](Self::PER_COST): a measure of the
    /// option alone (not of its start or of the task's utility). 1 otherwise.
    fn cost(self, _ctl: &Planner<'_>, _ch: &Choice) -> Result<f64, Error> {
        Ok(1.0)
    }
}

/// A task's best option (`None`: it has none) and whether it may start now.
pub(crate) type Best = (Option<Choice>, bool);

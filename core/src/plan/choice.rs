//! An option of a task as the planner offers it to a heuristic ([`Choice`]: where, in which
//! P-state, from when, at what energy), and a mappable task's working entry during an event
//! ([`Work`]: its cached best). A leaf of the planner.

use crate::platform::{ClusterId, PState, Placement};
use crate::units::{Micros, MilliJoules, NodeCount};

/// One option of a task: a cluster, a P-state and the earliest start there, with what it
/// costs. A heuristic ranks options by `value`; the planner assigns one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The cluster.
    pub cluster: ClusterId,
    /// The P-state.
    pub pstate: PState,
    /// The start.
    pub start: Micros,
    /// The planned duration.
    pub duration: Micros,
    /// The nodes.
    pub nodes: NodeCount,
    /// Energy of the whole run.
    pub energy: MilliJoules,
    /// Its share inside the day (what the ledger is charged).
    pub day_energy: MilliJoules,
    /// The objective's value.
    pub value: f64,
    /// The fit memo's slot and generation that vouch for `start` (`u32::MAX`: none does).
    pub(crate) memo: u32,
    pub(crate) gen: u32,
}

impl Choice {
    /// An option that is no option: `pl` on (c, p) as if it started at `start`, which only
    /// stands for a bound of the real one's objective (the memo never vouches for it).
    pub(crate) fn bound(pl: &Placement, c: ClusterId, p: PState, start: Micros) -> Choice {
        let energy = pl.energy(p);
        Choice {
            cluster: c,
            pstate: p,
            start,
            duration: pl.etc[p.0 as usize],
            nodes: pl.nodes,
            energy,
            day_energy: energy,
            value: 0.0,
            memo: u32::MAX,
            gen: 0,
        }
    }
}

/// A mappable task's working entry during a mapping event (the caller's storage holds one
/// a task; the utility-aware pass keeps them as a heap).
#[derive(Clone, Copy, Debug, Default)]
pub struct Work {
    /// Task slot index.
    pub slot: u32,
    /// Its cached best option.
    pub best: Option<Choice>,
    /// Whether it may still start now (the utility-aware pass ends when none may).
    pub may_start_now: bool,
    /// Assignments made in this event when its best was last computed, plus one.
    pub stamp: u32,
    /// The utility its bounds use in this event, once worked out (NaN: not yet): the same
    /// for the whole event, and an `exp` to work out.
    pub bound_u: f64,
}

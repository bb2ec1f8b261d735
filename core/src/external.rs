//! A policy outside the core: an [`External`] controller makes every decision of a mapping
//! event, and the core checks each one before it applies it ([`Refusal`] says why one is
//! not). The controller keeps the clock, the cluster, the ledgers and the digest; the
//! external policy only proposes. The host's `--controller exec:CMD` is one (a process
//! over JSON lines, `kairos_host::live::exec`).
//!
//! A proposal is a [`Decision`]: a start now (`Start`, at the event's time), a permanent
//! reservation later (`Reserve`) or a drop (`Drop`); its nodes and planned end must be the
//! task's on that cluster and P-state, the nodes free over the run, and its energy inside
//! what the day's budget has left (the energy filter is a policy's pacing, not checked).

use crate::error::Error;
use crate::plan::{Decision, TaskState};
use crate::task::{Task, TaskId};
use crate::units::{Micros, MilliJoules, NodeCount};
use core::fmt;
use serde::{Deserialize, Serialize};

/// A policy that runs outside the core (another process, another language).
pub trait External {
    /// Task `id` arrived (the controller has taken it).
    fn arrived(&mut self, id: TaskId, task: &Task) -> Result<(), Error>;
    /// Task `id` completed at `at`, under assignment `seq`.
    fn completed(&mut self, id: TaskId, at: Micros, seq: u32) -> Result<(), Error>;
    /// A mapping event at `now`: every decision goes through `propose`, which applies it,
    /// or refuses it ([`Error::Refused`]) or fails (another [`Error`]); either ends the
    /// event with that error.
    fn map(
        &mut self,
        now: Micros,
        propose: &mut dyn FnMut(&Decision) -> Result<(), Error>,
    ) -> Result<(), Error>;
}

/// Why a proposed decision was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Refusal {
    /// The task has not arrived (or its id was never given).
    NotArrived,
    /// The task is not waiting: it was started, reserved, completed or dropped.
    NotWaiting(TaskState),
    /// A start that is not at the event's time, or a reservation that is not after it.
    WrongTime {
        /// The event's time.
        now: Micros,
    },
    /// A place-holder: an external policy starts, reserves or drops.
    PlaceHold,
    /// The task cannot run on that cluster (it is not one of its partitions).
    WrongPartition,
    /// A P-state the platform does not have.
    NoSuchPState {
        /// P-states the platform has.
        pstates: u8,
    },
    /// Nodes or planned end other than the task's on that cluster and P-state.
    WrongShape {
        /// The nodes it needs there.
        nodes: NodeCount,
        /// Its planned end from that start.
        end: Micros,
    },
    /// Not enough nodes of the cluster are free over the run.
    Busy {
        /// Nodes free over the whole run.
        free: u32,
    },
    /// A start at or after the end of the day.
    AfterDay {
        /// The day's end.
        day_end: Micros,
    },
    /// Its energy inside the day is more than the budget has left.
    OverBudget {
        /// Its energy inside the day.
        need: MilliJoules,
        /// What the day's budget has left.
        left: MilliJoules,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotArrived => f.write_str("the task has not arrived"),
            Refusal::NotWaiting(s) => write!(f, "the task is not waiting (it is {s:?})"),
            Refusal::WrongTime { now } => write!(
                f,
                "a start must be at the event's time ({} us) and a reservation after it",
                now.0
            ),
            Refusal::PlaceHold => {
                f.write_str("a place-holder (an external policy starts, reserves or drops)")
            }
            Refusal::WrongPartition => f.write_str("the task cannot run on that cluster"),
            Refusal::NoSuchPState { pstates } => {
                write!(f, "no such P-state (the platform has {pstates})")
            }
            Refusal::WrongShape { nodes, end } => write!(
                f,
                "the task needs {} nodes there and would end at {} us",
                nodes.0, end.0
            ),
            Refusal::Busy { free } => write!(f, "nodes busy: {free} free over the run"),
            Refusal::AfterDay { day_end } => {
                write!(
                    f,
                    "the start is at or after the day's end ({} us)",
                    day_end.0
                )
            }
            Refusal::OverBudget { need, left } => write!(
                f,
                "over the energy budget: it needs {} mJ inside the day, {} mJ are left",
                need.0, left.0
            ),
        }
    }
}

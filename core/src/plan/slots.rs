//! What the planner keeps of each task, and what it tells the caller: a task's state and
//! assignment in its slot of the caller's task table, and the decisions of a mapping event.
//!
//! A leaf of the planner: the other files of `plan/` read and write these; the digest and the
//! engine read decisions.

use crate::dropping::CurvePoint;
use crate::platform::{ClusterId, PState};
use crate::task::{Task, TaskId};
use crate::units::{Micros, MilliJoules, NodeCount};
use serde::{Deserialize, Serialize};

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskState {
    /// Waiting to be mapped.
    Mappable,
    /// Held by a place-holder until the next mapping event.
    PlaceHeld,
    /// Holding a permanent reservation that starts later.
    Reserved,
    /// Started (or its reservation's start has come).
    Running,
    /// Finished.
    Completed,
    /// Dropped: it could no longer earn the dropping threshold.
    Dropped,
}

/// Where and when a task was put.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Assignment {
    /// The cluster.
    pub cluster: ClusterId,
    /// The P-state.
    pub pstate: PState,
    /// The nodes it holds.
    pub nodes: NodeCount,
    /// Its start.
    pub start: Micros,
    /// Its planned end.
    pub end: Micros,
    /// Energy committed to the day's ledger for it (its share inside the day).
    pub committed: MilliJoules,
    /// The planner's count of assignments when this one was made: tells a re-placed task's
    /// new assignment from its old one even at the same start.
    pub seq: u32,
}

/// One task slot of the caller's task table.
#[derive(Clone, Debug)]
pub struct TaskSlot {
    /// The task.
    pub task: Task,
    /// Its state.
    pub state: TaskState,
    /// Its assignment, once it has one.
    pub assignment: Option<Assignment>,
    /// The last value of its utility curve the dropping check worked out, if any.
    pub point: Option<CurvePoint>,
}

impl TaskSlot {
    /// A slot that holds no task yet: what the caller fills its task table with.
    pub const EMPTY: TaskSlot = TaskSlot {
        task: Task::EMPTY,
        state: TaskState::Completed,
        assignment: None,
        point: None,
    };
}

/// What a decision did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DecisionKind {
    /// The task starts now.
    Start,
    /// The task holds a permanent reservation for a later start.
    Reserve,
    /// The task holds a place-holder until the next event (not a commitment).
    PlaceHold,
    /// The task was dropped.
    Drop,
}

/// A decision of a mapping event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decision {
    /// The task.
    pub task: TaskId,
    /// What was decided.
    pub kind: DecisionKind,
    /// The cluster (zero for a drop).
    pub cluster: ClusterId,
    /// The nodes.
    pub nodes: NodeCount,
    /// The P-state.
    pub pstate: PState,
    /// The start (the event's time for a drop).
    pub start: Micros,
    /// The planned end.
    pub end: Micros,
}

impl Decision {
    /// The drop of `task` at `now`: no cluster, nodes or P-state, starting and ending now.
    pub const fn drop(task: TaskId, now: Micros) -> Decision {
        Decision {
            task,
            kind: DecisionKind::Drop,
            cluster: ClusterId(0),
            nodes: NodeCount(0),
            pstate: PState(0),
            start: now,
            end: now,
        }
    }
}

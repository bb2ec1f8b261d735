//! Tasks: what arrives at the cluster, what it needs, and what completing it is worth.

use crate::error::InputError;
use crate::platform::{ClusterId, PState, Placement, Platform, TaskType, TaskTypeId};
use crate::units::Micros;
use crate::utility::UtilityCurve;
use serde::{Deserialize, Serialize};

/// A task's identity, unique within a run.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TaskId(pub u32);

/// What a task needs to run: a task type of the platform (the ESSC model), or a placement
/// table of its own (trace jobs, where every job has its own size and time).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
// The own table is inline (no allocation in the core); trace jobs need it, and a task slot
// is sized for the larger variant either way.
#[allow(clippy::large_enum_variant)]
pub enum Demand {
    /// Runs as its platform task type says.
    Typed(TaskTypeId),
    /// Runs as its own table says.
    Own(TaskType),
}

/// A task: arrival, demand and utility curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Identity.
    pub id: TaskId,
    /// Arrival time.
    pub arrival: Micros,
    /// What it needs.
    pub demand: Demand,
    /// What completing it is worth, as a function of time since arrival.
    pub curve: UtilityCurve,
    /// Its real run time, when it is shorter than the planned one (trace jobs end at their run
    /// time, planned with their requested time); `None` runs exactly as planned.
    pub actual: Option<Micros>,
}

impl Task {
    /// A placeholder for task slots that hold no task yet (type 0, arriving at time zero,
    /// worth nothing): never read as a task, only overwritten by an arrival.
    pub const EMPTY: Task = Task {
        id: TaskId(0),
        arrival: Micros::ZERO,
        demand: Demand::Typed(TaskTypeId(0)),
        curve: UtilityCurve::Linear {
            start: 0.0,
            soft: Micros::ZERO,
            hard: Micros::ZERO,
            final_value: 0.0,
        },
        actual: None,
    };

    /// The task's placement table.
    pub fn table<'a>(&'a self, platform: &'a Platform) -> Result<&'a TaskType, InputError> {
        match &self.demand {
            Demand::Typed(t) => platform.task_type(*t),
            Demand::Own(t) => Ok(t),
        }
    }
    /// Its placement on cluster `c`, if it may run there.
    pub fn on<'a>(&'a self, platform: &'a Platform, c: ClusterId) -> Option<&'a Placement> {
        self.table(platform).ok().and_then(|t| t.on(c))
    }
    /// How long it really runs once started with planned duration `planned`.
    pub fn run_time(&self, planned: Micros) -> Micros {
        match self.actual {
            Some(a) if a < planned => a,
            _ => planned,
        }
    }
    /// Its minimum execution time over every (cluster, P-state) it may run in, and that
    /// cluster: what dropping and maximum utility use. P-state 0 is usually the fastest, but
    /// the P-states' time scalings are random draws (seed 000 §IV.B), so every P-state counts.
    /// Ties go to the lower cluster index; unused (zero) entries are skipped.
    pub fn fastest(&self, platform: &Platform) -> Option<(ClusterId, Micros)> {
        let t = self.table(platform).ok()?;
        let mut best: Option<(ClusterId, Micros)> = None;
        for (i, p) in t.placements.iter().enumerate() {
            if let Some(p) = p {
                for ps in 0..platform.pstates() {
                    let d = p
                        .etc
                        .get(PState(ps).0 as usize)
                        .copied()
                        .unwrap_or(Micros::ZERO);
                    if d != Micros::ZERO && best.is_none_or(|b| d < b.1) {
                        best = Some((ClusterId(i as u8), d));
                    }
                }
            }
        }
        best
    }
}

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
    /// How long it really runs once started with planned duration `planned`: its real run
    /// time ([`Task::actual`]) at the speed of its reference plan (P-state 0 of its first
    /// placement, for a task with its own table), stretched or shrunk with the planned time
    /// at another P-state ([`actual_run_time`]), and never beyond the plan.
    pub fn run_time(&self, planned: Micros) -> Micros {
        match self.actual {
            Some(a) => actual_run_time(a, self.reference(), planned),
            None => planned,
        }
    }

    /// The planned time its real run time is measured against: P-state 0 of its first
    /// placement when it carries its own table; `None` for a typed task.
    fn reference(&self) -> Option<Micros> {
        match &self.demand {
            Demand::Own(t) => t.placements.iter().flatten().next().map(|p| p.etc[0]),
            Demand::Typed(_) => None,
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

/// The real run time of a task whose run time is `actual` when planned for `reference`, once
/// planned for `planned` (another P-state): `actual x planned / reference`, rounded down, so
/// a P-state that stretches the plan by a factor stretches the run by the same factor (a
/// trace job's run at a slower P-state); without a reference (or a zero one) `actual` as is.
/// Never more than `planned`: a run ends at its plan (a job is killed at its limit).
pub fn actual_run_time(actual: Micros, reference: Option<Micros>, planned: Micros) -> Micros {
    let scaled = match reference {
        Some(r) if r.0 > 0 && r != planned => {
            (actual.0 as u128 * planned.0 as u128 / r.0 as u128).min(planned.0 as u128) as u64
        }
        _ => actual.0,
    };
    if scaled < planned.0 {
        Micros(scaled)
    } else {
        planned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actual_run_time_scales_with_the_plan_and_ends_at_it() {
        let (a, r) = (Micros(600), Some(Micros(1000)));
        // At the reference plan: the run time as is (a trace job of one P-state).
        assert_eq!(actual_run_time(a, r, Micros(1000)), Micros(600));
        // A P-state 1.5x slower: 1.5x the run time; 0.5x faster: half of it.
        assert_eq!(actual_run_time(a, r, Micros(1500)), Micros(900));
        assert_eq!(actual_run_time(a, r, Micros(500)), Micros(300));
        // A run time above the request ends at the plan.
        assert_eq!(actual_run_time(Micros(2000), r, Micros(1500)), Micros(1500));
        // No reference, or a zero one: the run time as is, capped at the plan.
        assert_eq!(actual_run_time(a, None, Micros(1500)), Micros(600));
        assert_eq!(
            actual_run_time(a, Some(Micros(0)), Micros(400)),
            Micros(400)
        );
        // No overflow at the extremes.
        assert_eq!(
            actual_run_time(Micros(u64::MAX), Some(Micros(1)), Micros(u64::MAX)),
            Micros(u64::MAX)
        );
    }
}

//! The utility a run earned, split by the tasks' priority level (App. H: with priorities
//! 1000 / 100 / 10 / 1, how much of it the critical tasks earn).
//!
//! The core's report sums the window's utility without asking whose it was; the split is
//! recomputed here from the run's outcomes with the core's own rule (a task earns its
//! curve's value at its completion, start + ETC, if that falls in the window, rounded to
//! the integer ledger as the core rounds it), so the four parts add up to the report's
//! total exactly (checked in the tests).

use crate::seed002::generate::Trial;
use kairos_core::serial::TaskOutcome;
use kairos_core::units::{Micros, Utility};

/// The window's utility by priority level, in the order of `priorities` (critical, high,
/// medium, low). A task whose starting utility is none of them counts in none.
pub fn utility_by_priority(
    trial: &Trial,
    outcomes: &[TaskOutcome],
    window: (Micros, Micros),
    priorities: &[f64; 4],
) -> [Utility; 4] {
    let env = trial.env();
    let mut out = [Utility::default(); 4];
    for (task, o) in trial.tasks.iter().zip(outcomes) {
        let TaskOutcome::Started { machine, start } = *o else {
            continue;
        };
        let etc = env.etc(task.ty, env.machine_type[machine as usize]);
        let done = start.saturating_add(etc);
        if done < window.0 || done >= window.1 {
            continue;
        }
        let Some(level) = priorities.iter().position(|&p| p == task.curve.priority()) else {
            continue;
        };
        let u = task
            .curve
            .value_at(done.saturating_sub(task.arrival), &trial.classes)
            .unwrap_or(0.0);
        out[level] += Utility::from_f64(u);
    }
    out
}

//! The Min-Min framework of the utility-aware heuristics (seed 000 §III.E, Algorithm 1):
//! find each mappable task's best (cluster, P-state, earliest start) by the objective, assign
//! the task whose best is highest, and repeat until no task can be placed today.
//!
//! Each task's best is cached. An assignment only makes options later or energy scarcer, so
//! a cached value is an upper bound of the current one: the loop takes the highest cached
//! value and recomputes it only if the memo no longer vouches for its start or its energy
//! no longer fits, then looks again (lazy greedy). The picks are exactly those of the eager
//! loop, ties going to the earlier arrival.

use super::Reservations;
use crate::controller::{Choice, Controller, Decision};
use crate::error::Error;
use crate::platform::{ClusterId, PState};

/// An objective: the value of task slot `i` taking option `ch`.
pub(crate) type Objective = fn(&Controller<'_>, u32, &Choice) -> Result<f64, Error>;

/// The best option of task slot `i` under `objective`; ties keep the first (cluster, P-state).
pub(crate) fn best(
    ctl: &mut Controller<'_>,
    i: u32,
    objective: Objective,
) -> Result<Option<Choice>, Error> {
    let filtered = super::filtered(ctl);
    let mut best: Option<Choice> = None;
    for c in 0..ctl.cluster_count() {
        if ctl.placement(i, ClusterId(c)).is_none() {
            continue;
        }
        for p in 0..ctl.pstates() {
            if let Some(mut ch) = ctl.option(i, ClusterId(c), PState(p), filtered)? {
                ch.value = objective(ctl, i, &ch)?;
                if best.as_ref().is_none_or(|b| ch.value > b.value) {
                    best = Some(ch);
                }
            }
        }
    }
    Ok(best)
}

pub(super) fn run(
    ctl: &mut Controller<'_>,
    reservations: Reservations,
    objective: Objective,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    let n = ctl.collect_mappable()?;
    for w in 0..n {
        let i = ctl.work()[w].slot;
        let b = best(ctl, i, objective)?;
        ctl.work()[w].best = b;
        ctl.work()[w].done = b.is_none();
    }
    // An entry recomputed since the last assignment is current whatever the memo says.
    let mut assignments: u32 = 0;
    let mut computed_at = FreshMarks::default();
    loop {
        let mut top: Option<(usize, f64)> = None;
        for (w, item) in ctl.work().iter().enumerate() {
            if item.done {
                continue;
            }
            if let Some(b) = &item.best {
                if top.is_none_or(|t| b.value > t.1) {
                    top = Some((w, b.value));
                }
            }
        }
        let Some((w, _)) = top else { return Ok(()) };
        let item = ctl.work()[w];
        let ch = item.best.expect("top has a best");
        let current = computed_at.is(w, assignments)
            || (ctl.still_valid(&ch) && ch.day_energy <= ctl.energy_available());
        if !current {
            let b = best(ctl, item.slot, objective)?;
            ctl.work()[w].best = b;
            ctl.work()[w].done = b.is_none();
            computed_at.mark(w, assignments);
            continue;
        }
        ctl.assign(item.slot, &ch, reservations, sink)?;
        ctl.work()[w].done = true;
        assignments += 1;
    }
}

/// Which work entries were recomputed after the latest assignment: one entry at a time is
/// enough, since the loop recomputes and immediately looks again.
#[derive(Default)]
struct FreshMarks {
    last: Option<(usize, u32)>,
}

impl FreshMarks {
    fn is(&self, w: usize, assignments: u32) -> bool {
        self.last == Some((w, assignments))
    }
    fn mark(&mut self, w: usize, assignments: u32) {
        self.last = Some((w, assignments));
    }
}

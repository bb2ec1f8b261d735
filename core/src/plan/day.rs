//! The energy day rolling over: a controller that runs for ever (the firmware's live mode)
//! starts the next day, as long as the last, once its clock passes the day's end. A replay
//! of one day never rolls over (the engine runs no mapping event at or past the horizon).
//!
//! The new day has a fresh ledger (the budget again, nothing consumed); a task running or
//! reserved across the boundary commits its planned energy's share inside the new day
//! (nothing, if that share does not fit the budget), and settles against that share when it
//! completes. Its share of the old day is left with the old day, which is no longer kept.
//! The fit memo forgets its answers, which were bounded by the old day's end.

use super::planner::Planner;
use super::slots::TaskState;
use crate::energy::{window_share, EnergyLedger};
use crate::units::{Micros, MilliJoules};

impl Planner<'_> {
    /// Starts the day that contains `now`, if `now` is at or past the day's end; returns
    /// whether it did. A day of zero length never rolls over.
    pub(crate) fn roll_day(&mut self, now: Micros) -> bool {
        let len = self.config.day_end.saturating_sub(self.config.day_start);
        if len == Micros::ZERO || now < self.config.day_end {
            return false;
        }
        let days = (now.0 - self.config.day_end.0) / len.0 + 1;
        self.config.day_start = Micros(self.config.day_start.0.saturating_add(days * len.0));
        self.config.day_end = self.config.day_start.saturating_add(len);
        let (w0, w1) = (self.config.day_start, self.config.day_end);
        let mut ledger = EnergyLedger::new(self.config.budget);
        let held = self.len.min(self.tasks.len());
        for slot in self.tasks[..held].iter_mut() {
            if !matches!(slot.state, TaskState::Running | TaskState::Reserved) {
                continue;
            }
            let Some(a) = slot.assignment.as_mut() else {
                continue;
            };
            let share = slot
                .task
                .on(self.platform, a.cluster)
                .and_then(|p| p.apc.get(a.pstate.0 as usize))
                .map_or(MilliJoules::ZERO, |power| {
                    window_share(
                        power.energy(a.nodes, a.end - a.start),
                        a.start,
                        a.end,
                        w0,
                        w1,
                    )
                });
            a.committed = if ledger.commit(share).is_ok() {
                share
            } else {
                MilliJoules::ZERO
            };
        }
        self.ledger = ledger;
        self.memo.clear();
        self.epoch = self.epoch.wrapping_add(1).max(1);
        true
    }
}

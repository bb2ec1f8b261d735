//! A waiting task taken back by whoever submitted it (a live cluster's job cancelled by its
//! user before it started): it stops waiting as a dropped one does, and a reservation it held
//! is taken back with its energy.

use super::planner::Planner;
use super::slots::TaskState;
use crate::error::{Error, InputError};
use crate::task::TaskId;
use crate::units::Micros;

impl Planner<'_> {
    /// Task `id`, mappable, place-held or reserved to start after `at`, is withdrawn at `at`:
    /// it is dropped, and its reservation (if any) released. A task that runs, or whose
    /// reservation has started, completes instead (`complete`).
    pub(crate) fn withdraw(&mut self, id: TaskId, at: Micros) -> Result<(), Error> {
        self.tick(at)?;
        let i = self.held(id).ok_or(InputError::UnknownTask(id.0))?;
        let slot = &self.tasks[i];
        match (slot.state, slot.assignment) {
            (TaskState::Mappable, _) => {
                // Mappable tasks are not counted as unsettled in the open list; a dropped
                // one is until the next event's clean-up.
                self.unsettled += 1;
            }
            // A place-holder's booking goes at the next event; it is counted already.
            (TaskState::PlaceHeld, _) => {}
            (TaskState::Reserved, Some(a)) if a.start > at => {
                // Back to mappable (uncounted), then dropped (counted).
                self.unreserve(id.0);
                self.unsettled += 1;
            }
            _ => return Err(InputError::BadTaskState(id.0).into()),
        }
        let slot = &mut self.tasks[i];
        slot.state = TaskState::Dropped;
        slot.assignment = None;
        Ok(())
    }
}

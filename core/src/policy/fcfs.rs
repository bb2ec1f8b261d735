//! Strict First-Come First-Served, without backfilling (the baseline of trace replay): in
//! arrival order, a task starts now if it can; the first one that cannot stops the pass, so
//! no later task overtakes it. Nothing is reserved: the blocked task is tried again at the
//! next mapping event, so the caller must run one whenever nodes free up (every completion).
//! P-state 0, no dropping.

use super::common::start_now_anywhere;
use crate::config::Reservations;
use crate::error::Error;
use crate::plan::{Decision, Planner, TaskState};

pub(super) fn run(ctl: &mut Planner<'_>, sink: &mut dyn FnMut(&Decision)) -> Result<(), Error> {
    // The queue is read in place up to the first task that cannot start, not collected
    // whole at every event (it holds thousands of tasks on a busy trace).
    for k in 0..ctl.open_count() {
        let i = ctl.open_slot(k) as u32;
        if ctl.slot(i).state != TaskState::Mappable {
            continue;
        }
        match start_now_anywhere(ctl, i)? {
            Some(ch) => ctl.assign(i, &ch, Reservations::Permanent, sink)?,
            None => break,
        }
    }
    Ok(())
}

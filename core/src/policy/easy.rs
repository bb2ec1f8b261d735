//! EASY Backfilling (seed 000 §III.D.3, after Lifka): in arrival order, a task starts now if
//! it can; the first one that cannot gets the single permanent reservation; later ones start
//! only if they can start now, in the voids the reservation leaves (so they never delay it).
//! At every event the reservation, if it has not started, is recomputed: taken back and
//! given again in arrival order, which can only bring it earlier. P-state 0, no dropping.

use super::common::{earliest_anywhere, start_now_anywhere, TypesSeen};
use crate::config::Reservations;
use crate::error::Error;
use crate::plan::{Decision, Planner};
use crate::platform::ClusterId;
use crate::units::Micros;

pub(super) fn run(ctl: &mut Planner<'_>, sink: &mut dyn FnMut(&Decision)) -> Result<(), Error> {
    // EASY holds at most one reservation: each pass gives at most one, and first takes back
    // the last pass's unless it has started (the mapping event made that one running). So the
    // scan ends at the first that starts after now instead of reading every open slot (a
    // trace's queue holds thousands, and this runs at every pass).
    if let Some(i) = (0..ctl.open_count())
        .map(|k| ctl.open_slot(k))
        .find(|&i| ctl.reserved_after_now(i))
    {
        ctl.unreserve(i as u32);
    }
    let n = ctl.collect_mappable()?;
    let mut reserved = false;
    // Within a pass the cluster only fills and energy only drains, so once a task of some
    // type could neither start now nor take the reservation, no later task of that type can.
    let mut stuck = TypesSeen::default();
    for w in 0..n {
        let i = ctl.work()[w].slot;
        let ty = ctl.task_type(i);
        if stuck.contains(ty) {
            continue;
        }
        // Most candidates only need to know whether they can start now; the full earliest
        // start is needed once, for the reservation.
        if let Some(ch) = start_now_anywhere(ctl, i)? {
            ctl.assign(i, &ch, Reservations::Permanent, sink)?;
        } else if let Some(ch) = match reserved {
            false => earliest_anywhere(ctl, i)?,
            true => None,
        } {
            ctl.assign(i, &ch, Reservations::Permanent, sink)?;
            reserved = true;
        } else {
            stuck.insert(ty);
            continue;
        }
        // Once the reservation is given, the tasks after this commitment can only start now,
        // and none can when no node is free now (bookings only add up within a pass): on a
        // full machine the rest of the queue is not asked one by one (on KTH-SP2, 388,000
        // start-now questions instead of 585,000).
        if reserved && !free_now(ctl) {
            break;
        }
    }
    Ok(())
}

/// Whether some node of some cluster is free now, over the next microsecond: every task
/// needs at least one node for at least that long, so none can start now if this is false.
fn free_now(ctl: &Planner<'_>) -> bool {
    let now = ctl.now();
    let next = now.saturating_add(Micros(1));
    (0..ctl.cluster_count())
        .filter_map(|c| ctl.timeline(ClusterId(c)))
        .any(|tl| tl.free_over(now, next, 1) > 0)
}

//! EASY Backfilling (seed 000 §III.D.3, after Lifka): in arrival order, a task starts now if
//! it can; the first one that cannot gets the single permanent reservation; later ones start
//! only if they can start now, in the voids the reservation leaves (so they never delay it).
//! At every event the reservation, if it has not started, is recomputed: taken back and
//! given again in arrival order, which can only bring it earlier. P-state 0, no dropping.

use super::common::{earliest_anywhere, keepable, start_now_anywhere, TypesSeen};
use crate::config::Reservations;
use crate::error::Error;
use crate::plan::{Decision, Planner, TaskState};
use crate::platform::ClusterId;
use crate::units::Micros;

pub(super) fn run(ctl: &mut Planner<'_>, sink: &mut dyn FnMut(&Decision)) -> Result<(), Error> {
    // A pass that ends leaves no mappable task able to start now; the record of that lets
    // the next pass skip them while nothing frees time (`Planner::first_unscanned`).
    let from = ctl.first_unscanned();
    ctl.forget_scanned();
    pass(ctl, from, sink)?;
    ctl.mark_scanned();
    Ok(())
}

/// One pass; the mappable tasks before position `from` of the open list are known unable
/// to start now, and are not asked again if the reservation is kept.
fn pass(ctl: &mut Planner<'_>, from: usize, sink: &mut dyn FnMut(&Decision)) -> Result<(), Error> {
    // EASY holds at most one reservation: each pass gives at most one, and first takes back
    // the last pass's unless it has started (the mapping event made that one running). So the
    // scan ends at the first that starts after now instead of reading every open slot (a
    // trace's queue holds thousands, and this runs at every pass).
    let mut reserved = false;
    let mut k = 0;
    if let Some(i) = (0..ctl.open_count())
        .map(|k| ctl.open_slot(k))
        .find(|&i| ctl.reserved_after_now(i))
    {
        if comes_back_in_place(ctl, i as u32) {
            // What taking it back and placing it again first in the queue would do.
            ctl.keep_reservation(i as u32, sink)?;
            if let Some(a) = ctl.assignment(i as u32) {
                ctl.reserved_anew(i as u32, &a);
            }
            reserved = true;
            if !free_now(ctl) {
                return Ok(());
            }
            // The queue is as the last pass left it, but for the tasks that arrived since:
            // only those may start now if nothing freed time since (no energy filter here).
            k = from;
        } else {
            ctl.unreserve(i as u32);
        }
    }
    // The mappable tasks are read from the open list in place, not copied to the work list
    // first: a pass books only the task it is at, so the states of those after it stay as
    // they were when it began (and the open list does not change within a pass).
    ctl.check_work_room()?;
    // Within a pass the cluster only fills and energy only drains, so once a task of some
    // type could neither start now nor take the reservation, no later task of that type can.
    let mut stuck = TypesSeen::default();
    while k < ctl.open_count() {
        // With the reservation given, a task can only start now, and most of a long queue
        // need more nodes than are idle: those are passed over on the count alone, which
        // is what asking each would answer (and a task of a type seen stuck would be
        // passed over too, so the set need not learn their types).
        if reserved {
            k = ctl.next_fitting_idle(k);
            if k >= ctl.open_count() {
                break;
            }
        }
        let i = ctl.open_slot(k) as u32;
        k += 1;
        if ctl.slot(i).state != TaskState::Mappable {
            continue;
        }
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

/// Whether the reservation of task slot `i` (starting after now), taken back, would be given
/// again at once at the same start on the same nodes, so that keeping it is the same pass:
///
/// - it would be the first task of the queue (no waiting task before it), so the first one
///   asked, and it cannot start now (its earliest start is its start, after now);
/// - its earliest start would be its start: one cluster, on which no time was freed since
///   it was booked (`timeline/in_place.rs`) or, if some was, no earlier start fits once its
///   own booking is counted as free (`timeline/ignoring.rs`); no energy filter to change its
///   mind, and the energy it holds still affordable once given back;
/// - node choice at that start would pick its nodes again (`timeline/in_place.rs`, which
///   asks this and the earliest start in one walk over the groups).
///
/// Most passes of a busy log are arrivals, on which none of this changes: taking the head's
/// reservation back and placing it again cost most of what such a pass did; after an early
/// completion, most often it comes back where it was too.
fn comes_back_in_place(ctl: &mut Planner<'_>, i: u32) -> bool {
    let Some(a) = keepable(ctl, i) else {
        return false;
    };
    let first = (0..ctl.open_count())
        .map(|k| ctl.open_slot(k) as u32)
        .find(|&j| j == i || ctl.slot(j).state == TaskState::Mappable);
    if first != Some(i) {
        return false;
    }
    ctl.comes_back_in_place(i, &a)
}

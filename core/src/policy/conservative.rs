//! Conservative Backfilling (seed 000 §III.D.2, after Mu'alem and Feitelson): every waiting
//! task, in arrival order, starts now or gets a permanent reservation at its earliest start;
//! later tasks backfill the voids, which never delays an earlier reservation because those
//! are booked. P-state 0, no dropping.
//!
//! Compression after early ends takes every reservation back and books it at its earliest
//! start; most come back where they were. A reservation the timeline says would come back
//! at the same start on the same nodes (`timeline/stays.rs`) is kept instead: the same
//! bookings and the same decision, without the take-back and the new booking.

use super::common::{earliest_anywhere, filtered, place_earliest, TypesSeen};
use crate::config::Reservations;
use crate::error::Error;
use crate::plan::{Decision, Planner};
use crate::task::TaskId;

pub(super) fn run(
    ctl: &mut Planner<'_>,
    early_completions: bool,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    if early_completions {
        compress(ctl, sink)?;
    }
    let n = ctl.collect_mappable()?;
    // Most of the tasks left waiting at 10k are of types stuck for the day.
    let mut stuck = TypesSeen::default();
    for w in 0..n {
        let i = ctl.work()[w].slot;
        place_earliest(ctl, i, &mut stuck, sink)?;
    }
    Ok(())
}

/// `common::compress`, with the reservations that would come back in place kept
/// ([`stays`]): every reservation that has not started, in slot order, moved to its
/// earliest start.
fn compress(ctl: &mut Planner<'_>, sink: &mut dyn FnMut(&Decision)) -> Result<(), Error> {
    for k in 0..ctl.open_count() {
        let i = ctl.open_slot(k);
        if !ctl.reserved_after_now(i) {
            continue;
        }
        if stays(ctl, i as u32) {
            ctl.keep_reservation(i as u32, sink)?;
            continue;
        }
        let old = ctl.assignment(i as u32);
        ctl.unreserve(i as u32);
        match earliest_anywhere(ctl, i as u32)? {
            Some(ch) if old.is_none_or(|o| ch.start <= o.start) => {
                ctl.assign(i as u32, &ch, Reservations::Permanent, sink)?
            }
            // Cannot happen with the task's own slot free again; keep the task mappable
            // rather than book it later than promised.
            _ => {}
        }
    }
    Ok(())
}

/// Whether the reservation of task slot `i` (starting after now), taken back, would be
/// booked again at once at the same start on the same nodes: one cluster and no energy
/// filter (its earliest start is then the timeline's alone), the energy it holds still
/// affordable once given back, and the timeline's answer (`timeline/stays.rs`).
fn stays(ctl: &Planner<'_>, i: u32) -> bool {
    if ctl.cluster_count() != 1 || filtered(ctl) {
        return false;
    }
    let Some(a) = ctl.assignment(i) else {
        return false;
    };
    if a.committed.0 > 0 && ctl.energy_available().0 == 0 {
        return false;
    }
    let Some(tl) = ctl.timeline(a.cluster) else {
        return false;
    };
    tl.stays_when_taken_back(ctl.now(), TaskId(i), a.start, a.end, a.nodes.0)
}

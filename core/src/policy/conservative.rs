//! Conservative Backfilling (seed 000 §III.D.2, after Mu'alem and Feitelson): every waiting
//! task, in arrival order, starts now or gets a permanent reservation at its earliest start;
//! later tasks backfill the voids, which never delays an earlier reservation because those
//! are booked. P-state 0, no dropping.
//!
//! Compression after early ends takes every reservation back and books it at its earliest
//! start; most come back where they were. A reservation the timeline says would come back
//! at the same start on the same nodes (`timeline/stays.rs`) is kept instead: the same
//! bookings and the same decision, without the take-back and the new booking.

use super::common::{compress, keepable, place_earliest, TypesSeen};
use crate::error::Error;
use crate::plan::{Decision, Planner};
use crate::task::TaskId;

pub(super) fn run(
    ctl: &mut Planner<'_>,
    early_completions: bool,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    if early_completions {
        compress(ctl, stays, sink)?;
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

/// Whether the reservation of task slot `i` (starting after now), taken back, would be
/// booked again at once at the same start on the same nodes: one cluster and no energy
/// filter (its earliest start is then the timeline's alone), the energy it holds still
/// affordable once given back, and the timeline's answer (`timeline/stays.rs`).
fn stays(ctl: &Planner<'_>, i: u32) -> bool {
    let Some(a) = keepable(ctl, i) else {
        return false;
    };
    let Some(tl) = ctl.timeline(a.cluster) else {
        return false;
    };
    tl.stays_when_taken_back(ctl.now(), TaskId(i), a.start, a.end, a.nodes.0)
}

//! Conservative Backfilling (seed 000 §III.D.2, after Mu'alem and Feitelson): every waiting
//! task, in arrival order, starts now or gets a permanent reservation at its earliest start;
//! later tasks backfill the voids, which never delays an earlier reservation because those
//! are booked. P-state 0, no dropping.

use super::common::{compress, place_earliest, TypesSeen};
use crate::error::Error;
use crate::plan::{Decision, Planner};

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

//! Conservative Backfilling (seed 000 §III.D.2, after Mu'alem and Feitelson): every waiting
//! task, in arrival order, starts now or gets a permanent reservation at its earliest start;
//! later tasks backfill the voids, which never delays an earlier reservation because those
//! are booked. P-state 0, no dropping.

use super::{compress, earliest_anywhere, Reservations, TypesSeen};
use crate::controller::{Controller, Decision};
use crate::error::Error;

pub(super) fn run(
    ctl: &mut Controller<'_>,
    early_completions: bool,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    if early_completions {
        compress(ctl, sink)?;
    }
    let n = ctl.collect_mappable()?;
    // Within a pass the cluster only fills and energy only drains, so once a task of some
    // type has no option today, no later task of that type has one (the tasks left waiting
    // at 10k are mostly such).
    let mut stuck = TypesSeen::default();
    for w in 0..n {
        let i = ctl.work()[w].slot;
        let ty = ctl.task_type(i);
        if stuck.contains(ty) {
            continue;
        }
        match earliest_anywhere(ctl, i)? {
            Some(ch) => ctl.assign(i, &ch, Reservations::Permanent, sink)?,
            None => stuck.insert(ty),
        }
    }
    Ok(())
}

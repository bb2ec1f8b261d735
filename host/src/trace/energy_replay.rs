//! The replay on a machine that draws power: [`replay_trace_energy`] runs the replay driver
//! (`replay.rs`) with a power model (`power.rs`) and turns what it recorded into an
//! [`EnergyOutcome`]. A file of its own so that the driver and the model import each other
//! in one direction only (the driver reads the model; this file reads both).

use super::power::{EnergyOutcome, TraceEnergy};
use super::TraceError;
use crate::swf::ReplayJob;

/// Replays `jobs` as [`super::replay_trace_with`] does, on a machine that draws power as
/// `energy` says, under its budget and filter; with `placed`, the nodes of each job too.
/// Jobs not started by the day's end (with a budget) are in [`EnergyOutcome::unfinished_ids`]
/// and [`super::Placed::unfinished`], not in the records.
pub fn replay_trace_energy(
    jobs: &[ReplayJob],
    procs: u32,
    options: &super::ReplayOptions,
    energy: &TraceEnergy,
    placed: bool,
) -> Result<(super::TraceResult, Option<super::Placed>, EnergyOutcome), TraceError> {
    let curves = options
        .value_seed
        .map(|seed| super::replay::drawn_curves(jobs, seed));
    let (r, placed, run) =
        super::replay::replay_inner(jobs, procs, options, curves, placed, Some(energy))?;
    let run = run.unwrap_or_default();
    let outcome = EnergyOutcome::of(
        energy,
        &r.jobs,
        &run.pstates,
        &run.clusters,
        procs,
        run.unfinished_ids,
        run.day_end,
    );
    Ok((r, placed, outcome))
}

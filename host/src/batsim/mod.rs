//! Batsim's files, so that kairos's runs feed the tools of the field unchanged: the jobs
//! file and the one-row schedule file Batsim writes (read by evalys), and Batsim's workload
//! JSON, read as a replay input and written as an export.
//!
//! # Files, one idea each
//! - `jobs.rs`: [`BatsimJob`], one row of the jobs file (Batsim's 17 columns, in the order
//!   Batsim's code writes them), [`write_jobs`], and the rows of a replay ([`replay_rows`]).
//! - `schedule.rs`: [`ScheduleRow`], the one-row schedule file's metrics, from the rows.
//! - `workload.rs`: Batsim workload JSON in ([`read_workload`]: `nb_res`, `jobs`, `delay`
//!   profiles) and out ([`write_workload`]).
//! - `essc.rs`: the rows of a `kairos run` of an ESSC scenario ([`run_trial_jobs`]): node
//!   ids global across clusters, and the cluster, P-state, utility and fate in `metadata`.
//! - `machines.rs`: what a replay on a platform file adds ([`write_platform_outputs`]): the
//!   schedule file's platform energy and machine-state times, `PREFIX_machine_states.csv`
//!   and `PREFIX_pstate_changes.csv`.
//! - `input.rs`: what kind of file a path holds ([`sniff`]), chosen by content.
//! - `order.rs`: a workload's repeated ids and submit times out of order ([`WorkloadOrder`]),
//!   counted as an SWF log's are.
//!
//! Times are seconds with six decimals (kairos counts integer microseconds); energy is
//! joules, `-1` where no power is modelled, as in Batsim.

mod essc;
mod input;
mod jobs;
mod machines;
mod order;
mod schedule;
mod workload;

#[cfg(test)]
mod tests;

pub use essc::{run_trial_jobs, EsscJobs};
pub use input::{check_kind, is_experiment, sniff, toml_table, FileKind, InputKind};
pub use jobs::{interval_set, replay_rows, write_jobs, BatsimJob, FinalState, JOBS_COLUMNS};
pub use machines::{
    check_platform_outputs, machine_states, platform_paths, pstate_changes, write_platform_outputs,
};
pub use order::{WorkloadOrder, WorkloadPlace};
pub use schedule::{write_schedule, MachineTimes, ScheduleRow, MACHINE_COLUMNS, SCHEDULE_COLUMNS};
pub use workload::{
    delay_profile, parse_workload, read_workload, write_workload, Workload, WorkloadJob,
};

use std::path::{Path, PathBuf};

/// The two files Batsim writes under its export prefix: `PREFIX_jobs.csv` and
/// `PREFIX_schedule.csv`.
pub fn output_paths(prefix: &Path) -> (PathBuf, PathBuf) {
    let p = prefix.as_os_str().to_string_lossy();
    (
        PathBuf::from(format!("{p}_jobs.csv")),
        PathBuf::from(format!("{p}_schedule.csv")),
    )
}

/// Adds to `outputs`, before any work, the two files `--batsim-out PREFIX` will write:
/// neither an input, nor another output, nor an existing file unless `--force`
/// (`crate::output::Outputs`); the folder the prefix names is made now.
pub fn check_outputs(prefix: &Path, outputs: &mut crate::output::Outputs) -> anyhow::Result<()> {
    let (jobs, schedule) = output_paths(prefix);
    for p in [&jobs, &schedule] {
        outputs.file("--batsim-out", p)?;
    }
    Ok(())
}

/// Writes the jobs file and the schedule file of `rows` under `prefix` (creating its
/// directory); `scheduling_time_s` is the wall-clock time the run took.
pub fn write_outputs(
    prefix: &Path,
    rows: &[BatsimJob],
    machines: u32,
    scheduling_time_s: f64,
) -> anyhow::Result<(PathBuf, PathBuf)> {
    write_outputs_with(prefix, rows, machines, scheduling_time_s, None)
}

/// As [`write_outputs`]; a platform file's replay gives `platform`: Batsim's platform energy
/// (`consumed_joules`) and the machine-state times for the schedule file.
pub fn write_outputs_with(
    prefix: &Path,
    rows: &[BatsimJob],
    machines: u32,
    scheduling_time_s: f64,
    platform: Option<(f64, MachineTimes)>,
) -> anyhow::Result<(PathBuf, PathBuf)> {
    use anyhow::Context;
    let (jobs, schedule) = output_paths(prefix);
    if let Some(dir) = jobs.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
    }
    let mut out = Vec::new();
    write_jobs(&mut out, rows)?;
    crate::output::write_atomic(&jobs, out)?;
    let mut row = ScheduleRow::of(rows, machines, scheduling_time_s);
    if let Some((joules, times)) = platform {
        row.consumed_joules = joules;
        row.machine_times = Some(times);
    }
    if row.zero_time_jobs > 0 {
        crate::diag!(
            "warning: {}: {} job{} ran for no time and {} left out of mean_slowdown and \
             max_slowdown (a stretch over a zero execution time is infinite; `--clean strong` \
             drops such jobs)",
            schedule.display(),
            row.zero_time_jobs,
            if row.zero_time_jobs == 1 { "" } else { "s" },
            if row.zero_time_jobs == 1 { "is" } else { "are" },
        );
    }
    let mut out = Vec::new();
    write_schedule(&mut out, &row)?;
    crate::output::write_atomic(&schedule, out)?;
    Ok((jobs, schedule))
}

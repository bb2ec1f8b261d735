//! Workloads out (`kairos export`): a scenario's generated trial, an SWF log or a Batsim
//! workload written as SWF or as a Batsim workload, so that the same jobs run in another
//! simulator. The input is told apart by content ([`crate::batsim::sniff`]).
//!
//! An ESSC task is heterogeneous (a node count and a time per cluster and P-state); a
//! homogeneous simulator's job has one size and one run time. The export takes each task on
//! its fastest cluster at P-state 0 (ties to the lower cluster), the choice the offered load
//! ([`crate::generate::Trial::offered_load`]) makes: that cluster's node count as the job's
//! size, its time there as the run time and the request, on a machine of every node of the
//! platform. SWF counts whole seconds: submit times are rounded down and run times up, so a
//! job is never shorter than the task.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context};
use kairos_core::platform::PState;

use crate::batsim::{delay_profile, read_workload, sniff, InputKind, WorkloadJob};
use crate::scenario::Scenario;
use crate::trace::LoadOptions;

/// Jobs ready to write, with the machine they were sized for.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportJobs {
    /// What they came from, for the files' header.
    pub source: String,
    /// Machine size (processors, or nodes for ESSC).
    pub machine: u32,
    /// The jobs, by submit time.
    pub jobs: Vec<WorkloadJob>,
}

/// The jobs of trial `trial` of `scenario`, projected on a homogeneous machine (module doc).
pub fn trial_jobs(scenario: &Scenario, trial: u32) -> anyhow::Result<ExportJobs> {
    let t = crate::generate::generate(scenario, trial)
        .with_context(|| format!("generating trial {trial} of {}", scenario.name))?;
    let mut jobs = Vec::with_capacity(t.tasks.len());
    for (n, task) in t.tasks.iter().enumerate() {
        let table = task
            .table(&t.platform)
            .map_err(|e| anyhow::anyhow!("task {n}: {e}"))?;
        let Some(best) = table.placements.iter().flatten().min_by_key(|p| p.etc[0]) else {
            bail!("task {n}: no cluster can run it");
        };
        let run = task.run_time(best.etc[PState(0).0 as usize]);
        jobs.push(WorkloadJob {
            id: (n + 1).to_string(),
            subtime: task.arrival.0,
            walltime: Some(run.0),
            res: best.nodes.0,
            profile: delay_profile(run.0),
            delay: run.0,
        });
    }
    let machine = u32::try_from(t.platform.total_nodes()).context("platform too large")?;
    Ok(ExportJobs {
        source: format!(
            "scenario {} trial {trial}, each task on its fastest cluster at P-state 0",
            scenario.name
        ),
        machine,
        jobs,
    })
}

/// The jobs of the file at `path`, by its content: a scenario (trial `trial`), an SWF log
/// (read as `kairos replay` reads it, with `options`) or a Batsim workload.
pub fn read_jobs(path: &Path, trial: u32, options: &LoadOptions) -> anyhow::Result<ExportJobs> {
    match sniff(path)? {
        InputKind::Toml => {
            let scenario = Scenario::load(path)?;
            trial_jobs(&scenario, trial)
        }
        InputKind::Json => {
            let w = read_workload(path)?;
            Ok(ExportJobs {
                source: format!("Batsim workload {}", w.file),
                machine: w.nb_res,
                jobs: w.jobs,
            })
        }
        InputKind::Swf => {
            let loaded = crate::trace::load(path, options)?;
            Ok(ExportJobs {
                source: format!("SWF log {}", loaded.file),
                machine: loaded.procs,
                jobs: loaded
                    .jobs
                    .iter()
                    .map(|j| WorkloadJob {
                        id: j.id.to_string(),
                        subtime: j.submit,
                        walltime: Some(j.request),
                        res: j.procs,
                        profile: delay_profile(j.runtime),
                        delay: j.runtime,
                    })
                    .collect(),
            })
        }
    }
}

/// Whole seconds, rounded down.
fn floor_s(us: u64) -> u64 {
    us / 1_000_000
}

/// Whole seconds, rounded up.
fn ceil_s(us: u64) -> u64 {
    us.div_ceil(1_000_000)
}

/// Writes `jobs` as an SWF log: the header (`MaxProcs`, `MaxNodes`, the source in a
/// `Note`), then one line per job (submit, run time, processors allocated and requested,
/// requested time, status 1, the rest -1). Jobs whose id is not a number are numbered by
/// position.
pub fn write_swf(out: &mut dyn Write, jobs: &ExportJobs) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "; Version: 2.2")?;
    writeln!(w, "; Computer: kairos export")?;
    writeln!(w, "; MaxJobs: {}", jobs.jobs.len())?;
    writeln!(w, "; MaxRecords: {}", jobs.jobs.len())?;
    writeln!(w, "; MaxProcs: {}", jobs.machine)?;
    writeln!(w, "; MaxNodes: {}", jobs.machine)?;
    writeln!(
        w,
        "; Note: {}; times in whole seconds (submit rounded down, run time up)",
        jobs.source
    )?;
    for (i, j) in jobs.jobs.iter().enumerate() {
        let id = j.id.parse::<u64>().unwrap_or(i as u64 + 1);
        let run = ceil_s(j.delay);
        let req = j.walltime.map_or(-1, |r| ceil_s(r).max(1) as i64);
        writeln!(
            w,
            "{id} {} -1 {run} {p} -1 -1 {p} {req} -1 1 -1 -1 -1 -1 -1 -1 -1",
            floor_s(j.subtime),
            p = j.res
        )?;
    }
    w.flush()
}

/// The output formats of `kairos export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Standard Workload Format.
    Swf,
    /// Batsim workload JSON (`delay` profiles).
    Batsim,
}

/// Writes `jobs` in `format`.
pub fn write(out: &mut dyn Write, jobs: &ExportJobs, format: Format) -> anyhow::Result<()> {
    match format {
        Format::Swf => write_swf(out, jobs)?,
        Format::Batsim => crate::batsim::write_workload(
            out,
            jobs.machine,
            &jobs.jobs,
            &format!("kairos export: {}", jobs.source),
        )?,
    }
    Ok(())
}

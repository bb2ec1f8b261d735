//! From an SWF file to the core's inputs: the file read, sized and optionally cleaned
//! ([`load`]), the machine ([`machine`]) and each job as a task ([`job_task`],
//! [`job_task_valued`], with seed 001's value functions from [`job_values`]).

use std::path::Path;

use anyhow::Context;
use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskType};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::{Micros, MilliWatts, NodeCount};
use kairos_core::utility::UtilityCurve;

use super::TraceError;
use crate::swf::{self, CleanOptions, CleanReport, OrderReport, ReadOptions, ReplayJob};

/// How to turn an SWF file into replay jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Machine size; `None` takes the header's `MaxProcs` (else `MaxNodes`).
    pub procs: Option<u32>,
    /// Apply [`CleanOptions::strong`] for the machine size.
    pub clean_strong: bool,
    /// Skip and count bad lines instead of failing on the first one.
    pub skip_bad_lines: bool,
    /// Refuse a log with a repeated job number or a submit time out of order (else each
    /// is counted in [`LoadedTrace::order`]; the rule is `swf`'s `order.rs`).
    pub strict: bool,
}

/// An SWF file ready to replay.
#[derive(Clone, Debug)]
pub struct LoadedTrace {
    /// The file, as given.
    pub file: String,
    /// Machine size, processors.
    pub procs: u32,
    /// The jobs, sorted by submit time (ties in file order).
    pub jobs: Vec<ReplayJob>,
    /// Bad lines skipped.
    pub skipped_bad_lines: usize,
    /// What cleaning did, when it ran.
    pub clean: Option<CleanReport>,
    /// Repeated job numbers and submit times out of order in the file's job lines.
    pub order: OrderReport,
}

/// Reads, sizes, optionally cleans and converts the SWF file at `path`. Errors name the
/// file and line; a job larger than the machine is an error unless cleaning drops it.
pub fn load(path: &Path, options: &LoadOptions) -> anyhow::Result<LoadedTrace> {
    let read = ReadOptions {
        skip_bad_lines: options.skip_bad_lines,
    };
    // The jobs as the replay takes them, read and cleaned line by line: neither the text
    // nor a full record of every line is held (`swf`'s `for_replay.rs`).
    let clean = options
        .clean_strong
        .then(|| CleanOptions::strong(0))
        .map(|o| CleanOptions {
            drop_larger_than_machine: None,
            ..o
        });
    let log = swf::read_for_replay(path, &read, clean)?;
    if options.strict {
        log.order.strict(&log.file)?;
    }
    let procs = log.machine_procs(options.procs)?;
    let file = log.file.clone();
    let skipped = log.skipped;
    let order = log.order;
    let (jobs, clean) = log.jobs(Some(procs));
    let jobs = jobs.with_context(|| {
        format!(
            "{file}: cannot replay{}",
            if options.clean_strong {
                ""
            } else {
                " (pass --clean strong to drop or fix such jobs)"
            }
        )
    })?;
    fit_machine(&jobs, procs).with_context(|| format!("{file}: cannot replay"))?;
    if jobs.is_empty() {
        anyhow::bail!("{file}: no jobs left to replay after cleaning");
    }
    Ok(LoadedTrace {
        file,
        procs,
        jobs,
        skipped_bad_lines: skipped,
        clean,
        order,
    })
}

/// Whether every job fits a machine of `procs` processors ([`TraceError::JobTooLarge`] names
/// the first that does not).
pub(super) fn fit_machine(jobs: &[ReplayJob], procs: u32) -> Result<(), TraceError> {
    match jobs.iter().find(|j| j.procs > procs) {
        Some(j) => Err(TraceError::JobTooLarge {
            line: j.line,
            id: j.id,
            procs: j.procs,
            machine: procs,
        }),
        None => Ok(()),
    }
}

/// The machine: one cluster of `procs` one-core nodes with one 0 W P-state.
pub fn machine(procs: u32) -> Result<Platform, TraceError> {
    if procs == 0 {
        return Err(TraceError::NoProcessors);
    }
    let cluster = Cluster {
        nodes: NodeCount(procs),
        cores_per_node: 1,
        kind: ClusterKind::General,
    };
    Ok(Platform::new(&[cluster], 1)?)
}

/// The task of `job`: `procs` nodes planned for the request, ending at the run time, worth
/// a constant 1.
pub fn job_task(job: &ReplayJob) -> Task {
    job_task_valued(
        job,
        UtilityCurve::Linear {
            start: 1.0,
            soft: Micros::MAX,
            hard: Micros::MAX,
            final_value: 1.0,
        },
    )
}

/// The task of `job` worth `curve`.
pub fn job_task_valued(job: &ReplayJob, curve: UtilityCurve) -> Task {
    let mut placement = Placement {
        nodes: NodeCount(job.procs),
        etc: [Micros::ZERO; kairos_core::limits::MAX_PSTATES],
        apc: [MilliWatts(0); kairos_core::limits::MAX_PSTATES],
    };
    placement.etc[0] = Micros(job.request);
    Task {
        id: TaskId(0),
        arrival: Micros(job.submit),
        demand: Demand::Own(TaskType {
            placements: core::iter::once(Some(placement)).collect(),
        }),
        curve,
        actual: Some(Micros(job.runtime)),
    }
}

/// The seed 001 value function of each job (in the order given), drawn from `seed`: the
/// average execution time is the job's run time (capped at its request, as it runs), and
/// the longest such time of `jobs` is the generator's upper reference.
pub fn job_values(jobs: &[ReplayJob], seed: u64) -> Vec<UtilityCurve> {
    let max = Micros(jobs.iter().map(run_time).max().unwrap_or(0));
    let params = crate::seed001::ValueParams::default();
    let mut s = crate::generate::rng::Stream::new(seed, 0, "seed001-value", 0);
    jobs.iter()
        .map(|j| crate::seed001::value_curve(&mut s, Micros(run_time(j)), max, &params))
        .collect()
}

/// How long a job runs once started: its run time, or its request if that is shorter.
pub(super) fn run_time(job: &ReplayJob) -> u64 {
    job.runtime.min(job.request)
}

//! What a replay's records say, and the files `kairos replay` writes: per-job wait, run and
//! bounded slowdown ([`JobRecord`]), the summary metrics ([`summarize`]), the peak of
//! processors in use ([`peak_procs`]), the per-job CSV ([`write_jobs_csv`]) and the JSON
//! summary ([`SummaryFile`]). Records come in from `replay.rs`; nothing here schedules.

use std::io::Write;

use serde::Serialize;

use super::{LoadedTrace, Policy, TraceResult, ValueOutcome};
use crate::swf::CleanReport;

/// The bounded slowdown's lower bound on the run time, in microseconds (10 s).
pub const BSLD_BOUND_US: u64 = 10_000_000;

/// One replayed job: when it was submitted, started and ended, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobRecord {
    /// SWF job number.
    pub id: u64,
    /// 1-based line in the SWF file.
    pub line: usize,
    /// Submit time.
    pub submit: u64,
    /// Start time.
    pub start: u64,
    /// End time: the start plus the run time (capped at the request).
    pub end: u64,
    /// Processors.
    pub procs: u32,
    /// Requested time.
    pub request: u64,
}

impl JobRecord {
    /// Time waited in the queue.
    pub fn wait(&self) -> u64 {
        self.start - self.submit
    }
    /// Time run.
    pub fn run(&self) -> u64 {
        self.end - self.start
    }
    /// Bounded slowdown: `max(1, (wait + run) / max(run, 10 s))`.
    pub fn bounded_slowdown(&self) -> f64 {
        let run = self.run();
        let x = (self.wait() + run) as f64 / run.max(BSLD_BOUND_US) as f64;
        x.max(1.0)
    }
}

/// The summary metrics of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Jobs replayed.
    pub jobs: usize,
    /// Mean wait, seconds.
    pub mean_wait_s: f64,
    /// Largest wait, seconds.
    pub max_wait_s: f64,
    /// Mean bounded slowdown (10 s bound).
    pub mean_bsld: f64,
    /// Processor-time used over processor-time available from the first submit to the last
    /// end: `sum(procs x run) / (machine procs x makespan)`.
    pub utilization: f64,
    /// Last end minus first submit, seconds.
    pub makespan_s: f64,
    /// Wall-clock time of the replay (building the tasks and scheduling), seconds.
    pub wall_time_s: f64,
    /// Jobs replayed per second of wall-clock time.
    pub jobs_per_second: f64,
}

/// The metrics of `jobs` on a machine of `procs` processors; `wall_time_s` is the replay's.
pub fn summarize(jobs: &[JobRecord], procs: u32, wall_time_s: f64) -> Summary {
    let n = jobs.len();
    let first_submit = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last_end = jobs.iter().map(|j| j.end).max().unwrap_or(0);
    let makespan = last_end.saturating_sub(first_submit);
    let total_wait: u128 = jobs.iter().map(|j| j.wait() as u128).sum();
    let max_wait = jobs.iter().map(JobRecord::wait).max().unwrap_or(0);
    let bsld: f64 = jobs.iter().map(JobRecord::bounded_slowdown).sum();
    let area: u128 = jobs.iter().map(|j| j.procs as u128 * j.run() as u128).sum();
    let mean = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
    Summary {
        jobs: n,
        mean_wait_s: mean(total_wait as f64 / 1e6),
        max_wait_s: max_wait as f64 / 1e6,
        mean_bsld: mean(bsld),
        utilization: if makespan == 0 {
            0.0
        } else {
            area as f64 / (procs as f64 * makespan as f64)
        },
        makespan_s: makespan as f64 / 1e6,
        wall_time_s,
        jobs_per_second: if wall_time_s > 0.0 {
            n as f64 / wall_time_s
        } else {
            0.0
        },
    }
}

/// Microseconds as seconds with six decimals (`12500000` is `12.500000`).
pub fn secs(us: u64) -> String {
    format!("{}.{:06}", us / 1_000_000, us % 1_000_000)
}

/// The per-job CSV's header line (without its line end).
pub const JOBS_CSV_HEADER: &str = "job_id,submit,start,end,procs";

/// Writes one job's line of the per-job CSV: times in seconds to the microsecond.
pub fn write_job_line(w: &mut dyn std::io::Write, j: &JobRecord) -> std::io::Result<()> {
    writeln!(
        w,
        "{},{},{},{},{}",
        j.id,
        secs(j.submit),
        secs(j.start),
        secs(j.end),
        j.procs
    )
}

/// Writes the per-job CSV: `job_id,submit,start,end,procs`, times in seconds to the
/// microsecond, one line per job in the order given.
pub fn write_jobs_csv(out: &mut dyn std::io::Write, jobs: &[JobRecord]) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "{JOBS_CSV_HEADER}")?;
    for j in jobs {
        write_job_line(&mut w, j)?;
    }
    w.flush()
}

/// The largest number of processors in use at once: a sweep over the start and end events
/// (ends before starts at the same instant, since nodes freed at `t` are usable at `t`).
pub fn peak_procs(jobs: &[JobRecord]) -> u64 {
    let mut events: Vec<(u64, i64)> = Vec::with_capacity(2 * jobs.len());
    for j in jobs.iter().filter(|j| j.end > j.start) {
        events.push((j.start, j.procs as i64));
        events.push((j.end, -(j.procs as i64)));
    }
    // At equal times, the negative (end) events sort first.
    events.sort_unstable();
    let (mut used, mut peak) = (0i64, 0i64);
    for (_, delta) in events {
        used += delta;
        peak = peak.max(used);
    }
    peak as u64
}

/// The cleaning report's counts, for the summary file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CleanCounts {
    /// Jobs read.
    pub input: usize,
    /// Jobs kept.
    pub kept: usize,
    /// Jobs dropped, all steps.
    pub dropped: usize,
    /// Dropped: submit time unknown.
    pub dropped_unknown_submit: usize,
    /// Dropped: run time unknown or 0.
    pub dropped_nonpositive_runtime: usize,
    /// Dropped: no processor count.
    pub dropped_no_procs: usize,
    /// Dropped: requested time unknown or 0.
    pub dropped_missing_request: usize,
    /// Dropped: more processors than the machine.
    pub dropped_larger_than_machine: usize,
    /// Allocated processors filled from requested ones.
    pub filled_allocated_procs: usize,
    /// Requested processors filled from allocated ones.
    pub filled_requested_procs: usize,
    /// Run times lowered to the request.
    pub clamped_runtime: usize,
}

impl From<&CleanReport> for CleanCounts {
    fn from(r: &CleanReport) -> Self {
        CleanCounts {
            input: r.input,
            kept: r.kept,
            dropped: r.dropped(),
            dropped_unknown_submit: r.dropped_unknown_submit,
            dropped_nonpositive_runtime: r.dropped_nonpositive_runtime,
            dropped_no_procs: r.dropped_no_procs,
            dropped_missing_request: r.dropped_missing_request,
            dropped_larger_than_machine: r.dropped_larger_than_machine,
            filled_allocated_procs: r.filled_allocated_procs,
            filled_requested_procs: r.filled_requested_procs,
            clamped_runtime: r.clamped_runtime,
        }
    }
}

/// The summary file of `kairos replay`: the run, its metrics, its costs and what was read.
#[derive(Clone, Debug, Serialize)]
pub struct SummaryFile {
    /// The SWF file.
    pub file: String,
    /// The policy.
    pub policy: Policy,
    /// The allocation that placed the jobs: `nodes` or `pool`.
    pub allocation: super::Allocation,
    /// Machine size, processors.
    pub procs: u32,
    /// The metrics.
    #[serde(flatten)]
    pub summary: Summary,
    /// Scheduling passes.
    pub passes: u64,
    /// Bad lines skipped (`--skip-bad-lines`).
    pub skipped_bad_lines: usize,
    /// The cleaning report, with `--clean`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clean: Option<CleanCounts>,
    /// The knapsack policy's exponents, under `--policy knapsack`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knapsack: Option<KnapsackSummary>,
    /// Value earned and the bound, when jobs carried value functions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueOutcome>,
}

/// The exponents of Eq. 1 a knapsack replay ran with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KnapsackSummary {
    /// Size exponent.
    pub alpha: f64,
    /// Wait exponent.
    pub beta: f64,
    /// Runtime exponent.
    pub gamma: f64,
}

impl SummaryFile {
    /// The summary of replaying `trace` into `result`.
    pub fn new(trace: &LoadedTrace, result: &TraceResult) -> SummaryFile {
        SummaryFile {
            file: trace.file.clone(),
            policy: result.policy,
            allocation: super::Allocation::Nodes,
            procs: result.procs,
            summary: result.summary,
            passes: result.counts.passes,
            skipped_bad_lines: trace.skipped_bad_lines,
            clean: trace.clean.as_ref().map(CleanCounts::from),
            knapsack: None,
            value: result.value.clone(),
        }
    }
}

//! Cleaning SWF jobs for replay, and converting them to [`ReplayJob`]s.
//!
//! Each step of [`CleanOptions`] is optional. They run per job in this order, and a job
//! dropped by one step is counted under that step only, so
//! `report.input == report.kept + report.dropped()` always holds:
//! 1. `drop_unknown_submit`: drop jobs whose submit time is unknown.
//! 2. `drop_nonpositive_runtime`: drop jobs whose run time is unknown or 0.
//! 3. `fill_procs`: a processor count that is unknown or 0 takes the other field's value
//!    (allocated from requested, requested from allocated); jobs with neither are dropped.
//! 4. `missing_request`: what to do with a requested time that is unknown or 0.
//! 5. `clamp_runtime_to_request`: a run time above the requested time becomes the requested
//!    time (the job would have been killed at its limit).
//! 6. `drop_larger_than_machine`: drop jobs needing more processors than the machine has
//!    (allocated processors, or requested ones when allocated is unknown).

use std::fmt;

use super::{Field, SwfJob};

/// What [`clean`] does with a job whose requested time is unknown or 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingRequest {
    /// Drop the job.
    Drop,
    /// Use the run time as the request (a perfect estimate); drop the job if the run time
    /// is unknown or 0 too.
    UseRuntime,
    /// Keep the job as it is ([`replay_jobs`] will then refuse it).
    #[default]
    Keep,
}

/// Which cleaning steps [`clean`] applies (the default applies none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CleanOptions {
    /// Drop jobs whose submit time is unknown.
    pub drop_unknown_submit: bool,
    /// Drop jobs whose run time is unknown or 0.
    pub drop_nonpositive_runtime: bool,
    /// Fill an unknown or 0 processor count from the other field (allocated <-> requested);
    /// drop jobs with neither.
    pub fill_procs: bool,
    /// What to do when the requested time is unknown or 0.
    pub missing_request: MissingRequest,
    /// Lower a run time above the requested time to the requested time.
    pub clamp_runtime_to_request: bool,
    /// Drop jobs needing more processors than this machine size.
    pub drop_larger_than_machine: Option<u32>,
}

impl CleanOptions {
    /// No cleaning at all (same as `Default`).
    pub fn none() -> Self {
        Self::default()
    }

    /// Every step on, as backfilling studies commonly clean a log for replay: drop unknown
    /// submit times, non-positive run times, jobs without processors or without a request,
    /// and jobs larger than `machine_procs`; fill processors; clamp run time to the request.
    pub fn strong(machine_procs: u32) -> Self {
        CleanOptions {
            drop_unknown_submit: true,
            drop_nonpositive_runtime: true,
            fill_procs: true,
            missing_request: MissingRequest::Drop,
            clamp_runtime_to_request: true,
            drop_larger_than_machine: Some(machine_procs),
        }
    }
}

/// What [`clean`] did, step by step: every dropped or changed job is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CleanReport {
    /// Jobs given.
    pub input: usize,
    /// Jobs returned.
    pub kept: usize,
    /// Step 1: dropped, submit time unknown.
    pub dropped_unknown_submit: usize,
    /// Step 2: dropped, run time unknown or 0.
    pub dropped_nonpositive_runtime: usize,
    /// Step 3: allocated processors filled from requested processors.
    pub filled_allocated_procs: usize,
    /// Step 3: requested processors filled from allocated processors.
    pub filled_requested_procs: usize,
    /// Step 3: dropped, neither processor count known.
    pub dropped_no_procs: usize,
    /// Step 4: dropped, requested time unknown or 0 (and, with `UseRuntime`, run time too).
    pub dropped_missing_request: usize,
    /// Step 4: requested time set to the run time (`UseRuntime`).
    pub request_from_runtime: usize,
    /// Step 4: kept with an unknown or 0 requested time (`Keep`).
    pub kept_missing_request: usize,
    /// Step 5: run time lowered to the requested time.
    pub clamped_runtime: usize,
    /// Step 6: dropped, more processors than the machine.
    pub dropped_larger_than_machine: usize,
}

impl CleanReport {
    /// All jobs dropped, by any step.
    pub fn dropped(&self) -> usize {
        self.dropped_unknown_submit
            + self.dropped_nonpositive_runtime
            + self.dropped_no_procs
            + self.dropped_missing_request
            + self.dropped_larger_than_machine
    }
}

impl fmt::Display for CleanReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} jobs in, {} kept, {} dropped (unknown submit {}, run time <= 0 {}, \
             no processors {}, no request {}, larger than machine {}); \
             filled allocated {}, filled requested {}, request from run time {}, \
             kept without request {}, run time clamped {}",
            self.input,
            self.kept,
            self.dropped(),
            self.dropped_unknown_submit,
            self.dropped_nonpositive_runtime,
            self.dropped_no_procs,
            self.dropped_missing_request,
            self.dropped_larger_than_machine,
            self.filled_allocated_procs,
            self.filled_requested_procs,
            self.request_from_runtime,
            self.kept_missing_request,
            self.clamped_runtime,
        )
    }
}

/// Applies the steps of `options` (in the order of the module doc), keeping file order.
pub fn clean(mut jobs: Vec<SwfJob>, options: &CleanOptions) -> (Vec<SwfJob>, CleanReport) {
    let mut r = CleanReport {
        input: jobs.len(),
        ..CleanReport::default()
    };
    jobs.retain_mut(|job| clean_one(job, options, &mut r));
    r.kept = jobs.len();
    (jobs, r)
}

/// Cleans one job in place; false when a step drops it (counted in `r`).
pub(super) fn clean_one(job: &mut SwfJob, o: &CleanOptions, r: &mut CleanReport) -> bool {
    let positive = |v: Option<u64>| v.filter(|&v| v > 0);
    if o.drop_unknown_submit && job.submit_us.is_none() {
        r.dropped_unknown_submit += 1;
        return false;
    }
    if o.drop_nonpositive_runtime && positive(job.run_us).is_none() {
        r.dropped_nonpositive_runtime += 1;
        return false;
    }
    if o.fill_procs {
        let allocated = job.allocated_procs.filter(|&p| p > 0);
        let requested = job.requested_procs.filter(|&p| p > 0);
        match (allocated, requested) {
            (None, None) => {
                r.dropped_no_procs += 1;
                return false;
            }
            (None, Some(p)) => {
                job.allocated_procs = Some(p);
                r.filled_allocated_procs += 1;
            }
            (Some(p), None) => {
                job.requested_procs = Some(p);
                r.filled_requested_procs += 1;
            }
            (Some(_), Some(_)) => {}
        }
    }
    if positive(job.requested_us).is_none() {
        match o.missing_request {
            MissingRequest::Drop => {
                r.dropped_missing_request += 1;
                return false;
            }
            MissingRequest::UseRuntime => match positive(job.run_us) {
                Some(run) => {
                    job.requested_us = Some(run);
                    r.request_from_runtime += 1;
                }
                None => {
                    r.dropped_missing_request += 1;
                    return false;
                }
            },
            MissingRequest::Keep => r.kept_missing_request += 1,
        }
    }
    if o.clamp_runtime_to_request {
        if let (Some(run), Some(request)) = (job.run_us, positive(job.requested_us)) {
            if run > request {
                job.run_us = Some(request);
                r.clamped_runtime += 1;
            }
        }
    }
    if let Some(machine) = o.drop_larger_than_machine {
        if job
            .allocated_procs
            .filter(|&p| p > 0)
            .or(job.requested_procs)
            .is_some_and(|p| p > machine)
        {
            r.dropped_larger_than_machine += 1;
            return false;
        }
    }
    true
}

/// A job as the scheduler replays it: times in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReplayJob {
    /// SWF job number (field 1).
    pub id: u64,
    /// Submit time (field 2).
    pub submit: u64,
    /// Actual run time (field 4): the job completes this long after it starts.
    pub runtime: u64,
    /// Requested time (field 9): the estimate the scheduler plans with.
    pub request: u64,
    /// Processors (field 5, allocated).
    pub procs: u32,
    /// 1-based line number in the SWF file.
    pub line: usize,
}

/// A job that cannot be replayed because a field it needs is missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line} (job {id}): {field} is {}; clean the log first (swf::CleanOptions)", missing(*.field))]
pub struct ReplayError {
    /// 1-based line number in the SWF file.
    pub line: usize,
    /// SWF job number.
    pub id: u64,
    /// The missing field.
    pub field: Field,
}

/// How a needed field is missing: unknown, or for counts and requests also 0.
fn missing(field: Field) -> &'static str {
    match field {
        Field::SubmitTime | Field::RunTime => "unknown",
        _ => "unknown or 0",
    }
}

impl TryFrom<&SwfJob> for ReplayJob {
    type Error = ReplayError;

    /// Needs a known submit and run time, and a positive request and allocated processor
    /// count.
    fn try_from(job: &SwfJob) -> Result<Self, ReplayError> {
        let need = |field: Field| ReplayError {
            line: job.line,
            id: job.id,
            field,
        };
        Ok(ReplayJob {
            id: job.id,
            submit: job.submit_us.ok_or_else(|| need(Field::SubmitTime))?,
            runtime: job.run_us.ok_or_else(|| need(Field::RunTime))?,
            request: job
                .requested_us
                .filter(|&r| r > 0)
                .ok_or_else(|| need(Field::RequestedTime))?,
            procs: job
                .allocated_procs
                .filter(|&p| p > 0)
                .ok_or_else(|| need(Field::AllocatedProcessors))?,
            line: job.line,
        })
    }
}

/// Converts cleaned jobs for replay, sorted by submit time (ties in file order); fails on
/// the first job that lacks a needed field (see [`clean`]).
pub fn replay_jobs(jobs: &[SwfJob]) -> Result<Vec<ReplayJob>, ReplayError> {
    let mut out = jobs
        .iter()
        .map(ReplayJob::try_from)
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_unstable_by_key(|j| (j.submit, j.line));
    Ok(out)
}

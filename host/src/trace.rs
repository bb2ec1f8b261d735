//! Trace replay: SWF jobs on a homogeneous machine under strict FCFS, EASY or Conservative
//! backfilling, or a utility-aware heuristic over seed 001's value functions, with per-job
//! start times and the usual summary metrics.
//!
//! The model (see `docs/traces.md`):
//! - the machine is one cluster of `procs` nodes with one core each and one P-state whose
//!   power is 0 W (energy plays no part in these policies, and 0 W keeps the ledger at 0);
//! - each job is a [`Task`] with its own placement table ([`Demand::Own`]): `procs` nodes,
//!   planned with its requested time (the estimate, ETC) and ending at its run time
//!   (`actual`); a run time above the request ends at the request (the job is killed at its
//!   limit, as [`crate::swf::CleanOptions::clamp_runtime_to_request`] makes explicit);
//! - its utility curve is a constant 1 (these policies ignore utility), or, with value
//!   functions ([`ReplayOptions::value_seed`]; always under the utility-aware policies), a
//!   seed 001 value function drawn for its run time ([`crate::seed001::value_curve`]);
//! - under the utility-aware policies, a job that could earn only zero value even started now
//!   is dropped (seed 001 §3.1): it never runs and is reported apart;
//! - the day is `[0, Micros::MAX)`: there is no horizon, every job must start and finish.
//!
//! The events are driven here rather than by `kairos_core::replay::run`, because that engine
//! runs a mapping event only after a completion that ends a task *early*. A job that runs
//! exactly its requested time frees its nodes at its planned end; EASY's reservation starts
//! then, but any other queued job that could start at that instant would wait for the next
//! arrival, and strict FCFS, which reserves nothing, would stall altogether. So this driver
//! runs one pass (a mapping event) at every instant where a job completes or arrives, after
//! handling all the completions and then all the arrivals of that instant: nodes freed at
//! `t` are usable at `t`, and jobs submitted together are queued in file order before the
//! pass.
//!
//! Start times come from the decisions: the last `Start` or `Reserve` decision of a task is
//! the one it runs by (EASY retakes its reservation at every pass, Conservative compresses
//! after early completions). The end is the start plus the real run time, and the driver
//! checks that each completion it processes happens exactly then.
//!
//! The core's reservations hold specific nodes from the moment they are made, so EASY and
//! Conservative here can differ from textbook processor-count backfilling (docs/traces.md,
//! "Reservations hold nodes"); strict FCFS cannot.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use kairos_core::controller::{Config, Controller, DecisionKind, TaskState};
use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskType};
use kairos_core::policy::knapsack::KnapsackParams;
use kairos_core::policy::{Heuristic, Reservations};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::{Micros, MilliWatts, NodeCount};
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use serde::Serialize;

use crate::sim::HostStorage;
use crate::swf::{self, CleanOptions, CleanReport, ReadOptions, ReplayJob};

/// The bounded slowdown's lower bound on the run time, in microseconds (10 s).
pub const BSLD_BOUND_US: u64 = 10_000_000;

/// Entries of the controller's fit memo. Trace jobs each carry their own size and request,
/// yet many repeat: on KTH-SP2 under EASY, 183,000 of 585,000 queries hit the memo, with 256
/// entries as with 8,192. The controller walks the whole memo at every assignment, so this
/// is smaller than the host's usual [`crate::sim::MEMO_ENTRIES`].
pub const TRACE_MEMO_ENTRIES: usize = 256;

/// The scheduling policies of `kairos replay`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// Strict first-come first-served: no job overtakes an earlier one.
    Fcfs,
    /// EASY backfilling: one reservation, for the first waiting job.
    Easy,
    /// Conservative backfilling: a reservation for every waiting job.
    Conservative,
    /// Seed 004's dynamic priority with a greedy knapsack (rigid jobs; `--alpha --beta
    /// --gamma`). Not in [`Policy::ALL`].
    Knapsack,
    /// Max Utility over value functions (ties to the lower cluster: one cluster here).
    MaxUtil,
    /// Max Value (seed 001): Max Utility with ties to the earliest completion.
    MaxValue,
    /// Max Utility-per-Time over value functions.
    MaxUpt,
    /// Max Utility-per-Resource (seed 001's Max VPR) over value functions.
    MaxUpr,
    /// Max Utility-per-Energy (energy is 0 W here: it ranks as Max Utility per millijoule).
    MaxUpe,
}

impl Policy {
    /// The three backfilling baselines, in the order reports list them.
    pub const ALL: [Policy; 3] = [Policy::Fcfs, Policy::Easy, Policy::Conservative];

    /// The utility-aware policies, which need value functions.
    pub const VALUE: [Policy; 5] = [
        Policy::MaxUtil,
        Policy::MaxValue,
        Policy::MaxUpt,
        Policy::MaxUpr,
        Policy::MaxUpe,
    ];

    /// The core heuristic that implements it.
    pub fn heuristic(self) -> Heuristic {
        match self {
            Policy::Fcfs => Heuristic::Fcfs,
            Policy::Easy => Heuristic::Easy,
            Policy::Conservative => Heuristic::Conservative,
            Policy::Knapsack => Heuristic::Knapsack,
            Policy::MaxUtil => Heuristic::MaxUtil,
            Policy::MaxValue => Heuristic::MaxValue,
            Policy::MaxUpt => Heuristic::MaxUpt,
            Policy::MaxUpr => Heuristic::MaxUpr,
            Policy::MaxUpe => Heuristic::MaxUpe,
        }
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        self.heuristic().name()
    }

    /// Whether it schedules by value (and so needs value functions, and drops).
    pub fn is_utility_aware(self) -> bool {
        self.heuristic().is_utility_aware()
    }
}

/// How to replay: the policy, its reservations, the value functions and the knapsack's
/// exponents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplayOptions {
    /// The policy.
    pub policy: Policy,
    /// Place-holders or permanent reservations (utility-aware policies only; the others
    /// always reserve permanently).
    pub reservations: Reservations,
    /// Attach seed 001 value functions drawn from this seed (stream "seed001-value" of
    /// trial 0); the utility-aware policies need them.
    pub value_seed: Option<u64>,
    /// The knapsack policy's exponents (seed 004; other policies ignore them).
    pub knapsack: KnapsackParams,
}

impl ReplayOptions {
    /// `policy` with its defaults: place-holders and value seed 1 for the utility-aware
    /// policies, permanent reservations and no value functions otherwise.
    pub fn new(policy: Policy) -> ReplayOptions {
        let ua = policy.is_utility_aware();
        ReplayOptions {
            policy,
            reservations: if ua {
                Reservations::PlaceHolder
            } else {
                Reservations::Permanent
            },
            value_seed: ua.then_some(DEFAULT_VALUE_SEED),
            knapsack: KnapsackParams::default(),
        }
    }
}

/// The value seed of the utility-aware policies when none is given.
pub const DEFAULT_VALUE_SEED: u64 = 1;

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a trace could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The machine has no processor.
    #[error("the machine must have at least 1 processor")]
    NoProcessors,
    /// A job needs more processors than the machine has.
    #[error(
        "line {line} (job {id}): needs {procs} processors but the machine has {machine}; \
         pass --clean strong to drop such jobs"
    )]
    JobTooLarge {
        /// 1-based line in the SWF file.
        line: usize,
        /// SWF job number.
        id: u64,
        /// Processors it needs.
        procs: u32,
        /// Processors of the machine.
        machine: u32,
    },
    /// More jobs than the core's 32-bit task ids can name.
    #[error("{0} jobs: at most {max} can be replayed at once", max = u32::MAX)]
    TooManyJobs(usize),
    /// The core refused an input or ran out of a fixed capacity.
    #[error("scheduler: {0}")]
    Core(kairos_core::error::Error),
    /// A scheduling pass failed (typically a fixed capacity of the core ran out).
    #[error(
        "scheduling pass at {} s failed with {waiting} jobs waiting and {completed} completed: {error}",
        secs(*at)
    )]
    Pass {
        /// The pass's time, microseconds.
        at: u64,
        /// Jobs waiting then (not started, whether reserved or not).
        waiting: usize,
        /// Jobs completed before it.
        completed: u64,
        /// The core's error.
        error: kairos_core::error::Error,
    },
    /// A job did not complete when its start and run time say (a driver or core bug).
    #[error("job {id} completed at {at} us, expected {expected} us")]
    WrongEnd {
        /// SWF job number.
        id: u64,
        /// When it completed.
        at: u64,
        /// Its start plus its run time.
        expected: u64,
    },
    /// A policy and options that do not go together.
    #[error("{0}")]
    BadOptions(String),
    /// Some jobs never completed (a driver or core bug).
    #[error("{missing} of {jobs} jobs never completed (the first is job {first_id})")]
    Incomplete {
        /// Jobs that never completed.
        missing: usize,
        /// Jobs replayed.
        jobs: usize,
        /// The first one, by submit time.
        first_id: u64,
    },
}

impl From<kairos_core::error::Error> for TraceError {
    /// Wraps the core's error (its message is this error's; it has no further source).
    fn from(e: kairos_core::error::Error) -> Self {
        TraceError::Core(e)
    }
}

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

/// Counters of the driver: what the replay cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplayCounts {
    /// Scheduling passes (mapping events).
    pub passes: u64,
    /// Start and reserve decisions (a reservation moved or retaken counts again).
    pub commitments: u64,
    /// Reservation decisions.
    pub reservations: u64,
    /// Completions processed (one per job).
    pub completions: u64,
    /// Completion events skipped because the reservation they belonged to was retaken.
    pub stale_completions: u64,
    /// Jobs dropped (utility-aware policies: they could earn only zero value).
    pub dropped: u64,
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

/// What [`replay_trace`] yields.
#[derive(Clone, Debug)]
pub struct TraceResult {
    /// The policy replayed.
    pub policy: Policy,
    /// Machine size, processors.
    pub procs: u32,
    /// One record per job, in the order of the jobs given.
    pub jobs: Vec<JobRecord>,
    /// The metrics.
    pub summary: Summary,
    /// What the replay cost.
    pub counts: ReplayCounts,
    /// The value functions' outcome, when jobs carried them.
    pub value: Option<ValueOutcome>,
}

/// What the value functions earned in a replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueOutcome {
    /// The seed the value functions were drawn from.
    pub seed: u64,
    /// Place-holders or permanent reservations.
    pub reservations: String,
    /// Value earned by the completed jobs.
    pub earned: f64,
    /// The maximum value bound: the sum of every job's starting value (seed 001 §5).
    pub bound: f64,
    /// 100 x earned / bound.
    pub percent: f64,
    /// Jobs dropped (they could earn only zero value); they are not in the job records.
    pub dropped: usize,
    /// SWF job numbers of the dropped jobs, in submit order.
    #[serde(skip)]
    pub dropped_ids: Vec<u64>,
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

/// Replays `jobs` on a machine of `procs` processors under `policy`: a pass at every instant
/// where jobs complete or arrive (see the module doc). Jobs need not be sorted; they are
/// submitted in (submit, line) order. Every job must start and complete, or it is an error.
pub fn replay_trace(
    jobs: &[ReplayJob],
    procs: u32,
    policy: Policy,
) -> Result<TraceResult, TraceError> {
    replay_trace_with(jobs, procs, &ReplayOptions::new(policy))
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

/// As [`replay_trace`], with value functions and reservations as `options` say. Under a
/// utility-aware policy, jobs that could earn only zero value are dropped and reported in
/// [`TraceResult::value`], not in the job records.
pub fn replay_trace_with(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
) -> Result<TraceResult, TraceError> {
    let curves = options.value_seed.map(|seed| {
        // Drawn in submission order, so that the file's line order does not matter.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&i| (jobs[i].submit, jobs[i].line));
        let sorted: Vec<ReplayJob> = order.iter().map(|&i| jobs[i]).collect();
        let drawn = job_values(&sorted, seed);
        let mut out = drawn.clone();
        for (k, &i) in order.iter().enumerate() {
            out[i] = drawn[k];
        }
        out
    });
    replay_inner(jobs, procs, options, curves)
}

/// As [`replay_trace_with`], with the value function of each job given (in the order of
/// `jobs`) instead of drawn; `options.value_seed` only labels the outcome.
pub fn replay_trace_curves(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
    curves: &[UtilityCurve],
) -> Result<TraceResult, TraceError> {
    if curves.len() != jobs.len() {
        return Err(TraceError::BadOptions(format!(
            "{} value functions for {} jobs",
            curves.len(),
            jobs.len()
        )));
    }
    let options = ReplayOptions {
        value_seed: Some(options.value_seed.unwrap_or(0)),
        ..*options
    };
    replay_inner(jobs, procs, &options, Some(curves.to_vec()))
}

/// The replay itself; `curves`, if any, are in the order of `jobs`.
fn replay_inner(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
    curves: Option<Vec<UtilityCurve>>,
) -> Result<TraceResult, TraceError> {
    let policy = options.policy;
    options.knapsack.validate()?;
    if !policy.is_utility_aware() && options.reservations == Reservations::PlaceHolder {
        return Err(TraceError::BadOptions(format!(
            "{policy} only reserves permanently (place-holders are for max-util, max-value, \
             max-upt, max-upr and max-upe)"
        )));
    }
    if policy.is_utility_aware() && options.value_seed.is_none() {
        return Err(TraceError::BadOptions(format!(
            "{policy} needs value functions: give a value seed"
        )));
    }
    let clock = Instant::now();
    let platform = machine(procs)?;
    if let Some(j) = jobs.iter().find(|j| j.procs > procs) {
        return Err(TraceError::JobTooLarge {
            line: j.line,
            id: j.id,
            procs: j.procs,
            machine: procs,
        });
    }
    if u32::try_from(jobs.len()).is_err() {
        return Err(TraceError::TooManyJobs(jobs.len()));
    }
    // Submission order; task ids are positions in it.
    let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
    order.sort_by_key(|&i| (jobs[i as usize].submit, jobs[i as usize].line));
    let submitted = |k: usize| &jobs[order[k] as usize];

    let classes = UtilityClasses::new();
    let mut config = Config::new(policy.heuristic(), Micros::ZERO, Micros::MAX);
    config.reservations = options.reservations;
    config.drop_threshold = policy
        .is_utility_aware()
        .then_some(crate::seed001::ZERO_VALUE_THRESHOLD);
    // Value functions in submission order.
    let curves: Option<Vec<UtilityCurve>> =
        curves.map(|c| order.iter().map(|&i| c[i as usize]).collect());
    let task_of = |k: usize| match &curves {
        Some(c) => job_task_valued(submitted(k), c[k]),
        None => job_task(submitted(k)),
    };
    let template = jobs.first().map(job_task).unwrap_or_else(|| {
        job_task(&ReplayJob {
            id: 0,
            submit: 0,
            runtime: 1,
            request: 1,
            procs: 1,
            line: 0,
        })
    });
    // The simulator's void index (`Controller::with_void_index`; decisions are the same
    // either way) for Conservative only. Valgrind's instruction counts of the whole KTH-SP2
    // replay, without / with it, with the index as a multiset of voids (docs/performance.md,
    // round 7): Conservative 14.42 / 9.56 G, EASY 1.28 / 1.62 G, FCFS 0.48 / 0.48 G (the
    // others were not measured: they run without it, as before).
    let index = policy == Policy::Conservative;
    let mut storage = HostStorage::with_caches(
        &platform,
        jobs.len(),
        &template,
        TRACE_MEMO_ENTRIES,
        if index { crate::sim::VOIDS_PER_NODE } else { 0 },
        // Completions are kept here, in `pending` below.
        0,
    );
    let (st, _, voids) = storage.split();
    let ctl = Controller::new(&platform, &classes, config, st)?;
    let mut ctl = if index {
        ctl.with_void_index(voids)
    } else {
        ctl
    };
    ctl.set_knapsack(options.knapsack);

    const NONE: u64 = u64::MAX;
    // Per task (submission order): start from its latest commitment, and its end.
    let mut start = vec![NONE; jobs.len()];
    let mut end = vec![NONE; jobs.len()];
    // Per task: dropped. Kept from the decisions (a drop is final), so that the results do
    // not read every task slot back (18.7 MB of slots at KTH-SP2's 28,481 jobs).
    let mut dropped = vec![false; jobs.len()];
    // Pending completions: (time, task). A completion is live if the task's assignment ends
    // then when it comes up; one that a retaken reservation moved is skipped.
    let mut pending: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    // Per task: the time of its latest pending completion (NONE: none). EASY retakes its
    // reservation at every pass and Conservative at every compression, mostly at the same
    // start, so a completion already pending for that time is not pushed again: on KTH-SP2,
    // EASY pushes 31,800 instead of 70,100 and Conservative 78,400 instead of 324,300 (the
    // rest were popped later as stale).
    let mut due = vec![NONE; jobs.len()];
    let mut decided: Vec<u32> = Vec::new();
    let mut counts = ReplayCounts::default();
    let mut next = 0usize;
    loop {
        let t_arrival = (next < jobs.len()).then(|| submitted(next).submit);
        let t_done = pending.peek().map(|Reverse(p)| p.0);
        let Some(t) = t_arrival.into_iter().chain(t_done).min() else {
            break;
        };
        let mut changed = false;
        // Completions first: nodes freed at `t` are usable at `t`.
        while let Some(&Reverse((at, task))) = pending.peek() {
            if at != t {
                break;
            }
            pending.pop();
            if due[task as usize] == at {
                due[task as usize] = NONE;
            }
            let slot = &ctl.tasks()[task as usize];
            let live = matches!(slot.state, TaskState::Running | TaskState::Reserved)
                && slot
                    .assignment
                    .is_some_and(|a| a.start.0 + slot.task.run_time(a.end - a.start).0 == at);
            if !live {
                counts.stale_completions += 1;
                continue;
            }
            let expected = start[task as usize] + run_time(submitted(task as usize));
            if at != expected {
                return Err(TraceError::WrongEnd {
                    id: submitted(task as usize).id,
                    at,
                    expected,
                });
            }
            ctl.on_completion(TaskId(task), Micros(at))?;
            end[task as usize] = at;
            counts.completions += 1;
            changed = true;
        }
        // Then arrivals, in file order.
        while next < jobs.len() && submitted(next).submit == t {
            ctl.on_arrival(task_of(next))?;
            next += 1;
            changed = true;
        }
        if !changed {
            continue;
        }
        counts.passes += 1;
        let pass = ctl.on_mapping_event(Micros(t), &mut |d| {
            if d.kind == DecisionKind::Drop {
                counts.dropped += 1;
                if let Some(x) = dropped.get_mut(d.task.0 as usize) {
                    *x = true;
                }
            }
            if matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
                start[d.task.0 as usize] = d.start.0;
                decided.push(d.task.0);
                counts.commitments += 1;
                counts.reservations += u64::from(d.kind == DecisionKind::Reserve);
            }
        });
        if let Err(error) = pass {
            let waiting = ctl
                .tasks()
                .iter()
                .filter(|s| match s.state {
                    TaskState::Mappable | TaskState::PlaceHeld => true,
                    TaskState::Reserved => s.assignment.is_some_and(|a| a.start.0 > t),
                    _ => false,
                })
                .count();
            return Err(TraceError::Pass {
                at: t,
                waiting,
                completed: counts.completions,
                error,
            });
        }
        for task in decided.drain(..) {
            let slot = &ctl.tasks()[task as usize];
            if let Some(a) = slot.assignment {
                if matches!(slot.state, TaskState::Running | TaskState::Reserved)
                    && a.start.0 == start[task as usize]
                {
                    let at = a.start.0 + slot.task.run_time(a.end - a.start).0;
                    if due[task as usize] != at {
                        due[task as usize] = at;
                        pending.push(Reverse((at, task)));
                    }
                }
            }
        }
    }
    if let Some(k) = (0..jobs.len()).find(|&k| end[k] == NONE && !dropped[k]) {
        return Err(TraceError::Incomplete {
            missing: (0..jobs.len())
                .filter(|&k| end[k] == NONE && !dropped[k])
                .count(),
            jobs: jobs.len(),
            first_id: submitted(k).id,
        });
    }
    let value = curves.as_ref().map(|c| {
        let earned = ctl.utility().as_f64();
        let bound: f64 = c.iter().map(|v| v.max_value()).sum();
        ValueOutcome {
            seed: options.value_seed.unwrap_or(0),
            reservations: options.reservations.name().to_string(),
            earned,
            bound,
            percent: if bound > 0.0 {
                100.0 * earned / bound
            } else {
                0.0
            },
            dropped: dropped.iter().filter(|&&d| d).count(),
            dropped_ids: (0..jobs.len())
                .filter(|&k| dropped[k])
                .map(|k| submitted(k).id)
                .collect(),
        }
    });
    drop(ctl);
    drop(storage);
    // The records in the order of `jobs`, written once: each job's position in submission
    // order, then one pass over `jobs`.
    let mut position = vec![0u32; jobs.len()];
    for (k, &i) in order.iter().enumerate() {
        position[i as usize] = k as u32;
    }
    let kept = dropped.iter().filter(|&&d| !d).count();
    let mut records: Vec<JobRecord> = Vec::with_capacity(kept);
    for (j, &k) in jobs.iter().zip(&position) {
        let k = k as usize;
        if !dropped[k] {
            records.push(JobRecord {
                id: j.id,
                line: j.line,
                submit: j.submit,
                start: start[k],
                end: end[k],
                procs: j.procs,
                request: j.request,
            });
        }
    }
    let wall = clock.elapsed().as_secs_f64();
    let summary = summarize(&records, procs, wall);
    Ok(TraceResult {
        policy,
        procs,
        jobs: records,
        summary,
        counts,
        value,
    })
}

/// How long a job runs once started: its run time, or its request if that is shorter.
fn run_time(job: &ReplayJob) -> u64 {
    job.runtime.min(job.request)
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

/// Writes the per-job CSV: `job_id,submit,start,end,procs`, times in seconds to the
/// microsecond, one line per job in the order given.
pub fn write_jobs_csv(out: &mut dyn std::io::Write, jobs: &[JobRecord]) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "job_id,submit,start,end,procs")?;
    for j in jobs {
        writeln!(
            w,
            "{},{},{},{},{}",
            j.id,
            secs(j.submit),
            secs(j.start),
            secs(j.end),
            j.procs
        )?;
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

/// How to turn an SWF file into replay jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Machine size; `None` takes the header's `MaxProcs` (else `MaxNodes`).
    pub procs: Option<u32>,
    /// Apply [`CleanOptions::strong`] for the machine size.
    pub clean_strong: bool,
    /// Skip and count bad lines instead of failing on the first one.
    pub skip_bad_lines: bool,
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
}

/// Reads, sizes, optionally cleans and converts the SWF file at `path`. Errors name the
/// file and line; a job larger than the machine is an error unless cleaning drops it.
pub fn load(path: &Path, options: &LoadOptions) -> anyhow::Result<LoadedTrace> {
    let read = ReadOptions {
        skip_bad_lines: options.skip_bad_lines,
    };
    let log = swf::read(path, &read)?;
    let procs = log.machine_procs(options.procs)?;
    let (jobs, clean) = if options.clean_strong {
        let (jobs, report) = swf::clean(log.jobs, &CleanOptions::strong(procs));
        (jobs, Some(report))
    } else {
        (log.jobs, None)
    };
    let jobs = swf::replay_jobs(&jobs).with_context(|| {
        format!(
            "{}: cannot replay{}",
            log.file,
            if options.clean_strong {
                ""
            } else {
                " (pass --clean strong to drop or fix such jobs)"
            }
        )
    })?;
    if let Some(j) = jobs.iter().find(|j| j.procs > procs) {
        return Err(TraceError::JobTooLarge {
            line: j.line,
            id: j.id,
            procs: j.procs,
            machine: procs,
        })
        .with_context(|| format!("{}: cannot replay", log.file));
    }
    if jobs.is_empty() {
        anyhow::bail!("{}: no jobs left to replay after cleaning", log.file);
    }
    Ok(LoadedTrace {
        file: log.file,
        procs,
        jobs,
        skipped_bad_lines: log.skipped,
        clean,
    })
}

/// The summary file of `kairos replay`: the run, its metrics, its costs and what was read.
#[derive(Clone, Debug, Serialize)]
pub struct SummaryFile {
    /// The SWF file.
    pub file: String,
    /// The policy.
    pub policy: Policy,
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

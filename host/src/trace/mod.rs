//! Trace replay (`kairos replay`): SWF jobs on a homogeneous machine under strict FCFS, EASY
//! or Conservative backfilling, seed 004's knapsack, or a utility-aware heuristic over seed
//! 001's value functions, with per-job start times and the usual summary metrics.
//!
//! # Files, in the order data flows
//! - [`load`](load()) (`load.rs`): an SWF file read, sized, optionally cleaned
//!   ([`LoadedTrace`]), and its jobs made the core's tasks ([`machine`], [`job_task`],
//!   [`job_values`]).
//! - `replay.rs`: [`replay_trace`] and its variants build a controller for the machine and
//!   run the jobs through the core's engine ([`kairos_core::engine`]), the loop every caller
//!   of the core shares; an observer of the engine records each job's start (from the
//!   decisions), end (from the completions) and drop.
//! - `power.rs`: energy on traces ([`PowerModel`], [`TraceEnergy`], [`EnergyOutcome`]): a
//!   machine that draws power, a budget and seed 000's filters over it;
//!   `energy_replay.rs` ([`replay_trace_energy`]) runs the replay with them.
//! - `machine.rs`: a platform file as the machine ([`TraceMachine`]): partitions of
//!   different speeds, P-states and watts, the jobs each may run, and Batsim's energy.
//! - `ring.rs`: how long a ring of task slots the replay tries first, from a bound on the
//!   jobs in the system that the log gives before it is run.
//! - `streamed_nodes.rs` ([`replay_file_nodes`]): the node allocation with the log
//!   streamed, the task table a ring.
//! - `metrics.rs`: what the records say ([`JobRecord`], [`summarize`], [`peak_procs`]) and
//!   the files `kairos replay` writes ([`write_jobs_csv`], [`SummaryFile`]).
//! - this file: the policies, the options, the errors and the results.
//!
//! # The model (see `docs/traces.md`)
//! - the machine is one cluster of `procs` nodes with one core each and one P-state whose
//!   power is 0 W (energy plays no part in these policies, and 0 W keeps the ledger at 0),
//!   unless a power model is given (`power.rs`);
//! - each job is a [`Task`](kairos_core::task::Task) with its own placement table
//!   ([`Demand::Own`](kairos_core::task::Demand::Own)): `procs` nodes, planned with its
//!   requested time (the estimate, ETC) and ending at its run time (`actual`); a run time
//!   above the request ends at the request (the job is killed at its limit, as
//!   [`crate::swf::CleanOptions::clamp_runtime_to_request`] makes explicit);
//! - its utility curve is a constant 1 (these policies ignore utility), or, with value
//!   functions ([`ReplayOptions::value_seed`]; always under the utility-aware policies), a
//!   seed 001 value function drawn for its run time ([`crate::seed001::value_curve`]);
//! - under the utility-aware policies, a job that could earn only zero value even started now
//!   is dropped (seed 001 §3.1): it never runs and is reported apart;
//! - the day is `[0, Micros::MAX)`: there is no horizon, every job must start and finish.
//!
//! # When passes run
//! A pass (a mapping event) runs at every instant where a job completes or arrives, after all
//! the completions and then all the arrivals of that instant, and at no other time
//! ([`Schedule::on_events`](kairos_core::engine::Schedule::on_events)): nodes freed at `t`
//! are usable at `t`, and jobs submitted together are queued in file order before the pass. A
//! pass after every completion, not only an early one, matters: a job that runs exactly its
//! request frees its nodes at its planned end, and strict FCFS, which reserves nothing,
//! would otherwise stall until the next arrival.
//!
//! Start times come from the decisions: the last `Start` or `Reserve` decision of a task is
//! the one it runs by (EASY retakes its reservation at every pass, Conservative compresses
//! after early completions). The end is the start plus the real run time, and the replay
//! checks that each completion the engine reports happens exactly then.
//!
//! The core's reservations hold specific nodes from the moment they are made, so EASY and
//! Conservative here can differ from textbook processor-count backfilling (docs/traces.md,
//! "Reservations hold nodes"); strict FCFS cannot.

use std::fmt;

use kairos_core::knapsack::KnapsackParams;
use kairos_core::{Heuristic, Reservations};
use serde::Serialize;

mod energy_replay;
mod load;
mod machine;
mod metrics;
mod pool;
mod power;
mod profile;
mod replay;
mod ring;
mod streamed;
mod streamed_nodes;
mod tally;

pub use energy_replay::replay_trace_energy;
pub use load::{job_task, job_task_valued, job_values, load, machine, LoadOptions, LoadedTrace};
pub use machine::{MachineEnergy, PartitionEnergy, TraceMachine};
pub use metrics::{
    peak_procs, secs, summarize, write_jobs_csv, CleanCounts, JobRecord, KnapsackSummary, Summary,
    SummaryFile, BSLD_BOUND_US,
};
pub use pool::Allocation;
pub use power::{EnergyOutcome, PStateFactors, PowerModel, TraceEnergy};
pub use replay::{replay_trace, replay_trace_curves, replay_trace_with, TRACE_MEMO_ENTRIES};
pub use replay::{replay_trace_exec, replay_trace_placed, Placed};
pub use streamed::{replay_file_pool, replay_pool, StreamedReplay};
pub use streamed_nodes::{replay_file_nodes, replay_file_nodes_from, STREAM_RING_SLOTS};

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
    /// --gamma`). Not one of the three backfilling baselines.
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
    /// A controller in another process (`--controller exec:CMD`), not a `--policy`.
    #[value(skip)]
    Exec,
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
            // Never run: the exec controller makes the decisions (`live::exec`).
            Policy::Exec => Heuristic::Fcfs,
        }
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Exec => "exec",
            p => p.heuristic().name(),
        }
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
    /// A job that no partition of a platform file may run (its rules or its size).
    #[error(
        "line {line} (job {id}): {procs} processors: no partition of {platform} may run it \
         ({partitions}); change the partitions' `jobs` rules or sizes, or clean the log"
    )]
    FitsNoPartition {
        /// 1-based line in the SWF file (position in a Batsim workload's `jobs`).
        line: usize,
        /// Job number.
        id: u64,
        /// Processors it needs.
        procs: u32,
        /// The platform file.
        platform: String,
        /// Its partitions and their rules, as text.
        partitions: String,
    },
    /// A machine and job count whose scheduler storage would exceed
    /// [`crate::limits::MAX_REPLAY_STORAGE_BYTES`], refused before it is allocated.
    #[error(
        "a machine of {procs} processors (--procs, else the header's MaxProcs) with {jobs} jobs \
         needs about {need} of scheduler storage, over the limit of {limit}; give the real \
         machine size, or replay it with --allocation pool (fcfs, easy, conservative)"
    )]
    TooLarge {
        /// Processors of the machine.
        procs: u32,
        /// Jobs to replay.
        jobs: usize,
        /// The memory it would need, as text.
        need: String,
        /// The limit, as text.
        limit: String,
    },
    /// More jobs than the core's 32-bit task ids can name.
    #[error("{0} jobs: at most {max} can be replayed at once", max = u32::MAX)]
    TooManyJobs(usize),
    /// The core refused an input or ran out of a fixed capacity.
    #[error("scheduler: {0}")]
    Core(kairos_core::error::Error),
    /// The system refused the scheduler's storage.
    #[error("scheduler storage: {0}")]
    Alloc(#[from] crate::storage::AllocError),
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

/// What the replay did: its passes and the decisions and completions they led to.
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
    /// Jobs dropped (utility-aware policies: they could earn only zero value).
    pub dropped: u64,
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

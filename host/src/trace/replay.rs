//! The replay: a controller for the machine, the jobs through the core's engine
//! ([`kairos_core::engine`]) in submission order on [`Schedule::on_events`], and a
//! [`Recorder`] that watches the engine and keeps what the results need. The loop is the
//! engine's; nothing here orders events.

use std::time::Instant;

use kairos_core::engine::{Engine, Observer, Schedule};
use kairos_core::task::TaskId;
use kairos_core::units::Micros;
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use kairos_core::Reservations;
use kairos_core::{Config, Controller, Decision, DecisionKind, TaskState};

use super::load::{fit_machine, job_task, job_task_valued, job_values, machine, run_time};
use super::metrics::{summarize, JobRecord};
use super::power::{PowerModel, TraceEnergy};
use super::{Policy, ReplayCounts, ReplayOptions, TraceError, TraceResult, ValueOutcome};
use crate::live::exec::Exec;
use crate::placement::NodeLog;
use crate::storage::{HostStorage, VOIDS_PER_NODE};
use crate::swf::ReplayJob;
use kairos_core::packed::PackedHeader;

/// Entries of the controller's fit memo, a cache size only (decisions do not depend on it).
/// Trace jobs each carry their own size and request, so the questions that repeat are few
/// and recent, and a small memo answers them as well as the host's usual
/// [`crate::storage::MEMO_ENTRIES`].
pub const TRACE_MEMO_ENTRIES: usize = 256;

/// Replays `jobs` on a machine of `procs` processors under `policy`: a pass at every instant
/// where jobs complete or arrive ([`crate::trace`]). Jobs need not be sorted; they are
/// submitted in (submit, line) order. Every job must start and complete, or it is an error.
pub fn replay_trace(
    jobs: &[ReplayJob],
    procs: u32,
    policy: Policy,
) -> Result<TraceResult, TraceError> {
    replay_trace_with(jobs, procs, &ReplayOptions::new(policy))
}

/// As [`replay_trace`], with value functions and reservations as `options` say. Under a
/// utility-aware policy, jobs that could earn only zero value are dropped and reported in
/// [`TraceResult::value`], not in the job records.
pub fn replay_trace_with(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
) -> Result<TraceResult, TraceError> {
    let curves = options.value_seed.map(|seed| drawn_curves(jobs, seed));
    replay_inner(jobs, procs, options, curves, false, None).map(|(r, _, _)| r)
}

/// Where a replay placed its jobs, for Batsim's jobs file ([`replay_trace_placed`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// The node ids (`0..procs`, ascending) of each record of [`TraceResult::jobs`], in the
    /// same order.
    pub nodes: Vec<Vec<u32>>,
    /// Positions in the jobs given of the jobs dropped (utility-aware policies), in
    /// submission order.
    pub dropped: Vec<usize>,
    /// Positions in the jobs given of the jobs not started by the day's end (an energy
    /// budget, `trace::power`), in submission order.
    pub unfinished: Vec<usize>,
}

/// What a replay with a power model adds to its results ([`super::power`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct EnergyRun {
    /// The P-state of each record of [`TraceResult::jobs`], in the same order.
    pub(super) pstates: Vec<u8>,
    /// The cluster (partition) of each record, in the same order.
    pub(super) clusters: Vec<u8>,
    /// SWF job numbers of the jobs not started by the day's end, in submission order.
    pub(super) unfinished_ids: Vec<u64>,
    /// The day's end, with a budget.
    pub(super) day_end: Option<u64>,
}

/// As [`replay_trace_with`], also reading which nodes each job ran on off the timeline
/// ([`crate::placement`]); the schedule is the same.
pub fn replay_trace_placed(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
) -> Result<(TraceResult, Placed), TraceError> {
    let curves = options.value_seed.map(|seed| drawn_curves(jobs, seed));
    let (r, placed, _) = replay_inner(jobs, procs, options, curves, true, None)?;
    Ok((r, placed.unwrap_or_default()))
}

/// As [`replay_trace_placed`] (with `placed`) or [`replay_trace_with`], every decision from
/// the exec controller `exec` (started, not yet greeted), each checked before it is applied
/// (`--controller exec:CMD`). On an error, [`Exec::failure`] says what the controller did.
pub fn replay_trace_exec(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
    placed: bool,
    exec: &mut Exec,
) -> Result<(TraceResult, Option<Placed>), TraceError> {
    let (r, p, _) = replay_from(
        jobs,
        procs,
        options,
        None,
        placed,
        None,
        First::Fitted,
        Some(exec),
    )?;
    Ok((r, p))
}

/// Seed 001 value functions for `jobs` (in their order), drawn in submission order, so that
/// the file's line order does not matter.
pub(super) fn drawn_curves(jobs: &[ReplayJob], seed: u64) -> Vec<UtilityCurve> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].submit, jobs[i].line));
    let sorted: Vec<ReplayJob> = order.iter().map(|&i| jobs[i]).collect();
    let drawn = job_values(&sorted, seed);
    let mut out = drawn.clone();
    for (k, &i) in order.iter().enumerate() {
        out[i] = drawn[k];
    }
    out
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
    replay_inner(jobs, procs, &options, Some(curves.to_vec()), false, None).map(|(r, _, _)| r)
}
/// The replay itself; `curves`, if any, are in the order of `jobs`; with `placed`, the
/// nodes of each job too; with `energy`, on a machine that draws power.
pub(super) fn replay_inner(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
    curves: Option<Vec<UtilityCurve>>,
    placed: bool,
    energy: Option<&TraceEnergy>,
) -> Result<Replayed, TraceError> {
    replay_from(
        jobs,
        procs,
        options,
        curves,
        placed,
        energy,
        First::Fitted,
        None,
    )
}

/// As [`replay_inner`], with the first attempt's task table as `first` says, and the
/// decisions from `exec` if given.
#[allow(clippy::too_many_arguments)]
pub(super) fn replay_from(
    jobs: &[ReplayJob],
    procs: u32,
    options: &ReplayOptions,
    curves: Option<Vec<UtilityCurve>>,
    placed: bool,
    energy: Option<&TraceEnergy>,
    first: First,
    mut exec: Option<&mut Exec>,
) -> Result<Replayed, TraceError> {
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
    if u32::try_from(jobs.len()).is_err() {
        return Err(TraceError::TooManyJobs(jobs.len()));
    }
    // Sized before anything is allocated from it: a header's `MaxProcs: 4294967295` is an
    // error here, not an abort in the allocator.
    let tm = energy.and_then(|e| e.machine.as_deref());
    let (nodes, largest) = match tm {
        Some(m) => (
            m.platform.nodes(),
            m.platform
                .partitions
                .iter()
                .map(|p| p.nodes as u64)
                .max()
                .unwrap_or(0),
        ),
        None => (procs as u64, procs as u64),
    };
    let need = crate::storage::bytes_for(nodes, largest, jobs.len() as u64);
    let limit = crate::limits::MAX_REPLAY_STORAGE_BYTES;
    if need > limit {
        return Err(TraceError::TooLarge {
            procs,
            jobs: jobs.len(),
            need: crate::limits::bytes_text(need),
            limit: crate::limits::bytes_text(limit),
        });
    }
    let platform = match (tm, energy) {
        (Some(m), _) => m.core_platform(jobs)?,
        (None, Some(e)) => e.model.machine(procs, jobs)?,
        (None, None) => machine(procs)?,
    };
    match tm {
        Some(m) => m.fit(jobs)?,
        None => fit_machine(jobs, procs)?,
    }
    // Submission order; task ids are positions in it.
    let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
    order.sort_by_key(|&i| (jobs[i as usize].submit, jobs[i as usize].line));
    let submitted = |k: usize| &jobs[order[k] as usize];

    let classes = UtilityClasses::new();
    let mut config = Config::new(policy.heuristic(), Micros::ZERO, Micros::MAX);
    config.knapsack = options.knapsack;
    config.reservations = options.reservations;
    config.drop_threshold = policy
        .is_utility_aware()
        .then_some(crate::seed001::ZERO_VALUE_THRESHOLD);
    // With a budget, the day ends (`power.rs`); jobs not started by then are unfinished.
    let day_end = energy.and_then(|e| e.budget_joules.map(|_| e.day_end(jobs)));
    if let Some(e) = energy {
        e.check().map_err(TraceError::BadOptions)?;
        config.filter = e.filter;
        config.budget = e.budget();
        if let Some(end) = day_end {
            if let Some(j) = jobs.iter().find(|j| j.submit >= end) {
                return Err(TraceError::BadOptions(format!(
                    "job {} is submitted at {} s, not before the day's end at {} s \
                     (--horizon)",
                    j.id,
                    super::secs(j.submit),
                    super::secs(end)
                )));
            }
            config.day_end = Micros(end);
        }
    }
    // Value functions in submission order.
    let curves: Option<Vec<UtilityCurve>> =
        curves.map(|c| order.iter().map(|&i| c[i as usize]).collect());
    let task_of = |k: usize| {
        let t = match &curves {
            Some(c) => job_task_valued(submitted(k), c[k]),
            None => job_task(submitted(k)),
        };
        match (tm, energy) {
            (Some(m), _) => m.job_task(submitted(k), t.curve),
            (None, Some(e)) => e.model.job_task(submitted(k), t.curve),
            (None, None) => t,
        }
    };
    // The void index (`Storage::voids`; decisions are the same either way) for
    // Conservative only: it pays where reservations pile up far ahead, as Conservative's do
    // (one for every waiting job), and costs more upkeep than it saves under the others.
    let index = policy == Policy::Conservative;
    // The task table as a ring of slots a task holds only while it is not done with, as
    // long as the log's load needs (`ring.rs`): a slot a task would be most of the
    // replay's memory. A ring too short for the tasks in the system at some point fails
    // the run with a capacity error, and it runs again with a longer one (the same
    // decisions either way: a task's slot is only where the table keeps it). The node log
    // and the power model read the table by task id, so they keep a slot a task.
    let ring = match first {
        // An exec controller sees each event once: the replay runs once, a slot a task.
        First::Fitted if !placed && energy.is_none() && exec.is_none() => {
            super::ring::first_ring(jobs, &order, policy)
        }
        First::Fitted => None,
        #[cfg(test)]
        First::Slots(n) => Some(n),
        #[cfg(test)]
        First::Whole => None,
    };
    let is_exec = exec.is_some();
    let mut attempt = |ring: Option<usize>,
                       budget: usize|
     -> Result<Result<Replayed, Short>, TraceError> {
        let mut storage = HostStorage::by_need(
            &platform,
            ring.unwrap_or(jobs.len()),
            jobs.len(),
            TRACE_MEMO_ENTRIES,
            if index { VOIDS_PER_NODE } else { 0 },
            budget,
        )?;
        let parts = storage.split();
        let mut ctl = Controller::new(&platform, &classes, config, parts.controller)?;
        if ring.is_some() {
            ctl.recycle_slots();
        }
        if let Some(x) = exec.as_deref_mut() {
            x.hello(&PackedHeader {
                platform: platform.clone(),
                classes: classes.clone(),
                config,
                schedule: Schedule::on_events(),
                tasks: jobs.len() as u32,
            })?;
            ctl.set_external(x);
        }

        let mut rec = Recorder::new(jobs, &order);
        rec.nodes = placed.then(|| NodeLog::new(jobs.len()));
        rec.model = energy.map(|e| &e.model);
        rec.machine = tm;
        rec.pstate = energy.map(|_| vec![0; jobs.len()]);
        rec.cluster = energy.map(|_| vec![0; jobs.len()]);
        let run = Engine::new(Schedule::on_events(), parts.pending)
            .with_pending_ends(parts.ends)
            .run(&mut ctl, (0..jobs.len()).map(|k| Ok(task_of(k))), &mut rec);
        if ring.is_some() && matches!(run, Err(e) if ring_too_short(e)) {
            crate::progress::untick(rec.ticked);
            return Ok(Err(Short::Ring));
        }
        if matches!(&run, Err(e) if crate::storage::budget_too_small(e))
            && crate::storage::next_budget(budget).is_some()
        {
            crate::progress::untick(rec.ticked);
            return Ok(Err(Short::Budget));
        }
        if let Some(e) = rec.wrong_end.take() {
            return Err(e);
        }
        if let Err(error) = run {
            return Err(match rec.pass {
                Some(t) => {
                    let waiting = ctl
                        .tasks()
                        .iter()
                        .filter(|s| match s.state {
                            TaskState::Mappable | TaskState::PlaceHeld => true,
                            TaskState::Reserved => s.assignment.is_some_and(|a| a.start.0 > t),
                            _ => false,
                        })
                        .count();
                    TraceError::Pass {
                        at: t,
                        waiting,
                        completed: rec.counts.completions,
                        error,
                    }
                }
                None => TraceError::Core(error),
            });
        }
        let Recorder {
            start,
            end,
            mut dropped,
            counts,
            nodes: mut node_log,
            pstate,
            cluster,
            ..
        } = rec;
        // With a budget, a job not started by the day's end is unfinished, reported apart as a
        // dropped one is (and then counted with the dropped only where `unfinished` says not).
        let unfinished: Vec<bool> = (0..jobs.len())
            .map(|k| day_end.is_some() && end[k] == NONE && !dropped[k])
            .collect();
        if let Some(k) = (0..jobs.len()).find(|&k| end[k] == NONE && !dropped[k] && !unfinished[k])
        {
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
        let mut energy_run = energy.map(|_| EnergyRun {
            pstates: Vec::new(),
            clusters: Vec::new(),
            unfinished_ids: (0..jobs.len())
                .filter(|&k| unfinished[k])
                .map(|k| submitted(k).id)
                .collect(),
            day_end,
        });
        let placed_unfinished: Vec<usize> = (0..jobs.len())
            .filter(|&k| unfinished[k])
            .map(|k| order[k] as usize)
            .collect();
        for (d, &u) in dropped.iter_mut().zip(&unfinished) {
            *d |= u;
        }
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
        let mut placed = node_log.as_ref().map(|_| Placed {
            nodes: Vec::with_capacity(kept),
            dropped: (0..jobs.len())
                .filter(|&k| dropped[k] && !unfinished[k])
                .map(|k| order[k] as usize)
                .collect(),
            unfinished: placed_unfinished,
        });
        for (j, &k) in jobs.iter().zip(&position) {
            let k = k as usize;
            if let (Some(p), Some(log)) = (placed.as_mut(), node_log.as_mut()) {
                if !dropped[k] {
                    p.nodes.push(log.take(k));
                }
            }
            if !dropped[k] {
                if let (Some(run), Some(p)) = (energy_run.as_mut(), pstate.as_ref()) {
                    run.pstates.push(p[k]);
                }
                if let (Some(run), Some(c)) = (energy_run.as_mut(), cluster.as_ref()) {
                    run.clusters.push(c[k]);
                }
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
        Ok(Ok((
            TraceResult {
                policy,
                procs,
                jobs: records,
                summary,
                counts,
                value,
            },
            placed,
            energy_run,
        )))
    };
    #[allow(unused_mut)]
    let (mut ring, mut budget) = (ring, crate::storage::FIRST_BUDGET);
    #[cfg(test)]
    if let Some(b) = FIRST_BUDGET.with(|b| b.get()) {
        budget = b;
    }
    // An exec controller sees each event once: its replay starts at the largest budget, so
    // that it never runs again.
    if is_exec {
        while let Some(b) = crate::storage::next_budget(budget) {
            budget = b;
        }
    }
    loop {
        match attempt(ring, budget)? {
            Ok(done) => {
                #[cfg(test)]
                LAST_RING.with(|r| r.set(ring));
                #[cfg(test)]
                LAST_BUDGET.with(|b| b.set(budget));
                return Ok(done);
            }
            // Only a ring comes back short (a slot a task never does): the next is longer,
            // or a slot a task.
            Err(Short::Ring) => ring = ring.and_then(|r| super::ring::next_ring(r, jobs.len())),
            Err(Short::Budget) => {
                budget = crate::storage::next_budget(budget).unwrap_or(budget);
            }
        }
    }
}

/// Why an attempt of [`replay_inner`] must go again.
enum Short {
    /// The ring of task slots was too short.
    Ring,
    /// The by-need booking pool or sweep scratch was too small
    /// ([`crate::storage::budget_too_small`]).
    Budget,
}

/// The first attempt's task table ([`replay_inner`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum First {
    /// A ring fitted to the log ([`super::ring::first_ring`]), where the replay may ring.
    Fitted,
    /// A ring of this many slots (tests: one too short must come to the same results).
    #[cfg(test)]
    Slots(usize),
    /// A slot a task (tests).
    #[cfg(test)]
    Whole,
}

#[cfg(test)]
thread_local! {
    /// The task table of this thread's last replay that finished (`None`: a slot a task).
    pub(super) static LAST_RING: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    /// The storage budget this thread's next replay starts from (`None`: the command's).
    pub(super) static FIRST_BUDGET: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    /// The storage budget of this thread's last replay that finished.
    pub(super) static LAST_BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What [`replay_inner`] yields.
type Replayed = (TraceResult, Option<Placed>, Option<EnergyRun>);

/// Whether `e` says a ring of task slots was too short: the task table, the open list or
/// the pending completions, each sized by the ring.
pub(super) fn ring_too_short(e: kairos_core::error::Error) -> bool {
    use kairos_core::error::{Capacity, Error};
    matches!(e, Error::Capacity(c) if matches!(c.what, Capacity::Tasks | Capacity::Pending))
}

/// No time yet.
const NONE: u64 = u64::MAX;

/// Watches the engine for the results: per task (submission order), its start from its
/// latest commitment, its end and whether it was dropped, and the counts.
struct Recorder<'j> {
    jobs: &'j [ReplayJob],
    /// Submission order: task `k` is `jobs[order[k]]`.
    order: &'j [u32],
    start: Vec<u64>,
    end: Vec<u64>,
    /// Kept from the decisions (a drop is final), so that the results do not read every
    /// task slot back.
    dropped: Vec<bool>,
    counts: ReplayCounts,
    /// The time of the pass under way, if any (for [`TraceError::Pass`]).
    pass: Option<u64>,
    /// The first completion that came at another time than its start and run time say.
    wrong_end: Option<TraceError>,
    /// The nodes of each task, when the caller asked for them.
    nodes: Option<NodeLog>,
    /// The machine's power, when it draws any: the P-states' times set the runs' ends.
    model: Option<&'j PowerModel>,
    /// The P-state of each task's latest commitment, with a power model.
    pstate: Option<Vec<u8>>,
    /// The cluster of each task's latest commitment, with a power model.
    cluster: Option<Vec<u8>>,
    /// A platform file's machine: its partitions' speeds set the runs' ends.
    machine: Option<&'j super::TraceMachine>,
    /// Completions told to the command's progress ([`crate::progress::tick`]), taken back
    /// if the attempt goes again.
    ticked: u64,
}

impl<'j> Recorder<'j> {
    fn new(jobs: &'j [ReplayJob], order: &'j [u32]) -> Recorder<'j> {
        Recorder {
            jobs,
            order,
            start: vec![NONE; jobs.len()],
            end: vec![NONE; jobs.len()],
            dropped: vec![false; jobs.len()],
            counts: ReplayCounts::default(),
            pass: None,
            wrong_end: None,
            nodes: None,
            model: None,
            pstate: None,
            cluster: None,
            machine: None,
            ticked: 0,
        }
    }
}

impl Observer for Recorder<'_> {
    fn before_mapping(&mut self, now: Micros) {
        self.counts.passes += 1;
        self.pass = Some(now.0);
    }

    fn after_mapping(&mut self, _now: Micros, ctl: &Controller<'_>, _decisions: u32) {
        self.pass = None;
        if let Some(log) = self.nodes.as_mut() {
            log.after_mapping(ctl);
        }
    }

    fn on_decision(&mut self, d: &Decision) {
        if let Some(log) = self.nodes.as_mut() {
            log.on_decision(d);
        }
        let k = d.task.0 as usize;
        if d.kind == DecisionKind::Drop {
            self.counts.dropped += 1;
            if let Some(x) = self.dropped.get_mut(k) {
                *x = true;
            }
        }
        if matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
            self.start[k] = d.start.0;
            if let Some(p) = self.pstate.as_mut() {
                p[k] = d.pstate.0;
            }
            if let Some(c) = self.cluster.as_mut() {
                c[k] = d.cluster.0;
            }
            self.counts.commitments += 1;
            self.counts.reservations += u64::from(d.kind == DecisionKind::Reserve);
        }
    }

    fn on_completion(&mut self, task: TaskId, at: Micros) {
        // `kairos replay` and `sweep-knapsack --mode rigid` count jobs (a no-op elsewhere).
        crate::progress::tick(1);
        self.ticked += 1;
        let k = task.0 as usize;
        let job = &self.jobs[self.order[k] as usize];
        let run = match (self.machine, self.model, &self.pstate, &self.cluster) {
            (Some(m), _, Some(p), Some(c)) => m.run_time(job, c[k] as usize, p[k] as usize),
            (None, Some(m), Some(p), _) => {
                kairos_core::task::actual_run_time(
                    Micros(job.runtime),
                    Some(m.etc(job.request, 0)),
                    m.etc(job.request, p[k] as usize),
                )
                .0
            }
            _ => run_time(job),
        };
        let expected = self.start[k].saturating_add(run);
        if at.0 != expected && self.wrong_end.is_none() {
            self.wrong_end = Some(TraceError::WrongEnd {
                id: job.id,
                at: at.0,
                expected,
            });
        }
        self.end[k] = at.0;
        self.counts.completions += 1;
    }
}

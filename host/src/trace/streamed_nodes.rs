//! The node allocation with the log streamed ([`replay_file_nodes`], `kairos replay
//! --allocation nodes --stream`): jobs are read, cleaned and converted as the replay reaches
//! their submit time, the controller's task table is a ring of slots that a task holds only
//! while it is not done with, and each job's line of `--jobs-out` is written as soon as
//! every earlier job has completed. Memory is bounded by the jobs in the system and the
//! machine, not the log's length.
//!
//! The same schedule as the replay of the loaded log ([`super::replay_trace_with`]): the
//! same tasks in the same order through the same engine loop. What needs the whole log is
//! left out, as the pool's stream leaves it out: the analysis's waits and slowdowns by class
//! (quantiles of every job's values), value functions (drawn against the log's longest run
//! time), a power model's day, Batsim's files and `--first`/`--window` (which sort the log).
//!
//! A ring too short for the jobs in the system at some moment is a capacity error of the
//! core; the replay then starts again from the log's first line with a ring four times as long,
//! writing only the records the earlier attempt did not (the decisions are the same at
//! every ring length, so the records it wrote are the ones this attempt makes).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use kairos_core::engine::{Engine, Event, Observer, Schedule};
use kairos_core::task::TaskId;
use kairos_core::units::Micros;
use kairos_core::utility::UtilityClasses;
use kairos_core::{Config, Controller, Decision, DecisionKind, Reservations};

use super::load::{job_task, machine, run_time};
use super::metrics::{write_job_line, JobRecord, JOBS_CSV_HEADER};
use super::streamed::{open_stream, StreamedReplay};
use super::tally::{InOrder, Tally};
use super::{LoadOptions, ReplayCounts, ReplayOptions, TraceError, TRACE_MEMO_ENTRIES};
use crate::storage::{HostStorage, VOIDS_PER_NODE};
use crate::swf::{ReplayJob, SwfStream};

/// Task slots of the first attempt's ring: more than the jobs in the system at once on
/// KTH-SP2 and the Curie sample. Each attempt that falls short replays the log up to
/// there again, so the next has four times the slots: UniLu-Gaia's long waits take two.
pub const STREAM_RING_SLOTS: usize = 1 << 13;

/// How many times longer each attempt's ring is than the last's.
const RING_GROWTH: usize = 4;

/// Task ids the engine's table of pending ends covers (a cache: past it a task committed
/// again to the same end is queued again, with the same decisions).
const STREAM_ENDS: usize = 1 << 16;

/// Streams the SWF file at `path` (plain or gzip) through the node allocation under
/// `replay`'s policy, writing one line per job to `jobs_out` (the format of
/// [`super::write_jobs_csv`], in submission order) if given. Errors name the file and line
/// as [`super::load`]'s do; value functions are refused (see the module doc).
pub fn replay_file_nodes(
    path: &Path,
    options: &LoadOptions,
    replay: &ReplayOptions,
    jobs_out: Option<&mut dyn Write>,
) -> anyhow::Result<StreamedReplay> {
    replay_file_nodes_from(path, options, replay, jobs_out, STREAM_RING_SLOTS)
}

/// As [`replay_file_nodes`], with a first ring of `first_slots` task slots (made longer at
/// each attempt that finds it too short).
pub fn replay_file_nodes_from(
    path: &Path,
    options: &LoadOptions,
    replay: &ReplayOptions,
    mut jobs_out: Option<&mut dyn Write>,
    first_slots: usize,
) -> anyhow::Result<StreamedReplay> {
    let clock = Instant::now();
    if replay.value_seed.is_some() || replay.policy.is_utility_aware() {
        anyhow::bail!(
            "value functions are drawn against the whole log: {} cannot stream it (replay \
             it without --stream)",
            replay.policy
        );
    }
    if replay.reservations == Reservations::PlaceHolder {
        anyhow::bail!("{} only reserves permanently", replay.policy);
    }
    replay.knapsack.validate().map_err(TraceError::from)?;
    let mut slots = first_slots.max(1);
    let mut written = 0u64;
    let mut tally = Tally::default();
    let mut header = false;
    let mut budget = crate::storage::FIRST_BUDGET;
    loop {
        let attempt = attempt(
            path,
            options,
            replay,
            (slots, budget),
            jobs_out.as_deref_mut(),
            &mut written,
            &mut tally,
            &mut header,
        )?;
        match attempt {
            Attempt::Done(r) => {
                return Ok(StreamedReplay {
                    summary: tally.summary(r.procs, clock.elapsed().as_secs_f64()),
                    ..*r
                })
            }
            Attempt::RingTooShort => {
                crate::diag!(
                    "note: {}: {slots} task slots were too few for the jobs in the system at \
                     once; replaying again with {}",
                    path.display(),
                    RING_GROWTH * slots
                );
                slots *= RING_GROWTH;
            }
            Attempt::BudgetTooSmall => {
                budget = crate::storage::next_budget(budget).unwrap_or(budget);
            }
        }
    }
}

/// What one attempt came to.
enum Attempt {
    /// The replay, but for its summary (the caller's tally holds it).
    Done(Box<StreamedReplay>),
    /// The ring of task slots was too short: start again with a longer one.
    RingTooShort,
    /// The by-need booking pool or sweep scratch was too small: start again with the next
    /// budget ([`crate::storage::next_budget`]).
    BudgetTooSmall,
}

/// One attempt with a ring of `slots` and a storage budget of `budget` bookings a node
/// ([`HostStorage::by_need`]): the records past the first `written` (which an
/// earlier attempt wrote and tallied) are written and tallied.
#[allow(clippy::too_many_arguments)]
fn attempt<'w>(
    path: &Path,
    options: &LoadOptions,
    replay: &ReplayOptions,
    (slots, budget): (usize, usize),
    jobs_out: Option<&mut (dyn Write + 'w)>,
    written: &mut u64,
    tally: &mut Tally,
    header: &mut bool,
) -> anyhow::Result<Attempt> {
    let policy = replay.policy;
    let (mut stream, file, procs) = open_stream(path, options)?;
    let cannot = || format!("{file}: cannot replay");
    let need = crate::storage::bytes_for(procs as u64, procs as u64, slots as u64);
    let limit = crate::limits::MAX_REPLAY_STORAGE_BYTES;
    if need > limit {
        return Err(TraceError::TooLarge {
            procs,
            jobs: slots,
            need: crate::limits::bytes_text(need),
            limit: crate::limits::bytes_text(limit),
        })
        .with_context(cannot);
    }
    let platform = machine(procs).with_context(cannot)?;
    let classes = UtilityClasses::new();
    let mut config = Config::new(policy.heuristic(), Micros::ZERO, Micros::MAX);
    config.knapsack = replay.knapsack;
    config.reservations = replay.reservations;
    // As `replay.rs`: the void index pays under Conservative only.
    let index = policy == super::Policy::Conservative;
    let mut storage = HostStorage::by_need(
        &platform,
        slots,
        STREAM_ENDS,
        TRACE_MEMO_ENTRIES,
        if index { VOIDS_PER_NODE } else { 0 },
        budget,
    )
    .map_err(TraceError::from)
    .with_context(cannot)?;
    let parts = storage.split();
    let mut ctl = Controller::new(&platform, &classes, config, parts.controller)
        .map_err(TraceError::from)
        .with_context(cannot)?;
    ctl.recycle_slots();
    let mut engine =
        Engine::new(Schedule::on_events(), parts.pending).with_pending_ends(parts.ends);

    let mut out = jobs_out.map(|w| std::io::BufWriter::with_capacity(1 << 16, w));
    if let (Some(w), false) = (&mut out, *header) {
        writeln!(w, "{JOBS_CSV_HEADER}")
            .with_context(|| format!("{file}: cannot write the jobs file"))?;
        *header = true;
    }
    let skip = *written;
    let mut emit = |r: &JobRecord| -> anyhow::Result<()> {
        tally.add(r);
        *written += 1;
        if let Some(w) = &mut out {
            write_job_line(w, r).context("cannot write the jobs file")?;
        }
        Ok(())
    };
    let mut rec = Recorder {
        jobs: HashMap::new(),
        done: Vec::new(),
        in_order: InOrder::new(),
        handed: 0,
        counts: ReplayCounts::default(),
        pass: None,
        wrong_end: None,
    };
    let mut upcoming = next_fitting(&mut stream, procs)?;
    // The engine's own loop (`Engine::run`), with the jobs pulled from the stream.
    let ran = (|| -> anyhow::Result<()> {
        loop {
            let arrival = upcoming.as_ref().map(|j| Micros(j.submit));
            match engine.next_event(&ctl, arrival) {
                None => break,
                Some(Event::Completion(_)) => engine.complete_next(&mut ctl, &mut rec)?,
                Some(Event::Arrival(_)) => {
                    if let Some(job) = upcoming.take() {
                        let id = engine.arrive(&mut ctl, job_task(&job), &mut rec)?;
                        rec.jobs.insert(id.0, (job, NONE));
                    }
                    upcoming = next_fitting(&mut stream, procs)?;
                }
                Some(Event::Mapping(t)) => engine.map(&mut ctl, t, &mut rec)?,
            }
            rec.hand_on(skip, &mut emit)?;
        }
        engine.finish(&mut ctl, &mut rec)?;
        rec.hand_on(skip, &mut emit)
    })();
    if let Some(e) = rec.wrong_end.take() {
        return Err(e).with_context(cannot);
    }
    if let Err(e) = ran {
        return match e.downcast::<kairos_core::error::Error>() {
            Ok(core) if super::replay::ring_too_short(core) => Ok(Attempt::RingTooShort),
            Ok(core)
                if crate::storage::budget_too_small(&core)
                    && crate::storage::next_budget(budget).is_some() =>
            {
                Ok(Attempt::BudgetTooSmall)
            }
            Ok(core) => Err(match rec.pass {
                Some(at) => TraceError::Pass {
                    at,
                    waiting: rec.jobs.values().filter(|(_, s)| *s == NONE).count(),
                    completed: rec.counts.completions,
                    error: core,
                },
                None => TraceError::Core(core),
            })
            .with_context(cannot),
            Err(e) => Err(e),
        };
    }
    if let Some((&first, _)) = rec.jobs.iter().min_by_key(|(&k, _)| k) {
        return Err(TraceError::Incomplete {
            missing: rec.jobs.len(),
            jobs: rec.counts.completions as usize + rec.jobs.len(),
            first_id: rec.jobs[&first].0.id,
        })
        .with_context(cannot);
    }
    if let Some(w) = &mut out {
        w.flush().context("cannot write the jobs file")?;
    }
    drop(out);
    if *written == 0 {
        anyhow::bail!("{file}: no jobs left to replay after cleaning");
    }
    Ok(Attempt::Done(Box::new(StreamedReplay {
        file,
        policy,
        allocation: super::Allocation::Nodes,
        procs,
        summary: tally.summary(procs, 0.0),
        counts: rec.counts,
        clean: stream.clean_report(),
        skipped_bad_lines: stream.skipped(),
        order: stream.order(),
    })))
}

/// The stream's next job, refused if it needs more processors than the machine has (what
/// [`super::load`] checks of the whole log, here job by job).
fn next_fitting(stream: &mut SwfStream, procs: u32) -> anyhow::Result<Option<ReplayJob>> {
    let job = stream.next_job()?;
    if let Some(j) = job.filter(|j| j.procs > procs) {
        return Err(TraceError::JobTooLarge {
            line: j.line,
            id: j.id,
            procs: j.procs,
            machine: procs,
        })
        .with_context(|| format!("{}: cannot replay", stream.file()));
    }
    Ok(job)
}

/// No time yet.
const NONE: u64 = u64::MAX;

/// Watches the engine: the jobs in the system with their start from their latest
/// commitment, the records of the completed ones in submission order, and the counts.
struct Recorder {
    /// The jobs arrived and not completed, by task id, with their start (or [`NONE`]).
    jobs: HashMap<u32, (ReplayJob, u64)>,
    /// Records of completed jobs by task id (= position in submission order), handed on
    /// in that order.
    done: Vec<(u32, JobRecord)>,
    in_order: InOrder,
    /// Records handed on so far.
    handed: u64,
    counts: ReplayCounts,
    /// The time of the pass under way, if any (for [`TraceError::Pass`]).
    pass: Option<u64>,
    /// The first completion that came at another time than its start and run time say.
    wrong_end: Option<TraceError>,
}

impl Recorder {
    /// Hands on the records now in submission order, but the first `skip`.
    fn hand_on(
        &mut self,
        skip: u64,
        emit: &mut dyn FnMut(&JobRecord) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let handed = &mut self.handed;
        for (k, r) in self.done.drain(..) {
            self.in_order.put(u64::from(k), r, &mut |r: &JobRecord| {
                *handed += 1;
                if *handed > skip {
                    emit(r)
                } else {
                    Ok(())
                }
            })?;
        }
        Ok(())
    }
}

impl Observer for Recorder {
    fn before_mapping(&mut self, now: Micros) {
        self.counts.passes += 1;
        self.pass = Some(now.0);
    }

    fn after_mapping(&mut self, _now: Micros, _ctl: &Controller<'_>, _decisions: u32) {
        self.pass = None;
    }

    fn on_decision(&mut self, d: &Decision) {
        if matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
            if let Some(j) = self.jobs.get_mut(&d.task.0) {
                j.1 = d.start.0;
            }
            self.counts.commitments += 1;
            self.counts.reservations += u64::from(d.kind == DecisionKind::Reserve);
        }
    }

    fn on_completion(&mut self, task: TaskId, at: Micros) {
        self.counts.completions += 1;
        let Some((job, start)) = self.jobs.remove(&task.0) else {
            return;
        };
        let expected = start.saturating_add(run_time(&job));
        if at.0 != expected && self.wrong_end.is_none() {
            self.wrong_end = Some(TraceError::WrongEnd {
                id: job.id,
                at: at.0,
                expected,
            });
        }
        self.done.push((
            task.0,
            JobRecord {
                id: job.id,
                line: job.line,
                submit: job.submit,
                start,
                end: at.0,
                procs: job.procs,
                request: job.request,
            },
        ));
    }
}

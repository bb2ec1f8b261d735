//! The processor-pool allocation (`kairos replay --allocation pool`): textbook strict FCFS,
//! EASY and Conservative backfilling over a count of free processors, as pyss and most
//! trace-replay simulators schedule a homogeneous machine. No node has an identity: a job
//! takes `procs` processors from the pool when it starts and gives them back when it ends,
//! so a pass costs the same on 100 processors as on 163,840.
//!
//! The events are the node allocation's ([`crate::trace`], "When passes run"): at every
//! instant where jobs complete or arrive, all the completions, then all the arrivals (in
//! submission order), then one pass. The policies:
//! - FCFS: waiting jobs start in order while the first one fits.
//! - EASY (Mu'alem and Feitelson 2001, pyss's `EasyBackfillScheduler`): after FCFS, the
//!   first waiting job gets a reservation at the shadow time, the earliest planned end
//!   (start + request) of the running jobs by which enough processors are free; the
//!   processors then free beyond its need are the extra. A later job (in queue order)
//!   starts now if it fits and either ends by the shadow time or takes no more than the
//!   extra (which it then uses up).
//! - Conservative (pyss's `ConservativeScheduler`): every waiting job holds a reservation in
//!   the free-processor [`Profile`] from its arrival, at the earliest time it fits without
//!   delaying any earlier reservation. When a job ends before its planned end, every
//!   reservation is retaken in queue order at its earliest time (never later than it was).
//!   A job starts when its reservation's time comes, which is an event of its own.
//!
//! Jobs come in from a pull function, one at a time as the replay reaches their submit time,
//! and leave through a push function as they start (a job's end is known then), so the
//! pool holds only the jobs in the system.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use super::load::run_time;
use super::metrics::JobRecord;
use super::profile::Profile;
use super::{Policy, ReplayCounts, TraceError};
use crate::swf::ReplayJob;

/// How a replay places jobs on the machine (`kairos replay --allocation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Allocation {
    /// Node identities: the core's planner books specific nodes, and a reservation holds
    /// its nodes from the moment it is made (seed 000's node choice needs it).
    #[default]
    Nodes,
    /// A pool of processors counted, not named: textbook backfilling, as pyss (FCFS, EASY
    /// and Conservative only; the log is streamed).
    Pool,
}

/// No reservation yet.
const UNRESERVED: u64 = u64::MAX;

/// A waiting job.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    /// Position in submission order.
    seq: u64,
    job: ReplayJob,
    /// Conservative: the reservation's start ([`UNRESERVED`] until the first pass).
    reserved: u64,
}

/// A running job, ordered by its end (ties by submission order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Running {
    end: u64,
    seq: u64,
    procs: u32,
    planned_end: u64,
}

/// The pool machine and its queue (see the module doc).
pub(crate) struct Pool {
    policy: Policy,
    procs: u32,
    free: u32,
    now: u64,
    queue: VecDeque<Waiting>,
    running: BinaryHeap<Reverse<Running>>,
    /// EASY: processors of the running jobs by planned end.
    planned: BTreeMap<u64, u64>,
    /// Conservative: free processors over time.
    profile: Profile,
    /// Conservative: the earliest reservation of a waiting job. Its time is an event of
    /// its own (pyss's start events): retaking reservations in queue order can move the job
    /// whose planned end another job was reserved at, and then nothing else happens then.
    next_reserved: Option<u64>,
    counts: ReplayCounts,
}

impl Pool {
    /// An idle machine of `procs` processors under `policy` (FCFS, EASY or Conservative).
    pub(crate) fn new(procs: u32, policy: Policy) -> Result<Pool, TraceError> {
        if procs == 0 {
            return Err(TraceError::NoProcessors);
        }
        if !Policy::ALL.contains(&policy) {
            return Err(TraceError::BadOptions(format!(
                "--allocation pool schedules fcfs, easy and conservative, not {policy} (use \
                 --allocation nodes)"
            )));
        }
        Ok(Pool {
            policy,
            procs,
            free: procs,
            now: 0,
            queue: VecDeque::new(),
            running: BinaryHeap::new(),
            planned: BTreeMap::new(),
            profile: Profile::new(procs),
            next_reserved: None,
            counts: ReplayCounts::default(),
        })
    }

    /// What the replay did so far.
    pub(crate) fn counts(&self) -> ReplayCounts {
        self.counts
    }

    /// Replays the jobs `next` yields (in submission order) to the end, calling `started`
    /// with each job's position in submission order and its record when it starts.
    pub(crate) fn run<E: From<TraceError>>(
        &mut self,
        next: &mut dyn FnMut() -> Result<Option<ReplayJob>, E>,
        started: &mut dyn FnMut(u64, JobRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut ahead = next()?;
        let mut seq = 0u64;
        loop {
            let t = [
                ahead.map(|j| j.submit),
                self.running.peek().map(|r| r.0.end),
                self.next_reserved,
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(t) = t else { break };
            self.now = t;
            let mut early = false;
            while let Some(&Reverse(r)) = self.running.peek() {
                if r.end != t {
                    break;
                }
                self.running.pop();
                self.free += r.procs;
                self.counts.completions += 1;
                match self.policy {
                    Policy::Easy => {
                        let e = self.planned.get_mut(&r.planned_end).expect("planned end");
                        *e -= u64::from(r.procs);
                        if *e == 0 {
                            self.planned.remove(&r.planned_end);
                        }
                    }
                    Policy::Conservative if r.end < r.planned_end => {
                        self.profile.give(r.end, r.planned_end, r.procs);
                        early = true;
                    }
                    _ => {}
                }
            }
            while let Some(job) = ahead.filter(|j| j.submit == t) {
                if job.procs > self.procs {
                    return Err(TraceError::JobTooLarge {
                        line: job.line,
                        id: job.id,
                        procs: job.procs,
                        machine: self.procs,
                    }
                    .into());
                }
                self.queue.push_back(Waiting {
                    seq,
                    job,
                    reserved: UNRESERVED,
                });
                seq += 1;
                ahead = next()?;
                if let Some(n) = ahead {
                    debug_assert!(n.submit >= t, "jobs must come in submission order");
                }
            }
            self.counts.passes += 1;
            match self.policy {
                Policy::Conservative => self.conservative(early, started)?,
                _ => self.fcfs_easy(started)?,
            }
        }
        if let Some(w) = self.queue.front() {
            return Err(TraceError::Incomplete {
                missing: self.queue.len(),
                jobs: seq as usize,
                first_id: w.job.id,
            }
            .into());
        }
        Ok(())
    }

    /// Starts `w` now.
    fn start<E>(
        &mut self,
        w: Waiting,
        started: &mut dyn FnMut(u64, JobRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        let now = self.now;
        let end = now.saturating_add(run_time(&w.job));
        let planned_end = now.saturating_add(w.job.request);
        self.free -= w.job.procs;
        self.running.push(Reverse(Running {
            end,
            seq: w.seq,
            procs: w.job.procs,
            planned_end,
        }));
        if self.policy == Policy::Easy {
            *self.planned.entry(planned_end).or_default() += u64::from(w.job.procs);
        }
        self.counts.commitments += 1;
        started(
            w.seq,
            JobRecord {
                id: w.job.id,
                line: w.job.line,
                submit: w.job.submit,
                start: now,
                end,
                procs: w.job.procs,
                request: w.job.request,
            },
        )
    }

    /// A pass of FCFS, then, under EASY, the backfilling around the first job's
    /// reservation.
    fn fcfs_easy<E>(
        &mut self,
        started: &mut dyn FnMut(u64, JobRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(&w) = self.queue.front() {
            if w.job.procs > self.free {
                break;
            }
            self.queue.pop_front();
            self.start(w, started)?;
        }
        if self.policy != Policy::Easy || self.queue.len() < 2 || self.free == 0 {
            return Ok(());
        }
        let need = u64::from(self.queue[0].job.procs);
        let mut avail = u64::from(self.free);
        let (mut shadow, mut extra) = (u64::MAX, 0u64);
        for (&at, &procs) in &self.planned {
            avail += procs;
            if avail >= need {
                shadow = at;
                extra = avail - need;
                break;
            }
        }
        self.counts.reservations += 1;
        self.counts.commitments += 1;
        let mut i = 1;
        while i < self.queue.len() && self.free > 0 {
            let w = self.queue[i];
            let procs = w.job.procs;
            if procs <= self.free {
                let by_shadow = self.now.saturating_add(w.job.request) <= shadow;
                if by_shadow || u64::from(procs) <= extra {
                    if !by_shadow {
                        extra -= u64::from(procs);
                    }
                    self.queue.remove(i);
                    self.start(w, started)?;
                    continue;
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// A pass of Conservative backfilling: after an early end every reservation is retaken
    /// in queue order, the new jobs get theirs, and the jobs whose time has come start.
    fn conservative<E>(
        &mut self,
        early: bool,
        started: &mut dyn FnMut(u64, JobRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        let now = self.now;
        self.profile.advance(now);
        for w in self.queue.iter_mut() {
            if w.reserved != UNRESERVED {
                if !early || w.reserved == now {
                    continue;
                }
                let end = w.reserved.saturating_add(w.job.request);
                self.profile.give(w.reserved, end, w.job.procs);
            }
            let at = self.profile.earliest(w.job.procs, w.job.request);
            self.profile
                .take(at, at.saturating_add(w.job.request), w.job.procs);
            w.reserved = at;
            self.counts.reservations += 1;
            self.counts.commitments += 1;
        }
        let mut i = 0;
        self.next_reserved = None;
        while i < self.queue.len() {
            let at = self.queue[i].reserved;
            if at <= now {
                let w = self.queue.remove(i).expect("in the queue");
                self.start(w, started)?;
            } else {
                self.next_reserved = Some(self.next_reserved.map_or(at, |n| n.min(at)));
                i += 1;
            }
        }
        Ok(())
    }
}

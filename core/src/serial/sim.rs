//! The serial event loop: completions, then mapping events, at each instant (a task that
//! arrives at an event's instant is in that event).
//!
//! - Immediate mode: one event per arrival, mapping that task, at its arrival or when the
//!   previous event has finished, whichever is later ("delayed" if later).
//! - Batch mode: an event at the trigger (`tasks` arrivals since the last event, or
//!   `interval` since it started), or when the last event has finished if that is later
//!   ("delayed"). It empties every virtual queue, drops the hopeless tasks, and maps the new
//!   tasks with the emptied ones.
//! - An event's decisions take effect at its start; its modelled duration ([`EventCost`])
//!   only delays the next event.
//! - Dropping (§2.4.4): immediate, after the heuristic chose a machine, if the utility of
//!   completing there is below theta; batch, before the heuristic, if the best utility over
//!   every machine, starting after its pending task, is below theta (equal stays).
//! - Results (§2.6.4): completions in `[window.0, window.1)` earn their utility at
//!   completion; events starting in the window are counted; the run stops at `window.1`.
//!
//! The digest hashes every start (task, machine, time) and drop (task, time) in order, then
//! the window's utility and completions.

use super::cost::EventCost;
use super::env::{Mode, SerialConfig, SerialEnv, SerialError, SerialTask, MAX_SERIAL_MACHINES};
use super::grouped;
use super::policy::{self, permute, PolicyState};
use super::queue::{MachineQ, NONE};
use super::two_stage::Scratch;
use super::view::View;
use crate::digest::Digest;
use crate::units::{Micros, Utility};
use heapless::Vec;

/// What became of a task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskOutcome {
    /// Not yet arrived, waiting to be mapped, or queued (pending or virtual) when the run
    /// stopped.
    #[default]
    Waiting,
    /// Dropped at this time.
    Dropped(Micros),
    /// Started on `machine` at `start` (it completes at start + ETC).
    Started {
        /// The machine.
        machine: u16,
        /// When it started.
        start: Micros,
    },
}

/// The storage a run works in, one entry per task (`tree`: two), from the caller.
pub struct SerialStorage<'a> {
    /// What became of each task.
    pub outcome: &'a mut [TaskOutcome],
    /// The virtual queues' links.
    pub link: &'a mut [u32],
    /// A batch's tasks.
    pub slots: &'a mut [u32],
    /// A batch pass's scores.
    pub key: &'a mut [f64],
    /// A batch pass's stage-1 machines.
    pub choice: &'a mut [u16],
    /// A batch pass's per-machine lists.
    pub next: &'a mut [u32],
    /// A batch pass's per-machine lists, backwards.
    pub prev: &'a mut [u32],
    /// A batch pass's tournament tree (twice the tasks).
    pub tree: &'a mut [u32],
    /// Each task's group of tasks of one type and one curve, then a batch pass's per-group
    /// task (twice the tasks).
    pub group: &'a mut [u32],
}

impl SerialStorage<'_> {
    fn fits(&self, n: usize) -> bool {
        self.outcome.len() >= n
            && self.link.len() >= n
            && self.slots.len() >= n
            && self.key.len() >= n
            && self.choice.len() >= n
            && self.next.len() >= n
            && self.prev.len() >= n
            && self.tree.len() >= 2 * n
            && self.group.len() >= 2 * n
    }
}

/// A run's results over the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SerialReport {
    /// Utility of the tasks completed in the window.
    pub utility: Utility,
    /// The part of it earned on special-purpose machines.
    pub utility_special: Utility,
    /// Tasks completed in the window.
    pub completed: u32,
    /// Tasks dropped in the window.
    pub dropped: u32,
    /// Mapping events started in the window.
    pub events: u32,
    /// Of which later than their trigger because the previous event was still running.
    pub delayed_events: u32,
    /// Evaluations (task, machine pairs) of the window's events, as the cost model counts.
    pub evaluations: u64,
    /// The window's events' modelled durations, summed.
    pub event_time: Micros,
    /// The digest of the whole run.
    pub digest: u64,
}

/// A serial run in progress: [`Sim::next_event`] advances to the next mapping event,
/// [`Sim::map`] runs it; [`Sim::run`] does both to the end.
pub struct Sim<'a> {
    env: SerialEnv<'a>,
    tasks: &'a [SerialTask],
    cfg: SerialConfig,
    st: SerialStorage<'a>,
    q: Vec<MachineQ, MAX_SERIAL_MACHINES>,
    policy: PolicyState,
    /// Tasks before this index have been handed to an event.
    mapped: usize,
    /// When the last event finishes, and when it started.
    busy_until: Micros,
    last_start: Micros,
    now: Micros,
    delayed: bool,
    report: SerialReport,
    digest: Digest,
}

impl<'a> Sim<'a> {
    /// A run of `tasks` on `env` under `cfg`, in `storage`.
    pub fn new(
        env: SerialEnv<'a>,
        tasks: &'a [SerialTask],
        cfg: SerialConfig,
        storage: SerialStorage<'a>,
    ) -> Result<Sim<'a>, SerialError> {
        env.check(tasks)?;
        if !storage.fits(tasks.len()) || tasks.len() >= NONE as usize {
            return Err(SerialError::Storage);
        }
        let bad_trigger = cfg.trigger.tasks.is_none() && cfg.trigger.interval.is_none()
            || cfg.trigger.tasks == Some(0)
            || cfg.trigger.interval == Some(Micros::ZERO);
        if !(cfg.theta >= 0.0 && cfg.theta.is_finite())
            || cfg.heuristic == super::env::Heuristic::KBestTypes(0)
            || (cfg.heuristic.mode() == Mode::Batch && bad_trigger)
            || cfg.permute as usize > permute::MAX_PERMUTE
        {
            return Err(SerialError::BadConfig);
        }
        let mut q = Vec::new();
        for _ in 0..env.machine_type.len() {
            let _ = q.push(MachineQ::IDLE);
        }
        for o in storage.outcome[..tasks.len()].iter_mut() {
            *o = TaskOutcome::Waiting;
        }
        grouped::assign_groups(
            tasks,
            cfg.heuristic != super::env::Heuristic::MinMinComp,
            storage.group,
            storage.slots,
        );
        Ok(Sim {
            env,
            tasks,
            policy: PolicyState::new(cfg.seed, env.machine_type.len(), cfg.heuristic),
            cfg,
            st: storage,
            q,
            mapped: 0,
            busy_until: Micros::ZERO,
            last_start: Micros::ZERO,
            now: Micros::ZERO,
            delayed: false,
            report: SerialReport::default(),
            digest: Digest::new(),
        })
    }

    /// Runs to the end of the window and returns the report.
    pub fn run(mut self) -> SerialReport {
        while self.next_event().is_some() {
            self.map();
        }
        self.finish()
    }

    /// What became of each task so far.
    pub fn outcomes(&self) -> &[TaskOutcome] {
        &self.st.outcome[..self.tasks.len()]
    }

    /// The report so far, with the digest of the decisions so far and the ledgers.
    pub fn finish(&self) -> SerialReport {
        let mut d = self.digest;
        d.u64(self.report.utility.0);
        d.u32(self.report.completed);
        SerialReport {
            digest: d.value(),
            ..self.report
        }
    }

    /// When the next mapping event would start, and whether it is delayed; `None` if none is
    /// due.
    fn due(&self) -> Option<(Micros, bool)> {
        let trigger = match self.cfg.heuristic.mode() {
            Mode::Immediate => self.tasks.get(self.mapped)?.arrival,
            Mode::Batch => {
                let by_time = self.cfg.trigger.interval.map(|i| self.last_start + i);
                let by_count = self
                    .cfg
                    .trigger
                    .tasks
                    .and_then(|k| self.tasks.get(self.mapped + k as usize - 1))
                    .map(|t| t.arrival);
                match (by_time, by_count) {
                    (Some(a), Some(b)) => a.min(b),
                    (Some(a), None) | (None, Some(a)) => a,
                    (None, None) => return None,
                }
            }
        };
        Some(if self.busy_until > trigger {
            (self.busy_until, true)
        } else {
            (trigger, false)
        })
    }

    /// Completes every task due before the next mapping event and moves the clock to that
    /// event; `None` once the window has ended.
    pub fn next_event(&mut self) -> Option<Micros> {
        let end = self.cfg.window.1;
        loop {
            let ev = self.due();
            let done = self
                .q
                .iter()
                .filter(|q| q.exec != NONE)
                .map(|q| q.exec_end)
                .min();
            let ev_t = ev.map_or(Micros::MAX, |e| e.0);
            match done {
                Some(t) if t <= ev_t && t < end => self.complete_at(t),
                _ => {
                    let (t, delayed) = ev?;
                    if t >= end {
                        return None;
                    }
                    self.now = t;
                    self.delayed = delayed;
                    return Some(t);
                }
            }
        }
    }

    fn complete_at(&mut self, t: Micros) {
        let (w0, w1) = self.cfg.window;
        for m in 0..self.q.len() {
            let q = &mut self.q[m];
            if q.exec == NONE || q.exec_end != t {
                continue;
            }
            let task = q.exec;
            let u = self.utility(task, t);
            if t >= w0 && t < w1 {
                self.report.utility += u;
                self.report.completed += 1;
                if self.env.is_special(m as u16) {
                    self.report.utility_special += u;
                }
            }
            let (env, tasks) = (self.env, self.tasks);
            let j = env.machine_type[m];
            let etc_of = |x: u32| env.etc(tasks[x as usize].ty, j);
            if let Some(x) = self.q[m].complete(etc_of, self.st.link) {
                self.started(x, m as u16, t);
            }
        }
    }

    fn utility(&self, t: u32, c: Micros) -> Utility {
        let task = &self.tasks[t as usize];
        Utility::from_f64(
            task.curve
                .value_at(c.saturating_sub(task.arrival), self.env.classes)
                .unwrap_or(0.0),
        )
    }

    fn started(&mut self, t: u32, m: u16, at: Micros) {
        self.st.outcome[t as usize] = TaskOutcome::Started {
            machine: m,
            start: at,
        };
        self.digest.u32(t);
        self.digest.u32(m as u32);
        self.digest.u64(at.0);
    }

    fn dropped(&mut self, t: u32) {
        self.st.outcome[t as usize] = TaskOutcome::Dropped(self.now);
        self.digest.u32(t);
        self.digest.u32(u32::MAX);
        self.digest.u64(self.now.0);
        if self.in_window(self.now) {
            self.report.dropped += 1;
        }
    }

    fn in_window(&self, t: Micros) -> bool {
        t >= self.cfg.window.0 && t < self.cfg.window.1
    }

    /// Runs the mapping event at the clock [`Sim::next_event`] moved to.
    pub fn map(&mut self) {
        let evals = match self.cfg.heuristic.mode() {
            Mode::Immediate => self.map_immediate(),
            Mode::Batch => self.map_batch(),
        };
        let d = EventCost::duration(self.cfg.cost, self.cfg.heuristic, evals);
        self.last_start = self.now;
        self.busy_until = self.now.saturating_add(d);
        if self.in_window(self.now) {
            self.report.events += 1;
            self.report.delayed_events += self.delayed as u32;
            self.report.evaluations += evals;
            self.report.event_time += d;
        }
    }

    fn append(&mut self, t: u32, m: u16) {
        let etc = self
            .env
            .etc(self.tasks[t as usize].ty, self.env.machine_type[m as usize]);
        if let Some(s) = self.q[m as usize].append(t, etc, self.now, self.st.link) {
            self.started(t, m, s);
        }
    }

    fn map_immediate(&mut self) -> u64 {
        let t = self.mapped as u32;
        self.mapped += 1;
        let q = &self.q;
        let v = View::new(self.env, self.tasks, self.now, |m| q[m].end);
        let (m, evals) = policy::immediate(self.cfg.heuristic, &v, t, &mut self.policy);
        let Some(m) = m else {
            return evals;
        };
        let keep = self.cfg.theta <= 0.0 || v.utility(t, v.completion(t, m)) >= self.cfg.theta;
        if keep {
            self.append(t, m);
        } else {
            self.dropped(t);
        }
        evals
    }

    fn map_batch(&mut self) -> u64 {
        let (env, tasks, now) = (self.env, self.tasks, self.now);
        // The mappable tasks: every virtual queue, emptied, then the new arrivals.
        let mut n = 0usize;
        for m in 0..self.q.len() {
            let j = env.machine_type[m];
            let slots = &mut *self.st.slots;
            self.q[m].drain(
                self.st.link,
                |x| env.etc(tasks[x as usize].ty, j),
                |x| {
                    slots[n] = x;
                    n += 1;
                },
            );
        }
        while self.mapped < tasks.len() && tasks[self.mapped].arrival <= now {
            self.st.slots[n] = self.mapped as u32;
            n += 1;
            self.mapped += 1;
        }
        self.st.slots[..n].sort_unstable();
        let q = &self.q;
        let mut v = View::new(env, tasks, now, |m| q[m].end);
        let mut evals = 0u64;
        // Dropping: the best utility anywhere, starting after the pending task.
        if self.cfg.theta > 0.0 {
            let mut kept = 0usize;
            for s in 0..n {
                let t = self.st.slots[s];
                evals += v.eligible(t);
                let best = v.min_completion(t).map_or(0.0, |(_, c)| v.utility(t, c));
                if best < self.cfg.theta {
                    self.dropped(t);
                } else {
                    self.st.slots[kept] = t;
                    kept += 1;
                }
            }
            n = kept;
        }
        let (group, group_task) = self.st.group.split_at_mut(tasks.len());
        let mut sc = Scratch {
            slots: self.st.slots,
            key: self.st.key,
            choice: self.st.choice,
            next: self.st.next,
            prev: self.st.prev,
            tree: self.st.tree,
            group,
            group_task,
        };
        let (qs, link, outcome, digest) = (
            &mut self.q,
            &mut *self.st.link,
            &mut *self.st.outcome,
            &mut self.digest,
        );
        let mut emit = |t: u32, m: u16| {
            let etc = env.etc(tasks[t as usize].ty, env.machine_type[m as usize]);
            if let Some(s) = qs[m as usize].append(t, etc, now, link) {
                outcome[t as usize] = TaskOutcome::Started {
                    machine: m,
                    start: s,
                };
                digest.u32(t);
                digest.u32(m as u32);
                digest.u64(s.0);
            }
        };
        evals += policy::batch(self.cfg.heuristic, &mut v, &mut sc, n, &mut emit);
        if self.cfg.permute >= 2 {
            self.permute_heads();
        }
        evals
    }

    /// App. A over every machine's virtual queue.
    fn permute_heads(&mut self) {
        let (env, tasks, now) = (self.env, self.tasks, self.now);
        for m in 0..self.q.len() {
            let j = env.machine_type[m];
            let etc_of = |x: u32| env.etc(tasks[x as usize].ty, j);
            let qm = self.q[m];
            let mut heads = [0u32; permute::MAX_PERMUTE];
            let mut k = 0usize;
            let mut x = qm.head;
            while x != NONE && k < self.cfg.permute as usize {
                heads[k] = x;
                k += 1;
                x = self.st.link[x as usize];
            }
            if k < 2 {
                continue;
            }
            let rest = x;
            let start = {
                let e = qm.unmovable_end(etc_of);
                if e > now {
                    e
                } else {
                    now
                }
            };
            let classes = env.classes;
            permute::best_order(&mut heads[..k], start, etc_of, |t, c| {
                let task = &tasks[t as usize];
                task.curve
                    .value_at(c.saturating_sub(task.arrival), classes)
                    .unwrap_or(0.0)
            });
            for i in 0..k - 1 {
                self.st.link[heads[i] as usize] = heads[i + 1];
            }
            self.st.link[heads[k - 1] as usize] = rest;
            self.q[m].head = heads[0];
            if rest == NONE {
                self.q[m].tail = heads[k - 1];
            }
        }
    }
}

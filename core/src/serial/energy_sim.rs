//! The energy-constrained serial event loop (Chapters 3 and 4): batch mapping events every
//! `interval` (events take no time, §4.5), over (machine, P-state) options, against a daily
//! energy budget.
//!
//! - Days: day 0 is `[0, first_day)` with the budget prorated to its length; day d >= 1 is
//!   `[first_day + (d - 1) day_len, first_day + d day_len)` with the whole budget. Chapter 3:
//!   `first_day` = 24 h (two days, results from the second); Chapter 4: 2 h of warm-up.
//! - The ledger (§3.2.2): a run across a day's edge charges each day its share of its energy,
//!   in integer millijoules (`energy::window_share`). Consumed energy is charged at
//!   completion; the unmovable tasks' (executing, and pending when queued) at each event.
//! - An event (§3.3, §4.3): drain the virtual queues (queued), take the tasks left from the
//!   last event and the postponed ones whose day has come, and the new arrivals; drop those
//!   whose best utility, starting after the unmovable tasks on any machine in P-state 0, is
//!   below theta (ties stay); set the filter's budget; run the heuristic.
//! - Queued: every machine is available, tasks are appended to its queue. Polled: only idle
//!   machines, one task each; a task left unmapped stays mappable.
//! - Postponement (§3.3.1): queued, a task with no valid option (none starts today within
//!   the day's energy) waits for the first event of the next day; one whose every valid
//!   option was filtered stays for the next event.
//! - Results over `[window.0, window.1)`: each task's utility and energy prorated by the part
//!   of its run inside the window (§3.2.2); completions and drops in the window.
//!
//! The digest hashes every start (task, machine, P-state, time) and drop (task, time) in
//! order, then the window's utility and energy.

use super::energy_filter::{FilterState, SerialFilter};
use super::energy_heuristic::{EnergyHeuristic, Normalisers};
use super::energy_policy::{self, EScratch};
use super::env::{SerialEnv, SerialError, SerialTask, MAX_SERIAL_MACHINES};
use super::options::{utility_bounds, NoOption, OptionView};
use super::pstate::{PowerModel, PowerStats};
use super::queue::{MachineQ, NONE};
use super::sim::TaskOutcome;
use crate::digest::Digest;
use crate::energy::window_share;
use crate::units::{CoreMicros, Micros, MilliJoules, Utility};
use crate::utility::prorate;
use heapless::Vec;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// How machines take tasks (§4.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machines {
    /// Each machine has a queue: executing, pending, virtual queue.
    Queued,
    /// Only idle machines are available, one task each per event.
    Polled,
}

/// How an energy-constrained run decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyConfig {
    /// The heuristic.
    pub heuristic: EnergyHeuristic,
    /// The energy filter.
    pub filter: SerialFilter,
    /// Queued or polled.
    pub machines: Machines,
    /// The dropping threshold theta.
    pub theta: f64,
    /// Time between mapping events (1 min).
    pub interval: Micros,
    /// The daily budget E ([`MilliJoules::MAX`]: unconstrained).
    pub budget: MilliJoules,
    /// When day 1 starts (day 0 before it has the budget prorated to its length).
    pub first_day: Micros,
    /// A day's length.
    pub day_len: Micros,
    /// Results are counted in `[window.0, window.1)`; the run stops at `window.1`.
    pub window: (Micros, Micros),
    /// Seeds Random's ChaCha stream.
    pub seed: u64,
}

/// A task's earliest completion at a two-stage pass's last choice for it over every machine
/// type, and its utility there: no later option of the event earns more (the pass's
/// re-choices use it as a cap). A NaN utility: none known.
pub type EnergyCap = (Micros, f64);

/// No [`EnergyCap`] known: storage's initial value.
pub const NO_ENERGY_CAP: EnergyCap = (Micros::MAX, f64::NAN);

/// The storage a run works in, one entry per task (`tree`: two), from the caller.
pub struct EnergyStorage<'a> {
    /// What became of each task.
    pub outcome: &'a mut [TaskOutcome],
    /// The P-state each started or queued task runs in.
    pub pstate: &'a mut [u8],
    /// The day from which a held or postponed task is mappable again.
    pub wait: &'a mut [u16],
    /// The virtual queues' links.
    pub link: &'a mut [u32],
    /// An event's tasks.
    pub slots: &'a mut [u32],
    /// The tasks left unmapped or postponed between events.
    pub pool: &'a mut [u32],
    /// A pass's scores.
    pub key: &'a mut [f64],
    /// A pass's choices.
    pub choice: &'a mut [u32],
    /// A pass's per-machine lists.
    pub next: &'a mut [u32],
    /// A pass's per-machine lists, backwards.
    pub prev: &'a mut [u32],
    /// A pass's tournament tree (twice the tasks).
    pub tree: &'a mut [u32],
    /// A two-stage pass's bound on each task's options per machine type (tasks x machine
    /// types, task-major). Shorter, even empty: an event with more tasks than it holds
    /// chooses again over every type when a task's machine is taken (the same decisions,
    /// more work).
    pub type_bound: &'a mut [f32],
    /// A two-stage pass's cap on each task's utility (one per task: the earliest completion
    /// at its last choice over every type and the utility there, [`EnergyCap`]), kept with
    /// `type_bound`. Shorter, even empty: re-choices go uncapped (the same decisions, more
    /// evaluations of the curves).
    pub cap: &'a mut [EnergyCap],
}

impl EnergyStorage<'_> {
    fn fits(&self, n: usize) -> bool {
        [
            self.outcome.len(),
            self.pstate.len(),
            self.wait.len(),
            self.link.len(),
            self.slots.len(),
            self.pool.len(),
            self.key.len(),
            self.choice.len(),
            self.next.len(),
            self.prev.len(),
        ]
        .iter()
        .all(|&l| l >= n)
            && self.tree.len() >= 2 * n
    }
}

/// A run's results over the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnergyReport {
    /// Utility earned in the window (each run prorated by its part inside).
    pub utility: Utility,
    /// Energy spent in the window.
    pub energy: MilliJoules,
    /// Tasks completed in the window.
    pub completed: u32,
    /// Tasks dropped in the window.
    pub dropped: u32,
    /// Postponements to the next day in the window.
    pub postponed: u32,
    /// Mapping events in the window.
    pub events: u32,
    /// Options the window's events examined.
    pub evaluations: u64,
    /// The largest energy any day spent, and that day's budget (the ledger's invariant:
    /// never above it).
    pub max_day_energy: MilliJoules,
    /// The budget of that day.
    pub max_day_budget: MilliJoules,
    /// The digest of the whole run.
    pub digest: u64,
}

/// An energy-constrained serial run: [`EnergySim::next_event`] advances to the next event,
/// [`EnergySim::map`] runs it; [`EnergySim::run`] does both to the end.
pub struct EnergySim<'a> {
    env: SerialEnv<'a>,
    power: PowerModel<'a>,
    stats: PowerStats,
    norm: Normalisers,
    tasks: &'a [SerialTask],
    cfg: EnergyConfig,
    st: EnergyStorage<'a>,
    q: Vec<MachineQ, MAX_SERIAL_MACHINES>,
    rng: ChaCha8Rng,
    mapped: usize,
    pool_len: usize,
    now: Micros,
    last: Micros,
    /// The ledger's day and the energy its completed runs consumed in it.
    day: u64,
    consumed: MilliJoules,
    report: EnergyReport,
    digest: Digest,
}

impl<'a> EnergySim<'a> {
    /// A run of `tasks` on `env` with P-states `power` under `cfg`, in `storage`.
    pub fn new(
        env: SerialEnv<'a>,
        power: PowerModel<'a>,
        tasks: &'a [SerialTask],
        cfg: EnergyConfig,
        storage: EnergyStorage<'a>,
    ) -> Result<EnergySim<'a>, SerialError> {
        env.check(tasks)?;
        power.check(&env)?;
        if !storage.fits(tasks.len()) || tasks.len() >= NONE as usize {
            return Err(SerialError::Storage);
        }
        let w_ok = |w: f64| w.is_finite() && (0.0..=1.0).contains(&w);
        if !(cfg.theta >= 0.0 && cfg.theta.is_finite() && cfg.filter.is_valid())
            || cfg.heuristic.weight().is_some_and(|w| !w_ok(w))
            || cfg.interval == Micros::ZERO
            || cfg.day_len == Micros::ZERO
            || cfg.window.0 > cfg.window.1
            || (cfg.window.1 .0 - cfg.first_day.0.min(cfg.window.1 .0)) / cfg.day_len.0
                >= u16::MAX as u64 - 1
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
        let stats = power.stats();
        let max_utility = tasks
            .iter()
            .map(|t| t.curve.value_at(Micros::ZERO, env.classes).unwrap_or(0.0))
            .fold(0.0, f64::max);
        let norm = Normalisers {
            max_utility: if max_utility > 0.0 { max_utility } else { 1.0 },
            max_eec_j: stats.max_eec_j,
            min_eec_j: stats.min_eec_j,
            min_etc_s: stats.min_etc_s,
        };
        Ok(EnergySim {
            env,
            power,
            stats,
            norm,
            tasks,
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            cfg,
            st: storage,
            q,
            mapped: 0,
            pool_len: 0,
            now: Micros::ZERO,
            last: Micros::ZERO,
            day: 0,
            consumed: MilliJoules::ZERO,
            report: EnergyReport::default(),
            digest: Digest::new(),
        })
    }

    /// Runs to the end of the window and returns the report.
    pub fn run(mut self) -> EnergyReport {
        while self.next_event().is_some() {
            self.map();
        }
        self.finish()
    }

    /// What became of each task so far.
    pub fn outcomes(&self) -> &[TaskOutcome] {
        &self.st.outcome[..self.tasks.len()]
    }

    /// The P-state of task `t` (meaningful once it started).
    pub fn pstate(&self, t: u32) -> u8 {
        self.st.pstate[t as usize]
    }

    /// The day containing `t`.
    pub fn day_of(&self, t: Micros) -> u64 {
        if t < self.cfg.first_day {
            0
        } else {
            1 + (t - self.cfg.first_day).0 / self.cfg.day_len.0
        }
    }

    /// Day `d`'s bounds and budget.
    pub fn day_bounds(&self, d: u64) -> (Micros, Micros, MilliJoules) {
        let (f, l) = (self.cfg.first_day, self.cfg.day_len);
        if d == 0 {
            let e = if self.cfg.budget == MilliJoules::MAX {
                MilliJoules::MAX
            } else {
                MilliJoules((self.cfg.budget.0 as u128 * f.0 as u128 / l.0 as u128) as u64)
            };
            return (Micros::ZERO, f, e);
        }
        let s = f + Micros(l.0 * (d - 1));
        (s, s + l, self.cfg.budget)
    }

    fn etc_of(&self, t: u32, m: usize) -> Micros {
        let ty = self.tasks[t as usize].ty;
        self.power.etc(
            &self.env,
            ty,
            self.env.machine_type[m],
            self.st.pstate[t as usize],
        )
    }

    fn eec_of(&self, t: u32, m: usize) -> MilliJoules {
        let ty = self.tasks[t as usize].ty;
        self.power.eec(
            &self.env,
            ty,
            self.env.machine_type[m],
            self.st.pstate[t as usize],
        )
    }

    /// Task `t`'s machine and run `[start, end)`, if it started: what a machine's busy (and
    /// so idle) time is summed from (Ch. 4, "polled ... despite more idle time").
    pub fn task_run(&self, t: u32) -> Option<(u16, Micros, Micros)> {
        let TaskOutcome::Started { machine, start } = self.st.outcome[t as usize] else {
            return None;
        };
        Some((machine, start, start + self.etc_of(t, machine as usize)))
    }

    /// Task `t`'s utility and energy inside `[w0, w1)`, if it started (prorated by the part
    /// of its run inside), and whether it completed inside.
    pub fn task_share(
        &self,
        t: u32,
        w0: Micros,
        w1: Micros,
    ) -> Option<(Utility, MilliJoules, bool)> {
        let TaskOutcome::Started { machine, start } = self.st.outcome[t as usize] else {
            return None;
        };
        let m = machine as usize;
        let end = start + self.etc_of(t, m);
        let task = &self.tasks[t as usize];
        let u = task
            .curve
            .value_at(end.saturating_sub(task.arrival), self.env.classes)
            .unwrap_or(0.0);
        Some((
            prorate(Utility::from_f64(u), start, end, w0, w1),
            window_share(self.eec_of(t, m), start, end, w0, w1),
            end >= w0 && end < w1,
        ))
    }

    /// The cumulative utility and energy from the window's start to each of `out.len()`
    /// points `step` apart (the first at `window.0 + step`); a run cut by a point counts its
    /// part before it (Figs. 3.7, 3.10-3.13, 4.6).
    pub fn trace(&self, step: Micros, out: &mut [(Utility, MilliJoules)]) {
        let (w0, w1) = self.cfg.window;
        for o in out.iter_mut() {
            *o = (Utility::ZERO, MilliJoules::ZERO);
        }
        for t in 0..self.tasks.len() as u32 {
            let TaskOutcome::Started { machine, start } = self.st.outcome[t as usize] else {
                continue;
            };
            let m = machine as usize;
            let end = start + self.etc_of(t, m);
            if end <= w0 && start < w0 {
                continue;
            }
            let task = &self.tasks[t as usize];
            let u = Utility::from_f64(
                task.curve
                    .value_at(end.saturating_sub(task.arrival), self.env.classes)
                    .unwrap_or(0.0),
            );
            let e = self.eec_of(t, m);
            for (i, o) in out.iter_mut().enumerate() {
                let p = w0.saturating_add(Micros(step.0.saturating_mul(i as u64 + 1)));
                let p = if p < w1 { p } else { w1 };
                o.0 += prorate(u, start, end, w0, p);
                o.1 += window_share(e, start, end, w0, p);
            }
        }
    }

    /// The report: the window's ledgers from every started task, the largest day's energy,
    /// and the digest of the decisions so far and the ledgers.
    pub fn finish(&self) -> EnergyReport {
        let (w0, w1) = self.cfg.window;
        let mut r = self.report;
        r.utility = Utility::ZERO;
        r.energy = MilliJoules::ZERO;
        r.completed = 0;
        for t in 0..self.tasks.len() as u32 {
            if let Some((u, e, done)) = self.task_share(t, w0, w1) {
                r.utility += u;
                r.energy += e;
                r.completed += done as u32;
            }
        }
        // Every day the run touched, each from every started task (days are few).
        let last = self.day_of(if w1 > Micros::ZERO {
            w1 - Micros(1)
        } else {
            w1
        });
        for d in 0..=last {
            let (s, e, b) = self.day_bounds(d);
            let mut sum = MilliJoules::ZERO;
            for t in 0..self.tasks.len() as u32 {
                if let Some((_, x, _)) = self.task_share(t, s, e) {
                    sum += x;
                }
            }
            if sum >= r.max_day_energy {
                r.max_day_energy = sum;
                r.max_day_budget = b;
            }
        }
        let mut d = self.digest;
        d.u64(r.utility.0);
        d.u64(r.energy.0);
        r.digest = d.value();
        r
    }

    /// Completes every task due before the next event and moves the clock to it; `None`
    /// once the window has ended.
    pub fn next_event(&mut self) -> Option<Micros> {
        let ev = self.last.saturating_add(self.cfg.interval);
        let end = self.cfg.window.1;
        loop {
            let done = self
                .q
                .iter()
                .filter(|q| q.exec != NONE)
                .map(|q| q.exec_end)
                .min();
            match done {
                Some(t) if t <= ev && t < end => self.complete_at(t),
                _ => break,
            }
        }
        if ev >= end {
            return None;
        }
        self.now = ev;
        self.roll(ev);
        Some(ev)
    }

    /// Moves the ledger to the day of `t`.
    fn roll(&mut self, t: Micros) {
        let d = self.day_of(t);
        if d > self.day {
            self.day = d;
            self.consumed = MilliJoules::ZERO;
        }
    }

    fn complete_at(&mut self, t: Micros) {
        self.roll(t);
        let (ds, de, _) = self.day_bounds(self.day);
        for m in 0..self.q.len() {
            if self.q[m].exec == NONE || self.q[m].exec_end != t {
                continue;
            }
            let x = self.q[m].exec;
            let etc = self.etc_of(x, m);
            let share = window_share(self.eec_of(x, m), t - etc, t, ds, de);
            self.consumed += share;
            let (env, tasks, power, ps) = (self.env, self.tasks, self.power, &*self.st.pstate);
            let j = env.machine_type[m];
            let etc_of = |y: u32| power.etc(&env, tasks[y as usize].ty, j, ps[y as usize]);
            if let Some(y) = self.q[m].complete(etc_of, self.st.link) {
                self.started(y, m as u16, t);
            }
        }
    }

    fn started(&mut self, t: u32, m: u16, at: Micros) {
        self.st.outcome[t as usize] = TaskOutcome::Started {
            machine: m,
            start: at,
        };
        self.digest.u32(t);
        self.digest.u32(m as u32);
        self.digest.u32(self.st.pstate[t as usize] as u32);
        self.digest.u64(at.0);
    }

    fn in_window(&self, t: Micros) -> bool {
        t >= self.cfg.window.0 && t < self.cfg.window.1
    }

    /// Runs the mapping event at the clock [`EnergySim::next_event`] moved to.
    pub fn map(&mut self) {
        let (env, tasks, power, now) = (self.env, self.tasks, self.power, self.now);
        self.last = now;
        let (ds, de, budget) = self.day_bounds(self.day);
        let (_, nde, next_budget) = self.day_bounds(self.day + 1);
        // The mappable tasks: the virtual queues, the pool's due tasks, the new arrivals.
        let mut n = 0usize;
        for m in 0..self.q.len() {
            let j = env.machine_type[m];
            let (slots, ps) = (&mut *self.st.slots, &*self.st.pstate);
            let etc_of = |y: u32| power.etc(&env, tasks[y as usize].ty, j, ps[y as usize]);
            self.q[m].drain(self.st.link, etc_of, |y| {
                slots[n] = y;
                n += 1;
            });
        }
        let mut kept = 0usize;
        for i in 0..self.pool_len {
            let t = self.st.pool[i];
            if self.st.wait[t as usize] as u64 <= self.day {
                self.st.slots[n] = t;
                n += 1;
            } else {
                self.st.pool[kept] = t;
                kept += 1;
            }
        }
        self.pool_len = kept;
        while self.mapped < tasks.len() && tasks[self.mapped].arrival <= now {
            self.st.slots[n] = self.mapped as u32;
            n += 1;
            self.mapped += 1;
        }
        self.st.slots[..n].sort_unstable();
        // The unmovable tasks' energy today and tomorrow, and each machine's availability.
        let polled = self.cfg.machines == Machines::Polled;
        let mut spent = self.consumed;
        let mut spent_next = MilliJoules::ZERO;
        let mut unmov_end = [Micros::ZERO; MAX_SERIAL_MACHINES];
        let mut time_left = 0u128;
        for (m, (&qm, ue)) in self.q.iter().zip(unmov_end.iter_mut()).enumerate() {
            let mut end = now;
            if qm.exec != NONE {
                let e = self.eec_of(qm.exec, m);
                let s = qm.exec_end - self.etc_of(qm.exec, m);
                spent += window_share(e, s, qm.exec_end, ds, de);
                spent_next += window_share(e, s, qm.exec_end, de, nde);
                end = end.max(qm.exec_end);
                if qm.pending != NONE {
                    let e = self.eec_of(qm.pending, m);
                    let pe = qm.exec_end + self.etc_of(qm.pending, m);
                    spent += window_share(e, qm.exec_end, pe, ds, de);
                    spent_next += window_share(e, qm.exec_end, pe, de, nde);
                    end = end.max(pe);
                }
            }
            *ue = end;
            time_left += de.saturating_sub(end).0 as u128;
        }
        // Dropping: the best utility on any machine in P-state 0, after the unmovable tasks.
        let mut evals = 0u64;
        if self.cfg.theta > 0.0 {
            let mut type_ready = [Micros::MAX; super::env::MAX_SERIAL_MACHINE_TYPES];
            for (&j, &ue) in env.machine_type.iter().zip(unmov_end.iter()) {
                let j = j as usize;
                type_ready[j] = type_ready[j].min(ue);
            }
            let mut kept = 0usize;
            for s in 0..n {
                let t = self.st.slots[s];
                let task = &tasks[t as usize];
                let theta = self.cfg.theta;
                let mut best = 0.0f64;
                for j in 0..env.machine_types {
                    let etc = env.etc(task.ty, j);
                    if etc == Micros::MAX || type_ready[j as usize] == Micros::MAX {
                        continue;
                    }
                    evals += 1;
                    // Only whether the best reaches theta matters: once it does, and for a
                    // type whose curve's bounds there already decide, no `exp`.
                    if best >= theta {
                        continue;
                    }
                    let c = type_ready[j as usize].saturating_add(etc);
                    let age = c.saturating_sub(task.arrival);
                    let (lo, hi) = utility_bounds(&task.curve, env.classes, age);
                    if lo >= theta {
                        best = lo;
                        continue;
                    }
                    if hi < theta {
                        continue;
                    }
                    let u = task.curve.value_at(age, env.classes).unwrap_or(0.0);
                    best = best.max(u);
                }
                if best < theta {
                    self.st.outcome[t as usize] = TaskOutcome::Dropped(now);
                    self.digest.u32(t);
                    self.digest.u32(u32::MAX);
                    self.digest.u64(now.0);
                    if self.in_window(now) {
                        self.report.dropped += 1;
                    }
                } else {
                    self.st.slots[kept] = t;
                    kept += 1;
                }
            }
            n = kept;
        }
        let fs = FilterState {
            budget,
            spent,
            time_remaining: CoreMicros(time_left),
            day_time: CoreMicros(self.q.len() as u128 * (de - ds).0 as u128),
        };
        let q = &self.q;
        let mut v = OptionView::new(env, power, tasks, self.norm, (ds, de), nde, polled, |m| {
            if polled {
                if q[m].exec == NONE {
                    now
                } else {
                    Micros::MAX
                }
            } else {
                unmov_end[m]
            }
        });
        v.left_today = budget.saturating_sub(spent);
        v.left_tomorrow = next_budget.saturating_sub(spent_next);
        v.set_filter_budget(self.cfg.filter.budget_j(&fs, &self.stats));
        let day = self.day;
        let in_window = self.in_window(now);
        let mut sc = EScratch {
            slots: self.st.slots,
            key: self.st.key,
            choice: self.st.choice,
            next: self.st.next,
            prev: self.st.prev,
            tree: self.st.tree,
            bounds: self.st.type_bound,
            caps: self.st.cap,
        };
        let (qs, link, outcome, pstate, wait, pool, digest) = (
            &mut self.q,
            &mut *self.st.link,
            &mut *self.st.outcome,
            &mut *self.st.pstate,
            &mut *self.st.wait,
            &mut *self.st.pool,
            &mut self.digest,
        );
        let pool_len = &mut self.pool_len;
        let mut postponed = 0u32;
        let mut out = |t: u32, d: energy_policy::Decision| match d {
            Ok(o) => {
                pstate[t as usize] = o.k;
                let etc = power.etc(
                    &env,
                    tasks[t as usize].ty,
                    env.machine_type[o.m as usize],
                    o.k,
                );
                if let Some(s) = qs[o.m as usize].append(t, etc, now, link) {
                    outcome[t as usize] = TaskOutcome::Started {
                        machine: o.m,
                        start: s,
                    };
                    digest.u32(t);
                    digest.u32(o.m as u32);
                    digest.u32(o.k as u32);
                    digest.u64(s.0);
                }
            }
            Err(why) => {
                let later = !polled && why == NoOption::Invalid;
                postponed += later as u32;
                wait[t as usize] = (day + later as u64) as u16;
                pool[*pool_len] = t;
                *pool_len += 1;
            }
        };
        evals += energy_policy::run(
            self.cfg.heuristic,
            &mut v,
            &mut sc,
            n,
            &mut self.rng,
            &mut out,
        );
        if in_window {
            self.report.events += 1;
            self.report.evaluations += evals;
            self.report.postponed += postponed;
        }
    }
}

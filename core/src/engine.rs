//! The event loop: drives arrivals, completions and mapping events through a [`Controller`]
//! and yields the ledgers, the counts and the digest. Every caller runs it: the firmware,
//! `kairos run`, `kairos replay` on SWF traces, seed 001's experiments and the benchmarks'
//! driver.
//!
//! Data flows one way: tasks come in from the caller (an iterator, or one [`Engine::arrive`]
//! at a time), the engine hands each event to the controller, and the controller's decisions
//! go out to an [`Observer`] and into the digest. The engine owns only what the controller
//! does not: the pending completions, when the next mapping event is due, and the report's
//! tallies.
//!
//! Events at the same instant run in a fixed order: completions (nodes freed at `t` are
//! usable at `t`), then arrivals (a task arriving at `t` is mappable at `t`), then the
//! mapping event. Completions wait in the core's heap (`heap.rs`) over the caller's
//! buffer, ordered by (time, task). An entry is live while its task runs or holds a
//! reservation and still has the assignment the entry was queued for (its sequence number);
//! one whose task was since re-placed (EASY recomputes its reservation, Conservative
//! compresses) is stale and skipped. A task committed again to the same end needs no second
//! entry: with a table of each task's latest pending end ([`Engine::with_pending_ends`]) the
//! engine keeps the entry it has, live for any assignment of the task that ends then.
//!
//! [`run`] loops to the end. A caller that needs to stop between events (the benchmarks stop
//! just before a mapping event and copy the run) or to bring events of its own (a completion
//! reported early) steps an [`Engine`] instead: [`Engine::next_event`] says what comes next,
//! and [`Engine::complete_next`], [`Engine::complete`], [`Engine::arrive`] and
//! [`Engine::map`] do one event each; [`Engine::finish`] yields the report.
//!
//! After the horizon no task arrives and no mapping event runs, but the tasks already
//! started run to their end, so that their share of utility and energy inside the day is
//! counted (seed 000 §II.D); they count as unfinished.

use crate::controller::Controller;
use crate::digest::Digest;
use crate::error::{full, Capacity, Error, InputError};
use crate::heap::{Heap, Order};
use crate::plan::{Decision, DecisionKind, TaskState};
use crate::task::{Task, TaskId};
use crate::units::{Micros, MilliJoules, Utility};
use crate::utility::prorate;
use serde::{Deserialize, Serialize};

/// A pending completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pending {
    /// When the task ends: its assignment's start plus its real run time.
    pub at: Micros,
    /// The task.
    pub task: TaskId,
    /// The sequence number of the assignment it was queued for.
    pub seq: u32,
}

/// The order of the pending heap: by time, then task. Entries of one task at one time differ
/// only in which is stale, so the sequence number only makes the order total.
struct DueFirst;

impl Order<Pending> for DueFirst {
    #[inline]
    fn before(&self, a: &Pending, b: &Pending) -> bool {
        (a.at, a.task, a.seq) < (b.at, b.task, b.seq)
    }
}

/// No pending end (in the table of [`Engine::with_pending_ends`]).
const NO_END: Micros = Micros::MAX;

/// What a run yields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Report {
    /// Utility earned inside the day.
    pub utility: Utility,
    /// The most the day could earn: every arrival started at arrival on its fastest option,
    /// prorated to the day.
    pub max_utility: Utility,
    /// Energy consumed inside the day.
    pub energy: MilliJoules,
    /// Tasks that arrived.
    pub arrived: u32,
    /// Tasks completed by the horizon.
    pub completed: u32,
    /// Tasks dropped.
    pub dropped: u32,
    /// Tasks neither completed by the horizon nor dropped.
    pub unfinished: u32,
    /// Mapping events run.
    pub mapping_events: u32,
    /// Start and reserve decisions.
    pub commitments: u32,
    /// The digest of the ordered decisions and the final ledgers.
    pub digest: u64,
}

impl Report {
    /// The report with its digest: `decisions` (the digest of the ordered decisions) folded
    /// with the day's final ledgers and counts. The one formula for a day's digest: the engine
    /// ends with it, and so does the host's live driver, which runs the same day over the
    /// serial link and must give the same digest.
    pub fn sealed(self, decisions: Digest) -> Report {
        let mut digest = decisions;
        digest.u64(self.utility.0);
        digest.u64(self.energy.0);
        digest.u32(self.completed);
        digest.u32(self.dropped);
        digest.u32(self.unfinished);
        digest.u32(self.mapping_events);
        Report {
            digest: digest.value(),
            ..self
        }
    }
}

/// Hooks for a caller that watches a run (timing, logging, trace records). All do nothing by
/// default.
pub trait Observer {
    /// Just before a mapping event.
    fn before_mapping(&mut self, _now: Micros) {}
    /// Just after a mapping event, with the controller's state and the decisions it made.
    fn after_mapping(&mut self, _now: Micros, _ctl: &Controller<'_>, _decisions: u32) {}
    /// Every decision, in order.
    fn on_decision(&mut self, _d: &Decision) {}
    /// A task arrived and got its id (the controller has queued it).
    fn on_arrival(&mut self, _task: TaskId, _at: Micros) {}
    /// A task completed at `at` (the controller has settled it).
    fn on_completion(&mut self, _task: TaskId, _at: Micros) {}
}

/// An observer that watches nothing.
pub struct NoObserver;
impl Observer for NoObserver {}

/// When mapping events happen.
///
/// Its encoding is part of the firmware's embedded scenarios ([`crate::packed`]): a field
/// added here is skipped by the encoding, with a default that keeps an encoded schedule's
/// meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Schedule {
    /// A mapping event every this long, from time zero (seed 000: 60 s; zero means 60 s).
    pub interval: Micros,
    /// Also run one right after every completion, on time or early (trace replay: a job that
    /// ends frees its nodes for the queue at once).
    pub on_completion: bool,
    /// Also run one at every arrival (trace replay schedules on submit).
    pub on_arrival: bool,
    /// Whether the periodic events run at all; without them only completions and arrivals
    /// call for mapping events. Not encoded: every encoded schedule is periodic.
    #[serde(skip, default = "periodic")]
    pub periodic: bool,
}

/// The default of [`Schedule::periodic`] for a decoded schedule.
fn periodic() -> bool {
    true
}

impl Schedule {
    /// A mapping event every `interval` from time zero, and at no other time.
    pub const fn every(interval: Micros) -> Schedule {
        Schedule {
            interval,
            on_completion: false,
            on_arrival: false,
            periodic: true,
        }
    }

    /// A mapping event at every instant where a task completes or arrives, after all of that
    /// instant's completions and arrivals, and at no other time (SWF trace replay).
    pub const fn on_events() -> Schedule {
        Schedule {
            interval: Micros::ZERO,
            on_completion: true,
            on_arrival: true,
            periodic: false,
        }
    }

    /// Whether this schedule's periodic mapping events over a day ending at `day_end` stay
    /// within [`MIN_MAPPING_INTERVAL_US`](crate::limits::MIN_MAPPING_INTERVAL_US) and
    /// [`MAX_PERIODIC_MAPPINGS`](crate::limits::MAX_PERIODIC_MAPPINGS): what decoded input
    /// (an encoded scenario) must pass before it is run.
    pub fn check(&self, day_end: Micros) -> Result<(), InputError> {
        if !self.periodic {
            return Ok(());
        }
        let interval = match self.interval {
            Micros::ZERO => Micros::MINUTE,
            i => i,
        };
        if interval.0 < crate::limits::MIN_MAPPING_INTERVAL_US
            || day_end.0 / interval.0 > crate::limits::MAX_PERIODIC_MAPPINGS
        {
            return Err(InputError::BadSchedule);
        }
        Ok(())
    }
}

/// What an [`Engine`] does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Event {
    /// The earliest pending completion comes up at this time ([`Engine::complete_next`];
    /// it may turn out stale).
    Completion(Micros),
    /// The next task arrives at this time ([`Engine::arrive`]).
    Arrival(Micros),
    /// A mapping event is due at this time ([`Engine::map`]).
    Mapping(Micros),
}

impl Event {
    /// When it happens.
    pub fn at(self) -> Micros {
        match self {
            Event::Completion(t) | Event::Arrival(t) | Event::Mapping(t) => t,
        }
    }
}

/// The event loop, one event at a time, over a caller's buffer of pending completions.
///
/// The buffer needs room for twice the tasks (plus a little): the live entries, at most one a
/// task, the stale ones not yet cleared, and one mapping event's commitments staged past
/// them; stale entries are cleared before they fill half of it.
pub struct Engine<'b> {
    pending: Heap<'b, Pending, DueFirst>,
    /// Per task, the end of its latest pending entry ([`NO_END`]: none); empty without one.
    ends: &'b mut [Micros],
    schedule: Schedule,
    /// The periodic interval (the schedule's, or 60 s for zero).
    interval: Micros,
    /// The next periodic mapping event.
    next_map: Micros,
    /// A completion or an arrival asked for a mapping event at the current time.
    map_now: bool,
    /// Entries left live by the last clearing of stale ones.
    live: usize,
    digest: Digest,
    max_utility: Utility,
    commitments: u32,
    completed: u32,
}

/// Pending entries beyond twice the live ones before stale ones are cleared.
const CLEAR_SLACK: usize = 64;

impl<'b> Engine<'b> {
    /// An engine at time zero that maps on `schedule`, keeping its pending completions in
    /// `pending`.
    pub fn new(schedule: Schedule, pending: &'b mut [Pending]) -> Engine<'b> {
        Engine {
            pending: Heap::new(pending, DueFirst),
            ends: &mut [],
            schedule,
            interval: if schedule.interval == Micros::ZERO {
                Micros::MINUTE
            } else {
                schedule.interval
            },
            next_map: Micros::ZERO,
            map_now: false,
            live: 0,
            digest: Digest::new(),
            max_utility: Utility::ZERO,
            commitments: 0,
            completed: 0,
        }
    }

    /// With `ends` (an entry a task) for the table of each task's latest pending end, so that
    /// a task committed again to the same end is queued once; give it before the first event.
    /// A cache only: the events and decisions are the same without it, and a task past the
    /// table's length is queued at every commitment.
    pub fn with_pending_ends(mut self, ends: &'b mut [Micros]) -> Engine<'b> {
        ends.fill(NO_END);
        self.ends = ends;
        self
    }

    /// A copy of this engine over `pending` and `ends` (at least as many entries as this
    /// one's), to continue a copied run ([`Controller::clone_into`]) apart from the original.
    pub fn clone_into<'c>(
        &self,
        pending: &'c mut [Pending],
        ends: &'c mut [Micros],
    ) -> Result<Engine<'c>, Error> {
        if pending.len() < self.pending.len() {
            return Err(full(Capacity::Pending, pending.len()).into());
        }
        // An entry kept for a later assignment is live only by the table's say-so.
        let Some(table) = ends.get_mut(..self.ends.len()) else {
            return Err(full(Capacity::Pending, ends.len()).into());
        };
        table.copy_from_slice(self.ends);
        ends[self.ends.len()..].fill(NO_END);
        let mut copy = Engine {
            pending: Heap::new(pending, DueFirst),
            ends,
            schedule: self.schedule,
            interval: self.interval,
            next_map: self.next_map,
            map_now: self.map_now,
            live: self.live,
            digest: self.digest,
            max_utility: self.max_utility,
            commitments: self.commitments,
            completed: self.completed,
        };
        // Pushed in heap order, every entry stays where it was.
        for &p in self.pending.as_slice() {
            copy.pending
                .push(p)
                .map_err(|_| full(Capacity::Pending, copy.pending.capacity()))?;
        }
        Ok(copy)
    }

    /// What comes next, given the time of the next task's arrival (`None`: no more tasks);
    /// `None` when the day is over (only [`Engine::finish`] is left).
    #[inline]
    pub fn next_event(&self, ctl: &Controller<'_>, arrival: Option<Micros>) -> Option<Event> {
        let horizon = ctl.config().day_end;
        // Completions first, then arrivals, then mapping events: a later kind goes first
        // only by coming strictly earlier.
        let mut next = self.pending.peek().map(|p| Event::Completion(p.at));
        let sooner = |t: Micros, next: Option<Event>| next.is_none_or(|e| t < e.at());
        if let Some(a) = arrival.filter(|&a| a < horizon) {
            if sooner(a, next) {
                next = Some(Event::Arrival(a));
            }
        }
        let periodic = (self.schedule.periodic && self.next_map < horizon).then_some(self.next_map);
        // A mapping event asked for by a completion or an arrival runs at once.
        let asked = self.map_now.then(|| ctl.now());
        if let Some(m) = periodic.into_iter().chain(asked).min() {
            if sooner(m, next) {
                next = Some(Event::Mapping(m));
            }
        }
        next
    }

    /// Takes out the earliest pending completion and, unless it is stale, completes its task.
    pub fn complete_next<O: Observer + ?Sized>(
        &mut self,
        ctl: &mut Controller<'_>,
        observer: &mut O,
    ) -> Result<(), Error> {
        match self.pop(ctl) {
            Some((p, true)) => self.complete(ctl, p.task, p.at, observer).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// Takes out the earliest pending entry. Whether it was live is read before the table
    /// forgets it.
    fn pop(&mut self, ctl: &Controller<'_>) -> Option<(Pending, bool)> {
        let p = self.pending.pop()?;
        let live = self.is_live(ctl, &p);
        if let Some(e) = self.ends.get_mut(p.task.0 as usize) {
            if *e == p.at {
                *e = NO_END;
            }
        }
        Some((p, live))
    }

    /// Whether `p` is still due ([`is_live`], with this engine's table of pending ends).
    fn is_live(&self, ctl: &Controller<'_>, p: &Pending) -> bool {
        is_live(ctl, p, self.ends.get(p.task.0 as usize).copied())
    }

    /// Task `task` completed at `at`, before its pending completion (a live system's task
    /// that ends early); that entry goes stale. Returns the utility earned.
    pub fn complete<O: Observer + ?Sized>(
        &mut self,
        ctl: &mut Controller<'_>,
        task: TaskId,
        at: Micros,
        observer: &mut O,
    ) -> Result<Utility, Error> {
        let earned = ctl.on_completion(task, at)?;
        let horizon = ctl.config().day_end;
        if at <= horizon {
            self.completed += 1;
        }
        if self.schedule.on_completion && at < horizon {
            self.map_now = true;
        }
        observer.on_completion(task, at);
        Ok(earned)
    }

    /// `task` arrives (at its arrival time, not before the last event).
    #[inline]
    pub fn arrive<O: Observer + ?Sized>(
        &mut self,
        ctl: &mut Controller<'_>,
        task: Task,
        observer: &mut O,
    ) -> Result<TaskId, Error> {
        // Every arrival's best case, prorated to the day like earned utility, so that the
        // maximum bounds what the day can earn (warm-up arrivals earn inside it too).
        self.max_utility += best_case(ctl, &task)?;
        let at = task.arrival;
        let id = ctl.on_arrival(task)?;
        if self.schedule.on_arrival {
            self.map_now = true;
        }
        observer.on_arrival(id, at);
        Ok(id)
    }

    /// Runs a mapping event at `now` (the time [`Engine::next_event`] gave) and queues the
    /// completions of its commitments. The next periodic event comes an interval after it.
    pub fn map<O: Observer + ?Sized>(
        &mut self,
        ctl: &mut Controller<'_>,
        now: Micros,
        observer: &mut O,
    ) -> Result<(), Error> {
        self.map_now = false;
        if self.schedule.periodic && now >= self.next_map {
            self.next_map = now + self.interval;
        }
        observer.before_mapping(now);
        // Stale entries are cleared once they could outnumber the live ones (a shallow heap
        // pops cheaply; the clearing costs a pass over the entries, paid for by the pushes
        // since the last one), and before they could fill half the buffer: live entries
        // never outnumber the tasks, so that leaves the free tail for this event's staging.
        let len = self.pending.len();
        if len >= self.pending.capacity() / 2 || len >= 2 * self.live + CLEAR_SLACK {
            let ends = &mut *self.ends;
            self.pending.retain(|p| {
                let end = ends.get_mut(p.task.0 as usize);
                let live = is_live(ctl, p, end.as_deref().copied());
                match end {
                    Some(e) if !live && *e == p.at => *e = NO_END,
                    _ => {}
                }
                live
            });
            self.live = self.pending.len();
        }
        let mut n = 0u32;
        let mut staged = 0usize;
        let mut overflow = false;
        {
            // The sink cannot reach the controller (it is deciding), so commitments are
            // staged in the buffer's free tail and given their real end after the event.
            let (digest, commitments) = (&mut self.digest, &mut self.commitments);
            let spare = self.pending.spare();
            let mut record = |d: &Decision| {
                n += 1;
                observer.on_decision(d);
                if d.kind != DecisionKind::PlaceHold {
                    digest.decision(d);
                }
                if matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
                    *commitments += 1;
                    match spare.get_mut(staged) {
                        Some(slot) => {
                            slot.task = d.task;
                            staged += 1;
                        }
                        None => overflow = true,
                    }
                }
            };
            ctl.on_mapping_event(now, &mut record)?;
        }
        if overflow {
            return Err(full(Capacity::Pending, self.pending.capacity()).into());
        }
        let mut queued = 0;
        for s in 0..staged {
            // The spare part loses its first entry to each push, so staged entry `s` sits
            // `queued` entries nearer its start.
            let id = self.pending.spare()[s - queued].task;
            let slot = ctl.task(id).ok_or(InputError::UnknownTask(id.0))?;
            let a = slot.assignment.ok_or(InputError::BadTaskState(id.0))?;
            // A trace job ends at its real run time, not at its planned (requested) one.
            let at = a.start + slot.task.run_time(a.end - a.start);
            if let Some(e) = self.ends.get_mut(id.0 as usize) {
                if *e == at {
                    // Already pending: a reservation retaken at the same place.
                    continue;
                }
                *e = at;
            }
            self.pending
                .push(Pending {
                    at,
                    task: id,
                    seq: a.seq,
                })
                .map_err(|_| full(Capacity::Pending, self.pending.capacity()))?;
            queued += 1;
        }
        observer.after_mapping(now, ctl, n);
        Ok(())
    }

    /// Lets the tasks still pending run to their end and yields the report.
    pub fn finish<O: Observer + ?Sized>(
        mut self,
        ctl: &mut Controller<'_>,
        observer: &mut O,
    ) -> Result<Report, Error> {
        while let Some((p, live)) = self.pop(ctl) {
            if live {
                self.complete(ctl, p.task, p.at, observer)?;
            }
        }
        let counts = ctl.counts();
        let completed = self.completed;
        let report = Report {
            utility: ctl.utility(),
            max_utility: self.max_utility,
            energy: ctl.ledger().consumed(),
            arrived: counts.arrived,
            completed,
            dropped: counts.dropped,
            unfinished: counts.arrived - completed - counts.dropped,
            mapping_events: counts.mapping_events,
            commitments: self.commitments,
            digest: 0,
        };
        Ok(report.sealed(self.digest))
    }

    /// Runs `tasks` (in arrival order; the ones not yet arrived) until the horizon, lets the
    /// started tasks finish and yields the report.
    pub fn run<I, O>(
        mut self,
        ctl: &mut Controller<'_>,
        tasks: I,
        observer: &mut O,
    ) -> Result<Report, Error>
    where
        I: IntoIterator<Item = Result<Task, Error>>,
        O: Observer + ?Sized,
    {
        let mut tasks = tasks.into_iter();
        // The next task, taken out ahead to know when it arrives.
        let mut upcoming = tasks.next();
        loop {
            let arrival = match &upcoming {
                Some(Ok(t)) => Some(t.arrival),
                // A task that failed to decode fails the run at once.
                Some(Err(e)) => return Err(*e),
                None => None,
            };
            match self.next_event(ctl, arrival) {
                None => break,
                Some(Event::Completion(_)) => self.complete_next(ctl, observer)?,
                Some(Event::Arrival(_)) => {
                    if let Some(Ok(task)) = upcoming {
                        self.arrive(ctl, task, observer)?;
                    }
                    upcoming = tasks.next();
                }
                Some(Event::Mapping(t)) => self.map(ctl, t, observer)?,
            }
        }
        self.finish(ctl, observer)
    }
}

/// Runs `tasks` (in arrival order) through `ctl` until the horizon (the day's end), mapping
/// on `schedule`, with `pending` for the pending completions (twice the tasks).
pub fn run<I, O>(
    ctl: &mut Controller<'_>,
    tasks: I,
    schedule: Schedule,
    pending: &mut [Pending],
    observer: &mut O,
) -> Result<Report, Error>
where
    I: IntoIterator<Item = Result<Task, Error>>,
    O: Observer + ?Sized,
{
    Engine::new(schedule, pending).run(ctl, tasks, observer)
}

/// Whether a pending completion is still due: its task runs or holds a reservation, with the
/// assignment the entry was queued for or, when `end` (the task's latest pending end, with a
/// table of them) says this entry was kept for a later one, with one that ends then.
fn is_live(ctl: &Controller<'_>, p: &Pending, end: Option<Micros>) -> bool {
    let Some(slot) = ctl.task(p.task) else {
        return false;
    };
    matches!(slot.state, TaskState::Running | TaskState::Reserved)
        && slot.assignment.is_some_and(|a| {
            a.seq == p.seq
                || (end == Some(p.at) && a.start + slot.task.run_time(a.end - a.start) == p.at)
        })
}

/// The utility `task` would earn started at its arrival on its fastest option, prorated to
/// the day: its share of the day's maximum utility.
fn best_case(ctl: &Controller<'_>, task: &Task) -> Result<Utility, Error> {
    let Some((_, d)) = task.fastest(ctl.platform()) else {
        return Ok(Utility::ZERO);
    };
    let value = task.curve.value_at(d, ctl.classes())?;
    let cfg = ctl.config();
    Ok(prorate(
        Utility::from_f64(value),
        task.arrival,
        task.arrival.saturating_add(d),
        cfg.day_start,
        cfg.day_end,
    ))
}

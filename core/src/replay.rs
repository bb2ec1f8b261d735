//! The replay engine: drives a scenario's arrivals, mapping events and completions through a
//! [`Controller`] and yields the ledgers, the counts and the digest.
//!
//! Events at the same instant run in a fixed order: completions (nodes freed at `t` are
//! usable at `t`), then arrivals (a task arriving at `t` is mappable at `t`), then the
//! mapping event. Completions wait in a binary heap over the caller's buffer, ordered by
//! (time, task); an entry whose task was since re-placed (EASY recomputes its reservation,
//! Conservative compresses) is stale and skipped.
//!
//! After the horizon no task arrives and no mapping event runs, but the tasks already
//! started run to their end, so that their share of utility and energy inside the day is
//! counted (seed 000 §II.D); they count as unfinished.

use crate::controller::{Controller, Decision, DecisionKind, TaskState};
use crate::digest::Digest;
use crate::error::{full, Capacity, Error};
use crate::task::{Task, TaskId};
use crate::units::{Micros, MilliJoules, Utility};
use crate::utility::prorate;
use serde::{Deserialize, Serialize};

/// A pending completion: (time, task, the sequence number of the assignment it ends).
pub type Pending = (Micros, TaskId, u32);

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

/// Hooks for a caller that watches a run (timing, logging, traces). All do nothing by default.
pub trait Observer {
    /// Just before a mapping event.
    fn before_mapping(&mut self, _now: Micros) {}
    /// Just after a mapping event, with the controller's state and the decisions it made.
    fn after_mapping(&mut self, _now: Micros, _ctl: &Controller<'_>, _decisions: u32) {}
    /// Every decision, in order.
    fn on_decision(&mut self, _d: &Decision) {}
}

/// An observer that watches nothing.
pub struct NoObserver;
impl Observer for NoObserver {}

/// A min-heap of pending completions over the caller's buffer.
struct Heap<'b> {
    buf: &'b mut [Pending],
    len: usize,
}

impl<'b> Heap<'b> {
    fn push(&mut self, x: Pending) -> Result<(), Error> {
        if self.len >= self.buf.len() {
            return Err(full(Capacity::Tasks, self.buf.len()).into());
        }
        let mut i = self.len;
        self.buf[i] = x;
        self.len += 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if key(&self.buf[i]) < key(&self.buf[p]) {
                self.buf.swap(i, p);
                i = p;
            } else {
                break;
            }
        }
        Ok(())
    }
    fn peek(&self) -> Option<Pending> {
        (self.len > 0).then(|| self.buf[0])
    }
    fn pop(&mut self) -> Option<Pending> {
        if self.len == 0 {
            return None;
        }
        let top = self.buf[0];
        self.len -= 1;
        self.buf[0] = self.buf[self.len];
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < self.len && key(&self.buf[l]) < key(&self.buf[m]) {
                m = l;
            }
            if r < self.len && key(&self.buf[r]) < key(&self.buf[m]) {
                m = r;
            }
            if m == i {
                break;
            }
            self.buf.swap(i, m);
            i = m;
        }
        Some(top)
    }
}

impl Heap<'_> {
    /// Drops the entries of tasks since re-placed. A sorted array is a valid min-heap, so
    /// sorting the live entries rebuilds it.
    fn compact(&mut self, ctl: &Controller<'_>) {
        let mut kept = 0;
        for i in 0..self.len {
            let p = self.buf[i];
            if is_live(ctl, &p) {
                self.buf[kept] = p;
                kept += 1;
            }
        }
        self.len = kept;
        self.buf[..kept].sort_unstable_by_key(key);
    }
}

/// Whether a pending completion still belongs to its task's current assignment.
fn is_live(ctl: &Controller<'_>, p: &Pending) -> bool {
    let slot = &ctl.tasks()[p.1 .0 as usize];
    matches!(slot.state, TaskState::Running | TaskState::Reserved)
        && slot.assignment.is_some_and(|a| a.seq == p.2)
}

fn key(p: &Pending) -> (u64, u32) {
    (p.0 .0, p.1 .0)
}

/// When mapping events happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Schedule {
    /// A mapping event every this long, from time zero (seed 000: 60 s).
    pub interval: Micros,
    /// Also run one right after every completion, on time or early (trace replay: a job that
    /// ends frees its nodes for the queue at once).
    pub on_completion: bool,
    /// Also run one at every arrival (trace replay schedules on submit).
    pub on_arrival: bool,
}

/// Runs `tasks` (in arrival order) through `ctl` until the horizon (the day's end).
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
    let cfg = *ctl.config();
    let horizon = cfg.day_end;
    let mut heap = Heap {
        buf: pending,
        len: 0,
    };
    let mut digest = Digest::new();
    let mut max_utility = Utility::ZERO;
    let mut commitments = 0u32;
    let mut completed = 0u32;
    let mut tasks = tasks.into_iter().peekable();
    let mut next_map = Micros::ZERO;
    let mut map_now = false;
    let interval = if schedule.interval == Micros::ZERO {
        Micros::MINUTE
    } else {
        schedule.interval
    };
    loop {
        let t_arrival = match tasks.peek() {
            Some(Ok(t)) if t.arrival < horizon => Some(t.arrival),
            Some(Err(_)) => Some(Micros::ZERO),
            _ => None,
        };
        let t_map = (next_map < horizon).then_some(next_map);
        let t_done = heap.peek().map(|p| p.0);
        // A mapping event asked for by an early completion or an arrival runs at once.
        let t_flag = map_now.then_some(ctl.now());
        // Completions first, then arrivals, then mapping events.
        let Some(t) = [t_done, t_arrival, t_map, t_flag]
            .into_iter()
            .flatten()
            .min()
        else {
            break;
        };
        if t_done == Some(t) {
            let (at, id, start) = heap.pop().unwrap_or_default();
            if is_live(ctl, &(at, id, start)) {
                ctl.on_completion(id, at)?;
                if at <= horizon {
                    completed += 1;
                }
                if schedule.on_completion && at < horizon {
                    map_now = true;
                }
            }
            continue;
        }
        if t_arrival == Some(t) {
            let task = match tasks.next() {
                Some(Ok(task)) => task,
                Some(Err(e)) => return Err(e),
                None => break,
            };
            // Every arrival's best case, prorated to the day like earned utility, so that the
            // maximum bounds what the day can earn (warm-up arrivals earn inside it too).
            max_utility += best_case(ctl, &task)?;
            ctl.on_arrival(task)?;
            if schedule.on_arrival {
                map_now = true;
            }
            continue;
        }
        map_now = false;
        if t_map == Some(t) {
            next_map = t + interval;
        }
        mapping_event(ctl, t, &mut heap, &mut digest, &mut commitments, observer)?;
    }
    // Tasks started before the horizon run to their end.
    while let Some(p) = heap.pop() {
        let (at, id, _) = p;
        if is_live(ctl, &p) {
            ctl.on_completion(id, at)?;
            if at <= horizon {
                completed += 1;
            }
        }
    }
    let counts = ctl.counts();
    let report = Report {
        utility: ctl.utility(),
        max_utility,
        energy: ctl.ledger().consumed(),
        arrived: counts.arrived,
        completed,
        dropped: counts.dropped,
        unfinished: counts.arrived - completed - counts.dropped,
        mapping_events: counts.mapping_events,
        commitments,
        digest: 0,
    };
    digest.u64(report.utility.0);
    digest.u64(report.energy.0);
    digest.u32(report.completed);
    digest.u32(report.dropped);
    digest.u32(report.unfinished);
    digest.u32(report.mapping_events);
    Ok(Report {
        digest: digest.value(),
        ..report
    })
}

fn mapping_event<O: Observer + ?Sized>(
    ctl: &mut Controller<'_>,
    t: Micros,
    heap: &mut Heap<'_>,
    digest: &mut Digest,
    commitments: &mut u32,
    observer: &mut O,
) -> Result<(), Error> {
    observer.before_mapping(t);
    // Live entries never outnumber the tasks; stale ones are cleared before they could fill
    // the buffer (sized for twice the tasks), leaving the tail free for this event's staging.
    if heap.len >= heap.buf.len() / 2 {
        heap.compact(ctl);
    }
    let mut n = 0u32;
    let mut staged = 0usize;
    let mut overflow = false;
    {
        // The sink cannot reach the controller (it is deciding), so commitments are staged in
        // the heap buffer's free tail and given their real end after the event.
        let (len, buf) = (heap.len, &mut *heap.buf);
        let mut record = |d: &Decision| {
            n += 1;
            observer.on_decision(d);
            if d.kind != DecisionKind::PlaceHold {
                digest.decision(d);
            }
            if matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
                *commitments += 1;
                match buf.get_mut(len + staged) {
                    Some(slot) => {
                        *slot = (d.end, d.task, 0);
                        staged += 1;
                    }
                    None => overflow = true,
                }
            }
        };
        ctl.on_mapping_event(t, &mut record)?;
    }
    if overflow {
        return Err(full(Capacity::Tasks, heap.buf.len()).into());
    }
    for s in 0..staged {
        let id = heap.buf[heap.len + s].1;
        let slot = &ctl.tasks()[id.0 as usize];
        let a = slot
            .assignment
            .ok_or(crate::error::InputError::BadTaskState(id.0))?;
        // A trace job ends at its real run time, not at its planned (requested) one.
        let run = slot.task.run_time(a.end - a.start);
        heap.buf[heap.len + s] = (a.start + run, id, a.seq);
    }
    for s in 0..staged {
        let x = heap.buf[heap.len];
        heap.push(x)?;
        let _ = s;
    }
    observer.after_mapping(t, ctl, n);
    Ok(())
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

//! The simulation with a remote controller: the host keeps the clock, the cluster (which
//! task ends when) and the digest; every decision comes from the controller over the link.
//!
//! The loop is the core engine's ([`kairos_core::engine`]), event for event: completions,
//! then arrivals, then the mapping event, at each instant; a commitment's completion is
//! queued at its start plus its real run time, under the assignment's sequence number, and
//! the controller answers a completion for an assignment since replaced as stale, as the
//! engine skips a stale entry. So the digest, the totals and the event lines are the
//! in-process run's; the tests hold them to it.

use super::client::Client;
use anyhow::{bail, Context};
use kairos_core::digest::Digest;
use kairos_core::engine::{Report, Schedule};
use kairos_core::packed::{encode_header, PackedHeader};
use kairos_core::task::{Task, TaskId};
use kairos_core::units::{Micros, MilliJoules, Utility};
use kairos_core::utility::prorate;
use kairos_core::wire::message::{Capacities, Fate, Request, Response, MAX_PAYLOAD, VERSION};
use kairos_core::{Decision, DecisionKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One mapping event, as the firmware logs it: `event <n> decisions <n> utility <n>
/// energy_mj <n>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLine {
    /// The event's time.
    pub at: Micros,
    /// Decisions it made (place-holders included).
    pub decisions: u32,
    /// Utility earned so far.
    pub utility: Utility,
    /// Energy consumed so far.
    pub consumed: MilliJoules,
}

/// What a run with a remote controller gives.
#[derive(Clone, Debug)]
pub struct Driven {
    /// The report, as the engine's.
    pub report: Report,
    /// Every mapping event.
    pub events: Vec<EventLine>,
    /// Every decision, in order.
    pub decisions: Vec<Decision>,
    /// Every completion the controller took (task, time), in order.
    pub completions: Vec<(TaskId, Micros)>,
    /// Each mapping event's wall-clock microseconds from the host's request to the last page
    /// of its decisions: its time as the host sees it, the link included.
    pub event_us: Vec<u64>,
    /// What the controller said it holds.
    pub capacities: Capacities,
}

/// Runs `tasks` (in arrival order) through the controller at the other end of `client`,
/// which starts with a hello of `header` (its platform, classes and configuration).
pub fn drive(
    client: &mut Client,
    header: &PackedHeader,
    schedule: Schedule,
    tasks: &[Task],
) -> anyhow::Result<Driven> {
    let mut bytes = vec![0u8; MAX_PAYLOAD];
    let n = encode_header(header, &mut bytes).map_err(|e| {
        anyhow::anyhow!("the hello does not fit one message ({MAX_PAYLOAD} bytes): {e}")
    })?;
    let capacities = match client.call(&Request::Hello {
        version: VERSION,
        header: &bytes[..n],
    })? {
        Response::Hello(c) => c,
        r => bail!("unexpected answer to the hello: {r:?}"),
    };
    let mut d = Driver {
        client,
        header,
        schedule,
        interval: if schedule.interval == Micros::ZERO {
            Micros::MINUTE
        } else {
            schedule.interval
        },
        pending: BinaryHeap::new(),
        next_map: Micros::ZERO,
        map_now: false,
        now: Micros::ZERO,
        digest: Digest::new(),
        max_utility: Utility::ZERO,
        commitments: 0,
        completed: 0,
        events: Vec::new(),
        decisions: Vec::new(),
        completions: Vec::new(),
        event_us: Vec::new(),
    };
    let horizon = header.config.day_end;
    let mut k = 0;
    loop {
        let arrival = tasks.get(k).map(|t| t.arrival).filter(|&a| a < horizon);
        let mut next = d.pending.peek().map(|Reverse(p)| (p.0, 0u8));
        let sooner = |t: Micros, next: Option<(Micros, u8)>| next.is_none_or(|e| t < e.0);
        if let Some(a) = arrival {
            if sooner(a, next) {
                next = Some((a, 1));
            }
        }
        let periodic = (schedule.periodic && d.next_map < horizon).then_some(d.next_map);
        let asked = d.map_now.then_some(d.now);
        if let Some(m) = periodic.into_iter().chain(asked).min() {
            if sooner(m, next) {
                next = Some((m, 2));
            }
        }
        match next {
            None => break,
            Some((_, 0)) => d.complete_next()?,
            Some((_, 1)) => {
                d.arrive(&tasks[k], k)?;
                k += 1;
            }
            Some((t, _)) => d.map(t, tasks)?,
        }
    }
    while !d.pending.is_empty() {
        d.complete_next()?;
    }
    let status = match d.client.call(&Request::Status)? {
        Response::Status(s) => s,
        r => bail!("unexpected answer to a status query: {r:?}"),
    };
    let counts = status.counts;
    let Some(unfinished) = counts
        .arrived
        .checked_sub(d.completed)
        .and_then(|n| n.checked_sub(counts.dropped))
    else {
        bail!(
            "the controller's status does not add up: {} tasks arrived, but {} completed \
             (counted here) and {} dropped (its count)",
            counts.arrived,
            d.completed,
            counts.dropped
        );
    };
    let report = Report {
        utility: status.utility,
        max_utility: d.max_utility,
        energy: status.consumed,
        arrived: counts.arrived,
        completed: d.completed,
        dropped: counts.dropped,
        unfinished,
        mapping_events: counts.mapping_events,
        commitments: d.commitments,
        digest: 0,
    };
    Ok(Driven {
        report: report.sealed(d.digest),
        events: d.events,
        decisions: d.decisions,
        completions: d.completions,
        event_us: d.event_us,
        capacities,
    })
}

/// The run's state on the host.
struct Driver<'c, 'h> {
    client: &'c mut Client,
    header: &'h PackedHeader,
    schedule: Schedule,
    interval: Micros,
    /// Pending completions: (when, task, assignment), earliest first.
    pending: BinaryHeap<Reverse<(Micros, u32, u32)>>,
    next_map: Micros,
    map_now: bool,
    /// The controller's clock, as the host knows it: the last event's time.
    now: Micros,
    digest: Digest,
    max_utility: Utility,
    commitments: u32,
    completed: u32,
    events: Vec<EventLine>,
    decisions: Vec<Decision>,
    completions: Vec<(TaskId, Micros)>,
    event_us: Vec<u64>,
}

impl Driver<'_, '_> {
    fn complete_next(&mut self) -> anyhow::Result<()> {
        let Some(Reverse((at, task, seq))) = self.pending.pop() else {
            return Ok(());
        };
        let answer = self.client.call(&Request::Completion {
            task: TaskId(task),
            at,
            seq,
        })?;
        match answer {
            Response::Stale => Ok(()),
            Response::Completed(_) => {
                self.completions.push((TaskId(task), at));
                self.now = at;
                let horizon = self.header.config.day_end;
                if at <= horizon {
                    self.completed += 1;
                }
                if self.schedule.on_completion && at < horizon {
                    self.map_now = true;
                }
                Ok(())
            }
            r => bail!("unexpected answer to a completion: {r:?}"),
        }
    }

    fn arrive(&mut self, task: &Task, k: usize) -> anyhow::Result<()> {
        self.max_utility += best_case(self.header, task)?;
        match self.client.call(&Request::Arrival(task.clone()))? {
            Response::Arrived(id) if id.0 as usize == k => {}
            r => bail!("unexpected answer to arrival {k}: {r:?}"),
        }
        self.now = task.arrival;
        if self.schedule.on_arrival {
            self.map_now = true;
        }
        Ok(())
    }

    fn map(&mut self, now: Micros, tasks: &[Task]) -> anyhow::Result<()> {
        self.map_now = false;
        if self.schedule.periodic && now >= self.next_map {
            self.next_map = now + self.interval;
        }
        let mut request = Request::Map { now };
        let mut got = 0u32;
        let clock = std::time::Instant::now();
        loop {
            let page = match self.client.call(&request)? {
                Response::Mapped(p) => p,
                r => bail!("unexpected answer to a mapping event: {r:?}"),
            };
            if page.from != got {
                bail!(
                    "asked for decisions from {got}, got a page from {}",
                    page.from
                );
            }
            for d in &page.decisions {
                self.decided(&d.decision, d.fate, tasks)?;
            }
            got += page.decisions.len() as u32;
            if got >= page.total || page.decisions.is_empty() {
                self.events.push(EventLine {
                    at: now,
                    decisions: got,
                    utility: page.utility,
                    consumed: page.consumed,
                });
                self.event_us.push(clock.elapsed().as_micros() as u64);
                break;
            }
            request = Request::Page { from: got };
        }
        self.now = now;
        Ok(())
    }

    fn decided(&mut self, d: &Decision, fate: Fate, tasks: &[Task]) -> anyhow::Result<()> {
        self.decisions.push(*d);
        if d.kind != DecisionKind::PlaceHold {
            self.digest.decision(d);
        }
        if !matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
            return Ok(());
        }
        self.commitments += 1;
        let (start, end, seq) = match fate {
            Fate::Same { seq } => (d.start, d.end, seq),
            Fate::Moved { start, end, seq } => (start, end, seq),
            Fate::None | Fate::Gone => {
                bail!("task {} was committed but has no assignment", d.task.0)
            }
        };
        let task = tasks
            .get(d.task.0 as usize)
            .with_context(|| format!("a decision for task {}, which never arrived", d.task.0))?;
        let at = start + task.run_time(end - start);
        self.pending.push(Reverse((at, d.task.0, seq)));
        Ok(())
    }
}

/// The utility `task` would earn started at its arrival on its fastest option, prorated to
/// the day (the engine's tally of the day's maximum utility).
fn best_case(h: &PackedHeader, task: &Task) -> anyhow::Result<Utility> {
    let Some((_, d)) = task.fastest(&h.platform) else {
        return Ok(Utility::ZERO);
    };
    let value = task
        .curve
        .value_at(d, &h.classes)
        .map_err(anyhow::Error::new)?;
    Ok(prorate(
        Utility::from_f64(value),
        task.arrival,
        task.arrival.saturating_add(d),
        h.config.day_start,
        h.config.day_end,
    ))
}

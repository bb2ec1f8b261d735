//! A decision proposed from outside the core ([`crate::external`]): checked against the
//! task, the cluster's timeline and the day's energy, then booked as a heuristic's choice
//! would be (so the nodes it gets are the ones the core's own node choice picks), and the
//! nodes it got told back. A task holding a reservation that has not started may be decided
//! again: its reservation is taken back first, as EASY's recomputation does
//! (`policy/easy.rs`), and given back if the new decision is refused.

use super::choice::Choice;
use super::planner::Planner;
use super::slots::{Assignment, Decision, DecisionKind, TaskState};
use crate::config::Reservations;
use crate::energy::window_share;
use crate::error::Error;
use crate::external::Refusal;
use crate::task::TaskId;

impl Planner<'_> {
    /// Applies decision `d` of the event under way, or says why not; an applied decision
    /// goes to `sink` (a start, a reservation or a drop, as the core's heuristics emit
    /// them) and the nodes it got to `nodes`, in node order. A refusal is
    /// [`Error::Refused`]; any other error is the core's own (a full buffer while booking).
    pub(crate) fn propose(
        &mut self,
        d: &Decision,
        sink: &mut dyn FnMut(&Decision),
        nodes: &mut dyn FnMut(u32),
    ) -> Result<(), Error> {
        let i = d.task.0;
        let Some(at) = self.held(TaskId(i)) else {
            return Err(refused(Refusal::NotArrived));
        };
        // A reservation that has not started is taken back, as EASY's recomputation takes
        // its own (the unbooking emits nothing: the digest sees the new decision alone).
        let old = match self.tasks[at].assignment {
            Some(a) if self.reserved_after_now(i as usize) && d.kind != DecisionKind::PlaceHold => {
                self.unreserve(i);
                Some(a)
            }
            _ => None,
        };
        let r = self.check_and_book(d, sink);
        match (&r, old) {
            (Err(Error::Refused(_)), Some(a)) => self.give_back(i, &a)?,
            (Ok(()), _) if d.kind != DecisionKind::Drop => self.nodes_of(d, nodes),
            _ => {}
        }
        r
    }

    /// The checks of [`propose`](Self::propose) and the booking, on a mappable task.
    fn check_and_book(
        &mut self,
        d: &Decision,
        sink: &mut dyn FnMut(&Decision),
    ) -> Result<(), Error> {
        let i = d.task.0;
        let Some(at) = self.held(TaskId(i)) else {
            return Err(refused(Refusal::NotArrived));
        };
        let state = self.tasks[at].state;
        if state != TaskState::Mappable {
            return Err(refused(Refusal::NotWaiting));
        }
        let now = self.now;
        if d.kind == DecisionKind::Drop {
            self.tasks[at].state = TaskState::Dropped;
            self.unsettled += 1;
            sink(&Decision::drop(d.task, now));
            return Ok(());
        }
        match d.kind {
            DecisionKind::PlaceHold => return Err(refused(Refusal::PlaceHold)),
            DecisionKind::Start if d.start != now => {
                return Err(refused(Refusal::WrongTime { now }))
            }
            DecisionKind::Reserve if d.start <= now => {
                return Err(refused(Refusal::WrongTime { now }))
            }
            _ => {}
        }
        let Some(pl) = self.placement(i, d.cluster) else {
            return Err(refused(Refusal::WrongPartition));
        };
        if d.pstate.0 >= self.platform.pstates() {
            return Err(refused(Refusal::NoSuchPState {
                pstates: self.platform.pstates(),
            }));
        }
        let duration = pl.etc[d.pstate.0 as usize];
        let end = d.start.saturating_add(duration);
        if d.nodes != pl.nodes || d.end != end {
            return Err(refused(Refusal::WrongShape {
                nodes: pl.nodes,
                end,
            }));
        }
        if d.start >= self.config.day_end {
            return Err(refused(Refusal::AfterDay {
                day_end: self.config.day_end,
            }));
        }
        let tl = &self.clusters[d.cluster.0 as usize];
        let free = tl.free_over(d.start, end, pl.nodes.0);
        if free < pl.nodes.0 {
            return Err(refused(Refusal::Busy { free }));
        }
        let energy = pl.energy(d.pstate);
        let day_energy = window_share(
            energy,
            d.start,
            end,
            self.config.day_start,
            self.config.day_end,
        );
        let left = self.energy_available();
        if day_energy > left {
            return Err(refused(Refusal::OverBudget {
                need: day_energy,
                left,
            }));
        }
        let choice = Choice {
            cluster: d.cluster,
            pstate: d.pstate,
            start: d.start,
            duration,
            nodes: pl.nodes,
            energy,
            day_energy,
            value: 0.0,
            memo: u32::MAX,
            gen: 0,
        };
        self.assign(i, &choice, Reservations::Permanent, sink)
    }

    /// Books task slot `i` again where reservation `a` had it (a refused re-placement
    /// leaves the task as it was but for the nodes, which node choice picks anew; nothing
    /// goes to the digest).
    fn give_back(&mut self, i: u32, a: &Assignment) -> Result<(), Error> {
        let Some(pl) = self.placement(i, a.cluster) else {
            return Ok(());
        };
        let choice = Choice {
            cluster: a.cluster,
            pstate: a.pstate,
            start: a.start,
            duration: a.end.saturating_sub(a.start),
            nodes: a.nodes,
            energy: pl.energy(a.pstate),
            day_energy: a.committed,
            value: 0.0,
            memo: u32::MAX,
            gen: 0,
        };
        self.assign(i, &choice, Reservations::Permanent, &mut |_| {})
    }

    /// The nodes (indices within its cluster) that decision `d`'s booking holds, in node
    /// order: the nodes whose bookings include the task's from its start.
    fn nodes_of(&self, d: &Decision, nodes: &mut dyn FnMut(u32)) {
        let Some(tl) = self.timeline(d.cluster) else {
            return;
        };
        for (k, node) in tl.nodes().enumerate() {
            if node
                .bookings()
                .iter()
                .any(|b| b.task == d.task && b.start == d.start)
            {
                nodes(k as u32);
            }
        }
    }
}

fn refused(r: Refusal) -> Error {
    Error::Refused(r)
}

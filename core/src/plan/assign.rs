//! Doing what a heuristic chose: booking a task's nodes at its option (a start now, a
//! permanent reservation or a place-holder), charging the energy, and telling the caller;
//! and taking a reservation back.

use super::choice::Choice;
use super::planner::Planner;
use super::slots::{Assignment, Decision, DecisionKind, TaskState};
use crate::config::Reservations;
use crate::error::{Error, InputError};
use crate::task::TaskId;
use crate::timeline::{Booking, BookingKind};
use crate::units::MilliJoules;

impl Planner<'_> {
    /// Puts task slot `i` at `ch`: starts it now, or reserves / place-holds it (as `kind`
    /// says), books its nodes and emits the decision to `sink`.
    pub(crate) fn assign(
        &mut self,
        i: u32,
        ch: &Choice,
        kind: Reservations,
        sink: &mut dyn FnMut(&Decision),
    ) -> Result<(), Error> {
        let end = ch.start.saturating_add(ch.duration);
        let starts_now = ch.start <= self.now;
        let (state, bkind, dkind) = if starts_now {
            (
                TaskState::Running,
                BookingKind::Running,
                DecisionKind::Start,
            )
        } else if kind == Reservations::Permanent {
            (
                TaskState::Reserved,
                BookingKind::Reserved,
                DecisionKind::Reserve,
            )
        } else {
            (
                TaskState::PlaceHeld,
                BookingKind::PlaceHolder,
                DecisionKind::PlaceHold,
            )
        };
        let k = ch.nodes.0 as usize;
        let tl = self
            .clusters
            .get_mut(ch.cluster.0 as usize)
            .ok_or(InputError::UnknownCluster(ch.cluster.0))?;
        let booking = Booking {
            start: ch.start,
            end,
            task: TaskId(i),
            kind: bkind,
        };
        if !tl.book_chosen(self.now, k as u32, booking, self.scratch_a)? {
            return Err(InputError::Overlap.into());
        }
        let committed = if state == TaskState::PlaceHeld {
            self.planned = self.planned.saturating_add(ch.day_energy);
            MilliJoules::ZERO
        } else {
            if self.ledger.commit(ch.day_energy).is_err() {
                self.clusters[ch.cluster.0 as usize].remove_task_from(
                    TaskId(i),
                    ch.start,
                    ch.nodes.0,
                );
                return Err(InputError::BadTaskState(i).into());
            }
            ch.day_energy
        };
        self.seq = self.seq.wrapping_add(1);
        let slot = &mut self.tasks[self.at(i as usize)];
        // From mappable (always in the open list) to not, or the other way.
        match (
            slot.state == TaskState::Mappable,
            state == TaskState::Mappable,
        ) {
            (true, false) => self.unsettled += 1,
            (false, true) => self.unsettled -= 1,
            _ => {}
        }
        slot.state = state;
        slot.assignment = Some(Assignment {
            cluster: ch.cluster,
            pstate: ch.pstate,
            nodes: ch.nodes,
            start: ch.start,
            end,
            committed,
            seq: self.seq,
        });
        sink(&Decision {
            task: TaskId(i),
            kind: dkind,
            cluster: ch.cluster,
            nodes: ch.nodes,
            pstate: ch.pstate,
            start: ch.start,
            end,
        });
        Ok(())
    }

    /// Gives task slot `i` its reservation again where it is, without taking it back: what
    /// [`unreserve`](Self::unreserve) then [`assign`](Self::assign) at the same start on the
    /// same nodes would leave (the same bookings and energy, a new assignment number) and
    /// emit (the same decision). The caller has made sure they would come back so
    /// (`policy/easy.rs`).
    pub(crate) fn keep_reservation(
        &mut self,
        i: u32,
        sink: &mut dyn FnMut(&Decision),
    ) -> Result<(), Error> {
        let at = self.at(i as usize);
        let slot = &mut self.tasks[at];
        let (TaskState::Reserved, Some(a)) = (slot.state, slot.assignment.as_mut()) else {
            return Err(InputError::BadTaskState(i).into());
        };
        self.seq = self.seq.wrapping_add(1);
        a.seq = self.seq;
        let a = *a;
        sink(&Decision {
            task: TaskId(i),
            kind: DecisionKind::Reserve,
            cluster: a.cluster,
            nodes: a.nodes,
            pstate: a.pstate,
            start: a.start,
            end: a.end,
        });
        Ok(())
    }

    /// Takes back a permanent reservation that has not started (EASY recomputes it,
    /// Conservative compresses): the task is mappable again and its energy is released.
    pub(crate) fn unreserve(&mut self, i: u32) {
        let slot = &mut self.tasks[self.at(i as usize)];
        if slot.state != TaskState::Reserved {
            return;
        }
        if let Some(a) = slot.assignment.take() {
            self.ledger.release(a.committed);
            self.clusters[a.cluster.0 as usize].remove_task_from(TaskId(i), a.start, a.nodes.0);
        }
        slot.state = TaskState::Mappable;
        // It was reserved, so in the open list and counted there.
        self.unsettled -= 1;
        // A booking was taken back: idle counts may have risen.
        self.epoch = self.epoch.wrapping_add(1).max(1);
    }
}

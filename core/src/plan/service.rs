//! Nodes taken out of service and back (a live cluster's node drained or down, then
//! resumed): the planner never books an out-of-service node. Taken out, a node gets a block
//! (`timeline/service.rs`) from the end of the work that runs on it (left to finish); the
//! place-holders on it and every reservation of its cluster that had not started are taken
//! back, and those tasks wait again (the next event plans them anew; back in service, the
//! same). Each mapping event first books again earlier any block whose work ended
//! early, so the node never shows a free stretch to place a task in. Back in service, the
//! block goes and the node is free from then on.

use super::planner::Planner;
use super::slots::TaskState;
use crate::error::{Error, InputError};
use crate::platform::ClusterId;
use crate::task::TaskId;
use crate::timeline::{Booking, BookingKind};
use crate::units::Micros;

impl Planner<'_> {
    /// The task id of the block of node `node` of cluster `c`: its own, counted down from
    /// the top of the ids (arrivals stop short of them, `events.rs`).
    fn block_id(&self, c: ClusterId, node: u32) -> TaskId {
        let base: u32 = self.platform.clusters()[..c.0 as usize]
            .iter()
            .map(|x| x.nodes.0)
            .sum();
        TaskId(u32::MAX - base - node)
    }

    /// Checks that cluster `c` has node `node`.
    fn check_node(&self, c: ClusterId, node: u32) -> Result<usize, Error> {
        let tl = self
            .clusters
            .get(c.0 as usize)
            .ok_or(InputError::UnknownCluster(c.0))?;
        if node >= tl.len().0 {
            return Err(InputError::UnknownNode { cluster: c.0, node }.into());
        }
        Ok(c.0 as usize)
    }

    /// Whether node `node` of cluster `c` is in service (`false` for a node the platform
    /// does not have).
    pub fn in_service(&self, c: ClusterId, node: u32) -> bool {
        self.clusters
            .get(c.0 as usize)
            .is_some_and(|tl| node < tl.len().0 && tl.block_of(node).is_none())
    }

    /// Node `node` of cluster `c` goes out of service at `at`: the task running on it (or
    /// whose reservation has started) runs on to its end; reservations on it that start
    /// after `at` are taken back (their tasks mappable again, their energy released) and
    /// place-holders on it cleared (their tasks mappable at the next event, as every
    /// place-holder's); from the end of what is left, nothing is booked on it until it is
    /// back ([`node_in`](Self::node_in)). A node already out stays as it is.
    pub(crate) fn node_out(&mut self, c: ClusterId, node: u32, at: Micros) -> Result<(), Error> {
        let ci = self.check_node(c, node)?;
        self.tick(at)?;
        if self.clusters[ci].block_of(node).is_some() {
            return Ok(());
        }
        self.take_back_reservations(c, at);
        let n = self.clusters[ci].len().0;
        let later = |b: &Booking| {
            b.kind == BookingKind::PlaceHolder || (b.kind == BookingKind::Reserved && b.start > at)
        };
        while let Some(b) = self.clusters[ci].find_on(node, later) {
            let id = b.task;
            if b.kind == BookingKind::PlaceHolder {
                // All its bookings start together; its task's state is the next event's.
                self.clusters[ci].remove_task_from(id, b.start, n);
            } else {
                let slot = self.held(id).map(|i| &self.tasks[i]);
                if !slot.is_some_and(|s| s.state == TaskState::Reserved) {
                    return Err(InputError::BadTaskState(id.0).into());
                }
                self.unreserve(id.0);
            }
            // Each pass takes a booking away, or it would never end.
            if self.clusters[ci].find_on(node, |x| *x == b).is_some() {
                return Err(InputError::BadTaskState(id.0).into());
            }
        }
        let start = self.clusters[ci].busy_until(node).max(at);
        let task = self.block_id(c, node);
        self.clusters[ci].block(
            node,
            Booking {
                start,
                end: Micros::MAX,
                task,
                kind: BookingKind::OutOfService,
            },
        )
    }

    /// Node `node` of cluster `c` is back in service at `at`: free from then on. A node in
    /// service stays as it is.
    pub(crate) fn node_in(&mut self, c: ClusterId, node: u32, at: Micros) -> Result<(), Error> {
        let ci = self.check_node(c, node)?;
        self.tick(at)?;
        if self.clusters[ci].unblock(node) {
            // Time was freed: counts of idle nodes may have risen.
            self.epoch = self.epoch.wrapping_add(1).max(1);
            self.take_back_reservations(c, at);
        }
        Ok(())
    }

    /// Takes back every reservation on cluster `c` that starts after `at`: the cluster
    /// changed, and the next mapping event plans those tasks again. Besides, a policy that
    /// then moves a reservation to a task that could not be placed before (EASY's, once
    /// enough nodes are back) makes a decision for each task it reserves: a controller that
    /// only hears decisions (the host's, under the firmware) stays in step.
    fn take_back_reservations(&mut self, c: ClusterId, at: Micros) {
        for k in 0..self.open_len {
            let i = self.open[k];
            let s = &self.tasks[self.at(i as usize)];
            if s.state == TaskState::Reserved
                && s.assignment.is_some_and(|a| a.cluster == c && a.start > at)
            {
                self.unreserve(i);
            }
        }
    }

    /// Books again from `now` (or the end of the booking before it) every block that starts
    /// later: the work it waited for ended early or went. At the start of a mapping event,
    /// before anything is placed.
    pub(super) fn tighten_blocks(&mut self, now: Micros) -> Result<(), Error> {
        for tl in self.clusters.iter_mut() {
            while let Some((node, b, want)) = tl.loose_block(now) {
                tl.unblock(node);
                tl.block(node, Booking { start: want, ..b })?;
            }
        }
        Ok(())
    }
}

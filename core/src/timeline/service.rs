//! Nodes out of service (drained or down on a live cluster): such a node carries a *block*,
//! one booking of kind [`BookingKind::OutOfService`] from when it went out (or from the end
//! of the work left on it, which finishes there) to the end of time. Every query and node
//! choice then sees the node busy, so no task is ever booked on it, and the void index, the
//! groups and the fit memo keep working as for any booking. Back in service, the block goes.
//!
//! A block is the last booking of its node (it ends at the end of time) and its task id is
//! the node's own (the planner's), so a group holding one is that node alone. The work a
//! block waits for may end early: [`ClusterTimeline::loose_block`] finds a block that
//! starts later than the node's last booking now ends, and the planner books it again
//! earlier before any task is placed (`plan/service.rs`).
//!
//! Data flow: reads a node's bookings, books and removes through `choice.rs` and
//! `release.rs`; counts the blocks (`blocks` in `mod.rs`).

use super::node::{Booking, BookingKind};
use super::ClusterTimeline;
use crate::error::Error;
use crate::units::Micros;

impl ClusterTimeline<'_> {
    /// Node `node`'s block, if it is out of service.
    pub(crate) fn block_of(&self, node: u32) -> Option<Booking> {
        self.node(node)?
            .bookings()
            .last()
            .copied()
            .filter(|b| b.kind == BookingKind::OutOfService)
    }

    /// Node `node`'s first booking that `pick` takes, if any.
    pub(crate) fn find_on(&self, node: u32, pick: impl Fn(&Booking) -> bool) -> Option<Booking> {
        self.node(node)?
            .bookings()
            .iter()
            .copied()
            .find(|b| pick(b))
    }

    /// When node `node`'s bookings end (its last one's end; zero without any).
    pub(crate) fn busy_until(&self, node: u32) -> Micros {
        self.node(node)
            .and_then(|n| n.bookings().last().map(|b| b.end))
            .unwrap_or(Micros::ZERO)
    }

    /// Blocks node `node` with `b` (of kind [`BookingKind::OutOfService`], to the end of
    /// time, starting at or after the node's last booking's end).
    pub(crate) fn block(&mut self, node: u32, b: Booking) -> Result<(), Error> {
        self.book(&[node], b)?;
        self.blocks += 1;
        Ok(())
    }

    /// Takes node `node`'s block away; returns whether it had one.
    pub(crate) fn unblock(&mut self, node: u32) -> bool {
        let Some(b) = self.block_of(node) else {
            return false;
        };
        let gone = self.remove_task_from(b.task, b.start, 1);
        self.blocks -= 1;
        gone > 0
    }

    /// Nodes out of service on the cluster.
    pub fn blocks(&self) -> u32 {
        self.blocks
    }

    /// A node whose block starts later than it could from `now` on (the work it waited for
    /// ended early, or was taken back): the node, its block and the start it could have
    /// (`now`, or its booking before the block's end). `None` when every block is tight.
    pub(crate) fn loose_block(&self, now: Micros) -> Option<(u32, Booking, Micros)> {
        if self.blocks == 0 {
            return None;
        }
        for &g in self.groups.live() {
            let bs = self.pool.list(g);
            let Some(last) = bs.last().filter(|b| b.kind == BookingKind::OutOfService) else {
                continue;
            };
            let before = bs.len().checked_sub(2).map_or(Micros::ZERO, |i| bs[i].end);
            let want = before.max(now);
            if want < last.start {
                // A group holding a block is its one node, its lowest.
                return Some((self.groups.head[g as usize], *last, want));
            }
        }
        None
    }
}

//! One node's bookings: what a [`Booking`] is, and a [`NodeTimeline`], a view of the sorted
//! list of a node's (or a group of nodes') bookings with the voids between them.
//!
//! The bottom of the timeline: it knows nothing of clusters, groups or the void index, which
//! all read and write bookings through what is here.

use crate::task::TaskId;
use crate::units::Micros;
use core::cmp::Ordering;
use serde::{Deserialize, Serialize};

/// What a booking holds a node for.
///
/// `repr(u8)` with `Running` 0: an all-zero [`Booking`] is a valid value, so a caller may
/// hand the timelines a booking pool of zeroed memory (mapped as it is touched).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum BookingKind {
    /// A task executing (or committed to execute) on the node.
    Running = 0,
    /// A permanent reservation: it will start then, and nothing may move it.
    Reserved,
    /// A place-holder: it holds the slot until the next mapping event clears it.
    PlaceHolder,
    /// A node out of service (drained or down): no task may be booked on it from the
    /// booking's start on, until it is back in service (`service.rs`). Its task is no task:
    /// an id above every task's (the planner gives each node its own).
    OutOfService,
}

/// One task's hold on one node over `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Booking {
    /// First instant held.
    pub start: Micros,
    /// First instant free again.
    pub end: Micros,
    /// The task holding it.
    pub task: TaskId,
    /// Running, reserved or place-held.
    pub kind: BookingKind,
}

impl Booking {
    /// The value a booking pool may be filled with (all zero: see [`BookingKind`]); the
    /// pool never reads an entry it has not written.
    pub const EMPTY: Booking = Booking {
        start: Micros::ZERO,
        end: Micros::ZERO,
        task: TaskId(0),
        kind: BookingKind::Running,
    };

    /// A total order over bookings (groups are merged by sorting their booking lists).
    fn order(&self, o: &Booking) -> Ordering {
        (self.start, self.end, self.task.0, self.kind as u8).cmp(&(
            o.start,
            o.end,
            o.task.0,
            o.kind as u8,
        ))
    }
}

/// One node's bookings (or one group's: nodes with the same bookings), sorted by start and
/// never overlapping: a view of its list in the cluster's booking pool (`pool.rs`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeTimeline<'a> {
    pub(super) bookings: &'a [Booking],
}

impl<'a> NodeTimeline<'a> {
    /// The bookings, in time order.
    pub fn bookings(&self) -> &'a [Booking] {
        self.bookings
    }

    /// The void containing `[s, e)`, as (start, end) of the free stretch, if the node is free
    /// over all of it. The void's start is the end of the booking before (or zero).
    #[inline]
    pub(crate) fn void_around(&self, s: Micros, e: Micros) -> Option<(Micros, Micros)> {
        // Index of the first booking that ends after s.
        let i = self.bookings.partition_point(|b| b.end <= s);
        let prev_end = if i == 0 {
            Micros::ZERO
        } else {
            self.bookings[i - 1].end
        };
        match self.bookings.get(i) {
            Some(b) if b.start < e => None,
            Some(b) => Some((prev_end, b.start)),
            None => Some((prev_end, Micros::MAX)),
        }
    }

    /// Whether the node is free over `[s, e)`.
    #[cfg(test)]
    pub(crate) fn is_free(&self, s: Micros, e: Micros) -> bool {
        self.void_around(s, e).is_some()
    }

    /// The order of two booking lists (see [`Booking::order`]).
    pub(super) fn order(&self, o: &NodeTimeline<'_>) -> Ordering {
        for (a, b) in self.bookings.iter().zip(o.bookings.iter()) {
            match a.order(b) {
                Ordering::Equal => {}
                x => return x,
            }
        }
        self.bookings.len().cmp(&o.bookings.len())
    }

    /// Its voids, `[a, b)` in time order (the last one ends at `u64::MAX`).
    pub(super) fn voids(&self) -> impl Iterator<Item = (u64, u64)> + 'a {
        let mut a = 0u64;
        self.bookings
            .iter()
            .map(|b| (b.start.0, b.end.0))
            .chain(core::iter::once((u64::MAX, u64::MAX)))
            .filter_map(move |(s, e)| {
                let v = (s > a).then_some((a, s));
                a = e;
                v
            })
    }
}

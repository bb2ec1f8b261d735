//! One node's bookings: what a [`Booking`] is, and a [`NodeTimeline`], the sorted list of a
//! node's (or a group of nodes') bookings with the voids between them.
//!
//! The bottom of the timeline: it knows nothing of clusters, groups or the void index, which
//! all read and write bookings through what is here.

use crate::limits::MAX_BOOKINGS_PER_NODE;
use crate::task::TaskId;
use crate::units::Micros;
use core::cmp::Ordering;
use serde::{Deserialize, Serialize};

/// What a booking holds a node for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BookingKind {
    /// A task executing (or committed to execute) on the node.
    Running,
    /// A permanent reservation: it will start then, and nothing may move it.
    Reserved,
    /// A place-holder: it holds the slot until the next mapping event clears it.
    PlaceHolder,
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

/// The bookings of one node (or of one group of nodes with the same bookings), sorted by
/// start and never overlapping.
///
/// On the host, aligned to a cache line: a node's size is otherwise a multiple of 4 KiB plus
/// its length word, so every node's first bookings would share one set of the L1 cache (and
/// one of a few of L2). The firmware's core has no data cache.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "host-limits", repr(align(64)))]
pub struct NodeTimeline {
    pub(super) bookings: heapless::Vec<Booking, MAX_BOOKINGS_PER_NODE>,
}

impl NodeTimeline {
    /// An empty node.
    pub const fn new() -> NodeTimeline {
        NodeTimeline {
            bookings: heapless::Vec::new(),
        }
    }

    /// The bookings, in time order.
    pub fn bookings(&self) -> &[Booking] {
        &self.bookings
    }

    /// The void containing `[s, e)`, as (start, end) of the free stretch, if the node is free
    /// over all of it. The void's start is the end of the booking before (or zero).
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

    /// Whether both hold the same bookings.
    pub(super) fn same(&self, o: &NodeTimeline) -> bool {
        self.bookings == o.bookings
    }

    /// The order of two booking lists (see [`Booking::order`]).
    pub(super) fn order(&self, o: &NodeTimeline) -> Ordering {
        for (a, b) in self.bookings.iter().zip(o.bookings.iter()) {
            match a.order(b) {
                Ordering::Equal => {}
                x => return x,
            }
        }
        self.bookings.len().cmp(&o.bookings.len())
    }

    /// Its voids, `[a, b)` in time order (the last one ends at `u64::MAX`).
    pub(super) fn voids(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
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

/// Makes slot `to` hold the bookings of slot `from` (copying only the bookings held).
#[inline]
pub(super) fn copy_slot(slots: &mut [NodeTimeline], from: usize, to: usize) {
    let (src, dst) = if from < to {
        let (x, y) = slots.split_at_mut(to);
        (&x[from], &mut y[0])
    } else {
        let (x, y) = slots.split_at_mut(from);
        (&y[0], &mut x[to])
    };
    dst.bookings.clear();
    // Room enough: every slot has the same capacity.
    let _ = dst.bookings.extend_from_slice(&src.bookings);
}

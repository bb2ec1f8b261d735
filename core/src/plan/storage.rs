//! The caller's storage for a planner: every buffer it will ever use, handed over once.
//!
//! The core never allocates. Everything sized by the workload is a slice the caller owns, so
//! the host can use `Vec`s and the firmware `static`s; [`StorageSizes`] says how long each
//! must be for a platform and a task count.

use super::choice::Work;
use super::memo::MemoEntry;
use super::slots::TaskSlot;
use crate::limits::BOOKING_LOG;
use crate::platform::Platform;
use crate::timeline::{Booking, ClusterTimeline, Logged, Void};

/// The caller's storage for a controller: every buffer it will ever use.
pub struct Storage<'a> {
    /// One slot per task the run may hold (fill with [`TaskSlot::EMPTY`]).
    pub tasks: &'a mut [TaskSlot],
    /// The node timelines' booking pool (fill with [`Booking::EMPTY`], or zeroed memory),
    /// split among the clusters in proportion to their nodes and used as the bookings come:
    /// [`StorageSizes::bookings`] never runs out where a node's own list of
    /// `MAX_BOOKINGS_PER_NODE` would not; a shorter pool works until it is full
    /// ([`Capacity::Bookings`](crate::error::Capacity::Bookings)).
    pub bookings: &'a mut [Booking],
    /// Group bookkeeping: `ClusterTimeline::members_len` of each cluster, in order.
    pub members: &'a mut [u32],
    /// Sweep scratch: `ClusterTimeline::scratch_len(largest cluster)` each never runs out
    /// (the first also holds node choice's keys); at least [`StorageSizes::scratch_least`],
    /// and a shorter one than the worst case works until a sweep needs more
    /// ([`Capacity::Nodes`](crate::error::Capacity::Nodes)).
    pub scratch_a: &'a mut [u64],
    /// Second sweep scratch, same length.
    pub scratch_b: &'a mut [u64],
    /// Working entries: at least as many as tasks.
    pub work: &'a mut [Work],
    /// The slots of the tasks that may still wait: at least as many as tasks.
    pub open: &'a mut [u32],
    /// The fit memo; any length (a power of two spreads best); empty disables it.
    pub memo: &'a mut [MemoEntry],
    /// The clusters' void index, split among them in proportion to their nodes (empty for
    /// none): the earliest-start queries then need no sort. A cache, like the memo: any
    /// length, decisions do not depend on it; a cluster whose voids outgrow its share falls
    /// back to sorting. Each cluster's share holds `ClusterTimeline::index_work_len` work
    /// entries, then the index's two sorted arrays.
    pub voids: &'a mut [Void],
    /// The clusters' booking logs, the fit memo's record of each cluster's latest bookings
    /// (fill with [`Logged::EMPTY`]), split equally among the clusters, each share used up to
    /// a power of two. A cache, like the memo: any length, decisions do not depend on it
    /// (empty: the memo forgets an answer at the cluster's next booking);
    /// [`StorageSizes::booking_log`] gives each cluster `BOOKING_LOG` entries. Outside the
    /// controller so that the controller value stays small (it is moved, and on the
    /// firmware copied on the stack).
    pub booking_log: &'a mut [Logged],
}

/// Sizes of the storage a platform and a task count need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageSizes {
    /// Task slots.
    pub tasks: usize,
    /// Bookings of the pool.
    pub bookings: usize,
    /// Group bookkeeping entries.
    pub members: usize,
    /// Each sweep scratch buffer, for the worst case.
    pub scratch: usize,
    /// The least each sweep scratch buffer may be: two entries a node of the largest
    /// cluster (node choice's keys).
    pub scratch_least: usize,
    /// Work entries.
    pub work: usize,
    /// Open-slot entries.
    pub open: usize,
    /// Booking-log entries: [`BOOKING_LOG`] a cluster.
    pub booking_log: usize,
}

impl StorageSizes {
    /// What `tasks` tasks on `platform` need.
    pub fn of(platform: &Platform, tasks: usize) -> StorageSizes {
        let largest = platform
            .clusters()
            .iter()
            .map(|c| c.nodes.0 as usize)
            .max()
            .unwrap_or(0);
        StorageSizes {
            tasks,
            bookings: ClusterTimeline::bookings_len(platform.total_nodes() as usize),
            members: ClusterTimeline::members_len(platform.total_nodes() as usize),
            scratch: ClusterTimeline::scratch_len(largest),
            scratch_least: 2 * largest,
            work: tasks,
            open: tasks,
            booking_log: platform.clusters().len() * BOOKING_LOG,
        }
    }
}

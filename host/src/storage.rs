//! The core's storage on the host: [`HostStorage`] allocates, as `Vec`s, the buffers a
//! controller and its engine need for a platform and a task count, and [`simulate`] runs a
//! task list through the core's engine over it ([`kairos_core::engine`]).
//!
//! The buffers sized by the machine (the booking pool, the void index, the sweep scratch)
//! are as large as the worst case, 1,024 bookings a node, but the core uses each from its
//! start as it needs room, so they are zeroed allocations (`zeroed`): the system maps a
//! page when it is first touched, and a machine of 93,312 nodes costs what its bookings
//! use, not 24 KiB a node.

use kairos_core::engine::{Engine, Observer, Pending, Report, Schedule};
use kairos_core::error::Error;
use kairos_core::platform::Platform;
use kairos_core::task::Task;
use kairos_core::timeline::{Booking, Logged, Void};
use kairos_core::units::Micros;
use kairos_core::utility::UtilityClasses;
use kairos_core::{Config, Controller, MemoEntry, Storage, StorageSizes, TaskSlot, Work};

/// Entries of the fit memo: enough for every (cluster, task type, P-state) of the largest
/// platforms with room to spare, so collisions are rare.
pub const MEMO_ENTRIES: usize = 16384;

/// Void-index entries a node, halved: the buffer holds twice this many a node (see
/// `Storage::voids` for how the clusters split it). A cache size only:
/// decisions do not depend on it.
pub const VOIDS_PER_NODE: usize = 64;

/// [`bytes_for`] of a built platform: its nodes over all clusters and the storage they
/// and `tasks` tasks need (a decoded header's platform, checked before it is run).
pub fn platform_need(platform: &kairos_core::platform::Platform, tasks: u64) -> (u64, u128) {
    let clusters = platform.clusters();
    let nodes: u64 = clusters.iter().map(|c| c.nodes.0 as u64).sum();
    let largest = clusters.iter().map(|c| c.nodes.0 as u64).max().unwrap_or(0);
    (nodes, bytes_for(nodes, largest, tasks))
}

/// The bytes [`HostStorage::new`] allocates for `tasks` tasks on a platform of `nodes` nodes
/// whose largest cluster has `largest` nodes: what a caller checks against
/// [`crate::limits::MAX_STORAGE_BYTES`] before building the platform (u128: no size from
/// input can overflow it). The zeroed buffers count whole: the system may map only what is
/// touched, but it must grant the address space, and a size from a typo must fail here.
pub fn bytes_for(nodes: u64, largest: u64, tasks: u64) -> u128 {
    use kairos_core::limits::{BOOKING_LOG, MAX_CLUSTERS};
    use kairos_core::timeline::ClusterTimeline;
    use std::mem::size_of;
    let (nodes, largest, tasks) = (nodes as u128, largest as u128, tasks as u128);
    let per_node = ClusterTimeline::bookings_len(1) as u128 * size_of::<Booking>() as u128
        + 2 * VOIDS_PER_NODE as u128 * size_of::<Void>() as u128
        + ClusterTimeline::members_len(1) as u128 * size_of::<u32>() as u128;
    let per_largest = 2 * ClusterTimeline::scratch_len(1) as u128 * size_of::<u64>() as u128;
    let per_task = (size_of::<TaskSlot>()
        + size_of::<Work>()
        + size_of::<u32>()
        + 2 * size_of::<Pending>()
        + size_of::<Micros>()) as u128;
    nodes * per_node
        + largest * per_largest
        + tasks * per_task
        + (MEMO_ENTRIES * size_of::<MemoEntry>()) as u128
        + (MAX_CLUSTERS * BOOKING_LOG * size_of::<Logged>()) as u128
}

/// Heap-allocated storage for one controller and its engine.
pub struct HostStorage {
    tasks: Vec<TaskSlot>,
    bookings: Vec<Booking>,
    members: Vec<u32>,
    scratch_a: Vec<u64>,
    scratch_b: Vec<u64>,
    work: Vec<Work>,
    open: Vec<u32>,
    memo: Vec<MemoEntry>,
    pending: Vec<Pending>,
    ends: Vec<Micros>,
    voids: Vec<Void>,
    booking_log: Vec<Logged>,
}

impl HostStorage {
    /// Storage for `tasks` tasks on `platform`, run by [`Engine`].
    pub fn new(platform: &Platform, tasks: usize) -> HostStorage {
        HostStorage::with_caches(platform, tasks, MEMO_ENTRIES, VOIDS_PER_NODE)
    }

    /// As [`HostStorage::new`], with a fit memo of `memo` entries and a void index of
    /// `voids_per_node` a node (0 for none): cache sizes only, decisions do not depend on
    /// them.
    pub fn with_caches(
        platform: &Platform,
        tasks: usize,
        memo: usize,
        voids_per_node: usize,
    ) -> HostStorage {
        HostStorage::with_ring(platform, tasks, tasks, memo, voids_per_node)
    }

    /// As [`HostStorage::with_caches`], with a task table of `slots` entries and an engine
    /// table of pending ends for `ids` task ids. Fewer slots than tasks is a ring: the
    /// controller must recycle them (`Controller::recycle_slots`), and holds at most
    /// `slots` tasks that are not done with, whatever the tasks' number.
    pub fn with_ring(
        platform: &Platform,
        slots: usize,
        ids: usize,
        memo: usize,
        voids_per_node: usize,
    ) -> HostStorage {
        let s = StorageSizes::of(platform, slots);
        HostStorage {
            tasks: vec![TaskSlot::EMPTY; s.tasks],
            bookings: zeroed(s.bookings),
            members: vec![0; s.members],
            scratch_a: vec![0; s.scratch],
            scratch_b: vec![0; s.scratch],
            work: vec![Work::default(); s.work],
            open: vec![0; s.open],
            memo: vec![MemoEntry::default(); memo],
            pending: vec![Pending::default(); completions_for(slots)],
            ends: vec![Micros::MAX; ids],
            voids: zeroed(2 * voids_per_node * platform.total_nodes() as usize),
            booking_log: vec![Logged::EMPTY; s.booking_log],
        }
    }

    /// As [`HostStorage::with_ring`], with the buffers sized by the machine (the booking
    /// pool and the sweep scratch) for `budget` bookings a node rather than the worst case
    /// of `MAX_BOOKINGS_PER_NODE`, and every buffer allocated fallibly: a machine of 93,312
    /// nodes reserves what a replay needs, not 5 GB of address space, and a refused
    /// allocation is an error, not an abort. A budget too small for the run shows as a
    /// capacity error ([`budget_too_small`]); the caller runs again with [`next_budget`]
    /// (the same decisions either way: the core uses these buffers from their start as it
    /// needs room).
    pub fn by_need(
        platform: &Platform,
        slots: usize,
        ids: usize,
        memo: usize,
        voids_per_node: usize,
        budget: usize,
    ) -> Result<HostStorage, AllocError> {
        use kairos_core::limits::MAX_BOOKINGS_PER_NODE;
        let s = StorageSizes::of(platform, slots);
        let budget = budget.clamp(1, MAX_BOOKINGS_PER_NODE);
        let nodes = platform.total_nodes() as usize;
        let largest = s.scratch_least / 2;
        let bookings = if budget == MAX_BOOKINGS_PER_NODE {
            s.bookings
        } else {
            2 * nodes * budget
        };
        let scratch = (largest * (budget + 1)).clamp(s.scratch_least, s.scratch.max(1));
        Ok(HostStorage {
            tasks: filled(s.tasks, TaskSlot::EMPTY, "task table")?,
            bookings: try_zeroed(bookings, "booking pool")?,
            members: filled(s.members, 0, "group table")?,
            scratch_a: try_zeroed(scratch, "sweep scratch")?,
            scratch_b: try_zeroed(scratch, "sweep scratch")?,
            work: filled(s.work, Work::default(), "work table")?,
            open: filled(s.open, 0, "open-slot table")?,
            memo: filled(memo, MemoEntry::default(), "fit memo")?,
            pending: filled(
                completions_for(slots),
                Pending::default(),
                "completion buffer",
            )?,
            ends: filled(ids, Micros::MAX, "table of pending ends")?,
            voids: try_zeroed(2 * voids_per_node * nodes, "void index")?,
            booking_log: filled(s.booking_log, Logged::EMPTY, "booking log")?,
        })
    }

    /// This storage handed out: the controller's and the engine's.
    pub fn split(&mut self) -> Split<'_> {
        Split {
            controller: Storage {
                tasks: &mut self.tasks,
                bookings: &mut self.bookings,
                members: &mut self.members,
                scratch_a: &mut self.scratch_a,
                scratch_b: &mut self.scratch_b,
                work: &mut self.work,
                open: &mut self.open,
                memo: &mut self.memo,
                voids: &mut self.voids,
                booking_log: &mut self.booking_log,
            },
            pending: &mut self.pending,
            ends: &mut self.ends,
        }
    }
}

/// A [`HostStorage`] handed out, one part to each user.
pub struct Split<'s> {
    /// The controller's storage ([`Controller::new`]).
    pub controller: Storage<'s>,
    /// The engine's pending completions ([`Engine::new`]).
    pub pending: &'s mut [Pending],
    /// The engine's table of pending ends ([`Engine::with_pending_ends`]).
    pub ends: &'s mut [Micros],
}

/// The completion buffer [`Engine`] needs for `tasks` tasks: every task can be
/// committed, and re-committed once per reservation it loses.
pub fn completions_for(tasks: usize) -> usize {
    2 * tasks + 16
}

/// Replays `tasks` (sorted by arrival) on `platform` under `config`.
pub fn simulate(
    platform: &Platform,
    classes: &UtilityClasses,
    config: Config,
    schedule: Schedule,
    tasks: &[Task],
    observer: &mut dyn Observer,
) -> Result<Report, Error> {
    let mut storage = HostStorage::new(platform, tasks.len());
    let parts = storage.split();
    let mut ctl = Controller::new(platform, classes, config, parts.controller)?;
    Engine::new(schedule, parts.pending)
        .with_pending_ends(parts.ends)
        .run(&mut ctl, tasks.iter().cloned().map(Ok), observer)
}

/// Bookings a node the first attempt of a by-need storage provides
/// ([`HostStorage::by_need`]): a replay of the Curie log (93,312 nodes) peaks far below it.
pub const FIRST_BUDGET: usize = 32;

/// The budget after `budget` proved too small, or `None` past the worst case
/// (`MAX_BOOKINGS_PER_NODE`, where a capacity error is the run's own).
pub fn next_budget(budget: usize) -> Option<usize> {
    use kairos_core::limits::MAX_BOOKINGS_PER_NODE;
    (budget < MAX_BOOKINGS_PER_NODE).then(|| (budget * 4).min(MAX_BOOKINGS_PER_NODE))
}

/// Whether `e` says a by-need storage's budget was too small (the booking pool or the
/// sweep scratch is full): the run goes again with [`next_budget`].
pub fn budget_too_small(e: &Error) -> bool {
    use kairos_core::error::Capacity;
    matches!(e, Error::Capacity(c) if matches!(c.what, Capacity::Bookings | Capacity::Nodes))
}

/// A buffer the system refused ([`HostStorage::by_need`]).
#[derive(Debug, thiserror::Error)]
#[error("cannot allocate {bytes} bytes for the {what} (the system refused them; a limit on address space, `ulimit -v`, may be too low)")]
pub struct AllocError {
    /// The buffer.
    pub what: &'static str,
    /// Its size.
    pub bytes: u128,
}

/// `n` copies of `v`, or an error if the system refuses the memory.
fn filled<T: Clone>(n: usize, v: T, what: &'static str) -> Result<Vec<T>, AllocError> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| AllocError {
        what,
        bytes: n as u128 * std::mem::size_of::<T>() as u128,
    })?;
    out.resize(n, v);
    Ok(out)
}

/// `n` zeroed values allocated zeroed (pages mapped only once touched), or an error if the
/// system refuses them.
fn try_zeroed<T: Zeroable>(n: usize, what: &'static str) -> Result<Vec<T>, AllocError> {
    let refused = || AllocError {
        what,
        bytes: n as u128 * std::mem::size_of::<T>() as u128,
    };
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| refused())?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // Safety: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if p.is_null() {
        return Err(refused());
    }
    // Safety: `p` was allocated by the global allocator with the layout of `n` values of `T`
    // (so `Vec` frees it with the same), and all-zero bytes are `n` valid values.
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// A type whose all-zero bytes are a valid value: the core's pool entries.
///
/// # Safety
/// An implementor must be valid as all-zero bytes.
unsafe trait Zeroable: Sized {}

// Safety: two `Micros` (u64), a `TaskId` (u32) and a `BookingKind` (`repr(u8)`, `Running`
// is 0): `Booking::EMPTY`.
unsafe impl Zeroable for Booking {}
// Safety: u64, u64, u32, u32: `Void::default()`.
unsafe impl Zeroable for Void {}
// Safety: an integer.
unsafe impl Zeroable for u64 {}

/// `n` zeroed values, allocated zeroed: for a large `n` the system hands out pages that are
/// mapped, and count as resident, only once touched. If the system refuses so much, the
/// largest half, quarter... that it grants (a buffer the core uses as needed: a shorter one
/// gives the same answers until it is full, and then a capacity error).
fn zeroed<T: Zeroable>(n: usize) -> Vec<T> {
    let mut n = n;
    while n > 0 {
        let Ok(layout) = std::alloc::Layout::array::<T>(n) else {
            n /= 2;
            continue;
        };
        if layout.size() == 0 {
            break;
        }
        // Safety: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
        if p.is_null() {
            n /= 2;
            continue;
        }
        // Safety: `p` was allocated by the global allocator with the layout of `n` values of
        // `T` (so `Vec` frees it with the same), and all-zero bytes are `n` valid values
        // (`Zeroable`).
        return unsafe { Vec::from_raw_parts(p, n, n) };
    }
    Vec::new()
}

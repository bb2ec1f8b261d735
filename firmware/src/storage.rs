//! The controller's storage: fixed-size `static` buffers, placed in `.bss` and initialised
//! once at start-up, so that the image never allocates and its RAM use is known from the ELF.
//!
//! # Capacities
//!
//! The replay image is sized for the reference scenarios (3 clusters of 16 / 24 / 32 nodes,
//! 360 tasks) with headroom; the live image (`--features live`) for seed 000's whole
//! platform (2,180 nodes in 6 clusters of up to 592) and ESSC 10k's day: a task table of
//! [`TASKS`] slots, timelines for [`NODES`] nodes over a pool of [`BOOKINGS`] bookings, sweep
//! scratch of [`SCRATCH`] entries for clusters of up to [`LARGEST_CLUSTER`] nodes. A scenario
//! beyond them fails cleanly with a capacity error that says what it needs
//! (`Controller::new` checks the nodes and the scratch, `on_arrival` the task table, a
//! booking the pool); raise the constants here, at the cost of the RAM docs/firmware.md
//! tabulates (memory.x fails the link if the statics leave the stack too little).
//!
//! The fit memo's size ([`MEMO`]) and the spare task slots change nothing in the result (the
//! host test `digest_does_not_depend_on_storage_sizes` checks it), only speed and RAM.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, Ordering};

use kairos_core::engine::Pending;
use kairos_core::packed::PackedHeader;
use kairos_core::limits::{BOOKING_LOG, MAX_BOOKINGS_PER_NODE, MAX_CLUSTERS};
use kairos_core::timeline::{Booking, ClusterTimeline, Logged};
use kairos_core::{MemoEntry, Storage, TaskSlot, Work};

/// Whether this is the live image (`--features live`), whose storage is sized for seed
/// 000's platform rather than for the reference scenarios.
const LIVE: bool = cfg!(feature = "live");

/// Task slots: the most tasks a scenario may have (the live mode: may hold at once, the
/// slots being given again as tasks finish). 512 for the replay; 1,536 live (ESSC 10k holds
/// 1,128 at once under Max UPE, docs/firmware.md); or `KAIROS_FW_TASKS` at build time
/// (docs/firmware.md sizes the largest that links).
pub const TASKS: usize = match option_env!("KAIROS_FW_TASKS") {
    Some(s) => parse(s),
    None if LIVE => 1536,
    None => 512,
};

/// A decimal number, at compile time (a bad one fails the build).
const fn parse(s: &str) -> usize {
    let b = s.as_bytes();
    let mut n = 0usize;
    let mut i = 0;
    assert!(!b.is_empty(), "KAIROS_FW_TASKS must be a decimal number");
    while i < b.len() {
        assert!(b[i].is_ascii_digit(), "KAIROS_FW_TASKS must be a decimal number");
        n = n * 10 + (b[i] - b'0') as usize;
        i += 1;
    }
    n
}
/// Node timelines: the most nodes over all clusters (live: seed 000's 2,180 and some).
pub const NODES: usize = if LIVE { 2304 } else { 96 };
/// The booking pool, which the clusters split in proportion to their nodes and use as
/// their bookings come. Replay: a full list ([`MAX_BOOKINGS_PER_NODE`]) for each of
/// [`NODES`] nodes, half the bound that never runs out (`ClusterTimeline::bookings_len`),
/// which the reference scenarios are far from. Live: what seed 000's platform needs
/// measured, with headroom: ESSC 10k under Max UPE needs 58,381 (its cluster `gp-3` peaks
/// at 5,356 bookings' room on 200 of the 2,180 nodes; docs/firmware.md), against the 16 MB
/// that full lists would take.
pub const BOOKINGS: usize = if LIVE {
    72_000
} else {
    NODES * MAX_BOOKINGS_PER_NODE
};
/// The largest cluster node choice's keys (two entries a node of the sweep scratch) serve.
pub const LARGEST_CLUSTER: usize = if LIVE { 1024 } else { 48 };
/// Entries of each sweep scratch buffer. The replay: the worst case of its largest cluster.
/// Live: far below the worst case of clusters of hundreds of nodes (a sweep goes group by
/// group, and ESSC 10k's needs no more than node choice's keys); a sweep that needs more is
/// a capacity error naming what it needs.
pub const SCRATCH: usize = if LIVE {
    16384
} else {
    ClusterTimeline::scratch_len(LARGEST_CLUSTER)
};
const _: () = assert!(SCRATCH >= 2 * LARGEST_CLUSTER);
/// Entries of the fit memo (a power of two).
pub const MEMO: usize = 1024;
/// Pending completions: the engine wants twice the tasks (re-placed reservations leave
/// stale entries until compacted) and room to stage one event's commitments.
pub const PENDING: usize = 2 * TASKS + 16;

/// A `static` that starts uninitialised and is handed out once, as `&'static mut`.
pub struct Static<T>(UnsafeCell<MaybeUninit<T>>);

// Safety: each `Static` is only reached through `take`, which hands it out at most once.
unsafe impl<T> Sync for Static<T> {}

impl<T> Static<T> {
    pub const fn new() -> Static<T> {
        Static(UnsafeCell::new(MaybeUninit::uninit()))
    }
    pub fn ptr(&self) -> *mut T {
        self.0.get().cast()
    }
}

static HEADER: Static<PackedHeader> = Static::new();
static TASK_SLOTS: Static<[TaskSlot; TASKS]> = Static::new();
static BOOKING_POOL: Static<[Booking; BOOKINGS]> = Static::new();
static MEMBERS: Static<[u32; ClusterTimeline::members_len(NODES)]> = Static::new();
static SCRATCH_A: Static<[u64; SCRATCH]> = Static::new();
static SCRATCH_B: Static<[u64; SCRATCH]> = Static::new();
static WORK: Static<[Work; TASKS]> = Static::new();
static OPEN: Static<[u32; TASKS]> = Static::new();
static MEMO_ENTRIES: Static<[MemoEntry; MEMO]> = Static::new();
static PENDING_BUF: Static<[Pending; PENDING]> = Static::new();
/// The clusters' booking logs for the fit memo, outside the controller (which decoding
/// copies on the stack): [`BOOKING_LOG`] entries for each of up to [`MAX_CLUSTERS`].
static BOOKING_LOGS: Static<[Logged; MAX_CLUSTERS * BOOKING_LOG]> = Static::new();

static TAKEN: AtomicBool = AtomicBool::new(false);

/// Every buffer, initialised, each borrowed for the rest of the run.
pub struct Buffers {
    /// Where the decoded scenario header goes (it is too large to keep on the stack).
    pub header: &'static mut MaybeUninit<PackedHeader>,
    /// The controller's storage.
    pub storage: Storage<'static>,
    /// The engine's completion buffer.
    pub pending: &'static mut [Pending],
}

/// The buffers, initialised; `None` on a second call.
pub fn take() -> Option<Buffers> {
    if TAKEN.swap(true, Ordering::AcqRel) {
        return None;
    }
    // Safety: TAKEN guarantees that this runs once, so each static is borrowed once.
    unsafe {
        Some(Buffers {
            header: &mut *HEADER.0.get(),
            storage: Storage {
                tasks: fill(TASK_SLOTS.ptr(), || TaskSlot::EMPTY),
                bookings: fill(BOOKING_POOL.ptr(), || Booking::EMPTY),
                members: fill(MEMBERS.ptr(), || 0),
                scratch_a: fill(SCRATCH_A.ptr(), || 0),
                scratch_b: fill(SCRATCH_B.ptr(), || 0),
                work: fill(WORK.ptr(), Work::default),
                open: fill(OPEN.ptr(), || 0),
                memo: fill(MEMO_ENTRIES.ptr(), MemoEntry::default),
                // No void index: the firmware's clusters are small enough to sort.
                voids: &mut [],
                booking_log: fill(BOOKING_LOGS.ptr(), || Logged::EMPTY),
            },
            pending: fill(PENDING_BUF.ptr(), Pending::default),
        })
    }
}

/// Initialises every element of the static array at `array` with `f` and borrows it for good.
///
/// Safety: `array` points to a `static`, which the caller borrows only once.
pub unsafe fn fill<T, const N: usize>(
    array: *mut [T; N],
    mut f: impl FnMut() -> T,
) -> &'static mut [T] {
    let p = array.cast::<T>();
    for i in 0..N {
        p.add(i).write(f());
    }
    core::slice::from_raw_parts_mut(p, N)
}

/// Bytes of one task's storage (slot, work entry, two pending entries): what each more task
/// of capacity costs.
pub const BYTES_PER_TASK: usize = core::mem::size_of::<TaskSlot>()
    + core::mem::size_of::<Work>()
    + 2 * core::mem::size_of::<Pending>();
/// Bytes of one node's storage (its group bookkeeping; its bookings are in the pool).
pub const BYTES_PER_NODE: usize = ClusterTimeline::members_len(1) * 4;
/// Bytes of one booking of the pool.
pub const BYTES_PER_BOOKING: usize = core::mem::size_of::<Booking>();

//! Compile-time capacity limits of the core's fixed-capacity structures.
//!
//! As in smoltcp, limits are constants in one place: raising one costs memory in every
//! structure sized by it, which matters on the firmware. Exceeding any of them is a
//! [`CapacityError`](crate::error::CapacityError), never a panic.

/// Most clusters a platform may have.
pub const MAX_CLUSTERS: usize = 8;
/// Most P-states a node may offer.
pub const MAX_PSTATES: usize = 4;
/// Most task types a platform may describe.
pub const MAX_TASK_TYPES: usize = 128;
/// Most listed node counts in one ETC curve (seed 000 Fig. 2).
pub const MAX_ETC_POINTS: usize = 8;
/// Most utility classes a scenario may define (seed 000 uses 20).
pub const MAX_UTILITY_CLASSES: usize = 32;
/// Most intervals after the first in one utility class (seed 002 Table C.1 uses 6).
pub const MAX_CLASS_INTERVALS: usize = 8;
/// Most bookings (running, reserved or place-held) one node may carry at once.
///
/// Conservative Backfilling reserves every waiting task, so at ESSC 10k one node of trial 0
/// carries 281 (74 at 5k). The host enables the `host-limits` feature (1024, 24 KiB a node);
/// the firmware keeps 256 (6 KiB a node), which its reference scenarios never approach.
#[cfg(feature = "host-limits")]
pub const MAX_BOOKINGS_PER_NODE: usize = 1024;
/// Most bookings (running, reserved or place-held) one node may carry at once (see the
/// `host-limits` feature for the host's larger limit).
#[cfg(not(feature = "host-limits"))]
pub const MAX_BOOKINGS_PER_NODE: usize = 256;

/// Bookings each cluster remembers (when, and on how many nodes) so that the controller's fit
/// memo can check a cached answer against the bookings made since, at lookup, instead of
/// visiting every memo entry at every booking. An answer older than this many bookings of its
/// cluster is recomputed. A power of two (the log is a ring indexed by a wrapping counter).
/// The host (`host-limits`) keeps 512 (12 KiB a cluster): an ESSC 10k place-holder event
/// books about 100 times a cluster.
#[cfg(feature = "host-limits")]
pub const BOOKING_LOG: usize = 512;
/// Bookings each cluster remembers for the fit memo (see the `host-limits` feature): 16 on
/// the firmware (384 B a cluster, inside the controller, which lives on the stack there).
#[cfg(not(feature = "host-limits"))]
pub const BOOKING_LOG: usize = 16;

const _: () = assert!(BOOKING_LOG.is_power_of_two());

/// Most tasks one DAG job may have (seed 003: 5 to 10). A task set is a `u16` bitset, so this
/// cannot exceed 16 without widening [`TaskSet`](crate::dag::job::TaskSet).
pub const MAX_DAG_TASKS: usize = 16;
/// Most DVFS levels of a seed 003 core (the paper's Intel Core M has 6). Separate from
/// [`MAX_PSTATES`]: seed 003's levels are per core and per task, priced by a voltage model, not
/// a platform's per-cluster P-state table, so raising this costs no existing structure.
pub const MAX_DVFS_LEVELS: usize = 8;

const _: () = assert!(MAX_DAG_TASKS <= 16);

/// The shortest periodic mapping interval a schedule may ask for, in microseconds (zero
/// means the default minute). The TOML scenario's bound (`simulation.mapping_interval_s`
/// from 1) is the same; a decoded schedule is held to it by
/// [`Schedule::check`](crate::engine::Schedule::check).
pub const MIN_MAPPING_INTERVAL_US: u64 = 1_000_000;
/// Most periodic mapping events one day may hold: a 10,000-hour horizon at one a second,
/// the TOML scenario's own bounds. An encoded schedule past it (a corrupt interval of a few
/// microseconds) would run for days and, on the host, record every event; it is
/// [`InputError::BadSchedule`](crate::error::InputError::BadSchedule) instead.
pub const MAX_PERIODIC_MAPPINGS: u64 = 10_000 * 3_600;

/// The most a utility curve may be worth (its priority, or a linear curve's start). The
/// seeds' values are at most 100; a million leaves room for any rescaled study while a sum
/// of one such value per task stays exact in the ledger's `u64` micro-units for 18 million
/// tasks. A larger value is
/// [`InputError::UtilityTooLarge`](crate::error::InputError::UtilityTooLarge), from
/// `UtilityCurve::check` and `UtilityCurve::value_at`, not an overflow of the engine's sums.
pub const MAX_CURVE_VALUE: f64 = 1e6;

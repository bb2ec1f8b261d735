//! The core's error types: a full buffer or an inconsistent input is an `Err`, never a panic.

use crate::units::{Micros, MilliJoules, NodeCount};
use core::fmt;
use serde::{Deserialize, Serialize};

/// Which fixed-capacity structure ran out of room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Capacity {
    /// The platform's cluster list ([`MAX_CLUSTERS`](crate::limits::MAX_CLUSTERS)).
    Clusters,
    /// The P-states of a node ([`MAX_PSTATES`](crate::limits::MAX_PSTATES)).
    PStates,
    /// The platform's task types ([`MAX_TASK_TYPES`](crate::limits::MAX_TASK_TYPES)).
    TaskTypes,
    /// The listed points of an ETC curve ([`MAX_ETC_POINTS`](crate::limits::MAX_ETC_POINTS)).
    EtcPoints,
    /// The scenario's utility classes.
    UtilityClasses,
    /// The intervals of a utility class.
    ClassIntervals,
    /// The bookings of one node ([`MAX_BOOKINGS_PER_NODE`](crate::limits::MAX_BOOKINGS_PER_NODE)).
    NodeBookings,
    /// The node storage the caller gave a cluster timeline.
    Nodes,
    /// The task table the caller gave the controller.
    Tasks,
    /// The pending-completion buffer the caller gave the engine.
    Pending,
    /// The booking pool the caller gave the node timelines (`Storage::bookings`).
    Bookings,
}

/// A fixed-capacity structure is full; the value says which, and the limit it hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CapacityError {
    /// The structure that is full.
    pub what: Capacity,
    /// Its capacity.
    pub capacity: u32,
    /// What the run needs of it, when the structure knows (more than `capacity`); 0 when
    /// it only knows that one more did not fit.
    pub needs: u32,
}

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hint = match self.what {
            Capacity::NodeBookings => {
                "raise limits::MAX_BOOKINGS_PER_NODE, at the cost of RAM per node"
            }
            Capacity::Tasks => "give the controller a larger task table",
            Capacity::Nodes => "give the timeline storage for every node of the platform",
            Capacity::Pending => "give the engine a larger pending buffer (twice the tasks)",
            Capacity::Bookings => {
                "the counts are one cluster's share of the booking pool, which the clusters split \
                 in proportion to their nodes: give the timelines a larger pool"
            }
            _ => "raise the matching limit in kairos_core::limits",
        };
        write!(
            f,
            "capacity exceeded: {:?} holds at most {}",
            self.what, self.capacity
        )?;
        if self.needs > self.capacity {
            write!(f, ", this run needs {}", self.needs)?;
        }
        write!(f, " ({hint})")
    }
}

impl core::error::Error for CapacityError {}

/// An input the core cannot accept: it names what is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum InputError {
    /// A cluster index that the platform does not have.
    UnknownCluster(u8),
    /// A task type index that the platform does not have.
    UnknownTaskType(u16),
    /// A utility class index that the scenario does not define.
    UnknownUtilityClass(u8),
    /// A task id that the controller does not hold.
    UnknownTask(u32),
    /// A P-state index the platform does not offer.
    UnknownPState(u8),
    /// A task that asks for no node, or more nodes than its cluster has.
    BadNodeCount {
        /** nodes asked */
        nodes: u32,
        /** nodes the cluster has */
        cluster_nodes: u32,
    },
    /// A zero execution time.
    ZeroDuration,
    /// ETC points not strictly increasing in node count, or empty.
    BadEtcCurve,
    /// A node count outside the listed range of an ETC curve.
    NodeCountOutsideEtc(u32),
    /// A task type that no cluster can run.
    NoEligibleCluster(u16),
    /// A value that must be finite and non-negative is not.
    BadNumber,
    /// Events given out of time order (the clock moved backwards).
    TimeWentBackwards,
    /// A task arrived twice, or completed without having started.
    BadTaskState(u32),
    /// A booking that would overlap another on the same node.
    Overlap,
    /// Encoded input (a packed scenario, see [`crate::packed`]) that does not decode: truncated,
    /// corrupt, or of another format version. The value is the byte offset where it failed.
    Undecodable(u32),
    /// A utility curve worth more than
    /// [`MAX_CURVE_VALUE`](crate::limits::MAX_CURVE_VALUE) (a priority or a linear curve's
    /// start): no seed comes near it, and sums of such values could overflow the integer
    /// ledger.
    UtilityTooLarge,
    /// A periodic schedule with a mapping interval under
    /// [`MIN_MAPPING_INTERVAL_US`](crate::limits::MIN_MAPPING_INTERVAL_US), or more mapping
    /// events in the day than [`MAX_PERIODIC_MAPPINGS`](crate::limits::MAX_PERIODIC_MAPPINGS).
    BadSchedule,
    /// A node index its cluster does not have (a node taken out of service or back). Last
    /// of the variants so that the others keep their encoding on the wire.
    UnknownNode {
        /** the cluster */
        cluster: u8,
        /** the node asked for */
        node: u32,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::UnknownCluster(c) => write!(f, "unknown cluster {c}"),
            InputError::UnknownTaskType(t) => write!(f, "unknown task type {t}"),
            InputError::UnknownUtilityClass(c) => write!(f, "unknown utility class {c}"),
            InputError::UnknownTask(t) => write!(f, "unknown task {t}"),
            InputError::UnknownPState(p) => write!(f, "unknown P-state {p}"),
            InputError::BadNodeCount {
                nodes,
                cluster_nodes,
            } => {
                write!(
                    f,
                    "a task needs {nodes} nodes but its cluster has {cluster_nodes}"
                )
            }
            InputError::ZeroDuration => write!(f, "an execution time of zero"),
            InputError::BadEtcCurve => {
                write!(
                    f,
                    "ETC points must be non-empty and strictly increasing in node count"
                )
            }
            InputError::NodeCountOutsideEtc(n) => {
                write!(
                    f,
                    "{n} nodes is outside the node counts listed in the ETC curve"
                )
            }
            InputError::NoEligibleCluster(t) => write!(f, "task type {t} has no eligible cluster"),
            InputError::BadNumber => {
                write!(f, "a number that must be finite and non-negative is not")
            }
            InputError::TimeWentBackwards => {
                write!(f, "an event is earlier than the controller's clock")
            }
            InputError::BadTaskState(t) => {
                write!(f, "task {t} is not in a state that allows this event")
            }
            InputError::Overlap => write!(f, "a booking overlaps another on the same node"),
            InputError::Undecodable(at) => {
                write!(
                    f,
                    "undecodable input at byte {at} (truncated, corrupt or another format version)"
                )
            }
            InputError::UtilityTooLarge => {
                write!(
                    f,
                    "a utility curve worth more than {} (a priority or curve start over the limit)",
                    crate::limits::MAX_CURVE_VALUE
                )
            }
            InputError::BadSchedule => {
                write!(
                    f,
                    "a mapping interval under {} s, or more than {} periodic mapping events in the day",
                    crate::limits::MIN_MAPPING_INTERVAL_US / 1_000_000,
                    crate::limits::MAX_PERIODIC_MAPPINGS
                )
            }
            InputError::UnknownNode { cluster, node } => {
                write!(f, "cluster {cluster} has no node {node}")
            }
        }
    }
}

impl core::error::Error for InputError {}

/// Why a decision proposed by an external policy was refused ([`crate::external`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Refusal {
    /// The task has not arrived (or its id was never given).
    NotArrived,
    /// The task is not waiting: it was started, reserved, completed or dropped.
    NotWaiting,
    /// A start that is not at the event's time, or a reservation that is not after it.
    WrongTime {
        /// The event's time.
        now: Micros,
    },
    /// A place-holder: an external policy starts, reserves or drops.
    PlaceHold,
    /// The task cannot run on that cluster (it is not one of its partitions).
    WrongPartition,
    /// A P-state the platform does not have.
    NoSuchPState {
        /// P-states the platform has.
        pstates: u8,
    },
    /// Nodes or planned end other than the task's on that cluster and P-state.
    WrongShape {
        /// The nodes it needs there.
        nodes: NodeCount,
        /// Its planned end from that start.
        end: Micros,
    },
    /// Not enough nodes of the cluster are free over the run.
    Busy {
        /// Nodes free over the whole run.
        free: u32,
    },
    /// A start at or after the end of the day.
    AfterDay {
        /// The day's end.
        day_end: Micros,
    },
    /// Its energy inside the day is more than the budget has left.
    OverBudget {
        /// Its energy inside the day.
        need: MilliJoules,
        /// What the day's budget has left.
        left: MilliJoules,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotArrived => f.write_str("the task has not arrived"),
            Refusal::NotWaiting => f.write_str(
                "the task is not waiting (it was started, reserved, completed or dropped)",
            ),
            Refusal::WrongTime { now } => write!(
                f,
                "a start must be at the event's time ({} us) and a reservation after it",
                now.0
            ),
            Refusal::PlaceHold => {
                f.write_str("a place-holder (an external policy starts, reserves or drops)")
            }
            Refusal::WrongPartition => f.write_str("the task cannot run on that cluster"),
            Refusal::NoSuchPState { pstates } => {
                write!(f, "no such P-state (the platform has {pstates})")
            }
            Refusal::WrongShape { nodes, end } => write!(
                f,
                "the task needs {} nodes there and would end at {} us",
                nodes.0, end.0
            ),
            Refusal::Busy { free } => write!(f, "nodes busy: {free} free over the run"),
            Refusal::AfterDay { day_end } => {
                write!(
                    f,
                    "the start is at or after the day's end ({} us)",
                    day_end.0
                )
            }
            Refusal::OverBudget { need, left } => write!(
                f,
                "over the energy budget: it needs {} mJ inside the day, {} mJ are left",
                need.0, left.0
            ),
        }
    }
}

/// Any error the core returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// A fixed-capacity structure is full.
    Capacity(CapacityError),
    /// An input is inconsistent.
    Input(InputError),
    /// A decision of an external policy was refused ([`crate::external`]).
    Refused(Refusal),
    /// An external policy failed (it died, hung or spoke garbage); its caller holds why.
    External,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Capacity(e) => e.fmt(f),
            Error::Input(e) => e.fmt(f),
            Error::Refused(r) => write!(f, "decision refused: {r}"),
            Error::External => f.write_str("the external controller failed"),
        }
    }
}

impl core::error::Error for Error {}

impl From<CapacityError> for Error {
    fn from(e: CapacityError) -> Error {
        Error::Capacity(e)
    }
}
impl From<InputError> for Error {
    fn from(e: InputError) -> Error {
        Error::Input(e)
    }
}

/// Shorthand for building a [`CapacityError`].
pub(crate) const fn full(what: Capacity, capacity: usize) -> CapacityError {
    full_needing(what, capacity, 0)
}

/// A [`CapacityError`] that says what the run needs (`needs`, beyond `capacity`); sizes
/// past `u32::MAX` read as it.
pub(crate) const fn full_needing(what: Capacity, capacity: usize, needs: usize) -> CapacityError {
    const fn clamp(n: usize) -> u32 {
        if n > u32::MAX as usize {
            u32::MAX
        } else {
            n as u32
        }
    }
    CapacityError {
        what,
        capacity: clamp(capacity),
        needs: clamp(needs),
    }
}

//! The messages of the wire protocol: what the host asks ([`Request`]) and what the
//! controller answers ([`Response`]), each in an [`Envelope`] with the request's sequence
//! number, encoded with postcard inside a frame ([`super::frame`]).
//!
//! Decoding never panics and never trusts what it decodes: a platform goes through the same
//! constructors as a packed scenario's ([`crate::packed`]), a task through the controller's
//! checks at arrival, and every list has a fixed capacity, so a message that claims more
//! is an error, not an allocation.

use crate::controller::Counts;
use crate::error::Error;
use crate::plan::Decision;
use crate::platform::ClusterId;
use crate::task::{Task, TaskId};
use crate::units::{Micros, MilliJoules, Utility};
use serde::{Deserialize, Serialize};

use super::frame::FrameError;

/// The protocol's version: bumped whenever a message's layout changes. A controller answers
/// a hello of another version with [`Fault::Version`].
pub const VERSION: u16 = 1;

/// The largest message payload (postcard bytes inside a frame), either way. A hello carries a
/// packed scenario header (clusters, classes, configuration, task types), the largest message.
pub const MAX_PAYLOAD: usize = 16384;

/// Decisions in one [`Page`]: a page stays well under [`MAX_PAYLOAD`] (a decision with its
/// fate is at most 60 bytes).
pub const PAGE: usize = 48;

/// A message and the sequence number of the request it is, or answers.
///
/// The host numbers each new request one more than the last and sends a retry with the same
/// number; the controller answers a request whose number equals the last one it served with
/// its cached answer, without serving it again: a retry is idempotent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    /// The request's sequence number.
    pub seq: u32,
    /// The message.
    pub body: T,
}

/// What the host asks of the controller.
// One message is alive at a time and the core cannot box: the size gap costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request<'a> {
    /// Starts a session: a packed scenario header ([`crate::packed::encode_header`]: the
    /// platform, its utility classes, the configuration with its energy budget and its day;
    /// the header's schedule and task count are ignored). Any session before it ends.
    Hello {
        /// The host's [`VERSION`].
        version: u16,
        /// The packed header's bytes.
        #[serde(borrow)]
        header: &'a [u8],
    },
    /// A task arrives at its arrival time.
    Arrival(Task),
    /// A task ended at `at`, for the assignment with sequence number `seq` (the one its
    /// commitment's [`Fate`] gave). A completion for an assignment the task no longer has (it
    /// was re-placed since) is answered [`Response::Stale`] and changes nothing.
    Completion {
        /// The task.
        task: TaskId,
        /// When it ended.
        at: Micros,
        /// The assignment's sequence number.
        seq: u32,
    },
    /// Runs a mapping event at `now`; the answer is the first [`Page`] of its decisions.
    Map {
        /// The event's time.
        now: Micros,
    },
    /// The page of the last mapping event's decisions that starts at decision `from`.
    Page {
        /// The first decision wanted.
        from: u32,
    },
    /// The ledgers and counts.
    Status,
    /// Ends the session: the controller forgets everything and waits for a hello.
    Reset,
    /// A waiting task taken back at `at` by whoever submitted it (a live cluster's job
    /// cancelled before it started): dropped, its reservation (if any) released
    /// ([`crate::Controller::withdraw`]). Answered [`Response::Withdrawn`]. After the others
    /// so that they keep their encoding.
    Withdraw {
        /// The task.
        task: TaskId,
        /// When it was taken back.
        at: Micros,
    },
    /// Node `node` of `cluster` goes out of service at `at` (`in_service` false: drained or
    /// down) or comes back (true) ([`crate::Controller::node_out`],
    /// [`crate::Controller::node_in`]). Answered [`Response::NodeService`]. After
    /// [`Request::Withdraw`] so that the others keep their encoding.
    NodeService {
        /// The cluster.
        cluster: ClusterId,
        /// The node, within its cluster.
        node: u32,
        /// Whether it is in service from `at` on.
        in_service: bool,
        /// When.
        at: Micros,
    },
}

/// What the controller can hold, told in its answer to a hello.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Capacities {
    /// The controller's [`VERSION`].
    pub version: u16,
    /// Task slots: the most tasks waiting, running or reserved at once.
    pub tasks: u32,
    /// Node timelines: the most nodes over all clusters.
    pub nodes: u32,
    /// Decisions one mapping event may make.
    pub decisions: u32,
    /// The largest payload it accepts ([`MAX_PAYLOAD`]).
    pub payload: u32,
}

/// Where a committed task ended up once its mapping event was over: what the host needs to
/// know when it completes. A commitment may be re-placed later in the same event (EASY and
/// Conservative take reservations back), so this is read after the event, not at the
/// decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Fate {
    /// Not a commitment (a place-holder or a drop).
    None,
    /// Committed where the decision says, as assignment `seq`.
    Same {
        /// The assignment's sequence number.
        seq: u32,
    },
    /// Re-placed later in the event: this start and end, as assignment `seq`.
    Moved {
        /// Its start.
        start: Micros,
        /// Its planned end.
        end: Micros,
        /// The assignment's sequence number.
        seq: u32,
    },
    /// Taken back later in the event and left without an assignment.
    Gone,
}

/// A decision and its fate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decided {
    /// The decision, as the controller made it (what the digest hashes).
    pub decision: Decision,
    /// Where its task was once the event was over.
    pub fate: Fate,
}

impl Decided {
    /// A placeholder to fill a caller's decision buffer with.
    pub const BLANK: Decided = Decided {
        decision: Decision {
            task: TaskId(0),
            kind: crate::plan::DecisionKind::Drop,
            cluster: crate::platform::ClusterId(0),
            nodes: crate::units::NodeCount(0),
            pstate: crate::platform::PState(0),
            start: Micros::ZERO,
            end: Micros::ZERO,
        },
        fate: Fate::None,
    };
}

/// Part of a mapping event's decisions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// The event's decisions, all pages together.
    pub total: u32,
    /// The index of this page's first decision.
    pub from: u32,
    /// Utility earned inside the day so far, after the event.
    pub utility: Utility,
    /// Energy consumed inside the day so far, after the event.
    pub consumed: MilliJoules,
    /// Decisions `from..from + decisions.len()`.
    pub decisions: Decisions,
}

/// The decisions of one [`Page`].
pub type Decisions = heapless::Vec<Decided, PAGE>;

/// The ledgers and counts ([`Request::Status`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Status {
    /// The controller's clock: the time of the last event.
    pub now: Micros,
    /// Utility earned inside the day.
    pub utility: Utility,
    /// Energy consumed inside the day.
    pub consumed: MilliJoules,
    /// Energy committed to running and reserved tasks.
    pub committed: MilliJoules,
    /// The day's budget.
    pub budget: MilliJoules,
    /// The run's counters.
    pub counts: Counts,
    /// The end of the current energy day (the day rolls over at the first mapping event at
    /// or past it, to the next day as long).
    pub day_end: Micros,
    /// Task slots in use: tasks that arrived and are not yet completed or dropped.
    pub slots_used: u32,
}

/// Why a request was not served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Fault {
    /// The request's frame was damaged (its sequence number is unknown: the answer carries
    /// 0); the host sends it again.
    Garbled(FrameError),
    /// The frame was sound but its payload is not a request of this version.
    Undecodable,
    /// A hello of another protocol version; the controller speaks this one.
    Version(u16),
    /// No session: send a hello first.
    NoSession,
    /// The controller refused the event (a capacity exceeded, a bad input); it keeps
    /// serving, its state as before the request.
    Core(Error),
    /// A mapping event made more decisions than the controller can keep: its state has moved
    /// on without the host knowing them, so the session is over (send a hello).
    Lost(u32),
    /// A page past the last event's decisions.
    NoSuchPage(u32),
}

impl core::fmt::Display for Fault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Fault::Garbled(e) => write!(f, "the request arrived damaged: {e}"),
            Fault::Undecodable => f.write_str("the request does not decode"),
            Fault::Version(v) => write!(f, "the controller speaks protocol version {v}"),
            Fault::NoSession => f.write_str("no session: send a hello first"),
            Fault::Core(e) => write!(f, "{e}"),
            Fault::Lost(n) => write!(
                f,
                "a mapping event made more than {n} decisions, more than the controller keeps; \
                 the session is over"
            ),
            Fault::NoSuchPage(p) => write!(f, "no page at decision {p}"),
        }
    }
}

/// What the controller answers.
// One message is alive at a time and the core cannot box: the size gap costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// A session started.
    Hello(Capacities),
    /// The task arrived and has this id (its index in arrival order).
    Arrived(TaskId),
    /// The task completed and earned this utility (prorated to the day).
    Completed(Utility),
    /// The completion was for an assignment the task no longer has: nothing changed.
    Stale,
    /// A page of the mapping event's decisions.
    Mapped(Page),
    /// The ledgers and counts.
    Status(Status),
    /// The session ended.
    Reset,
    /// The request was not served.
    Fault(Fault),
    /// The task was withdrawn ([`Request::Withdraw`]). After the others so that they keep
    /// their encoding.
    Withdrawn,
    /// The node's service changed, or was already so ([`Request::NodeService`]). Last of the
    /// variants so that the others keep their encoding.
    NodeService,
}

/// Why a message could not be encoded or decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MessageError {
    /// The frame around it is damaged.
    Frame(FrameError),
    /// The payload is not a message of this version (or has trailing bytes).
    Undecodable,
    /// The message is larger than [`MAX_PAYLOAD`] or the caller's buffer.
    TooLarge,
}

impl core::fmt::Display for MessageError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MessageError::Frame(e) => e.fmt(f),
            MessageError::Undecodable => f.write_str("the payload is not a message"),
            MessageError::TooLarge => f.write_str("the message is larger than the payload limit"),
        }
    }
}

impl core::error::Error for MessageError {}

impl From<FrameError> for MessageError {
    fn from(e: FrameError) -> MessageError {
        MessageError::Frame(e)
    }
}

/// Encodes `msg` as one frame into `out` (postcard, then [`super::frame::encode`]); returns
/// the frame's length, ending zero included. `scratch` holds the payload on the way (at least
/// [`MAX_PAYLOAD`] bytes to encode any message).
pub fn encode<T: Serialize>(
    msg: &Envelope<T>,
    scratch: &mut [u8],
    out: &mut [u8],
) -> Result<usize, MessageError> {
    let limit = scratch.len().min(MAX_PAYLOAD);
    let payload =
        postcard::to_slice(msg, &mut scratch[..limit]).map_err(|_| MessageError::TooLarge)?;
    super::frame::encode(payload, out).map_err(|_| MessageError::TooLarge)
}

/// Decodes a payload (what [`super::frame::Reader`] gives) as a message; every byte must
/// belong to it.
pub fn decode<'a, T: Deserialize<'a>>(payload: &'a [u8]) -> Result<Envelope<T>, MessageError> {
    if payload.len() > MAX_PAYLOAD {
        return Err(MessageError::TooLarge);
    }
    match postcard::take_from_bytes::<Envelope<T>>(payload) {
        Ok((msg, [])) => Ok(msg),
        _ => Err(MessageError::Undecodable),
    }
}

/// The sequence number of a payload that does not decode as a whole message, if its first
/// bytes do (a varint): lets a controller address its fault reply.
pub fn peek_seq(payload: &[u8]) -> Option<u32> {
    postcard::take_from_bytes::<u32>(payload)
        .ok()
        .map(|(s, _)| s)
}

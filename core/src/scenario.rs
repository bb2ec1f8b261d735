//! A compact, self-contained encoding of a whole scenario: what the firmware embeds and the
//! host's `kairos digest` replays, so that both read byte-for-byte the same input.
//!
//! # Format
//!
//! ```text
//! "KRSC" (4 bytes)  version (1 byte)
//! postcard(PlatformHead)       the clusters, the P-state count, the number of task types
//! postcard(ScenarioTail)       utility classes, configuration, schedule, number of tasks
//! postcard(TaskType) x types   the platform's task types, in order
//! postcard(Task) x tasks       the tasks, in arrival order
//! ```
//!
//! [postcard](https://docs.rs/postcard) is serde's compact binary format for `no_std`:
//! varint integers, length-prefixed sequences (a `heapless::Vec` costs its length, not its
//! capacity), `f64` as 8 little-endian bytes, so it is identical on x86_64 and the Cortex-M4F.
//!
//! The platform is stored in parts and rebuilt through [`Platform::new`] and
//! [`Platform::add_resolved_type`], not deserialized whole, for two reasons:
//! - its checks run: a corrupt P-state count or node count is an error here, not a panic later
//!   (a derived `Deserialize` would skip `Platform::new`'s validation);
//! - a [`Platform`] reserves room for every task type the core allows (tens of kilobytes),
//!   and serde builds values on the stack and moves them out, level by level: decoding it
//!   whole cost the firmware 500 KB of stack at `opt-level = "s"`. Here
//!   [`Encoded::decode_into`] writes the header into the caller's slot once and adds the task
//!   types to it in place, one small value at a time.
//!
//! Tasks follow one after another, so a decoder holds one task at a time and needs no
//! allocation: [`Tasks`] yields them as the `Result<Task, Error>` iterator that
//! [`crate::replay::run`] takes.
//!
//! Nothing here panics on bad input: a wrong magic or version, a truncated buffer, a corrupt
//! byte, a missing task or trailing bytes are all [`InputError::Undecodable`] with the byte
//! offset where decoding stopped; a platform that decodes but is invalid is the error its
//! constructor returns. A task that decodes but makes no sense (an unknown task type, say) is
//! the controller's to reject, as for any other input.

use crate::config::Config;
use crate::error::{Error, InputError};
use crate::limits::MAX_CLUSTERS;
use crate::platform::{Cluster, Platform, TaskType};
use crate::replay::Schedule;
use crate::task::Task;
use crate::utility::UtilityClasses;
use core::fmt;
use core::mem::MaybeUninit;
use serde::{Deserialize, Serialize};

/// The first bytes of an encoded scenario.
pub const MAGIC: [u8; 4] = *b"KRSC";
/// The format version after the magic; bump it whenever the layout or an encoded type changes.
pub const VERSION: u8 = 1;
/// Bytes before the postcard header: the magic and the version.
pub const PREFIX_LEN: usize = MAGIC.len() + 1;

/// Everything of a scenario but its tasks: the platform, the utility classes, how the
/// controller decides, when mapping events happen, and how many tasks follow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioHeader {
    /// Clusters, P-states and task types.
    pub platform: Platform,
    /// The utility classes the tasks' curves refer to.
    pub classes: UtilityClasses,
    /// Heuristic, reservations, energy filter, budget, the day.
    pub config: Config,
    /// When mapping events happen.
    pub schedule: Schedule,
    /// How many tasks follow the header.
    pub tasks: u32,
}

/// Why a value could not be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EncodeError {
    /// The caller's buffer is too small for it.
    BufferFull,
    /// The serializer refused the value (cannot happen with the types encoded here).
    Unencodable,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::BufferFull => f.write_str("the encoding buffer is too small"),
            EncodeError::Unencodable => f.write_str("the value cannot be encoded"),
        }
    }
}

impl core::error::Error for EncodeError {}

/// The platform's first part on the wire: what [`Platform::new`] takes, and how many task
/// types follow the [`ScenarioTail`].
#[derive(Serialize, Deserialize)]
struct PlatformHead {
    clusters: heapless::Vec<Cluster, MAX_CLUSTERS>,
    pstates: u8,
    types: u32,
}

/// The rest of the header on the wire.
#[derive(Serialize, Deserialize)]
struct ScenarioTail {
    classes: UtilityClasses,
    config: Config,
    schedule: Schedule,
    tasks: u32,
}

fn encode_error(e: postcard::Error) -> EncodeError {
    match e {
        postcard::Error::SerializeBufferFull => EncodeError::BufferFull,
        _ => EncodeError::Unencodable,
    }
}

/// Writes the magic, the version and `header` at the start of `buf`; returns the bytes written.
pub fn encode_header(header: &ScenarioHeader, buf: &mut [u8]) -> Result<usize, EncodeError> {
    if buf.len() < PREFIX_LEN {
        return Err(EncodeError::BufferFull);
    }
    buf[..MAGIC.len()].copy_from_slice(&MAGIC);
    buf[MAGIC.len()] = VERSION;
    let mut len = PREFIX_LEN;
    let mut put = |value: &dyn erased::Encode| -> Result<(), EncodeError> {
        len += value.encode(&mut buf[len..])?;
        Ok(())
    };
    let p = &header.platform;
    let mut clusters = heapless::Vec::new();
    for c in p.clusters() {
        // A platform never holds more than MAX_CLUSTERS clusters.
        clusters.push(*c).map_err(|_| EncodeError::Unencodable)?;
    }
    put(&PlatformHead {
        clusters,
        pstates: p.pstates(),
        types: p.types().len() as u32,
    })?;
    put(&TailRef {
        classes: &header.classes,
        config: &header.config,
        schedule: &header.schedule,
        tasks: header.tasks,
    })?;
    for t in p.types() {
        put(t)?;
    }
    Ok(len)
}

/// [`ScenarioTail`] by reference (the same bytes), so that encoding copies nothing.
#[derive(Serialize)]
struct TailRef<'h> {
    classes: &'h UtilityClasses,
    config: &'h Config,
    schedule: &'h Schedule,
    tasks: u32,
}

/// Object-safe encoding, so that one closure writes values of different types.
mod erased {
    use super::{encode_error, EncodeError};
    pub(super) trait Encode {
        fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError>;
    }
    impl<T: serde::Serialize> Encode for T {
        fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
            Ok(postcard::to_slice(self, buf).map_err(encode_error)?.len())
        }
    }
}

/// Writes one task at the start of `buf`; returns the bytes written. Tasks follow the header
/// in arrival order (the order [`crate::replay::run`] needs).
pub fn encode_task(task: &Task, buf: &mut [u8]) -> Result<usize, EncodeError> {
    Ok(postcard::to_slice(task, buf).map_err(encode_error)?.len())
}

/// An encoded scenario whose header has been decoded; its tasks are decoded on demand.
#[derive(Clone, Debug)]
pub struct Encoded<'a> {
    header: ScenarioHeader,
    tasks: Tasks<'a>,
}

impl<'a> Encoded<'a> {
    /// Checks the magic and version and decodes the header. The tasks are not looked at yet.
    ///
    /// The header is returned by value: on a small stack use [`Encoded::decode_into`].
    pub fn decode(bytes: &'a [u8]) -> Result<Encoded<'a>, Error> {
        let mut holder = None;
        let tasks = decode_with(bytes, |h| holder.insert(h))?.1;
        match holder {
            Some(header) => Ok(Encoded { header, tasks }),
            None => Err(InputError::Undecodable(0).into()),
        }
    }

    /// [`Encoded::decode`] into the caller's `slot` (a `static` on the firmware): the header
    /// is written there once and its task types are added in place, so the stack never holds
    /// more than one header's worth of it. Returns the header and the tasks' iterator.
    pub fn decode_into<'s>(
        bytes: &'a [u8],
        slot: &'s mut MaybeUninit<ScenarioHeader>,
    ) -> Result<(&'s mut ScenarioHeader, Tasks<'a>), Error> {
        decode_with(bytes, |h| slot.write(h))
    }

    /// The header.
    pub fn header(&self) -> &ScenarioHeader {
        &self.header
    }

    /// A fresh iterator over the tasks (each call starts again from the first).
    pub fn tasks(&self) -> Tasks<'a> {
        self.tasks.clone()
    }

    /// The header by value and the tasks' iterator.
    pub fn into_parts(self) -> (ScenarioHeader, Tasks<'a>) {
        (self.header, self.tasks)
    }
}

/// Decodes one postcard value at `*at` of `bytes`, advancing `*at`.
fn take<'a, T: Deserialize<'a>>(bytes: &'a [u8], at: &mut usize) -> Result<T, Error> {
    let rest = bytes.get(*at..).unwrap_or_default();
    let (value, left) =
        postcard::take_from_bytes::<T>(rest).map_err(|_| InputError::Undecodable(*at as u32))?;
    *at = bytes.len() - left.len();
    Ok(value)
}

/// Decodes the header, puts it where `place` says, adds the task types to it there.
fn decode_with<'a, 's>(
    bytes: &'a [u8],
    place: impl FnOnce(ScenarioHeader) -> &'s mut ScenarioHeader,
) -> Result<(&'s mut ScenarioHeader, Tasks<'a>), Error> {
    if bytes.len() < PREFIX_LEN || bytes[..MAGIC.len()] != MAGIC {
        return Err(InputError::Undecodable(0).into());
    }
    if bytes[MAGIC.len()] != VERSION {
        return Err(InputError::Undecodable(MAGIC.len() as u32).into());
    }
    let mut at = PREFIX_LEN;
    let head: PlatformHead = take(bytes, &mut at)?;
    let tail: ScenarioTail = take(bytes, &mut at)?;
    let header = place(ScenarioHeader {
        platform: Platform::new(&head.clusters, head.pstates)?,
        classes: tail.classes,
        config: tail.config,
        schedule: tail.schedule,
        tasks: tail.tasks,
    });
    for _ in 0..head.types {
        let t: TaskType = take(bytes, &mut at)?;
        header.platform.add_resolved_type(&t.placements)?;
    }
    let tasks = Tasks {
        rest: &bytes[at..],
        offset: at,
        left: header.tasks,
        failed: false,
    };
    Ok((header, tasks))
}

/// The tasks of an [`Encoded`] scenario, decoded one at a time.
///
/// Yields exactly `header.tasks` tasks, then ends; a task that does not decode, or bytes left
/// over after the last one, yields one `Err(`[`InputError::Undecodable`]`)` and then ends.
#[derive(Clone, Debug)]
pub struct Tasks<'a> {
    rest: &'a [u8],
    /// Byte offset of `rest` in the whole encoding (for error messages).
    offset: usize,
    left: u32,
    failed: bool,
}

impl Tasks<'_> {
    /// Tasks not yet yielded.
    pub fn remaining(&self) -> u32 {
        self.left
    }

    fn fail(&mut self) -> Option<Result<Task, Error>> {
        self.failed = true;
        Some(Err(InputError::Undecodable(self.offset as u32).into()))
    }
}

impl Iterator for Tasks<'_> {
    type Item = Result<Task, Error>;

    fn next(&mut self) -> Option<Result<Task, Error>> {
        if self.failed {
            return None;
        }
        if self.left == 0 {
            return if self.rest.is_empty() {
                None
            } else {
                self.fail()
            };
        }
        match postcard::take_from_bytes::<Task>(self.rest) {
            Ok((task, rest)) => {
                self.offset += self.rest.len() - rest.len();
                self.rest = rest;
                self.left -= 1;
                Some(Ok(task))
            }
            Err(_) => self.fail(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.failed {
            (0, Some(0))
        } else {
            (0, Some(self.left as usize + 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::platform::{Cluster, ClusterKind, Placement, TaskTypeId};
    use crate::policy::Heuristic;
    use crate::task::{Demand, TaskId};
    use crate::units::{Micros, MilliWatts, NodeCount};
    use crate::utility::{Urgency, UtilityCurve};

    fn header(tasks: u32) -> ScenarioHeader {
        let cl = Cluster {
            nodes: NodeCount(8),
            cores_per_node: 16,
            kind: ClusterKind::General,
        };
        let mut platform = Platform::new(&[cl, cl], 3).unwrap();
        let p = Placement {
            nodes: NodeCount(2),
            etc: [
                Micros::from_mins(10),
                Micros::from_mins(12),
                Micros::from_mins(15),
                Micros::ZERO,
            ],
            apc: [
                MilliWatts(133_000),
                MilliWatts(100_000),
                MilliWatts(66_000),
                MilliWatts(0),
            ],
        };
        platform.add_resolved_type(&[Some(p), None]).unwrap();
        platform.add_resolved_type(&[Some(p), Some(p)]).unwrap();
        ScenarioHeader {
            platform,
            classes: UtilityClasses::essc20(),
            config: Config::new(Heuristic::MaxUpr, Micros::ZERO, Micros::from_hours(2)),
            schedule: Schedule {
                interval: Micros::MINUTE,
                on_completion: false,
                on_arrival: false,
            },
            tasks,
        }
    }

    fn task(i: u32) -> Task {
        Task {
            id: TaskId(0),
            arrival: Micros::from_secs(37 * i as u64),
            demand: Demand::Typed(TaskTypeId((i % 2) as u16)),
            curve: UtilityCurve::essc(
                1.0 + i as f64 / 3.0,
                Urgency::ALL[i as usize % 4],
                Micros::from_mins(11),
                (i % 20) as u8,
            ),
            actual: i.is_multiple_of(3).then_some(Micros::from_mins(5)),
        }
    }

    /// Header then `n` tasks; returns the buffer and its used length.
    fn encode(n: u32) -> ([u8; 8192], usize) {
        let mut buf = [0u8; 8192];
        let mut len = encode_header(&header(n), &mut buf).unwrap();
        for i in 0..n {
            len += encode_task(&task(i), &mut buf[len..]).unwrap();
        }
        (buf, len)
    }

    #[test]
    fn round_trip() {
        let (buf, len) = encode(7);
        let enc = Encoded::decode(&buf[..len]).unwrap();
        assert_eq!(enc.header(), &header(7));
        let mut n = 0;
        for (i, t) in enc.tasks().enumerate() {
            assert_eq!(t.unwrap(), task(i as u32));
            n += 1;
        }
        assert_eq!(n, 7);
        // A second pass starts again from the first task.
        assert_eq!(enc.tasks().count(), 7);
        let (h, mut tasks) = enc.into_parts();
        assert_eq!(h.tasks, 7);
        assert_eq!(tasks.remaining(), 7);
        assert_eq!(tasks.next().unwrap().unwrap(), task(0));
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let (buf, len) = encode(5);
        for cut in 0..len {
            let bytes = &buf[..cut];
            let failed = match Encoded::decode(bytes) {
                Err(e) => matches!(e, Error::Input(InputError::Undecodable(_))),
                Ok(enc) => {
                    let results: heapless::Vec<Result<Task, Error>, 8> = enc.tasks().collect();
                    // Whatever decoded is a prefix of the tasks; then one error, then the end.
                    let (last, ok) = results.split_last().unwrap();
                    ok.iter().enumerate().all(|(i, t)| t == &Ok(task(i as u32)))
                        && matches!(last, Err(Error::Input(InputError::Undecodable(at))) if (*at as usize) <= cut)
                }
            };
            assert!(failed, "cut at {cut} of {len}");
        }
    }

    #[test]
    fn trailing_bytes_wrong_magic_and_version_are_errors() {
        let (mut buf, len) = encode(2);
        buf[len] = 0;
        let enc = Encoded::decode(&buf[..len + 1]).unwrap();
        let mut it = enc.tasks();
        assert!(it.next().unwrap().is_ok());
        assert!(it.next().unwrap().is_ok());
        assert_eq!(
            it.next(),
            Some(Err(InputError::Undecodable(len as u32).into()))
        );
        assert_eq!(it.next(), None);

        let mut bad = buf;
        bad[0] = b'X';
        assert_eq!(
            Encoded::decode(&bad[..len]).unwrap_err(),
            InputError::Undecodable(0).into()
        );
        let mut bad = buf;
        bad[4] = VERSION + 1;
        assert_eq!(
            Encoded::decode(&bad[..len]).unwrap_err(),
            InputError::Undecodable(4).into()
        );
    }

    #[test]
    fn corrupt_bytes_never_panic() {
        let (buf, len) = encode(4);
        // Flip each byte of the encoding in turn: decoding may succeed (a different value) or
        // fail, but must not panic, and the iterator always ends.
        for i in 0..len {
            for x in [0x00u8, 0x7f, 0x80, 0xff] {
                let mut b = buf;
                b[i] = x;
                if let Ok(enc) = Encoded::decode(&b[..len]) {
                    // `take` bounds a corrupt count; the iterator itself is fused after an error.
                    let _ = enc.tasks().take(1000).count();
                }
            }
        }
    }

    #[test]
    fn an_invalid_platform_is_its_constructors_error() {
        // What a derived Deserialize would accept: nine P-states (the core allows four).
        let h = header(0);
        let mut buf = [0u8; 8192];
        buf[..MAGIC.len()].copy_from_slice(&MAGIC);
        buf[MAGIC.len()] = VERSION;
        let mut len = PREFIX_LEN;
        let mut clusters = heapless::Vec::new();
        clusters.extend_from_slice(h.platform.clusters()).unwrap();
        let head = PlatformHead {
            clusters,
            pstates: 9,
            types: 0,
        };
        len += postcard::to_slice(&head, &mut buf[len..]).unwrap().len();
        let tail = TailRef {
            classes: &h.classes,
            config: &h.config,
            schedule: &h.schedule,
            tasks: 0,
        };
        len += postcard::to_slice(&tail, &mut buf[len..]).unwrap().len();
        assert!(matches!(
            Encoded::decode(&buf[..len]),
            Err(Error::Capacity(crate::error::CapacityError {
                what: crate::error::Capacity::PStates,
                ..
            }))
        ));
    }

    #[test]
    fn decode_into_a_slot_gives_the_same_header() {
        let (buf, len) = encode(3);
        let mut slot = MaybeUninit::uninit();
        let (h, tasks) = Encoded::decode_into(&buf[..len], &mut slot).unwrap();
        assert_eq!(*h, header(3));
        assert_eq!(tasks.count(), 3);
    }

    #[test]
    fn small_buffers_are_refused() {
        let mut small = [0u8; 16];
        assert_eq!(
            encode_header(&header(1), &mut small),
            Err(EncodeError::BufferFull)
        );
        assert_eq!(
            encode_header(&header(1), &mut small[..3]),
            Err(EncodeError::BufferFull)
        );
        assert_eq!(
            encode_task(&task(1), &mut small[..4]),
            Err(EncodeError::BufferFull)
        );
    }
}

//! A compact, self-contained encoding of a whole scenario: what the firmware embeds and the
//! host's `kairos digest` replays, so that both read byte-for-byte the same input.
//!
//! # Format
//!
//! ```text
//! "KRSC" (4 bytes)  version (1 byte)  postcard(ScenarioHeader)  postcard(Task) x header.tasks
//! ```
//!
//! [postcard](https://docs.rs/postcard) is serde's compact binary format for `no_std`:
//! varint integers, length-prefixed sequences (a `heapless::Vec` costs its length, not its
//! capacity), `f64` as 8 little-endian bytes, so it is identical on x86_64 and the Cortex-M4F.
//! Tasks follow the header one after another, so a decoder holds one task at a time and needs
//! no allocation: [`Encoded::decode`] reads the header, and [`Tasks`] yields the tasks as the
//! `Result<Task, Error>` iterator that [`crate::replay::run`] takes.
//!
//! Nothing here panics on bad input: a wrong magic or version, a truncated buffer, a corrupt
//! byte, a missing task or trailing bytes are all [`InputError::Undecodable`] with the byte
//! offset where decoding stopped. A value that decodes but makes no sense (an unknown task
//! type, say) is the controller's to reject, as for any other input.

use crate::controller::Config;
use crate::error::{Error, InputError};
use crate::platform::Platform;
use crate::replay::Schedule;
use crate::task::Task;
use crate::utility::UtilityClasses;
use core::fmt;
use serde::{Deserialize, Serialize};

/// The first bytes of an encoded scenario.
pub const MAGIC: [u8; 4] = *b"KRSC";
/// The format version after the magic; bump it whenever an encoded type changes shape.
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
    let n = postcard::to_slice(header, &mut buf[PREFIX_LEN..])
        .map_err(encode_error)?
        .len();
    Ok(PREFIX_LEN + n)
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
    pub fn decode(bytes: &'a [u8]) -> Result<Encoded<'a>, Error> {
        if bytes.len() < PREFIX_LEN || bytes[..MAGIC.len()] != MAGIC {
            return Err(InputError::Undecodable(0).into());
        }
        if bytes[MAGIC.len()] != VERSION {
            return Err(InputError::Undecodable(MAGIC.len() as u32).into());
        }
        let body = &bytes[PREFIX_LEN..];
        let (header, rest) = postcard::take_from_bytes::<ScenarioHeader>(body)
            .map_err(|_| InputError::Undecodable(PREFIX_LEN as u32))?;
        let offset = bytes.len() - rest.len();
        Ok(Encoded {
            tasks: Tasks {
                rest,
                offset,
                left: header.tasks,
                failed: false,
            },
            header,
        })
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
    use crate::controller::Config;
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
                on_early_completion: false,
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
            actual: (i % 3 == 0).then_some(Micros::from_mins(5)),
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

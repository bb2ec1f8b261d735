//! The packed form of a scenario: a compact, self-contained encoding of a platform, its
//! utility classes, a configuration, a schedule and the tasks, which the firmware embeds and
//! the host's `kairos digest` replays, so that both read byte-for-byte the same input.
//!
//! The host builds the bytes (`kairos_host::firmware_scenarios`, through [`encode_header`]
//! and [`encode_task`]); the firmware and the host read them back through
//! [`PackedScenario`], whose tasks feed [`crate::engine::run`].
//!
//! # Format
//!
//! ```text
//! "KRSC" (4 bytes)  version (1 byte)
//! postcard(PlatformHead)       the clusters, the P-state count, the number of task types
//! postcard(HeaderTail)       utility classes, configuration, schedule, number of tasks
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
//!   [`PackedScenario::decode_into`] writes the header into the caller's slot once and adds the task
//!   types to it in place, one small value at a time.
//!
//! Tasks follow one after another, so a decoder holds one task at a time and needs no
//! allocation: [`PackedTasks`] yields them as the `Result<Task, Error>` iterator that
//! [`crate::engine::run`] takes.
//!
//! Nothing here panics on bad input: a wrong magic or version, a truncated buffer, a corrupt
//! byte, a missing task or trailing bytes are all [`InputError::Undecodable`] with the byte
//! offset where decoding stopped; a platform that decodes but is invalid is the error its
//! constructor returns. A task that decodes but makes no sense (an unknown task type, say) is
//! the controller's to reject, as for any other input.

use crate::config::Config;
use crate::engine::Schedule;
use crate::error::{Error, InputError};
use crate::limits::MAX_CLUSTERS;
use crate::platform::{Cluster, Platform, TaskType};
use crate::task::Task;
use crate::utility::{UtilityClass, UtilityClasses};
use core::fmt;
use core::mem::MaybeUninit;
use serde::{Deserialize, Serialize};

/// The first bytes of a packed scenario.
pub const MAGIC: [u8; 4] = *b"KRSC";
/// The format version after the magic; bump it whenever the layout or an encoded type changes.
pub const VERSION: u8 = 1;
/// Bytes before the postcard header: the magic and the version.
pub const PREFIX_LEN: usize = MAGIC.len() + 1;

/// Everything of a scenario but its tasks: the platform, the utility classes, how the
/// controller decides, when mapping events happen, and how many tasks follow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PackedHeader {
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
/// types follow the [`HeaderTail`].
#[derive(Serialize, Deserialize)]
struct PlatformHead {
    clusters: heapless::Vec<Cluster, MAX_CLUSTERS>,
    pstates: u8,
    types: u32,
}

/// The rest of the header on the wire.
#[derive(Serialize, Deserialize)]
struct HeaderTail {
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
pub fn encode_header(header: &PackedHeader, buf: &mut [u8]) -> Result<usize, EncodeError> {
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

/// [`HeaderTail`] by reference (the same bytes), so that encoding copies nothing.
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
/// in arrival order (the order [`crate::engine::run`] needs).
pub fn encode_task(task: &Task, buf: &mut [u8]) -> Result<usize, EncodeError> {
    Ok(postcard::to_slice(task, buf).map_err(encode_error)?.len())
}

/// A packed scenario whose header has been decoded; its tasks are decoded on demand.
#[derive(Clone, Debug)]
pub struct PackedScenario<'a> {
    header: PackedHeader,
    tasks: PackedTasks<'a>,
}

impl<'a> PackedScenario<'a> {
    /// Checks the magic and version and decodes the header. The tasks are not looked at yet.
    ///
    /// The header is returned by value: on a small stack use [`PackedScenario::decode_into`].
    pub fn decode(bytes: &'a [u8]) -> Result<PackedScenario<'a>, Error> {
        let mut holder = None;
        let tasks = decode_with(bytes, |h| holder.insert(h))?.1;
        match holder {
            Some(header) => Ok(PackedScenario { header, tasks }),
            None => Err(InputError::Undecodable(0).into()),
        }
    }

    /// [`PackedScenario::decode`] into the caller's `slot` (a `static` on the firmware): the header
    /// is written there once and its task types are added in place, so the stack never holds
    /// more than one header's worth of it. Returns the header and the tasks' iterator.
    pub fn decode_into<'s>(
        bytes: &'a [u8],
        slot: &'s mut MaybeUninit<PackedHeader>,
    ) -> Result<(&'s mut PackedHeader, PackedTasks<'a>), Error> {
        decode_with(bytes, |h| slot.write(h))
    }

    /// The header.
    pub fn header(&self) -> &PackedHeader {
        &self.header
    }

    /// A fresh iterator over the tasks (each call starts again from the first).
    pub fn tasks(&self) -> PackedTasks<'a> {
        self.tasks.clone()
    }

    /// The header by value and the tasks' iterator.
    pub fn into_parts(self) -> (PackedHeader, PackedTasks<'a>) {
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
    place: impl FnOnce(PackedHeader) -> &'s mut PackedHeader,
) -> Result<(&'s mut PackedHeader, PackedTasks<'a>), Error> {
    if bytes.len() < PREFIX_LEN || bytes[..MAGIC.len()] != MAGIC {
        return Err(InputError::Undecodable(0).into());
    }
    if bytes[MAGIC.len()] != VERSION {
        return Err(InputError::Undecodable(MAGIC.len() as u32).into());
    }
    let mut at = PREFIX_LEN;
    let head: PlatformHead = take(bytes, &mut at)?;
    let tail: HeaderTail = take(bytes, &mut at)?;
    let header = place(PackedHeader {
        platform: Platform::new(&head.clusters, head.pstates)?,
        classes: tail.classes,
        config: tail.config,
        schedule: tail.schedule,
        tasks: tail.tasks,
    });
    // Every class through its constructor's checks, as for any other input: a corrupt share
    // or decay rate is an error here, not a utility above the maximum later. Checked where
    // the header now lives (`UtilityClass::check`, what `UtilityClass::new` runs): a copy,
    // or holding the decoded tail longer, costs the firmware's decode stack, which has no
    // room to spare.
    for class in &header.classes.classes {
        UtilityClass::check(&class.intervals)?;
    }
    header.schedule.check(header.config.day_end)?;
    for _ in 0..head.types {
        let t: TaskType = take(bytes, &mut at)?;
        header.platform.add_resolved_type(&t.placements)?;
    }
    let tasks = PackedTasks {
        rest: &bytes[at..],
        offset: at,
        left: header.tasks,
        failed: false,
    };
    Ok((header, tasks))
}

/// The tasks of a [`PackedScenario`], decoded one at a time.
///
/// Yields exactly `header.tasks` tasks, then ends; a task that does not decode, or bytes left
/// over after the last one, yields one `Err(`[`InputError::Undecodable`]`)` and then ends; so
/// does a task whose curve fails [`crate::utility::UtilityCurve::check`], with its error.
#[derive(Clone, Debug)]
pub struct PackedTasks<'a> {
    rest: &'a [u8],
    /// Byte offset of `rest` in the whole encoding (for error messages).
    offset: usize,
    left: u32,
    failed: bool,
}

impl PackedTasks<'_> {
    /// Tasks not yet yielded.
    pub fn remaining(&self) -> u32 {
        self.left
    }

    fn fail(&mut self) -> Option<Result<Task, Error>> {
        self.failed = true;
        Some(Err(InputError::Undecodable(self.offset as u32).into()))
    }
}

impl Iterator for PackedTasks<'_> {
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
                // Its curve through the checks every curve gets: a corrupt priority is an
                // error here, not an overflow of the engine's sums later.
                if let Err(e) = task.curve.check() {
                    self.failed = true;
                    return Some(Err(e));
                }
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
mod tests;

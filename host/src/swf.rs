//! Standard Workload Format (SWF) logs: reading, cleaning, and conversion to replay jobs.
//!
//! This module owns everything between an SWF file of the Parallel Workloads Archive and the
//! jobs the scheduler replays:
//! - [`read`] / [`parse`]: the 18 whitespace-separated fields of each job line into a typed
//!   [`SwfJob`] (`-1`, unknown, becomes `None`; seconds become integer microseconds, exactly,
//!   without floats), and the `;` header lines into a [`SwfHeader`]. Every problem is a
//!   [`SwfError`] naming the file, the 1-based line and the field; with
//!   [`ReadOptions::skip_bad_lines`] bad lines are counted and skipped instead.
//! - [`clean`]: the optional cleaning steps of [`CleanOptions`], each counted in a
//!   [`CleanReport`], so no job disappears without a count.
//! - [`replay_jobs`]: cleaned jobs to [`ReplayJob`]s: the requested time (field 9) is the
//!   scheduler's estimate, the run time (field 4) is when the job really completes.
//! - [`resolve_machine_procs`]: the machine size, from `--procs` or the header.
//!
//! Numbers: a field is a non-negative decimal or `-1`. Times with more than 6 fractional
//! digits are rounded half-up to the microsecond (integer arithmetic, so the same on every
//! platform) rather than rejected, since sub-microsecond noise in a field the scheduler may
//! not even use should not make a real log unreadable; memory (kilobytes) is rounded the
//! same way; counts and identifiers must be whole (`8.0` is fine, `8.5` is an error). Any
//! negative value other than `-1` is an error, and so is an unknown job number.
//!
//! A UTF-8 byte-order mark at the start of the file is skipped. Repeated job numbers and
//! submit times out of order are counted, not refused, unless strict (see `order.rs`).
//!
//! Lines end in `\n` or `\r\n` (Gaia's header uses the latter). Job lines are split and
//! parsed as bytes, with no allocation per line or field; only the header and errors
//! allocate. A line of whole numbers and `-1`s, the common form, is read in one pass
//! (`fast.rs`).

mod clean;
mod fast;
mod for_replay;
mod header;
mod lines;
mod number;
mod order;
mod stream;

use std::fmt;
use std::path::{Path, PathBuf};

pub use clean::{
    clean, replay_jobs, CleanOptions, CleanReport, MissingRequest, ReplayError, ReplayJob,
};
pub use for_replay::{read_for_replay, ReplayLog};
pub use header::{HeaderComment, HeaderEntry, SwfHeader};
pub use order::{OrderPlace, OrderReport};
pub use stream::{read_maybe_gzip, StreamError, SwfStream};

/// The number of fields of an SWF job line.
pub const FIELDS: usize = 18;

/// How many of the skipped lines' errors [`SwfLog::skipped_examples`] keeps.
pub const SKIPPED_EXAMPLES: usize = 5;

/// The 18 SWF fields, in file order (`Field::ALL[i]` is field `i + 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// 1: job number.
    JobNumber,
    /// 2: submit time (seconds).
    SubmitTime,
    /// 3: wait time (seconds).
    WaitTime,
    /// 4: run time (seconds).
    RunTime,
    /// 5: number of allocated processors.
    AllocatedProcessors,
    /// 6: average CPU time used (seconds).
    AverageCpuTime,
    /// 7: used memory (kilobytes per processor).
    UsedMemory,
    /// 8: requested number of processors.
    RequestedProcessors,
    /// 9: requested time (seconds).
    RequestedTime,
    /// 10: requested memory (kilobytes per processor).
    RequestedMemory,
    /// 11: status.
    Status,
    /// 12: user id.
    UserId,
    /// 13: group id.
    GroupId,
    /// 14: executable (application) number.
    ExecutableNumber,
    /// 15: queue number.
    QueueNumber,
    /// 16: partition number.
    PartitionNumber,
    /// 17: preceding job number.
    PrecedingJobNumber,
    /// 18: think time from the preceding job (seconds).
    ThinkTime,
}

impl Field {
    /// All fields in file order.
    pub const ALL: [Field; FIELDS] = [
        Field::JobNumber,
        Field::SubmitTime,
        Field::WaitTime,
        Field::RunTime,
        Field::AllocatedProcessors,
        Field::AverageCpuTime,
        Field::UsedMemory,
        Field::RequestedProcessors,
        Field::RequestedTime,
        Field::RequestedMemory,
        Field::Status,
        Field::UserId,
        Field::GroupId,
        Field::ExecutableNumber,
        Field::QueueNumber,
        Field::PartitionNumber,
        Field::PrecedingJobNumber,
        Field::ThinkTime,
    ];

    /// The 1-based field number of the SWF definition.
    pub fn index(self) -> usize {
        self as usize + 1
    }

    /// The field's name in the SWF definition.
    pub fn name(self) -> &'static str {
        match self {
            Field::JobNumber => "job number",
            Field::SubmitTime => "submit time",
            Field::WaitTime => "wait time",
            Field::RunTime => "run time",
            Field::AllocatedProcessors => "allocated processors",
            Field::AverageCpuTime => "average CPU time used",
            Field::UsedMemory => "used memory",
            Field::RequestedProcessors => "requested processors",
            Field::RequestedTime => "requested time",
            Field::RequestedMemory => "requested memory",
            Field::Status => "status",
            Field::UserId => "user id",
            Field::GroupId => "group id",
            Field::ExecutableNumber => "executable number",
            Field::QueueNumber => "queue number",
            Field::PartitionNumber => "partition number",
            Field::PrecedingJobNumber => "preceding job number",
            Field::ThinkTime => "think time",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field {} ({})", self.index(), self.name())
    }
}

/// One job line of an SWF file. Times are microseconds; `None` is `-1` (unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwfJob {
    /// 1-based line number in the file.
    pub line: usize,
    /// Field 1: job number (required: `-1` is an error).
    pub id: u64,
    /// Field 2: submit time, from the log's start (`UnixStartTime`).
    pub submit_us: Option<u64>,
    /// Field 3: time between submission and start.
    pub wait_us: Option<u64>,
    /// Field 4: run time (wall clock, start to end).
    pub run_us: Option<u64>,
    /// Field 5: processors the job ran on.
    pub allocated_procs: Option<u32>,
    /// Field 6: average CPU time used per processor.
    pub avg_cpu_us: Option<u64>,
    /// Field 7: average memory used per processor, kilobytes.
    pub used_memory_kb: Option<u64>,
    /// Field 8: processors requested.
    pub requested_procs: Option<u32>,
    /// Field 9: requested time (the user's estimate, or the queue's limit).
    pub requested_us: Option<u64>,
    /// Field 10: memory requested per processor, kilobytes.
    pub requested_memory_kb: Option<u64>,
    /// Field 11: status (1 completed, 0 failed, 5 cancelled, 2-4 partial records).
    pub status: Option<u32>,
    /// Field 12: user id.
    pub user: Option<u32>,
    /// Field 13: group id.
    pub group: Option<u32>,
    /// Field 14: executable (application) number.
    pub executable: Option<u32>,
    /// Field 15: queue number.
    pub queue: Option<u32>,
    /// Field 16: partition number.
    pub partition: Option<u32>,
    /// Field 17: number of a job this one depends on.
    pub preceding_job: Option<u64>,
    /// Field 18: think time after the preceding job.
    pub think_time_us: Option<u64>,
}

/// How to read an SWF file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Skip and count bad lines (job lines and typed header values) instead of failing on
    /// the first one.
    pub skip_bad_lines: bool,
}

/// An SWF file read: its header, its jobs in file order, and what was skipped.
#[derive(Debug)]
pub struct SwfLog {
    /// The file's name as given to [`read`] or [`parse`] (used in messages).
    pub file: String,
    /// The `;` header lines.
    pub header: SwfHeader,
    /// The job lines, in file order.
    pub jobs: Vec<SwfJob>,
    /// Bad lines skipped (always 0 unless [`ReadOptions::skip_bad_lines`]).
    pub skipped: usize,
    /// The first [`SKIPPED_EXAMPLES`] errors of the skipped lines, in the order found.
    pub skipped_examples: Vec<SwfError>,
    /// Repeated job numbers and submit times out of order among the job lines read.
    pub order: OrderReport,
}

impl SwfLog {
    /// The machine size: `procs_override` if given, else the header's (see
    /// [`resolve_machine_procs`]).
    pub fn machine_procs(&self, procs_override: Option<u32>) -> Result<u32, MachineSizeError> {
        resolve_machine_procs(&self.file, &self.header, procs_override)
    }
}

/// What is wrong with a field's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldProblem {
    /// Not a plain decimal (letters, signs, exponents, several dots, empty).
    NotANumber,
    /// Negative, and not the unknown marker -1.
    Negative,
    /// A count or identifier with a fractional part.
    NotInteger,
    /// Does not fit the field's type (u32 for counts, u64 microseconds for times).
    TooLarge,
    /// The job number is -1: every job needs one.
    UnknownJobNumber,
}

impl fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FieldProblem::NotANumber => "is not a number",
            FieldProblem::Negative => "is negative (only -1, meaning unknown, may be)",
            FieldProblem::NotInteger => "is not a whole number",
            FieldProblem::TooLarge => "is too large",
            FieldProblem::UnknownJobNumber => "is not a job number (it may not be unknown)",
        })
    }
}

/// Why an SWF file could not be read. Messages name the file, the 1-based line and the field.
#[derive(Debug, thiserror::Error)]
pub enum SwfError {
    /// The file could not be read.
    #[error("{}: cannot read: {error}", path.display())]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The I/O error (in the message, so not also a `source`).
        error: std::io::Error,
    },
    /// A job line with fewer than 18 fields (typically a truncated file).
    #[error("{file}:{line}: truncated line: {found} of 18 fields, {missing} is missing")]
    TooFewFields {
        /// The file's name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// How many fields the line has.
        found: usize,
        /// The first missing field.
        missing: Field,
    },
    /// A job line with more than 18 fields.
    #[error("{file}:{line}: too many fields: {found}, expected 18 (field 19 is {extra:?})")]
    TooManyFields {
        /// The file's name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// How many fields the line has.
        found: usize,
        /// The text of the first field too many.
        extra: String,
    },
    /// A field whose text is not a valid value.
    #[error("{file}:{line}: {field}: {text:?} {problem}")]
    BadField {
        /// The file's name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Which field.
        field: Field,
        /// The field's text.
        text: String,
        /// What is wrong with it.
        problem: FieldProblem,
    },
    /// A standard header key whose value is not a number (e.g. `; MaxProcs: many`).
    #[error("{file}:{line}: header {key}: {text:?} {problem}")]
    BadHeader {
        /// The file's name.
        file: String,
        /// 1-based line number of the entry.
        line: usize,
        /// The key as written.
        key: String,
        /// The entry's value.
        text: String,
        /// What is wrong with it.
        problem: FieldProblem,
    },
    /// A repeated job number or a submit time out of order, refused (`--strict`).
    #[error("{file}:{line}: {field}: {problem}")]
    Order {
        /// The file's name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Which field: the job number or the submit time.
        field: Field,
        /// What is wrong, naming the earlier line.
        problem: String,
    },
    /// The log is too large to hold in memory.
    #[error(
        "{file}: {size} bytes would take about {need} in memory, over the limit of {limit}; \
         replay it streamed (--allocation pool), or split it"
    )]
    TooLarge {
        /// The file's name.
        file: String,
        /// Its size in bytes (decompressed, for a gzip file: as far as it was read).
        size: u64,
        /// The memory it would take, as text.
        need: String,
        /// The limit, as text.
        limit: String,
    },
    /// The file has no job lines (or, skipping bad lines, none that could be read).
    #[error("{file}: no jobs{}", no_jobs_detail(*.skipped))]
    NoJobs {
        /// The file's name.
        file: String,
        /// Bad lines skipped.
        skipped: usize,
    },
}

/// The end of the [`SwfError::NoJobs`] message: why there are no jobs.
fn no_jobs_detail(skipped: usize) -> String {
    match skipped {
        0 => " (no job lines, only header or blank lines)".to_owned(),
        n => format!(" ({n} bad lines skipped, none good)"),
    }
}

/// The machine size could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MachineSizeError {
    /// No override and no usable header key.
    #[error("file {file} has no MaxProcs or MaxNodes header; pass --procs N")]
    Unknown {
        /// The file's name.
        file: String,
    },
    /// `--procs 0`.
    #[error("--procs must be at least 1")]
    ZeroOverride,
}

/// The machine size in processors: `procs_override` (`--procs`) when given, else
/// `MaxProcs`, else `MaxNodes`; an error naming `file` when there is none.
pub fn resolve_machine_procs(
    file: &str,
    header: &SwfHeader,
    procs_override: Option<u32>,
) -> Result<u32, MachineSizeError> {
    match procs_override {
        Some(0) => Err(MachineSizeError::ZeroOverride),
        Some(p) => Ok(p),
        None => header
            .machine_procs()
            .ok_or_else(|| MachineSizeError::Unknown {
                file: file.to_owned(),
            }),
    }
}

/// Reads the SWF file at `path` (named in messages as given), plain or gzip-compressed.
///
/// The whole log is held in memory (its text, then its jobs): a log whose
/// [`memory_for`] its size is over [`crate::limits::MAX_STORAGE_BYTES`] is
/// [`SwfError::TooLarge`] before it is read (a gzip file: as soon as its decompressed text
/// passes that size), with the streamed replay as the way out.
pub fn read(path: impl AsRef<Path>, options: &ReadOptions) -> Result<SwfLog, SwfError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    check_size(path, &file)?;
    let most = text_limit();
    let bytes = stream::read_maybe_gzip_within(path, most)
        .map_err(|error| SwfError::Io {
            path: path.to_owned(),
            error,
        })?
        .ok_or_else(|| too_large(&file, most + 1))?;
    parse(&file, &bytes, options)
}

/// The size in bytes of the log at `path` (named `file` in messages), refused before it is
/// read if its size alone asks for more memory than [`crate::limits::MAX_STORAGE_BYTES`]
/// ([`memory_for`]).
pub(crate) fn check_size(path: &Path, file: &str) -> Result<u64, SwfError> {
    let size = std::fs::metadata(path)
        .map_err(|error| SwfError::Io {
            path: path.to_owned(),
            error,
        })?
        .len();
    if memory_for(size) > crate::limits::MAX_STORAGE_BYTES {
        return Err(too_large(file, size));
    }
    Ok(size)
}

/// The error of a log (`file`) whose text of `size` bytes is more than it may hold.
pub(crate) fn too_large(file: &str, size: u64) -> SwfError {
    SwfError::TooLarge {
        file: file.to_owned(),
        size,
        need: crate::limits::bytes_text(memory_for(size)),
        limit: crate::limits::bytes_text(crate::limits::MAX_STORAGE_BYTES),
    }
}

/// The largest text within [`crate::limits::MAX_STORAGE_BYTES`] ([`memory_for`] is linear,
/// floored): a gzip file's text is read no further.
pub fn text_limit() -> u64 {
    let line = TYPICAL_LINE_BYTES as u128;
    let limit = crate::limits::MAX_STORAGE_BYTES;
    (limit * line / (line + std::mem::size_of::<SwfJob>() as u128)) as u64
}

/// The memory, in bytes, that reading a log of `text_bytes` bytes of text takes (the text
/// and its jobs, at [`TYPICAL_LINE_BYTES`] a job line).
pub fn memory_for(text_bytes: u64) -> u128 {
    let t = text_bytes as u128;
    t + t / TYPICAL_LINE_BYTES as u128 * std::mem::size_of::<SwfJob>() as u128
}

/// The length of a typical job line, which sizes the job table before reading (KTH-SP2's
/// lines are about 90 bytes; the archive's shortest real ones about 60).
pub const TYPICAL_LINE_BYTES: usize = 80;

/// Parses SWF text (`file` names it in messages).
pub fn parse(
    file: &str,
    text: impl AsRef<[u8]>,
    options: &ReadOptions,
) -> Result<SwfLog, SwfError> {
    let text = text.as_ref();
    // A byte-order mark some editors write: not part of the first line.
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let mut lines = lines::Lines::new(file, options);
    // One allocation for the typical file ([`TYPICAL_LINE_BYTES`]).
    let mut jobs = Vec::with_capacity(text.len() / TYPICAL_LINE_BYTES);
    // The lines as `split(b'\n')` gives them (the piece after the last newline too), found
    // with `memchr`'s wide compares rather than a byte at a time.
    let ends = memchr::memchr_iter(b'\n', text).chain(std::iter::once(text.len()));
    let mut from = 0;
    for end in ends {
        lines.take(&text[from..end], &mut |job| jobs.push(job))?;
        from = end + 1;
    }
    let read = lines.finish()?;
    Ok(SwfLog {
        file: file.to_owned(),
        header: read.header,
        jobs,
        skipped: read.skipped,
        skipped_examples: read.skipped_examples,
        order: read.order,
    })
}

/// The UTF-8 byte-order mark, skipped at the start of a file.
pub(crate) const BOM: &[u8] = &[0xef, 0xbb, 0xbf];

/// A job line's error before the file name is attached (so skipped lines do not allocate).
enum LineError<'a> {
    TooFew {
        found: usize,
    },
    TooMany {
        found: usize,
        extra: &'a [u8],
    },
    Bad {
        field: Field,
        text: &'a [u8],
        problem: FieldProblem,
    },
}

impl LineError<'_> {
    /// The full error, naming `file` and `line`.
    fn with_file(&self, file: &str, line: usize) -> SwfError {
        let file = file.to_owned();
        let text = |t: &[u8]| String::from_utf8_lossy(t).into_owned();
        match *self {
            LineError::TooFew { found } => SwfError::TooFewFields {
                file,
                line,
                found,
                missing: Field::ALL[found],
            },
            LineError::TooMany { found, extra } => SwfError::TooManyFields {
                file,
                line,
                found,
                extra: text(extra),
            },
            LineError::Bad {
                field,
                text: t,
                problem,
            } => SwfError::BadField {
                file,
                line,
                field,
                text: text(t),
                problem,
            },
        }
    }
}

/// The whitespace-separated words of a line (what `split_ascii_whitespace` does for `str`).
struct Words<'a>(&'a [u8]);

impl<'a> Iterator for Words<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.0.iter().position(|b| !b.is_ascii_whitespace())?;
        let rest = &self.0[start..];
        let end = rest
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(rest.len());
        self.0 = &rest[end..];
        Some(&rest[..end])
    }
}

/// Whether each byte is ASCII whitespace ([`u8::is_ascii_whitespace`]: space, tab, line
/// feed, form feed, carriage return), as a table the splitter reads once a byte.
const SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_whitespace();
        b += 1;
    }
    t
};

/// A job line's [`FIELDS`] words, in one pass over its bytes (the words [`Words`] gives).
fn fields(text: &[u8]) -> Result<[&[u8]; FIELDS], LineError<'_>> {
    let mut f: [&[u8]; FIELDS] = [&[]; FIELDS];
    let (len, mut i, mut n) = (text.len(), 0, 0);
    loop {
        while i < len && SPACE[text[i] as usize] {
            i += 1;
        }
        if i == len {
            break;
        }
        let start = i;
        while i < len && !SPACE[text[i] as usize] {
            i += 1;
        }
        let Some(slot) = f.get_mut(n) else {
            return Err(LineError::TooMany {
                found: FIELDS + 1 + Words(&text[i..]).count(),
                extra: &text[start..i],
            });
        };
        *slot = &text[start..i];
        n += 1;
    }
    if n < FIELDS {
        return Err(LineError::TooFew { found: n });
    }
    Ok(f)
}

/// Parses one job line (already trimmed, not a comment): in one pass when every field is
/// a whole number or `-1` (`fast.rs`), else (and for every error) field by field.
fn parse_job(line: usize, text: &[u8]) -> Result<SwfJob, LineError<'_>> {
    match fast::job(line, text) {
        Some(job) => Ok(job),
        None => parse_job_by_field(line, text),
    }
}

/// Parses one job line (already trimmed, not a comment) word by word: any decimal, and
/// every error named.
fn parse_job_by_field(line: usize, text: &[u8]) -> Result<SwfJob, LineError<'_>> {
    let f = fields(text)?;
    let at = |field: Field| f[field as usize];
    let bad = |field: Field| {
        move |problem| LineError::Bad {
            field,
            text: at(field),
            problem,
        }
    };
    let time = |field| number::micros(at(field)).map_err(bad(field));
    let kb = |field| number::rounded(at(field)).map_err(bad(field));
    let count = |field| number::whole::<u32>(at(field)).map_err(bad(field));
    let id = number::whole::<u64>(at(Field::JobNumber))
        .and_then(|id| id.ok_or(FieldProblem::UnknownJobNumber))
        .map_err(bad(Field::JobNumber))?;
    Ok(SwfJob {
        line,
        id,
        submit_us: time(Field::SubmitTime)?,
        wait_us: time(Field::WaitTime)?,
        run_us: time(Field::RunTime)?,
        allocated_procs: count(Field::AllocatedProcessors)?,
        avg_cpu_us: time(Field::AverageCpuTime)?,
        used_memory_kb: kb(Field::UsedMemory)?,
        requested_procs: count(Field::RequestedProcessors)?,
        requested_us: time(Field::RequestedTime)?,
        requested_memory_kb: kb(Field::RequestedMemory)?,
        status: count(Field::Status)?,
        user: count(Field::UserId)?,
        group: count(Field::GroupId)?,
        executable: count(Field::ExecutableNumber)?,
        queue: count(Field::QueueNumber)?,
        partition: count(Field::PartitionNumber)?,
        preceding_job: number::whole::<u64>(at(Field::PrecedingJobNumber))
            .map_err(bad(Field::PrecedingJobNumber))?,
        think_time_us: time(Field::ThinkTime)?,
    })
}

#[cfg(test)]
mod tests;

//! Streaming SWF reading: [`SwfStream`] reads a log a line at a time, plain or
//! gzip-compressed (recognised by its magic bytes, not its name), and hands out replay jobs
//! one by one, cleaned as [`super::clean`] would clean them. Memory is one line and the
//! header, whatever the log's length, so a replay that pulls jobs as it reaches their submit
//! time holds only the jobs in the system.
//!
//! The same rules as the batch reader ([`super::read`], [`super::clean`],
//! [`super::replay_jobs`]): the same line parser, the same cleaning function applied job by
//! job in file order (so the [`CleanReport`] is identical), the same conversion. Two things
//! differ, and both are errors or documented limits rather than silent changes:
//! - the batch reader sorts jobs by submit time; a stream cannot, so a job submitted before
//!   the previous kept job is an error ([`StreamError::Unsorted`]) naming both lines (the
//!   archive's logs are sorted);
//! - repeated job numbers are counted by a rule in constant memory (see `order.rs`);
//! - the header is what precedes the first job line: `;` lines after it are skipped (the
//!   machine size must be known before the first job is scheduled), and a bad header value
//!   is reported when the first job line is reached rather than after the last.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// The longest line a streamed log may hold, bytes: a real job line is under 200.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

use super::clean::clean_one;
use super::header::HeaderBuilder;
use super::order::{OrderCheck, OrderReport};
use super::{
    parse_job, resolve_machine_procs, CleanOptions, CleanReport, MachineSizeError, ReadOptions,
    ReplayError, ReplayJob, SwfError, SwfHeader, SKIPPED_EXAMPLES,
};

/// Why a stream could not yield its next job.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Reading or parsing failed (the batch reader's errors).
    #[error(transparent)]
    Swf(#[from] SwfError),
    /// A kept job lacks a field the replay needs.
    #[error("{file}: cannot replay{hint}: {error}")]
    Replay {
        /// The file's name.
        file: String,
        /// What is missing.
        error: ReplayError,
        /// A hint to clean, when cleaning was off.
        hint: &'static str,
    },
    /// A job submitted before the job kept before it.
    #[error(
        "{file}:{line}: job {id} is submitted at {submit_s} s, before job {prev_id} (line \
         {prev_line}) at {prev_s} s; a streamed log must be sorted by submit time"
    )]
    Unsorted {
        /// The file's name.
        file: String,
        /// 1-based line of the job out of order.
        line: usize,
        /// Its job number.
        id: u64,
        /// Its submit time, seconds.
        submit_s: String,
        /// The line of the job before it.
        prev_line: usize,
        /// That job's number.
        prev_id: u64,
        /// That job's submit time, seconds.
        prev_s: String,
    },
}

/// An SWF log read a job at a time (see the module doc).
pub struct SwfStream {
    file: String,
    path: PathBuf,
    reader: Box<dyn BufRead>,
    /// The current line's bytes (reused).
    buf: Vec<u8>,
    /// Lines read so far (the 1-based number of the last one).
    line: usize,
    header: SwfHeader,
    /// Whether `buf` holds the first job line, read while looking for the header's end.
    held: bool,
    options: ReadOptions,
    clean: Option<CleanOptions>,
    report: CleanReport,
    skipped: usize,
    skipped_examples: Vec<SwfError>,
    /// Job lines read without error.
    good_lines: usize,
    /// The last job handed out: (submit, line, id).
    last: Option<(u64, usize, u64)>,
    /// Repeated job numbers and submit times out of order among the job lines read.
    order: OrderCheck,
    /// Whether the first of those is an error ([`SwfStream::strict`]).
    strict: bool,
}

impl SwfStream {
    /// Opens the log at `path` (plain or gzip) and reads its header, up to the first job
    /// line. Errors name the file as given.
    pub fn open(path: impl AsRef<Path>, options: &ReadOptions) -> Result<SwfStream, SwfError> {
        let path = path.as_ref();
        let io = |error| SwfError::Io {
            path: path.to_owned(),
            error,
        };
        // The bytes read told to the command's progress (`replay --stream`, `--allocation
        // pool`: a job count is known only at the end); a gzip log's compressed bytes.
        let mut file = BufReader::with_capacity(
            1 << 16,
            crate::progress::Reading::new(File::open(path).map_err(io)?),
        );
        let gzip = file.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
        let reader: Box<dyn BufRead> = if gzip {
            Box::new(BufReader::with_capacity(
                1 << 16,
                flate2::bufread::MultiGzDecoder::new(file),
            ))
        } else {
            Box::new(file)
        };
        SwfStream::from_reader(&path.display().to_string(), path, reader, options)
    }

    /// A stream over `reader` (`file` names it in messages; `path` in I/O errors).
    pub fn from_reader(
        file: &str,
        path: &Path,
        reader: Box<dyn BufRead>,
        options: &ReadOptions,
    ) -> Result<SwfStream, SwfError> {
        let mut s = SwfStream {
            file: file.to_owned(),
            path: path.to_owned(),
            reader,
            buf: Vec::with_capacity(256),
            line: 0,
            header: SwfHeader::default(),
            held: false,
            options: *options,
            clean: None,
            report: CleanReport::default(),
            skipped: 0,
            skipped_examples: Vec::new(),
            good_lines: 0,
            last: None,
            order: OrderCheck::streamed(),
            strict: false,
        };
        let mut header = HeaderBuilder::default();
        while s.read_line()? {
            let trimmed = s.buf.trim_ascii();
            match trimmed.first() {
                None => header.close(),
                Some(b';') => header.line(s.line, &trimmed[1..]),
                Some(_) => {
                    s.held = true;
                    break;
                }
            }
        }
        let (h, errors) = header.finish();
        s.header = h;
        for e in errors {
            let error = SwfError::BadHeader {
                file: s.file.clone(),
                line: e.line,
                key: e.key,
                text: e.text,
                problem: e.problem,
            };
            s.bad(error)?;
        }
        Ok(s)
    }

    /// The file's name as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The header (the `;` lines before the first job line).
    pub fn header(&self) -> &SwfHeader {
        &self.header
    }

    /// The machine size: `procs_override` if given, else the header's.
    pub fn machine_procs(&self, procs_override: Option<u32>) -> Result<u32, MachineSizeError> {
        resolve_machine_procs(&self.file, &self.header, procs_override)
    }

    /// Cleans every job as [`super::clean`] would with `options`, from now on.
    pub fn clean_with(&mut self, options: CleanOptions) {
        self.clean = Some(options);
    }

    /// What cleaning did so far (`None` without cleaning). Once the stream is exhausted it
    /// is the report [`super::clean`] gives for the whole file.
    pub fn clean_report(&self) -> Option<CleanReport> {
        self.clean.map(|_| self.report)
    }

    /// From now on, a repeated job number or a submit time out of order is an error
    /// ([`OrderReport::strict`]) rather than counted.
    pub fn strict(&mut self, on: bool) {
        self.strict = on;
    }

    /// Repeated job numbers and submit times out of order so far (see `order.rs`).
    pub fn order(&self) -> OrderReport {
        self.order.report()
    }

    /// Bad lines skipped so far.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The first [`SKIPPED_EXAMPLES`] errors of the skipped lines.
    pub fn skipped_examples(&self) -> &[SwfError] {
        &self.skipped_examples
    }

    /// The next job kept, or `None` at the end of the file.
    pub fn next_job(&mut self) -> Result<Option<ReplayJob>, StreamError> {
        loop {
            if !self.held && !self.read_line()? {
                if self.good_lines == 0 {
                    return Err(SwfError::NoJobs {
                        file: self.file.clone(),
                        skipped: self.skipped,
                    }
                    .into());
                }
                return Ok(None);
            }
            self.held = false;
            let line = self.line;
            let trimmed = self.buf.trim_ascii();
            if trimmed.is_empty() || trimmed[0] == b';' {
                continue;
            }
            let mut job = match parse_job(line, trimmed) {
                Ok(job) => job,
                Err(e) => {
                    let error = e.with_file(&self.file, line);
                    self.bad(error)?;
                    continue;
                }
            };
            self.good_lines += 1;
            self.order.job(line, job.id, job.submit_us);
            if self.strict {
                self.order.report().strict(&self.file)?;
            }
            if let Some(o) = &self.clean {
                self.report.input += 1;
                if !clean_one(&mut job, o, &mut self.report) {
                    continue;
                }
                self.report.kept += 1;
            }
            let job = ReplayJob::try_from(&job).map_err(|error| StreamError::Replay {
                file: self.file.clone(),
                error,
                hint: if self.clean.is_some() {
                    ""
                } else {
                    " (pass --clean strong to drop or fix such jobs)"
                },
            })?;
            if let Some((submit, prev_line, prev_id)) = self.last {
                if job.submit < submit {
                    return Err(StreamError::Unsorted {
                        file: self.file.clone(),
                        line,
                        id: job.id,
                        submit_s: crate::trace::secs(job.submit),
                        prev_line,
                        prev_id,
                        prev_s: crate::trace::secs(submit),
                    });
                }
            }
            self.last = Some((job.submit, line, job.id));
            return Ok(Some(job));
        }
    }

    /// Reads the next line into `buf` (at most [`MAX_LINE_BYTES`]); false at the end of the
    /// file.
    fn read_line(&mut self) -> Result<bool, SwfError> {
        self.buf.clear();
        // A line is bounded ([`MAX_LINE_BYTES`]): a stream with no line break (`/dev/zero`)
        // is an error, not memory filled.
        let n = (&mut self.reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|error| SwfError::Io {
                path: self.path.clone(),
                error,
            })?;
        if n as u64 > MAX_LINE_BYTES {
            return Err(SwfError::Io {
                path: self.path.clone(),
                error: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "line {}: longer than {MAX_LINE_BYTES} bytes; is it an SWF log?",
                        self.line + 1
                    ),
                ),
            });
        }
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.line == 1 && self.buf.starts_with(super::BOM) {
            self.buf.drain(..super::BOM.len());
        }
        Ok(true)
    }

    /// A bad line: the error, or counted and skipped.
    fn bad(&mut self, error: SwfError) -> Result<(), SwfError> {
        if !self.options.skip_bad_lines {
            return Err(error);
        }
        self.skipped += 1;
        if self.skipped_examples.len() < SKIPPED_EXAMPLES {
            self.skipped_examples.push(error);
        }
        Ok(())
    }
}

impl Iterator for SwfStream {
    type Item = Result<ReplayJob, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_job().transpose()
    }
}

/// Reads all of `reader` into memory through the same decoder choice as
/// [`SwfStream::open`]: gzip when it starts with the gzip magic bytes. For callers that
/// want the batch reader ([`super::parse`]) on a compressed log.
pub fn read_maybe_gzip(path: &Path) -> std::io::Result<Vec<u8>> {
    Ok(read_maybe_gzip_within(path, u64::MAX)?.unwrap_or_default())
}

/// As [`read_maybe_gzip`], but `None` as soon as the text passes `most` bytes: a gzip file's
/// size says little about its text's, so its text is counted as it is decompressed.
pub(crate) fn read_maybe_gzip_within(path: &Path, most: u64) -> std::io::Result<Option<Vec<u8>>> {
    // Bounded too: a device (`/dev/zero`) has no size for `check_size` to refuse. A gzip
    // file is smaller than its text, so `most` bounds it as well.
    let bytes = match crate::bounded::read(path, most, "log") {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => return Ok(None),
        Err(e) => return Err(e),
    };
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let cap = (bytes.len() as u64).saturating_mul(4).min(most) as usize;
        let mut out = Vec::with_capacity(cap);
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .take(most.saturating_add(1))
            .read_to_end(&mut out)?;
        Ok((out.len() as u64 <= most).then_some(out))
    } else {
        Ok((bytes.len() as u64 <= most).then_some(bytes))
    }
}

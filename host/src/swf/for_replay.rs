//! A log read whole for a replay ([`read_for_replay`]): the jobs [`super::read`],
//! [`super::clean`] and [`super::replay_jobs`] give, by the same rules and with the same
//! errors, without holding the file's text or an [`SwfJob`] of every line. The text comes
//! in chunks through one buffer, and each job line, once parsed and cleaned, is kept only
//! as the replay's record of it, so that the memory a load writes is about a sixth of the
//! text and full records it did.
//!
//! Two steps wait for the end of the file: cleaning's last step, which drops the jobs larger
//! than the machine (the machine's size comes from the header, which may end after job
//! lines), and the conversion's error for a job that lacks a field (the batch reader
//! reports a bad line anywhere in the file before it); each kept record carries what they
//! need.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::clean::clean_one;
use super::lines::Lines;
use super::order::OrderReport;
use super::{
    check_size, resolve_machine_procs, text_limit, too_large, CleanOptions, CleanReport, Field,
    MachineSizeError, ReadOptions, ReplayError, ReplayJob, SwfError, SwfHeader, SwfJob, BOM,
    TYPICAL_LINE_BYTES,
};

/// The bytes of text read at a time (a longer line makes the buffer longer).
const CHUNK: usize = 1 << 16;

/// An SWF file read for a replay: its header, what was skipped and the jobs, cleaned but
/// for the machine's size ([`ReplayLog::jobs`]).
#[derive(Debug)]
pub struct ReplayLog {
    /// The file's name as given to [`read_for_replay`] (used in messages).
    pub file: String,
    /// The `;` header lines.
    pub header: SwfHeader,
    /// Bad lines skipped (always 0 unless [`ReadOptions::skip_bad_lines`]).
    pub skipped: usize,
    /// The first [`super::SKIPPED_EXAMPLES`] errors of the skipped lines, in the order found.
    pub skipped_examples: Vec<SwfError>,
    /// Repeated job numbers and submit times out of order among the job lines read.
    pub order: OrderReport,
    /// The jobs kept so far, in file order.
    kept: Vec<Kept>,
    /// What cleaning did so far, when it runs.
    clean: Option<CleanReport>,
}

/// A job line kept, as the replay will take it.
#[derive(Clone, Copy, Debug)]
struct Kept {
    /// The replay's record (a field it lacks is 0).
    job: ReplayJob,
    /// The processors cleaning's last step compares with the machine's: allocated, or
    /// requested when allocated is unknown or 0 (0 when both are unknown: no machine is
    /// smaller).
    size: u32,
    /// The first field the replay needs that the job lacks ([`ReplayJob::try_from`]).
    missing: Option<Field>,
}

impl Kept {
    fn of(job: &SwfJob) -> Kept {
        let (record, missing) = match ReplayJob::try_from(job) {
            Ok(r) => (r, None),
            Err(e) => (
                ReplayJob {
                    id: job.id,
                    submit: job.submit_us.unwrap_or(0),
                    runtime: job.run_us.unwrap_or(0),
                    request: job.requested_us.unwrap_or(0),
                    procs: job.allocated_procs.unwrap_or(0),
                    line: job.line,
                },
                Some(e.field),
            ),
        };
        Kept {
            job: record,
            size: job
                .allocated_procs
                .filter(|&p| p > 0)
                .or(job.requested_procs)
                .unwrap_or(0),
            missing,
        }
    }
}

impl ReplayLog {
    /// The machine size: `procs_override` if given, else the header's (see
    /// [`resolve_machine_procs`]).
    pub fn machine_procs(&self, procs_override: Option<u32>) -> Result<u32, MachineSizeError> {
        resolve_machine_procs(&self.file, &self.header, procs_override)
    }

    /// The jobs for replay, sorted by submit time (ties in file order), and what cleaning
    /// did: what [`super::replay_jobs`] gives of [`super::clean`]'s jobs, the cleaning's
    /// last step dropping the jobs larger than `machine` (if cleaning and `machine` are on),
    /// or the first job in file order that lacks a field the replay needs.
    pub fn jobs(
        self,
        machine: Option<u32>,
    ) -> (Result<Vec<ReplayJob>, ReplayError>, Option<CleanReport>) {
        let mut clean = self.clean;
        let machine = machine.filter(|_| clean.is_some());
        let mut larger = 0;
        let mut missing = None;
        // In place: a record is no longer than what carried it.
        let mut jobs: Vec<ReplayJob> = self
            .kept
            .into_iter()
            .filter_map(|k| {
                if let Some(m) = machine {
                    if k.size > m {
                        larger += 1;
                        return None;
                    }
                }
                if let (None, Some(field)) = (missing, k.missing) {
                    missing = Some(ReplayError {
                        line: k.job.line,
                        id: k.job.id,
                        field,
                    });
                }
                Some(k.job)
            })
            .collect();
        if let Some(r) = &mut clean {
            r.dropped_larger_than_machine += larger;
            r.kept = jobs.len();
        }
        if let Some(e) = missing {
            return (Err(e), clean);
        }
        jobs.sort_unstable_by_key(|j| (j.submit, j.line));
        (Ok(jobs), clean)
    }
}

/// Reads the SWF file at `path` (named in messages as given), plain or gzip-compressed, as
/// [`super::read`] does (the same errors, in the same order of precedence), cleaning each
/// job as it comes with `clean`'s steps but the last; that one, which needs the machine's
/// size, [`ReplayLog::jobs`] applies.
pub fn read_for_replay(
    path: impl AsRef<Path>,
    options: &ReadOptions,
    clean: Option<CleanOptions>,
) -> Result<ReplayLog, SwfError> {
    read_in_chunks(path.as_ref(), options, clean, CHUNK)
}

/// [`read_for_replay`], `chunk` bytes of text at a time.
fn read_in_chunks(
    path: &Path,
    options: &ReadOptions,
    clean: Option<CleanOptions>,
    chunk: usize,
) -> Result<ReplayLog, SwfError> {
    let file = path.display().to_string();
    let io = |error| SwfError::Io {
        path: path.to_owned(),
        error,
    };
    let size = check_size(path, &file)?;
    let most = text_limit();
    let steps = clean.map(|c| CleanOptions {
        drop_larger_than_machine: None,
        ..c
    });
    let mut report = CleanReport::default();
    let mut kept = Vec::with_capacity(size as usize / TYPICAL_LINE_BYTES);
    let mut lines = Lines::new(&file, options);
    let mut keep = |mut job: SwfJob| {
        if let Some(o) = &steps {
            report.input += 1;
            if !clean_one(&mut job, o, &mut report) {
                return;
            }
        }
        kept.push(Kept::of(&job));
    };
    match read_lines(path, most, chunk, &mut lines, &mut keep) {
        Ok(Ok(true)) => {}
        Ok(Ok(false)) => return Err(too_large(&file, most + 1)),
        Ok(Err(e)) => return Err(e),
        Err(e) => return Err(io(e)),
    }
    let read = lines.finish()?;
    Ok(ReplayLog {
        file: file.clone(),
        header: read.header,
        skipped: read.skipped,
        skipped_examples: read.skipped_examples,
        order: read.order,
        kept,
        clean: steps.map(|_| report),
    })
}

/// Hands every line of the text at `path` (plain, or gzip by its magic bytes) to `lines`,
/// `chunk` bytes at a time: `Ok(false)` if the text passes `most` bytes, the first bad line's error
/// if there is one, else `Ok(true)`. The whole text is read in any case, as the batch
/// reader reads it before it parses: an I/O error or a text too long comes first.
fn read_lines(
    path: &Path,
    most: u64,
    chunk: usize,
    lines: &mut Lines<'_>,
    job: &mut impl FnMut(SwfJob),
) -> std::io::Result<Result<bool, SwfError>> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; chunk.max(BOM.len())];
    let mut filled = fill(&mut file, &mut buf)?;
    let mut gzip;
    let reader: &mut dyn Read = if buf[..filled].starts_with(&[0x1f, 0x8b]) {
        let head = std::io::Cursor::new(buf[..filled].to_vec());
        gzip = flate2::read::MultiGzDecoder::new(head.chain(file));
        filled = fill(&mut gzip, &mut buf)?;
        &mut gzip
    } else {
        &mut file
    };
    let mut total = filled as u64;
    if total > most {
        return Ok(Ok(false));
    }
    // A byte-order mark some editors write: not part of the first line.
    let mut from = if buf[..filled].starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    let mut failed = None;
    loop {
        if failed.is_none() {
            let base = from;
            for end in memchr::memchr_iter(b'\n', &buf[base..filled]) {
                let end = base + end;
                if let Err(e) = lines.take(&buf[from..end], job) {
                    failed = Some(e);
                    break;
                }
                from = end + 1;
            }
        }
        if failed.is_some() {
            // Only the text's length and I/O errors matter now.
            from = filled;
        }
        // The unfinished line to the buffer's start, and room after it.
        buf.copy_within(from..filled, 0);
        filled -= from;
        from = 0;
        if filled == buf.len() {
            buf.resize(2 * buf.len(), 0);
        }
        let n = loop {
            match reader.read(&mut buf[filled..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > most {
            return Ok(Ok(false));
        }
        filled += n;
    }
    if let Some(e) = failed {
        return Ok(Err(e));
    }
    // The piece after the last newline, as `split` gives it (empty after a final newline).
    Ok(lines.take(&buf[..filled], job).map(|()| true))
}

/// Reads into `buf` until it is full or the text ends; the bytes read.
fn fill(reader: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match reader.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::super::{clean, read, replay_jobs};
    use super::*;
    use proptest::prelude::*;

    /// What a replay's load makes of a log, or its error: the jobs, the cleaning's report,
    /// the lines skipped and their examples, the order report and the machine.
    type Loaded = Result<
        (
            Vec<ReplayJob>,
            Option<CleanReport>,
            usize,
            Vec<String>,
            OrderReport,
            u32,
        ),
        String,
    >;

    /// The batch way: read every line, clean, convert.
    fn batch(path: &Path, options: &ReadOptions, strong: bool) -> Loaded {
        let log = read(path, options).map_err(|e| e.to_string())?;
        let procs = log.machine_procs(None).map_err(|e| e.to_string())?;
        let (jobs, report) = if strong {
            let (jobs, r) = clean(log.jobs, &CleanOptions::strong(procs));
            (jobs, Some(r))
        } else {
            (log.jobs, None)
        };
        let jobs = replay_jobs(&jobs).map_err(|e| e.to_string())?;
        let examples = log.skipped_examples.iter().map(|e| e.to_string()).collect();
        Ok((jobs, report, log.skipped, examples, log.order, procs))
    }

    /// This file's way, `chunk` bytes at a time.
    fn chunked(path: &Path, options: &ReadOptions, strong: bool, chunk: usize) -> Loaded {
        let clean = strong.then(|| CleanOptions::strong(0));
        let log = read_in_chunks(path, options, clean, chunk).map_err(|e| e.to_string())?;
        let procs = log.machine_procs(None).map_err(|e| e.to_string())?;
        let (skipped, order) = (log.skipped, log.order);
        let examples = log.skipped_examples.iter().map(|e| e.to_string()).collect();
        let (jobs, report) = log.jobs(Some(procs));
        let jobs = jobs.map_err(|e| e.to_string())?;
        Ok((jobs, report, skipped, examples, order, procs))
    }

    /// Both ways agree on `text` (plain and gzip), read in chunks of several sizes.
    fn agree(text: &[u8]) {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("t.swf");
        std::fs::write(&plain, text).unwrap();
        let gz = dir.path().join("t.swf.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, text).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        for path in [&plain, &gz] {
            for options in [
                ReadOptions::default(),
                ReadOptions {
                    skip_bad_lines: true,
                },
            ] {
                for strong in [false, true] {
                    let want = batch(path, &options, strong);
                    for chunk in [1, 2, 5, 64, CHUNK] {
                        assert_eq!(
                            chunked(path, &options, strong, chunk),
                            want,
                            "{} chunk {chunk} strong {strong} {options:?}",
                            path.display()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn crafted_logs_load_as_the_batch_reader_loads_them() {
        let header = "; MaxProcs: 8\n";
        let good = "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1";
        let cases: Vec<String> = vec![
            format!("{header}{good}\n"),
            // No newline at the end, CRLF lines, a byte-order mark, blank lines.
            format!(
                "\u{feff}{header}\r\n\n{good}\r\n2 5 -1 3 1 -1 -1 1 4 -1 1 -1 -1 -1 -1 -1 -1 -1"
            ),
            // Larger than the machine, no processors, no request, no run time, out of
            // order, a repeated number; then the header's size after the jobs.
            format!(
                "{good}\n2 1 -1 10 9 -1 -1 9 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
                 3 2 -1 10 -1 -1 -1 -1 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
                 4 3 -1 10 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
                 5 2 -1 -1 2 -1 -1 2 30 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
                 5 0 -1 40 3 -1 -1 -1 30 -1 1 -1 -1 -1 -1 -1 -1 -1\n; MaxProcs: 4\n"
            ),
            // Bad lines: too few fields, a bad number; and a bad header value.
            format!("{header}{good}\n2 0 1\n3 x -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"),
            format!("; MaxProcs: many\n{good}\n"),
            // A job lacking a field after a bad line: the bad line's error comes first.
            format!("{header}4 3 -1 10 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 0 1\n"),
            // No jobs; no machine size.
            format!("{header}\n"),
            format!("{good}\n"),
            String::new(),
        ];
        for text in &cases {
            agree(text.as_bytes());
        }
    }

    #[test]
    fn a_real_log_loads_as_the_batch_reader_loads_it() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/traces/KTH-SP2-1996-2.1.swf"
        );
        let path = Path::new(path);
        for strong in [false, true] {
            let options = ReadOptions::default();
            assert_eq!(
                chunked(path, &options, strong, CHUNK),
                batch(path, &options, strong)
            );
        }
    }

    /// Lines a log may hold: jobs good and bad, header lines, blank ones.
    fn log_line() -> impl Strategy<Value = String> {
        let field = prop::sample::select(vec!["-1", "0", "1", "3", "7", "12", "2.5", "x"]);
        let job = (1u32..40, prop::collection::vec(field, 16..19)).prop_map(|(id, rest)| {
            let mut words = vec![id.to_string()];
            words.extend(rest.iter().map(|w| w.to_string()));
            words.join(" ")
        });
        prop_oneof![
            6 => job,
            1 => prop::sample::select(vec![
                "; MaxProcs: 6".to_string(),
                "; MaxNodes: 9".to_string(),
                "; Note: a".to_string(),
                ";   continued".to_string(),
                String::new(),
                "  \t".to_string(),
            ]),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the lines, both ways load the same jobs, reports and errors.
        #[test]
        fn drawn_logs_load_as_the_batch_reader_loads_them(
            lines in prop::collection::vec(log_line(), 0..30),
            crlf in any::<bool>(),
            last_newline in any::<bool>(),
        ) {
            let mut text = lines.join(if crlf { "\r\n" } else { "\n" });
            if last_newline {
                text.push('\n');
            }
            agree(text.as_bytes());
        }
    }
}

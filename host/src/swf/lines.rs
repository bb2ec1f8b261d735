//! A log read whole, a line at a time: [`Lines`] takes each line of the text in turn (the
//! header's, the jobs', the blank ones) and hands each job it parses to its caller, so that
//! [`super::parse`] can keep every [`SwfJob`] and [`super::read_for_replay`] only what a
//! replay needs of each, by the same rules: the same header, order check, skipped lines and
//! errors, whichever keeps what.

use super::header::HeaderBuilder;
use super::order::{OrderCheck, OrderReport};
use super::{parse_job, ReadOptions, SwfError, SwfHeader, SwfJob, SKIPPED_EXAMPLES};

/// The state of reading a log's lines in file order.
pub(super) struct Lines<'f> {
    file: &'f str,
    options: ReadOptions,
    order: OrderCheck,
    header: HeaderBuilder,
    /// Lines taken so far (the 1-based number of the last one).
    line: usize,
    /// Job lines parsed without error.
    jobs: usize,
    skipped: usize,
    skipped_examples: Vec<SwfError>,
}

/// What a log's lines came to, besides its jobs.
pub(super) struct Read {
    pub header: SwfHeader,
    pub skipped: usize,
    pub skipped_examples: Vec<SwfError>,
    pub order: OrderReport,
}

impl<'f> Lines<'f> {
    /// Before the first line of `file`.
    pub fn new(file: &'f str, options: &ReadOptions) -> Lines<'f> {
        Lines {
            file,
            options: *options,
            order: OrderCheck::exact(),
            header: HeaderBuilder::default(),
            line: 0,
            jobs: 0,
            skipped: 0,
            skipped_examples: Vec::new(),
        }
    }

    /// Takes the next line (without its `\n`), handing its job, if it is a good job line, to
    /// `job`. A bad line is the error, or skipped and counted.
    #[inline]
    pub fn take(&mut self, raw: &[u8], job: &mut impl FnMut(SwfJob)) -> Result<(), SwfError> {
        self.line += 1;
        let line = self.line;
        let trimmed = raw.trim_ascii();
        match trimmed.first() {
            None => self.header.close(),
            Some(b';') => self.header.line(line, &trimmed[1..]),
            Some(_) => {
                self.header.close();
                match parse_job(line, trimmed) {
                    Ok(j) => {
                        self.order.job(line, j.id, j.submit_us);
                        self.jobs += 1;
                        job(j)
                    }
                    Err(e) => {
                        let file = self.file;
                        self.bad(&|| e.with_file(file, line))?
                    }
                }
            }
        }
        Ok(())
    }

    /// After the last line: the header typed (a bad value is a bad line), or
    /// [`SwfError::NoJobs`] if no job line was good.
    pub fn finish(mut self) -> Result<Read, SwfError> {
        let (header, header_errors) = std::mem::take(&mut self.header).finish();
        for e in header_errors {
            let file = self.file;
            let error = || SwfError::BadHeader {
                file: file.to_owned(),
                line: e.line,
                key: e.key.clone(),
                text: e.text.clone(),
                problem: e.problem,
            };
            self.bad(&error)?;
        }
        if self.jobs == 0 {
            return Err(SwfError::NoJobs {
                file: self.file.to_owned(),
                skipped: self.skipped,
            });
        }
        Ok(Read {
            header,
            skipped: self.skipped,
            skipped_examples: self.skipped_examples,
            order: self.order.report(),
        })
    }

    /// A bad line: its error, or counted and skipped (the error built only when it is
    /// returned or kept as an example).
    fn bad(&mut self, error: &dyn Fn() -> SwfError) -> Result<(), SwfError> {
        if !self.options.skip_bad_lines {
            return Err(error());
        }
        self.skipped += 1;
        if self.skipped_examples.len() < SKIPPED_EXAMPLES {
            self.skipped_examples.push(error());
        }
        Ok(())
    }
}

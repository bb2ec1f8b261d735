//! Replays on the processor pool ([`super::pool`]): of jobs in memory ([`replay_pool`], the
//! same results as [`super::replay_trace`] gives the node allocation), or of an SWF file
//! streamed ([`replay_file_pool`]): jobs are read, cleaned and converted as the replay
//! reaches their submit time, and each job's line of `--jobs-out` is written as soon as
//! every earlier job has started, so memory is bounded by the jobs in the system, not the
//! log's length.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;

use super::metrics::{
    summarize, write_job_line, CleanCounts, JobRecord, Summary, SummaryFile, JOBS_CSV_HEADER,
};
use super::pool::Pool;
use super::tally::{InOrder, Tally};
use super::{LoadOptions, Policy, ReplayCounts, TraceError, TraceResult};
use crate::swf::{CleanOptions, CleanReport, ReadOptions, ReplayJob, SwfStream};

/// Replays `jobs` on a pool of `procs` processors under `policy` (FCFS, EASY or
/// Conservative). Jobs need not be sorted: they are submitted in (submit, line) order; the
/// records come back in the order of `jobs`.
pub fn replay_pool(
    jobs: &[ReplayJob],
    procs: u32,
    policy: Policy,
) -> Result<TraceResult, TraceError> {
    let clock = Instant::now();
    let mut pool = Pool::new(procs, policy)?;
    if u32::try_from(jobs.len()).is_err() {
        return Err(TraceError::TooManyJobs(jobs.len()));
    }
    let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
    order.sort_by_key(|&i| (jobs[i as usize].submit, jobs[i as usize].line));
    let mut by_seq: Vec<Option<JobRecord>> = vec![None; jobs.len()];
    let mut k = 0;
    pool.run::<TraceError>(
        &mut || {
            let j = order.get(k).map(|&i| jobs[i as usize]);
            k += 1;
            Ok(j)
        },
        &mut |seq, r| {
            by_seq[seq as usize] = Some(r);
            Ok(())
        },
    )?;
    let mut records: Vec<JobRecord> = Vec::with_capacity(jobs.len());
    let mut position = vec![0u32; jobs.len()];
    for (s, &i) in order.iter().enumerate() {
        position[i as usize] = s as u32;
    }
    for &s in &position {
        records.push(by_seq[s as usize].expect("every job started"));
    }
    let summary = summarize(&records, procs, clock.elapsed().as_secs_f64());
    Ok(TraceResult {
        policy,
        procs,
        jobs: records,
        summary,
        counts: pool.counts(),
        value: None,
    })
}

/// What [`replay_file_pool`] yields: no records (they went to `jobs_out`), the summary.
#[derive(Clone, Debug)]
pub struct StreamedReplay {
    /// The file, as given.
    pub file: String,
    /// The policy replayed.
    pub policy: Policy,
    /// The allocation that placed the jobs.
    pub allocation: super::Allocation,
    /// Machine size, processors.
    pub procs: u32,
    /// The metrics; the wall time includes reading, cleaning and writing the jobs file,
    /// which a stream interleaves with the scheduling.
    pub summary: Summary,
    /// What the replay cost.
    pub counts: ReplayCounts,
    /// What cleaning did, when it ran.
    pub clean: Option<CleanReport>,
    /// Bad lines skipped.
    pub skipped_bad_lines: usize,
    /// Repeated job numbers (by the stream's rule) and submit times out of order.
    pub order: crate::swf::OrderReport,
}

impl StreamedReplay {
    /// The summary `kairos replay` prints.
    pub fn summary_file(&self) -> SummaryFile {
        SummaryFile {
            file: self.file.clone(),
            policy: self.policy,
            allocation: self.allocation,
            procs: self.procs,
            summary: self.summary,
            passes: self.counts.passes,
            skipped_bad_lines: self.skipped_bad_lines,
            clean: self.clean.as_ref().map(CleanCounts::from),
            knapsack: None,
            value: None,
        }
    }
}

/// Streams the SWF file at `path` (plain or gzip) through the pool under `policy`, writing
/// one line per job to `jobs_out` (the format of [`super::write_jobs_csv`], in submit order)
/// if given. Errors name the file and line as [`super::load`]'s do.
pub fn replay_file_pool(
    path: &Path,
    options: &LoadOptions,
    policy: Policy,
    jobs_out: Option<&mut dyn Write>,
) -> anyhow::Result<StreamedReplay> {
    let clock = Instant::now();
    let (mut stream, file, procs) = open_stream(path, options)?;
    let mut pool = Pool::new(procs, policy)?;
    let mut out = jobs_out.map(|w| std::io::BufWriter::with_capacity(1 << 16, w));
    if let Some(w) = &mut out {
        writeln!(w, "{JOBS_CSV_HEADER}")
            .with_context(|| format!("{file}: cannot write the jobs file"))?;
    }
    let mut tally = Tally::default();
    let mut in_order = InOrder::new();
    let mut emit = |r: &JobRecord| -> anyhow::Result<()> {
        tally.add(r);
        if let Some(w) = &mut out {
            write_job_line(w, r).context("cannot write the jobs file")?;
        }
        Ok(())
    };
    let ran = pool.run::<anyhow::Error>(&mut || Ok(stream.next_job()?), &mut |seq, r| {
        in_order.put(seq, r, &mut emit)
    });
    if let Err(e) = ran {
        return Err(if e.downcast_ref::<TraceError>().is_some() {
            e.context(format!("{file}: cannot replay"))
        } else {
            e
        });
    }
    if let Some(w) = &mut out {
        w.flush().context("cannot write the jobs file")?;
    }
    drop(out);
    if tally_jobs(&tally) == 0 {
        anyhow::bail!("{file}: no jobs left to replay after cleaning");
    }
    let summary = tally.summary(procs, clock.elapsed().as_secs_f64());
    Ok(StreamedReplay {
        file,
        policy,
        allocation: super::Allocation::Pool,
        procs,
        summary,
        counts: pool.counts(),
        clean: stream.clean_report(),
        skipped_bad_lines: stream.skipped(),
        order: stream.order(),
    })
}

/// Jobs tallied.
/// Opens `path` as a stream with the load options applied (machine size, cleaning,
/// strictness): the stream, the file's name for errors, and the machine's processors. Both
/// streamed replays (the pool here, the nodes in `streamed_nodes.rs`) start this way.
pub(super) fn open_stream(
    path: &Path,
    options: &LoadOptions,
) -> anyhow::Result<(SwfStream, String, u32)> {
    let read = ReadOptions {
        skip_bad_lines: options.skip_bad_lines,
    };
    let mut stream = SwfStream::open(path, &read)?;
    let file = stream.file().to_owned();
    let procs = stream.machine_procs(options.procs)?;
    if options.clean_strong {
        stream.clean_with(CleanOptions::strong(procs));
    }
    stream.strict(options.strict);
    Ok((stream, file, procs))
}

fn tally_jobs(t: &Tally) -> usize {
    t.summary(1, 0.0).jobs
}

//! `kairos sweep-knapsack`: seed 004's exhaustive (alpha, beta, gamma) search on the first
//! jobs of an SWF log or on a small synthetic workload (the library is [`crate::knapsack`]).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use crate::experiment::saved::{self, Steps};
use crate::knapsack::{self, Mode};
use crate::shard::knapsack::Sweep;
use crate::shard::Slice;

/// Flags of `kairos sweep-knapsack`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The SWF file (its first `--jobs` jobs after `--clean strong`).
    #[arg(required_unless_present = "synthetic", conflicts_with = "synthetic")]
    pub swf: Option<PathBuf>,
    /// Sweep the synthetic workload (64 processors) instead of a log.
    #[arg(long)]
    pub synthetic: bool,
    /// Submit every job of the log at time 0 (the workload as one batch).
    #[arg(long, conflicts_with = "synthetic")]
    pub batch: bool,
    /// Malleable jobs (the paper's model) or rigid ones through `kairos replay`'s driver.
    #[arg(long, value_enum, default_value_t = Mode::Malleable)]
    pub mode: Mode,
    /// Jobs to schedule.
    #[arg(long, default_value_t = 50)]
    pub jobs: usize,
    /// Machine size in processors for a log (default: its header's).
    #[arg(long)]
    pub procs: Option<u32>,
    /// Grid step over [-2, 2] for each exponent (0.1: 41^3 = 68,921 points).
    #[arg(long, default_value_t = 0.1, value_parser = super::finite)]
    pub step: f64,
    /// Per-job share of the knapsack, in (0, 1].
    #[arg(long, default_value_t = 1.0, value_parser = super::finite)]
    pub share: f64,
    /// Seed of the synthetic workload.
    #[arg(long, default_value_t = 4)]
    pub seed: u64,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Directory for points.csv, pareto.csv, pareto.svg and summary.json (with `--shard`,
    /// for the shard file) (default: `out/<log stem>-knapsack/`, or
    /// `out/synthetic-knapsack/`; `-batch` and `-rigid` added for `--batch` and `--mode
    /// rigid`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Sweep only the K-th of N slices of the grid and write its shard file,
    /// `shard-K-of-N.shard`, into `--out`; `kairos merge` joins the shards.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Slice>,
    /// Overwrite the results (and the saved slices) of an earlier sweep in `--out`.
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// Continue an interrupted sweep: the slices of the grid saved in `--out`'s `runs/` are
    /// not swept again; the reports are the same as an uninterrupted sweep's.
    #[arg(long, conflicts_with = "shard")]
    pub resume: bool,
    /// Print the summary as JSON (it always is: accepted so that every command that prints a
    /// summary takes `--json`).
    #[arg(long)]
    pub json: bool,
}

/// Where a sweep writes unless `--out` says: `out/<log stem>-knapsack/`, or
/// `out/synthetic-knapsack/`, with `-batch` after `knapsack` for `--batch` and `-rigid` for
/// `--mode rigid`, so that the sweeps of one workload do not refuse each other's folder
/// (also `kairos merge`'s default for its shards).
pub fn default_out_dir(sweep: &Sweep) -> PathBuf {
    let stem = sweep
        .swf
        .as_deref()
        .and_then(|p| p.file_name())
        .map(|n| {
            let n = n.to_string_lossy();
            let n = n.strip_suffix(".gz").unwrap_or(&n);
            n.strip_suffix(".swf").unwrap_or(n).to_string()
        })
        .unwrap_or_else(|| "synthetic".to_string());
    let batch = if sweep.batch { "-batch" } else { "" };
    let mode = match sweep.mode {
        Mode::Malleable => "",
        Mode::Rigid => "-rigid",
    };
    std::path::Path::new("out").join(format!("{stem}-knapsack{batch}{mode}"))
}

impl Args {
    /// The sweep these flags describe.
    pub fn sweep(&self) -> Sweep {
        Sweep {
            swf: self.swf.clone(),
            batch: self.batch,
            mode: self.mode,
            jobs: self.jobs,
            procs: self.procs,
            step: self.step,
            share: self.share,
            seed: self.seed,
        }
    }
}

/// Times grid point `at` on one thread and prints what the sweep of `points` points on
/// `threads` threads should take, before it starts; returns the point.
fn estimate(
    w: &knapsack::Workload,
    grid: &knapsack::Grid,
    args: &Args,
    at: usize,
    points: usize,
    threads: usize,
) -> anyhow::Result<Option<knapsack::Point>> {
    if points == 0 {
        return Ok(None);
    }
    let clock = Instant::now();
    // A point of a large workload takes long itself: its jobs are shown as they start.
    let progress = crate::progress::show(
        crate::progress::Steps::new(
            "sweep-knapsack: timing one point",
            "jobs scheduled",
            w.jobs.len() as u64,
            0,
        )
        .quiet_for(crate::progress::QUIET),
    );
    let mut timed = knapsack::sweep_points(
        w,
        grid,
        args.mode,
        args.share,
        at..at + 1,
        Some(1),
        &mut |_, _| {},
    )?;
    drop(progress);
    let one = clock.elapsed().as_secs_f64();
    let total = one * points as f64 / threads.max(1) as f64;
    crate::diag!(
        "sweep-knapsack: estimate {} ({points} points, one took {:.3} s)",
        super::experiment::duration_text(std::time::Duration::from_secs_f64(total)),
        one
    );
    Ok(timed.pop())
}

/// The progress of a sweep of `points` grid points, `saved` of them before this session:
/// counted in jobs scheduled (each point schedules every job of `w`), so that a workload
/// whose every point takes minutes shows progress within seconds (and a short sweep none).
fn job_progress(w: &knapsack::Workload, points: u64, saved: u64) -> crate::progress::Steps {
    let jobs = w.jobs.len() as u64;
    crate::progress::Steps::new(
        "sweep-knapsack",
        "jobs scheduled",
        points.saturating_mul(jobs),
        saved.saturating_mul(jobs),
    )
    .quiet_for(crate::progress::QUIET)
}

/// Runs `kairos sweep-knapsack`: load or generate, sweep, write, print the summary.
pub fn main(mut args: Args) -> anyhow::Result<()> {
    // Values clap parses but the sweep cannot take: a bad command line (exit 2), checked
    // before a log is read.
    if args.jobs == 0 {
        return Err(super::usage("--jobs must be at least 1"));
    }
    if args.jobs > crate::limits::MAX_SWEEP_JOBS {
        return Err(super::usage(format!(
            "--jobs {}: at most {} jobs",
            args.jobs,
            crate::limits::MAX_SWEEP_JOBS
        )));
    }
    if args.procs == Some(0) {
        return Err(super::usage("--procs must be at least 1"));
    }
    knapsack::Grid::new(args.step).map_err(|e| super::usage(e.to_string()))?;
    if !(args.share > 0.0 && args.share <= 1.0) {
        return Err(super::usage(format!(
            "--share must be in (0, 1], not {}",
            args.share
        )));
    }
    let sweep = args.sweep();
    let out = args.out.clone().unwrap_or_else(|| default_out_dir(&sweep));
    args.threads = crate::limits::threads("--threads", args.threads)
        .map_err(|e| super::usage(e.to_string()))?;
    // The folder is checked before the work, so a bad --out fails at once; a shard's folder
    // holds the other shards, so it is only created.
    let inputs: Vec<&std::path::Path> = sweep.swf.iter().map(|p| p.as_path()).collect();
    crate::output::prepare_reports_dir(
        &out,
        args.force || args.resume || args.shard.is_some(),
        crate::output::RESULTS_MARKER,
        &inputs,
        &[],
    )?;
    let (w, grid) = sweep.load()?;
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    if let Some(slice) = args.shard {
        return shard(&args, &sweep, &w, &grid, slice, &out, threads);
    }
    let steps = Steps {
        dir: out.join(saved::RUNS_DIR),
        kind: "knapsack",
        hash: sweep.identity()?,
        steps: knapsack::saved::step_count(grid.points()),
    };
    let flags = saved::Flags {
        resume: args.resume,
        force: args.force,
    };
    let mut saved_slices = flags.prepare(&out, crate::output::RESULTS_MARKER, &steps)?;
    let total = grid.points() as u64;
    let saved_points: u64 = saved_slices
        .iter()
        .enumerate()
        .filter(|(_, s)| **s)
        .map(|(k, _)| {
            let r = Slice {
                k: k as u32 + 1,
                n: steps.steps,
            }
            .range(total);
            r.end - r.start
        })
        .sum();
    // Ctrl-C is caught from here, the timed point's run included: it finishes the point,
    // saves it (when the point is a slice of its own, as on a grid of at most 1,000
    // points), and stops before the next slice with the slices finished kept.
    crate::interrupt::catch();
    crate::interrupt::say_when_requested(format!(
        "Ctrl-C: finishing the running slice of the grid (about {} points), then stopping \
         (finished slices are saved); Ctrl-C again stops at once",
        total.div_ceil(steps.steps as u64)
    ));
    // The point timed is the first of the first slice not saved, so it is not swept twice
    // when it is a slice of its own.
    let first = saved_slices.iter().position(|s| !*s).map(|k| {
        let r = Slice {
            k: k as u32 + 1,
            n: steps.steps,
        }
        .range(total);
        (k, r.start as usize..r.end as usize)
    });
    let pending = (total - saved_points) as usize;
    if let Some((k, range)) = first.clone() {
        let timed = estimate(&w, &grid, &args, range.start, pending, threads)?;
        if let (Some(p), 1) = (timed, range.len()) {
            knapsack::saved::save_slice(&steps, k as u32, &[p])?;
            saved_slices[k] = true;
        }
    }
    crate::diag!(
        "sweep-knapsack: {} ({} jobs, {} processors), {} points{} on {threads} threads",
        w.name,
        w.jobs.len(),
        w.procs,
        grid.points(),
        if saved_points > 0 {
            format!(" ({saved_points} saved)")
        } else {
            String::new()
        }
    );
    // The timed point, saved, counts as done.
    let done = saved_points + u64::from(first.is_some_and(|(k, _)| saved_slices[k]));
    let progress = crate::progress::show(job_progress(&w, total, done));
    let clock = Instant::now();
    let swept = knapsack::saved::sweep_saved(
        &w,
        &grid,
        args.mode,
        args.share,
        args.threads,
        &knapsack::saved::Saving {
            steps: &steps,
            saved: &saved_slices,
            stop: &crate::interrupt::requested_saying,
        },
    )?;
    drop(progress);
    let sweep_s = clock.elapsed().as_secs_f64();
    let Some(points) = swept else {
        let n = steps.saved()?.iter().filter(|s| **s).count();
        let mut again: Vec<String> = std::env::args().skip(1).collect();
        again.retain(|a| a != "--resume");
        return Err(saved::stopped(
            n,
            &steps,
            "slices of the grid",
            &format!("kairos {}", again.join(" ")),
        ));
    };
    let json = crate::shard::knapsack::write_reports(&out, &sweep, &w, &grid, &points)?;
    writeln!(super::pipe::stdout(), "{json}")?;
    // The reports are complete: the saved slices have served.
    steps.remove()?;
    crate::diag!(
        "sweep-knapsack: {} points ({} swept now) in {sweep_s:.2} s, {threads} threads; wrote {}",
        points.len(),
        total - saved_points,
        out.display()
    );
    Ok(())
}

/// `--shard K/N`: sweeps the slice and writes its shard file into `out`.
fn shard(
    args: &Args,
    sweep: &Sweep,
    w: &knapsack::Workload,
    grid: &knapsack::Grid,
    slice: Slice,
    out: &std::path::Path,
    threads: usize,
) -> anyhow::Result<()> {
    let range = slice.range(grid.points() as u64);
    let range = range.start as usize..range.end as usize;
    estimate(w, grid, args, range.start, range.len(), threads)?;
    crate::diag!(
        "sweep-knapsack: {} ({} jobs, {} processors), {} points, shard {slice}: points \
         {}..{} on {threads} threads",
        w.name,
        w.jobs.len(),
        w.procs,
        grid.points(),
        range.start,
        range.end
    );
    let progress = crate::progress::show(job_progress(w, range.len() as u64, 0));
    let clock = Instant::now();
    let points = knapsack::sweep_points(
        w,
        grid,
        args.mode,
        args.share,
        range,
        args.threads,
        &mut |_, _| {},
    )?;
    drop(progress);
    let sweep_s = clock.elapsed().as_secs_f64();
    let path = out.join(slice.file_name());
    crate::shard::knapsack::write(&path, sweep, grid, slice, &points)?;
    writeln!(
        super::pipe::stdout(),
        "shard {slice}: {} points in {sweep_s:.2} s; wrote {}",
        points.len(),
        path.display()
    )?;
    Ok(())
}

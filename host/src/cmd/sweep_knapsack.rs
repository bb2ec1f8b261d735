//! `kairos sweep-knapsack`: seed 004's exhaustive (alpha, beta, gamma) search on the first
//! jobs of an SWF log or on a small synthetic workload (the library is [`crate::knapsack`]).

use std::path::PathBuf;
use std::time::Instant;

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
    /// for the shard file).
    #[arg(long, default_value = "knapsack-sweep")]
    pub out: PathBuf,
    /// Sweep only the K-th of N slices of the grid and write its shard file,
    /// `shard-K-of-N.shard`, into `--out`; `kairos merge` joins the shards.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Slice>,
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

/// Runs `kairos sweep-knapsack`: load or generate, sweep, write, print the summary.
pub fn main(args: Args) -> anyhow::Result<()> {
    let sweep = args.sweep();
    let (w, grid) = sweep.load()?;
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let slice = args.shard.unwrap_or(Slice::WHOLE);
    let range = slice.range(grid.points() as u64);
    let range = range.start as usize..range.end as usize;
    eprintln!(
        "sweep-knapsack: {} ({} jobs, {} processors), {} points{} on {threads} threads",
        w.name,
        w.jobs.len(),
        w.procs,
        grid.points(),
        if args.shard.is_some() {
            format!(", shard {slice}: points {}..{}", range.start, range.end)
        } else {
            String::new()
        }
    );
    let clock = Instant::now();
    let points = knapsack::sweep_points(
        &w,
        &grid,
        args.mode,
        args.share,
        range,
        args.threads,
        &mut |done, total| {
            eprintln!(
                "sweep-knapsack: {done}/{total} points ({}%), {:.2} s",
                done * 100 / total,
                clock.elapsed().as_secs_f64()
            );
        },
    )?;
    let sweep_s = clock.elapsed().as_secs_f64();
    if args.shard.is_some() {
        let path = args.out.join(slice.file_name());
        crate::shard::knapsack::write(&path, &sweep, &grid, slice, &points)?;
        println!(
            "shard {slice}: {} points in {sweep_s:.2} s; wrote {}",
            points.len(),
            path.display()
        );
        return Ok(());
    }
    let json = crate::shard::knapsack::write_reports(&args.out, &sweep, &w, &grid, &points)?;
    println!("{json}");
    eprintln!(
        "sweep-knapsack: {} points in {sweep_s:.2} s ({:.0} points/s, {threads} threads); \
         wrote {}",
        points.len(),
        points.len() as f64 / sweep_s,
        args.out.display()
    );
    Ok(())
}

//! `kairos sweep-knapsack`: seed 004's exhaustive (alpha, beta, gamma) search on the first
//! jobs of an SWF log or on a small synthetic workload (the library is [`crate::knapsack`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use crate::knapsack::{self, Grid, Mode};

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
    /// Directory for points.csv, pareto.csv, pareto.svg and summary.json.
    #[arg(long, default_value = "knapsack-sweep")]
    pub out: PathBuf,
}

/// Runs `kairos sweep-knapsack`: load or generate, sweep, write, print the summary.
pub fn main(args: Args) -> anyhow::Result<()> {
    if args.jobs == 0 {
        anyhow::bail!("--jobs must be at least 1");
    }
    let grid = Grid::new(args.step)?;
    let w = match &args.swf {
        Some(path) => knapsack::load_swf(path, args.jobs, args.procs, args.batch)?,
        None => knapsack::synthetic(args.jobs, args.seed)?,
    };
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    eprintln!(
        "sweep-knapsack: {} ({} jobs, {} processors), {} points on {threads} threads",
        w.name,
        w.jobs.len(),
        w.procs,
        grid.points()
    );
    let clock = Instant::now();
    let points = knapsack::sweep(
        &w,
        &grid,
        args.mode,
        args.share,
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
    let fronts = knapsack::fronts(&points);
    knapsack::write_outputs(&args.out, &w, &grid, &points, &fronts)?;

    let summary = knapsack::summarize(
        &w, &grid, args.mode, args.share, args.batch, &points, &fronts,
    );
    let json = serde_json::to_string_pretty(&summary)?;
    let path = args.out.join("summary.json");
    std::fs::write(&path, format!("{json}\n"))
        .with_context(|| format!("{}: cannot write", path.display()))?;
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

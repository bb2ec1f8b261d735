//! `kairos sweep-knapsack`: seed 004's exhaustive (alpha, beta, gamma) search on the first
//! jobs of an SWF log or on a small synthetic workload (the library is [`crate::knapsack`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

use crate::knapsack::{self, Grid, Mode, CLASSES};

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
    #[arg(long, default_value_t = 0.1, value_parser = crate::cmd::replay::finite)]
    pub step: f64,
    /// Per-job share of the knapsack, in (0, 1].
    #[arg(long, default_value_t = 1.0, value_parser = crate::cmd::replay::finite)]
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

/// The parameters and cost of one point, for the summary.
#[derive(Clone, Debug, Serialize)]
pub struct Best {
    /// Size exponent.
    pub alpha: f64,
    /// Wait exponent.
    pub beta: f64,
    /// Runtime exponent.
    pub gamma: f64,
    /// Workload response time, seconds.
    pub wrt_s: f64,
    /// The value minimised (WRT in seconds, or the class's mean expansion factor).
    pub value: f64,
}

/// `summary.json`: what was swept and the extremes of the cost vector (deterministic).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The workload.
    pub workload: String,
    /// Whether a log's jobs were all submitted at 0 (`--batch`).
    pub batch: bool,
    /// `malleable` or `rigid`.
    pub mode: String,
    /// Jobs.
    pub jobs: usize,
    /// Machine size.
    pub procs: u32,
    /// Jobs per class A-D.
    pub class_jobs: [usize; 4],
    /// Grid points.
    pub points: usize,
    /// Grid step.
    pub step: f64,
    /// Per-job share.
    pub share: f64,
    /// Distinct cost vectors among the points.
    pub distinct_costs: usize,
    /// The point of least WRT (the first by grid index).
    pub min_wrt: Best,
    /// The largest WRT over the grid, seconds.
    pub max_wrt_s: f64,
    /// Per class with jobs, the point of least mean E_f (then of least WRT, then first by
    /// grid index).
    pub min_ef: Vec<(char, Best)>,
    /// Per class with jobs, the largest mean E_f over the grid.
    pub max_ef: Vec<(char, f64)>,
    /// Per class with jobs, the values on its (WRT, E_f) front.
    pub front_values: Vec<(char, usize)>,
    /// Points on the joint front (WRT and every class's E_f).
    pub joint_front_points: usize,
}

fn best(p: &knapsack::Point, value: f64) -> Best {
    Best {
        alpha: p.alpha,
        beta: p.beta,
        gamma: p.gamma,
        wrt_s: p.cost.wrt as f64 / 1e6,
        value,
    }
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

    let classes = w.classes();
    let mut class_jobs = [0; 4];
    for c in &classes {
        class_jobs[*c as usize] += 1;
    }
    let mut costs: Vec<(u64, [u64; 4])> = points
        .iter()
        .map(|p| (p.cost.wrt, p.cost.ef.map(|e| e.unwrap_or(0.0).to_bits())))
        .collect();
    costs.sort_unstable();
    costs.dedup();
    let by = |key: &dyn Fn(&knapsack::Point) -> f64| {
        points
            .iter()
            .min_by(|a, b| {
                key(a)
                    .total_cmp(&key(b))
                    .then(a.cost.wrt.cmp(&b.cost.wrt))
                    .then(a.index.cmp(&b.index))
            })
            .expect("a grid has points")
    };
    let min_wrt = by(&|p| p.cost.wrt as f64);
    let summary = Summary {
        workload: w.name.clone(),
        batch: args.batch,
        mode: format!("{:?}", args.mode).to_lowercase(),
        jobs: w.jobs.len(),
        procs: w.procs,
        class_jobs,
        points: points.len(),
        step: args.step,
        share: args.share,
        distinct_costs: costs.len(),
        min_wrt: best(min_wrt, min_wrt.cost.wrt as f64 / 1e6),
        max_wrt_s: points.iter().map(|p| p.cost.wrt).max().unwrap_or(0) as f64 / 1e6,
        min_ef: fronts
            .present
            .iter()
            .map(|&k| {
                let p = by(&|p| p.cost.ef[k].unwrap_or(f64::INFINITY));
                (CLASSES[k], best(p, p.cost.ef[k].unwrap_or(0.0)))
            })
            .collect(),
        max_ef: fronts
            .present
            .iter()
            .map(|&k| {
                let m = points
                    .iter()
                    .filter_map(|p| p.cost.ef[k])
                    .fold(0.0, f64::max);
                (CLASSES[k], m)
            })
            .collect(),
        front_values: fronts
            .present
            .iter()
            .map(|&k| {
                (
                    CLASSES[k],
                    fronts.values.iter().filter(|v| v.class == k).count(),
                )
            })
            .collect(),
        joint_front_points: fronts.joint.iter().filter(|&&j| j).count(),
    };
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

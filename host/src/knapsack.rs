//! Seed 004's exhaustive parameter search: every (alpha, beta, gamma) of a grid over [-2, 2]
//! scheduled with the malleable greedy fractional knapsack (the core's
//! [`kairos_core::knapsack::select`]), the cost vector of each schedule (workload
//! response time and the mean expansion factor of each job class), and the Pareto fronts.
//!
//! The model (`docs/results.md`, "Seed 004"):
//! - a job is `tasks` independent one-processor tasks of `runtime` each (the paper's
//!   malleable jobs); from an SWF log, tasks = its processors and runtime = its run time
//!   (at most its request), the paper's "number of cores, job duration";
//! - a scheduling cycle runs at every instant where tasks end or jobs arrive (after all the
//!   ends, then all the arrivals of that instant) and there are free processors and waiting
//!   jobs; it starts what [`select`] chooses;
//! - a job's expansion factor is `(end - submit) / runtime`, its end being its last task's:
//!   the paper's `(wait + runtime) / runtime` when the job runs in one wave;
//! - the workload response time (WRT) is the last end minus the first submit;
//! - classes against the workload's means: large = more tasks than the mean, long = a longer
//!   runtime than the mean; A large-long, B large-short, C small-long, D small-short.
//!
//! Points are evaluated in parallel (rayon) and returned in grid order (alpha outer, gamma
//! inner, as Algorithm 2's loops), so every output is the same bytes on any thread count.
//!
//! The malleable model keeps its own event loop ([`simulate`]) instead of the core's engine
//! ([`kairos_core::engine`]): a malleable job is not one task with one assignment but a count
//! of processor-tasks started in waves on whatever processors are free, so it needs no
//! controller, timelines or reservations, only a free-processor count and a heap of task
//! ends. The rigid mode ([`Mode::Rigid`]) goes through the engine, as `kairos replay
//! --policy knapsack` does.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use kairos_core::error::Error;
use kairos_core::knapsack::{select, KnapsackParams, MalleableJob};
use kairos_core::units::Micros;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

use crate::report::svg::{scatter_log_y, ScatterSeries};
use crate::swf::ReplayJob;
use crate::trace::{self, secs, LoadOptions};

pub mod saved;
mod summary;
pub use summary::{summarize, Best, Summary};

/// The class letters, in index order.
pub const CLASSES: [char; 4] = ['A', 'B', 'C', 'D'];

/// One malleable job of the sweep; times in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepJob {
    /// Its number (the SWF job number, or its position in a synthetic workload).
    pub id: u64,
    /// Submit time.
    pub submit: u64,
    /// Independent one-processor tasks.
    pub tasks: u32,
    /// How long each task runs.
    pub runtime: u64,
    /// The requested time (what the rigid form plans and prioritises with; the malleable
    /// form, like the paper's simulator, knows the runtime).
    pub request: u64,
}

/// How the sweep schedules each point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// The paper's malleable jobs: a job's tasks run in waves on the free processors (the
    /// core's knapsack selection at each event).
    // Code: `simulate` over the core's `select`. Plain text above: clap prints these doc
    // comments as `--mode`'s help, where rustdoc links would show as brackets.
    #[default]
    Malleable,
    /// Rigid jobs: each job takes all its processors at once, through trace replay (the
    /// core's engine) under the knapsack heuristic; a synthetic job wider than the machine
    /// is capped at the machine.
    // Code: `trace::replay_trace_with` with `Heuristic::Knapsack`.
    Rigid,
}

/// A workload to sweep: its jobs (in submit order) and its machine.
#[derive(Clone, Debug)]
pub struct Workload {
    /// What it is (the file, or `synthetic`).
    pub name: String,
    /// Machine size, processors.
    pub procs: u32,
    /// The jobs, sorted by submit time (ties in input order).
    pub jobs: Vec<SweepJob>,
}

impl Workload {
    /// Checks the jobs: sorted by submit, at least one task and one microsecond each.
    pub fn new(name: String, procs: u32, mut jobs: Vec<SweepJob>) -> anyhow::Result<Workload> {
        if procs == 0 {
            anyhow::bail!("{name}: the machine must have at least 1 processor");
        }
        if jobs.is_empty() {
            anyhow::bail!("{name}: no jobs to schedule");
        }
        if let Some(j) = jobs.iter().find(|j| j.tasks == 0 || j.runtime == 0) {
            anyhow::bail!(
                "{name}: job {} has {} tasks and a run time of {} s: both must be positive",
                j.id,
                j.tasks,
                secs(j.runtime)
            );
        }
        jobs.sort_by_key(|j| j.submit);
        Ok(Workload { name, procs, jobs })
    }

    /// The class (0-3 = A-D) of every job against the workload's means.
    pub fn classes(&self) -> Vec<u8> {
        let n = self.jobs.len() as f64;
        let mean_t = self.jobs.iter().map(|j| j.tasks as f64).sum::<f64>() / n;
        let mean_r = self.jobs.iter().map(|j| j.runtime as f64).sum::<f64>() / n;
        self.jobs
            .iter()
            .map(|j| {
                let large = j.tasks as f64 > mean_t;
                let long = j.runtime as f64 > mean_r;
                match (large, long) {
                    (true, true) => 0,
                    (true, false) => 1,
                    (false, true) => 2,
                    (false, false) => 3,
                }
            })
            .collect()
    }
}

/// The first `n` jobs (in submit order) of the SWF log at `path`, cleaned with
/// `--clean strong` for the machine (`procs`, default the header's size); with `batch`, all
/// submitted at time 0 (a fixed workload, queued at once).
pub fn load_swf(
    path: &Path,
    n: usize,
    procs: Option<u32>,
    batch: bool,
) -> anyhow::Result<Workload> {
    let loaded = trace::load(
        path,
        &LoadOptions {
            procs,
            clean_strong: true,
            skip_bad_lines: false,
            strict: false,
        },
    )?;
    let jobs = loaded
        .jobs
        .iter()
        .take(n)
        .map(|j| SweepJob {
            id: j.id,
            submit: if batch { 0 } else { j.submit },
            tasks: j.procs,
            runtime: j.runtime.min(j.request),
            request: j.request,
        })
        .collect();
    let name = if batch {
        format!("{}, all submitted at 0", loaded.file)
    } else {
        loaded.file
    };
    Workload::new(name, loaded.procs, jobs)
}

/// A small synthetic workload of `n` jobs on 64 processors, from `seed`: arrivals 60 s apart
/// on average (exponential), tasks log-uniform over 1-256 (up to four waves of the machine),
/// runtimes log-uniform over 10 s - 1 h. Integer seconds; the same on every machine.
pub fn synthetic(n: usize, seed: u64) -> anyhow::Result<Workload> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(n);
    for i in 0..n {
        if i > 0 {
            t += -60.0 * libm::log(1.0 - unit());
        }
        let tasks = libm::floor(libm::pow(256.0, unit())) as u32;
        let runtime = libm::round(10.0 * libm::pow(360.0, unit()));
        jobs.push(SweepJob {
            id: i as u64 + 1,
            submit: libm::floor(t) as u64 * 1_000_000,
            tasks: tasks.clamp(1, 256),
            runtime: runtime.max(1.0) as u64 * 1_000_000,
            request: runtime.max(1.0) as u64 * 1_000_000,
        });
    }
    Workload::new(format!("synthetic (seed {seed})"), 64, jobs)
}

/// The synthetic workload for `--mode rigid`: [`synthetic`]'s jobs, each as wide as the
/// machine at most (a rigid job cannot run in waves; the malleable model runs a wider one in
/// up to four).
pub fn synthetic_rigid(n: usize, seed: u64) -> anyhow::Result<Workload> {
    let w = synthetic(n, seed)?;
    let procs = w.procs;
    let jobs = w
        .jobs
        .into_iter()
        .map(|j| SweepJob {
            tasks: j.tasks.min(procs),
            ..j
        })
        .collect();
    Workload::new(
        format!("synthetic (seed {seed}, jobs capped at {procs} processors)"),
        procs,
        jobs,
    )
}

/// When a job started its first task and ended its last, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobTimes {
    /// First task's start.
    pub first_start: u64,
    /// Last task's end.
    pub end: u64,
}

/// Reusable buffers of [`simulate`] (one per thread).
#[derive(Debug, Default)]
pub struct SimScratch {
    queue: Vec<MalleableJob>,
    queued: Vec<u32>,
    order: Vec<u32>,
    keys: Vec<f64>,
    take: Vec<u32>,
    ends: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per job, its times after a run.
    pub times: Vec<JobTimes>,
    /// Scheduling cycles of the last run.
    pub cycles: u64,
}

/// Schedules `w` with the malleable knapsack under `p`; the times land in `s.times`.
pub fn simulate(w: &Workload, p: &KnapsackParams, s: &mut SimScratch) -> Result<(), Error> {
    let n = w.jobs.len();
    const NONE: u64 = u64::MAX;
    s.times.clear();
    s.times.resize(
        n,
        JobTimes {
            first_start: NONE,
            end: 0,
        },
    );
    s.queue.clear();
    s.queued.clear();
    s.ends.clear();
    s.order.resize(n, 0);
    s.keys.resize(n, 0.0);
    s.take.resize(n, 0);
    s.cycles = 0;
    let mut free = w.procs;
    let mut next = 0usize;
    let mut untold = 0u64;
    loop {
        let t_arrival = w.jobs.get(next).map(|j| j.submit);
        let t_end = s.ends.peek().map(|Reverse(e)| e.0);
        let Some(t) = t_arrival.into_iter().chain(t_end).min() else {
            break;
        };
        while let Some(&Reverse((at, k))) = s.ends.peek() {
            if at != t {
                break;
            }
            s.ends.pop();
            free += k;
        }
        while let Some(j) = w.jobs.get(next).filter(|j| j.submit == t) {
            s.queue.push(MalleableJob::new(
                j.tasks,
                Micros(j.submit),
                Micros(j.runtime),
            ));
            s.queued.push(next as u32);
            next += 1;
        }
        if free == 0 || s.queue.is_empty() {
            continue;
        }
        s.cycles += 1;
        let q = s.queue.len();
        let (used, _) = select(
            &s.queue,
            Micros(t),
            free,
            p,
            &mut s.order[..q],
            &mut s.keys[..q],
            &mut s.take[..q],
        )?;
        if used == 0 {
            continue;
        }
        free -= used;
        for k in 0..q {
            let got = s.take[k];
            if got == 0 {
                continue;
            }
            let job = s.queued[k] as usize;
            let end = t.saturating_add(w.jobs[job].runtime);
            let times = &mut s.times[job];
            if times.first_start == NONE {
                times.first_start = t;
            }
            times.end = times.end.max(end);
            s.queue[k].remaining -= got;
            s.ends.push(Reverse((end, got)));
        }
        // Drop the jobs fully started, keeping arrival order.
        let mut keep = 0;
        for k in 0..q {
            if s.queue[k].remaining > 0 {
                s.queue[keep] = s.queue[k];
                s.queued[keep] = s.queued[k];
                keep += 1;
            }
        }
        s.queue.truncate(keep);
        s.queued.truncate(keep);
        // `kairos sweep-knapsack` counts the jobs started whole (a no-op elsewhere), told in
        // batches so that a small workload's many cycles do not each take a lock.
        untold += (q - keep) as u64;
        if untold >= TICK_JOBS {
            crate::progress::tick(untold);
            untold = 0;
        }
    }
    crate::progress::tick(untold);
    Ok(())
}

/// Jobs started whole between two ticks of the command's progress in [`simulate`].
const TICK_JOBS: u64 = 1024;

/// The cost vector of a schedule: `Cost(A, B, C, D, WRT)` of Algorithm 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Workload response time: last end minus first submit, microseconds.
    pub wrt: u64,
    /// Mean expansion factor per class A-D (`None` for a class without jobs).
    pub ef: [Option<f64>; 4],
}

/// The cost of the schedule in `times` (from [`simulate`]) with the jobs' `classes`.
pub fn cost(w: &Workload, classes: &[u8], times: &[JobTimes]) -> Cost {
    let first = w.jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = times.iter().map(|t| t.end).max().unwrap_or(0);
    let mut sum = [0.0; 4];
    let mut count = [0u32; 4];
    for ((j, t), &c) in w.jobs.iter().zip(times).zip(classes) {
        sum[c as usize] += (t.end - j.submit) as f64 / j.runtime as f64;
        count[c as usize] += 1;
    }
    let mut ef = [None; 4];
    for c in 0..4 {
        if count[c] > 0 {
            ef[c] = Some(sum[c] / count[c] as f64);
        }
    }
    Cost {
        wrt: last.saturating_sub(first),
        ef,
    }
}

/// The parameter grid: `lo, lo + step, ..., hi` for each of alpha, beta and gamma.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Lowest value.
    pub lo: f64,
    /// Step.
    pub step: f64,
    /// Values per axis.
    pub n: usize,
}

impl Grid {
    /// [-2, 2] in steps of `step` (0.1 gives 41 values, 68,921 points).
    pub fn new(step: f64) -> anyhow::Result<Grid> {
        if !(step.is_finite() && step > 0.0 && step <= 4.0) {
            anyhow::bail!("--step must be a number in (0, 4], not {step}");
        }
        // Counted in f64 and checked before the cast: a tiny step would saturate the cast and
        // wrap the `+ 1` to an empty grid.
        let values = libm::floor(4.0 / step + 1e-9) + 1.0;
        if values > 401.0 {
            anyhow::bail!(
                "--step {step:?} gives {values:.3e} values per axis: at most 401 (step 0.01)"
            );
        }
        let n = values as usize;
        Ok(Grid { lo: -2.0, step, n })
    }

    /// Points in the grid.
    pub fn points(&self) -> usize {
        self.n * self.n * self.n
    }

    /// The value of index `i` on an axis, rounded to 1e-9 (so 0.1 steps print exactly).
    pub fn value(&self, i: usize) -> f64 {
        libm::round((self.lo + i as f64 * self.step) * 1e9) / 1e9
    }

    /// (alpha, beta, gamma) of point `index` (alpha outer, gamma inner).
    pub fn params(&self, index: usize) -> (f64, f64, f64) {
        let n = self.n;
        (
            self.value(index / (n * n)),
            self.value(index / n % n),
            self.value(index % n),
        )
    }
}

/// One evaluated grid point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Its index in the grid.
    pub index: usize,
    /// Size exponent.
    pub alpha: f64,
    /// Wait exponent.
    pub beta: f64,
    /// Runtime exponent.
    pub gamma: f64,
    /// Its schedule's cost.
    pub cost: Cost,
}

/// Schedules `w` as rigid jobs through trace replay (the core's engine and
/// `Heuristic::Knapsack`); the times land in `s.times`.
pub fn simulate_rigid(
    w: &Workload,
    jobs: &[ReplayJob],
    p: &KnapsackParams,
    s: &mut SimScratch,
) -> Result<(), trace::TraceError> {
    let options = trace::ReplayOptions {
        knapsack: *p,
        ..trace::ReplayOptions::new(trace::Policy::Knapsack)
    };
    let r = trace::replay_trace_with(jobs, w.procs, &options)?;
    s.times.clear();
    s.times.extend(r.jobs.iter().map(|j| JobTimes {
        first_start: j.start,
        end: j.end,
    }));
    s.cycles = r.counts.passes;
    Ok(())
}

/// Evaluates every point of `grid` on `w` in `mode` with per-job `share` (malleable only), on
/// `threads` threads (`None`: rayon's default), calling `progress(done, total)` after each
/// twentieth. Grid order.
pub fn sweep(
    w: &Workload,
    grid: &Grid,
    mode: Mode,
    share: f64,
    threads: Option<usize>,
    progress: &mut dyn FnMut(usize, usize),
) -> anyhow::Result<Vec<Point>> {
    sweep_points(w, grid, mode, share, 0..grid.points(), threads, progress)
}

/// [`sweep`] over the grid points `points` only (a shard's slice, [`crate::shard`]):
/// `progress(done, total)` counts within the slice. Grid order.
pub fn sweep_points(
    w: &Workload,
    grid: &Grid,
    mode: Mode,
    share: f64,
    points: std::ops::Range<usize>,
    threads: Option<usize>,
    progress: &mut dyn FnMut(usize, usize),
) -> anyhow::Result<Vec<Point>> {
    let replay: Vec<ReplayJob> = w
        .jobs
        .iter()
        .enumerate()
        .map(|(k, j)| ReplayJob {
            id: j.id,
            submit: j.submit,
            runtime: j.runtime,
            request: j.request.max(j.runtime),
            procs: j.tasks,
            line: k + 1,
        })
        .collect();
    if mode == Mode::Rigid {
        if let Some(j) = w.jobs.iter().find(|j| j.tasks > w.procs) {
            anyhow::bail!(
                "{}: job {} has {} tasks but the machine has {} processors: rigid jobs must fit",
                w.name,
                j.id,
                j.tasks,
                w.procs
            );
        }
    }
    KnapsackParams {
        share,
        ..KnapsackParams::default()
    }
    .validate()
    .map_err(|_| anyhow::anyhow!("--share must be in (0, 1], not {share}"))?;
    let classes = w.classes();
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        builder = builder.num_threads(t.max(1));
    }
    let pool = builder.build().context("cannot start the thread pool")?;
    let end = points.end.min(grid.points());
    let start = points.start.min(end);
    let total = end - start;
    let chunk = total.div_ceil(20).max(1);
    let mut out = Vec::with_capacity(total);
    let mut from = start;
    while from < end {
        let to = (from + chunk).min(end);
        let part: anyhow::Result<Vec<Point>> = pool.install(|| {
            (from..to)
                .into_par_iter()
                .map_init(SimScratch::default, |s, index| {
                    let (alpha, beta, gamma) = grid.params(index);
                    let p = KnapsackParams {
                        alpha,
                        beta,
                        gamma,
                        share,
                    };
                    match mode {
                        Mode::Malleable => simulate(w, &p, s)?,
                        Mode::Rigid => simulate_rigid(w, &replay, &p, s)?,
                    }
                    Ok(Point {
                        index,
                        alpha,
                        beta,
                        gamma,
                        cost: cost(w, &classes, &s.times),
                    })
                })
                .collect()
        });
        out.extend(part.with_context(|| format!("{}: scheduling failed", w.name))?);
        from = to;
        progress(from - start, total);
    }
    Ok(out)
}

/// Which of `values` (WRT, E_f) are on the Pareto front of minimising both: no other value
/// is at most as large in both and smaller in one. Equal values are all on it or all off.
pub fn pareto_2d(values: &[(u64, f64)]) -> Vec<bool> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    idx.sort_by(|&a, &b| {
        values[a]
            .0
            .cmp(&values[b].0)
            .then(values[a].1.total_cmp(&values[b].1))
            .then(a.cmp(&b))
    });
    let mut on = vec![false; values.len()];
    let mut last: Option<(u64, f64)> = None;
    for i in idx {
        let v = values[i];
        let front = match last {
            None => true,
            Some(l) => v.1 < l.1 || (v.0 == l.0 && v.1 == l.1),
        };
        if front {
            on[i] = true;
            last = Some(v);
        }
    }
    on
}

/// Which of `vectors` are on the joint Pareto front (minimising every coordinate). Equal
/// vectors are all on it or all off; each distinct vector is compared once.
pub fn pareto_joint(vectors: &[Vec<f64>]) -> Vec<bool> {
    let dominates = |a: &[f64], b: &[f64]| {
        a.iter().zip(b).all(|(x, y)| x <= y) && a.iter().zip(b).any(|(x, y)| x < y)
    };
    let lex = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    };
    let mut idx: Vec<usize> = (0..vectors.len()).collect();
    // Lexicographic order: nothing later dominates anything earlier.
    idx.sort_by(|&a, &b| lex(&vectors[a], &vectors[b]).then(a.cmp(&b)));
    let mut front: Vec<usize> = Vec::new();
    let mut on = vec![false; vectors.len()];
    let mut last: Option<(usize, bool)> = None;
    for i in idx {
        let verdict = match last {
            Some((j, v)) if lex(&vectors[j], &vectors[i]).is_eq() => v,
            _ => {
                let v = !front.iter().any(|&f| dominates(&vectors[f], &vectors[i]));
                if v {
                    front.push(i);
                }
                v
            }
        };
        on[i] = verdict;
        last = Some((i, verdict));
    }
    on
}

/// A point's cost as a vector (WRT in seconds, then the classes that have jobs).
fn cost_vector(c: &Cost, present: &[usize]) -> Vec<f64> {
    let mut v = vec![c.wrt as f64 / 1e6];
    v.extend(present.iter().map(|&k| c.ef[k].unwrap_or(0.0)));
    v
}

/// One value of a class's Pareto front, with the parameters of the first point (by grid
/// index) that reaches it and how many points do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrontValue {
    /// Class index (0-3 = A-D).
    pub class: usize,
    /// Workload response time, microseconds.
    pub wrt: u64,
    /// The class's mean expansion factor.
    pub ef: f64,
    /// Grid points with this value.
    pub points: usize,
    /// The first of them.
    pub first: Point,
}

/// The analysis of a sweep: per class fronts and per point memberships.
#[derive(Clone, Debug)]
pub struct Fronts {
    /// Classes with jobs.
    pub present: Vec<usize>,
    /// Per point, the classes whose (WRT, E_f) front holds it.
    pub class_member: Vec<[bool; 4]>,
    /// Per point, whether the joint front (WRT and every class's E_f) holds it.
    pub joint: Vec<bool>,
    /// Each class's front values, by WRT.
    pub values: Vec<FrontValue>,
}

/// Computes the fronts of `points`.
pub fn fronts(points: &[Point]) -> Fronts {
    let present: Vec<usize> = (0..4)
        .filter(|&k| points.first().is_some_and(|p| p.cost.ef[k].is_some()))
        .collect();
    let mut class_member = vec![[false; 4]; points.len()];
    let mut values = Vec::new();
    for &k in &present {
        let v: Vec<(u64, f64)> = points
            .iter()
            .map(|p| (p.cost.wrt, p.cost.ef[k].unwrap_or(f64::INFINITY)))
            .collect();
        let on = pareto_2d(&v);
        let mut mine: Vec<FrontValue> = Vec::new();
        for (i, p) in points.iter().enumerate() {
            if !on[i] {
                continue;
            }
            class_member[i][k] = true;
            match mine.iter_mut().find(|f| f.wrt == v[i].0 && f.ef == v[i].1) {
                Some(f) => f.points += 1,
                None => mine.push(FrontValue {
                    class: k,
                    wrt: v[i].0,
                    ef: v[i].1,
                    points: 1,
                    first: *p,
                }),
            }
        }
        mine.sort_by(|a, b| a.wrt.cmp(&b.wrt).then(b.ef.total_cmp(&a.ef)));
        values.extend(mine);
    }
    let vectors: Vec<Vec<f64>> = points
        .iter()
        .map(|p| cost_vector(&p.cost, &present))
        .collect();
    let joint = pareto_joint(&vectors);
    Fronts {
        present,
        class_member,
        joint,
        values,
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v:.6}"))
}

/// `points.csv`: every point in grid order with its cost and fronts.
pub fn points_csv(points: &[Point], f: &Fronts) -> String {
    let mut s =
        String::from("index,alpha,beta,gamma,wrt_s,ef_a,ef_b,ef_c,ef_d,class_fronts,joint_front\n");
    for (i, p) in points.iter().enumerate() {
        let classes: String = (0..4)
            .filter(|&k| f.class_member[i][k])
            .map(|k| CLASSES[k])
            .collect();
        let _ = writeln!(
            s,
            "{},{:.2},{:.2},{:.2},{},{},{},{},{},{},{}",
            p.index,
            p.alpha,
            p.beta,
            p.gamma,
            secs(p.cost.wrt),
            opt(p.cost.ef[0]),
            opt(p.cost.ef[1]),
            opt(p.cost.ef[2]),
            opt(p.cost.ef[3]),
            classes,
            u8::from(f.joint[i])
        );
    }
    s
}

/// `pareto.csv`: each class's front, one line per value, with its first point's parameters.
pub fn pareto_csv(f: &Fronts) -> String {
    let mut s = String::from("class,wrt_s,ef,points,index,alpha,beta,gamma\n");
    for v in &f.values {
        let _ = writeln!(
            s,
            "{},{},{:.6},{},{},{:.2},{:.2},{:.2}",
            CLASSES[v.class],
            secs(v.wrt),
            v.ef,
            v.points,
            v.first.index,
            v.first.alpha,
            v.first.beta,
            v.first.gamma
        );
    }
    s
}

/// `pareto.svg`: every distinct (WRT, E_f) per class (the paper's Fig. 6) and its fronts,
/// E_f on a log10 scale (it spans 1 to thousands when some class starves).
pub fn pareto_svg(w: &Workload, grid: &Grid, points: &[Point], f: &Fronts) -> String {
    let classes = w.classes();
    let log = |e: f64| libm::log10(e.max(1e-9));
    let mut series = Vec::new();
    for &k in &f.present {
        let mut v: Vec<(u64, u64)> = points
            .iter()
            .map(|p| (p.cost.wrt, p.cost.ef[k].unwrap_or(0.0).to_bits()))
            .collect();
        v.sort_unstable();
        v.dedup();
        let count = classes.iter().filter(|&&c| c as usize == k).count();
        series.push(ScatterSeries {
            label: format!("class {} ({count} jobs)", CLASSES[k]),
            points: v
                .iter()
                .map(|&(x, y)| (x as f64 / 1e6, log(f64::from_bits(y))))
                .collect(),
            front: f
                .values
                .iter()
                .filter(|v| v.class == k)
                .map(|v| (v.wrt as f64 / 1e6, log(v.ef)))
                .collect(),
        });
    }
    scatter_log_y(
        &format!("Knapsack sweep: {}", w.name),
        &format!(
            "{} jobs on {} processors, {} (alpha, beta, gamma) in [-2, 2] step {}; lines: Pareto fronts",
            w.jobs.len(),
            w.procs,
            grid.points(),
            grid.step
        ),
        "workload response time (s)",
        "class's mean expansion factor (log scale)",
        &series,
    )
}

/// Writes `points.csv`, `pareto.csv` and `pareto.svg` into `dir` (created if needed).
pub fn write_outputs(
    dir: &Path,
    w: &Workload,
    grid: &Grid,
    points: &[Point],
    f: &Fronts,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    for (name, text) in [
        ("points.csv", points_csv(points, f)),
        ("pareto.csv", pareto_csv(f)),
        ("pareto.svg", pareto_svg(w, grid, points, f)),
    ] {
        let path = dir.join(name);
        crate::output::write_atomic(&path, text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64, submit_s: u64, tasks: u32, runtime_s: u64) -> SweepJob {
        SweepJob {
            id,
            submit: submit_s * 1_000_000,
            tasks,
            runtime: runtime_s * 1_000_000,
            request: runtime_s * 1_000_000,
        }
    }

    #[test]
    fn knapsack_pareto_2d_keeps_ties_and_drops_dominated() {
        let v = [
            (10, 3.0),
            (20, 1.0),
            (10, 3.0),
            (15, 3.0),
            (5, 4.0),
            (20, 2.0),
            (5, 5.0),
        ];
        let on = pareto_2d(&v);
        assert_eq!(on, [true, true, true, false, true, false, false]);
    }

    #[test]
    fn knapsack_pareto_joint() {
        let v = vec![
            vec![1.0, 5.0, 5.0],
            vec![2.0, 1.0, 5.0],
            vec![2.0, 1.0, 6.0],
            vec![3.0, 6.0, 1.0],
            vec![1.0, 5.0, 5.0],
            vec![2.0, 1.0, 6.0],
        ];
        assert_eq!(pareto_joint(&v), [true, true, false, true, true, false]);
    }

    #[test]
    fn knapsack_grid_values() {
        let g = Grid::new(0.1).unwrap();
        assert_eq!((g.n, g.points()), (41, 68_921));
        assert_eq!(g.params(0), (-2.0, -2.0, -2.0));
        assert_eq!(g.params(68_920), (2.0, 2.0, 2.0));
        assert_eq!(g.params(41 * 41 * 20 + 41 * 3 + 39), (0.0, -1.7, 1.9));
        assert!(Grid::new(0.0).is_err());
        assert!(Grid::new(f64::NAN).is_err());
        assert_eq!(Grid::new(1.0).unwrap().points(), 125);
        // Regression (issue 27): a step under 4/2^64 wrapped the point count to 0 and panicked.
        let e = Grid::new(1e-300).unwrap_err().to_string();
        assert!(e.contains("at most 401"), "{e}");
        assert!(Grid::new(f64::MIN_POSITIVE).is_err());
    }

    #[test]
    fn knapsack_simulate_by_hand() {
        // 4 processors. Job 1: 6 tasks x 10 s at 0; job 2: 2 tasks x 5 s at 0; job 3: 1 task
        // x 4 s at 3. alpha = 2 (ratio = tasks/avg^2: large first), beta = gamma = 0.
        // t=0: job 1 takes all 4 (fraction 4/6); t=10: 4 free, queue {1: 2 left, 2, 3}:
        // ratio tasks 6 > 2 > 1: job 1 its last 2, job 2 both (4 used); t=15: job 2 ends,
        // job 3 starts (2 free); t=19 job 3 ends; t=20 job 1 ends.
        let w = Workload::new(
            "hand".into(),
            4,
            vec![job(1, 0, 6, 10), job(2, 0, 2, 5), job(3, 3, 1, 4)],
        )
        .unwrap();
        let mut s = SimScratch::default();
        simulate(&w, &KnapsackParams::new(2.0, 0.0, 0.0), &mut s).unwrap();
        let us = |x: u64| x * 1_000_000;
        assert_eq!(
            s.times,
            [
                JobTimes {
                    first_start: 0,
                    end: us(20)
                },
                JobTimes {
                    first_start: us(10),
                    end: us(15)
                },
                JobTimes {
                    first_start: us(15),
                    end: us(19)
                },
            ]
        );
        // Means: 3 tasks, 19/3 s. Classes: 1 large-long (A), 2 small-short (D), 3 D.
        assert_eq!(w.classes(), [0, 3, 3]);
        let c = cost(&w, &w.classes(), &s.times);
        assert_eq!(c.wrt, us(20));
        assert_eq!(c.ef[0], Some(2.0));
        assert_eq!(c.ef[3], Some((15.0 / 5.0 + 16.0 / 4.0) / 2.0));
        assert_eq!((c.ef[1], c.ef[2]), (None, None));
        // alpha = 0 (small first): t=0: job 2 both, job 1 2 of 6; t=3: job 3 waits (0 free);
        // t=5: job 2 ends, 2 free: ratio 1/tasks: job 3 (1) then job 1 (1 of 4 left).
        simulate(&w, &KnapsackParams::new(0.0, 0.0, 0.0), &mut s).unwrap();
        assert_eq!(
            s.times[1],
            JobTimes {
                first_start: 0,
                end: us(5)
            }
        );
        assert_eq!(
            s.times[2],
            JobTimes {
                first_start: us(5),
                end: us(9)
            }
        );
        // Job 1: 2 at 0 (end 10), 1 at 5 (end 15), 1 at 9 (end 19), 1 at 10 (end 20).
        assert_eq!(
            s.times[0],
            JobTimes {
                first_start: 0,
                end: us(20)
            }
        );
    }

    #[test]
    fn knapsack_sweep_is_the_same_on_any_thread_count() {
        let w = synthetic(20, 4).unwrap();
        assert_eq!(w.jobs.len(), 20);
        let g = Grid::new(1.0).unwrap();
        let run = |t| {
            let pts = sweep(&w, &g, Mode::Malleable, 1.0, Some(t), &mut |_, _| {}).unwrap();
            let f = fronts(&pts);
            (
                points_csv(&pts, &f),
                pareto_csv(&f),
                pareto_svg(&w, &g, &pts, &f),
            )
        };
        let one = run(1);
        assert_eq!(one, run(1));
        assert_eq!(one, run(2));
        assert_eq!(one, run(3));
        assert_eq!(one.0.lines().count(), 126);
    }
}

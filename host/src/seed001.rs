//! Seed 001's environment over an SWF log: value functions with soft and hard deadlines and
//! their generator, the heterogeneous platform cut from a fraction of Curie's cores, ETC rows
//! by the COV method, and the 28 h windows (4 h of warm-up) that make its scenarios.
//!
//! Seed 001 calls each window a scenario; drawn at one oversubscription level it is an
//! [`Environment`] ([`build`]), which [`run`] simulates through [`crate::storage`] into a
//! [`RunSummary`] (the experiment runner, [`crate::experiment::runner`], calls both). Trace
//! replay ([`crate::trace`]) borrows [`value_curve`] to attach values to a log's jobs.
//!
//! Seed 001 §4, as this module reads it (docs/model.md lists every choice):
//! - **Platform.** Total cores ~ Gamma(mean = fraction x [`CURIE_CORES`], COV 0.05), rounded;
//!   2, 3 or 4 clusters (uniform); each cluster's cores per node uniform in
//!   {1, 2, 4, 8, 16, 24, 32}; cluster i < n - 1 claims U(0.1, 0.5) of the unclaimed cores,
//!   the last cluster the rest; nodes = claimed cores / cores per node, rounded down, at
//!   least 1. A task takes ceil(procs / cores per node) whole nodes of one cluster (§2), and
//!   may not run on a cluster with fewer nodes.
//! - **ETC.** Column 0 is the job's run time (field 4); column c > 0 is Gamma(mean = run time,
//!   COV 0.3) (the COV method, seed 001 ref. 1, with the run time as the task's mean), rounded
//!   to the microsecond. ETCs are exact: a task runs exactly its ETC.
//! - **Values** ([`value_curve`]): the average execution time is the mean of the task's ETC
//!   row over every cluster; the starting value is Gamma(mean m, COV 2.5) clamped to
//!   [1, 100], where m interpolates linearly from 5 at 1 s to 50 at the trace's longest run
//!   time (clamped to [5, 50]); final value = start x U(0.01, 0.8); soft deadline =
//!   U(0.9, 1.2) x average; hard deadline = soft + U(0, 1.5) x average (after arrival).
//! - **Fig. 5's environments** ([`Variation`]): starting values exactly correlated with the
//!   execution time (the mean m itself) or not at all (U(1, 100)); ETC columns of COV 0.01
//!   or 1 instead of 0.3. Set per experiment in its `[trace]` table.
//! - **Windows** ([`windows`]): scenario k's measured day starts at the first log midnight at
//!   least 4 h after the first submit, plus k x [`SCENARIO_STEP`] (11 h); it simulates the
//!   jobs submitted in [day start - 4 h, day start + 24 h), shifted so the window starts at 0.
//!   Jobs of more than [`MAX_TASK_CORES`] cores are removed.
//! - **Streams**: ("seed001-platform", "seed001-etc", "seed001-value") of (seed, scenario
//!   index); the oversubscription levels share them, so a level differs from another only by
//!   the scale of the total core count (paired comparisons).
//! - **Metric**: the value earned in the measured day (the core's ledger, prorated to the
//!   day) as a percentage of the maximum value bound: the sum of the starting values of the
//!   tasks arriving in the day (§5).
//! - **Mapping events** at every arrival and every completion (§3.1); at each, every
//!   heuristic drops the tasks that could earn only zero value even started now on their
//!   fastest cluster ([`ZERO_VALUE_THRESHOLD`]).

use crate::generate::rng::Stream;
use crate::run::{RunSummary, Watch};
use crate::swf::ReplayJob;
use anyhow::{bail, Context};
use kairos_core::engine::Schedule;
use kairos_core::limits::MAX_PSTATES;
use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskType};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::{Micros, MilliWatts, NodeCount};
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use kairos_core::Config;
use kairos_core::{Heuristic, Reservations};
use std::time::Instant;

/// The core count whose 20% is seed 001's 18,432 cores (§4); the fractions scale it.
pub const CURIE_CORES: f64 = 92_160.0;
/// Seed 001's intermediate oversubscription: 20% of Curie's cores.
pub const DEFAULT_CORES_FRACTION: f64 = 0.2;
/// COV of the total core count (§4).
pub const CORES_COV: f64 = 0.05;
/// Cores per node a cluster may have (§4).
pub const CORES_PER_NODE: [u32; 7] = [1, 2, 4, 8, 16, 24, 32];
/// Jobs asking for more cores than this are removed (§4).
pub const MAX_TASK_CORES: u32 = 4096;
/// COV of the ETC columns after the first (§4).
pub const ETC_COV: f64 = 0.3;
/// Warm-up before the measured day (§4).
pub const WARMUP: Micros = Micros::from_hours(4);
/// The measured day (§4).
pub const DAY: Micros = Micros::from_hours(24);
/// Scenarios seed 001 runs (§4).
pub const SCENARIOS: u32 = 48;
/// Distance between the measured days of consecutive scenarios: 48 windows fit in the
/// 23-day Curie sample with 11 h (docs/model.md).
pub const SCENARIO_STEP: Micros = Micros::from_hours(11);
/// A task is dropped when its best case is strictly below this: only a zero value (§3.1).
pub const ZERO_VALUE_THRESHOLD: f64 = f64::MIN_POSITIVE;

/// How a task's starting value follows its average execution time (seed 001 §5, Fig. 5(a)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueCorrelation {
    /// §4's environment: Gamma(mean m, COV 2.5) clamped, m from the execution time.
    #[default]
    Weak,
    /// Exactly correlated: the starting value is m itself.
    Exact,
    /// Uncorrelated: U(1, 100), "ignoring the average execution time".
    None,
}

impl std::str::FromStr for ValueCorrelation {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "weak" => Ok(ValueCorrelation::Weak),
            "exact" => Ok(ValueCorrelation::Exact),
            "none" => Ok(ValueCorrelation::None),
            _ => Err(()),
        }
    }
}

/// The value generator's parameters (seed 001 §4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueParams {
    /// How the starting value follows the execution time (§4: weakly; Fig. 5(a): exactly or
    /// not at all).
    pub correlation: ValueCorrelation,
    /// Mean starting value at a 1 s and at the longest run time of the trace.
    pub mean_range: [f64; 2],
    /// COV of the starting value's gamma distribution.
    pub start_cov: f64,
    /// Bounds of the starting value.
    pub start_bounds: [f64; 2],
    /// The final value is the start times U(a, b).
    pub final_factor: [f64; 2],
    /// The soft deadline is U(a, b) times the average execution time.
    pub soft_factor: [f64; 2],
    /// The hard deadline is the soft one plus U(a, b) times the average execution time.
    pub hard_extra: [f64; 2],
}

impl Default for ValueParams {
    fn default() -> ValueParams {
        ValueParams {
            correlation: ValueCorrelation::Weak,
            mean_range: [5.0, 50.0],
            start_cov: 2.5,
            start_bounds: [1.0, 100.0],
            final_factor: [0.01, 0.8],
            soft_factor: [0.9, 1.2],
            hard_extra: [0.0, 1.5],
        }
    }
}

/// The mean starting value of a task of average execution time `avg`: 5 at 1 s, 50 at
/// `max_runtime`, linear between, clamped to [5, 50].
pub fn mean_start_value(avg: Micros, max_runtime: Micros, p: &ValueParams) -> f64 {
    let [lo, hi] = p.mean_range;
    let span = max_runtime.as_secs_f64() - 1.0;
    if span <= 0.0 {
        return lo;
    }
    let x = (avg.as_secs_f64() - 1.0) / span;
    (lo + (hi - lo) * x).clamp(lo, hi)
}

/// A seed 001 value function for a task of average execution time `avg`, drawn from `s`:
/// four draws in order (start, final factor, soft factor, hard extra; exactly correlated
/// values draw no start).
pub fn value_curve(
    s: &mut Stream,
    avg: Micros,
    max_runtime: Micros,
    p: &ValueParams,
) -> UtilityCurve {
    let mean = mean_start_value(avg, max_runtime, p);
    let [lo, hi] = p.start_bounds;
    let start = match p.correlation {
        ValueCorrelation::Weak => s.gamma_mean_cov(mean, p.start_cov).clamp(lo, hi),
        ValueCorrelation::Exact => mean.clamp(lo, hi),
        ValueCorrelation::None => s.uniform(lo, hi),
    };
    let final_value = start * s.uniform(p.final_factor[0], p.final_factor[1]);
    let a = avg.0 as f64;
    let soft = Micros(libm::round(a * s.uniform(p.soft_factor[0], p.soft_factor[1])) as u64);
    let extra = Micros(libm::round(a * s.uniform(p.hard_extra[0], p.hard_extra[1])) as u64);
    UtilityCurve::Linear {
        start,
        soft,
        hard: soft.saturating_add(extra),
        final_value,
    }
}

/// Draws a platform of about `mean_cores` cores from `s` (draws in order: total, cluster
/// count, then per cluster its cores per node and, but for the last, its share).
pub fn draw_platform(s: &mut Stream, mean_cores: f64) -> Vec<Cluster> {
    let total = libm::round(s.gamma_mean_cov(mean_cores, CORES_COV)).max(2.0) as u64;
    let n = s.int(2, 4) as usize;
    let mut unclaimed = total;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let cpn = CORES_PER_NODE[s.int(0, CORES_PER_NODE.len() as u64 - 1) as usize];
        let cores = if i + 1 < n {
            let c = libm::round(s.uniform(0.1, 0.5) * unclaimed as f64) as u64;
            unclaimed -= c;
            c
        } else {
            unclaimed
        };
        out.push(Cluster {
            nodes: NodeCount((cores / cpn as u64).max(1) as u32),
            cores_per_node: cpn,
            kind: ClusterKind::General,
        });
    }
    out
}

/// The ETC row of a job of run time `runtime` on `clusters` clusters, drawn from `s`:
/// column 0 is the run time, the others Gamma(run time, COV 0.3), at least 1 us.
pub fn etc_row(s: &mut Stream, runtime: Micros, clusters: usize) -> Vec<Micros> {
    etc_row_cov(s, runtime, clusters, ETC_COV)
}

/// [`etc_row`] with the columns' COV `cov` (seed 001 Fig. 5(b): 0.01 and 1 beside 0.3).
pub fn etc_row_cov(s: &mut Stream, runtime: Micros, clusters: usize, cov: f64) -> Vec<Micros> {
    let runtime = runtime.max(Micros(1));
    (0..clusters)
        .map(|c| {
            if c == 0 {
                runtime
            } else {
                let x = s.gamma_mean_cov(runtime.0 as f64, cov);
                Micros((libm::round(x) as u64).max(1))
            }
        })
        .collect()
}

/// The mean of an ETC row, rounded down to the microsecond.
pub fn average(etc: &[Micros]) -> Micros {
    let sum: u128 = etc.iter().map(|m| m.0 as u128).sum();
    Micros((sum / etc.len().max(1) as u128) as u64)
}

/// One scenario's window in the log's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The scenario's index.
    pub index: u32,
    /// Start of the measured day, log clock; the window starts [`WARMUP`] earlier.
    pub day_start: Micros,
}

impl Window {
    /// Start of the simulated window (the warm-up's start), log clock.
    pub fn start(&self) -> Micros {
        self.day_start.saturating_sub(WARMUP)
    }
    /// End of the window (and of the measured day), log clock.
    pub fn end(&self) -> Micros {
        self.day_start.saturating_add(DAY)
    }
}

/// The `count` windows of `jobs` (sorted by submit time): the first measured day starts at
/// the first log midnight at least [`WARMUP`] after the first submit, each next one `step`
/// later; every window must end by the last submit, or it is an error saying how many fit.
pub fn windows(jobs: &[ReplayJob], count: u32, step: Micros) -> anyhow::Result<Vec<Window>> {
    let (Some(first), Some(last)) = (
        jobs.iter().map(|j| j.submit).min(),
        jobs.iter().map(|j| j.submit).max(),
    ) else {
        bail!("the trace has no jobs");
    };
    let d = Micros::from_hours(24).0;
    let first_day = (first + WARMUP.0).div_ceil(d) * d;
    let fits = if first_day + DAY.0 > last {
        0
    } else {
        (last - first_day - DAY.0) / step.0.max(1) + 1
    };
    if (count as u64) > fits {
        bail!(
            "{count} scenarios {} h apart do not fit in the trace: its jobs span {:.1} days and \
             only {fits} 28 h windows fit",
            step.0 / Micros::HOUR.0,
            (last - first) as f64 / d as f64
        );
    }
    Ok((0..count)
        .map(|k| Window {
            index: k,
            day_start: Micros(first_day + k as u64 * step.0),
        })
        .collect())
}

/// What one seed 001 run simulates: one of the paper's scenarios (a window of the trace) at
/// one oversubscription level, with its drawn platform, ETC rows and value functions.
#[derive(Clone, Debug)]
pub struct Environment {
    /// The window.
    pub window: Window,
    /// The fraction of Curie's cores.
    pub cores_fraction: f64,
    /// The platform (one 0 W P-state; clusters in draw order).
    pub platform: Platform,
    /// The tasks that fit some cluster, by arrival (time 0 = the window's start).
    pub tasks: Vec<Task>,
    /// SWF job number of each task.
    pub job_ids: Vec<u64>,
    /// Sum of the starting values of the tasks arriving in the measured day (fitting or not).
    pub bound: f64,
    /// Tasks arriving in the measured day.
    pub day_tasks: u32,
    /// Jobs of the window removed for asking more than [`MAX_TASK_CORES`] cores.
    pub removed_large: u32,
    /// Tasks that fit no cluster (too few nodes everywhere): never simulated.
    pub unplaceable: u32,
    /// Core-time of the day's arrivals on their fastest cluster (cores allocated) over the
    /// platform's core-time in the day, in percent.
    pub offered_load_percent: f64,
}

/// The environment's variations of seed 001 §5 (Fig. 5): how values follow execution time,
/// and how heterogeneous the ETC columns are. The default is §4's environment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Variation {
    /// Fig. 5(a): the correlation of starting values with execution time.
    pub correlation: ValueCorrelation,
    /// Fig. 5(b): the COV of the ETC columns after the first ([`ETC_COV`] by default).
    pub etc_cov: f64,
}

impl Default for Variation {
    fn default() -> Variation {
        Variation {
            correlation: ValueCorrelation::Weak,
            etc_cov: ETC_COV,
        }
    }
}

/// Builds scenario `window` of `jobs` (sorted by submit time) at `cores_fraction` of
/// Curie's cores from the streams of `seed`; `max_runtime` is the trace's longest run time.
pub fn build(
    jobs: &[ReplayJob],
    max_runtime: Micros,
    window: &Window,
    cores_fraction: f64,
    seed: u64,
) -> anyhow::Result<Environment> {
    build_varied(
        jobs,
        max_runtime,
        window,
        cores_fraction,
        seed,
        &Variation::default(),
    )
}

/// [`build`] in a varied environment (Fig. 5).
pub fn build_varied(
    jobs: &[ReplayJob],
    max_runtime: Micros,
    window: &Window,
    cores_fraction: f64,
    seed: u64,
    variation: &Variation,
) -> anyhow::Result<Environment> {
    let params = ValueParams {
        correlation: variation.correlation,
        ..ValueParams::default()
    };
    let k = window.index;
    let clusters = draw_platform(
        &mut Stream::new(seed, k, "seed001-platform", 0),
        cores_fraction * CURIE_CORES,
    );
    let platform = Platform::new(&clusters, 1).context("building the platform")?;
    let mut etc_s = Stream::new(seed, k, "seed001-etc", 0);
    let mut val_s = Stream::new(seed, k, "seed001-value", 0);
    let (w0, w1) = (window.start(), window.end());
    let mut out = Environment {
        window: *window,
        cores_fraction,
        platform,
        tasks: Vec::new(),
        job_ids: Vec::new(),
        bound: 0.0,
        day_tasks: 0,
        removed_large: 0,
        unplaceable: 0,
        offered_load_percent: 0.0,
    };
    let mut offered: u128 = 0;
    for j in jobs.iter().filter(|j| w0.0 <= j.submit && j.submit < w1.0) {
        if j.procs > MAX_TASK_CORES {
            out.removed_large += 1;
            continue;
        }
        let etc = etc_row_cov(
            &mut etc_s,
            Micros(j.runtime),
            clusters.len(),
            variation.etc_cov,
        );
        let curve = value_curve(&mut val_s, average(&etc), max_runtime, &params);
        let arrival = Micros(j.submit - w0.0);
        let in_day = arrival >= WARMUP;
        if in_day {
            out.day_tasks += 1;
            out.bound += curve.max_value();
        }
        let mut placements: Vec<Option<Placement>> = Vec::with_capacity(clusters.len());
        let mut best: Option<u128> = None;
        for (c, cl) in clusters.iter().enumerate() {
            let nodes = cl.nodes_for_cores(kairos_core::units::Cores(j.procs.max(1) as u64));
            let p = (nodes <= cl.nodes).then(|| {
                let mut etcs = [Micros::ZERO; MAX_PSTATES];
                etcs[0] = etc[c];
                Placement {
                    nodes,
                    etc: etcs,
                    apc: [MilliWatts(0); MAX_PSTATES],
                }
            });
            if p.is_some() {
                let core_time = nodes.0 as u128 * cl.cores_per_node as u128 * etc[c].0 as u128;
                best = Some(best.map_or(core_time, |b| b.min(core_time)));
            }
            placements.push(p);
        }
        let Some(best) = best else {
            out.unplaceable += 1;
            continue;
        };
        if in_day {
            offered += best;
        }
        out.tasks.push(Task {
            id: TaskId(out.tasks.len() as u32),
            arrival,
            // At most 4 clusters, under MAX_CLUSTERS (8): the collect cannot overflow.
            demand: Demand::Own(TaskType {
                placements: placements.into_iter().collect(),
            }),
            curve,
            actual: None,
        });
        out.job_ids.push(j.id);
    }
    let cores: u128 = clusters.iter().map(|c| c.cores().0 as u128).sum();
    out.offered_load_percent = 100.0 * offered as f64 / (cores as f64 * DAY.0 as f64);
    Ok(out)
}

/// The core configuration of a seed 001 run: the measured day [4 h, 28 h), zero-value
/// dropping for every heuristic, permanent reservations for the comparison heuristics.
pub fn config(h: Heuristic, r: Reservations) -> Config {
    let mut cfg = Config::new(h, WARMUP, WARMUP.saturating_add(DAY));
    cfg.reservations = if h.is_utility_aware() {
        r
    } else {
        Reservations::Permanent
    };
    cfg.drop_threshold = Some(ZERO_VALUE_THRESHOLD);
    cfg
}

/// When seed 001 maps: at every arrival and every completion, and once at time 0.
pub fn schedule() -> Schedule {
    Schedule {
        on_completion: true,
        on_arrival: true,
        ..Schedule::every(WARMUP.saturating_add(DAY))
    }
}

/// Runs scenario `sc` under `h` with `r`, as one row of an experiment (`name` names it).
pub fn run(
    sc: &Environment,
    h: Heuristic,
    r: Reservations,
    name: &str,
) -> anyhow::Result<RunSummary> {
    let cfg = config(h, r);
    let classes = UtilityClasses::new();
    // The summary counts the measured day's tasks, as `kairos run`'s does (docs/formats.md:
    // the warm-up's arrivals are simulated, not counted); the digest is the engine's.
    let mut timer = Watch::for_day(cfg.day_start, cfg.day_end);
    let t0 = Instant::now();
    let report = crate::storage::simulate(
        &sc.platform,
        &classes,
        cfg,
        schedule(),
        &sc.tasks,
        &mut timer,
    )
    .map_err(anyhow::Error::new)
    .with_context(|| format!("simulating scenario {} under {h}", sc.window.index))?;
    let wall_time_s = t0.elapsed().as_secs_f64();
    let earned = report.utility.as_f64();
    let (arrived, completed, dropped) = timer.day_counts().unwrap_or_default();
    Ok(RunSummary {
        scenario: name.to_string(),
        heuristic: h.name().to_string(),
        reservations: cfg.reservations.name().to_string(),
        filter: "none".to_string(),
        leniency: 1.0,
        trial: sc.window.index,
        utility_percent: if sc.bound > 0.0 {
            100.0 * earned / sc.bound
        } else {
            0.0
        },
        utility: earned,
        max_utility: sc.bound,
        energy_joules: 0.0,
        energy_budget_joules: None,
        arrived,
        completed,
        dropped,
        unfinished: arrived.saturating_sub(completed + dropped),
        mapping_events: report.mapping_events,
        mapping_event_us: timer.event_times(),
        offered_load_percent: sc.offered_load_percent,
        wall_time_s,
        generate_s: 0.0,
        digest: format!("{:016x}", report.digest),
        trace: Vec::new(),
    })
}

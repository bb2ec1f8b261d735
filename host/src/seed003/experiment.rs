//! Seed 003 experiment files and their runs: the grid of points (rates x nodes x cores x static
//! power x calibration knobs) x approaches x trials, in parallel, paired.
//!
//! ```toml
//! name = "seed003-rates"                 # names the output directory, out/<name>/
//! title = "Seed 003 Fig. 7.5, Table 7.1" # optional: the plots' title
//! scenario = "../scenarios/seed003.toml" # a seed 003 scenario (model.rs), relative to here
//! trials = 48                            # optional, default 48 (`--trials` overrides)
//!
//! [seed003]                              # this table makes the file a seed 003 experiment
//! axis = "rate"                          # the plots' x axis: rate, nodes, cores,
//!                                        # p_static_w, s_w or s_d
//! rates = ["high", "medium", "low"]      # optional, default ["high"]
//! nodes = [3]                            # optional, default the scenario's
//! cores = [8]                            # optional, default the scenario's
//! p_static_w = [6.125]                   # optional, default the scenario's
//! s_w = [1.0]                            # optional, default the scenario's
//! s_d = [1.0]                            # optional, default the scenario's
//! approaches = ["valopt", "nba-fcps", "nba-ftps", "pba"]  # optional, default all four
//! profile_cache = "profiles"            # optional, default "profiles": where PBA's profiles
//!                                        # are kept, relative to the output folder (--out,
//!                                        # default out/<name>/); a trial's file is reused by
//!                                        # any run with the same workload, power model and GA
//!                                        # (profile.rs, `cache_file`): "../seed003-profiles"
//!                                        # shares them between experiments written side by side
//! claims = "../claims/seed003.toml"      # optional: evaluate this claims file's rates claims
//!                                        # at every (s_d, static power) cell of the outputs
//!                                        # (claim_grid.rs: claims_grid.csv, claims/<id>.svg)
//!
//! [seed003.calibrate]                    # optional: ValOpt's target rejections (spec §5.1)
//! high = 49.0
//! low = 13.0
//! ```
//!
//! A trial's workload is drawn once per (s_w, s_d) and profiled for PBA once per (s_w, s_d,
//! static power); every rate, node count, core count and approach then runs on it, so every
//! comparison is paired. Rows come back in (point, approach, trial) order whatever the thread
//! count; only the timings differ.

use super::generate::{self, Job, Rate};
use super::model::Model;
use super::profile;
use super::sim::{self, Approach, Setup, TrialResult};
use crate::toml_file::{self, Checker};
use anyhow::Context;
use kairos_core::limits::{MAX_DAG_TASKS, MAX_DVFS_LEVELS};
use kairos_core::units::Micros;
use rayon::prelude::*;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Trials when the file does not say.
pub const DEFAULT_TRIALS: u32 = 48;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    name: String,
    #[serde(default)]
    title: Option<String>,
    scenario: String,
    #[serde(default)]
    trials: Option<u32>,
    seed003: GridSpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GridSpec {
    axis: String,
    #[serde(default)]
    rates: Option<Vec<String>>,
    #[serde(default)]
    nodes: Option<Vec<u32>>,
    #[serde(default)]
    cores: Option<Vec<u32>>,
    #[serde(default)]
    p_static_w: Option<Vec<f64>>,
    #[serde(default)]
    s_w: Option<Vec<f64>>,
    #[serde(default)]
    s_d: Option<Vec<f64>>,
    #[serde(default)]
    approaches: Option<Vec<String>>,
    #[serde(default)]
    calibrate: Option<Targets>,
    #[serde(default)]
    profile_cache: Option<String>,
    #[serde(default)]
    claims: Option<String>,
}

/// ValOpt's target rejection percentages (the paper's Table 7.1), for a calibration.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Targets {
    /// At the high rate (49.0).
    pub high: f64,
    /// At the low rate (13.0).
    pub low: f64,
}

/// One point of the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// The arrival rate.
    pub rate: Rate,
    /// Nodes.
    pub nodes: u32,
    /// Cores a node.
    pub cores: u32,
    /// Static power per used core, watts.
    pub p_static_w: f64,
    /// Execution time scale.
    pub s_w: f64,
    /// Deadline scale.
    pub s_d: f64,
}

/// A loaded seed 003 experiment.
#[derive(Clone, Debug)]
pub struct Seed003Experiment {
    /// Its name.
    pub name: String,
    /// The plots' title.
    pub title: String,
    /// The scenario file.
    pub scenario_path: PathBuf,
    /// The scenario.
    pub model: Model,
    /// Trials 0..trials.
    pub trials: u32,
    /// The x axis key.
    pub axis: String,
    /// The grid, in (s_w, s_d, p_static_w, rate, nodes, cores) order, the last fastest.
    pub points: Vec<Point>,
    /// The approaches, in file order.
    pub approaches: Vec<Approach>,
    /// ValOpt's calibration targets, if this is a calibration.
    pub calibrate: Option<Targets>,
    /// Where PBA's profiles are kept, relative to the output folder (the file's
    /// `profile_cache`, default [`PROFILE_CACHE`]).
    pub profile_cache_in_out: PathBuf,
    /// The folder PBA's profiles are read from and written to; `None` (as loaded): profile on
    /// every run. The runner sets it with [`Seed003Experiment::cache_profiles_under`].
    pub profile_cache: Option<PathBuf>,
    /// A claims file to evaluate at every grid cell of the outputs (the file's `claims`,
    /// relative to it), if any.
    pub claims: Option<PathBuf>,
}

/// PBA's profile cache when the file does not say: this folder of the output folder.
pub const PROFILE_CACHE: &str = "profiles";

const AXES: [&str; 6] = ["rate", "nodes", "cores", "p_static_w", "s_w", "s_d"];

/// Whether `path` is a seed 003 experiment (a TOML file with a top-level `[seed003]` table).
pub fn is_seed003(path: &Path) -> bool {
    crate::bounded::read_to_string(path, crate::bounded::TEXT_FILE_BYTES, "TOML file")
        .ok()
        .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok())
        .is_some_and(|d| d.contains_table("seed003"))
}

/// The most points a seed 003 grid may have (the product of its lists' lengths): each runs
/// every approach on every trial's workload.
pub const MAX_POINTS: usize = 10_000;

impl Seed003Experiment {
    /// Reads and checks the experiment at `path`, and loads its scenario.
    pub fn load(path: &Path) -> Result<Seed003Experiment, anyhow::Error> {
        let (text, file) = toml_file::read(path)?;
        Seed003Experiment::parse(&text, &file, path)
    }

    /// Parses and checks the text of the experiment file at `path` (`file` names it in
    /// messages; its scenario is found beside `path`), and loads its scenario.
    pub fn parse(text: &str, file: &str, path: &Path) -> Result<Seed003Experiment, anyhow::Error> {
        let (text, file) = (text.to_owned(), file.to_owned());
        let spec: FileSpec = toml_file::parse(&text, &file)?;
        let mut c = Checker::new(&file, &text);
        let trials = spec.trials.unwrap_or(DEFAULT_TRIALS);
        c.int("trials", trials as u64, 1, 100_000);
        let g = &spec.seed003;
        if !AXES.contains(&g.axis.as_str()) {
            c.fail(
                "seed003.axis",
                format_args!("{:?}", g.axis),
                format_args!("must be one of {}", AXES.join(", ")),
            );
        }
        let mut rates = Vec::new();
        for (i, r) in g
            .rates
            .clone()
            .unwrap_or_else(|| vec!["high".into()])
            .iter()
            .enumerate()
        {
            match Rate::parse(r) {
                Some(r) => rates.push(r),
                None => c.fail(
                    &format!("seed003.rates[{i}]"),
                    format_args!("{r:?}"),
                    "must be high, medium or low",
                ),
            }
        }
        let mut approaches = Vec::new();
        let names = g
            .approaches
            .clone()
            .unwrap_or_else(|| Approach::ALL.iter().map(|a| a.key().to_string()).collect());
        for (i, a) in names.iter().enumerate() {
            match Approach::parse(a) {
                Some(a) if !approaches.contains(&a) => approaches.push(a),
                Some(_) => c.fail(
                    &format!("seed003.approaches[{i}]"),
                    format_args!("{a:?}"),
                    "is given twice",
                ),
                None => c.fail(
                    &format!("seed003.approaches[{i}]"),
                    format_args!("{a:?}"),
                    "must be valopt, nba-fcps, nba-ftps or pba",
                ),
            }
        }
        let lists: [(&str, usize); 7] = [
            ("seed003.rates", rates.len()),
            ("seed003.nodes", g.nodes.as_ref().map_or(1, Vec::len)),
            ("seed003.cores", g.cores.as_ref().map_or(1, Vec::len)),
            (
                "seed003.p_static_w",
                g.p_static_w.as_ref().map_or(1, Vec::len),
            ),
            ("seed003.s_w", g.s_w.as_ref().map_or(1, Vec::len)),
            ("seed003.s_d", g.s_d.as_ref().map_or(1, Vec::len)),
            ("seed003.approaches", names.len()),
        ];
        for (k, n) in lists {
            if n == 0 {
                c.fail(k, "[]", "must not be empty");
            }
        }
        // The grid is every combination of the lists: its size is checked before it is
        // built (six lists of a thousand values would be 10^18 points).
        let grid = lists[..6].iter().fold(1u128, |p, &(_, n)| p * n as u128);
        if grid > MAX_POINTS as u128 {
            c.fail(
                "seed003",
                format_args!("{grid} points (the product of the lists' lengths)"),
                format_args!("must be at most {MAX_POINTS}"),
            );
        }
        if g.calibrate.is_some() && !(rates.contains(&Rate::High) && rates.contains(&Rate::Low)) {
            c.fail(
                "seed003.calibrate",
                "{..}",
                "needs \"high\" and \"low\" in seed003.rates",
            );
        }
        if let Some(t) = &g.calibrate {
            // Rejection percentages: NaN or 4294967295 would calibrate towards nothing.
            c.float("seed003.calibrate.high", t.high, 0.0, 100.0);
            c.float("seed003.calibrate.low", t.low, 0.0, 100.0);
        }
        if g.calibrate.is_some() && !approaches.contains(&Approach::ValOpt) {
            c.fail(
                "seed003.calibrate",
                "{..}",
                "needs \"valopt\" in seed003.approaches",
            );
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let scenario_path = dir.join(&spec.scenario);
        let at = c.at("scenario");
        c.finish()?;
        let model = Model::load(&scenario_path)
            .with_context(|| format!("{at}: scenario = {:?}", spec.scenario))?;
        let p = &model.platform;
        let w = &model.workload;
        let nodes = g.nodes.clone().unwrap_or(vec![p.nodes]);
        let cores = g.cores.clone().unwrap_or(vec![p.cores]);
        let ps = g.p_static_w.clone().unwrap_or(vec![p.p_static_w]);
        let sws = g.s_w.clone().unwrap_or(vec![w.s_w]);
        let sds = g.s_d.clone().unwrap_or(vec![w.s_d]);
        // Every value of the grid must pass the scenario's own checks.
        let mut c = Checker::new(&file, &text);
        for (i, &n) in nodes.iter().enumerate() {
            c.int(&format!("seed003.nodes[{i}]"), n as u64, 1, 1024);
        }
        for (i, &n) in cores.iter().enumerate() {
            c.int(&format!("seed003.cores[{i}]"), n as u64, 1, 1024);
        }
        for (i, &x) in ps.iter().enumerate() {
            c.float(&format!("seed003.p_static_w[{i}]"), x, 0.0, 100.0);
            let mut q = p.clone();
            q.p_static_w = x;
            if let Err(e) = q.dvfs() {
                c.fail(&format!("seed003.p_static_w[{i}]"), x, e);
            }
        }
        for (i, &x) in sws.iter().enumerate() {
            c.float_above(&format!("seed003.s_w[{i}]"), x, 0.0, 1e3);
        }
        for (i, &x) in sds.iter().enumerate() {
            c.float(&format!("seed003.s_d[{i}]"), x, 0.0, 1e4);
        }
        if g.profile_cache
            .as_deref()
            .is_some_and(|p| p.trim().is_empty())
        {
            c.fail(
                "seed003.profile_cache",
                "\"\"",
                "must name a folder (relative to the output folder)",
            );
        }
        c.finish()?;
        let mut points = Vec::new();
        for &s_w in &sws {
            for &s_d in &sds {
                for &p_static_w in &ps {
                    for &rate in &rates {
                        for &nodes in &nodes {
                            for &cores in &cores {
                                points.push(Point {
                                    rate,
                                    nodes,
                                    cores,
                                    p_static_w,
                                    s_w,
                                    s_d,
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(Seed003Experiment {
            title: spec.title.clone().unwrap_or_else(|| spec.name.clone()),
            name: spec.name,
            scenario_path,
            model,
            trials,
            axis: g.axis.clone(),
            points,
            approaches,
            calibrate: g.calibrate,
            profile_cache_in_out: PathBuf::from(
                g.profile_cache.as_deref().unwrap_or(PROFILE_CACHE),
            ),
            profile_cache: None,
            claims: g.claims.as_ref().map(|c| dir.join(c)),
        })
    }

    /// Keeps PBA's profiles in the output folder `out` (at the file's `profile_cache` under
    /// it), not beside the experiment file or in the working directory.
    pub fn cache_profiles_under(&mut self, out: &Path) {
        self.profile_cache = Some(out.join(&self.profile_cache_in_out));
    }

    /// Where the reports go unless told otherwise: `out/<name>/`.
    pub fn default_out_dir(&self) -> PathBuf {
        Path::new("out").join(&self.name)
    }

    /// The label of point `i` on the experiment's axis.
    pub fn point_label(&self, i: usize) -> String {
        let p = &self.points[i];
        match self.axis.as_str() {
            "rate" => p.rate.name().to_string(),
            "nodes" => format!("N={}", p.nodes),
            "cores" => format!("C={}", p.cores),
            "p_static_w" => format!("P={} W {}", p.p_static_w, p.rate.name()),
            _ => format!(
                "s_w={} s_d={} P={} W {}",
                p.s_w,
                p.s_d,
                p.p_static_w,
                p.rate.name()
            ),
        }
    }
}

/// One approach at one point on one trial.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// Index in [`Seed003Experiment::points`].
    pub point: usize,
    /// Index in [`Seed003Experiment::approaches`].
    pub approach: usize,
    /// The trial.
    pub trial: u32,
    /// What it gave.
    pub result: TrialResult,
}

/// Every run of an experiment.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Sorted by (point, approach, trial).
    pub rows: Vec<Row>,
    /// Wall time of the whole experiment, seconds.
    pub wall_s: f64,
    /// Time the workers spent profiling for PBA, seconds (wall time per unit, summed: an upper
    /// bound of the CPU time on a loaded machine).
    pub profile_cpu_s: f64,
    /// Jobs profiled.
    pub profiled_jobs: u64,
    /// Time the workers spent generating and simulating (no profiling), seconds, as above.
    pub run_cpu_s: f64,
    /// Worker threads.
    pub threads: usize,
}

/// A unit's rows, profiling CPU seconds, jobs profiled, and run CPU seconds.
type UnitOut = (Vec<Row>, f64, u64, f64);

struct Unit {
    trial: u32,
    s_w: f64,
    s_d: f64,
    p_static_w: f64,
}

/// The experiment's units, in order: each trial's workload at each distinct (s_w, s_d,
/// static power) of the points. A resumable run saves one unit per step.
fn units(exp: &Seed003Experiment) -> Vec<Unit> {
    let mut units = Vec::new();
    for trial in 0..exp.trials {
        let mut seen: Vec<(f64, f64, f64)> = Vec::new();
        for p in &exp.points {
            let key = (p.s_w, p.s_d, p.p_static_w);
            if !seen.contains(&key) {
                seen.push(key);
                units.push(Unit {
                    trial,
                    s_w: p.s_w,
                    s_d: p.s_d,
                    p_static_w: p.p_static_w,
                });
            }
        }
    }
    units
}

/// The number of units (a trial's points of one workload and platform): the steps of a
/// resumable run.
pub fn unit_count(exp: &Seed003Experiment) -> u32 {
    units(exp).len() as u32
}

/// Runs the experiment on `threads` workers (default: rayon's), calling `progress(done,
/// total)` after each unit (a trial's workload at one (s_w, s_d, static power)).
pub fn run(
    exp: &Seed003Experiment,
    threads: Option<usize>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> anyhow::Result<Outcome> {
    let start = Instant::now();
    let units = units(exp);
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    let pool = builder.build()?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = units.len();
    let per_unit: Vec<anyhow::Result<UnitOut>> = pool.install(|| {
        units
            .par_iter()
            .map(|u| {
                let r = run_unit(exp, u);
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress(d, total);
                r
            })
            .collect()
    });
    let mut rows = Vec::new();
    let (mut profile_cpu_s, mut profiled_jobs, mut run_cpu_s) = (0.0, 0u64, 0.0);
    for r in per_unit {
        let (rs, ps, pj, rcs) = r?;
        rows.extend(rs);
        profile_cpu_s += ps;
        profiled_jobs += pj;
        run_cpu_s += rcs;
    }
    rows.sort_by_key(|r| (r.point, r.approach, r.trial));
    Ok(Outcome {
        rows,
        wall_s: start.elapsed().as_secs_f64(),
        profile_cpu_s,
        profiled_jobs,
        run_cpu_s,
        threads: pool.current_num_threads(),
    })
}

/// How [`run_saved`] saves the units and when it stops.
pub struct Saving<'a> {
    /// The run's saved units, one a step.
    pub steps: &'a crate::experiment::saved::Steps,
    /// Which units are saved already (not run again).
    pub saved: &'a [bool],
    /// Asked before each unit starts: whether to stop (Ctrl-C).
    pub stop: &'a (dyn Fn() -> bool + Sync),
    /// Told each finished unit.
    pub progress: &'a crate::progress::Steps,
}

/// The columns of a saved row.
const SAVED_COLUMNS: [&str; 12] = [
    "point",
    "approach",
    "trial",
    "value",
    "energy_nj",
    "dropped",
    "zero_value",
    "executed",
    "jobs",
    "evals",
    "digest",
    "choices",
];

/// [`run`] over the units not saved, each saved as it finishes; once every unit is saved,
/// the rows of all of them as read back from their files (the same rows whether the run was
/// interrupted or not; the timings are this session's). `None`: stopped before every unit
/// ran (those that finished are saved).
pub fn run_saved(
    exp: &Seed003Experiment,
    threads: Option<usize>,
    s: &Saving<'_>,
) -> anyhow::Result<Option<Outcome>> {
    let start = Instant::now();
    let units = units(exp);
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    let pool = builder.build()?;
    let pending: Vec<usize> = (0..units.len())
        .filter(|&i| !s.saved.get(i).copied().unwrap_or(false))
        .collect();
    let per_unit: Vec<anyhow::Result<Option<(f64, u64, f64)>>> = pool.install(|| {
        pending
            .par_iter()
            .map(|&i| {
                if (s.stop)() {
                    return Ok(None);
                }
                let (rows, ps, pj, rcs) = run_unit(exp, &units[i])?;
                let text: Vec<Vec<String>> = rows
                    .iter()
                    .map(|r| {
                        let x = &r.result;
                        let mut fields: Vec<String> = [
                            r.point as u64,
                            r.approach as u64,
                            r.trial as u64,
                            x.value,
                            x.energy_nj,
                            x.dropped as u64,
                            x.zero_value as u64,
                            x.executed as u64,
                            x.jobs as u64,
                            x.evals,
                            x.digest,
                        ]
                        .iter()
                        .map(u64::to_string)
                        .collect();
                        fields.push(choices_field(&x.choices));
                        fields
                    })
                    .collect();
                s.steps.write(i as u32, &SAVED_COLUMNS, &text)?;
                s.progress.add(1);
                Ok(Some((ps, pj, rcs)))
            })
            .collect()
    });
    let (mut profile_cpu_s, mut profiled_jobs, mut run_cpu_s) = (0.0, 0u64, 0.0);
    let mut stopped = false;
    for r in per_unit {
        match r? {
            Some((ps, pj, rcs)) => {
                profile_cpu_s += ps;
                profiled_jobs += pj;
                run_cpu_s += rcs;
            }
            None => stopped = true,
        }
    }
    if stopped {
        return Ok(None);
    }
    let mut rows = Vec::new();
    for (i, u) in units.iter().enumerate() {
        rows.extend(read_unit(exp, s.steps, i as u32, u)?);
    }
    rows.sort_by_key(|r| (r.point, r.approach, r.trial));
    Ok(Some(Outcome {
        rows,
        wall_s: start.elapsed().as_secs_f64(),
        profile_cpu_s,
        profiled_jobs,
        run_cpu_s,
        threads: pool.current_num_threads(),
    }))
}

/// A trial's tasks by cores and level ([`TrialResult::choices`]) as one saved field: the
/// counts row by row, `;`-separated.
fn choices_field(c: &[[u32; MAX_DVFS_LEVELS]; MAX_DAG_TASKS]) -> String {
    let all: Vec<String> = c.iter().flatten().map(u32::to_string).collect();
    all.join(";")
}

/// [`choices_field`] read back: exactly `MAX_DAG_TASKS x MAX_DVFS_LEVELS` counts.
fn parse_choices(field: &str) -> Result<[[u32; MAX_DVFS_LEVELS]; MAX_DAG_TASKS], String> {
    let mut c = [[0u32; MAX_DVFS_LEVELS]; MAX_DAG_TASKS];
    let mut parts = field.split(';');
    for slot in c.iter_mut().flatten() {
        let p = parts
            .next()
            .ok_or_else(|| format!("fewer than {} counts", MAX_DAG_TASKS * MAX_DVFS_LEVELS))?;
        *slot = p.parse().map_err(|_| format!("{p:?} is not a count"))?;
    }
    if parts.next().is_some() {
        return Err(format!(
            "more than {} counts",
            MAX_DAG_TASKS * MAX_DVFS_LEVELS
        ));
    }
    Ok(c)
}

/// Unit `i`'s rows read back from its saved file, each checked to be a run of the unit.
fn read_unit(
    exp: &Seed003Experiment,
    steps: &crate::experiment::saved::Steps,
    i: u32,
    u: &Unit,
) -> anyhow::Result<Vec<Row>> {
    let saved = steps.read(i, &SAVED_COLUMNS)?;
    let expected: Vec<(usize, usize)> = exp
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| (p.s_w, p.s_d, p.p_static_w) == (u.s_w, u.s_d, u.p_static_w))
        .flat_map(|(pi, _)| (0..exp.approaches.len()).map(move |ai| (pi, ai)))
        .collect();
    if saved.len() != expected.len() {
        anyhow::bail!(
            "{}: {} rows, expected {} (the unit's points x approaches)",
            steps.file(i).display(),
            saved.len(),
            expected.len()
        );
    }
    let mut rows = Vec::with_capacity(expected.len());
    for (k, &(point, approach)) in expected.iter().enumerate() {
        let got: (usize, usize, u32) = (saved.get(k, 0)?, saved.get(k, 1)?, saved.get(k, 2)?);
        if got != (point, approach, u.trial) {
            return Err(saved.error(
                k,
                format!(
                    "point {}, approach {}, trial {}: expected point {point}, approach \
                     {approach}, trial {}",
                    got.0, got.1, got.2, u.trial
                ),
            ));
        }
        rows.push(Row {
            point,
            approach,
            trial: u.trial,
            result: TrialResult {
                value: saved.get(k, 3)?,
                energy_nj: saved.get(k, 4)?,
                dropped: saved.get(k, 5)?,
                zero_value: saved.get(k, 6)?,
                executed: saved.get(k, 7)?,
                jobs: saved.get(k, 8)?,
                evals: saved.get(k, 9)?,
                digest: saved.get(k, 10)?,
                choices: parse_choices(&saved.get::<String>(k, 11)?)
                    .map_err(|m| saved.error(k, format!("choices: {m}")))?,
            },
        });
    }
    Ok(rows)
}

fn run_unit(exp: &Seed003Experiment, u: &Unit) -> anyhow::Result<UnitOut> {
    let t0 = Instant::now();
    let mut m = exp.model.clone();
    m.workload.s_w = u.s_w;
    m.workload.s_d = u.s_d;
    m.platform.p_static_w = u.p_static_w;
    let table = m
        .platform
        .dvfs()
        .with_context(|| format!("trial {}: the DVFS table", u.trial))?;
    let jobs: Vec<Job> = generate::workload(m.seed, u.trial, &m.workload)
        .with_context(|| format!("trial {}: generating the workload", u.trial))?;
    let mut gen_s = t0.elapsed().as_secs_f64();
    let (profiles, prof_s, prof_jobs) = if exp.approaches.contains(&Approach::Pba) {
        let t = Instant::now();
        // Nested in the pool's parallel units; the profiles are the same for any thread count
        // (profile.rs).
        let file = exp
            .profile_cache
            .as_ref()
            .map(|d| profile::cache_file(d, &m, u.trial));
        match file
            .as_ref()
            .and_then(|f| profile::read_cache(f, &jobs, &table))
        {
            Some(p) => (Some(p), 0.0, 0),
            None => {
                let p = profile::profile_all(m.seed, u.trial, &jobs, &table, &m.ga)
                    .with_context(|| format!("trial {}: profiling", u.trial))?;
                if let Some(f) = &file {
                    profile::write_cache(f, &p)
                        .with_context(|| format!("{}: writing profiles", f.display()))?;
                }
                (Some(p), t.elapsed().as_secs_f64(), jobs.len() as u64)
            }
        }
    } else {
        (None, 0.0, 0)
    };
    let t1 = Instant::now();
    let mut rows = Vec::new();
    for (pi, p) in exp.points.iter().enumerate() {
        if (p.s_w, p.s_d, p.p_static_w) != (u.s_w, u.s_d, u.p_static_w) {
            continue;
        }
        let setup = Setup {
            rate: p.rate,
            nodes: p.nodes,
            cores: p.cores,
            overhead: Micros(m.platform.overhead_us),
        };
        for (ai, &a) in exp.approaches.iter().enumerate() {
            let result =
                sim::run(&jobs, profiles.as_deref(), &table, a, &setup).with_context(|| {
                    format!("trial {} {} {}", u.trial, a.label(), exp.point_label(pi))
                })?;
            rows.push(Row {
                point: pi,
                approach: ai,
                trial: u.trial,
                result,
            });
        }
    }
    gen_s += t1.elapsed().as_secs_f64();
    Ok((rows, prof_s, prof_jobs, gen_s))
}

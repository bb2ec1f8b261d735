//! Runs an experiment: every configuration on every trial, in parallel.
//!
//! A configuration with a `controller` runs its exec program once per trial (a process
//! each, started in the experiment file's directory) through [`crate::live::exec`].
//!
//! Each trial is generated once (generation is deterministic per scenario seed and trial) and
//! every configuration runs on it; rayon spreads the trials, and the configurations of a
//! trial, over its threads. A worker holds one trial and one controller at a time, so the
//! peak memory is a few trials and `jobs` controllers, never all the trials' task lists.
//! Rows come back sorted by (configuration, trial): results never depend on thread timing;
//! only the wall times do. A run that fails (a core error) does not stop the others: it is
//! recorded in [`Outcome::failures`], and the caller decides (`kairos experiment` writes the
//! reports of the runs that succeeded, then exits with an error listing the failures).

use super::Experiment;
use crate::generate;
use crate::run::{run_generated, RunSummary};
use anyhow::Context;
use rayon::prelude::*;
use std::time::Instant;

/// What the runner tells as it goes; called from worker threads.
pub trait Progress: Sync {
    /// One configuration finished on one trial.
    fn run_done(&self, label: &str, trial: u32);
    /// Every configuration finished on `trial`.
    fn trial_done(&self, trial: u32);
}

/// A [`Progress`] that says nothing.
pub struct Quiet;

impl Progress for Quiet {
    fn run_done(&self, _label: &str, _trial: u32) {}
    fn trial_done(&self, _trial: u32) {}
}

/// One configuration on one trial.
#[derive(Clone, Debug)]
pub struct Row {
    /// The index in [`Experiment::configs`].
    pub config: usize,
    /// What `kairos run` reports (without its trace).
    pub summary: RunSummary,
}

/// A run that failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The index in [`Experiment::configs`].
    pub config: usize,
    /// The trial.
    pub trial: u32,
    /// The error, with its context chain.
    pub error: String,
}

/// Everything an experiment gave.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// One row per configuration and trial that succeeded, sorted by (configuration, trial).
    pub rows: Vec<Row>,
    /// The runs that failed, sorted by (configuration, trial).
    pub failures: Vec<Failure>,
    /// Wall time of each trial's generation, in seconds, by trial.
    pub generate_s: Vec<f64>,
    /// Wall time of the whole experiment, in seconds.
    pub wall_s: f64,
    /// Threads used.
    pub jobs: usize,
}

impl Outcome {
    /// The rows of configuration `config`, by trial.
    pub fn rows_of(&self, config: usize) -> impl Iterator<Item = &Row> + '_ {
        self.rows.iter().filter(move |r| r.config == config)
    }
}

/// Runs every configuration of `exp` on trials `0..exp.trials` on `jobs` threads (`None`:
/// one per core).
pub fn run(
    exp: &Experiment,
    jobs: Option<usize>,
    progress: &dyn Progress,
) -> anyhow::Result<Outcome> {
    run_slice(exp, 0..run_count(exp), jobs, progress)
}

/// The number of runs of `exp`: every configuration on every trial.
pub fn run_count(exp: &Experiment) -> u64 {
    exp.trials as u64 * exp.configs.len() as u64
}

/// The (configuration, trial) of run `index`. Runs are numbered trial-major (`index = trial x
/// configurations + configuration`), so a contiguous slice of runs touches as few trials as it
/// can and each shard generates only the trials it needs ([`crate::shard`]).
pub fn run_at(exp: &Experiment, index: u64) -> (usize, u32) {
    let c = exp.configs.len() as u64;
    ((index % c) as usize, (index / c) as u32)
}

/// The index of configuration `config` on trial `trial` (the inverse of [`run_at`]).
pub fn run_index(exp: &Experiment, config: usize, trial: u32) -> u64 {
    trial as u64 * exp.configs.len() as u64 + config as u64
}

/// Runs the runs `runs` (indices as [`run_at`] numbers them) of `exp` on `jobs` threads
/// (`None`: one per core). [`Outcome::generate_s`] has one entry per trial touched.
pub fn run_slice(
    exp: &Experiment,
    runs: std::ops::Range<u64>,
    jobs: Option<usize>,
    progress: &dyn Progress,
) -> anyhow::Result<Outcome> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .context("starting the worker threads")?;
    let t0 = Instant::now();
    let windows = match &exp.trace {
        Some(tr) => crate::seed001::windows(&tr.jobs, exp.trials, tr.step)
            .with_context(|| format!("{}: forming the scenarios", tr.path.display()))?,
        None => Vec::new(),
    };
    let end = runs.end.min(run_count(exp));
    let start = runs.start.min(end);
    let trials = if start == end {
        0..0
    } else {
        run_at(exp, start).1..run_at(exp, end - 1).1 + 1
    };
    // The configurations of trial `t` inside the slice.
    let configs_of = |t: u32| {
        let lo = start.max(run_index(exp, 0, t));
        let hi = end.min(run_index(exp, 0, t) + exp.configs.len() as u64);
        (lo - run_index(exp, 0, t)) as usize..(hi - run_index(exp, 0, t)) as usize
    };
    let per_trial: Vec<(f64, Vec<Result<Row, Failure>>)> = pool.install(|| {
        trials
            .into_par_iter()
            .map(|t| match &exp.trace {
                Some(tr) => {
                    run_one_scenario(exp, tr, &windows[t as usize], configs_of(t), progress)
                }
                None => run_one_trial(exp, t, configs_of(t), progress),
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let wall_s = t0.elapsed().as_secs_f64();
    let mut generate_s = Vec::with_capacity(per_trial.len());
    let mut rows = Vec::with_capacity(per_trial.len() * exp.configs.len());
    let mut failures = Vec::new();
    for (g, r) in per_trial {
        generate_s.push(g);
        for x in r {
            match x {
                Ok(row) => rows.push(row),
                Err(f) => failures.push(f),
            }
        }
    }
    rows.sort_by_key(|r| (r.config, r.summary.trial));
    failures.sort_by_key(|f| (f.config, f.trial));
    Ok(Outcome {
        rows,
        failures,
        generate_s,
        wall_s,
        jobs: pool.current_num_threads(),
    })
}

/// Builds scenario `w` of a trace experiment at each oversubscription level its
/// configurations `configs` use, and runs each of them on its level's scenario.
fn run_one_scenario(
    exp: &Experiment,
    tr: &super::TraceSource,
    w: &crate::seed001::Window,
    configs: std::ops::Range<usize>,
    progress: &dyn Progress,
) -> anyhow::Result<(f64, Vec<Result<Row, Failure>>)> {
    let g0 = Instant::now();
    let mut levels: Vec<f64> = Vec::new();
    for c in &exp.configs[configs.clone()] {
        let f = c
            .cores_fraction
            .unwrap_or(crate::seed001::DEFAULT_CORES_FRACTION);
        if !levels.contains(&f) {
            levels.push(f);
        }
    }
    let scenarios = levels
        .iter()
        .map(|&f| {
            crate::seed001::build_varied(&tr.jobs, tr.max_runtime, w, f, tr.seed, &tr.variation)
                .with_context(|| format!("building scenario {} at {f} of the cores", w.index))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let generate_s = g0.elapsed().as_secs_f64();
    let rows = configs
        .into_par_iter()
        .map(|c| {
            let cfg = &exp.configs[c];
            let f = cfg
                .cores_fraction
                .unwrap_or(crate::seed001::DEFAULT_CORES_FRACTION);
            let sc = &scenarios[levels.iter().position(|&x| x == f).unwrap_or(0)];
            let r = match crate::seed001::run(
                sc,
                cfg.heuristic,
                cfg.reservations,
                &exp.scenario.name,
            ) {
                Ok(mut summary) => {
                    summary.generate_s = generate_s;
                    Ok(Row { config: c, summary })
                }
                Err(e) => Err(Failure {
                    config: c,
                    trial: w.index,
                    error: format!("{e:#}"),
                }),
            };
            progress.run_done(&cfg.label, w.index);
            r
        })
        .collect::<Vec<_>>();
    progress.trial_done(w.index);
    Ok((generate_s, rows))
}

/// Generates trial `t` and runs the configurations `configs` on it.
fn run_one_trial(
    exp: &Experiment,
    t: u32,
    configs: std::ops::Range<usize>,
    progress: &dyn Progress,
) -> anyhow::Result<(f64, Vec<Result<Row, Failure>>)> {
    let g0 = Instant::now();
    let trial = generate::generate(&exp.scenario, t)
        .with_context(|| format!("generating trial {t} of {}", exp.scenario.name))?;
    let generate_s = g0.elapsed().as_secs_f64();
    let rows = configs
        .into_par_iter()
        .map(|c| {
            let opts = exp.run_options(c, t);
            let run = match &exp.configs[c].controller {
                // One process per run: trials run on several threads, each its own.
                Some(command) => crate::live::exec::run_generated(
                    &exp.scenario,
                    &opts,
                    &trial,
                    generate_s,
                    command,
                    exp.file.parent().filter(|d| !d.as_os_str().is_empty()),
                    crate::live::exec::DEFAULT_TIMEOUT,
                )
                .map(|(summary, _)| summary),
                None => run_generated(&exp.scenario, &opts, &trial, generate_s),
            };
            let r = match run {
                Ok(mut summary) => {
                    summary.trace = Vec::new();
                    Ok(Row { config: c, summary })
                }
                Err(e) => Err(Failure {
                    config: c,
                    trial: t,
                    error: format!("{e:#}"),
                }),
            };
            progress.run_done(&exp.configs[c].label, t);
            r
        })
        .collect::<Vec<_>>();
    progress.trial_done(t);
    Ok((generate_s, rows))
}

//! Seed 002 (Friese's dissertation) on the host, a folder per system: the serial system of
//! Chapter 2 ([`serial`]), the energy-constrained one of Chapters 3-4 ([`energy`]) and the
//! bi-objective allocation of Chapters 5-7 ([`pareto`], [`run_pareto_file`]). Shared by them:
//! the workload generator ([`generate`]), the configuration grid, and the runner that saves
//! each trial for `--resume` ([`saved_rows`], [`Resume`], [`ReportsDir`]).
//!
//! The online decisions live in `kairos_core::serial`; this module draws the trials,
//! allocates the core's storage, and aggregates results over trials.

pub mod energy;
pub mod generate;
mod grid;
pub mod pareto;
pub mod saved_rows;
pub mod serial;
pub mod shard;

use crate::experiment::saved::{self, Flags, Steps};
use std::path::{Path, PathBuf};

/// `--trials`, where given, in place of a file's trial count (1 to 100,000).
pub(crate) fn override_trials(trials: Option<u32>, count: &mut u32) -> anyhow::Result<()> {
    if let Some(n) = trials {
        anyhow::ensure!(
            (1..=100_000).contains(&n),
            "--trials {n}: must be between 1 and 100000"
        );
        *count = n;
    }
    Ok(())
}

/// Runs the file at `path` (`trials` overrides its count) and writes the reports to `out`
/// (default `out/<name>/`), each trial saved as it finishes for `--resume` ([`Resume`]);
/// returns the text table and the directory written.
pub fn run_file(
    path: &Path,
    trials: Option<u32>,
    out: ReportsDir,
    jobs: Option<usize>,
    resume: &Resume<'_>,
) -> anyhow::Result<(String, PathBuf)> {
    let mut exp = serial::experiment::SerialExperiment::load(path)?;
    override_trials(trials, &mut exp.trials)?;
    let (dir, rows) = run_resumable(
        path,
        trials,
        out,
        resume,
        (&exp.name, exp.trials, "summary.json", "seed002-serial"),
        |r| saved_rows::serial_run_saved(&exp, shard::all_units(&exp), jobs, r),
    )?;
    let table = shard::Sharded::write_reports(&exp, &dir, &rows)?;
    finish_resumable(&dir)?;
    Ok((table, dir))
}

/// Runs the energy file (`system = "serial-energy"`) at `path` (`trials` overrides its count) and writes the reports to `out`
/// (default `out/<name>/`), each trial saved as it finishes for `--resume`
/// ([`Resume`]); returns the text table and the directory written.
pub fn run_energy_file(
    path: &Path,
    trials: Option<u32>,
    out: ReportsDir,
    jobs: Option<usize>,
    resume: &Resume<'_>,
) -> anyhow::Result<(String, PathBuf)> {
    let mut exp = energy::experiment::EnergyExperiment::load(path)?;
    override_trials(trials, &mut exp.trials)?;
    let (dir, rows) = run_resumable(
        path,
        trials,
        out,
        resume,
        (&exp.name, exp.trials, "summary.csv", "seed002-energy"),
        |r| saved_rows::energy_run_saved(&exp, shard::all_units(&exp), jobs, r),
    )?;
    let table = shard::Sharded::write_reports(&exp, &dir, &rows)?;
    finish_resumable(&dir)?;
    Ok((table, dir))
}

/// `--resume` and Ctrl-C as a seed 002 experiment takes them.
pub struct Resume<'a> {
    /// `--resume`: run only the trials not saved by an interrupted run.
    pub resume: bool,
    /// Asked before each trial starts: whether to stop, keeping the finished trials.
    pub stop: &'a (dyn Fn() -> bool + Sync),
}

impl Resume<'_> {
    /// Never stops, never resumes: a run from start to end.
    pub const WHOLE: Resume<'static> = Resume {
        resume: false,
        stop: &|| false,
    };
}

/// What a resumable run's trials are given ([`saved_rows::serial_run_saved`]).
pub struct Resumed<'a> {
    /// The saved trials' files.
    pub steps: &'a Steps,
    /// Which trials are saved.
    pub saved: &'a [bool],
    /// Whether to stop.
    pub stop: &'a (dyn Fn() -> bool + Sync),
    /// The trials' progress.
    pub progress: &'a crate::progress::Steps,
}

/// The frame of a resumable seed 002 run of the file at `path`: its results folder checked
/// (`--force`, `--resume`), its saved trials found, progress shown, and `run` given them;
/// then the rows of every trial, or, if stopped, the error saying how to resume. `what` is
/// the experiment's (name, trials, marker report, saved kind).
pub(crate) fn run_resumable<R>(
    path: &Path,
    trials_flag: Option<u32>,
    out: ReportsDir,
    resume: &Resume<'_>,
    (name, trials, marker, kind): (&str, u32, &str, &'static str),
    run: impl FnOnce(&Resumed<'_>) -> anyhow::Result<Option<Vec<R>>>,
) -> anyhow::Result<(PathBuf, Vec<R>)> {
    let force = out.force;
    let dir = ReportsDir {
        dir: out.dir,
        force: force || resume.resume,
    }
    .prepare(name, marker, path)?;
    let steps = Steps {
        dir: dir.join(saved::RUNS_DIR),
        kind,
        hash: saved_rows::identity(path, trials)?,
        steps: trials,
    };
    let flags = Flags {
        resume: resume.resume,
        force,
    };
    let saved = flags.prepare(&dir, marker, &steps)?;
    let before = saved.iter().filter(|s| **s).count() as u32;
    if before > 0 {
        crate::diag!(
            "{name}: {before} of {trials} trials saved; running the other {}",
            trials - before
        );
    }
    let progress = crate::progress::Steps::new(name, "trials", trials as u64, before as u64);
    let r = Resumed {
        steps: &steps,
        saved: &saved,
        stop: resume.stop,
        progress: &progress,
    };
    let rows = run(&r)?;
    progress.finish();
    match rows {
        Some(rows) => Ok((dir, rows)),
        None => {
            let n = steps.saved()?.iter().filter(|s| **s).count();
            Err(saved::stopped(
                n,
                &steps,
                "trials",
                &format!(
                    "kairos experiment {} --out {}{}",
                    path.display(),
                    dir.display(),
                    trials_flag.map_or(String::new(), |n| format!(" --trials {n}"))
                ),
            ))
        }
    }
}

/// Once a resumable run's reports are written: its saved trials have served, and go.
pub(crate) fn finish_resumable(dir: &Path) -> anyhow::Result<()> {
    let runs = dir.join(saved::RUNS_DIR);
    if runs.exists() {
        std::fs::remove_dir_all(&runs).map_err(|e| {
            anyhow::anyhow!("{}: cannot remove the saved trials: {e}", runs.display())
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;

/// Where a seed 002 run writes its reports: `dir` (`--out`), or `out/<name>/` by default.
/// The folder is checked before any work ([`crate::output::prepare_dir_marked`]): one
/// holding an earlier run's reports (the marker file, written last) is refused unless
/// `force`.
pub struct ReportsDir {
    /// The folder given by `--out`.
    pub dir: Option<PathBuf>,
    /// `--force`: overwrite an earlier run's reports.
    pub force: bool,
}

impl ReportsDir {
    /// The folder for the experiment `name`, created and checked; `marker` is the report
    /// written last, `input` the experiment file (refused where a report could overwrite
    /// it). A pareto run's checkpoint files (`fronts*`, `timings.csv`, written before its
    /// marker) mark the folder as taken too.
    pub(crate) fn prepare(self, name: &str, marker: &str, input: &Path) -> anyhow::Result<PathBuf> {
        let dir = self.dir.unwrap_or_else(|| Path::new("out").join(name));
        let earlier: &[&str] = if marker == "coverage.csv" {
            &["fronts", "timings.csv"]
        } else {
            &[]
        };
        crate::output::prepare_reports_dir(&dir, self.force, marker, &[input], earlier)?;
        Ok(dir)
    }
}

/// `--state DIR` (and `--resume`) as the run's state folder.
fn state_dir(
    state: Option<(PathBuf, bool)>,
    name: &str,
) -> anyhow::Result<Option<pareto::state::StateDir>> {
    let Some((dir, resume)) = state else {
        return Ok(None);
    };
    if resume {
        pareto::state::check_resume(&dir)?;
    }
    Ok(Some(pareto::state::StateDir {
        dir,
        resume,
        name: name.to_string(),
    }))
}

/// Runs the Pareto file at `path` (`checkpoints` overrides its checkpoints) and writes the
/// reports to `out` (default `out/<name>/`): each checkpoint's fronts as the run reaches it
/// ([`pareto::checkpoints`]), then every report, `coverage.csv` last. `state`: the folder
/// the populations' states are saved to at each checkpoint ([`pareto::state`]) and whether
/// to resume from it. Returns the text summary and the directory.
pub fn run_pareto_file(
    path: &Path,
    checkpoints: Option<Vec<u64>>,
    out: ReportsDir,
    jobs: Option<usize>,
    state: Option<(PathBuf, bool)>,
    progress: &(dyn Fn(&pareto::checkpoints::Progress) + Sync),
) -> anyhow::Result<(String, PathBuf)> {
    use pareto::checkpoints::{Reached, Watch};
    let override_checkpoints = |c: Option<Vec<u64>>, into: &mut Vec<u64>| {
        if let Some(c) = c {
            anyhow::ensure!(
                !c.is_empty() && c.windows(2).all(|w| w[0] < w[1]),
                "--checkpoints: give increasing generation counts, e.g. 0,100,1000"
            );
            let most = crate::limits::MAX_GENERATIONS;
            if let Some(g) = c.iter().find(|g| **g > most) {
                anyhow::bail!("--checkpoints {g}: at most {most} generations");
            }
            *into = c;
        }
        Ok(())
    };
    if pareto::stochastic_run::is_stochastic(path) {
        let mut exp = pareto::stochastic_run::StochasticExperiment::load(path)?;
        override_checkpoints(checkpoints, &mut exp.checkpoints)?;
        let dir = out.prepare(&exp.name, "coverage.csv", path)?;
        let reached = Reached::start(
            &dir,
            "coverage.csv",
            |f: &pareto::stochastic_run::SFront| (f.score, f.generation),
        )?;
        let front = |f: &pareto::stochastic_run::SFront| {
            reached.add(f, |d, v| pareto::stochastic_run::write_reached(d, &exp, v))
        };
        let state = state_dir(state, &exp.name)?;
        let watch = Watch {
            progress,
            front: &front,
            state: state.as_ref(),
        };
        let (insts, fronts) = pareto::stochastic_run::run(&exp, jobs, &watch)?;
        let clouds = pareto::stochastic_run::clouds(&exp, &insts, &fronts);
        let table = pareto::stochastic_run::write_all(&dir, &exp, &fronts, &clouds)?;
        return Ok((table, dir));
    }
    let mut exp = pareto::experiment::ParetoExperiment::load(path)?;
    override_checkpoints(checkpoints, &mut exp.checkpoints)?;
    let (_, inst) = exp.instance()?;
    let dir = out.prepare(&exp.name, "coverage.csv", path)?;
    let reached = Reached::start(&dir, "coverage.csv", |f: &pareto::experiment::Front| {
        (f.population, f.generation)
    })?;
    let front = |f: &pareto::experiment::Front| {
        reached.add(f, |d, v| pareto::report::write_reached(d, &exp, &inst, v))
    };
    let state = state_dir(state, &exp.name)?;
    let watch = Watch {
        progress,
        front: &front,
        state: state.as_ref(),
    };
    let fronts = pareto::experiment::run(&exp, &inst, jobs, &watch)?;
    pareto::report::write_all(&dir, &exp, &inst, &fronts)?;
    Ok((pareto::report::text_table(&exp, &inst, &fronts), dir))
}

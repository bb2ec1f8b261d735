//! A resumable experiment: the runs are saved as they finish, one trial's runs to a file,
//! so an interrupted `kairos experiment` (Ctrl-C, a kill, a lost machine) loses at most the
//! trials in progress, and `--resume` runs only the trials not saved.
//!
//! The per-trial files are shard files ([`crate::shard::experiment`]): trial `t` of an
//! experiment of `n` trials is slice `t + 1` of `n` of its runs (the runs are numbered
//! trial-major, so that slice is exactly the trial's configurations), written atomically to
//! `<out>/runs/shard-K-of-N.shard` once every configuration of the trial has finished. The
//! reports are then the merge of those files, the same code as `kairos merge`, so an
//! uninterrupted run, a resumed one and a sharded one give byte-identical reports
//! (`timing.json` aside: it records wall times).
//!
//! Once the reports are written, `kairos experiment` removes the per-trial files.
//!
//! Trials run in groups of one per thread, in parallel as [`runner::run_slice`] runs them;
//! between groups the `stop` callback is asked whether to stop (the Ctrl-C handler).

use super::runner::{self, Outcome, Progress};
use super::Experiment;
use crate::shard::{self, Slice};
use std::path::{Path, PathBuf};

/// The folder of the per-trial files inside an experiment's results folder.
pub const RUNS_DIR: &str = "runs";

/// The per-trial file of trial `t` of `exp` in `runs_dir`.
pub fn trial_file(exp: &Experiment, runs_dir: &Path, t: u32) -> PathBuf {
    runs_dir.join(
        Slice {
            k: t + 1,
            n: exp.trials,
        }
        .file_name(),
    )
}

/// The trials of `exp` whose per-trial file is in `runs_dir`.
pub fn saved_trials(exp: &Experiment, runs_dir: &Path) -> Vec<u32> {
    (0..exp.trials)
        .filter(|&t| trial_file(exp, runs_dir, t).is_file())
        .collect()
}

/// Checks, before a `--resume` runs anything, that the trials saved in `runs_dir` are
/// trials of `exp` as it is now: the same experiment and scenario files and the same trial
/// count (the identity a shard records, [`shard::experiment::identity`]). Otherwise the
/// resume would run trials that cannot be merged with the saved ones, or, with another
/// `--trials`, not see the saved ones at all and delete them once its reports were written:
/// refused, with the saved trials left as they are.
pub fn check_saved(exp: &Experiment, runs_dir: &Path) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(runs_dir) else {
        return Ok(());
    };
    let now = shard::experiment::identity(exp)?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "shard"))
        .collect();
    files.sort();
    for f in &files {
        let saved = shard::experiment::read(f)?;
        if saved.trials != exp.trials {
            anyhow::bail!(
                "{}: holds {} saved trial file(s) of a run of {} trials, not {}; resume it \
                 with --trials {} (or without --trials, if the file says {}), or pass --force \
                 to start again (which deletes them)",
                runs_dir.display(),
                files.len(),
                saved.trials,
                exp.trials,
                saved.trials,
                saved.trials
            );
        }
        if saved.hash != now {
            anyhow::bail!(
                "{}: the experiment (or its scenario) changed since this trial was saved \
                 (hash {} then, {now} now); restore the file the trials ran from to resume \
                 them, or pass --force to start again (which deletes them)",
                f.display(),
                saved.hash
            );
        }
    }
    Ok(())
}

/// How a resumable experiment ended.
pub enum Ended {
    /// Every trial ran (or was saved already): the experiment as the files name it and the
    /// merged outcome.
    Complete(Box<Experiment>, Outcome),
    /// `stop` said to stop: this many trials of the experiment are saved.
    Stopped {
        /// Trials saved.
        saved: u32,
    },
}

/// Runs the trials of `exp` not saved in `runs_dir` (created if needed), saving each as it
/// finishes, on `jobs` threads (`None`: one per core); then merges every trial's file.
/// `stop` is asked between groups of trials.
pub fn run(
    exp: &Experiment,
    runs_dir: &Path,
    jobs: Option<usize>,
    progress: &dyn Progress,
    stop: &dyn Fn() -> bool,
) -> anyhow::Result<Ended> {
    let saved = saved_trials(exp, runs_dir);
    let pending: Vec<u32> = (0..exp.trials).filter(|t| !saved.contains(t)).collect();
    let group = jobs.unwrap_or_else(rayon::current_num_threads).max(1);
    let configs = exp.configs.len() as u64;
    let mut done = saved.len() as u32;
    let mut i = 0;
    while i < pending.len() {
        if stop() {
            return Ok(Ended::Stopped { saved: done });
        }
        // A contiguous run of pending trials, at most `group` long.
        let first = pending[i];
        let mut end = i + 1;
        while end < pending.len() && end - i < group && pending[end] == pending[end - 1] + 1 {
            end += 1;
        }
        let last = pending[end - 1];
        let runs = first as u64 * configs..(last as u64 + 1) * configs;
        let out = runner::run_slice(exp, runs, jobs, progress)?;
        let n = (last - first + 1) as usize;
        for t in first..=last {
            let k = (t - first) as usize;
            let one = Outcome {
                rows: out
                    .rows
                    .iter()
                    .filter(|r| r.summary.trial == t)
                    .cloned()
                    .collect(),
                failures: out
                    .failures
                    .iter()
                    .filter(|f| f.trial == t)
                    .cloned()
                    .collect(),
                generate_s: out.generate_s.get(k).copied().into_iter().collect(),
                wall_s: out.wall_s / n as f64,
                jobs: out.jobs,
            };
            let slice = Slice {
                k: t + 1,
                n: exp.trials,
            };
            shard::experiment::write(&trial_file(exp, runs_dir, t), exp, slice, &one)?;
        }
        done += n as u32;
        i = end;
    }
    let files: Vec<PathBuf> = (0..exp.trials)
        .map(|t| trial_file(exp, runs_dir, t))
        .collect();
    // Each file holds its share of its group's wall time: their sum is the experiment's,
    // resumed sessions included.
    let (merged, outcome) = shard::experiment::merge_with(
        &files,
        Some(&exp.file),
        shard::experiment::Walls::OneAfterAnother,
    )?;
    Ok(Ended::Complete(Box::new(merged), outcome))
}

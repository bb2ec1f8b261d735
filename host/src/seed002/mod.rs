//! Seed 002's serial system on the host (dissertation Chapter 2): the generator
//! ([`generate`]), one run through the core's serial event loop ([`run`]), experiment files
//! and their reports ([`experiment`], [`report`]).
//!
//! The online decisions live in `kairos_core::serial`; this module draws the trials,
//! allocates the core's storage, and aggregates results over trials.

pub mod energy_env;
pub mod energy_experiment;
pub mod experiment;
pub mod generate;
pub mod report;
pub mod run;

use std::path::{Path, PathBuf};

/// Runs the file at `path` (`trials` overrides its count) and writes the reports to `out`
/// (default `out/<name>/`); returns the text table and the directory written.
pub fn run_file(
    path: &Path,
    trials: Option<u32>,
    out: Option<PathBuf>,
    jobs: Option<usize>,
    progress: &(dyn Fn(u32) + Sync),
) -> anyhow::Result<(String, PathBuf)> {
    let mut exp = experiment::SerialExperiment::load(path)?;
    if let Some(n) = trials {
        anyhow::ensure!(
            (1..=100_000).contains(&n),
            "--trials {n}: must be between 1 and 100000"
        );
        exp.trials = n;
    }
    let rows = experiment::run(&exp, jobs, progress)?;
    let dir = out.unwrap_or_else(|| Path::new("out").join(&exp.name));
    report::write_all(&dir, &exp, &rows)?;
    Ok((report::text_table(&exp, &rows), dir))
}

#[cfg(test)]
mod tests;

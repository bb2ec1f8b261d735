//! The fan-out of Chapters 2-4's experiment files: every configuration on every trial, in
//! parallel on a pool of the asked size, the rows handed back in (configuration, trial)
//! order whatever the thread count, so that the reports are the same on any machine;
//! [`run_grid_saved`] saves each trial's rows as it finishes, for `--resume`
//! ([`crate::experiment::saved`]).

use crate::experiment::saved::{Rows, Steps};
use anyhow::Context;
use rayon::prelude::*;

/// Runs `run(&trial_data, config, trial)` for every configuration `0..configs` on every
/// trial `0..trials` on `jobs` threads (`None`: one per core). `trial(t)` draws trial `t`'s
/// data once for all its configurations; `progress` is told each finished trial. The first
/// error (in no particular order) is returned and the other rows are dropped.
pub(crate) fn run_grid<T, R>(
    trials: u32,
    configs: usize,
    jobs: Option<usize>,
    progress: &(dyn Fn(u32) + Sync),
    trial: impl Fn(u32) -> T + Sync,
    run: impl Fn(&T, usize, u32) -> anyhow::Result<R> + Sync,
) -> anyhow::Result<Vec<R>>
where
    T: Sync,
    R: Send,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .context("starting the worker threads")?;
    let per_trial: Vec<Vec<R>> = pool.install(|| {
        (0..trials)
            .into_par_iter()
            .map(|t| {
                let data = trial(t);
                let rows = (0..configs)
                    .into_par_iter()
                    .map(|i| run(&data, i, t))
                    .collect::<anyhow::Result<Vec<R>>>()?;
                progress(t);
                Ok(rows)
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    // per_trial[t][i] -> rows by configuration, then trial.
    let mut columns: Vec<std::vec::IntoIter<R>> =
        per_trial.into_iter().map(Vec::into_iter).collect();
    let mut rows = Vec::with_capacity(configs * columns.len());
    for _ in 0..configs {
        for column in &mut columns {
            rows.extend(column.next());
        }
    }
    Ok(rows)
}

/// How [`run_grid_saved`] saves and reads back a trial's rows.
pub(crate) struct Saving<'a, R> {
    /// The run's saved steps: one a trial.
    pub steps: &'a Steps,
    /// Which trials are saved already (not run again).
    pub saved: &'a [bool],
    /// The columns of a saved row.
    pub columns: &'a [&'a str],
    /// A row's fields, as [`Saving::columns`] names them.
    pub fields: fn(&R) -> Vec<String>,
    /// Row `i` of a saved trial's rows, read back.
    pub parse: fn(&Rows, usize) -> anyhow::Result<R>,
    /// A row's (configuration, trial).
    pub key: fn(&R) -> (usize, u32),
    /// Asked before each trial starts: whether to stop (Ctrl-C).
    pub stop: &'a (dyn Fn() -> bool + Sync),
    /// Told each finished trial.
    pub progress: &'a crate::progress::Steps,
}

/// [`run_grid`] over the trials not saved, each saved as it finishes; once every trial is
/// saved, the rows of all of them as read back from their files, by (configuration,
/// trial): the same rows whether the run was interrupted or not. `None`: stopped before
/// every trial ran (the trials that finished are saved). A trial that fails is an error
/// (the trials that finished are saved).
pub(crate) fn run_grid_saved<T, R>(
    trials: u32,
    configs: usize,
    jobs: Option<usize>,
    trial: impl Fn(u32) -> T + Sync,
    run: impl Fn(&T, usize, u32) -> anyhow::Result<R> + Sync,
    s: &Saving<'_, R>,
) -> anyhow::Result<Option<Vec<R>>>
where
    T: Sync,
    R: Send,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .context("starting the worker threads")?;
    let pending: Vec<u32> = (0..trials)
        .filter(|&t| !s.saved.get(t as usize).copied().unwrap_or(false))
        .collect();
    let ran: Vec<bool> = pool.install(|| {
        pending
            .into_par_iter()
            .map(|t| {
                if (s.stop)() {
                    return Ok(false);
                }
                let data = trial(t);
                let rows = (0..configs)
                    .into_par_iter()
                    .map(|i| run(&data, i, t))
                    .collect::<anyhow::Result<Vec<R>>>()?;
                let text: Vec<Vec<String>> = rows.iter().map(s.fields).collect();
                s.steps.write(t, s.columns, &text)?;
                s.progress.add(1);
                Ok(true)
            })
            .collect::<anyhow::Result<Vec<bool>>>()
    })?;
    if ran.iter().any(|r| !r) {
        return Ok(None);
    }
    let mut columns = Vec::with_capacity(trials as usize);
    for t in 0..trials {
        let rows = s.steps.read(t, s.columns)?;
        if rows.len() != configs {
            return Err(anyhow::anyhow!(
                "{}: {} rows, expected one per configuration ({configs})",
                s.steps.file(t).display(),
                rows.len()
            ));
        }
        let mut here = Vec::with_capacity(configs);
        for i in 0..configs {
            let r = (s.parse)(&rows, i)?;
            if (s.key)(&r) != (i, t) {
                let (c, tt) = (s.key)(&r);
                return Err(rows.error(
                    i,
                    format!(
                        "configuration {c} of trial {tt}, expected configuration {i} of trial {t}"
                    ),
                ));
            }
            here.push(r);
        }
        columns.push(here.into_iter());
    }
    let mut rows = Vec::with_capacity(configs * columns.len());
    for _ in 0..configs {
        for column in &mut columns {
            rows.extend(column.next());
        }
    }
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::run_grid;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn rows_come_by_configuration_then_trial_on_any_thread_count() {
        for jobs in [1, 2, 3] {
            let told = AtomicU32::new(0);
            let rows = run_grid(
                5,
                3,
                Some(jobs),
                &|_| {
                    told.fetch_add(1, Ordering::Relaxed);
                },
                |t| t * 10,
                |data, i, t| Ok((i, t, *data)),
            )
            .unwrap();
            let want: Vec<(usize, u32, u32)> = (0..3)
                .flat_map(|i| (0..5).map(move |t| (i, t, t * 10)))
                .collect();
            assert_eq!(rows, want, "jobs {jobs}");
            assert_eq!(told.load(Ordering::Relaxed), 5);
        }
    }

    #[test]
    fn an_error_is_returned() {
        let r = run_grid(
            4,
            2,
            Some(2),
            &|_| {},
            |t| t,
            |_, i, t| {
                if (i, t) == (1, 2) {
                    anyhow::bail!("config 1 on trial 2")
                }
                Ok(())
            },
        );
        assert_eq!(r.unwrap_err().to_string(), "config 1 on trial 2");
    }
}

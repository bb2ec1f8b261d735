//! The fan-out of Chapters 2-4's experiment files: every configuration on every trial, in
//! parallel on a pool of the asked size, the rows handed back in (configuration, trial)
//! order whatever the thread count, so that the reports are the same on any machine;
//! [`run_grid_saved`] saves each trial's rows as it finishes, for `--resume`
//! ([`crate::experiment::saved`]).

use crate::experiment::saved::{Rows, Steps};
use anyhow::Context;
use rayon::prelude::*;
use std::ops::Range;

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

/// How a row is saved as text and read back ([`crate::seed002::saved_rows`]).
pub(crate) struct RowCodec<R: 'static> {
    /// The columns of a saved row.
    pub columns: &'static [&'static str],
    /// A row's fields, as [`RowCodec::columns`] names them.
    pub fields: fn(&R) -> Vec<String>,
    /// Row `i` of saved rows, read back.
    pub parse: fn(&Rows, usize) -> anyhow::Result<R>,
    /// A row's (configuration, trial).
    pub key: fn(&R) -> (usize, u32),
}

/// How [`run_grid_saved`] saves and reads back a trial's rows.
pub(crate) struct Saving<'a, R: 'static> {
    /// The run's saved steps: one a trial.
    pub steps: &'a Steps,
    /// Which trials are saved already (not run again).
    pub saved: &'a [bool],
    /// How a row is saved.
    pub codec: &'a RowCodec<R>,
    /// Asked before each trial starts: whether to stop (Ctrl-C).
    pub stop: &'a (dyn Fn() -> bool + Sync),
    /// Told each finished trial.
    pub progress: &'a crate::progress::Steps,
}

/// The (configuration, trial) units of a grid of `configs` configurations, numbered
/// trial-major (unit `trial x configs + config`, as seed 000 numbers its runs), that a range
/// of units holds: each trial it touches, with the configurations of that trial it holds.
/// A contiguous range thus draws each trial it touches once.
pub(crate) fn trials_of(units: &Range<u64>, configs: usize) -> Vec<(u32, Range<usize>)> {
    let c = configs as u64;
    if units.is_empty() || c == 0 {
        return Vec::new();
    }
    let first = units.start / c;
    let last = (units.end - 1) / c;
    (first..=last)
        .map(|t| {
            let lo = units.start.max(t * c) - t * c;
            let hi = units.end.min((t + 1) * c) - t * c;
            (t as u32, lo as usize..hi as usize)
        })
        .collect()
}

/// [`run_grid`] over the units of `units` (numbered as [`trials_of`] says; `0..trials x
/// configs` for a whole run) whose trials are not saved, each trial's rows saved as it
/// finishes; once every trial is saved, the rows of all of them as read back from their
/// files, by (configuration, trial): the same rows whether the run was interrupted or not.
/// `None`: stopped before every trial ran (the trials that finished are saved). A trial
/// that fails is an error (the trials that finished are saved).
pub(crate) fn run_grid_saved<T, R>(
    configs: usize,
    units: Range<u64>,
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
    let touched = trials_of(&units, configs);
    let pending: Vec<(u32, Range<usize>)> = touched
        .iter()
        .filter(|(t, _)| !s.saved.get(*t as usize).copied().unwrap_or(false))
        .cloned()
        .collect();
    let codec = s.codec;
    let ran: Vec<bool> = pool.install(|| {
        pending
            .into_par_iter()
            .map(|(t, held)| {
                if (s.stop)() {
                    return Ok(false);
                }
                let data = trial(t);
                let rows = held
                    .into_par_iter()
                    .map(|i| run(&data, i, t))
                    .collect::<anyhow::Result<Vec<R>>>()?;
                let text: Vec<Vec<String>> = rows.iter().map(codec.fields).collect();
                s.steps.write(t, codec.columns, &text)?;
                s.progress.add(1);
                Ok(true)
            })
            .collect::<anyhow::Result<Vec<bool>>>()
    })?;
    if ran.iter().any(|r| !r) {
        return Ok(None);
    }
    let mut all = Vec::with_capacity((units.end - units.start) as usize);
    for (t, held) in touched {
        let rows = s.steps.read(t, codec.columns)?;
        if rows.len() != held.len() {
            return Err(anyhow::anyhow!(
                "{}: {} rows, expected one per configuration {}..{} of trial {t}",
                s.steps.file(t).display(),
                rows.len(),
                held.start,
                held.end
            ));
        }
        for (k, i) in held.enumerate() {
            let r = (codec.parse)(&rows, k)?;
            if (codec.key)(&r) != (i, t) {
                let (c, tt) = (codec.key)(&r);
                return Err(rows.error(
                    k,
                    format!(
                        "configuration {c} of trial {tt}, expected configuration {i} of trial {t}"
                    ),
                ));
            }
            all.push(r);
        }
    }
    // By (configuration, trial), the order of the reports' rows.
    all.sort_by_key(|r| (codec.key)(r));
    Ok(Some(all))
}

#[cfg(test)]
mod tests {
    use super::{run_grid, trials_of};

    #[test]
    fn a_range_of_units_names_its_trials_and_their_configurations() {
        // 3 configurations: units 0-2 are trial 0, 3-5 trial 1, 6-8 trial 2.
        assert_eq!(trials_of(&(0..9), 3), vec![(0, 0..3), (1, 0..3), (2, 0..3)]);
        assert_eq!(trials_of(&(2..7), 3), vec![(0, 2..3), (1, 0..3), (2, 0..1)]);
        assert_eq!(trials_of(&(4..5), 3), vec![(1, 1..2)]);
        assert!(trials_of(&(4..4), 3).is_empty());
    }
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

//! A Pareto run's reports as it goes, and its progress. Each population hands over its
//! front the moment it reaches a checkpoint, and the fronts reached so far are written at
//! once, every file whole (`crate::output::write_atomic`): a run stopped after a checkpoint
//! (killed, out of time, a machine going down during a million generations) keeps that
//! checkpoint's fronts. The run's marker (`coverage.csv`, written last by the final reports)
//! is removed before the first front is written, so a folder without it holds a partial
//! run, never an earlier run's marker beside this run's fronts.
//!
//! The fronts so far are kept in the final reports' order (population, then checkpoint), so
//! each file written on the way holds exactly the rows the final file will start with, and
//! the final files are the same bytes as a run that wrote nothing on the way.

use crate::nsga2::{Nsga2, Problem};
use crate::seed002::pareto::state::{GeneBytes, StateDir};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often a population still short of its next checkpoint reports its generation.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(30);

/// When a population first reports its generation: soon, so a long run says within seconds
/// how long it will take (its estimate), then every [`PROGRESS_EVERY`].
pub const FIRST_PROGRESS: Duration = Duration::from_secs(3);

/// Where one population stands: sent at each checkpoint and every [`PROGRESS_EVERY`]
/// between them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// The population's index.
    pub population: usize,
    /// Generations run.
    pub generation: u64,
    /// The run's last checkpoint (the generations it will run in all).
    pub last: u64,
    /// Wall time since the population started.
    pub elapsed: Duration,
    /// Whether `generation` is a checkpoint whose front has just been recorded.
    pub checkpoint: bool,
}

impl Progress {
    /// The time left to the last checkpoint at the population's average rate so far (None
    /// before its first generation). Later generations of a converging population are often
    /// cheaper, so this tends to overestimate.
    pub fn eta(&self) -> Option<Duration> {
        if self.generation == 0 {
            return None;
        }
        let left = self.last.saturating_sub(self.generation) as f64;
        Some(self.elapsed.mul_f64(left / self.generation as f64))
    }
}

/// A generation's tick: calls `progress` with the generation [`FIRST_PROGRESS`] after
/// `start`, then every [`PROGRESS_EVERY`].
pub(crate) fn ticker(mut progress: impl FnMut(u64), start: Instant) -> impl FnMut(u64) {
    let mut next = start + FIRST_PROGRESS;
    move |g| {
        let now = Instant::now();
        if now >= next {
            progress(g);
            next = now + PROGRESS_EVERY;
        }
    }
}

/// Evolves population `p` (`ga`, started at `start`) to each of `checkpoints` in turn,
/// reporting its progress to `watch` between and at them; at each, `front` makes the
/// population's front and `watch.front` hears of it at once. Returns the fronts in order.
///
/// With a state folder (`watch.state`), the population first resumes from its saved state
/// if asked (every checkpoint must then lie beyond it), and its state is saved at each
/// checkpoint.
pub(crate) fn evolve_to_checkpoints<P: Problem, F>(
    ga: &mut Nsga2<'_, P>,
    p: usize,
    checkpoints: &[u64],
    watch: &Watch<'_, F>,
    start: Instant,
    mut front: impl FnMut(&Nsga2<'_, P>, u64) -> F,
) -> anyhow::Result<Vec<F>>
where
    P::Gene: GeneBytes,
{
    if let Some(state) = watch.state {
        let from = state.restore(p, ga)?;
        if let Some(&cp) = checkpoints.iter().find(|&&cp| cp <= from && state.resume) {
            anyhow::bail!(
                "--checkpoints {cp}: population {p} resumes from generation {from}; give only \
                 later checkpoints"
            );
        }
    }
    let last = *checkpoints.last().unwrap_or(&0);
    let at = |generation, checkpoint| Progress {
        population: p,
        generation,
        last,
        elapsed: start.elapsed(),
        checkpoint,
    };
    let mut out = Vec::new();
    for &cp in checkpoints {
        ga.evolve(
            cp,
            ticker(|g| (watch.progress)(&at(g, false)), Instant::now()),
        );
        let f = front(ga, cp);
        (watch.front)(&f)?;
        if let Some(state) = watch.state {
            state.save(p, ga)?;
        }
        out.push(f);
        (watch.progress)(&at(cp, true));
    }
    Ok(out)
}

/// What a run tells its caller as it goes: `progress` at each checkpoint and every
/// [`PROGRESS_EVERY`] between, `front` with each
/// front the moment its population reaches the checkpoint (an error stops the run).
pub struct Watch<'a, F> {
    /// Where a population stands.
    pub progress: &'a (dyn Fn(&Progress) + Sync),
    /// A front just reached.
    pub front: &'a (dyn Fn(&F) -> anyhow::Result<()> + Sync),
    /// Where the populations' states are saved (and resumed from), if anywhere.
    pub state: Option<&'a StateDir>,
}

impl<F> Watch<'_, F> {
    /// Nothing reported.
    pub fn none() -> Watch<'static, F> {
        Watch {
            progress: &|_| {},
            front: &|_| Ok(()),
            state: None,
        }
    }
}

/// The fronts reached so far, and the folder they are written to.
pub(crate) struct Reached<T> {
    dir: PathBuf,
    key: fn(&T) -> (usize, u64),
    so_far: Mutex<Vec<T>>,
}

impl<T: Clone> Reached<T> {
    /// Starts a run's partial reports in `dir`: removes `marker` (an earlier run's, under
    /// `--force`) so the folder reads as partial until the final reports. `key` is a
    /// front's (population, generation).
    pub(crate) fn start(
        dir: &Path,
        marker: &str,
        key: fn(&T) -> (usize, u64),
    ) -> anyhow::Result<Reached<T>> {
        let m = dir.join(marker);
        if m.exists() {
            std::fs::remove_file(&m)
                .with_context(|| format!("{}: cannot remove the earlier run's", m.display()))?;
        }
        Ok(Reached {
            dir: dir.to_path_buf(),
            key,
            so_far: Mutex::new(Vec::new()),
        })
    }

    /// Records `front` and writes the reports of every front so far with `write`, while
    /// holding the lock: files are written in the order fronts arrive, each whole.
    pub(crate) fn add(
        &self,
        front: &T,
        write: impl FnOnce(&Path, &[T]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut v = self.so_far.lock().unwrap_or_else(PoisonError::into_inner);
        let k = (self.key)(front);
        let at = v.partition_point(|f| (self.key)(f) < k);
        v.insert(at, front.clone());
        write(&self.dir, &v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_scales_the_rate_so_far() {
        let p = Progress {
            population: 0,
            generation: 250,
            last: 1000,
            elapsed: Duration::from_secs(10),
            checkpoint: false,
        };
        assert_eq!(p.eta(), Some(Duration::from_secs(30)));
        assert_eq!(Progress { generation: 0, ..p }.eta(), None);
        assert_eq!(
            Progress {
                generation: 1000,
                ..p
            }
            .eta(),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn fronts_are_kept_by_population_then_generation_and_the_marker_goes_first() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("coverage.csv"), "old").unwrap();
        let r: Reached<(usize, u64)> = Reached::start(dir.path(), "coverage.csv", |f| *f).unwrap();
        assert!(!dir.path().join("coverage.csv").exists());
        let mut seen = Vec::new();
        for f in [(1, 0), (0, 0), (1, 10), (0, 10)] {
            r.add(&f, |d, v| {
                assert_eq!(d, dir.path());
                seen.push(v.to_vec());
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(seen[1], vec![(0, 0), (1, 0)]);
        assert_eq!(seen[3], vec![(0, 0), (0, 10), (1, 0), (1, 10)]);
        // A write that fails is the run's error.
        assert!(r.add(&(2, 0), |_, _| anyhow::bail!("disk full")).is_err());
    }

    #[test]
    fn the_ticker_reports_after_the_interval_only() {
        let mut calls = Vec::new();
        let mut tick = ticker(|g| calls.push(g), Instant::now());
        for g in 1..=7 {
            tick(g);
        }
        drop(tick);
        assert!(calls.is_empty());
        // The first report comes FIRST_PROGRESS in, not PROGRESS_EVERY.
        let start = Instant::now().checked_sub(FIRST_PROGRESS).unwrap();
        let mut tick = ticker(|g| calls.push(g), start);
        tick(8);
        tick(9);
        drop(tick);
        assert_eq!(calls, vec![8]);
    }
}

//! A replay a user can analyse: which jobs of a log to replay ([`select`]: the first N, or a
//! window of submit times), and what their schedule says beyond the summary's means
//! ([`analyse`]): wait and bounded slowdown as means and p50/p90/p99, overall and by job
//! size and length class, with a bounded-slowdown threshold of the caller's choosing, a
//! warm-up and cool-down cut, and the utilisation over the measured window. `plots.rs`
//! draws utilisation and queue length over time as SVG ([`plots::utilisation_svg`],
//! [`plots::queue_svg`]); per-job Gantt charts are left to evalys, which reads the Batsim
//! jobs file ([`crate::batsim`]).
//!
//! # Definitions
//! - The measured jobs are those submitted in `[first submit + warm-up, last submit -
//!   cool-down]`; the metrics are theirs. The utilisation is the processor-time used by
//!   every job inside that window of time over the machine's processor-time in it.
//! - Bounded slowdown: `max(1, (wait + run) / max(run, bound))`.
//! - Percentiles are nearest-rank (the smallest value with at least p% of the jobs at or
//!   below it).
//! - Size classes by processors: 1, 2-4, 5-16, 17-64, 65-256, 257+. Length classes by run
//!   time: under 1 min, 1-10 min, 10 min-1 h, 1-10 h, 10 h+. Empty classes are left out.

pub mod plots;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::swf::ReplayJob;
use crate::trace::JobRecord;

/// Which jobs of a log to replay: the first `first` by submit time, and/or those submitted
/// in `[window.0, window.1)` (seconds of the log, microseconds here). The window applies
/// first. Errors when nothing is left.
pub fn select(
    mut jobs: Vec<ReplayJob>,
    first: Option<usize>,
    window: Option<(u64, u64)>,
) -> Result<Vec<ReplayJob>, String> {
    if let Some((a, b)) = window {
        if a >= b {
            return Err(format!(
                "--window {} {}: the start must be before the end",
                a / 1_000_000,
                b / 1_000_000
            ));
        }
        jobs.retain(|j| a <= j.submit && j.submit < b);
    }
    if let Some(n) = first {
        jobs.sort_by_key(|j| (j.submit, j.line));
        jobs.truncate(n);
    }
    if jobs.is_empty() {
        return Err("no job of the log is selected (--first, --window)".to_string());
    }
    Ok(jobs)
}

/// How to measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalysisOptions {
    /// The bounded slowdown's lower bound on the run time, microseconds.
    pub bsld_bound: u64,
    /// Jobs submitted this long after the first are left out of the metrics.
    pub warmup: u64,
    /// Jobs submitted this long before the last are left out of the metrics.
    pub cooldown: u64,
}

impl Default for AnalysisOptions {
    /// A 10 s bound, no cut.
    fn default() -> Self {
        AnalysisOptions {
            bsld_bound: crate::trace::BSLD_BOUND_US,
            warmup: 0,
            cooldown: 0,
        }
    }
}

/// A distribution's mean and percentiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Distribution {
    /// Mean.
    pub mean: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

impl Distribution {
    /// The distribution of `values` (sorted here).
    pub fn of(values: &mut [f64]) -> Distribution {
        // A total order: equal values are the same bits, so an unstable sort gives the
        // same slice (and the same sum in its order), sooner.
        values.sort_unstable_by(f64::total_cmp);
        Distribution::of_sorted(values)
    }

    /// The distribution of `values`, sorted by [`f64::total_cmp`].
    fn of_sorted(values: &[f64]) -> Distribution {
        if values.is_empty() {
            return Distribution::default();
        }
        let rank = |p: f64| {
            let r = libm::ceil(p * values.len() as f64) as usize;
            values[r.clamp(1, values.len()) - 1]
        };
        Distribution {
            mean: values.iter().sum::<f64>() / values.len() as f64,
            p50: rank(0.5),
            p90: rank(0.9),
            p99: rank(0.99),
            max: values[values.len() - 1],
        }
    }
}

/// The metrics of one class of jobs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassMetrics {
    /// The class (`2-4`, `10 min-1 h`).
    pub class: &'static str,
    /// Measured jobs in it.
    pub jobs: usize,
    /// Wait, seconds.
    pub wait_s: Distribution,
    /// Bounded slowdown.
    pub bsld: Distribution,
}

/// What a replay's schedule says over its measured window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analysis {
    /// The bounded slowdown's bound, seconds.
    pub bsld_bound_s: f64,
    /// Start of the measured window (first submit + warm-up), seconds of the log.
    pub window_start_s: f64,
    /// End of the measured window (last submit - cool-down), seconds of the log.
    pub window_end_s: f64,
    /// Jobs measured (submitted in the window).
    pub jobs: usize,
    /// Wait, seconds.
    pub wait_s: Distribution,
    /// Bounded slowdown.
    pub bsld: Distribution,
    /// Processor-time used in the window over the machine's processor-time in it.
    pub utilization: f64,
    /// By size class (processors).
    pub by_size: Vec<ClassMetrics>,
    /// By length class (run time).
    pub by_length: Vec<ClassMetrics>,
}

/// Size classes: upper bound (processors, inclusive) and name.
const SIZE: [(u32, &str); 6] = [
    (1, "1"),
    (4, "2-4"),
    (16, "5-16"),
    (64, "17-64"),
    (256, "65-256"),
    (u32::MAX, "257+"),
];

/// Length classes: upper bound (run time, exclusive, microseconds) and name.
const LENGTH: [(u64, &str); 5] = [
    (60_000_000, "under 1 min"),
    (600_000_000, "1-10 min"),
    (3_600_000_000, "10 min-1 h"),
    (36_000_000_000, "1-10 h"),
    (u64::MAX, "10 h+"),
];

/// A key whose unsigned order is [`f64::total_cmp`]'s (the sign bit flips the rest).
fn total_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The value of a [`total_key`].
fn from_total_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// The bounded slowdown of `j` with `bound`.
pub fn bounded_slowdown(j: &JobRecord, bound: u64) -> f64 {
    let run = j.run();
    let x = (j.wait() + run) as f64 / run.max(bound).max(1) as f64;
    x.max(1.0)
}

/// [`Distribution::of_sorted`] of a sorted sequence whose length is known ahead, taking its
/// values one at a time: the same sum in the same order, the same ranks, with no vector of
/// the values (the analysis keeps one per metric and class otherwise).
#[derive(Clone, Copy)]
struct Running {
    len: usize,
    seen: usize,
    /// As `Iterator::sum` adds: in order, from -0.0.
    sum: f64,
    /// The positions of the 50th, 90th and 99th percentiles, and their values once seen.
    at: [usize; 3],
    got: [f64; 3],
    last: f64,
}

impl Running {
    fn new(len: usize) -> Running {
        let rank = |p: f64| (libm::ceil(p * len as f64) as usize).clamp(1, len.max(1)) - 1;
        Running {
            len,
            seen: 0,
            sum: -0.0,
            at: [rank(0.5), rank(0.9), rank(0.99)],
            got: [0.0; 3],
            last: 0.0,
        }
    }

    #[inline]
    fn push(&mut self, v: f64) {
        self.sum += v;
        for (at, got) in self.at.iter().zip(&mut self.got) {
            if *at == self.seen {
                *got = v;
            }
        }
        self.seen += 1;
        self.last = v;
    }

    fn finish(&self) -> Distribution {
        if self.len == 0 {
            return Distribution::default();
        }
        Distribution {
            mean: self.sum / self.len as f64,
            p50: self.got[0],
            p90: self.got[1],
            p99: self.got[2],
            max: self.last,
        }
    }
}

/// The metrics of `records` on `procs` processors (module doc).
pub fn analyse(records: &[JobRecord], procs: u32, o: &AnalysisOptions) -> Analysis {
    let first = records.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = records.iter().map(|j| j.submit).max().unwrap_or(0);
    let w0 = first.saturating_add(o.warmup);
    let w1 = last.saturating_sub(o.cooldown).max(w0);
    let measured: Vec<&JobRecord> = records
        .iter()
        .filter(|j| w0 <= j.submit && j.submit <= w1)
        .collect();
    let class_of = |j: &JobRecord| {
        let s = SIZE.iter().position(|&(hi, _)| j.procs <= hi).unwrap_or(0);
        let l = LENGTH.iter().position(|&(hi, _)| j.run() < hi).unwrap_or(0);
        (s, l)
    };
    let size_names: Vec<&'static str> = SIZE.iter().map(|c| c.1).collect();
    let length_names: Vec<&'static str> = LENGTH.iter().map(|c| c.1).collect();
    // Each metric is sorted once, over every measured job with its classes; each class
    // then takes its values in that order, so they come sorted too (the same slices as
    // sorting each class apart: equal values are the same bits).
    let sorted = |value: &dyn Fn(&JobRecord) -> f64| {
        let mut keyed: Vec<(u64, u8, u8)> = measured
            .iter()
            .map(|j| {
                let (s, l) = class_of(j);
                (total_key(value(j)), s as u8, l as u8)
            })
            .collect();
        keyed.sort_unstable();
        let (mut sizes, mut lengths) = ([0; SIZE.len()], [0; LENGTH.len()]);
        for &(_, s, l) in &keyed {
            sizes[s as usize] += 1;
            lengths[l as usize] += 1;
        }
        let mut all = Running::new(keyed.len());
        let mut by_size = sizes.map(Running::new);
        let mut by_length = lengths.map(Running::new);
        for &(k, s, l) in &keyed {
            let v = from_total_key(k);
            all.push(v);
            by_size[s as usize].push(v);
            by_length[l as usize].push(v);
        }
        (all, by_size, by_length)
    };
    let (wait, wait_size, wait_length) = sorted(&|j| j.wait() as f64 / 1e6);
    let (bsld, bsld_size, bsld_length) = sorted(&|j| bounded_slowdown(j, o.bsld_bound));
    let classes = |names: &[&'static str], wait: &[Running], bsld: &[Running]| {
        let mut out = Vec::new();
        for (c, &name) in names.iter().enumerate() {
            if wait[c].len == 0 {
                continue;
            }
            out.push(ClassMetrics {
                class: name,
                jobs: wait[c].len,
                wait_s: wait[c].finish(),
                bsld: bsld[c].finish(),
            });
        }
        out
    };
    let by_size = classes(&size_names, &wait_size, &bsld_size);
    let by_length = classes(&length_names, &wait_length, &bsld_length);
    let (wait_s, bsld) = (wait.finish(), bsld.finish());
    // Busy processor-time inside [w0, w1]; an empty window (one submit instant) measures
    // from the first submit to the last end instead.
    let (u0, u1) = if w1 > w0 {
        (w0, w1)
    } else {
        (first, records.iter().map(|j| j.end).max().unwrap_or(first))
    };
    let busy: u128 = records
        .iter()
        .map(|j| {
            let (s, e) = (j.start.max(u0), j.end.min(u1));
            if e > s {
                j.procs as u128 * (e - s) as u128
            } else {
                0
            }
        })
        .sum();
    let span = (u1 - u0) as u128 * procs as u128;
    Analysis {
        bsld_bound_s: o.bsld_bound as f64 / 1e6,
        window_start_s: w0 as f64 / 1e6,
        window_end_s: w1 as f64 / 1e6,
        jobs: measured.len(),
        wait_s,
        bsld,
        utilization: if span == 0 {
            0.0
        } else {
            busy as f64 / span as f64
        },
        by_size,
        by_length,
    }
}

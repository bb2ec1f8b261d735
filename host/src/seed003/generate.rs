//! A seed 003 trial's workload: DAG jobs (R4), their value curves (R5) and one day of arrival
//! times (R6), from seeded ChaCha streams ([`crate::generate::rng`]).
//!
//! Streams: `seed003-dag` and `seed003-value` per job index, `seed003-arrivals` once; the
//! rate only divides the arrival times by its factor, so a trial's three rates see the same
//! jobs in the same order (paired). Execution times and deadlines scale with `s_w` and `s_d`
//! after the draws, so calibration points are paired too.
//!
//! The value curves are seed 001's value functions (Khemka et al. 2015, §2 and §4;
//! [`crate::seed001::value_curve`], whose [`ValueParams`] defaults are their one home) with a
//! job's critical path at the top level as the task's average execution time, and `s_d` as
//! their tightness.

use super::model::Workload;
use crate::generate::arrivals::Pattern;
use crate::generate::rng::Stream;
use crate::seed001::{self, ValueParams};
use kairos_core::dag::error::DagError;
use kairos_core::dag::job::{DagJob, Edge};
use kairos_core::dag::value::ValueCurve;
use kairos_core::units::{Micros, Utility};
use kairos_core::utility::UtilityCurve;

/// A rate of arrivals (§7.3, R6): the day's arrival times divided by a factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rate {
    /// Jobs a few seconds apart (factor 16, mean gap 5.4 s at 1000 jobs).
    High,
    /// Dozens of seconds apart (factor 4, 21.6 s).
    Medium,
    /// Minutes apart (factor 1, 86 s).
    Low,
}

impl Rate {
    /// The factor the day's arrival times are divided by.
    pub fn factor(self) -> u64 {
        match self {
            Rate::High => 16,
            Rate::Medium => 4,
            Rate::Low => 1,
        }
    }
    /// Its name in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Rate::High => "high",
            Rate::Medium => "medium",
            Rate::Low => "low",
        }
    }
    /// The rate named `s`.
    pub fn parse(s: &str) -> Option<Rate> {
        match s {
            "high" => Some(Rate::High),
            "medium" => Some(Rate::Medium),
            "low" => Some(Rate::Low),
            _ => None,
        }
    }
}

/// One job of a trial.
#[derive(Clone, Debug)]
pub struct Job {
    /// The DAG.
    pub dag: DagJob,
    /// Its value curve.
    pub curve: ValueCurve,
    /// Its arrival in the day (before the rate's factor).
    pub day_arrival: Micros,
}

/// R4: a DAG of `n` tasks: each forward pair an edge with probability `p`, a task without
/// predecessor (but the first) given one, a task without successor (but the last) given one.
/// Returns the edges as (from, to), sorted.
// Indices are the matrix's coordinates (a row and a column each loop), clearer than iterators.
#[allow(clippy::needless_range_loop)]
fn draw_edges(r: &mut Stream, n: usize, p: f64) -> Vec<(u8, u8)> {
    let mut adj = vec![vec![false; n]; n];
    for (a, row) in adj.iter_mut().enumerate() {
        for cell in row.iter_mut().skip(a + 1) {
            *cell = r.unit() < p;
        }
    }
    for b in 1..n {
        if !(0..b).any(|a| adj[a][b]) {
            let a = r.int(0, b as u64 - 1) as usize;
            adj[a][b] = true;
        }
    }
    for a in 0..n.saturating_sub(1) {
        if !(a + 1..n).any(|b| adj[a][b]) {
            let b = r.int(a as u64 + 1, n as u64 - 1) as usize;
            adj[a][b] = true;
        }
    }
    let mut out = Vec::new();
    for (a, row) in adj.iter().enumerate() {
        for (b, &e) in row.iter().enumerate() {
            if e {
                out.push((a as u8, b as u8));
            }
        }
    }
    out
}

/// Job `index` of trial `trial`.
pub fn job(seed: u64, trial: u32, index: u32, w: &Workload) -> Result<Job, DagError> {
    let mut r = Stream::new(seed, trial, "seed003-dag", index);
    let n = r.int(w.tasks[0] as u64, w.tasks[1] as u64) as usize;
    let pairs = draw_edges(&mut r, n, w.edge_probability);
    let wcet: Vec<Micros> = (0..n)
        .map(|_| Micros::from_secs_f64(r.uniform(w.wcet_s[0], w.wcet_s[1]) * w.s_w).max(Micros(1)))
        .collect();
    let mean = wcet.iter().map(|x| x.as_secs_f64()).sum::<f64>() / n as f64;
    let edges: Vec<Edge> = pairs
        .iter()
        .map(|&(from, to)| Edge {
            from,
            to,
            comm: Micros::from_secs_f64(r.uniform(0.0, 2.0 * w.ccr * mean)),
        })
        .collect();
    let dag = DagJob::new(&wcet, &edges)?;
    let mut v = Stream::new(seed, trial, "seed003-value", index);
    let curve = value_curve(&mut v, dag.critical_path(), w)?;
    Ok(Job {
        dag,
        curve,
        day_arrival: Micros::ZERO,
    })
}

/// The longest critical path at the top level the generator can draw (a chain of the most
/// tasks, each at the longest execution time): seed 001's "maximum run time from the entire
/// trace", where the mean starting value reaches its top.
pub fn longest_critical_path(w: &Workload) -> Micros {
    Micros::from_secs_f64(w.tasks[1] as f64 * w.wcet_s[1] * w.s_w)
}

/// R5: a job's value curve, seed 001's value function (§4: starting value Gamma(mean 5 to 50
/// with the execution time, COV 2.5) in [1, 100]; final value U(0.01, 0.8) x start; soft
/// deadline U(0.9, 1.2) x the execution time; hard = soft + U(0, 1.5) x it), drawn from `v`
/// in that order, with the job's critical path at the top level `cp` as the execution time
/// and the hard deadline's distance past the soft one scaled by the tightness `s_d` (1: seed
/// 001's draw as it is; smaller is tighter).
pub fn value_curve(v: &mut Stream, cp: Micros, w: &Workload) -> Result<ValueCurve, DagError> {
    let base = ValueParams::default();
    let p = ValueParams {
        hard_extra: [base.hard_extra[0] * w.s_d, base.hard_extra[1] * w.s_d],
        ..base
    };
    let UtilityCurve::Linear {
        start,
        soft,
        hard,
        final_value,
    } = seed001::value_curve(v, cp, longest_critical_path(w), &p)
    else {
        return Err(DagError::Curve);
    };
    let max = Utility::from_f64(start);
    let last = Utility::from_f64(final_value).min(max);
    ValueCurve::with_final(max, last, soft, hard.max(Micros(1)))
}

/// The trial's jobs, with their day arrival times (R6: i.i.d. from the working-hours profile,
/// x2 from 09:00 to 18:00 and x0.4 otherwise, sorted; job `i` arrives `i`-th).
pub fn workload(seed: u64, trial: u32, w: &Workload) -> Result<Vec<Job>, DagError> {
    let pattern = Pattern::WorkHours {
        work_rate: 2.0,
        off_rate: 0.4,
        hours: [9, 18],
    };
    let mut r = Stream::new(seed, trial, "seed003-arrivals", 0);
    let mut times: Vec<Micros> = Vec::with_capacity(w.jobs as usize);
    while times.len() < w.jobs as usize {
        let t = r.uniform(0.0, 86_400.0);
        if r.unit() * pattern.peak() < pattern.factor(t) {
            times.push(Micros::from_secs_f64(t));
        }
    }
    times.sort();
    let mut jobs = Vec::with_capacity(times.len());
    for (i, t) in times.into_iter().enumerate() {
        let mut j = job(seed, trial, i as u32, w)?;
        j.day_arrival = t;
        jobs.push(j);
    }
    Ok(jobs)
}

/// Job arrival at rate `rate`: the day's time divided by the rate's factor.
pub fn arrival(j: &Job, rate: Rate) -> Micros {
    Micros(j.day_arrival.0 / rate.factor())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dags_have_their_shape() {
        let w = Workload::default();
        for i in 0..200 {
            let j = job(1, 0, i, &w).unwrap();
            let n = j.dag.len();
            assert!((5..=10).contains(&n));
            for t in 1..n {
                assert_ne!(j.dag.preds(t), 0, "task {t} of job {i} has no predecessor");
            }
            for t in 0..n - 1 {
                assert_ne!(j.dag.succs(t), 0, "task {t} of job {i} has no successor");
            }
            assert!(j.curve.hard() >= j.curve.soft());
        }
    }

    #[test]
    fn value_curves_follow_seed_001_relative_to_the_critical_path() {
        let w = Workload::default();
        let (mut soft, mut extra, mut last) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..2000 {
            let j = job(7, 1, i, &w).unwrap();
            let cp = j.dag.critical_path().as_secs_f64();
            let c = j.curve;
            let max = c.max().as_f64();
            assert!((1.0..=100.0).contains(&max), "{max}");
            soft.push(c.soft().as_secs_f64() / cp);
            extra.push((c.hard() - c.soft()).as_secs_f64() / cp);
            last.push(c.last().as_f64() / max);
        }
        let within = |x: &[f64], lo: f64, hi: f64| x.iter().all(|r| (lo..=hi).contains(r));
        let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
        assert!(within(&soft, 0.9 - 1e-6, 1.2 + 1e-6));
        assert!(within(&extra, 0.0, 1.5 + 1e-6));
        assert!(within(&last, 0.01 - 1e-6, 0.8 + 1e-6));
        assert!((mean(&soft) - 1.05).abs() < 0.01, "{}", mean(&soft));
        assert!((mean(&extra) - 0.75).abs() < 0.03, "{}", mean(&extra));
        // Tightness 4 draws the same curves with four times the span past the soft deadline.
        let loose = Workload {
            s_d: 4.0,
            ..w.clone()
        };
        let (a, b) = (job(7, 1, 3, &w).unwrap(), job(7, 1, 3, &loose).unwrap());
        assert_eq!(
            (a.curve.max(), a.curve.soft()),
            (b.curve.max(), b.curve.soft())
        );
        let span = |c: &ValueCurve| (c.hard() - c.soft()).0 as f64;
        assert!((span(&b.curve) / span(&a.curve) - 4.0).abs() < 1e-3);
    }

    #[test]
    fn arrivals_fill_the_day_with_the_work_hours_peak() {
        let w = Workload::default();
        let jobs = workload(5, 2, &w).unwrap();
        assert_eq!(jobs.len(), 1000);
        assert!(jobs
            .windows(2)
            .all(|p| p[0].day_arrival <= p[1].day_arrival));
        let work = jobs
            .iter()
            .filter(|j| (9 * 3600..18 * 3600).contains(&(j.day_arrival.0 / 1_000_000)))
            .count();
        // Expected share in 09:00-18:00: 9 x 2 / (9 x 2 + 15 x 0.4) = 75%.
        assert!((700..800).contains(&work), "{work}");
        let again = workload(5, 2, &w).unwrap();
        assert_eq!(jobs[17].dag, again[17].dag);
        assert_eq!(arrival(&jobs[9], Rate::High).0, jobs[9].day_arrival.0 / 16);
    }
}

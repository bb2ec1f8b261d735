//! A seed 003 trial's workload: DAG jobs (R4), their value curves (R5) and one day of arrival
//! times (R6), from seeded ChaCha streams ([`crate::generate::rng`]).
//!
//! Streams: `seed003-dag` and `seed003-value` per job index, `seed003-arrivals` once; the
//! rate only divides the arrival times by its factor, so a trial's three rates see the same
//! jobs in the same order (paired). Execution times and deadlines scale with `s_w` and `s_d`
//! after the draws, so calibration points are paired too.

use super::model::Workload;
use crate::generate::arrivals::Pattern;
use crate::generate::rng::Stream;
use kairos_core::dag::error::DagError;
use kairos_core::dag::job::{DagJob, Edge};
use kairos_core::dag::value::ValueCurve;
use kairos_core::units::{Micros, Utility};

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
    let max = Utility::from_f64(v.uniform(w.value[0], w.value[1]));
    let soft = dag.critical_path();
    let hard = soft.saturating_add(Micros::from_secs_f64(
        soft.as_secs_f64() * v.uniform(w.hard[0], w.hard[1]) * w.s_d,
    ));
    let curve = ValueCurve::new(max, soft, hard.max(Micros(1)))?;
    Ok(Job {
        dag,
        curve,
        day_arrival: Micros::ZERO,
    })
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
            assert_eq!(j.curve.soft(), j.dag.critical_path());
            assert!(j.curve.hard() >= j.curve.soft());
        }
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

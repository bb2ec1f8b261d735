//! `summary.json` of a sweep: what was swept and the extremes of the cost vector over the
//! grid, worked out from the points and the fronts (`kairos sweep-knapsack` prints it).

use serde::Serialize;

use super::{Fronts, Grid, Mode, Point, Workload, CLASSES};

/// The parameters and cost of one point, for the summary.
#[derive(Clone, Debug, Serialize)]
pub struct Best {
    /// Size exponent.
    pub alpha: f64,
    /// Wait exponent.
    pub beta: f64,
    /// Runtime exponent.
    pub gamma: f64,
    /// Workload response time, seconds.
    pub wrt_s: f64,
    /// The value minimised (WRT in seconds, or the class's mean expansion factor).
    pub value: f64,
}

/// `summary.json`: what was swept and the extremes of the cost vector (deterministic).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The workload.
    pub workload: String,
    /// Whether a log's jobs were all submitted at 0 (`--batch`).
    pub batch: bool,
    /// `malleable` or `rigid`.
    pub mode: String,
    /// Jobs.
    pub jobs: usize,
    /// Machine size.
    pub procs: u32,
    /// Jobs per class A-D.
    pub class_jobs: [usize; 4],
    /// Grid points.
    pub points: usize,
    /// Grid step.
    pub step: f64,
    /// Per-job share.
    pub share: f64,
    /// Distinct cost vectors among the points.
    pub distinct_costs: usize,
    /// The point of least WRT (the first by grid index).
    pub min_wrt: Best,
    /// The largest WRT over the grid, seconds.
    pub max_wrt_s: f64,
    /// Per class with jobs, the point of least mean E_f (then of least WRT, then first by
    /// grid index).
    pub min_ef: Vec<(char, Best)>,
    /// Per class with jobs, the largest mean E_f over the grid.
    pub max_ef: Vec<(char, f64)>,
    /// Per class with jobs, the values on its (WRT, E_f) front.
    pub front_values: Vec<(char, usize)>,
    /// Points on the joint front (WRT and every class's E_f).
    pub joint_front_points: usize,
    /// How many points reach the least WRT.
    pub least_wrt_points: usize,
    /// Per class with jobs, the least mean E_f among the points that reach the least WRT:
    /// what the bottom left of the paper's Fig. 6 costs each class.
    pub least_wrt_ef: Vec<(char, f64)>,
    /// The paper's Fig. 3 setting (0.9, 0.1, 0.1), when the grid holds it: its WRT in
    /// seconds and each present class's mean E_f.
    pub fig3: Option<(f64, Vec<(char, f64)>)>,
}

fn best(p: &Point, value: f64) -> Best {
    Best {
        alpha: p.alpha,
        beta: p.beta,
        gamma: p.gamma,
        wrt_s: p.cost.wrt as f64 / 1e6,
        value,
    }
}

/// The summary of a sweep of `w` over `grid` under `mode` with `share` (`batch`: the log's
/// jobs were all submitted at 0): its `points` and their `fronts`, as [`super::sweep`] and
/// [`super::fronts`] give them.
pub fn summarize(
    w: &Workload,
    grid: &Grid,
    mode: Mode,
    share: f64,
    batch: bool,
    points: &[Point],
    fronts: &Fronts,
) -> Summary {
    let classes = w.classes();
    let mut class_jobs = [0; 4];
    for c in &classes {
        class_jobs[*c as usize] += 1;
    }
    let mut costs: Vec<(u64, [u64; 4])> = points
        .iter()
        .map(|p| (p.cost.wrt, p.cost.ef.map(|e| e.unwrap_or(0.0).to_bits())))
        .collect();
    costs.sort_unstable();
    costs.dedup();
    let by = |key: &dyn Fn(&Point) -> f64| {
        points
            .iter()
            .min_by(|a, b| {
                key(a)
                    .total_cmp(&key(b))
                    .then(a.cost.wrt.cmp(&b.cost.wrt))
                    .then(a.index.cmp(&b.index))
            })
            .expect("a grid has points")
    };
    let min_wrt = by(&|p| p.cost.wrt as f64);
    let at_least_wrt: Vec<&Point> = points
        .iter()
        .filter(|p| p.cost.wrt == min_wrt.cost.wrt)
        .collect();
    let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let fig3 = points
        .iter()
        .find(|p| near(p.alpha, 0.9) && near(p.beta, 0.1) && near(p.gamma, 0.1))
        .map(|p| {
            let ef = fronts
                .present
                .iter()
                .map(|&k| (CLASSES[k], p.cost.ef[k].unwrap_or(0.0)))
                .collect();
            (p.cost.wrt as f64 / 1e6, ef)
        });
    Summary {
        workload: w.name.clone(),
        batch,
        mode: format!("{mode:?}").to_lowercase(),
        jobs: w.jobs.len(),
        procs: w.procs,
        class_jobs,
        points: points.len(),
        step: grid.step,
        share,
        distinct_costs: costs.len(),
        min_wrt: best(min_wrt, min_wrt.cost.wrt as f64 / 1e6),
        max_wrt_s: points.iter().map(|p| p.cost.wrt).max().unwrap_or(0) as f64 / 1e6,
        min_ef: fronts
            .present
            .iter()
            .map(|&k| {
                let p = by(&|p| p.cost.ef[k].unwrap_or(f64::INFINITY));
                (CLASSES[k], best(p, p.cost.ef[k].unwrap_or(0.0)))
            })
            .collect(),
        max_ef: fronts
            .present
            .iter()
            .map(|&k| {
                let m = points
                    .iter()
                    .filter_map(|p| p.cost.ef[k])
                    .fold(0.0, f64::max);
                (CLASSES[k], m)
            })
            .collect(),
        front_values: fronts
            .present
            .iter()
            .map(|&k| {
                (
                    CLASSES[k],
                    fronts.values.iter().filter(|v| v.class == k).count(),
                )
            })
            .collect(),
        joint_front_points: fronts.joint.iter().filter(|&&j| j).count(),
        least_wrt_points: at_least_wrt.len(),
        least_wrt_ef: fronts
            .present
            .iter()
            .map(|&k| {
                let m = at_least_wrt
                    .iter()
                    .filter_map(|p| p.cost.ef[k])
                    .fold(f64::INFINITY, f64::min);
                (CLASSES[k], m)
            })
            .collect(),
        fig3,
    }
}

//! The plots of an energy experiment (Chapters 3-4), each series a line through its means
//! over the trials:
//!
//! - `utility.svg` and `energy.svg`: the mean utility and energy over the swept parameter, a
//!   line per remaining configuration: the U-E weighting factor when the file has several
//!   weights (Figs. 3.5, 3.6, 3.12), else the tuned filter's leniency when it has several
//!   (Figs. 3.8, 3.9; the unfiltered runs are in `summary.csv`), else the configurations in
//!   `summary.csv` order, one line per filter and machine model (Figs. 3.4, 3.14, 4.4).
//!   Each mean has its 95% confidence interval's error bar (Student t, as `summary.csv`'s;
//!   none with one trial), and the subtitle names the trial count and the interval
//!   ([`crate::report::svg::ci_lines`]: round ticks, both axes labelled).
//! - `trace-utility.svg` and `trace-energy.svg` (files with `trace_minutes`): the mean
//!   cumulative utility and energy against the minute of the window, one line per
//!   configuration (Figs. 3.7, 3.10, 3.11, 3.13, 4.6), past six lines dashed.
//!
//! The same rows give the same bytes.

use super::{EnergyExperiment, Row};
use crate::report::stats::{mean_ci, MeanCi};
use crate::report::svg::{ci_lines, CiSeries};
use kairos_core::serial::{Machines, SerialFilter};

/// What the x axis of `utility.svg` and `energy.svg` is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sweep {
    Weight,
    Leniency,
    Configuration,
}

fn sweep(exp: &EnergyExperiment) -> Sweep {
    let distinct = |xs: Vec<f64>| {
        let mut xs = xs;
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        xs.len()
    };
    let weights = exp
        .configs
        .iter()
        .filter_map(|c| c.cfg.heuristic.weight())
        .collect();
    let leniencies = exp
        .configs
        .iter()
        .filter_map(|c| match c.cfg.filter {
            SerialFilter::Tuned(l) => Some(l),
            _ => None,
        })
        .collect();
    if distinct(weights) > 1 {
        Sweep::Weight
    } else if distinct(leniencies) > 1 {
        Sweep::Leniency
    } else {
        Sweep::Configuration
    }
}

/// The label without its `token`-prefixed word (" w=0.5" from "Weighted Util w=0.5 L=1").
fn without(label: &str, token: &str) -> String {
    label
        .split(' ')
        .filter(|w| !w.starts_with(token))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each configuration's mean over its trials of `f`, with its 95% confidence interval.
fn means(exp: &EnergyExperiment, rows: &[Row], f: &dyn Fn(&Row) -> f64) -> Vec<MeanCi> {
    (0..exp.configs.len())
        .map(|i| {
            let xs: Vec<f64> = rows.iter().filter(|r| r.config == i).map(f).collect();
            mean_ci(&xs)
        })
        .collect()
}

/// Lines by name in first-seen order, each point (x, mean, CI).
fn ci_series(points: Vec<(String, f64, MeanCi)>) -> Vec<CiSeries> {
    let mut out: Vec<CiSeries> = Vec::new();
    for (name, x, m) in points {
        let p = (x, m.mean, m.ci95);
        match out.iter_mut().find(|s| s.label == name) {
            Some(s) => s.points.push(p),
            None => out.push(CiSeries {
                label: name,
                points: vec![p],
            }),
        }
    }
    out
}

/// Every plot of the experiment, as (file name, SVG text).
pub fn plots(exp: &EnergyExperiment, rows: &[Row]) -> Vec<(&'static str, String)> {
    let by = sweep(exp);
    let (x_label, what) = match by {
        Sweep::Weight => ("U-E weighting factor", "against the U-E weighting factor"),
        Sweep::Leniency => (
            "energy leniency (tuned filter)",
            "against the energy leniency; unfiltered runs in summary.csv",
        ),
        Sweep::Configuration => (
            "configuration (summary.csv order, from 1)",
            "by configuration, a line per filter and machine model",
        ),
    };
    let point = |i: usize| -> Option<(String, f64)> {
        let c = &exp.configs[i];
        match by {
            Sweep::Weight => Some((without(&c.label, "w="), c.cfg.heuristic.weight()?)),
            Sweep::Leniency => match c.cfg.filter {
                SerialFilter::Tuned(l) => Some((without(&c.label, "L="), l)),
                _ => None,
            },
            Sweep::Configuration => {
                let machines = match c.cfg.machines {
                    Machines::Queued => "queued",
                    Machines::Polled => "polled",
                };
                let key = format!("{}, {machines}", super::filter_label(c.cfg.filter));
                Some((key, (i + 1) as f64))
            }
        }
    };
    let utility = means(exp, rows, &|r| r.report.utility.as_f64());
    let energy = means(exp, rows, &|r| r.report.energy.as_joules_f64() / 1e9);
    let n = rows.iter().map(|r| r.trial + 1).max().unwrap_or(0);
    let sub = match n {
        0 | 1 => format!("{n} trial: its values (no interval: it needs 2 trials or more), {what}"),
        _ => format!("{n} trials: the mean and its 95% confidence interval (Student t), {what}"),
    };
    let lines = |ys: &[MeanCi]| {
        ci_series(
            (0..exp.configs.len())
                .filter_map(|i| point(i).map(|(n, x)| (n, x, ys[i])))
                .collect(),
        )
    };
    let mut out = vec![
        (
            "utility.svg",
            ci_lines(
                &format!("{}: utility", exp.title),
                &sub,
                x_label,
                "utility earned in the window",
                &lines(&utility),
            ),
        ),
        (
            "energy.svg",
            ci_lines(
                &format!("{}: energy", exp.title),
                &sub,
                x_label,
                "energy consumed in the window (GJ)",
                &lines(&energy),
            ),
        ),
    ];
    if let Some(step) = exp.trace {
        let step_min = step.as_mins_f64();
        for (file, idx, scale, y_label) in [
            ("trace-utility.svg", 0, 1.0, "cumulative utility"),
            ("trace-energy.svg", 1, 1e-9, "cumulative energy (GJ)"),
        ] {
            let mut pts = Vec::new();
            for (i, c) in exp.configs.iter().enumerate() {
                let rs: Vec<&Row> = rows.iter().filter(|r| r.config == i).collect();
                let n = rs.first().map_or(0, |r| r.trace.len());
                for p in 0..n {
                    let ys: Vec<f64> = rs
                        .iter()
                        .map(|r| scale * if idx == 0 { r.trace[p].0 } else { r.trace[p].1 })
                        .collect();
                    let m = mean_ci(&ys);
                    // The trials' spread is summary.csv's; a bar at every sample would
                    // hide the lines.
                    let m = MeanCi { ci95: None, ..m };
                    pts.push((c.label.clone(), (p + 1) as f64 * step_min, m));
                }
            }
            out.push((
                file,
                ci_lines(
                    &format!("{}: {y_label}", exp.title),
                    &format!(
                        "every {step_min} min of the window, the mean of {n} trial{} (no \
                         intervals: summary.csv has them)",
                        if n == 1 { "" } else { "s" }
                    ),
                    "minute of the window",
                    y_label,
                    &ci_series(pts),
                ),
            ));
        }
    }
    out
}

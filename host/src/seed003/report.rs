//! A seed 003 experiment's results: means with 95% CIs over the trials, paired ratios versus
//! ValOpt, the "on average" rows of the paper, a calibration's verdict, and the files
//! (`summary.csv`, `trials.csv`, SVG bars in the form of Figs. 7.5-7.7 and Table 7.1).
//!
//! Paired statistics are computed per trial and then averaged: a trial's value ratio is its
//! approach's value over ValOpt's on the same workload and point, and "on average versus
//! ValOpt" is, per trial, the mean of those ratios over the experiment's points (the paper's
//! "on an average" over the three rates), then the mean and CI over the trials. Normalised
//! values divide by ValOpt's at the first point, per trial (the paper normalises to ValOpt at
//! the high rate, at 2 nodes, at 2 cores).

use super::experiment::{Outcome, Row, Seed003Experiment};
use super::sim::{Approach, TrialResult};
use crate::report::stats::{mean_ci, MeanCi};
use kairos_core::limits::{MAX_DAG_TASKS, MAX_DVFS_LEVELS};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One approach at one point.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Index of the point.
    pub point: usize,
    /// The approach.
    pub approach: Approach,
    /// Total value.
    pub value: MeanCi,
    /// Total energy, megajoules.
    pub energy_mj: MeanCi,
    /// Value per kilojoule.
    pub value_per_kj: MeanCi,
    /// Rejected, percent of the jobs.
    pub rejected: MeanCi,
    /// Value over ValOpt's at the first point.
    pub norm_value: MeanCi,
    /// Energy over ValOpt's at the first point.
    pub norm_energy: MeanCi,
    /// Value over ValOpt's at this point.
    pub value_ratio: MeanCi,
    /// Energy over ValOpt's at this point.
    pub energy_ratio: MeanCi,
    /// Value per energy over ValOpt's at this point.
    pub vpe_ratio: MeanCi,
    /// Rejected minus ValOpt's, percentage points.
    pub rejected_diff: MeanCi,
}

/// An approach over every point ("on average versus ValOpt").
#[derive(Clone, Debug)]
pub struct Average {
    /// The approach.
    pub approach: Approach,
    /// Mean over the points of the value ratio.
    pub value_ratio: MeanCi,
    /// ... of the energy ratio.
    pub energy_ratio: MeanCi,
    /// ... of the value-per-energy ratio.
    pub vpe_ratio: MeanCi,
    /// Mean rejection over the points, percent.
    pub rejected: MeanCi,
}

fn value(r: &TrialResult) -> f64 {
    r.value as f64 / 1e6
}
fn energy_mj(r: &TrialResult) -> f64 {
    r.energy_nj as f64 / 1e15
}
fn vpe(r: &TrialResult) -> f64 {
    value(r) / (r.energy_nj as f64 / 1e12).max(1e-12)
}

/// The results of `(point, approach)`, by trial.
fn results(out: &Outcome, point: usize, approach: usize) -> Vec<&TrialResult> {
    out.rows
        .iter()
        .filter(|r: &&Row| r.point == point && r.approach == approach)
        .map(|r| &r.result)
        .collect()
}

fn ratio(a: &[&TrialResult], b: &[&TrialResult], f: fn(&TrialResult) -> f64) -> Vec<f64> {
    a.iter()
        .zip(b)
        .map(|(x, y)| f(x) / f(y).max(1e-300))
        .collect()
}

/// Every cell, in (point, approach) order, and the averages (empty without ValOpt).
pub fn summarize(exp: &Seed003Experiment, out: &Outcome) -> (Vec<Cell>, Vec<Average>) {
    let base = exp.approaches.iter().position(|&a| a == Approach::ValOpt);
    let mut cells = Vec::new();
    for p in 0..exp.points.len() {
        for (ai, &a) in exp.approaches.iter().enumerate() {
            let rs = results(out, p, ai);
            let col =
                |f: fn(&TrialResult) -> f64| mean_ci(&rs.iter().map(|r| f(r)).collect::<Vec<_>>());
            let empty = mean_ci(&[]);
            let (mut nv, mut ne, mut vr, mut er, mut pr, mut rd) =
                (empty, empty, empty, empty, empty, empty);
            if let Some(b) = base {
                let first = results(out, 0, b);
                let here = results(out, p, b);
                nv = mean_ci(&ratio(&rs, &first, value));
                ne = mean_ci(&ratio(&rs, &first, energy_mj));
                vr = mean_ci(&ratio(&rs, &here, value));
                er = mean_ci(&ratio(&rs, &here, energy_mj));
                pr = mean_ci(&ratio(&rs, &here, vpe));
                rd = mean_ci(
                    &rs.iter()
                        .zip(&here)
                        .map(|(x, y)| x.rejected_percent() - y.rejected_percent())
                        .collect::<Vec<_>>(),
                );
            }
            cells.push(Cell {
                point: p,
                approach: a,
                value: col(value),
                energy_mj: col(energy_mj),
                value_per_kj: col(vpe),
                rejected: col(TrialResult::rejected_percent),
                norm_value: nv,
                norm_energy: ne,
                value_ratio: vr,
                energy_ratio: er,
                vpe_ratio: pr,
                rejected_diff: rd,
            });
        }
    }
    let mut avgs = Vec::new();
    if let Some(b) = base {
        for (ai, &a) in exp.approaches.iter().enumerate() {
            let np = exp.points.len() as f64;
            let n = exp.trials as usize;
            let (mut v, mut e, mut q, mut rj) =
                (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            for p in 0..exp.points.len() {
                let rs = results(out, p, ai);
                let bs = results(out, p, b);
                for (t, (x, y)) in rs.iter().zip(&bs).enumerate() {
                    v[t] += value(x) / value(y).max(1e-300) / np;
                    e[t] += energy_mj(x) / energy_mj(y).max(1e-300) / np;
                    q[t] += vpe(x) / vpe(y).max(1e-300) / np;
                    rj[t] += x.rejected_percent() / np;
                }
            }
            avgs.push(Average {
                approach: a,
                value_ratio: mean_ci(&v),
                energy_ratio: mean_ci(&e),
                vpe_ratio: mean_ci(&q),
                rejected: mean_ci(&rj),
            });
        }
    }
    (cells, avgs)
}

fn pm(m: &MeanCi, scale: f64, d: usize) -> String {
    match m.ci95 {
        Some(c) => format!("{:.d$} ± {:.d$}", m.mean * scale, c * scale),
        None if m.n == 0 => "-".to_string(),
        None => format!("{:.d$}", m.mean * scale),
    }
}

/// The terminal table.
pub fn text(exp: &Seed003Experiment, cells: &[Cell], avgs: &[Average]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<22} {:<9} {:>16} {:>15} {:>15} {:>15} {:>14} {:>14} {:>13} {:>15}",
        "point",
        "approach",
        "value",
        "norm value",
        "energy MJ",
        "norm energy",
        "value/kJ",
        "value vs VO",
        "energy vs VO",
        "rejected %"
    );
    for c in cells {
        let _ = writeln!(
            s,
            "{:<22} {:<9} {:>16} {:>15} {:>15} {:>15} {:>14} {:>14} {:>13} {:>15}",
            exp.point_label(c.point),
            c.approach.label(),
            pm(&c.value, 1.0, 0),
            pm(&c.norm_value, 1.0, 3),
            pm(&c.energy_mj, 1.0, 2),
            pm(&c.norm_energy, 1.0, 3),
            pm(&c.value_per_kj, 1.0, 3),
            pm(&c.value_ratio, 1.0, 3),
            pm(&c.energy_ratio, 1.0, 3),
            pm(&c.rejected, 1.0, 1),
        );
    }
    if !avgs.is_empty() {
        let _ = writeln!(
            s,
            "\non average over the {} points, versus ValOpt (paired, per trial):",
            exp.points.len()
        );
        let _ = writeln!(
            s,
            "{:<9} {:>18} {:>18} {:>18} {:>15}",
            "approach", "value", "energy", "value/energy", "rejected %"
        );
        for a in avgs {
            let pct = |m: &MeanCi| {
                format!(
                    "{:+.1}% ± {:.1}",
                    (m.mean - 1.0) * 100.0,
                    m.ci95.unwrap_or(0.0) * 100.0
                )
            };
            let _ = writeln!(
                s,
                "{:<9} {:>18} {:>18} {:>18} {:>15}",
                a.approach.label(),
                pct(&a.value_ratio),
                pct(&a.energy_ratio),
                pct(&a.vpe_ratio),
                pm(&a.rejected, 1.0, 1)
            );
        }
    }
    s
}

/// A calibration's verdict: ValOpt's mean rejection at the high and low rates per (s_w, s_d),
/// and the pair nearest the targets (least squared distance, ties the first).
pub fn calibration(exp: &Seed003Experiment, cells: &[Cell]) -> Option<String> {
    let t = exp.calibrate?;
    let mut s = String::new();
    let mut pairs: Vec<(f64, f64)> = Vec::new();
    for p in &exp.points {
        if !pairs.contains(&(p.s_w, p.s_d)) {
            pairs.push((p.s_w, p.s_d));
        }
    }
    let _ = writeln!(
        s,
        "calibration: ValOpt's rejection % (targets high {}, low {})",
        t.high, t.low
    );
    let mut best: Option<(f64, f64, f64)> = None;
    for &(sw, sd) in &pairs {
        let rej = |rate| {
            cells
                .iter()
                .find(|c| {
                    let p = &exp.points[c.point];
                    c.approach == Approach::ValOpt && p.s_w == sw && p.s_d == sd && p.rate == rate
                })
                .map(|c| c.rejected.mean)
        };
        let (Some(h), Some(l)) = (
            rej(super::generate::Rate::High),
            rej(super::generate::Rate::Low),
        ) else {
            continue;
        };
        let d = (h - t.high).powi(2) + (l - t.low).powi(2);
        let _ = writeln!(
            s,
            "  s_w = {sw:<6} s_d = {sd:<6} high {h:5.1}  low {l:5.1}  distance {:.2}",
            libm::sqrt(d)
        );
        if best.is_none_or(|b| d < b.2) {
            best = Some((sw, sd, d));
        }
    }
    if let Some((sw, sd, d)) = best {
        let _ = writeln!(
            s,
            "nearest: s_w = {sw}, s_d = {sd} (distance {:.2} pp); set workload.s_w and \
             workload.s_d in {}",
            libm::sqrt(d),
            exp.scenario_path.display()
        );
    }
    Some(s)
}

fn csv_cell(m: &MeanCi) -> String {
    format!(
        "{},{}",
        m.mean,
        m.ci95.map_or(String::new(), |c| c.to_string())
    )
}

/// `summary.csv`: one row per (point, approach).
pub fn summary_csv(exp: &Seed003Experiment, cells: &[Cell]) -> String {
    let mut s = String::from(
        "point,rate,nodes,cores,p_static_w,s_w,s_d,approach,value,value_ci95,energy_mj,energy_ci95,\
         value_per_kj,vpk_ci95,rejected_pct,rejected_ci95,norm_value,norm_value_ci95,norm_energy,\
         norm_energy_ci95,value_vs_valopt,vv_ci95,energy_vs_valopt,ev_ci95,vpe_vs_valopt,pv_ci95\n",
    );
    for c in cells {
        let p = &exp.points[c.point];
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            exp.point_label(c.point),
            p.rate.name(),
            p.nodes,
            p.cores,
            p.p_static_w,
            p.s_w,
            p.s_d,
            c.approach.key(),
            csv_cell(&c.value),
            csv_cell(&c.energy_mj),
            csv_cell(&c.value_per_kj),
            csv_cell(&c.rejected),
            csv_cell(&c.norm_value),
            csv_cell(&c.norm_energy),
            csv_cell(&c.value_ratio),
            csv_cell(&c.energy_ratio),
            csv_cell(&c.vpe_ratio),
        );
    }
    s
}

/// `trials.csv`: one row per run, with its digest.
pub fn trials_csv(exp: &Seed003Experiment, out: &Outcome) -> String {
    let mut s = String::from(
        "point,approach,trial,value,energy_nj,dropped,zero_value,executed,evals,digest\n",
    );
    for r in &out.rows {
        let x = &r.result;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{:016x}",
            exp.point_label(r.point),
            exp.approaches[r.approach].key(),
            r.trial,
            x.value,
            x.energy_nj,
            x.dropped,
            x.zero_value,
            x.executed,
            x.evals,
            x.digest
        );
    }
    s
}

/// `pba_choices.csv`: per (point, approach), the tasks started by their job's used cores and
/// their level (0 the fastest), summed over the trials; rows with no task are left out.
pub fn choices_csv(exp: &Seed003Experiment, out: &Outcome) -> String {
    let mut s = String::from("point,approach,cores,level,tasks\n");
    let mut i = 0;
    while i < out.rows.len() {
        let (pt, ap) = (out.rows[i].point, out.rows[i].approach);
        let mut sum = [[0u64; MAX_DVFS_LEVELS]; MAX_DAG_TASKS];
        while i < out.rows.len() && (out.rows[i].point, out.rows[i].approach) == (pt, ap) {
            for (c, row) in out.rows[i].result.choices.iter().enumerate() {
                for (l, &n) in row.iter().enumerate() {
                    sum[c][l] += n as u64;
                }
            }
            i += 1;
        }
        for (c, row) in sum.iter().enumerate() {
            for (l, &n) in row.iter().enumerate() {
                if n > 0 {
                    let _ = writeln!(
                        s,
                        "{},{},{},{l},{n}",
                        exp.point_label(pt),
                        exp.approaches[ap].key(),
                        c + 1
                    );
                }
            }
        }
    }
    s
}

const COLORS: [&str; 4] = ["#7f7f7f", "#1f77b4", "#2ca02c", "#d62728"];

/// The x axis's label: what the experiment's points are.
fn x_label(exp: &Seed003Experiment) -> &'static str {
    match exp.axis.as_str() {
        "rate" => "arrival rate",
        "nodes" => "nodes (each of the scenario's cores)",
        "cores" => "cores a node",
        "p_static_w" => "static power of a used core, arrival rate",
        _ => "value-curve scales s_w, s_d (tightness), static power, arrival rate",
    }
}

/// Grouped bars ([`crate::report::grouped_bars`]): one group per point, one bar per approach,
/// capped error bars at the 95% CI; the subtitle says the trial count.
pub fn bars_svg(
    exp: &Seed003Experiment,
    cells: &[Cell],
    title: &str,
    y_label: &str,
    f: fn(&Cell) -> MeanCi,
) -> String {
    use crate::report::grouped_bars::{grouped_bars, BarSeries};
    let groups: Vec<String> = (0..exp.points.len()).map(|p| exp.point_label(p)).collect();
    let series: Vec<BarSeries> = exp
        .approaches
        .iter()
        .map(|&a| {
            let mut values = vec![(f64::NAN, None); groups.len()];
            for c in cells.iter().filter(|c| c.approach == a) {
                if let Some(v) = values.get_mut(c.point) {
                    let m = f(c);
                    *v = (m.mean, m.ci95);
                }
            }
            BarSeries {
                label: a.label().to_string(),
                color: COLORS[Approach::ALL.iter().position(|&b| b == a).unwrap_or(0)],
                values,
            }
        })
        .collect();
    let n = exp.trials;
    let subtitle = if n <= 1 {
        format!("{n} trial: its values (no interval: it needs 2 trials or more)")
    } else {
        format!(
            "{n} paired trials: bars the mean, error bars its 95% confidence interval (Student t)"
        )
    };
    grouped_bars(title, &subtitle, x_label(exp), y_label, &groups, &series)
}

/// Writes `summary.csv`, `trials.csv`, `pba_choices.csv` and the SVGs into `dir`; returns the files written.
pub fn write_all(
    dir: &Path,
    exp: &Seed003Experiment,
    out: &Outcome,
    cells: &[Cell],
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let t = &exp.title;
    let files: Vec<(&str, String)> = vec![
        ("trials.csv", trials_csv(exp, out)),
        ("pba_choices.csv", choices_csv(exp, out)),
        (
            "value.svg",
            bars_svg(
                exp,
                cells,
                &format!("{t}: value, normalised to ValOpt at {}", exp.point_label(0)),
                "normalised value",
                |c| c.norm_value,
            ),
        ),
        (
            "energy.svg",
            bars_svg(
                exp,
                cells,
                &format!(
                    "{t}: energy, normalised to ValOpt at {}",
                    exp.point_label(0)
                ),
                "normalised energy",
                |c| c.norm_energy,
            ),
        ),
        (
            "value_per_energy.svg",
            bars_svg(
                exp,
                cells,
                &format!("{t}: value per energy"),
                "value per kJ",
                |c| c.value_per_kj,
            ),
        ),
        (
            "rejected.svg",
            bars_svg(
                exp,
                cells,
                &format!("{t}: rejected jobs"),
                "rejected %",
                |c| c.rejected,
            ),
        ),
        // Last: its presence marks the folder as holding a whole run's reports.
        ("summary.csv", summary_csv(exp, cells)),
    ];
    let mut written = Vec::new();
    for (name, body) in files {
        let p = dir.join(name);
        crate::output::write_atomic(&p, body)?;
        written.push(p);
    }
    Ok(written)
}

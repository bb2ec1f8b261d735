//! The reports of `kairos experiment`: per-trial rows, per-configuration summaries (mean and
//! 95% confidence interval, Student t), the calibration of the energy constraint, wall times,
//! and the plots.
//!
//! Files written to the output directory:
//! - `trials.csv`: one row per configuration and trial, sorted by (configuration, trial).
//! - `summary.csv`, `summary.json`: per configuration, n, the mean and the 95% CI half-width
//!   of utility_percent, energy_joules and utility, and the mean task counts and mapping
//!   events; the JSON adds the experiment, the sweeps and the calibration.
//! - `timing.json`: wall times of the runs and the generation, mapping-event percentiles.
//! - `utility.svg`, `energy.svg` (not for a trace experiment, which models no power), and for
//!   a leniency sweep `leniency.svg` and `leniency-energy.svg` (see [`svg`]).
//!
//! Every float is written with six decimals (`{:.6}`), and every row and key comes in a fixed
//! order, so the same inputs give byte-identical CSV, JSON and SVG files: only `timing.json`
//! (wall-clock times) differs between re-runs.

pub mod grouped_bars;
pub mod stats;
pub mod svg;

use crate::experiment::runner::{Failure, Outcome};
use crate::experiment::{Experiment, RunConfig};
use anyhow::Context;
use stats::{mean_ci, MeanCi};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The summary of one configuration over the trials.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigSummary {
    /// The configuration.
    pub config: RunConfig,
    /// Percentage of the maximum utility.
    pub utility_percent: MeanCi,
    /// Energy consumed in the day, in joules.
    pub energy_joules: MeanCi,
    /// Utility earned in the day.
    pub utility: MeanCi,
    /// Mean maximum utility.
    pub max_utility_mean: f64,
    /// Mean tasks completed.
    pub completed_mean: f64,
    /// Mean tasks dropped.
    pub dropped_mean: f64,
    /// Mean tasks unfinished.
    pub unfinished_mean: f64,
    /// Mean mapping events run.
    pub mapping_events_mean: f64,
}

/// The calibrated energy constraint: `fraction` x the reference's mean daily energy.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The reference configuration's label.
    pub reference: String,
    /// The fraction (0.7).
    pub fraction: f64,
    /// The reference's daily energy over the trials, in joules.
    pub reference_energy: MeanCi,
    /// The constraint, rounded to the joule: what `simulation.energy_budget_joules` takes.
    pub energy_budget_joules: f64,
}

/// Summarizes every configuration of `exp` over the rows of `out`.
pub fn summarize(exp: &Experiment, out: &Outcome) -> Vec<ConfigSummary> {
    exp.configs
        .iter()
        .enumerate()
        .map(|(i, cfg)| {
            let rows: Vec<_> = out.rows_of(i).map(|r| &r.summary).collect();
            let col = |f: &dyn Fn(&crate::run::RunSummary) -> f64| -> Vec<f64> {
                rows.iter().map(|s| f(s)).collect()
            };
            let mean = |v: Vec<f64>| mean_ci(&v).mean;
            ConfigSummary {
                config: cfg.clone(),
                utility_percent: mean_ci(&col(&|s| s.utility_percent)),
                energy_joules: mean_ci(&col(&|s| s.energy_joules)),
                utility: mean_ci(&col(&|s| s.utility)),
                max_utility_mean: mean(col(&|s| s.max_utility)),
                completed_mean: mean(col(&|s| s.completed as f64)),
                dropped_mean: mean(col(&|s| s.dropped as f64)),
                unfinished_mean: mean(col(&|s| s.unfinished as f64)),
                mapping_events_mean: mean(col(&|s| s.mapping_events as f64)),
            }
        })
        .collect()
}

/// The calibration of `exp`, if it calibrates.
pub fn calibration(exp: &Experiment, summaries: &[ConfigSummary]) -> Option<Calibration> {
    let cal = exp.calibrate.as_ref()?;
    let s = &summaries[cal.reference];
    Some(Calibration {
        reference: s.config.label.clone(),
        fraction: cal.fraction,
        reference_energy: s.energy_joules,
        energy_budget_joules: libm::round(cal.fraction * s.energy_joules.mean),
    })
}

/// A float as every report writes it: six decimals, no negative zero.
pub fn f6(x: f64) -> String {
    if x == 0.0 {
        return "0.000000".to_string();
    }
    format!("{x:.6}")
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `trials.csv`: one row per configuration and trial.
pub fn trials_csv(exp: &Experiment, out: &Outcome) -> String {
    let mut s = String::from(
        "label,heuristic,reservations,filter,leniency,trial,utility_percent,utility,max_utility,\
         energy_joules,budget,arrived,completed,dropped,unfinished,mapping_events,digest\n",
    );
    for r in &out.rows {
        let m = &r.summary;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&exp.configs[r.config].label),
            m.heuristic,
            m.reservations,
            m.filter,
            f6(m.leniency),
            m.trial,
            f6(m.utility_percent),
            f6(m.utility),
            f6(m.max_utility),
            f6(m.energy_joules),
            m.energy_budget_joules.map_or("none".to_string(), f6),
            m.arrived,
            m.completed,
            m.dropped,
            m.unfinished,
            m.mapping_events,
            m.digest,
        );
    }
    s
}

fn ci_text(c: &MeanCi) -> String {
    c.ci95.map_or(String::new(), f6)
}

/// `summary.csv`: one row per configuration (an empty CI with fewer than 2 trials).
pub fn summary_csv(summaries: &[ConfigSummary]) -> String {
    let mut s = String::from(
        "label,heuristic,reservations,filter,leniency,n,utility_percent_mean,utility_percent_ci95,\
         energy_joules_mean,energy_joules_ci95,utility_mean,utility_ci95,max_utility_mean,\
         completed_mean,dropped_mean,unfinished_mean,mapping_events_mean\n",
    );
    for c in summaries {
        let k = &c.config;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&k.label),
            k.heuristic_name(),
            k.reservations.name(),
            k.filter.name(),
            f6(k.leniency),
            c.utility_percent.n,
            f6(c.utility_percent.mean),
            ci_text(&c.utility_percent),
            f6(c.energy_joules.mean),
            ci_text(&c.energy_joules),
            f6(c.utility.mean),
            ci_text(&c.utility),
            f6(c.max_utility_mean),
            f6(c.completed_mean),
            f6(c.dropped_mean),
            f6(c.unfinished_mean),
            f6(c.mapping_events_mean),
        );
    }
    s
}

/// A JSON value, written with fixed-format numbers and keys in insertion order.
#[derive(Clone, Debug)]
pub enum Json {
    /// null.
    Null,
    /// An integer.
    Int(i64),
    /// A float, written `{:.6}` (null if not finite).
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, keys in order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// An object from (key, value) pairs.
    pub fn obj<const N: usize>(pairs: [(&str, Json); N]) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// A string value.
    pub fn str(s: &str) -> Json {
        Json::Str(s.to_string())
    }

    /// A float, or null.
    pub fn opt(x: Option<f64>) -> Json {
        x.map_or(Json::Null, Json::Num)
    }

    /// Pretty-printed, two spaces an indent, with a final line break.
    pub fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s.push('\n');
        s
    }

    fn write(&self, s: &mut String, depth: usize) {
        let pad = |s: &mut String, d: usize| s.extend(std::iter::repeat_n("  ", d));
        match self {
            Json::Null => s.push_str("null"),
            Json::Int(i) => {
                let _ = write!(s, "{i}");
            }
            Json::Num(x) if x.is_finite() => s.push_str(&f6(*x)),
            Json::Num(_) => s.push_str("null"),
            Json::Str(t) => s.push_str(&serde_json::to_string(t).expect("a string encodes")),
            Json::Arr(v) if v.is_empty() => s.push_str("[]"),
            Json::Arr(v) => {
                s.push_str("[\n");
                for (i, x) in v.iter().enumerate() {
                    pad(s, depth + 1);
                    x.write(s, depth + 1);
                    s.push_str(if i + 1 < v.len() { ",\n" } else { "\n" });
                }
                pad(s, depth);
                s.push(']');
            }
            Json::Obj(v) if v.is_empty() => s.push_str("{}"),
            Json::Obj(v) => {
                s.push_str("{\n");
                for (i, (k, x)) in v.iter().enumerate() {
                    pad(s, depth + 1);
                    s.push_str(&serde_json::to_string(k).expect("a string encodes"));
                    s.push_str(": ");
                    x.write(s, depth + 1);
                    s.push_str(if i + 1 < v.len() { ",\n" } else { "\n" });
                }
                pad(s, depth);
                s.push('}');
            }
        }
    }
}

fn mean_ci_json(c: &MeanCi) -> Json {
    Json::obj([("mean", Json::Num(c.mean)), ("ci95", Json::opt(c.ci95))])
}

/// `summary.json`: the experiment, one object per configuration, the sweeps, the failed runs
/// (only if any), the calibration.
pub fn summary_json(
    exp: &Experiment,
    summaries: &[ConfigSummary],
    calibration: Option<&Calibration>,
    failures: &[Failure],
) -> String {
    let configs = summaries
        .iter()
        .map(|c| {
            let k = &c.config;
            Json::obj([
                ("label", Json::str(&k.label)),
                ("heuristic", Json::str(k.heuristic_name())),
                ("reservations", Json::str(k.reservations.name())),
                ("filter", Json::str(k.filter.name())),
                ("leniency", Json::Num(k.leniency)),
                ("n", Json::Int(c.utility_percent.n as i64)),
                ("utility_percent", mean_ci_json(&c.utility_percent)),
                ("energy_joules", mean_ci_json(&c.energy_joules)),
                ("utility", mean_ci_json(&c.utility)),
                ("max_utility_mean", Json::Num(c.max_utility_mean)),
                ("completed_mean", Json::Num(c.completed_mean)),
                ("dropped_mean", Json::Num(c.dropped_mean)),
                ("unfinished_mean", Json::Num(c.unfinished_mean)),
                ("mapping_events_mean", Json::Num(c.mapping_events_mean)),
            ])
        })
        .collect();
    let series = exp
        .series
        .iter()
        .map(|s| {
            Json::obj([
                ("label", Json::str(&s.label)),
                ("filter", Json::str(s.filter.name())),
                (
                    "configs",
                    Json::Arr(
                        s.configs
                            .iter()
                            .map(|&i| Json::str(&exp.configs[i].label))
                            .collect(),
                    ),
                ),
            ])
        })
        .collect();
    let mut top = vec![
        ("experiment".to_string(), Json::str(&exp.name)),
        ("title".to_string(), Json::str(&exp.title)),
        ("scenario".to_string(), Json::str(&exp.scenario.name)),
        ("scenario_file".to_string(), Json::str(&exp.scenario_key)),
        ("trials".to_string(), Json::Int(exp.trials as i64)),
        (
            "energy_budget_joules".to_string(),
            Json::opt(exp.budget_joules()),
        ),
        ("configs".to_string(), Json::Arr(configs)),
        ("series".to_string(), Json::Arr(series)),
    ];
    if !failures.is_empty() {
        top.push((
            "failures".to_string(),
            Json::Arr(
                failures
                    .iter()
                    .map(|f| {
                        Json::obj([
                            ("label", Json::str(&exp.configs[f.config].label)),
                            ("trial", Json::Int(f.trial as i64)),
                            ("error", Json::str(&f.error)),
                        ])
                    })
                    .collect(),
            ),
        ));
    }
    if let Some(c) = calibration {
        top.push((
            "calibration".to_string(),
            Json::obj([
                ("reference", Json::str(&c.reference)),
                ("fraction", Json::Num(c.fraction)),
                ("reference_energy_joules", mean_ci_json(&c.reference_energy)),
                ("energy_budget_joules", Json::Num(c.energy_budget_joules)),
            ]),
        ));
    }
    Json::Obj(top).render()
}

/// Mean, max and total of `v` as JSON.
fn spread(v: &[f64]) -> Json {
    let total: f64 = v.iter().sum();
    let max = v.iter().copied().fold(0.0, f64::max);
    let mean = if v.is_empty() {
        0.0
    } else {
        total / v.len() as f64
    };
    Json::obj([
        ("mean", Json::Num(mean)),
        ("max", Json::Num(max)),
        ("total", Json::Num(total)),
    ])
}

/// `timing.json`: wall times (the one file that differs between re-runs).
pub fn timing_json(exp: &Experiment, out: &Outcome) -> String {
    let mut cpu = out.generate_s.iter().sum::<f64>();
    let configs = exp
        .configs
        .iter()
        .enumerate()
        .map(|(i, cfg)| {
            let rows: Vec<_> = out.rows_of(i).map(|r| &r.summary).collect();
            let walls: Vec<f64> = rows.iter().map(|s| s.wall_time_s).collect();
            cpu += walls.iter().sum::<f64>();
            let n = rows.len().max(1) as f64;
            let ev = |f: &dyn Fn(&crate::run::EventTimes) -> f64| {
                rows.iter().map(|s| f(&s.mapping_event_us)).sum::<f64>() / n
            };
            Json::obj([
                ("label", Json::str(&cfg.label)),
                ("run_s", spread(&walls)),
                (
                    "mapping_event_us",
                    Json::obj([
                        ("p50_mean", Json::Num(ev(&|e| e.p50 as f64))),
                        ("p99_mean", Json::Num(ev(&|e| e.p99 as f64))),
                        ("mean_mean", Json::Num(ev(&|e| e.mean))),
                        (
                            "max",
                            Json::Int(
                                rows.iter()
                                    .map(|s| s.mapping_event_us.max)
                                    .max()
                                    .unwrap_or(0) as i64,
                            ),
                        ),
                    ]),
                ),
            ])
        })
        .collect();
    Json::obj([
        (
            "note",
            Json::str("wall-clock times: the only output that differs between re-runs"),
        ),
        ("experiment", Json::str(&exp.name)),
        ("jobs", Json::Int(out.jobs as i64)),
        ("trials", Json::Int(exp.trials as i64)),
        ("runs", Json::Int(out.rows.len() as i64)),
        ("wall_s", Json::Num(out.wall_s)),
        ("cpu_s", Json::Num(cpu)),
        ("generate_s", spread(&out.generate_s)),
        ("configs", Json::Arr(configs)),
    ])
    .render()
}

/// A text table of the summaries, for the terminal.
pub fn text_table(exp: &Experiment, summaries: &[ConfigSummary]) -> String {
    let w = summaries
        .iter()
        .map(|c| c.config.label.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    // A trace experiment (seed 001) earns value and models no energy: no energy column
    // (it printed 0.000 +/- 0.000).
    let energy = exp.trace.is_none();
    let metric = if energy {
        "utility % (95% CI)"
    } else {
        "value % (95% CI)"
    };
    let mut s = format!("{:<w$}  {:>4}  {:>18}", "label", "n", metric);
    if energy {
        s.push_str(&format!("  {:>18}", "energy GJ (95% CI)"));
    }
    s.push('\n');
    let pm = |c: &MeanCi, scale: f64, d: usize| match c.ci95 {
        Some(ci) => format!("{:.d$} ± {:.d$}", c.mean / scale, ci / scale),
        None => format!("{:.d$}", c.mean / scale),
    };
    for c in summaries {
        let _ = write!(
            s,
            "{:<w$}  {:>4}  {:>18}",
            c.config.label,
            c.utility_percent.n,
            pm(&c.utility_percent, 1.0, 2),
        );
        if energy {
            let _ = write!(s, "  {:>18}", pm(&c.energy_joules, 1e9, 3));
        }
        s.push('\n');
    }
    match exp.budget_joules() {
        _ if !energy => {}
        Some(b) => {
            let _ = writeln!(s, "energy budget: {:.3} GJ a day", b / 1e9);
        }
        None => s.push_str("energy budget: none (unconstrained)\n"),
    }
    s
}

/// The files [`write_all`] wrote.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// Their paths, in the order written.
    pub files: Vec<PathBuf>,
}

/// Every file [`write_all`] may write (the leniency plots only for a sweep): what `--force`
/// removes first, so no report of an earlier experiment stays beside the new ones.
pub const REPORT_FILES: [&str; 8] = [
    "trials.csv",
    "summary.csv",
    "summary.json",
    "timing.json",
    "utility.svg",
    "energy.svg",
    "leniency.svg",
    "leniency-energy.svg",
];

/// Writes every report of `exp` and `out` into `dir` (created if needed).
pub fn write_all(dir: &Path, exp: &Experiment, out: &Outcome) -> anyhow::Result<Written> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the output directory", dir.display()))?;
    let summaries = summarize(exp, out);
    let cal = calibration(exp, &summaries);
    let mut files: Vec<(&str, String)> = vec![
        ("trials.csv", trials_csv(exp, out)),
        ("summary.csv", summary_csv(&summaries)),
        (
            "summary.json",
            summary_json(exp, &summaries, cal.as_ref(), &out.failures),
        ),
        ("timing.json", timing_json(exp, out)),
        ("utility.svg", svg::utility_bars(exp, &summaries)),
    ];
    // A trace experiment (seed 001) models no power: no energy plot.
    if exp.trace.is_none() {
        files.push(("energy.svg", svg::energy_bars(exp, &summaries)));
    }
    if !exp.series.is_empty() {
        files.push(("leniency.svg", svg::leniency_lines(exp, &summaries, false)));
        files.push((
            "leniency-energy.svg",
            svg::leniency_lines(exp, &summaries, true),
        ));
    }
    let mut written = Written::default();
    for (name, text) in files {
        let path = dir.join(name);
        crate::output::write_atomic(&path, text)?;
        written.files.push(path);
    }
    Ok(written)
}

//! Seed 002 experiment files (`system = "serial"`), as `kairos experiment` runs them: the
//! workload, and the configurations as a product of heuristics x thresholds (x triggers x
//! App. A permutations for the batch heuristics), each run on trials 0..trials.
//!
//! ```toml
//! name = "s002-fig2.6-50k"          # out/<name>/
//! title = "..."                      # optional (default: name)
//! system = "serial"                  # marks a seed 002 file
//! seed = 2002                        # the scenario seed of the ChaCha streams
//! tasks_per_day = 50000
//! trials = 50                        # optional, default 50 (--trials overrides)
//! priorities = [8, 4, 2, 1]          # optional: critical, high, medium, low (App. H: 1000,
//!                                    # 100, 10, 1)
//! classes = 4                        # optional: 4 (Table C.1, Ch. 2) or 20 (seed 000's)
//! cost = "modelled"                  # optional: modelled (default), zero, or per-eval:PICOS
//!                                    # (every heuristic at one rate: a diagnostic)
//! heuristics = ["max-max-upt"]       # optional, default the eleven of Fig. 2.5
//! thetas = [0, 0.5]                  # optional, default [0]
//! permute = [0, 2, 3, 5]             # optional, default [0]: App. A (batch only)
//! k = 1                              # optional: K of k-best-types
//! bursts = "literal"                 # optional: mean (default: bursts rescaled to N_i) or literal
//!
//! [[triggers]]                       # optional, default one event a minute (batch only)
//! label = "(3) 35 / 1 min"
//! tasks = 35                         # optional: after this many arrivals
//! interval_min = 1.0                 # optional: or after this many minutes
//! ```
//!
//! Errors name the file, the line and the key (`crate::toml_file`).

use crate::seed002::generate::{self, Bursts, Workload};
use crate::toml_file::{self, Checker, TomlFileError};
use anyhow::Context;
use kairos_core::serial::{EventCost, Mode, SerialConfig, SerialHeuristic, SerialReport, Trigger};
use kairos_core::units::{Micros, Utility};
use serde::Deserialize;
use std::path::Path;

/// Trials when the file does not say (Chapter 2: 50).
pub const DEFAULT_TRIALS: u32 = 50;

/// The heuristics of Fig. 2.5, in its order (K-Best Types at K = 1 is MET-Max Util).
pub const FIG_2_5: [&str; 11] = [
    "random",
    "round-robin",
    "max-util",
    "max-upt",
    "met-random",
    "met-max-util",
    "min-min-comp",
    "sufferage",
    "max-max-util",
    "max-max-upt",
    "met-max-util-max-upt",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTrigger {
    label: Option<String>,
    tasks: Option<u32>,
    interval_min: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: String,
    title: Option<String>,
    system: String,
    seed: u64,
    tasks_per_day: f64,
    trials: Option<u32>,
    priorities: Option<[f64; 4]>,
    classes: Option<u8>,
    cost: Option<String>,
    heuristics: Option<Vec<String>>,
    thetas: Option<Vec<f64>>,
    permute: Option<Vec<u8>>,
    k: Option<u8>,
    triggers: Option<Vec<FileTrigger>>,
    bursts: Option<String>,
}

/// One configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Its label in reports.
    pub label: String,
    /// The heuristic's label alone (the plots' colour).
    pub heuristic_label: String,
    /// The core's configuration (seed and window are set per trial).
    pub cfg: SerialConfig,
    /// The trigger's label (batch only).
    pub trigger: Option<String>,
}

/// A loaded serial experiment.
#[derive(Clone, Debug)]
pub struct SerialExperiment {
    /// Its name.
    pub name: String,
    /// The plots' title.
    pub title: String,
    /// The workload.
    pub workload: Workload,
    /// Trials 0..trials.
    pub trials: u32,
    /// The configurations, heuristics fastest, then thresholds, triggers, permutations.
    pub configs: Vec<Config>,
}

/// Whether the TOML at `path` is a seed 002 file (`system = "serial"`); false if it cannot
/// be read or parsed (the seed 000 loader then reports why).
pub fn is_serial(path: &Path) -> bool {
    toml_file::declares_system(path, "serial")
}

impl SerialExperiment {
    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<SerialExperiment, TomlFileError> {
        let (text, file) = toml_file::read(path)?;
        let f: File = toml_file::parse(&text, &file)?;
        let mut c = Checker::new(&file, &text);
        if f.system != "serial" {
            c.fail("system", &f.system, "must be \"serial\"");
        }
        // At least one task a day: a smaller rate draws no task, and the run would report the
        // workload as if it had been asked for.
        c.float("tasks_per_day", f.tasks_per_day, 1.0, 1e6);
        let trials = f.trials.unwrap_or(DEFAULT_TRIALS);
        c.int("trials", trials as u64, 1, 100_000);
        let priorities = f.priorities.unwrap_or([8.0, 4.0, 2.0, 1.0]);
        for (i, p) in priorities.iter().enumerate() {
            c.float(&format!("priorities[{i}]"), *p, 0.0, 1e9);
        }
        let classes = f.classes.unwrap_or(4);
        if classes != 4 && classes != 20 {
            c.fail(
                "classes",
                classes,
                "must be 4 (Table C.1) or 20 (seed 000's)",
            );
        }
        let cost = match f.cost.as_deref().unwrap_or("modelled") {
            "modelled" => EventCost::Modelled,
            "zero" => EventCost::Zero,
            // A diagnostic: every heuristic at one rate (experiments/s002-why-*-cost-*.toml).
            other => match other.strip_prefix("per-eval:").map(str::parse::<u64>) {
                Some(Ok(ps)) if ps > 0 => EventCost::PerEval(ps),
                _ => {
                    c.fail(
                        "cost",
                        other,
                        "must be \"modelled\", \"zero\" or \"per-eval:PICOSECONDS\"",
                    );
                    EventCost::Zero
                }
            },
        };
        let k = f.k.unwrap_or(1);
        c.int("k", k as u64, 1, 13);
        let names: Vec<String> = f
            .heuristics
            .unwrap_or_else(|| FIG_2_5.iter().map(|s| s.to_string()).collect());
        let mut hs = Vec::new();
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                c.fail(&format!("heuristics[{i}]"), n, "listed twice");
            }
            match SerialHeuristic::from_name(n, k) {
                Some(h) => hs.push(h),
                None => c.fail(
                    &format!("heuristics[{i}]"),
                    n,
                    "unknown heuristic (random, round-robin, max-util, max-upt, met-random, \
                     met-max-util, k-best-types, min-min-comp, sufferage, max-max-util, \
                     max-max-upt, met-max-util-max-upt)",
                ),
            }
        }
        let thetas = f.thetas.unwrap_or_else(|| vec![0.0]);
        for (i, t) in thetas.iter().enumerate() {
            c.float(&format!("thetas[{i}]"), *t, 0.0, 1e9);
            if thetas[..i].contains(t) {
                c.fail(&format!("thetas[{i}]"), t, "listed twice");
            }
        }
        let permutes = f.permute.unwrap_or_else(|| vec![0]);
        for (i, p) in permutes.iter().enumerate() {
            if !matches!(p, 0 | 2..=5) {
                c.fail(&format!("permute[{i}]"), p, "must be 0 (off) or 2 to 5");
            }
            // Twice would run and label one configuration twice (the fuzzer's find).
            if permutes[..i].contains(p) {
                c.fail(&format!("permute[{i}]"), p, "listed twice");
            }
        }
        let mut triggers = Vec::new();
        for (i, t) in f.triggers.unwrap_or_default().into_iter().enumerate() {
            let key = format!("triggers[{i}]");
            if t.tasks.is_none() && t.interval_min.is_none() {
                c.fail(&key, "{}", "needs tasks, interval_min or both");
            }
            if let Some(n) = t.tasks {
                c.int(&format!("{key}.tasks"), n as u64, 1, 1_000_000);
            }
            if let Some(m) = t.interval_min {
                c.float_above(&format!("{key}.interval_min"), m, 0.0, 1440.0);
            }
            let trig = Trigger {
                tasks: t.tasks,
                interval: t.interval_min.map(|m| Micros::from_secs_f64(m * 60.0)),
            };
            let label = t.label.unwrap_or_else(|| trigger_label(&trig));
            if triggers
                .iter()
                .any(|(l, _): &(String, Trigger)| *l == label)
            {
                c.fail(
                    &format!("{key}.label"),
                    &label,
                    "two triggers with one label",
                );
            }
            triggers.push((label, trig));
        }
        let bursts = match f.bursts.as_deref().map(|b| (b, Bursts::parse(b))) {
            None => Bursts::default(),
            Some((_, Some(b))) => b,
            Some((b, None)) => {
                c.fail("bursts", b, "must be mean or literal");
                Bursts::default()
            }
        };
        c.finish()?;
        let default_trigger = triggers.is_empty();
        if default_trigger {
            triggers.push(("1 min".to_string(), Trigger::MINUTE));
        }
        let mut configs = Vec::new();
        for (tl, trig) in &triggers {
            for &p in &permutes {
                for &theta in &thetas {
                    for &h in &hs {
                        let batch = h.mode() == Mode::Batch;
                        let first = tl == &triggers[0].0 && p == permutes[0];
                        if !batch && !first {
                            continue;
                        }
                        let mut label = h.label().to_string();
                        if thetas.len() > 1 {
                            label.push_str(&format!(" theta={theta}"));
                        }
                        if batch && !default_trigger && triggers.len() > 1 {
                            label.push_str(&format!(" {tl}"));
                        }
                        if batch && permutes.len() > 1 {
                            label.push_str(&format!(" perm={p}"));
                        }
                        configs.push(Config {
                            label,
                            heuristic_label: h.label().to_string(),
                            cfg: SerialConfig {
                                heuristic: h,
                                theta,
                                trigger: *trig,
                                cost,
                                permute: p,
                                seed: 0,
                                window: (Micros::ZERO, Micros::ZERO),
                            },
                            trigger: batch.then(|| tl.clone()),
                        });
                    }
                }
            }
        }
        let mut workload = Workload::chapter2(f.seed, f.tasks_per_day);
        workload.bursts = bursts;
        workload.priorities = priorities;
        workload.classes = classes;
        Ok(SerialExperiment {
            title: f.title.unwrap_or_else(|| f.name.clone()),
            name: f.name,
            workload,
            trials,
            configs,
        })
    }
}

fn trigger_label(t: &Trigger) -> String {
    match (t.tasks, t.interval) {
        (Some(n), Some(i)) => format!("{n} / {} min", i.as_mins_f64()),
        (Some(n), None) => format!("{n} tasks"),
        (None, Some(i)) => format!("{} min", i.as_mins_f64()),
        (None, None) => "never".to_string(),
    }
}

/// One configuration on one trial.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration's index.
    pub config: usize,
    /// The trial.
    pub trial: u32,
    /// The trial's maximum-utility bound.
    pub bound: f64,
    /// What the core reported.
    pub report: SerialReport,
    /// The report's utility by priority level: critical, high, medium, low.
    pub by_priority: [Utility; 4],
}

/// Trial `t` of `exp` and its maximum-utility bound: the data its configurations share.
pub(crate) fn trial_data(exp: &SerialExperiment, t: u32) -> (generate::Trial, f64) {
    let tr = generate::trial(&exp.workload, t);
    let bound = generate::bound(&tr, exp.workload.window());
    (tr, bound)
}

/// Configuration `i` of `exp` on trial `t` (`data` from [`trial_data`]).
pub(crate) fn run_config(
    exp: &SerialExperiment,
    (tr, bound): &(generate::Trial, f64),
    i: usize,
    t: u32,
) -> anyhow::Result<Row> {
    let c = &exp.configs[i];
    let cfg = SerialConfig {
        seed: exp.workload.seed ^ ((t as u64) << 32),
        window: exp.workload.window(),
        ..c.cfg
    };
    let (report, by_priority) =
        crate::seed002::serial::run::run_split(tr, cfg, &exp.workload.priorities)
            .with_context(|| format!("{} on trial {t}", c.label))?;
    Ok(Row {
        config: i,
        trial: t,
        bound: *bound,
        report,
        by_priority,
    })
}

/// Runs every configuration of `exp` on every trial on `jobs` threads; rows sorted by
/// (configuration, trial). `progress` is told each finished trial.
pub fn run(
    exp: &SerialExperiment,
    jobs: Option<usize>,
    progress: &(dyn Fn(u32) + Sync),
) -> anyhow::Result<Vec<Row>> {
    crate::seed002::grid::run_grid(
        exp.trials,
        exp.configs.len(),
        jobs,
        progress,
        |t| trial_data(exp, t),
        |d, i, t| run_config(exp, d, i, t),
    )
}

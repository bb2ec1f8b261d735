//! Seed 002's energy-constrained experiment files (`system = "serial-energy"`, Chapters 3
//! and 4), as `kairos experiment` runs them: the workload, the budget, and the configurations
//! as a product of machine models x filters x heuristics (x weights for the weighted ones),
//! each run on trials 0..trials; and their reports.
//!
//! ```toml
//! name = "s002-energy-fig3.4"        # out/<name>/
//! system = "serial-energy"
//! chapter = 3                        # 3: two days, 50k tasks, 4 classes; 4: 26 h, 32k, 20
//! seed = 2002
//! tasks_per_day = 50000              # optional: the chapter's
//! bursts = "literal"                # optional: mean (default: bursts rescaled to N_i) or literal
//! trials = 48                        # optional, default 48 (--trials overrides)
//! budget_gj = 1.11                   # the daily budget E; "unconstrained" omits it
//! theta = 0.5                        # optional, default 0.5
//! environment = "example"            # optional: example, low-tma, high-tma (Table 3.2)
//! machines = ["queued"]              # optional: queued, polled
//! filters = ["none", "tuned:0.75"]   # optional: none, tuned:L, adaptive[:L]
//! heuristics = ["max-max-upe"]       # see EnergyHeuristic::NAMES
//! weights = [0.5]                    # optional, for the weighted heuristics
//! trace_minutes = 20                 # optional: cumulative utility and energy traces
//! ```
//!
//! Reports (`out/<name>/`): `trials.csv` (one row per configuration and trial, with the
//! digest), `summary.csv` (means and 95% CIs; `idle_pct` the share of machine time with no
//! task executing), `traces.csv` (mean cumulative utility and
//! energy at each trace point), and the plots of [`plots`]. Nothing depends on wall time or thread count.

use crate::report::f6;
use crate::report::stats::{mean_ci, MeanCi};
use crate::seed002::energy::env::{power_tables, with_affinity, Affinity, PowerTables};
use crate::seed002::generate::{self, Bursts, Trial, Workload};
use crate::toml_file::{self, Checker, TomlFileError};
use anyhow::Context;
use kairos_core::serial::{
    EnergyCap, EnergyConfig, EnergyHeuristic, EnergyReport, EnergySim, EnergyStorage, Machines,
    PowerModel, SerialFilter, TaskOutcome, NO_ENERGY_CAP,
};
use kairos_core::units::{Micros, MilliJoules, Utility};
use kairos_core::utility::UtilityCurve;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;

/// Trials when the file does not say (Chapters 3 and 4: 48).
pub const DEFAULT_TRIALS: u32 = 48;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: String,
    title: Option<String>,
    system: String,
    chapter: u8,
    seed: u64,
    tasks_per_day: Option<f64>,
    trials: Option<u32>,
    budget_gj: Option<toml::Value>,
    theta: Option<f64>,
    environment: Option<String>,
    machines: Option<Vec<String>>,
    filters: Option<Vec<String>>,
    heuristics: Vec<String>,
    weights: Option<Vec<f64>>,
    trace_minutes: Option<u32>,
    bursts: Option<String>,
}

/// One configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Its label in reports.
    pub label: String,
    /// The core's configuration (seed set per trial).
    pub cfg: EnergyConfig,
}

/// A loaded energy experiment.
#[derive(Clone, Debug)]
pub struct EnergyExperiment {
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: String,
    /// The chapter (3 or 4).
    pub chapter: u8,
    /// The workload.
    pub workload: Workload,
    /// The ETC environment.
    pub affinity: Affinity,
    /// Trials 0..trials.
    pub trials: u32,
    /// The daily budget ([`MilliJoules::MAX`]: unconstrained).
    pub budget: MilliJoules,
    /// Trace step (None: no traces).
    pub trace: Option<Micros>,
    /// The configurations.
    pub configs: Vec<Config>,
}

/// Whether the TOML at `path` is an energy file (`system = "serial-energy"`).
pub fn is_energy(path: &Path) -> bool {
    toml_file::declares_system(path, "serial-energy")
}

fn parse_filter(s: &str) -> Option<SerialFilter> {
    let (kind, l) = match s.split_once(':') {
        Some((k, l)) => (k, Some(l.trim().parse::<f64>().ok()?)),
        None => (s, None),
    };
    let f = match (kind.trim(), l) {
        ("none", None) => SerialFilter::None,
        ("tuned", Some(l)) => SerialFilter::Tuned(l),
        ("adaptive", l) => SerialFilter::Adaptive(l.unwrap_or(1.0)),
        _ => return None,
    };
    f.is_valid().then_some(f)
}

fn filter_label(f: SerialFilter) -> String {
    match f {
        SerialFilter::None => "no filter".into(),
        SerialFilter::Tuned(l) => format!("L={l}"),
        SerialFilter::Adaptive(1.0) => "adaptive".into(),
        SerialFilter::Adaptive(l) => format!("adaptive L={l}"),
    }
}

impl EnergyExperiment {
    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<EnergyExperiment, TomlFileError> {
        let (text, file) = toml_file::read(path)?;
        let f: File = toml_file::parse(&text, &file)?;
        let mut c = Checker::new(&file, &text);
        if f.system != "serial-energy" {
            c.fail("system", &f.system, "must be \"serial-energy\"");
        }
        if f.chapter != 3 && f.chapter != 4 {
            c.fail("chapter", f.chapter, "must be 3 or 4");
        }
        let ch3 = f.chapter == 3;
        let per_day = f
            .tasks_per_day
            .unwrap_or(if ch3 { 50_000.0 } else { 32_000.0 });
        // At least one task a day: a smaller rate draws no task, and the run would report the
        // chapter's workload as if it had been asked for.
        c.float("tasks_per_day", per_day, 1.0, 1e6);
        let trials = f.trials.unwrap_or(DEFAULT_TRIALS);
        c.int("trials", trials as u64, 1, 100_000);
        let budget = match &f.budget_gj {
            None => {
                c.fail(
                    "budget_gj",
                    "(missing)",
                    "a number of GJ or \"unconstrained\"",
                );
                MilliJoules::MAX
            }
            Some(toml::Value::String(s)) if s == "unconstrained" => MilliJoules::MAX,
            Some(v) => match v.as_float().or(v.as_integer().map(|i| i as f64)) {
                Some(g) if g > 0.0 && g < 1e6 => MilliJoules((g * 1e12).round() as u64),
                _ => {
                    c.fail(
                        "budget_gj",
                        v,
                        "a positive number of GJ or \"unconstrained\"",
                    );
                    MilliJoules::MAX
                }
            },
        };
        let theta = f.theta.unwrap_or(0.5);
        c.float("theta", theta, 0.0, 1e9);
        let affinity = match f.environment.as_deref().unwrap_or("example") {
            "example" => Affinity::Example,
            "low-tma" => Affinity::Low,
            "high-tma" => Affinity::High,
            other => {
                c.fail("environment", other, "must be example, low-tma or high-tma");
                Affinity::Example
            }
        };
        let mut machines = Vec::new();
        let machines_named = f.machines.unwrap_or_else(|| vec!["queued".into()]);
        for (i, m) in machines_named.iter().enumerate() {
            if machines_named[..i].contains(m) {
                c.fail(&format!("machines[{i}]"), m, "listed twice");
            }
            match m.as_str() {
                "queued" => machines.push(Machines::Queued),
                "polled" => machines.push(Machines::Polled),
                _ => c.fail(&format!("machines[{i}]"), m, "must be queued or polled"),
            }
        }
        let mut filters = Vec::new();
        for (i, s) in f
            .filters
            .unwrap_or_else(|| vec!["none".into()])
            .iter()
            .enumerate()
        {
            match parse_filter(s) {
                // Two spellings of one filter (`adaptive`, `adaptive:1`) are one filter.
                Some(x) if filters.contains(&x) => {
                    c.fail(&format!("filters[{i}]"), s, "listed twice")
                }
                Some(x) => filters.push(x),
                None => c.fail(
                    &format!("filters[{i}]"),
                    s,
                    "must be none, tuned:L or adaptive[:L] with L > 0",
                ),
            }
        }
        let weights = f.weights.unwrap_or_else(|| vec![0.5]);
        for (i, w) in weights.iter().enumerate() {
            c.float(&format!("weights[{i}]"), *w, 0.0, 1.0);
            if weights[..i].contains(w) {
                c.fail(&format!("weights[{i}]"), w, "listed twice");
            }
        }
        let mut hs = Vec::new();
        for (i, n) in f.heuristics.iter().enumerate() {
            if f.heuristics[..i].contains(n) {
                c.fail(&format!("heuristics[{i}]"), n, "listed twice");
            }
            match EnergyHeuristic::from_name(n, 0.0) {
                Some(h) => hs.push((n.clone(), h)),
                None => c.fail(
                    &format!("heuristics[{i}]"),
                    n,
                    format!("unknown heuristic ({})", EnergyHeuristic::NAMES),
                ),
            }
        }
        if let Some(t) = f.trace_minutes {
            c.int("trace_minutes", t as u64, 1, 1440);
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
        let (first_day, window, horizon) = if ch3 {
            (Micros::from_hours(24), (24, 48), 48)
        } else {
            (Micros::from_hours(2), (2, 26), 26)
        };
        let mut configs = Vec::new();
        for &m in &machines {
            for &flt in &filters {
                for (name, h) in &hs {
                    let ws: Vec<Option<f64>> = if h.weight().is_some() {
                        weights.iter().map(|&w| Some(w)).collect()
                    } else {
                        vec![None]
                    };
                    for w in ws {
                        let h = match w {
                            Some(w) => EnergyHeuristic::from_name(name, w).unwrap_or(*h),
                            None => *h,
                        };
                        let mut label = label_of(name);
                        if let Some(w) = w {
                            label.push_str(&format!(" w={w}"));
                        }
                        if filters.len() > 1 {
                            label.push_str(&format!(" {}", filter_label(flt)));
                        }
                        if machines.len() > 1 {
                            label.push_str(match m {
                                Machines::Queued => " queued",
                                Machines::Polled => " polled",
                            });
                        }
                        configs.push(Config {
                            label,
                            cfg: EnergyConfig {
                                heuristic: h,
                                filter: flt,
                                machines: m,
                                theta,
                                interval: Micros::MINUTE,
                                budget,
                                first_day,
                                day_len: Micros::from_hours(24),
                                window: (
                                    Micros::from_hours(window.0),
                                    Micros::from_hours(window.1),
                                ),
                                seed: 0,
                            },
                        });
                    }
                }
            }
        }
        let mut workload = Workload::chapter2(f.seed, per_day);
        workload.bursts = bursts;
        workload.classes = if ch3 { 4 } else { 20 };
        workload.warmup_hours = window.0;
        workload.horizon_hours = horizon;
        Ok(EnergyExperiment {
            title: f.title.unwrap_or_else(|| f.name.clone()),
            name: f.name,
            chapter: f.chapter,
            workload,
            affinity,
            trials,
            budget,
            trace: f.trace_minutes.map(|m| Micros::from_mins(m as u64)),
            configs,
        })
    }
}

/// The dissertation's name for a heuristic's command-line name.
pub fn label_of(name: &str) -> String {
    match name {
        "min-min-comp" => "Min-Min Comp",
        "max-max-util" => "Max-Max Util",
        "max-max-upt" => "Max-Max UPT",
        "max-max-upe" => "Max-Max UPE",
        "max-utility" => "Max Utility",
        "max-upt" => "Max UPT",
        "max-upe" => "Max UPE",
        "weighted-util" => "Weighted Util",
        "weighted-upt" => "Weighted UPT",
        "weighted-upe" => "Weighted UPE",
        "fcfs-p0" => "FCFS P0",
        "fcfs-all" => "FCFS All",
        "lcfs-p0" => "LCFS P0",
        "lcfs-all" => "LCFS All",
        "prio-fcfs-p0" => "Prioritized FCFS P0",
        "prio-fcfs-all" => "Prioritized FCFS All",
        "prio-lcfs-p0" => "Prioritized LCFS P0",
        "prio-lcfs-all" => "Prioritized LCFS All",
        "random" => "Random",
        other => other,
    }
    .to_string()
}

/// A trial of an energy experiment: the Chapter 2 trial with its ETC in the experiment's
/// affinity environment, and its P-state tables.
pub struct EnergyTrial {
    /// The trial (P-state 0 ETC in `etc`).
    pub trial: Trial,
    /// The P-state tables.
    pub power: PowerTables,
}

impl EnergyTrial {
    /// Trial `t` of `w` in environment `affinity`.
    pub fn new(w: &Workload, t: u32, affinity: Affinity) -> EnergyTrial {
        let mut trial = generate::trial(w, t);
        trial.etc = with_affinity(&trial.etc, affinity);
        let power = power_tables(w.seed, t, &trial.etc);
        EnergyTrial { trial, power }
    }

    /// The core's P-state model.
    pub fn power(&self) -> PowerModel<'_> {
        PowerModel {
            pstates: 3,
            etc: &self.power.etc,
            apc_mw: &self.power.apc_mw,
        }
    }
}

/// The buffers the core's energy loop works in, sized for `n` tasks.
pub struct EnergyBuffers {
    outcome: Vec<TaskOutcome>,
    pstate: Vec<u8>,
    wait: Vec<u16>,
    u32s: [Vec<u32>; 7],
    key: Vec<f64>,
    type_bound: Vec<f32>,
    cap: Vec<EnergyCap>,
}

impl EnergyBuffers {
    /// Buffers for `n` tasks.
    pub fn new(n: usize) -> EnergyBuffers {
        EnergyBuffers {
            outcome: vec![TaskOutcome::Waiting; n],
            pstate: vec![0; n],
            wait: vec![0; n],
            u32s: std::array::from_fn(|i| vec![0; if i == 6 { 2 * n } else { n }]),
            key: vec![0.0; n],
            type_bound: vec![0.0; n * generate::MACHINE_COUNTS.len()],
            cap: vec![NO_ENERGY_CAP; n],
        }
    }

    /// The core's view of them.
    pub fn storage(&mut self) -> EnergyStorage<'_> {
        let [link, slots, pool, choice, next, prev, tree] = &mut self.u32s;
        EnergyStorage {
            outcome: &mut self.outcome,
            pstate: &mut self.pstate,
            wait: &mut self.wait,
            link,
            slots,
            pool,
            key: &mut self.key,
            choice,
            next,
            prev,
            tree,
            type_bound: &mut self.type_bound,
            cap: &mut self.cap,
        }
    }
}

/// One configuration on one trial.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration's index.
    pub config: usize,
    /// The trial.
    pub trial: u32,
    /// What the core reported.
    pub report: EnergyReport,
    /// The cumulative (utility, energy J) at each trace point.
    pub trace: Vec<(f64, f64)>,
    /// Fig. 4.5: the share (%) of the maximum utility of priority-1 and priority-8 tasks
    /// arriving in the window that was earned.
    pub priority_share: [f64; 2],
    /// The share (%) of the machines' time in the window with no task executing (Ch. 4:
    /// polled machines idle more).
    pub idle_pct: f64,
}

/// A run's measures: the report, the trace, Fig. 4.5's priority shares, the idle share.
pub type Measures = (EnergyReport, Vec<(f64, f64)>, [f64; 2], f64);

/// Runs `cfg` on trial `et` and collects the row's measures; the run's simulated hours are
/// told to the command's progress ([`crate::progress::SimHours`]).
pub fn run_one(
    et: &EnergyTrial,
    cfg: EnergyConfig,
    trace: Option<Micros>,
) -> anyhow::Result<Measures> {
    let tr = &et.trial;
    let mut b = EnergyBuffers::new(tr.tasks.len());
    let mut sim = EnergySim::new(tr.env(), et.power(), &tr.tasks, cfg, b.storage())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    // The clock told to the command's progress, a run of a day taking seconds.
    let mut hours = crate::progress::SimHours::new(cfg.window.1 .0);
    while let Some(t) = sim.next_event() {
        hours.at(t.0);
        sim.map();
    }
    hours.end();
    let report = sim.finish();
    let (w0, w1) = cfg.window;
    let mut points = Vec::new();
    if let Some(step) = trace {
        let n = ((w1 - w0).0 / step.0) as usize;
        let mut buf = vec![(Utility::ZERO, MilliJoules::ZERO); n];
        sim.trace(step, &mut buf);
        points = buf
            .iter()
            .map(|(u, e)| (u.as_f64(), e.as_joules_f64()))
            .collect();
    }
    let mut earned = [0.0f64; 2];
    let mut max = [0.0f64; 2];
    for (t, task) in tr.tasks.iter().enumerate() {
        let UtilityCurve::PiecewiseExp { priority, .. } = task.curve else {
            continue;
        };
        let slot = if priority == 1.0 {
            0
        } else if priority == 8.0 {
            1
        } else {
            continue;
        };
        if task.arrival >= w0 && task.arrival < w1 {
            max[slot] += priority;
        }
        if let Some((u, _, _)) = sim.task_share(t as u32, w0, w1) {
            earned[slot] += u.as_f64();
        }
    }
    let share = [0, 1].map(|i| {
        if max[i] > 0.0 {
            100.0 * earned[i] / max[i]
        } else {
            0.0
        }
    });
    // A machine runs one task at a time, so the runs' parts inside the window sum to its
    // busy time; the rest of machines x window is idle.
    let busy: u64 = (0..tr.tasks.len() as u32)
        .filter_map(|t| sim.task_run(t))
        .map(|(_, s, e)| e.min(w1).0.saturating_sub(s.max(w0).0))
        .sum();
    let capacity = tr.machine_type.len() as f64 * (w1 - w0).0 as f64;
    let idle_pct = if capacity > 0.0 {
        100.0 * (1.0 - busy as f64 / capacity)
    } else {
        0.0
    };
    Ok((report, points, share, idle_pct))
}

/// Configuration `i` of `exp` on trial `et` (trial `t`).
pub(crate) fn run_config(
    exp: &EnergyExperiment,
    et: &EnergyTrial,
    i: usize,
    t: u32,
) -> anyhow::Result<Row> {
    let c = &exp.configs[i];
    let cfg = EnergyConfig {
        seed: exp.workload.seed ^ ((t as u64) << 32),
        ..c.cfg
    };
    let (report, trace, priority_share, idle_pct) =
        run_one(et, cfg, exp.trace).with_context(|| format!("{} on trial {t}", c.label))?;
    Ok(Row {
        config: i,
        trial: t,
        report,
        trace,
        priority_share,
        idle_pct,
    })
}

/// Runs every configuration on every trial on `jobs` threads; rows by (config, trial).
pub fn run(
    exp: &EnergyExperiment,
    jobs: Option<usize>,
    progress: &(dyn Fn(u32) + Sync),
) -> anyhow::Result<Vec<Row>> {
    crate::seed002::grid::run_grid(
        exp.trials,
        exp.configs.len(),
        jobs,
        progress,
        |t| EnergyTrial::new(&exp.workload, t, exp.affinity),
        |et, i, t| run_config(exp, et, i, t),
    )
}

fn ci(m: &MeanCi) -> String {
    m.ci95.map_or_else(String::new, f6)
}

/// The first trace point (minutes into the window) where the cumulative energy reaches 99%
/// of the budget: when the day's energy ran out (the window's end if never).
fn exhausted_min(trace: &[(f64, f64)], budget_j: f64, step_min: f64) -> f64 {
    trace
        .iter()
        .position(|&(_, e)| e >= 0.99 * budget_j)
        .map_or(trace.len() as f64 * step_min, |i| (i + 1) as f64 * step_min)
}

/// The reports' text: (summary.csv, trials.csv, traces.csv, the text table).
pub fn reports(exp: &EnergyExperiment, rows: &[Row]) -> (String, String, String, String) {
    let budget_j = exp.budget.as_joules_f64();
    let step_min = exp.trace.map_or(0.0, |s| s.as_mins_f64());
    let mut summary = String::from(
        "label,trials,utility,utility_ci95,energy_gj,energy_gj_ci95,completed,dropped,\
         postponed,events,max_day_over_budget,exhausted_min,prio1_pct,prio8_pct,idle_pct\n",
    );
    let mut table = format!(
        "{} ({} trials, budget {})\n{:<40} {:>10} {:>8} {:>9} {:>9} {:>9}\n",
        exp.title,
        exp.trials,
        if exp.budget == MilliJoules::MAX {
            "unconstrained".to_string()
        } else {
            format!("{:.4} GJ", budget_j / 1e9)
        },
        "configuration",
        "utility",
        "+-95%",
        "energy GJ",
        "completed",
        "dropped"
    );
    for (i, c) in exp.configs.iter().enumerate() {
        let rs: Vec<&Row> = rows.iter().filter(|r| r.config == i).collect();
        let col = |f: &dyn Fn(&Row) -> f64| mean_ci(&rs.iter().map(|r| f(r)).collect::<Vec<_>>());
        let u = col(&|r| r.report.utility.as_f64());
        let e = col(&|r| r.report.energy.as_joules_f64() / 1e9);
        let done = col(&|r| r.report.completed as f64);
        let dropped = col(&|r| r.report.dropped as f64);
        let post = col(&|r| r.report.postponed as f64);
        let events = col(&|r| r.report.events as f64);
        let over = rs
            .iter()
            .filter(|r| r.report.max_day_energy > r.report.max_day_budget)
            .count();
        let ex = if exp.trace.is_some() && exp.budget != MilliJoules::MAX {
            f6(col(&|r| exhausted_min(&r.trace, budget_j, step_min)).mean)
        } else {
            String::new()
        };
        let p1 = col(&|r| r.priority_share[0]);
        let p8 = col(&|r| r.priority_share[1]);
        let idle = col(&|r| r.idle_pct);
        let _ = writeln!(
            summary,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            c.label,
            rs.len(),
            f6(u.mean),
            ci(&u),
            f6(e.mean),
            ci(&e),
            f6(done.mean),
            f6(dropped.mean),
            f6(post.mean),
            f6(events.mean),
            over,
            ex,
            f6(p1.mean),
            f6(p8.mean),
            f6(idle.mean)
        );
        let _ = writeln!(
            table,
            "{:<40} {:>10.1} {:>8.1} {:>9.4} {:>9.0} {:>9.0}",
            c.label,
            u.mean,
            u.ci95.unwrap_or(0.0),
            e.mean,
            done.mean,
            dropped.mean
        );
    }
    let mut trials =
        String::from("label,trial,utility,energy_j,completed,dropped,postponed,events,digest\n");
    for r in rows {
        let _ = writeln!(
            trials,
            "{},{},{},{},{},{},{},{},{:016x}",
            exp.configs[r.config].label,
            r.trial,
            f6(r.report.utility.as_f64()),
            f6(r.report.energy.as_joules_f64()),
            r.report.completed,
            r.report.dropped,
            r.report.postponed,
            r.report.events,
            r.report.digest
        );
    }
    let mut traces = String::from("label,minute,utility,energy_gj\n");
    if exp.trace.is_some() {
        for (i, c) in exp.configs.iter().enumerate() {
            let rs: Vec<&Row> = rows.iter().filter(|r| r.config == i).collect();
            let n = rs.first().map_or(0, |r| r.trace.len());
            for p in 0..n {
                let u = rs.iter().map(|r| r.trace[p].0).sum::<f64>() / rs.len() as f64;
                let e = rs.iter().map(|r| r.trace[p].1).sum::<f64>() / rs.len() as f64;
                let _ = writeln!(
                    traces,
                    "{},{},{},{}",
                    c.label,
                    f6((p + 1) as f64 * step_min),
                    f6(u),
                    f6(e / 1e9)
                );
            }
        }
    }
    (summary, trials, traces, table)
}

#[path = "plots.rs"]
pub mod plots;

#[cfg(test)]
#[path = "experiment_tests.rs"]
mod tests;

//! Experiment files: heuristics x filters x trials of one scenario, as `kairos experiment`
//! runs them.
//!
//! This module owns the TOML format, its validation and its expansion into the list of
//! configurations to run ([`Experiment::configs`](crate::experiment::Experiment::configs));
//! [`runner`](crate::experiment::runner) runs them in parallel and
//! `crate::report` writes the results. The format (every table is `deny_unknown_fields`):
//!
//! ```toml
//! name = "fig9-5k"                       # names the output directory, out/<name>/
//! title = "Seed 000 Fig. 9"              # optional: the plots' title (default: name)
//! scenario = "../scenarios/essc-5k.toml" # relative to this file's directory
//! trials = 48                            # optional, default 48 (`--trials` overrides)
//! budget = "none"                        # optional: "scenario" (default), "none", or joules
//!
//! [[runs]]
//! label = "Max UPR PH + EPR"             # optional (default: built from the keys below)
//! heuristic = "max-upr"                  # as `kairos run --heuristic`
//! reservations = "place-holder"          # optional: place-holder for the utility-aware
//!                                        # heuristics, permanent (the only choice) otherwise
//! filter = "per-resource"                # optional: none (default), per-task, per-resource,
//!                                        # adaptive
//! leniency = 4.0                         # optional: default the scenario's for the filter
//! # leniencies = [0.5, 1, 2]             # instead of leniency: a sweep, one run per value
//!
//! [calibrate]                            # optional: the 70% rule of seed 000 §IV.C.3
//! fraction = 0.7                         # optional, default 0.7
//! reference = "Max Util PH"              # the label whose mean energy is scaled; optional
//!                                        # when there is only one run
//! ```
//!
//! A trace experiment (seed 001's value functions on a log, [`crate::seed001`]) gives a
//! `[trace]` table instead of `scenario`; its trials are the scenarios (windows of the log,
//! each with its own platform and value draw), and each `[[runs]]` entry may set the
//! oversubscription level:
//!
//! ```toml
//! name = "curie-value"
//! trials = 48                            # scenarios: windows of the log, 11 h apart
//!
//! [trace]
//! swf = "../../shared/traces/CEA-Curie-2011-2.1-sample.swf"  # relative to this file
//! seed = 1                               # the platform, ETC and value streams
//! step_hours = 11                        # optional, default 11: between measured days
//!
//! [[runs]]
//! label = "Max VPR PH 20%"
//! heuristic = "max-upr"
//! reservations = "place-holder"
//! cores_fraction = 0.2                   # optional, default 0.2: of Curie's cores
//! ```
//!
//! Trace experiments take no `budget`, `filter`, `leniency`, `leniencies` or `[calibrate]`
//! (energy plays no part in seed 001); `cores_fraction` is an error without `[trace]`.
//!
//! Choices:
//! - `scenario` is relative to the directory of the experiment file (as Cargo's `path`
//!   keys are), so an experiment runs the same from any working directory; an absolute path
//!   is taken as is.
//! - A `[[runs]]` entry with `leniencies` expands into one configuration per value, labelled
//!   `"<label> L=<value>"`, in the order given; the entry is a *series* and the leniency plot
//!   draws one line per series.
//! - `leniency`/`leniencies` with no filter is an error (the leniency would be ignored).
//! - A calibration always runs unconstrained: `budget` may be absent or "none" there.
//! - Errors name the file and the key: the toml crate's message (with the line and a caret)
//!   for syntax, unknown keys and wrong types; `file: key = value: rule` lines otherwise.

pub mod runner;

use crate::scenario::Scenario;
use kairos_core::energy::FilterKind;
use kairos_core::policy::{Heuristic, Reservations};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// Trials an experiment runs when its file does not say (seed 000: 48).
pub const DEFAULT_TRIALS: u32 = 48;
/// The most trials an experiment may run.
pub const MAX_TRIALS: u32 = 100_000;
/// The calibration's fraction of the reference energy when the file does not say (70%).
pub const DEFAULT_FRACTION: f64 = 0.7;

/// An experiment file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    scenario: Option<String>,
    #[serde(default)]
    trace: Option<TraceSpec>,
    #[serde(default)]
    trials: Option<u32>,
    #[serde(default)]
    budget: Option<BudgetSpec>,
    #[serde(default)]
    runs: Vec<RunSpec>,
    #[serde(default)]
    calibrate: Option<CalibrateSpec>,
}

/// One `[[runs]]` entry as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSpec {
    #[serde(default)]
    label: Option<String>,
    heuristic: String,
    #[serde(default)]
    reservations: Option<String>,
    #[serde(default)]
    filter: Option<String>,
    #[serde(default)]
    leniency: Option<f64>,
    #[serde(default)]
    leniencies: Option<Vec<f64>>,
    #[serde(default)]
    cores_fraction: Option<f64>,
}

/// The `[trace]` table as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceSpec {
    swf: String,
    seed: u64,
    #[serde(default)]
    step_hours: Option<u32>,
}

/// The log of a trace experiment and how its scenarios are drawn ([`crate::seed001`]).
#[derive(Clone, Debug)]
pub struct TraceSource {
    /// The `swf` key as written.
    pub key: String,
    /// The SWF file, resolved against the experiment file's directory.
    pub path: PathBuf,
    /// The seed of the platform, ETC and value streams.
    pub seed: u64,
    /// Between the measured days of consecutive scenarios.
    pub step: kairos_core::units::Micros,
    /// The log's jobs, sorted by submit time.
    pub jobs: Vec<crate::swf::ReplayJob>,
    /// The longest run time of the log (the value generator's upper reference).
    pub max_runtime: kairos_core::units::Micros,
}

/// The `[calibrate]` table as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CalibrateSpec {
    #[serde(default)]
    fraction: Option<f64>,
    #[serde(default)]
    reference: Option<String>,
}

/// The energy budget of an experiment's runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BudgetSpec {
    /// The scenario's `simulation.energy_budget_joules` (unconstrained if absent).
    Scenario,
    /// Unconstrained, whatever the scenario says.
    None,
    /// This many joules for the day.
    Joules(f64),
}

impl<'de> Deserialize<'de> for BudgetSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<BudgetSpec, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = BudgetSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"scenario\", \"none\" or a number of joules")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<BudgetSpec, E> {
                match s {
                    "scenario" => Ok(BudgetSpec::Scenario),
                    "none" => Ok(BudgetSpec::None),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(s), &self)),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<BudgetSpec, E> {
                Ok(BudgetSpec::Joules(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<BudgetSpec, E> {
                Ok(BudgetSpec::Joules(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<BudgetSpec, E> {
                Ok(BudgetSpec::Joules(v as f64))
            }
        }
        d.deserialize_any(V)
    }
}

/// One configuration to run on every trial.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Its label, unique in the experiment (reports and plots show it).
    pub label: String,
    /// The heuristic.
    pub heuristic: Heuristic,
    /// Permanent reservations or place-holders (resolved: never the heuristic's default).
    pub reservations: Reservations,
    /// The energy filter.
    pub filter: FilterKind,
    /// The filter's leniency (resolved: the scenario's for the filter when the file has
    /// none; 1.0 without a filter, as `kairos run` reports it).
    pub leniency: f64,
    /// The index in [`Experiment::series`] of the leniency sweep it belongs to, if any.
    pub series: Option<usize>,
    /// Trace experiments: the fraction of Curie's cores (the oversubscription level).
    pub cores_fraction: Option<f64>,
}

/// A leniency sweep: the configurations one `[[runs]]` entry with `leniencies` expands into.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The entry's label (without the `L=` suffix).
    pub label: String,
    /// The filter swept.
    pub filter: FilterKind,
    /// Indices in [`Experiment::configs`], in the order of the `leniencies` list.
    pub configs: Vec<usize>,
}

/// The calibration of the energy constraint (seed 000 §IV.C.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Calibrate {
    /// The constraint is this fraction of the reference's mean daily energy (0.7).
    pub fraction: f64,
    /// The index in [`Experiment::configs`] of the reference heuristic.
    pub reference: usize,
}

/// A loaded, validated experiment.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// Its name (the default output directory is `out/<name>/`).
    pub name: String,
    /// The plots' title.
    pub title: String,
    /// The experiment file.
    pub file: PathBuf,
    /// The `scenario` key as written in the file (a trace experiment's `trace.swf`).
    pub scenario_key: String,
    /// The scenario file, resolved against the experiment file's directory.
    pub scenario_path: PathBuf,
    /// The scenario, with the experiment's budget applied to `simulation.energy_budget_joules`;
    /// for a trace experiment, a stand-in named after the log (only its name and its
    /// unconstrained budget are used).
    pub scenario: Scenario,
    /// The log, for a trace experiment.
    pub trace: Option<TraceSource>,
    /// The budget as the file gives it.
    pub budget: BudgetSpec,
    /// Trials 0..trials are run.
    pub trials: u32,
    /// The configurations, in file order (sweeps expanded in place).
    pub configs: Vec<RunConfig>,
    /// The leniency sweeps.
    pub series: Vec<Series>,
    /// The calibration, if this experiment calibrates the energy constraint.
    pub calibrate: Option<Calibrate>,
}

/// Why an experiment could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The file could not be read.
    #[error("{file}: cannot read: {error}")]
    Io {
        /// The file.
        file: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Not TOML, or not this format: the toml crate's message, with line and caret.
    #[error("{file}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The toml crate's message.
        message: String,
    },
    /// Invalid values, one `file: key = value: rule` line each.
    #[error("{}", .0.join("\n"))]
    Invalid(Vec<String>),
    /// The SWF file of `[trace]` could not be loaded.
    #[error("{file}: trace.swf = {key:?}: {error:#}")]
    Trace {
        /// The experiment file.
        file: String,
        /// The `swf` key as written.
        key: String,
        /// The reader's error (which names the SWF file and line).
        error: anyhow::Error,
    },
    /// The scenario the file names could not be loaded.
    #[error("{file}: scenario = {key:?}: {error}")]
    Scenario {
        /// The experiment file.
        file: String,
        /// The `scenario` key as written.
        key: String,
        /// The scenario's own error (which names the scenario file).
        error: crate::scenario::ScenarioError,
    },
}

/// Reads the SWF file of a trace experiment: its jobs sorted by submit time and the longest
/// run time (jobs missing a field are an error naming the line).
fn load_trace(
    path: &Path,
) -> anyhow::Result<(Vec<crate::swf::ReplayJob>, kairos_core::units::Micros)> {
    let log = crate::swf::read(path, &crate::swf::ReadOptions::default())?;
    let jobs = crate::swf::replay_jobs(&log.jobs)
        .map_err(anyhow::Error::new)
        .map_err(|e| e.context(format!("{}: cannot use the log", log.file)))?;
    let max = jobs.iter().map(|j| j.runtime).max().unwrap_or(0);
    if jobs.is_empty() {
        anyhow::bail!("{}: no jobs", log.file);
    }
    Ok((jobs, kairos_core::units::Micros(max)))
}

/// The scenario a trace experiment carries for its name: no platform, no workload, the
/// 28 h horizon with 4 h of warm-up, unconstrained.
fn stand_in(name: &str) -> Scenario {
    let text = format!(
        "name = {name:?}\nseed = 0\n[platform]\nclusters = []\n[workload]\ntasks_per_day = 0\n"
    );
    toml::from_str(&text).expect("a fixed, valid scenario text")
}

/// Collects `file: key = value: rule` lines.
struct Checker<'a> {
    file: &'a str,
    errors: Vec<String>,
}

impl Checker<'_> {
    fn fail(&mut self, key: &str, value: impl fmt::Display, rule: impl fmt::Display) {
        self.errors
            .push(format!("{}: {key} = {value}: {rule}", self.file));
    }
}

/// The label `kairos experiment` gives a configuration whose entry has none, in the paper's
/// style: "Max UPR PH + EPR", "EASY", "Max Util PR + EPT".
pub fn default_label(h: Heuristic, r: Reservations, filter: FilterKind) -> String {
    let name = match h {
        Heuristic::Random => "Random",
        Heuristic::Conservative => "Conservative",
        Heuristic::Easy => "EASY",
        Heuristic::MultiQueue => "Multi-Queue",
        Heuristic::MaxUtil => "Max Util",
        Heuristic::MaxUpt => "Max UPT",
        Heuristic::MaxUpr => "Max UPR",
        Heuristic::MaxUpe => "Max UPE",
        Heuristic::Fcfs => "FCFS",
        Heuristic::Knapsack => "Knapsack",
        Heuristic::MaxValue => "Max Value",
    };
    let mut s = name.to_string();
    if h.is_utility_aware() {
        s.push_str(match r {
            Reservations::Permanent => " PR",
            Reservations::PlaceHolder => " PH",
        });
    }
    s.push_str(match filter {
        FilterKind::None => "",
        FilterKind::PerTask => " + EPT",
        FilterKind::PerResource => " + EPR",
        FilterKind::Adaptive => " + AEF",
    });
    s
}

/// How a leniency shows in a sweep's labels: Rust's shortest form (0.5, 1, 1.5).
fn leniency_text(l: f64) -> String {
    format!("{l}")
}

/// A name usable as a directory: letters, digits, '.', '_' and '-', not starting with '.'.
fn is_dir_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// `a/b/../c` as `a/c`, lexically (a `..` after a normal component removes both).
fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in p.components() {
        match (c, out.last()) {
            (Component::CurDir, _) if !out.is_empty() => {}
            (Component::ParentDir, Some(Component::Normal(_))) => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

impl Experiment {
    /// Reads, parses and validates the experiment at `path`, and loads its scenario.
    pub fn load(path: impl AsRef<Path>) -> Result<Experiment, ExperimentError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| ExperimentError::Io {
            file: file.clone(),
            error,
        })?;
        Experiment::parse(&text, path)
    }

    /// Parses and validates experiment text read from `path` (which names it in errors and
    /// anchors the scenario path), and loads its scenario.
    pub fn parse(text: &str, path: &Path) -> Result<Experiment, ExperimentError> {
        let file = path.display().to_string();
        let spec: FileSpec = toml::from_str(text).map_err(|e| ExperimentError::Syntax {
            file: file.clone(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let mut c = Checker {
            file: &file,
            errors: Vec::new(),
        };
        if !is_dir_name(&spec.name) {
            c.fail(
                "name",
                format_args!("{:?}", spec.name),
                "must be letters, digits, '.', '_' or '-' (it names the output directory)",
            );
        }
        let trials = spec.trials.unwrap_or(DEFAULT_TRIALS);
        if trials == 0 || trials > MAX_TRIALS {
            c.fail(
                "trials",
                trials,
                format_args!("must be between 1 and {MAX_TRIALS}"),
            );
        }
        let budget = spec.budget.unwrap_or(BudgetSpec::Scenario);
        if let BudgetSpec::Joules(j) = budget {
            if !(j > 0.0 && j <= 1e16) {
                c.fail(
                    "budget",
                    j,
                    "must be greater than 0 and at most 1e16 joules",
                );
            }
        }
        let is_trace = spec.trace.is_some();
        let scenario_key = spec.scenario.clone().unwrap_or_default();
        // Reports name the input as `scenario_file`: a trace experiment's is its log.
        let reported_key = match &spec.trace {
            Some(t) if spec.scenario.is_none() => t.swf.clone(),
            _ => scenario_key.clone(),
        };
        match (&spec.scenario, &spec.trace) {
            (Some(_), Some(_)) => c.fail(
                "trace",
                "{...}",
                "give either scenario or a [trace] table, not both",
            ),
            (None, None) => c.fail(
                "scenario",
                "(absent)",
                "must name a scenario file (or give a [trace] table)",
            ),
            (Some(k), None) if k.trim().is_empty() => {
                c.fail("scenario", "\"\"", "must name a scenario file")
            }
            _ => {}
        }
        if spec.runs.is_empty() {
            c.fail("runs", "[]", "must have at least one [[runs]] entry");
        }
        let resolve = |key: &str| match Path::new(key) {
            p if p.is_absolute() => p.to_path_buf(),
            p => normalize(&path.parent().unwrap_or(Path::new("")).join(p)),
        };
        // The scenario gives the default leniencies: load it before expanding the runs.
        let scenario_path = resolve(&scenario_key);
        let (scenario, trace) = match &spec.trace {
            Some(t) => {
                if spec.budget.is_some() {
                    c.fail("budget", "...", "a trace experiment has no energy budget");
                }
                if spec.calibrate.is_some() {
                    c.fail(
                        "calibrate",
                        "{...}",
                        "a trace experiment has no energy to calibrate",
                    );
                }
                let step_hours = t.step_hours.unwrap_or(11);
                if !(1..=240).contains(&step_hours) {
                    c.fail("trace.step_hours", step_hours, "must be between 1 and 240");
                }
                if t.swf.trim().is_empty() {
                    c.fail("trace.swf", "\"\"", "must name an SWF file");
                    (None, None)
                } else {
                    let swf_path = resolve(&t.swf);
                    let source = load_trace(&swf_path).map_err(|error| ExperimentError::Trace {
                        file: file.clone(),
                        key: t.swf.clone(),
                        error,
                    })?;
                    let stem = swf_path
                        .file_stem()
                        .map_or("trace".to_string(), |s| s.to_string_lossy().to_string());
                    (
                        Some(stand_in(&stem)),
                        Some(TraceSource {
                            key: t.swf.clone(),
                            path: swf_path,
                            seed: t.seed,
                            step: kairos_core::units::Micros::from_hours(step_hours as u64),
                            jobs: source.0,
                            max_runtime: source.1,
                        }),
                    )
                }
            }
            None if scenario_key.trim().is_empty() => (None, None),
            None => (
                Some(Scenario::load(&scenario_path).map_err(|error| {
                    ExperimentError::Scenario {
                        file: file.clone(),
                        key: scenario_key.clone(),
                        error,
                    }
                })?),
                None,
            ),
        };
        let mut configs: Vec<RunConfig> = Vec::new();
        let mut series = Vec::new();
        let mut origin: Vec<usize> = Vec::new();
        for (i, run) in spec.runs.iter().enumerate() {
            let key = |k: &str| format!("runs[{i}].{k}");
            let h: Option<Heuristic> = match run.heuristic.parse() {
                Ok(h) => Some(h),
                Err(_) => {
                    let names: Vec<&str> = Heuristic::ALL.iter().map(|h| h.name()).collect();
                    c.fail(
                        &key("heuristic"),
                        format_args!("{:?}", run.heuristic),
                        format_args!("unknown heuristic (expected one of {})", names.join(", ")),
                    );
                    None
                }
            };
            let r: Option<Reservations> = match &run.reservations {
                None => h.map(|h| {
                    if h.is_utility_aware() {
                        Reservations::PlaceHolder
                    } else {
                        Reservations::Permanent
                    }
                }),
                Some(s) => match s.parse::<Reservations>() {
                    Ok(r) => {
                        if let (Some(h), Reservations::PlaceHolder) = (h, r) {
                            if !h.is_utility_aware() {
                                c.fail(
                                    &key("reservations"),
                                    format_args!("{s:?}"),
                                    format_args!(
                                        "{h} only reserves permanently (place-holders are for \
                                         max-util, max-upt, max-upr and max-upe)"
                                    ),
                                );
                            }
                        }
                        Some(r)
                    }
                    Err(_) => {
                        c.fail(
                            &key("reservations"),
                            format_args!("{s:?}"),
                            "expected permanent or place-holder",
                        );
                        None
                    }
                },
            };
            let filter = match &run.filter {
                None => Some(FilterKind::None),
                Some(s) => match s.parse::<FilterKind>() {
                    Ok(f) => Some(f),
                    Err(_) => {
                        let names: Vec<&str> = FilterKind::ALL.iter().map(|f| f.name()).collect();
                        c.fail(
                            &key("filter"),
                            format_args!("{s:?}"),
                            format_args!("unknown filter (expected one of {})", names.join(", ")),
                        );
                        None
                    }
                },
            };
            if let Some(l) = &run.label {
                if l.trim().is_empty() {
                    c.fail(&key("label"), "\"\"", "must not be empty");
                }
            }
            let check_leniency = |c: &mut Checker<'_>, k: &str, l: f64| {
                if !(l.is_finite() && (0.0..=1000.0).contains(&l)) {
                    c.fail(k, l, "must be between 0 and 1000");
                }
            };
            let leniencies: Vec<Option<f64>> = match (run.leniency, &run.leniencies) {
                (Some(_), Some(_)) => {
                    c.fail(
                        &key("leniencies"),
                        "[...]",
                        "give either leniency or leniencies, not both",
                    );
                    vec![]
                }
                (Some(l), None) => {
                    check_leniency(&mut c, &key("leniency"), l);
                    vec![Some(l)]
                }
                (None, Some(ls)) => {
                    if ls.is_empty() {
                        c.fail(&key("leniencies"), "[]", "must not be empty");
                    }
                    for (j, &l) in ls.iter().enumerate() {
                        check_leniency(&mut c, &format!("runs[{i}].leniencies[{j}]"), l);
                    }
                    ls.iter().map(|&l| Some(l)).collect()
                }
                (None, None) => vec![None],
            };
            let cores_fraction = match (is_trace, run.cores_fraction) {
                (false, Some(f)) => {
                    c.fail(
                        &key("cores_fraction"),
                        f,
                        "only a trace experiment ([trace]) has an oversubscription level",
                    );
                    None
                }
                (false, None) => None,
                (true, f) => {
                    let f = f.unwrap_or(crate::seed001::DEFAULT_CORES_FRACTION);
                    if !(f > 0.0 && f <= 1.0) {
                        c.fail(
                            &key("cores_fraction"),
                            f,
                            "must be greater than 0 and at most 1",
                        );
                    }
                    Some(f)
                }
            };
            if is_trace
                && (run.filter.is_some() || run.leniency.is_some() || run.leniencies.is_some())
            {
                c.fail(
                    &key("filter"),
                    format_args!("{:?}", run.filter.as_deref().unwrap_or("none")),
                    "a trace experiment takes no filter, leniency or leniencies",
                );
            }
            if filter == Some(FilterKind::None) {
                if let Some(l) = run.leniency {
                    c.fail(&key("leniency"), l, "needs a filter (it would be ignored)");
                } else if run.leniencies.is_some() {
                    c.fail(
                        &key("leniencies"),
                        "[...]",
                        "needs a filter (it would be ignored)",
                    );
                }
            }
            let (Some(h), Some(r), Some(filter), Some(scenario)) = (h, r, filter, &scenario) else {
                continue;
            };
            let base = run
                .label
                .clone()
                .unwrap_or_else(|| default_label(h, r, filter));
            let sweep = run.leniencies.is_some();
            let series_index = sweep.then_some(series.len());
            let mut members = Vec::new();
            for l in leniencies {
                let sim = &scenario.simulation.leniency;
                let leniency = l.unwrap_or(match filter {
                    FilterKind::None => 1.0,
                    FilterKind::PerTask => sim.per_task,
                    FilterKind::PerResource => sim.per_resource,
                    FilterKind::Adaptive => sim.adaptive,
                });
                let label = if sweep {
                    format!("{base} L={}", leniency_text(leniency))
                } else {
                    base.clone()
                };
                members.push(configs.len());
                origin.push(i);
                configs.push(RunConfig {
                    label,
                    heuristic: h,
                    reservations: r,
                    filter,
                    leniency,
                    series: series_index,
                    cores_fraction,
                });
            }
            if sweep {
                series.push(Series {
                    label: base,
                    filter,
                    configs: members,
                });
            }
        }
        for (j, cfg) in configs.iter().enumerate() {
            if let Some(k) = configs[..j].iter().position(|o| o.label == cfg.label) {
                c.fail(
                    &format!("runs[{}].label", origin[j]),
                    format_args!("{:?}", cfg.label),
                    format_args!(
                        "duplicate of the label of runs[{}]: labels must be unique",
                        origin[k]
                    ),
                );
            }
        }
        let calibrate = spec.calibrate.as_ref().and_then(|cal| {
            let fraction = cal.fraction.unwrap_or(DEFAULT_FRACTION);
            if !(fraction > 0.0 && fraction <= 10.0) {
                c.fail(
                    "calibrate.fraction",
                    fraction,
                    "must be greater than 0 and at most 10",
                );
            }
            if let BudgetSpec::Joules(j) = budget {
                c.fail(
                    "budget",
                    j,
                    "a calibration runs unconstrained: drop budget or set it to \"none\"",
                );
            }
            let reference = match &cal.reference {
                Some(label) => match configs.iter().position(|x| &x.label == label) {
                    Some(r) => Some(r),
                    None => {
                        c.fail(
                            "calibrate.reference",
                            format_args!("{label:?}"),
                            "must be the label of one of the runs",
                        );
                        None
                    }
                },
                None if configs.len() == 1 => Some(0),
                None => {
                    c.fail(
                        "calibrate.reference",
                        "(absent)",
                        "must name the reference run's label when there is more than one run",
                    );
                    None
                }
            };
            reference.map(|reference| Calibrate {
                fraction,
                reference,
            })
        });
        if !c.errors.is_empty() {
            return Err(ExperimentError::Invalid(c.errors));
        }
        let mut scenario = scenario.expect("checked: the scenario key is not empty");
        if calibrate.is_some() {
            scenario.simulation.energy_budget_joules = None;
        } else {
            match budget {
                BudgetSpec::Scenario => {}
                BudgetSpec::None => scenario.simulation.energy_budget_joules = None,
                BudgetSpec::Joules(j) => scenario.simulation.energy_budget_joules = Some(j),
            }
        }
        Ok(Experiment {
            title: spec.title.unwrap_or_else(|| spec.name.clone()),
            name: spec.name,
            file: path.to_path_buf(),
            scenario_key: reported_key,
            scenario_path,
            scenario,
            trace,
            budget,
            trials,
            configs,
            series,
            calibrate,
        })
    }

    /// The day's energy budget of every run, in joules (`None`: unconstrained).
    pub fn budget_joules(&self) -> Option<f64> {
        self.scenario.simulation.energy_budget_joules
    }

    /// The `kairos run` options of configuration `config` on trial `trial`.
    pub fn run_options(&self, config: usize, trial: u32) -> crate::run::RunOptions {
        let c = &self.configs[config];
        crate::run::RunOptions {
            heuristic: c.heuristic,
            reservations: Some(c.reservations),
            filter: c.filter,
            leniency: Some(c.leniency),
            trial,
            // Already applied to the scenario.
            budget_joules: None,
            full_plan: false,
        }
    }
}

//! An experiment file as written, and its parse into an [`Experiment`]: one function per
//! table (the top-level keys, `scenario` or `[trace]`, `[[runs]]`, `[calibrate]`), each
//! checking its keys through one [`Checker`], so that every bad value of the file is reported
//! at once, one `file:line: key = value: rule` line each ([`crate::toml_file`]).
//!
//! Loading what a file names (the scenario, or the log of `[trace]`) stops at its first
//! error, which names the key that named it.

use super::{
    default_label, BudgetSpec, Calibrate, Experiment, ExperimentError, RunConfig, Series,
    TraceSource, DEFAULT_FRACTION, DEFAULT_TRIALS, MAX_TRIALS,
};
use crate::scenario::Scenario;
use crate::toml_file::{self, Checker};
use kairos_core::energy::FilterKind;
use kairos_core::units::Micros;
use kairos_core::{Heuristic, Reservations};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

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
    #[serde(default)]
    heuristic: Option<String>,
    #[serde(default)]
    controller: Option<String>,
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
    #[serde(default)]
    value_correlation: Option<String>,
    #[serde(default)]
    etc_cov: Option<f64>,
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

impl Experiment {
    /// Parses and validates experiment text read from `path` (which names it in errors and
    /// anchors the scenario path), and loads its scenario.
    pub fn parse(text: &str, path: &Path) -> Result<Experiment, ExperimentError> {
        let file = path.display().to_string();
        let spec: FileSpec = toml_file::parse(text, &file)?;
        let mut c = Checker::new(&file, text);
        let (trials, budget) = top_level(&spec, &mut c);
        let scenario_key = spec.scenario.clone().unwrap_or_default();
        // Reports name the input as `scenario_file`: a trace experiment's is its log.
        let reported_key = match &spec.trace {
            Some(t) if spec.scenario.is_none() => t.swf.clone(),
            _ => scenario_key.clone(),
        };
        source_keys(&spec, &mut c);
        if spec.runs.is_empty() {
            c.fail("runs", "[]", "must have at least one [[runs]] entry");
        }
        // The scenario gives the default leniencies: load it before expanding the runs.
        let scenario_path = resolve(path, &scenario_key);
        let (scenario, trace) = match &spec.trace {
            Some(t) => trace_table(t, &spec, path, &mut c)?,
            None if scenario_key.trim().is_empty() => (None, None),
            None => {
                let scenario =
                    Scenario::load(&scenario_path).map_err(|error| ExperimentError::Scenario {
                        file: c.at("scenario"),
                        key: scenario_key.clone(),
                        error,
                    })?;
                (Some(scenario), None)
            }
        };
        let (configs, series) = runs_tables(&spec.runs, spec.trace.is_some(), &scenario, &mut c);
        let calibrate = spec
            .calibrate
            .as_ref()
            .and_then(|cal| calibrate_table(cal, budget, &configs, &mut c));
        c.finish()?;
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
}

/// The top-level keys `name`, `trials` and `budget`: the trials to run and the budget.
fn top_level(spec: &FileSpec, c: &mut Checker<'_>) -> (u32, BudgetSpec) {
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
    (trials, budget)
}

/// The input keys: `scenario` or a `[trace]` table, exactly one.
fn source_keys(spec: &FileSpec, c: &mut Checker<'_>) {
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
}

/// The `[trace]` table: checks it and the keys a trace experiment may not have, then loads
/// the log. Gives the stand-in scenario named after the log, and the log.
fn trace_table(
    t: &TraceSpec,
    spec: &FileSpec,
    path: &Path,
    c: &mut Checker<'_>,
) -> Result<(Option<Scenario>, Option<TraceSource>), ExperimentError> {
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
    let mut variation = crate::seed001::Variation::default();
    if let Some(v) = &t.value_correlation {
        match v.parse() {
            Ok(k) => variation.correlation = k,
            Err(()) => c.fail(
                "trace.value_correlation",
                format_args!("{v:?}"),
                "must be \"weak\", \"exact\" or \"none\"",
            ),
        }
    }
    if let Some(cov) = t.etc_cov {
        c.float_above("trace.etc_cov", cov, 0.0, 10.0);
        variation.etc_cov = cov;
    }
    if t.swf.trim().is_empty() {
        c.fail("trace.swf", "\"\"", "must name an SWF file");
        return Ok((None, None));
    }
    let swf_path = resolve(path, &t.swf);
    let (jobs, max_runtime) = load_trace(&swf_path).map_err(|error| ExperimentError::Trace {
        file: c.at("trace.swf"),
        key: t.swf.clone(),
        error,
    })?;
    let stem = swf_path
        .file_stem()
        .map_or("trace".to_string(), |s| s.to_string_lossy().to_string());
    Ok((
        Some(stand_in(&stem)),
        Some(TraceSource {
            key: t.swf.clone(),
            path: swf_path,
            seed: t.seed,
            step: Micros::from_hours(step_hours as u64),
            jobs,
            max_runtime,
            variation,
        }),
    ))
}

/// The `[[runs]]` entries: each checked and expanded into its configurations (a sweep into
/// one per leniency, in place), then the labels checked unique. `scenario` gives the default
/// leniencies; without it (it failed), the entries are only checked.
fn runs_tables(
    runs: &[RunSpec],
    is_trace: bool,
    scenario: &Option<Scenario>,
    c: &mut Checker<'_>,
) -> (Vec<RunConfig>, Vec<Series>) {
    let mut configs: Vec<RunConfig> = Vec::new();
    let mut series = Vec::new();
    // The entry each configuration comes from.
    let mut origin: Vec<usize> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(entry) = run_entry(i, run, is_trace, c) else {
            continue;
        };
        let Some(scenario) = scenario else {
            continue;
        };
        let Entry {
            heuristic: h,
            controller,
            reservations: r,
            filter,
            leniencies,
            cores_fraction,
        } = entry;
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
                controller: controller.clone(),
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
    (configs, series)
}

/// One `[[runs]]` entry's keys, checked.
struct Entry {
    heuristic: Heuristic,
    controller: Option<String>,
    reservations: Reservations,
    filter: FilterKind,
    /// One configuration per value; `None`: the scenario's leniency for the filter.
    leniencies: Vec<Option<f64>>,
    cores_fraction: Option<f64>,
}

/// Checks entry `runs[i]`; `None` when its heuristic, reservations or filter is unusable.
fn run_entry(i: usize, run: &RunSpec, is_trace: bool, c: &mut Checker<'_>) -> Option<Entry> {
    let key = |k: &str| format!("runs[{i}].{k}");
    if let Some(command) = &run.controller {
        return controller_entry(i, run, command, is_trace, c);
    }
    let Some(heuristic) = &run.heuristic else {
        c.fail(
            &key("heuristic"),
            "(absent)",
            "must name a heuristic (or give controller = \"exec:COMMAND\")",
        );
        return None;
    };
    let h: Option<Heuristic> = match heuristic.parse() {
        Ok(h) => Some(h),
        Err(_) => {
            let names: Vec<&str> = Heuristic::ALL.iter().map(|h| h.name()).collect();
            c.fail(
                &key("heuristic"),
                format_args!("{heuristic:?}"),
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
        let chars = l.chars().count();
        if l.trim().is_empty() {
            c.fail(&key("label"), "\"\"", "must not be empty");
        } else if chars > crate::limits::MAX_LABEL_CHARS {
            c.fail(
                &key("label"),
                format_args!("{chars} characters"),
                format_args!(
                    "must be at most {} characters",
                    crate::limits::MAX_LABEL_CHARS
                ),
            );
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
            check_leniency(c, &key("leniency"), l);
            vec![Some(l)]
        }
        (None, Some(ls)) => {
            if ls.is_empty() {
                c.fail(&key("leniencies"), "[]", "must not be empty");
            }
            for (j, &l) in ls.iter().enumerate() {
                check_leniency(c, &format!("runs[{i}].leniencies[{j}]"), l);
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
    if is_trace && (run.filter.is_some() || run.leniency.is_some() || run.leniencies.is_some()) {
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
    Some(Entry {
        heuristic: h?,
        controller: None,
        reservations: r?,
        filter: filter?,
        leniencies,
        cores_fraction,
    })
}

/// Checks entry `runs[i]`, a `controller` run: an exec command, a label, and none of the
/// built-ins' keys (the controller makes every decision; the energy filter is a built-in's
/// pacing, docs/protocol.md "Checks"). `None` when it cannot run.
fn controller_entry(
    i: usize,
    run: &RunSpec,
    command: &str,
    is_trace: bool,
    c: &mut Checker<'_>,
) -> Option<Entry> {
    let key = |k: &str| format!("runs[{i}].{k}");
    let before = c.failures();
    let exec = match command.strip_prefix("exec:") {
        Some(cmd) if !cmd.trim().is_empty() => Some(cmd.to_string()),
        _ => {
            c.fail(
                &key("controller"),
                format_args!("{command:?}"),
                "expected \"exec:COMMAND\" (a program speaking docs/protocol.md)",
            );
            None
        }
    };
    if is_trace {
        c.fail(
            &key("controller"),
            format_args!("{command:?}"),
            "a trace experiment's runs take a built-in heuristic (seed 001's value \
             functions); run an exec controller on a scenario, or on a log with kairos replay",
        );
    }
    for (k, given) in [
        ("heuristic", run.heuristic.is_some()),
        ("reservations", run.reservations.is_some()),
        ("filter", run.filter.is_some()),
        ("leniency", run.leniency.is_some()),
        ("leniencies", run.leniencies.is_some()),
        ("cores_fraction", run.cores_fraction.is_some()),
    ] {
        if given {
            c.fail(
                &key(k),
                "...",
                "a controller run makes its own decisions: give controller or the built-in \
                 keys, not both",
            );
        }
    }
    match &run.label {
        None => c.fail(
            &key("label"),
            "(absent)",
            "must be given for a controller run (it names the run in the reports)",
        ),
        Some(l) if l.trim().is_empty() => c.fail(&key("label"), "\"\"", "must not be empty"),
        Some(l) if l.chars().count() > crate::limits::MAX_LABEL_CHARS => c.fail(
            &key("label"),
            format_args!("{} characters", l.chars().count()),
            format_args!(
                "must be at most {} characters",
                crate::limits::MAX_LABEL_CHARS
            ),
        ),
        Some(_) => {}
    }
    if c.failures() > before {
        return None;
    }
    Some(Entry {
        heuristic: Heuristic::Fcfs,
        controller: exec,
        reservations: Reservations::Permanent,
        filter: FilterKind::None,
        leniencies: vec![None],
        cores_fraction: None,
    })
}

/// The `[calibrate]` table: the fraction and the reference run among `configs`; `None` when
/// the reference is unusable.
fn calibrate_table(
    cal: &CalibrateSpec,
    budget: BudgetSpec,
    configs: &[RunConfig],
    c: &mut Checker<'_>,
) -> Option<Calibrate> {
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
}

/// `key` as a path: relative to the directory of the experiment file at `path` (as Cargo's
/// `path` keys are), or as is when absolute.
fn resolve(path: &Path, key: &str) -> PathBuf {
    match Path::new(key) {
        p if p.is_absolute() => p.to_path_buf(),
        p => normalize(&path.parent().unwrap_or(Path::new("")).join(p)),
    }
}

/// Reads the SWF file of a trace experiment: its jobs sorted by submit time and the longest
/// run time (jobs missing a field are an error naming the line).
fn load_trace(path: &Path) -> anyhow::Result<(Vec<crate::swf::ReplayJob>, Micros)> {
    let log = crate::swf::read(path, &crate::swf::ReadOptions::default())?;
    let jobs = crate::swf::replay_jobs(&log.jobs)
        .map_err(anyhow::Error::new)
        .map_err(|e| e.context(format!("{}: cannot use the log", log.file)))?;
    let max = jobs.iter().map(|j| j.runtime).max().unwrap_or(0);
    if jobs.is_empty() {
        anyhow::bail!("{}: no jobs", log.file);
    }
    Ok((jobs, Micros(max)))
}

/// The scenario a trace experiment carries for its name: no platform, no workload, the
/// 28 h horizon with 4 h of warm-up, unconstrained.
fn stand_in(name: &str) -> Scenario {
    let text = format!(
        "name = {name:?}\nseed = 0\n[platform]\nclusters = []\n[workload]\ntasks_per_day = 0\n"
    );
    toml::from_str(&text).expect("a fixed, valid scenario text")
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

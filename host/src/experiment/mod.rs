//! Experiment files: heuristics x filters x trials of one scenario, as `kairos experiment`
//! runs them.
//!
//! This folder owns the TOML format, its validation and its expansion into the list of
//! configurations to run ([`Experiment::configs`]): this file the loaded experiment's types,
//! `parse.rs` the file as written and its parse (a function per table), [`runner`] the
//! parallel runs of every configuration on every trial (through [`crate::run`], or
//! [`crate::seed001`] for a trace experiment). [`crate::report`] writes the results. The
//! format (every table is `deny_unknown_fields`):
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
//! [[runs]]                               # a policy of your own beside the built-ins
//! label = "my policy"                    # required with controller
//! controller = "exec:python3 my.py"      # instead of heuristic: as `kairos run --controller`;
//!                                        # run in this file's directory, one process per
//!                                        # run and trial; no reservations, filter or leniency
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
//! value_correlation = "weak"             # optional: "exact" or "none" (seed 001 Fig. 5(a))
//! etc_cov = 0.3                          # optional: the ETC columns' COV (Fig. 5(b))
//!
//! [[runs]]
//! label = "Max VPR PH 20%"
//! heuristic = "max-upr"
//! reservations = "place-holder"
//! cores_fraction = 0.2                   # optional, default 0.2: of Curie's cores
//! ```
//!
//! Trace experiments take no `budget`, `filter`, `leniency`, `leniencies` or `[calibrate]`
//! (energy plays no part in seed 001) and no `controller`; `cores_fraction` is an error
//! without `[trace]`.
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
//! - Errors name the file, the line and the key ([`crate::toml_file`]): the toml crate's
//!   message (with the line and a caret) for syntax, unknown keys and wrong types;
//!   `file:line: key = value: rule` lines otherwise.

mod parse;
pub mod resume;
pub mod runner;
pub mod saved;

use crate::scenario::Scenario;
use crate::toml_file::{self, TomlFileError};
use kairos_core::energy::FilterKind;
use kairos_core::{Heuristic, Reservations};
use std::path::{Path, PathBuf};

/// Trials an experiment runs when its file does not say (seed 000: 48).
pub const DEFAULT_TRIALS: u32 = 48;
/// The most trials an experiment may run.
pub const MAX_TRIALS: u32 = 100_000;
/// The calibration's fraction of the reference energy when the file does not say (70%).
pub const DEFAULT_FRACTION: f64 = 0.7;

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
    /// Seed 001 Fig. 5's variation of the environment (default: §4's).
    pub variation: crate::seed001::Variation,
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

/// One configuration to run on every trial.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Its label, unique in the experiment (reports and plots show it).
    pub label: String,
    /// The heuristic (with a `controller`, FCFS's settings stand for it: the controller
    /// makes every decision and the heuristic is never asked).
    pub heuristic: Heuristic,
    /// An exec controller's command (`controller = "exec:COMMAND"`): every decision is
    /// its, checked by kairos ([`crate::live::exec`]).
    pub controller: Option<String>,
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

impl RunConfig {
    /// What the reports call its policy: the heuristic's name, or `exec` for a controller.
    pub fn heuristic_name(&self) -> &str {
        match self.controller {
            Some(_) => "exec",
            None => self.heuristic.name(),
        }
    }
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
    /// The file could not be read, is not TOML or not this format, or has invalid values
    /// (one `file:line: key = value: rule` line each).
    #[error(transparent)]
    File(#[from] TomlFileError),
    /// The SWF file of `[trace]` could not be loaded.
    #[error("{file}: trace.swf = {key:?}: {error:#}")]
    Trace {
        /// The experiment file and the line of the key (`file:line`).
        file: String,
        /// The `swf` key as written.
        key: String,
        /// The reader's error (which names the SWF file and line).
        error: anyhow::Error,
    },
    /// The scenario the file names could not be loaded.
    #[error("{file}: scenario = {key:?}: {error}")]
    Scenario {
        /// The experiment file and the line of the key (`file:line`).
        file: String,
        /// The `scenario` key as written.
        key: String,
        /// The scenario's own error (which names the scenario file).
        error: crate::scenario::ScenarioError,
    },
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

impl Experiment {
    /// Reads, parses and validates the experiment at `path`, and loads its scenario.
    pub fn load(path: impl AsRef<Path>) -> Result<Experiment, ExperimentError> {
        let path = path.as_ref();
        let (text, _) = toml_file::read(path)?;
        Experiment::parse(&text, path)
    }

    /// Where `kairos experiment` writes the reports unless told otherwise: `out/<name>/`.
    pub fn default_out_dir(&self) -> PathBuf {
        Path::new("out").join(&self.name)
    }

    /// The day's energy budget of every run, in joules (`None`: unconstrained).
    pub fn budget_joules(&self) -> Option<f64> {
        self.scenario.simulation.energy_budget_joules
    }

    /// The `kairos run` options of configuration `config` on trial `trial`.
    pub fn run_options(&self, config: usize, trial: u32) -> crate::run::RunOptions {
        // A controller run's options are FCFS's without a filter ([`RunConfig::heuristic`]).
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

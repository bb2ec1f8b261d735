//! kairos-host: the std side of kairos. Scenarios, workload generation, trace replay,
//! experiments, reports; the `kairos` binary is a thin layer over these modules.

/// The subcommands of the `kairos` binary.
pub mod cmd;
/// Experiment files: heuristics x filters x trials, and their parallel runner.
pub mod experiment;
/// The firmware's reference scenarios: generation, encoding, host replay (`kairos digest`).
pub mod firmware_scenarios;
/// The ESSC workload generator: platforms, task types and arrivals of a trial.
pub mod generate;
/// Seed 004's knapsack sweep: malleable schedules over an (alpha, beta, gamma) grid, fronts.
pub mod knapsack;
/// Experiment reports: statistics, CSV and JSON tables, SVG plots.
pub mod report;
/// One run: a scenario's trial under one configuration, and its summary.
pub mod run;
/// Scenario files: the TOML format, its defaults and its validation.
pub mod scenario;
/// Seed 001's environment over an SWF log: value functions, platforms, windows, runs.
pub mod seed001;
/// Host-side storage and runs of the core replay engine.
pub mod sim;
/// Standard Workload Format logs: reading, cleaning, conversion to replay jobs.
pub mod swf;
/// kairos's TOML files: parsing, value checks, and errors naming the file, line and key.
pub mod toml_file;
/// Trace replay: SWF jobs under FCFS, EASY or Conservative backfilling, and their metrics.
pub mod trace;

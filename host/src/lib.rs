//! kairos-host: the std side of kairos. It builds the inputs the core schedules (ESSC
//! trials from scenario files, seed 001's environments over an SWF log, SWF jobs, the
//! firmware's reference scenarios), runs them through the core, and reports.
//!
//! # Layers, top down
//!
//! Data flows one way, from the command line down to the core; nothing below `cmd` imports
//! from it.
//!
//! - [`cmd`]: the `kairos` binary's subcommands. Each turns its flags (a plain struct) into
//!   a library module's options, calls it and prints. No work that a test needs lives there.
//! - Inputs. [`scenario`]: scenario files (the ESSC environment as TOML), their defaults and
//!   range checks. [`experiment`]: experiment files (heuristics x filters x trials of one
//!   scenario or of a log) and their expansion into configurations. Both read and check their
//!   TOML through [`toml_file`], whose errors name the file, the line and the key.
//!   [`swf`]: Standard Workload Format logs (reading, cleaning, conversion to jobs).
//! - Environments: what the core is given. [`generate`]: the ESSC generator, a scenario's
//!   trial (platform, task types, utility classes, tasks). [`seed001`]: seed 001's
//!   environment over a log (value functions, platforms cut from Curie, 28 h windows).
//!   [`firmware_scenarios`]: the reference scenarios the firmware embeds, in the core's packed
//!   form (`kairos_core::packed`), and their host replay (`kairos digest`).
//! - Runs. [`run`]: one trial under one configuration, the library behind `kairos run`, the
//!   experiments, the benches and the tests; it gives a [`run::RunSummary`].
//!   [`experiment::runner`]: every configuration on every trial, in parallel, through [`run`]
//!   (or [`seed001::run`] for a log). [`trace`]: SWF jobs on a homogeneous machine under
//!   FCFS, EASY, Conservative or a utility-aware heuristic (`kairos replay`). [`knapsack`]:
//!   seed 004's (alpha, beta, gamma) sweep over malleable jobs, with its own scheduling loop.
//! - Outputs. [`report`]: an experiment's CSV and JSON tables, statistics and SVG plots
//!   (`knapsack` and `trace` write their own small files).
//!
//! # Where the core is called
//!
//! [`sim`] holds the one hand-over to the core's replay engine: it allocates the storage a
//! controller needs and runs `kairos_core::replay` over a task list. [`run`] and [`seed001`]
//! go through it; [`firmware_scenarios`] builds the same storage and replays packed bytes;
//! [`trace`] drives a controller's events itself. [`generate`], [`seed001`] and [`trace`]
//! build the core's types (platforms, task types, utility curves); [`knapsack`] calls the
//! core's knapsack selection directly. Everything else sees only summaries.

pub mod cmd;
pub mod experiment;
pub mod firmware_scenarios;
pub mod generate;
pub mod knapsack;
pub mod report;
pub mod run;
pub mod scenario;
pub mod seed001;
pub mod sim;
pub mod swf;
pub mod toml_file;
pub mod trace;

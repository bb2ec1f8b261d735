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
//!   [`lublin99`]: the Lublin-Feitelson model of rigid parallel jobs, written as SWF logs.
//! - Environments: what the core is given. [`generate`]: the ESSC generator, a scenario's
//!   trial (platform, task types, utility classes, tasks). [`seed001`]: seed 001's
//!   environment over a log (value functions, platforms cut from Curie, 28 h windows).
//!   [`seed003`]: seed 003's DAG jobs with per-task DVFS (generator, PBA's profiler, the
//!   event loop, its experiments and reports).
//!   [`firmware_scenarios`]: the reference scenarios the firmware embeds, in the core's packed
//!   form (`kairos_core::packed`), and their host replay (`kairos digest`).
//! - Runs. [`run`]: one trial under one configuration, the library behind `kairos run`, the
//!   experiments, the benches and the tests; it gives a [`run::RunSummary`].
//!   [`experiment::runner`]: every configuration on every trial, in parallel, through [`run`]
//!   (or [`seed001::run`] for a log). [`trace`]: SWF jobs on a homogeneous machine under
//!   FCFS, EASY, Conservative, seed 004's knapsack or a utility-aware heuristic (`kairos
//!   replay`): loading, the replay as an observer of the core's engine, and metrics.
//!   [`knapsack`]: seed 004's (alpha, beta, gamma) sweep over malleable jobs, with its own
//!   scheduling loop (a malleable job is not one task with one assignment).
//!   [`live`]: a run whose decisions come from a live controller over a serial link (the
//!   firmware under QEMU, a board, or the core's serve loop in a thread): `kairos run
//!   --controller`, the engine's loop kept on the host, the wire protocol's client.
//! - Optimisers. [`nsga2`]: a generic, seeded NSGA-II (ranking, crowding distance, the
//!   dissertation's operators, parallel evaluation with thread-count-independent results);
//!   seed 002's allocation problems over it live in `seed002::pareto*` (`kairos pareto`).
//! - Evidence. [`claims`]: the papers' claims as data (`claims/*.toml`), evaluated on the
//!   outputs of the full-scale runs kept in `results/` (`kairos claims`).
//! - Outputs. [`report`]: an experiment's CSV and JSON tables, statistics and SVG plots
//!   (`knapsack` and `trace` write their own small files).
//! - Safety (docs/reliability.md). [`limits`]: the limits on sizes from input, checked
//!   before allocation. [`output`]: every report written whole (a temporary name, then a
//!   rename), results folders checked before any work. [`interrupt`]: Ctrl-C as a request
//!   to stop, which [`experiment::resume`] and [`experiment::saved`] honour between steps,
//!   saved for `--resume`; [`progress`]: a long command's progress with an estimate.
//! - Other tools' files. [`batsim`]: Batsim's jobs and schedule files (`--batsim-out`, read
//!   by evalys) and its workload JSON in and out; [`placement`]: the node ids each task ran
//!   on, read off the controller's timelines for the jobs file; [`export`]: workloads out
//!   (`kairos export`); [`analysis`]: a replay's selection, per-class metrics and plots.
//! - Beyond one machine. [`shard`]: one slice of an experiment's runs or a knapsack grid's
//!   points, its shard file, and the merge of shard files into the one-machine reports;
//!   [`slurm`]: the job array and merge job that run the shards on a Slurm cluster;
//!   [`slurm_control`]: kairos making a Slurm cluster's scheduling decisions.
//!
//! # Where the core is called
//!
//! Every run goes through the core's one event loop, `kairos_core::engine`. [`storage`] holds
//! the one hand-over of storage to the core: it allocates what a controller and its engine
//! need and runs a task list through the engine. [`run`] and [`seed001`] go through it;
//! [`firmware_scenarios`] takes the same storage and runs packed bytes, as the firmware does;
//! [`trace`] takes it too and watches the engine as an observer. [`generate`], [`seed001`]
//! and [`trace`] build the core's types (platforms, task types, utility curves); [`knapsack`]
//! calls the core's knapsack selection directly. [`live`] runs the engine's loop on the host
//! and the controller at the other end of a link. Everything else sees only summaries.

pub mod analysis;
pub mod batsim;
pub mod bounded;
pub mod claims;
pub mod cmd;
pub mod experiment;
pub mod export;
pub mod firmware_scenarios;
pub mod generate;
pub mod interrupt;
pub mod knapsack;
pub mod limits;
pub mod live;
pub mod lublin99;
pub mod nsga2;
pub mod output;
pub mod placement;
pub mod platform_file;
pub mod progress;
pub mod report;
pub mod run;
pub mod scenario;
pub mod seed001;
pub mod seed002;
pub mod seed003;
pub mod shard;
pub mod slurm;
pub mod slurm_control;
pub mod storage;
pub mod swf;
pub mod toml_file;
pub mod trace;

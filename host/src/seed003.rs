//! Seed 003's environment on the host (Indrusiak, Dziurzanski and Singh, ch. 7): DAG jobs
//! with per-task DVFS arriving over a day at nodes of DVFS cores, allocated by ValOpt,
//! NBA-FCPS, NBA-FTPS or PBA (the core's [`kairos_core::dag`]).
//!
//! - [`model`]: the scenario format (the platform, the workload's knobs, the power model and
//!   PBA's genetic algorithm) and its checks; every value not in the paper is one of the
//!   spec's R1-R13 (`docs/model.md`).
//! - [`generate`]: a trial's jobs (R4 DAGs, R5 value curves) and arrivals (R6: one day's
//!   profile, compressed by the rate's factor, so the rates of one trial are paired).
//! - [`profile`]: PBA's design-time profiling, a seeded genetic algorithm per job and core
//!   count (R13), in parallel (rayon), identical for any thread count.
//! - [`sim`]: the run-time machinery shared by the four approaches (Alg. 7.1-7.2: events,
//!   drops, bids, the allocation loop), one trial under one approach, with its digest.
//! - [`experiment`]: experiment files (rates, nodes, cores, static power, calibration), their
//!   runs over 48 paired trials, and [`report`]: means with 95% CIs, ratios versus ValOpt, CSV
//!   and SVG in the paper's form.
//! - [`claim_grid`]: the claims file's rates claims evaluated again at every (tightness, static
//!   power) cell of a sensitivity experiment's outputs, one figure per claim.

pub mod claim_grid;
pub mod experiment;
pub mod generate;
pub mod model;
pub mod profile;
pub mod report;
pub mod sim;

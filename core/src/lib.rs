//! kairos-core: the scheduling core of kairos, `no_std` and allocation-free.
//!
//! # What it does
//!
//! Tasks arrive at an oversubscribed, heterogeneous cluster. Each earns utility from a
//! time-decaying curve when it completes; the cluster has an energy budget for the day. At
//! every mapping event the core decides which task runs where, on how many nodes, in which
//! P-state and when (seed 000, Machovec et al.; the other seeds fill in the pieces).
//!
//! # Layers, bottom up
//!
//! Each layer imports only the ones above it in this list, never one below: a heuristic uses
//! the planner and the planner knows no heuristic; the controller calls the heuristic; the
//! engine drives the controller.
//!
//! - The vocabulary. [`units`]: what a number is (integer microseconds, millijoules,
//!   milliwatts, micro-utility: every ledger is an exact integer sum). [`limits`]: the
//!   compile-time capacities. [`platform`] and [`task`]: clusters of identical nodes with
//!   P-states, task types with an execution time (ETC) and a power (APC) per cluster and
//!   P-state, tasks with an arrival, a demand and a utility curve. [`utility`]: seed 002's
//!   piecewise-exponential utility and seed 001's linear value functions, with `libm`.
//!   [`config`]: how a run decides ([`Config`], [`Heuristic`], [`Reservations`]).
//! - [`timeline`]: each cluster's node bookings (running, reserved, place-held) and the two
//!   queries every heuristic needs: the earliest start of `k` nodes for a duration, and which
//!   nodes to take.
//! - [`energy`] and `dropping`: the day's energy ledger, the energy filters' budgets and
//!   verdicts, and the dropping check.
//! - `plan`: the planner, what a mapping event works on: the task slots and their states,
//!   the timelines, the ledger and the filter's verdicts, the fit memo (a cache of
//!   earliest-start answers), and what a heuristic may do (a task's options, assign, take a
//!   reservation back).
//! - `policy`: the heuristics, one a file, each over the planner: Random, Conservative, EASY,
//!   FCFS, multiple queues, the knapsack ([`knapsack`], seed 004) and the utility-aware Max
//!   Util / UPT / UPR / UPE / Value over one pass (`policy/greedy/`).
//! - [`Controller`]: the configuration, the planner and the three events a resource manager
//!   sees (`on_arrival`, `on_completion`, `on_mapping_event`); it calls the heuristic.
//! - [`engine`]: the one event loop that drives a controller through arrivals, completions
//!   and mapping events, for every caller (the firmware, `kairos run`, trace replay, the
//!   benchmarks), and hashes the decisions ([`digest`]). [`packed`]: a scenario packed for the
//!   firmware. [`wire`]: the protocol between a host and a live controller.
//!
//! - [`dag`]: seed 003's DAG jobs with per-task DVFS, beside the planner: its own job type,
//!   evaluator, power model and allocators (ValOpt, NBA-FCPS, NBA-FTPS, PBA's run-time choice).
//!
//! `docs/architecture.md` follows one task from arrival to completion through these files.
//!
//! # Storage and errors
//!
//! The core never allocates. Small tables are fixed-capacity (`heapless`, sized by
//! [`limits`]); everything sized by the workload (task slots, node timelines, sweep scratch,
//! the fit memo, the void index, pending completions) is a slice the caller hands over once
//! ([`Storage`], sized by [`StorageSizes`]; the engine's [`engine::Pending`]), so the host can
//! use `Vec`s and the firmware `static`s. A full buffer is a [`error::CapacityError`], an
//! inconsistent input an [`error::InputError`]: the core returns errors and does not panic on
//! input.
//!
//! # Determinism
//!
//! Same scenario and seed, same decisions and digest, on x86_64 and on the Cortex-M4F: integer
//! time and ledgers, `libm` for transcendental functions, `f64` only through IEEE-exact
//! operations, seeded ChaCha streams, and ties broken by index, never by memory order.
#![no_std]
#![deny(missing_docs)]

pub mod config;
mod controller;
pub mod dag;
pub mod digest;
mod dropping;
pub mod energy;
pub mod engine;
pub mod error;
pub mod external;
mod heap;
pub mod limits;
pub mod packed;
mod plan;
pub mod platform;
mod policy;
pub mod serial;
pub mod task;
pub mod timeline;
pub mod units;
pub mod utility;
pub mod wire;

pub use config::{Config, Heuristic, KnapsackParams, Reservations, UnknownName};
pub use controller::{Controller, Counts};
pub use plan::{
    Assignment, Decision, DecisionKind, MemoEntry, Storage, StorageSizes, TaskSlot, TaskState, Work,
};
/// Seed 004's dynamic priority and greedy knapsack: the rigid heuristic the controller runs,
/// and the malleable selection the host's sweep drives.
pub use policy::knapsack;

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
//! - [`units`]: what a number is. Integer microseconds, millijoules, milliwatts, micro-utility:
//!   every ledger is an exact integer sum, so results do not depend on summation order.
//! - [`platform`] and [`task`]: clusters of identical nodes with P-states; task types with an
//!   execution time (ETC, interpolated over node counts) and a power (APC) per cluster and
//!   P-state; tasks with an arrival, a demand and a utility curve.
//! - [`utility`]: the piecewise-exponential utility functions of seed 002 and the linear value
//!   functions of seed 001, evaluated with `libm`; proration across the day's edges.
//! - [`timeline`]: per-node bookings (running, reserved, place-held) and the two queries every
//!   heuristic needs: the earliest start of `k` nodes for a duration, and which nodes to take.
//! - [`energy`] and [`dropping`]: the day's ledger, the energy-per-task, energy-per-resource
//!   and adaptive filters, and the dropping threshold.
//! - [`policy`]: the heuristics, one per file: Random, Conservative, EASY, multiple queues,
//!   and Max Util / UPT / UPR / UPE over the Min-Min framework.
//! - [`controller`]: the state between events and the three events that drive it
//!   (`on_arrival`, `on_completion`, `on_mapping_event`): what a live management controller
//!   calls. [`engine`] is the one event loop every caller runs: it drives arrivals,
//!   completions and mapping events through the controller, step by step or to the end,
//!   and hashes the result ([`digest`]).
//!
//! # Storage and errors
//!
//! The core never allocates. Small tables are fixed-capacity (`heapless`, limits in
//! [`limits`]); everything sized by the workload (task slots, node timelines, sweep scratch,
//! the fit memo, pending completions) is a slice the caller provides ([`controller::Storage`],
//! [`controller::StorageSizes`]), so the host can use `Vec`s and the firmware `static`s. A full
//! buffer is a [`error::CapacityError`], an inconsistent input an [`error::InputError`]: the
//! core returns errors and does not panic on input.
//!
//! # Determinism
//!
//! Same scenario and seed, same decisions and digest, on x86_64 and on the Cortex-M4F: integer
//! time and ledgers, `libm` for transcendental functions, `f64` only through IEEE-exact
//! operations, seeded ChaCha streams, and ties broken by index, never by memory order.
#![no_std]
#![deny(missing_docs)]

pub mod config;
pub mod controller;
pub mod digest;
pub mod dropping;
pub mod energy;
pub mod engine;
pub mod error;
mod heap;
pub mod limits;
pub mod packed;
pub mod plan;
pub mod platform;
pub mod policy;
pub mod task;
pub mod timeline;
pub mod units;
pub mod utility;

//! Seed 002's serial system (Friese's dissertation, Chapter 2): serial tasks on single
//! machines with FIFO queues, beside seed 000's cluster system and sharing only its
//! vocabulary (units, utility curves, the digest).
//!
//! # What each file owns
//!
//! - [`env`](mod@env): the environment a run is given: machine types (the first few
//!   special-purpose), machines grouped by type, the ETC table over task types and machine
//!   types, the tasks with their utility curves; and the run's configuration
//!   ([`SerialConfig`]: heuristic, dropping threshold, trigger, event cost, App. A's
//!   permutation).
//! - `queue`: one machine's queue (Fig. 2.3): the executing task, the pending task that is
//!   never remapped, and the virtual queue that a batch event empties and remaps.
//! - `view`: what a heuristic sees at an event: each machine's ready time, the best and
//!   second-best machine of every machine type, completions and utilities. The heuristics
//!   use it; it knows no heuristic.
//! - `two_stage`: the two-stage batch pass (stage 1: a machine per task; stage 2: the best
//!   pair) that Min-Min Comp, Max-Max Util, Max-Max UPT and MET-Max Util-Max UPT share;
//!   `grouped` makes its decisions over groups of tasks of one type and curve.
//! - `policy/`: the twelve heuristics, one a file, and App. A's permutation.
//! - [`cost`]: the deterministic model of a mapping event's own duration (spec §2).
//! - [`sim`]: the event loop: completions, arrivals, mapping events (immediate: one per
//!   arrival; batch: by trigger), dropping, the window's ledgers and the digest.
//!
//! - Chapters 3 and 4 (energy): [`pstate`] (ETC and APC per P-state, EEC), [`energy_filter`]
//!   (the tuned and adaptive filters over seed 000's), [`energy_heuristic`] (the heuristics by
//!   name and the weighted objectives), `options` (what a heuristic sees: valid, filtered
//!   (machine, P-state) options), `energy_policy/` (two-stage, FCFS/LCFS, Random) and
//!   [`energy_sim`] (the event loop: queued or polled machines, the day's ledger with
//!   proration and postponement).
//!
//! Imports go down: `sim` calls `policy`, `policy` uses `two_stage` and `view`, and those
//! use `env` and `queue`. Storage is the caller's ([`SerialStorage`]): the core allocates
//! nothing, and per-machine state is fixed-capacity ([`MAX_SERIAL_MACHINES`]).

pub mod cost;
pub mod energy_filter;
pub mod energy_heuristic;
mod energy_policy;
pub mod energy_sim;
pub mod env;
mod grouped;
mod heuristic;
mod options;
mod policy;
pub mod pstate;
mod queue;
pub mod sim;
mod two_stage;
mod utility_bound;
mod view;

pub use cost::EventCost;
pub use env::{
    Heuristic as SerialHeuristic, Mode, SerialConfig, SerialEnv, SerialError, SerialTask, Trigger,
    MAX_SERIAL_MACHINES, MAX_SERIAL_MACHINE_TYPES,
};
pub use sim::{SerialReport, SerialStorage, Sim, TaskOutcome};

pub use energy_filter::{FilterState, SerialFilter};
pub use energy_heuristic::EnergyHeuristic;
pub use energy_sim::{
    EnergyCap, EnergyConfig, EnergyReport, EnergySim, EnergyStorage, Machines, NO_ENERGY_CAP,
};
pub use pstate::{PowerModel, PowerStats, MAX_SERIAL_PSTATES};

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "serial/energy_tests.rs"]
mod energy_tests;

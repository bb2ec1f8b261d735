//! The planner: what a mapping event works on, and the operations a heuristic needs.
//!
//! A heuristic takes the [`Planner`] and never names the controller. It reads the mappable
//! tasks and the configuration, asks for a task's options ([`Choice`]: a cluster, a P-state
//! and the earliest start there, with its energy; through the fit memo), and assigns the one
//! it picks or takes a reservation back. The controller drives the planner through the three
//! events and calls the heuristic in between; the planner knows no heuristic.
//!
//! Files, bottom up (each imports only those above it):
//! - `slots.rs`: a task's slot, state and assignment; the decisions an event emits.
//! - `choice.rs`: an option ([`Choice`]) and a mappable task's working entry ([`Work`]).
//! - `memo.rs`: the fit memo, the cache of earliest-start answers.
//! - `storage.rs`: the caller's buffers ([`Storage`], [`StorageSizes`]).
//! - `planner.rs`: the state itself and what a heuristic reads of the tasks.
//! - `options.rs`: a task's options (memo, timeline, filter, energy left) and its utility.
//! - `assign.rs`: booking an option, or taking a reservation back.
//! - `propose.rs`: a decision proposed from outside the core, checked and booked.
//! - `keep.rs`: whether a reservation would come back at its start after time was freed.
//! - `events.rs`: what an arrival, a completion and the start of a mapping event do.
//! - `day.rs`: the energy day rolling over, for a controller that runs for ever.
//! - `service.rs`: nodes taken out of service and back (never booked while out).

mod assign;
mod choice;
mod day;
mod events;
mod keep;
mod memo;
mod options;
mod planner;
mod propose;
mod service;
mod slots;
mod storage;
mod withdraw;

pub use choice::{Choice, Work};
pub use memo::MemoEntry;
pub use planner::Planner;
pub use slots::{Assignment, Decision, DecisionKind, TaskSlot, TaskState};
pub use storage::{Storage, StorageSizes};

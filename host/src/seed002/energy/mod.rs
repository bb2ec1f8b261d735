//! Seed 002's energy-constrained serial system (dissertation Chapters 3 and 4) on the host:
//! the P-state tables and task-machine affinity drawn per trial ([`env`](mod@env)) and the experiment
//! files (`system = "serial-energy"`) with their reports ([`experiment`]). The filters and
//! the energy ledger live in `kairos_core::serial::energy_policy`.

pub mod env;
pub mod experiment;

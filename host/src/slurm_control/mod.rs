//! `kairos slurm-control`: kairos schedules a real Slurm cluster (docs/operations.md).
//!
//! Jobs submitted to the partitions kairos manages are held at submission (the
//! `job_submit.lua` that `scripts/setup-slurm.sh` installs, or `sbatch --hold`). At every
//! cycle kairos reads the queue (`squeue --json`), turns new held jobs into tasks, finished
//! ones into completions and ones cancelled before they started into withdrawals, runs a
//! mapping event of the in-process controller, and applies its decisions: a start pins the
//! job to the nodes the controller booked (`scontrol update jobid=N nodelist=...`) and
//! releases it, a drop cancels the job with the reason in its comment, a reservation keeps
//! the job held until its start comes. Every call to the controller goes to the ledger file
//! first, so that a kairos killed at any moment rebuilds its state on restart.
//!
//! - [`hostlist`]: Slurm's node lists;
//! - [`queue`]: `squeue --json` and `sinfo --json` read into jobs and nodes;
//! - [`slurm_cli`]: the Slurm operations, through Slurm's commands;
//! - [`policy`]: the policy file;
//! - [`job_task`]: a job as a task, and the platform;
//! - [`ledger`]: the ledger file;
//! - [`control`]: the loop; `events.rs` (a queue snapshot -> the controller's events),
//!   `apply.rs` (an entry -> the controller), `reconcile.rs` (Slurm brought to the
//!   controller's state), `book.rs` (jobs <-> tasks, nodes, reasons);
//! - [`signals`]: SIGINT and SIGTERM as a request to stop.

mod apply;
mod book;
pub mod control;
mod events;
pub mod hostlist;
pub mod job_task;
pub mod ledger;
pub mod policy;
pub mod queue;
mod reconcile;
pub mod signals;
pub mod slurm_cli;

pub use control::{serve, Clock, CycleReport, Options, SystemClock};
pub use policy::SitePolicy;
pub use reconcile::hand_back;
pub use slurm_cli::{Slurm, SlurmCli};

#[cfg(test)]
mod tests;

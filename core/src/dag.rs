//! Seed 003 (Indrusiak, Dziurzanski and Singh, ch. 7): value- and energy-aware allocation of
//! DAG jobs on nodes of DVFS cores.
//!
//! A job is a small DAG of tasks ([`job`]) that runs on the cores of one node; every task may
//! run at its own voltage/frequency level. [`power`] prices a level (Eq. 7.1-7.2: dynamic energy
//! per task, static energy per used core for the job's whole response time). [`evaluator`]
//! turns a mapping of tasks to cores and a level per task into a schedule (list order by
//! upward rank, precedence and communication, one task at a time per core). [`value`] is the
//! job's value curve, which reaches zero, and the exact comparison of value per energy.
//!
//! The allocators, one a file, each using only the files above:
//! - [`list`]: the NBA allocation on `c` cores (list scheduling at the fastest level);
//! - [`valopt`]: the baseline, every task at the fastest level, max value first;
//! - [`nba_ftps`]: Alg. 7.3, fixing tasks' power states one (task, level) at a time;
//! - [`nba_fcps`]: the same greedy over cores (every task of a core at the core's level);
//! - [`pba`]: the run-time half of the profiling approach (Alg. 7.1), choosing a core count
//!   and its stored allocation from the profiles the host computed at design time.
//!
//! The event loop (arrivals, completions, bids of idle cores, the queue) lives in the host
//! (`kairos_host::seed003`), which owns its storage; the core works on one job at a time in
//! fixed arrays (at most [`MAX_DAG_TASKS`](crate::limits::MAX_DAG_TASKS) tasks and
//! [`MAX_DVFS_LEVELS`](crate::limits::MAX_DVFS_LEVELS) levels), never allocates and never
//! panics on input: a bad job, table, mapping or level is a [`error::DagError`].

pub mod error;
pub mod evaluator;
pub mod job;
pub mod list;
pub mod nba_fcps;
pub mod nba_ftps;
pub mod pba;
pub mod power;
pub mod valopt;
pub mod value;

#[cfg(test)]
mod tests;

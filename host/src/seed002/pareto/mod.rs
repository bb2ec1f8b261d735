//! Seed 002's bi-objective allocation (dissertation Chapters 5-7) over NSGA-II
//! ([`crate::nsga2`]): the problem ([`problem`], its items re-exported here), its tables
//! ([`data`]), instances ([`sets`]), seeding heuristics ([`seeds`]), experiment files and
//! runs ([`experiment`]) and reports ([`report`]), with each front point's allocation
//! ([`allocation`]) and the instance as a file ([`instance_file`]), written as each checkpoint is reached
//! ([`checkpoints`]); Chapter 7's stochastic fronts ([`stochastic`], [`stochastic_run`])
//! and their dynamic seeds ([`dynamic_seeds`]).

pub mod allocation;
pub mod checkpoints;
mod curve;
pub mod data;
pub mod dynamic_seeds;
mod exp;
pub mod experiment;
pub mod instance_file;
pub mod problem;
pub mod report;
pub mod seeds;
pub mod sets;
pub mod state;
pub mod stochastic;
pub mod stochastic_run;

pub use problem::{
    Gene, Instance, InstanceError, Measures, Memo, Mutation, Objective, Scratch, Task,
};

//! Seed 002's serial system (dissertation Chapter 2 and Appendices A, G, H) on the host:
//! one run through the core's serial event loop ([`run`]), experiment files
//! (`system = "serial"`, [`experiment`]) and their reports ([`report`]), and the utility
//! split by priority level ([`priority_split`]). The decisions live in `kairos_core::serial`.

pub mod experiment;
pub mod priority_split;
pub mod report;
pub mod run;

//! kairos-core (being written).
#![no_std]

pub mod config;
pub mod controller;
pub mod digest;
pub mod dropping;
pub mod energy;
pub mod error;
pub mod platform;
pub mod policy;
pub mod replay;
pub mod task;
pub mod timeline;
pub mod units;
pub mod utility;

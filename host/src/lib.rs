//! kairos-host (skeleton, being written).

/// Host-side storage and runs of the core replay engine.
pub mod sim;
/// Standard Workload Format logs: reading, cleaning, conversion to replay jobs.
pub mod swf;

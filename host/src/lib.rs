//! kairos-host (skeleton, being written).

/// Standard Workload Format logs: reading, cleaning, conversion to replay jobs.
pub mod swf;

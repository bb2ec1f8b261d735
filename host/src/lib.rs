//! kairos-host (skeleton, being written).

//! kairos-core (skeleton, being written).
#![no_std]

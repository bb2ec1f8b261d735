//! Helpers shared by the host's integration tests that run the `kairos` binary on the
//! hand-made SWF logs of `tests/data/swf`.

// Each test crate that includes this module uses a part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// A hand-made SWF log under `tests/data/swf`.
pub fn swf(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/swf")
        .join(name)
}

/// Runs the `kairos` binary with `args` and returns what it did.
pub fn kairos(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .output()
        .expect("the kairos binary runs")
}

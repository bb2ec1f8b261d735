//! The `kairos` binary's layer over the library: one module per subcommand, each with its
//! flags (`Args`, a plain struct mirroring the command line), the options they become, and a
//! `main` that calls the library and prints. No work happens here that a test or another
//! caller would need: that lives in the library module each `main` names. Data flows one way,
//! from here into the library; no library module imports from `cmd`.

pub mod digest;
pub mod experiment;
pub mod firmware;
pub mod generate_swf;
pub mod merge;
pub mod replay;
pub mod run;
pub mod seed003;
pub mod slurm;
pub mod sweep_knapsack;

use kairos_core::Reservations;

/// A finite number (clap's value parser for `--alpha`, `--beta`, `--gamma`, `--step`,
/// `--share`).
pub(crate) fn finite(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err(format!("{s:?} is not a finite number")),
        Err(_) => Err(format!("{s:?} is not a number")),
    }
}

/// `permanent` or `place-holder` (clap's value parser for `--reservations`).
pub(crate) fn parse_reservations(s: &str) -> Result<Reservations, String> {
    s.parse()
        .map_err(|_| format!("unknown reservations {s:?} (expected permanent or place-holder)"))
}

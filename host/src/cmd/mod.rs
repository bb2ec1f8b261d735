//! The `kairos` binary's layer over the library: one module per subcommand, each with its
//! flags (`Args`, a plain struct mirroring the command line), the options they become, and a
//! `main` that calls the library and prints. No work happens here that a test or another
//! caller would need: that lives in the library module each `main` names. Data flows one way,
//! from here into the library; no library module imports from `cmd`.

pub mod claims;
pub mod diag;
pub mod digest;
pub mod experiment;
pub mod export;
pub mod firmware;
pub mod generate_swf;
pub(crate) mod json;
pub mod merge;
pub mod pareto;
pub mod pipe;
pub mod replay;
pub mod run;
pub mod seed003;
pub mod slurm;
pub mod slurm_control;
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

/// A command line that parses but asks for something that cannot be done (a flag that does
/// not apply to the policy, a window that ends before it starts): `kairos` exits with 2, as
/// for a command line clap rejects, rather than 1, which means a run failed.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Fails with a [`UsageError`].
pub(crate) fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(msg.into()))
}

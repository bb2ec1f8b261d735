//! Max Utility-per-Energy (seed 000 Eq. 5): utility over the energy of the run (joules).
//! Across P-states this is what trades speed for efficiency.

use crate::controller::{Choice, Controller};
use crate::error::Error;

/// Energy below this (joules) counts as this much, so a zero-power table cannot divide by 0.
const MIN_JOULES: f64 = 1e-3;

pub(super) fn objective(_: &Controller<'_>, ch: &Choice, u: f64) -> Result<f64, Error> {
    Ok(u / f64::max(ch.energy.as_joules_f64(), MIN_JOULES))
}

//! Max Utility-per-Time (seed 000 Eq. 3): utility over execution time (seconds).

use crate::controller::{Choice, Controller};
use crate::error::Error;

pub(super) fn objective(_: &Controller<'_>, ch: &Choice, u: f64) -> Result<f64, Error> {
    Ok(u / ch.duration.as_secs_f64())
}

//! Max Utility-per-Time (seed 000 Eq. 3): utility over execution time (seconds).

use crate::controller::{Choice, Controller};
use crate::error::Error;

pub(super) fn objective(ctl: &Controller<'_>, i: u32, ch: &Choice) -> Result<f64, Error> {
    let u = ctl.value_at_end(i, ch.start.saturating_add(ch.duration))?;
    Ok(u / ch.duration.as_secs_f64())
}

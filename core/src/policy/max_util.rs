//! Max Utility (seed 000 Eq. 2): the utility the task earns at its completion.

use crate::controller::{Choice, Controller};
use crate::error::Error;

pub(super) fn objective(ctl: &Controller<'_>, i: u32, ch: &Choice) -> Result<f64, Error> {
    ctl.value_at_end(i, ch.start.saturating_add(ch.duration))
}

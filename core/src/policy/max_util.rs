//! Max Utility (seed 000 Eq. 2): the utility the task earns at its completion.

use super::greedy::Objective;
use crate::controller::{Choice, Controller};
use crate::error::Error;

/// Max Utility's objective.
#[derive(Clone, Copy)]
pub(super) struct MaxUtil;

impl Objective for MaxUtil {
    // The utility over a cost of 1, which is the utility itself, bit for bit.
    const PER_COST: bool = true;

    fn value(self, _: &Controller<'_>, _: &Choice, u: f64) -> Result<f64, Error> {
        Ok(u)
    }
}

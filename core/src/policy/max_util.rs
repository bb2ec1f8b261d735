//! Max Utility (seed 000 Eq. 2): the utility the task earns at its completion.

use super::greedy::Objective;

/// Max Utility's objective.
#[derive(Clone, Copy)]
pub(super) struct MaxUtil;

impl Objective for MaxUtil {
    // The utility over the default cost of 1, which is the utility itself, bit for bit.
    const PER_COST: bool = true;
}

//! Max Utility-per-Time (seed 000 Eq. 3): utility over execution time (seconds).

use super::greedy::Objective;
use crate::error::Error;
use crate::plan::{Choice, Planner};

/// Max Utility-per-Time's objective.
#[derive(Clone, Copy)]
pub(super) struct MaxUpt;

impl Objective for MaxUpt {
    const PER_COST: bool = true;

    fn cost(self, _: &Planner<'_>, ch: &Choice) -> Result<f64, Error> {
        Ok(ch.duration.as_secs_f64())
    }
}

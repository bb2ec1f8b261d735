//! Max Utility-per-Energy (seed 000 Eq. 5): utility over the energy of the run (joules).
//! Across P-states this is what trades speed for efficiency.

use super::greedy::Objective;
use crate::error::Error;
use crate::plan::{Choice, Planner};

/// Energy below this (joules) counts as this much, so a zero-power table cannot divide by 0.
const MIN_JOULES: f64 = 1e-3;

/// Max Utility-per-Energy's objective.
#[derive(Clone, Copy)]
pub(super) struct MaxUpe;

impl Objective for MaxUpe {
    const PER_COST: bool = true;
    // A slower P-state's run can take less energy, so it often wins: the check before a
    // query seldom rules an option out here and costs more than it saves (docs/performance.md).
    const CHECK_UNREAD: bool = false;

    fn cost(self, _: &Planner<'_>, ch: &Choice) -> Result<f64, Error> {
        Ok(f64::max(ch.energy.as_joules_f64(), MIN_JOULES))
    }
}

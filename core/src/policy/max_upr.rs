//! Max Utility-per-Resource (seed 000 Eq. 4): utility over resources allocated (Eq. 1,
//! core-seconds).

use super::greedy::Objective;
use crate::error::Error;
use crate::plan::{Choice, Planner};
use crate::units::{CoreMicros, Cores};

/// Max Utility-per-Resource's objective.
#[derive(Clone, Copy)]
pub(super) struct MaxUpr;

impl Objective for MaxUpr {
    const PER_COST: bool = true;

    fn cost(self, ctl: &Planner<'_>, ch: &Choice) -> Result<f64, Error> {
        let cpn = ctl.platform().cluster(ch.cluster)?.cores_per_node as u64;
        Ok(CoreMicros::of(Cores(ch.nodes.0 as u64 * cpn), ch.duration).as_core_secs_f64())
    }
}

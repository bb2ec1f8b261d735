//! Max Utility-per-Resource (seed 000 Eq. 4): utility over resources allocated (Eq. 1,
//! core-seconds).

use crate::controller::{Choice, Controller};
use crate::error::Error;
use crate::units::{CoreMicros, Cores};

pub(super) fn objective(ctl: &Controller<'_>, ch: &Choice, u: f64) -> Result<f64, Error> {
    let cpn = ctl.platform().cluster(ch.cluster)?.cores_per_node as u64;
    let r = CoreMicros::of(Cores(ch.nodes.0 as u64 * cpn), ch.duration).as_core_secs_f64();
    Ok(u / r)
}

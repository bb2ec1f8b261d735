//! Random (seed 000 §III.D.1): tasks in arrival order, each to a uniformly random eligible
//! cluster in a uniformly random P-state, at its earliest start there (a permanent
//! reservation if later than now). The draws come from the controller's seeded ChaCha
//! stream, so a run is reproducible from its seed.

use crate::config::Reservations;
use crate::error::Error;
use crate::plan::{Decision, Planner};
use crate::platform::{ClusterId, PState};
use rand_chacha::rand_core::RngCore;

pub(super) fn run(ctl: &mut Planner<'_>, sink: &mut dyn FnMut(&Decision)) -> Result<(), Error> {
    let n = ctl.collect_mappable()?;
    let filtered = super::common::filtered(ctl);
    for w in 0..n {
        let i = ctl.work()[w].slot;
        let mut eligible = [0u8; crate::limits::MAX_CLUSTERS];
        let mut m = 0;
        for c in 0..ctl.cluster_count() {
            if ctl.placement(i, ClusterId(c)).is_some() {
                eligible[m] = c;
                m += 1;
            }
        }
        if m == 0 {
            continue;
        }
        let c = eligible[(ctl.rng().next_u32() % m as u32) as usize];
        let p = (ctl.rng().next_u32() % ctl.pstates() as u32) as u8;
        if let Some(ch) = ctl.option(i, ClusterId(c), PState(p), filtered)? {
            ctl.assign(i, &ch, Reservations::Permanent, sink)?;
        }
    }
    Ok(())
}

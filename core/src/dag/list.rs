//! The NBA allocation (§7.2.2 step i, R11): a job's tasks on at most `c` cores of one node,
//! by list scheduling at the fastest level (HEFT without insertion).
//!
//! For each task in list order, the core giving the earliest finish, ties by the least load
//! so far (the sum of fastest execution times already on it), then the lower index. Earliest
//! finish balances load over the cores; communication paid only across cores pulls
//! communicating tasks together when the job has more tasks than cores, as the paper asks.
//! Every approach but PBA allocates this way; PBA's profiles start from it.

use crate::dag::error::DagError;
use crate::dag::evaluator::Mapping;
use crate::dag::job::{tasks, DagJob};
use crate::limits::MAX_DAG_TASKS;
use crate::units::Micros;

/// The list schedule of `job` on `cores` cores (1 to [`MAX_DAG_TASKS`]; more cores than
/// tasks leaves the extra ones unused).
///
/// Errors: zero cores or more than [`MAX_DAG_TASKS`] ([`DagError::CoreCount`]).
pub fn list_schedule(job: &DagJob, cores: usize) -> Result<Mapping, DagError> {
    if cores == 0 || cores > MAX_DAG_TASKS {
        return Err(DagError::CoreCount(cores));
    }
    let c = cores.min(job.len());
    let mut m = Mapping::default();
    let mut free = [Micros::ZERO; MAX_DAG_TASKS];
    let mut load = [Micros::ZERO; MAX_DAG_TASKS];
    let mut finish = [Micros::ZERO; MAX_DAG_TASKS];
    for &t in job.order() {
        let t = t as usize;
        let mut best: Option<(Micros, Micros, usize)> = None;
        for k in 0..c {
            let mut ready = free[k];
            for p in tasks(job.preds(t)) {
                let mut at = finish[p];
                if m.core[p] as usize != k {
                    at = at.saturating_add(job.comm(p, t));
                }
                ready = ready.max(at);
            }
            let key = (ready.saturating_add(job.wcet(t)), load[k], k);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        // `c >= 1`, so a core was chosen.
        let (f, _, k) = best.unwrap_or((Micros::ZERO, Micros::ZERO, 0));
        m.core[t] = k as u8;
        free[k] = f;
        finish[t] = f;
        load[k] = load[k].saturating_add(job.wcet(t));
    }
    Ok(m)
}

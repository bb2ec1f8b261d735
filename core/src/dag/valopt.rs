//! ValOpt, the baseline (ref. \[141\] as seed 003 §7.3.1 runs it): the NBA allocation with
//! every task at the fastest level (no DVFS), the queued job of highest predicted value first.
//!
//! The predicted value is also how every NBA variant picks its job (Alg. 7.2 line 7,
//! maxValuableJob); the variants differ only in the levels they then choose.

use crate::dag::error::DagError;
use crate::dag::evaluator::{evaluate, Allocation, Levels, Mapping, Schedule};
use crate::dag::job::DagJob;
use crate::dag::power::DvfsTable;
use crate::dag::value::ValueCurve;
use crate::units::{Micros, Utility};

/// The job's allocation on mapping `m` (the NBA list schedule) with every task at level 0.
pub fn valopt(job: &DagJob, table: &DvfsTable, m: &Mapping) -> Result<Allocation, DagError> {
    let schedule = evaluate(job, table, m, &Levels::FASTEST)?;
    Ok(Allocation {
        mapping: *m,
        levels: Levels::FASTEST,
        schedule,
        evals: 1,
    })
}

/// The value a job that has waited `waited` since its arrival earns if it starts now with
/// schedule `s`: VC(now + RT - AT).
pub fn predicted_value(curve: &ValueCurve, waited: Micros, s: &Schedule) -> Utility {
    curve.value(waited.saturating_add(s.rt))
}

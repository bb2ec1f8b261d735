//! NBA-FCPS, fixing cores' power states (ref. \[124\] extended to value per energy, §7.3.1): the
//! greedy of Alg. 7.3 over the used cores instead of the tasks. Setting core `k` to level `v`
//! sets every task on `k` to `v`; one core is fixed per round, the (core, level) of highest
//! value per energy, ties to the lower core, then the faster level.
//!
//! When every core holds one task, a core's level is its task's level and the two greedies
//! search the same candidates in the same order: FCPS then equals FTPS (§3.4 of the spec,
//! why the paper finds them "close to each other").

use crate::dag::error::DagError;
use crate::dag::evaluator::{evaluate, Allocation, Levels, Mapping, Schedule};
use crate::dag::job::DagJob;
use crate::dag::power::DvfsTable;
use crate::dag::value::{Ratio, ValueCurve};
use crate::limits::MAX_DAG_TASKS;
use crate::units::Micros;
use core::cmp::Ordering;

/// `levels` with every task of core `k` at level `v`.
fn set_core(job: &DagJob, m: &Mapping, levels: &mut Levels, k: u8, v: u8) {
    for t in 0..job.len() {
        if m.core[t] == k {
            levels.level[t] = v;
        }
    }
}

/// NBA-FCPS's levels for a job that has waited `waited` since arrival, on mapping `m`.
pub fn nba_fcps(
    job: &DagJob,
    table: &DvfsTable,
    curve: &ValueCurve,
    m: &Mapping,
    waited: Micros,
) -> Result<Allocation, DagError> {
    let ratio = |s: &Schedule| {
        let v = curve.value(waited.saturating_add(s.rt));
        (v.0 > 0).then(|| Ratio::per_energy(v, s.energy_nj))
    };
    let mut levels = Levels::FASTEST;
    let mut current = evaluate(job, table, m, &levels)?;
    let mut evals = 1u32;
    let used = current.used;
    let mut core_level = [0u8; MAX_DAG_TASKS];
    let mut fixed: u16 = 0;
    while fixed != used {
        let here = ratio(&current);
        let mut best: Option<(Ratio, u8, u8, Schedule)> = None;
        for k in 0..MAX_DAG_TASKS as u8 {
            if used & (1 << k) == 0 || fixed & (1 << k) != 0 {
                continue;
            }
            let keep = core_level[k as usize];
            for v in 0..table.levels() as u8 {
                let (r, s) = if v == keep {
                    (here, current)
                } else {
                    set_core(job, m, &mut levels, k, v);
                    let s = evaluate(job, table, m, &levels)?;
                    evals += 1;
                    (ratio(&s), s)
                };
                if let Some(r) = r {
                    if best
                        .as_ref()
                        .is_none_or(|b| r.cmp_exact(&b.0) == Ordering::Greater)
                    {
                        best = Some((r, k, v, s));
                    }
                }
            }
            set_core(job, m, &mut levels, k, keep);
        }
        match best {
            Some((_, k, v, s)) => {
                set_core(job, m, &mut levels, k, v);
                core_level[k as usize] = v;
                current = s;
                fixed |= 1 << k;
            }
            None => break,
        }
    }
    Ok(Allocation {
        mapping: *m,
        levels,
        schedule: current,
        evals,
    })
}

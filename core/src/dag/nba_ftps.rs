//! NBA-FTPS, fixing tasks' power states (Alg. 7.3): on the NBA allocation, the greedy that
//! fixes one (task, level) per round, the one of highest value per energy, until every task is
//! fixed.
//!
//! Read with the spec (§3.3): tasks start unfixed at the fastest level (R12); in a round, each
//! unfixed task is tried at each level with the others as they are; a candidate counts only if
//! the job still earns a positive value; ties go to the lower task, then the faster level; if
//! no candidate earns anything, the remaining tasks stay at the fastest level. The candidate
//! (t, current level) reproduces the current levels, so the chosen ratio never falls below the
//! all-fastest one. Each core keeps its list order when levels change (the evaluator's rule).
//!
//! [`greedy_tasks`] is the greedy under any objective: PBA's design-time profiler runs it
//! under 1 / (RT x E) to seed its genetic algorithm.

use crate::dag::error::DagError;
use crate::dag::evaluator::{evaluate, Allocation, Levels, Mapping, Schedule};
use crate::dag::job::DagJob;
use crate::dag::power::DvfsTable;
use crate::dag::value::{Ratio, ValueCurve};
use crate::units::Micros;
use core::cmp::Ordering;

/// Alg. 7.3 under `objective` (`None`: the candidate earns nothing and does not count), from
/// the levels `start` on mapping `m`. Returns the levels, their schedule and the evaluator
/// calls made.
pub fn greedy_tasks<F: FnMut(&Schedule) -> Option<Ratio>>(
    job: &DagJob,
    table: &DvfsTable,
    m: &Mapping,
    start: &Levels,
    mut objective: F,
) -> Result<(Levels, Schedule, u32), DagError> {
    let n = job.len();
    let mut levels = *start;
    let mut current = evaluate(job, table, m, &levels)?;
    let mut evals = 1u32;
    let mut fixed: u32 = 0;
    let all: u32 = (1u32 << n) - 1;
    while fixed != all {
        let here = objective(&current);
        let mut best: Option<(Ratio, usize, u8, Schedule)> = None;
        for t in 0..n {
            if fixed & (1 << t) != 0 {
                continue;
            }
            let keep = levels.level[t];
            for v in 0..table.levels() as u8 {
                let (ratio, s) = if v == keep {
                    (here, current)
                } else {
                    levels.level[t] = v;
                    let s = evaluate(job, table, m, &levels)?;
                    evals += 1;
                    (objective(&s), s)
                };
                if let Some(r) = ratio {
                    if best
                        .as_ref()
                        .is_none_or(|b| r.cmp_exact(&b.0) == Ordering::Greater)
                    {
                        best = Some((r, t, v, s));
                    }
                }
            }
            levels.level[t] = keep;
        }
        match best {
            Some((_, t, v, s)) => {
                levels.level[t] = v;
                current = s;
                fixed |= 1 << t;
            }
            // No candidate earns anything: the unfixed tasks stay where they are.
            None => break,
        }
    }
    Ok((levels, current, evals))
}

/// NBA-FTPS's levels for a job that has waited `waited` since arrival, on mapping `m`:
/// Alg. 7.3 maximising VC(waited + RT) / E_total.
pub fn nba_ftps(
    job: &DagJob,
    table: &DvfsTable,
    curve: &ValueCurve,
    m: &Mapping,
    waited: Micros,
) -> Result<Allocation, DagError> {
    let (levels, schedule, evals) =
        greedy_tasks(job, table, m, &Levels::FASTEST, |s: &Schedule| {
            let v = curve.value(waited.saturating_add(s.rt));
            (v.0 > 0).then(|| Ratio::per_energy(v, s.energy_nj))
        })?;
    Ok(Allocation {
        mapping: *m,
        levels,
        schedule,
        evals,
    })
}

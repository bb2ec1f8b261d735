//! The intra-job evaluator every seed 003 approach uses: a mapping of tasks to a node's cores
//! and a level per task become a schedule, its response time, its used cores and its energy
//! (Eq. 7.1-7.2).
//!
//! The node's cores are the resources: tasks are walked in the job's list order (decreasing
//! upward rank, [`DagJob::order`]), each starting when its core is free and every
//! predecessor's data has arrived (its finish, plus the edge's communication time when the two
//! tasks are on different cores):
//!
//! `start(t) = max(coreFree[m(t)], max_{p in pred(t)} finish(p) + [m(p) != m(t)] comm(p, t))`
//!
//! so a core runs one task at a time, in list order; changing levels keeps each core's order.
//! Times are relative to the job's start.

use crate::dag::error::DagError;
use crate::dag::job::{tasks, DagJob};
use crate::dag::power::DvfsTable;
use crate::limits::MAX_DAG_TASKS;
use crate::units::Micros;

/// The core of each task (`core[t]`, below the job's allowed core count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mapping {
    /// Task `t` runs on core `core[t]` of the node's cores given to the job.
    pub core: [u8; MAX_DAG_TASKS],
}

/// The DVFS level of each task (`level[t]`, 0 the fastest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Levels {
    /// Task `t` runs at level `level[t]`.
    pub level: [u8; MAX_DAG_TASKS],
}

impl Levels {
    /// Every task at the fastest level.
    pub const FASTEST: Levels = Levels {
        level: [0; MAX_DAG_TASKS],
    };
}

/// A job's schedule under one mapping and one level per task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Each task's start, from the job's start.
    pub start: [Micros; MAX_DAG_TASKS],
    /// Each task's finish, from the job's start.
    pub finish: [Micros; MAX_DAG_TASKS],
    /// The response time: the last finish.
    pub rt: Micros,
    /// The cores used (bit `k` for core `k`).
    pub used: u16,
    /// E_total (Eq. 7.1): dynamic energy of every task plus static energy of the used cores
    /// over the response time, in nanojoules.
    pub energy_nj: u64,
}

impl Schedule {
    /// The number of used cores, p.
    pub fn cores(&self) -> u32 {
        self.used.count_ones()
    }
}

/// Checks that `m` puts every task of `job` on a core below `cores` (at most
/// [`MAX_DAG_TASKS`]) and that `l` gives every task a level of `table`.
pub fn check(
    job: &DagJob,
    table: &DvfsTable,
    m: &Mapping,
    l: &Levels,
    cores: usize,
) -> Result<(), DagError> {
    if cores == 0 || cores > MAX_DAG_TASKS {
        return Err(DagError::CoreCount(cores));
    }
    for t in 0..job.len() {
        if m.core[t] as usize >= cores {
            return Err(DagError::Core(t as u8));
        }
        if l.level[t] as usize >= table.levels() {
            return Err(DagError::Level(t as u8));
        }
    }
    Ok(())
}

/// The schedule of `job` with mapping `m` and levels `l`.
///
/// Errors: a task on a core beyond [`MAX_DAG_TASKS`] ([`DagError::Core`]) or at a level the
/// table lacks ([`DagError::Level`]).
pub fn evaluate(
    job: &DagJob,
    table: &DvfsTable,
    m: &Mapping,
    l: &Levels,
) -> Result<Schedule, DagError> {
    let mut s = Schedule::default();
    let mut core_free = [Micros::ZERO; MAX_DAG_TASKS];
    let mut dynamic: u64 = 0;
    for &t in job.order() {
        let t = t as usize;
        let (c, lv) = (m.core[t] as usize, l.level[t] as usize);
        if c >= MAX_DAG_TASKS {
            return Err(DagError::Core(t as u8));
        }
        if lv >= table.levels() {
            return Err(DagError::Level(t as u8));
        }
        let mut ready = core_free[c];
        for p in tasks(job.preds(t)) {
            let mut at = s.finish[p];
            if m.core[p] as usize != c {
                at = at.saturating_add(job.comm(p, t));
            }
            ready = ready.max(at);
        }
        let d = table.exec_time(job.wcet(t), lv);
        let f = ready.saturating_add(d);
        s.start[t] = ready;
        s.finish[t] = f;
        core_free[c] = f;
        s.rt = s.rt.max(f);
        s.used |= 1 << c;
        dynamic = dynamic.saturating_add(table.dynamic_nj(lv, d));
    }
    s.energy_nj = dynamic.saturating_add(table.static_nj(s.cores(), s.rt));
    Ok(s)
}

/// An approach's answer for one job: where each task runs, at which level, the schedule this
/// gives, and how many times the evaluator ran to find it (the decision's overhead, R10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// The core of each task.
    pub mapping: Mapping,
    /// The level of each task.
    pub levels: Levels,
    /// The schedule, relative to the job's start.
    pub schedule: Schedule,
    /// Evaluator calls made to decide.
    pub evals: u32,
}

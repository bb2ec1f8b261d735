//! A DAG job (seed 003 §7.1.2): tasks with an execution time at the fastest level, edges that
//! carry data (a communication time paid only between different cores, R3), and the list
//! order every allocator walks (decreasing upward rank at the fastest level, ties by lower
//! index).
//!
//! Fixed capacity: [`MAX_DAG_TASKS`] tasks, predecessor and successor sets as `u16` bitsets,
//! communication times in a square table. Tasks are numbered in a topological order (every
//! edge goes from a lower to a higher index), which the constructor checks: it makes the
//! graph acyclic by construction and lets the upward ranks be computed in one backward pass.

use crate::dag::error::DagError;
use crate::limits::MAX_DAG_TASKS;
use crate::units::Micros;

/// A set of a job's tasks (bit `t` for task `t`).
pub type TaskSet = u16;

/// One edge of a job: `from` sends data to `to`, which takes `comm` across cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The producing task.
    pub from: u8,
    /// The consuming task (a higher index than `from`).
    pub to: u8,
    /// The transfer time between different cores (zero on one core, R3).
    pub comm: Micros,
}

/// A DAG job: at most [`MAX_DAG_TASKS`] tasks in a topological numbering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DagJob {
    n: u8,
    wcet: [Micros; MAX_DAG_TASKS],
    preds: [TaskSet; MAX_DAG_TASKS],
    succs: [TaskSet; MAX_DAG_TASKS],
    comm: [[Micros; MAX_DAG_TASKS]; MAX_DAG_TASKS],
    order: [u8; MAX_DAG_TASKS],
    critical_path: Micros,
}

impl DagJob {
    /// The job with tasks of fastest execution times `wcet` and edges `edges`.
    ///
    /// Errors: no task or more than [`MAX_DAG_TASKS`] ([`DagError::Tasks`]); a zero time
    /// ([`DagError::ZeroWcet`]); an edge not from a lower to a higher index inside the job
    /// ([`DagError::Edge`]) or given twice ([`DagError::DuplicateEdge`]).
    pub fn new(wcet: &[Micros], edges: &[Edge]) -> Result<DagJob, DagError> {
        let n = wcet.len();
        if n == 0 || n > MAX_DAG_TASKS {
            return Err(DagError::Tasks(n));
        }
        let mut job = DagJob {
            n: n as u8,
            wcet: [Micros::ZERO; MAX_DAG_TASKS],
            preds: [0; MAX_DAG_TASKS],
            succs: [0; MAX_DAG_TASKS],
            comm: [[Micros::ZERO; MAX_DAG_TASKS]; MAX_DAG_TASKS],
            order: [0; MAX_DAG_TASKS],
            critical_path: Micros::ZERO,
        };
        for (t, &w) in wcet.iter().enumerate() {
            if w == Micros::ZERO {
                return Err(DagError::ZeroWcet(t as u8));
            }
            job.wcet[t] = w;
        }
        for e in edges {
            let (a, b) = (e.from as usize, e.to as usize);
            if a >= b || b >= n {
                return Err(DagError::Edge(e.from, e.to));
            }
            if job.succs[a] & (1 << b) != 0 {
                return Err(DagError::DuplicateEdge(e.from, e.to));
            }
            job.succs[a] |= 1 << b;
            job.preds[b] |= 1 << a;
            job.comm[a][b] = e.comm;
        }
        // Upward ranks (with communication) and the critical path (without), in one backward
        // pass: every successor has a higher index.
        let mut rank = [0u64; MAX_DAG_TASKS];
        let mut path = [0u64; MAX_DAG_TASKS];
        for t in (0..n).rev() {
            let (mut r, mut p) = (0u64, 0u64);
            for s in tasks(job.succs[t]) {
                r = r.max(job.comm[t][s].0.saturating_add(rank[s]));
                p = p.max(path[s]);
            }
            rank[t] = job.wcet[t].0.saturating_add(r);
            path[t] = job.wcet[t].0.saturating_add(p);
        }
        job.critical_path = Micros(path[..n].iter().copied().max().unwrap_or(0));
        // Decreasing rank, ties by lower index (insertion sort: at most 16). Since every time
        // is positive, a task ranks strictly above its successors: the order is topological.
        for t in 0..n {
            job.order[t] = t as u8;
        }
        for i in 1..n {
            let mut j = i;
            while j > 0 && rank[job.order[j - 1] as usize] < rank[job.order[j] as usize] {
                job.order.swap(j - 1, j);
                j -= 1;
            }
        }
        Ok(job)
    }

    /// The number of tasks.
    pub fn len(&self) -> usize {
        self.n as usize
    }
    /// Never true: a job has at least one task.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// Task `t`'s execution time at the fastest level (`t` below [`DagJob::len`]).
    pub fn wcet(&self, t: usize) -> Micros {
        self.wcet[t]
    }
    /// Task `t`'s predecessors.
    pub fn preds(&self, t: usize) -> TaskSet {
        self.preds[t]
    }
    /// Task `t`'s successors.
    pub fn succs(&self, t: usize) -> TaskSet {
        self.succs[t]
    }
    /// The transfer time of edge `a -> b` across cores (zero if there is no such edge).
    pub fn comm(&self, a: usize, b: usize) -> Micros {
        self.comm[a][b]
    }
    /// The list order: decreasing upward rank at the fastest level, ties by lower index.
    pub fn order(&self) -> &[u8] {
        &self.order[..self.n as usize]
    }
    /// The critical path at the fastest level without communication (the value curve's soft
    /// deadline, R5).
    pub fn critical_path(&self) -> Micros {
        self.critical_path
    }
    /// The number of edges.
    pub fn edges(&self) -> usize {
        self.succs[..self.n as usize]
            .iter()
            .map(|s| s.count_ones() as usize)
            .sum()
    }
}

/// The members of `set`, lowest first.
pub fn tasks(set: TaskSet) -> impl Iterator<Item = usize> {
    let mut rest = set;
    core::iter::from_fn(move || {
        if rest == 0 {
            None
        } else {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            Some(t)
        }
    })
}

//! Chapter 7's evaluation by machine, and what a child reuses of its parents': each
//! machine's share (utility, energy) of every pass a score makes (one with mean times for
//! [`Score::Expected`], one per sample for [`Score::Percentile`]).
//!
//! Why it is exact: machines do not interact (a task starts at max(its machine's free
//! time, its arrival); [`Stochastic::run_machine`]), so a machine's share of a pass depends
//! only on its own tasks, their genes and their order, and a pass's utility (the core's
//! fixed-point [`Utility`]) and energy (integer mJ) are the machines' shares summed, in any
//! order. A machine no gene that differs between child and parent runs on, in either (a
//! differing key or P-state on the same machine counts), runs the same list as in the
//! parent and keeps the parent's shares; only the others are run again, every pass over
//! each. The percentile then sorts the passes' totals as a whole evaluation does.

use super::{SGene, SScratch, Score, Stochastic};
use crate::nsga2::Point;
use kairos_core::units::Utility;
use std::ops::Range;

/// What evaluating a chromosome leaves for its children: per machine, its share of each
/// pass (machine by machine, each machine's passes in order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SMemo {
    pub(super) shares: Vec<Share>,
}

/// One machine's share of one pass (or a pass's total).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Share {
    pub(super) utility: Utility,
    /// Millijoules.
    pub(super) energy: u64,
}

impl Stochastic {
    /// Passes per evaluation: one with mean times, or one per sample.
    pub(super) fn passes(&self) -> usize {
        match self.score {
            Score::Expected => 1,
            Score::Percentile(_) => self.samples,
        }
    }

    /// Pass `k`'s bins: none (mean times) or sample `k`'s common random numbers.
    fn pass_bins(&self, k: usize) -> Option<&[u8]> {
        match self.score {
            Score::Expected => None,
            Score::Percentile(_) => Some(self.crn(k)),
        }
    }

    /// Evaluates `c` from nothing, writing every machine's shares.
    pub(super) fn memo_whole(&self, c: &[SGene], memo: &mut SMemo, s: &mut SScratch) -> Point {
        memo.shares.clear();
        memo.shares
            .resize(self.machine_type.len() * self.passes(), Share::default());
        self.run_machines(c, None, memo, s);
        self.point(memo, s)
    }

    /// Evaluates child `c` from the parent whose genes differ from its own on fewer
    /// machines, given that `c` can differ from `parents[p]` only at the genes of
    /// `ranges[p]` and of `extra` (indices at or past `c.len()` stand for none). A parent
    /// without a whole memo (never, in a run) is not used; when every machine differs from
    /// both, `c` is evaluated whole.
    pub(super) fn memo_child(
        &self,
        c: &[SGene],
        parents: [(&[SGene], &SMemo); 2],
        ranges: [[Range<usize>; 2]; 2],
        extra: &[usize],
        memo: &mut SMemo,
        s: &mut SScratch,
    ) -> Point {
        let machines = self.machine_type.len();
        let whole = machines * self.passes();
        let mut dirty = [0, 1].map(|p| std::mem::take(&mut s.dirty[p]));
        let mut count = [usize::MAX; 2];
        for (p, ((pc, pm), ranges)) in parents.into_iter().zip(ranges).enumerate() {
            if pc.len() == c.len() && pm.shares.len() == whole {
                count[p] = mark(c, pc, ranges, extra, &mut dirty[p]);
            }
        }
        let p = usize::from(count[1] < count[0]);
        let point = if count[p] >= machines {
            self.memo_whole(c, memo, s)
        } else {
            memo.shares.clone_from(&parents[p].1.shares);
            self.run_machines(c, Some(&dirty[p]), memo, s);
            self.point(memo, s)
        };
        for (d, mut v) in s.dirty.iter_mut().zip(dirty) {
            v.fill(false);
            *d = v;
        }
        point
    }

    /// Runs every pass over each machine `only` selects (all when `None`), writing its
    /// shares into `memo` (of the whole length).
    fn run_machines(&self, c: &[SGene], only: Option<&[bool]>, memo: &mut SMemo, s: &mut SScratch) {
        self.gather(c, only, s);
        let passes = self.passes();
        for (m, list) in s.lists.iter().enumerate() {
            if only.is_some_and(|d| !d[m]) {
                continue;
            }
            // A machine's passes one after another: its list stays in cache.
            let shares = &mut memo.shares[m * passes..(m + 1) * passes];
            for (k, share) in shares.iter_mut().enumerate() {
                *share = self.run_machine(list, self.pass_bins(k), true).0;
            }
        }
    }

    /// The objectives from the machines' shares: each pass's totals; the expected value's
    /// one, or the score's percentile of the samples' (utility descending, energy ascending).
    fn point(&self, memo: &SMemo, s: &mut SScratch) -> Point {
        let passes = self.passes();
        s.totals.clear();
        s.totals.resize(passes, Share::default());
        for machine in memo.shares.chunks_exact(passes) {
            for (t, m) in s.totals.iter_mut().zip(machine) {
                t.utility += m.utility;
                t.energy += m.energy;
            }
        }
        let joules = |e: u64| e as f64 / 1000.0;
        match self.score {
            Score::Expected => [-s.totals[0].utility.as_f64(), joules(s.totals[0].energy)],
            Score::Percentile(x) => {
                s.u.clear();
                s.e.clear();
                s.u.extend(s.totals.iter().map(|t| t.utility.as_f64()));
                s.e.extend(s.totals.iter().map(|t| joules(t.energy)));
                s.u.sort_by(|a, b| b.total_cmp(a));
                s.e.sort_by(f64::total_cmp);
                let i = x.clamp(1, self.samples) - 1;
                [-s.u[i], s.e[i]]
            }
        }
    }
}

/// Marks in `dirty` (all false) the machines, in `c` and in `p`, of the genes of `ranges`
/// and `extra` where the two differ; returns how many machines it marked.
fn mark(
    c: &[SGene],
    p: &[SGene],
    ranges: [Range<usize>; 2],
    extra: &[usize],
    dirty: &mut [bool],
) -> usize {
    let n = c.len();
    let mut count = 0;
    let genes = ranges
        .into_iter()
        .flatten()
        .chain(extra.iter().copied().filter(|&t| t < n));
    for t in genes {
        if c[t] != p[t] {
            for m in [c[t].machine, p[t].machine] {
                let d = &mut dirty[m as usize];
                count += usize::from(!*d);
                *d = true;
            }
        }
    }
    count
}

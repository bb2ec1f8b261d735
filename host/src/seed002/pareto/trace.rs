//! A trace's evaluation (utility-energy, Chapter 5) by machine: each machine's tasks in run
//! order (key, ties by index), with each task's completion and the machine's running
//! utility through it, kept in the memo so that a child resumes each changed machine from
//! its parent's list instead of scheduling it again.
//!
//! Why it is exact: machines do not interact (a task starts at max(its machine's free time,
//! its arrival)), so a machine's completions and utility depend only on its own list. A
//! child's list on a machine is its base parent's with the genes that differ taken out and
//! put back at their (key, index) place. Walking the two in step, a task the parent also
//! ran next, started when the machine became free at the same time as in the parent,
//! completes when it did there and earns what it did: its slot is the parent's with the
//! running utility shifted. Only the tasks after a change, until the machine falls back
//! into step (a task completing when it did in the parent), are scheduled; their utility
//! is the parent's where the completion matches, else the prepared curve's (through the
//! recent utilities). After the last change, once in step, the rest of the parent's list is copied.
//! A machine no differing gene leaves or joins shares its parent's list (an `Arc`).
//! Energy and busy time are order-free sums, moved gene by gene as for a bag.

use super::{Gene, Instance, MachineSums, Memo, Scratch, NONE};
use crate::nsga2::Point;
use kairos_core::units::{Micros, Utility};
use std::sync::Arc;

#[path = "recent.rs"]
mod recent;
pub(super) use recent::Recent;

/// One task in a machine's run order, as a trace's memo keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// The task.
    task: u32,
    /// Its order key (the list is sorted by (key, task)).
    key: u32,
    /// When it completes.
    end: Micros,
    /// The machine's utility through this task (its own included).
    run: Utility,
}

/// A machine's list, emptied for writing: the memo's own buffer when nothing else shares it,
/// else one from `pool` (lists a memo stopped sharing, kept with their `Arc` so that neither
/// the buffer nor its count is allocated again) or a new one.
fn list_mut<'a>(list: &'a mut Arc<Vec<Slot>>, pool: &mut Vec<Arc<Vec<Slot>>>) -> &'a mut Vec<Slot> {
    if Arc::get_mut(list).is_none() {
        *list = pool.pop().unwrap_or_default();
    }
    let v = Arc::get_mut(list).expect("a pooled or fresh Arc is unique");
    v.clear();
    v
}

/// Keeps `list` for reuse if no memo holds it any more (and the pool is not full).
fn recycle(mut list: Arc<Vec<Slot>>, pool: &mut Vec<Arc<Vec<Slot>>>, limit: usize) {
    if pool.len() < limit && Arc::get_mut(&mut list).is_some() {
        pool.push(list);
    }
}

/// How many unshared lists a thread keeps for reuse, per machine: enough that a generation's
/// swing between lists given up and lists written seldom frees one only to allocate another.
const POOL_PER_MACHINE: usize = 4;

/// The utility `list[j]`'s task earned: the running sum's step.
#[inline]
fn earned(list: &[Slot], j: usize) -> Utility {
    let before = if j == 0 { 0 } else { list[j - 1].run.0 };
    Utility(list[j].run.0 - before)
}

impl Instance {
    /// Evaluates trace chromosome `c` from nothing, writing every machine's list and sums.
    pub(super) fn trace_all(&self, c: &[Gene], memo: &mut Memo, s: &mut Scratch) -> Point {
        let machines = self.machines();
        memo.machine.clear();
        memo.machine.resize(machines, MachineSums::default());
        memo.lists.resize_with(machines, Default::default);
        for list in memo.lists.iter_mut() {
            list_mut(list, &mut s.pool);
        }
        // Buckets by key, each in index order (pushed from the last task down), then each
        // machine's list in key order.
        for t in (0..c.len()).rev() {
            let k = c[t].key as usize;
            s.next[t] = s.head[k];
            s.head[k] = t as u32;
        }
        for k in 0..c.len() {
            let mut t = std::mem::replace(&mut s.head[k], NONE);
            while t != NONE {
                let g = c[t as usize];
                let list = Arc::get_mut(&mut memo.lists[g.machine as usize]).expect("emptied");
                list.push(Slot {
                    task: t,
                    key: g.key,
                    end: Micros::ZERO,
                    run: Utility::ZERO,
                });
                t = s.next[t as usize];
            }
        }
        for (m, list) in memo.lists.iter_mut().enumerate() {
            let list = Arc::get_mut(list).expect("emptied");
            let sums = &mut memo.machine[m];
            let mut free = Micros::ZERO;
            for slot in list.iter_mut() {
                let i = slot.task as usize;
                let w = self.walk[i];
                let (etc, eec) = self.cost[w.row + m];
                let end = free.max(w.arrival) + etc;
                free = end;
                sums.utility += self.curves.utility(i, end.saturating_sub(w.arrival));
                sums.energy += eec;
                sums.busy += etc;
                *slot = Slot {
                    end,
                    run: sums.utility,
                    ..*slot
                };
            }
            s.free[m] = free;
        }
        trace_point(&memo.machine)
    }

    /// Evaluates trace child `c` from its parents (chromosomes and whole trace memos of
    /// `c`'s length). Each machine starts from the parent whose list there the child's
    /// differs from by fewer genes: none (the child shares that list; after a crossover
    /// most machines share one parent's or the other's), or some (the list is merged from
    /// that parent's).
    pub(super) fn trace_child(
        &self,
        c: &[Gene],
        parents: [(&[Gene], &Memo); 2],
        memo: &mut Memo,
        s: &mut Scratch,
    ) -> Point {
        for (side, (pc, _)) in s.sides.iter_mut().zip(parents) {
            side.differ_over(c, pc, [0..c.len(), 0..0], std::iter::empty());
        }
        self.trace_sides(c, parents, memo, s)
    }

    /// [`Instance::trace_child`] once `s.sides` hold how `c` differs from each parent.
    pub(super) fn trace_sides(
        &self,
        c: &[Gene],
        parents: [(&[Gene], &Memo); 2],
        memo: &mut Memo,
        s: &mut Scratch,
    ) -> Point {
        let machines = self.machines();
        // Busy time and energy are order-free sums: from the closer parent, moved gene by gene.
        let near = usize::from(s.sides[1].diff.len() < s.sides[0].diff.len());
        let (pc, pm) = parents[near];
        memo.machine.clone_from(&pm.machine);
        for &t in &s.sides[near].diff {
            let t = t as usize;
            self.move_gene(&mut memo.machine, t, pc[t], c[t]);
        }
        memo.lists.resize_with(machines, Default::default);
        for m in 0..machines {
            let touches = [s.sides[0].touches(m), s.sides[1].touches(m)];
            let k = usize::from(touches[1] < touches[0]);
            let (_, pm) = parents[k];
            if touches[k] == 0 {
                if !Arc::ptr_eq(&memo.lists[m], &pm.lists[m]) {
                    let old = std::mem::replace(&mut memo.lists[m], Arc::clone(&pm.lists[m]));
                    recycle(old, &mut s.pool, machines * POOL_PER_MACHINE);
                }
                memo.machine[m].utility = pm.machine[m].utility;
                continue;
            }
            let (ins, outs) = s.sides[k].places(m);
            let step = Step {
                m,
                parent: &pm.lists[m],
                ins,
                outs,
            };
            let out = list_mut(&mut memo.lists[m], &mut s.pool);
            memo.machine[m].utility = self.merge(step, out, &mut s.recent);
        }
        for side in &mut s.sides {
            side.clear();
        }
        trace_point(&memo.machine)
    }

    /// Writes machine `step.m`'s list for the child into `out` (emptied) and returns its
    /// utility. The parent's slots between two changes are walked as one stretch: each is
    /// scheduled after the child's free time, and earns what it did in the parent when it
    /// completes when it did there (then, with no change ahead, the rest of the parent's
    /// list is copied with the running utility shifted). A slot that completes at another
    /// time asks the recent utilities (then the curve). Out of line: inlined into
    /// `trace_sides`, the walk shared registers with the loop over the machines and spilled.
    ///
    /// Why the other parent's list is not searched for the slot's utility (earlier rounds
    /// did, with a cursor): it seldom holds the task completing at the same time, and the
    /// search reads a list the walk does not otherwise touch (the cursor's binary search
    /// and steps, mostly cache misses, and a branch per step), costing more than the
    /// recent table and the curve it would save.
    #[inline(never)]
    fn merge(&self, step: Step<'_>, out: &mut Vec<Slot>, recent: &mut Recent) -> Utility {
        let Step {
            m,
            parent,
            ins,
            outs,
        } = step;
        let len = parent.len() + ins.len() - outs.len();
        if out.capacity() < len {
            // With room to spare: buffers pass between machines whose lists differ in length,
            // and growing each by the few slots it lacks would reallocate again and again.
            out.reserve(len + len / 2);
        }
        let at = |places: &[u64], i: usize| places.get(i).copied().unwrap_or(u64::MAX);
        let first = at(ins, 0).min(at(outs, 0));
        // The parent's slots before the first change are the child's, as they are.
        let mut q = parent.partition_point(|p| order(p) < first);
        out.extend_from_slice(&parent[..q]);
        let (mut free, mut run) = q.checked_sub(1).map_or((Micros::ZERO, Utility::ZERO), |p| {
            (parent[p].end, parent[p].run)
        });
        let (mut i, mut l) = (0, 0);
        loop {
            let (next_in, next_out) = (at(ins, i), at(outs, l));
            let stop = next_in.min(next_out);
            // The parent's slots before the next change: the stretch.
            while let Some(p) = parent.get(q) {
                if order(p) >= stop {
                    break;
                }
                let w = self.walk[p.task as usize];
                let end = free.max(w.arrival) + self.cost[w.row + m].0;
                free = end;
                if end == p.end {
                    // In step: what the parent did.
                    if stop == u64::MAX {
                        // With no change ahead: the rest is the parent's, shifted.
                        let before = if q == 0 { 0 } else { parent[q - 1].run.0 };
                        let shift = run.0.wrapping_sub(before);
                        out.extend(parent[q..].iter().map(|p| Slot {
                            run: Utility(p.run.0.wrapping_add(shift)),
                            ..*p
                        }));
                        return out.last().map_or(Utility::ZERO, |p| p.run);
                    }
                    run += earned(parent, q);
                } else {
                    run += recent.utility(self, p.task as usize, end, w.arrival);
                }
                out.push(Slot { end, run, ..*p });
                q += 1;
            }
            if stop == u64::MAX {
                return run;
            }
            if next_out < next_in {
                // The parent's task here leaves (or moves).
                debug_assert_eq!(parent.get(q).map(order), Some(next_out));
                q += 1;
                l += 1;
                continue;
            }
            i += 1;
            let (key, task) = ((next_in >> 32) as u32, next_in as u32);
            let t = task as usize;
            let w = self.walk[t];
            let end = free.max(w.arrival) + self.cost[w.row + m].0;
            run += recent.utility(self, t, end, w.arrival);
            free = end;
            out.push(Slot {
                task,
                key,
                end,
                run,
            });
        }
    }
}

/// A slot's place in its list: (key, task) as one integer.
#[inline]
fn order(s: &Slot) -> u64 {
    (s.key as u64) << 32 | s.task as u64
}

/// What [`Instance::merge`] reads for one machine.
struct Step<'a> {
    /// The machine.
    m: usize,
    /// The base parent's list on the machine.
    parent: &'a [Slot],
    /// The differing genes that run on the machine in the child, as places ([`order`]),
    /// ascending.
    ins: &'a [u64],
    /// The differing genes that ran on the machine in the parent (they leave or move), as
    /// their places there, ascending.
    outs: &'a [u64],
}

/// How a child differs from one parent: working memory of [`Instance::trace_child`], left
/// cleared between calls.
#[derive(Clone, Debug, Default)]
pub(super) struct Side {
    /// The genes that differ.
    diff: Vec<u32>,
    /// Per machine, the differing genes that run on it in the child, as their places there
    /// ([`order`]; sorted when used).
    ins: Vec<Vec<u64>>,
    /// Per machine, the differing genes that ran on it in the parent (they leave or move), as
    /// their places there.
    outs: Vec<Vec<u64>>,
}

impl Side {
    /// Cleared working memory for `tasks` and `machines`.
    pub(super) fn new(tasks: usize, machines: usize) -> Side {
        Side {
            diff: Vec::with_capacity(tasks),
            ins: vec![Vec::new(); machines],
            outs: vec![Vec::new(); machines],
        }
    }

    /// Records where child `c` differs from parent `p`, given that they can differ only at
    /// the genes of `ranges` and at the genes `extra` (each once, none in `ranges`).
    pub(super) fn differ_over(
        &mut self,
        c: &[Gene],
        p: &[Gene],
        ranges: [std::ops::Range<usize>; 2],
        extra: impl Iterator<Item = usize>,
    ) {
        self.diff.clear();
        for r in ranges {
            self.scan(c, p, r);
        }
        for t in extra {
            if c[t] != p[t] {
                self.record(t, c[t], p[t]);
            }
        }
    }

    /// Records the genes of `range` where `c` and `p` differ. Sixteen genes are compared at
    /// a time as words (a slice comparison of integers, i.e. `memcmp`: once a population
    /// converges most blocks are equal), and a block that differs by a mask of its differing
    /// words (no branch per gene), whose set bits are recorded.
    fn scan(&mut self, c: &[Gene], p: &[Gene], range: std::ops::Range<usize>) {
        let base = range.start;
        let (c, p) = (&c[range.clone()], &p[range]);
        let (cw, pw) = (Gene::words(c), Gene::words(p));
        let mut at = 0;
        for (cc, pp) in cw.chunks_exact(16).zip(pw.chunks_exact(16)) {
            if cc != pp {
                // Which of the sixteen differ, as bits (no branch per gene: most are equal),
                // then each set bit.
                let mut mask = 0u32;
                for (k, (a, b)) in cc.iter().zip(pp).enumerate() {
                    mask |= u32::from(a != b) << k;
                }
                while mask != 0 {
                    let k = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    self.record(base + at + k, c[at + k], p[at + k]);
                }
            }
            at += 16;
        }
        for k in at..c.len() {
            if cw[k] != pw[k] {
                self.record(base + k, c[k], p[k]);
            }
        }
    }

    /// Records that gene `t` is `g` in the child and `q` in the parent (`g != q`): its place
    /// joins the child's machine's `ins` and the parent's machine's `outs` (a bucket per
    /// machine, so that nothing is sorted by machine afterwards).
    #[inline]
    fn record(&mut self, t: usize, g: Gene, q: Gene) {
        self.diff.push(t as u32);
        self.ins[g.machine as usize].push((g.key as u64) << 32 | t as u64);
        self.outs[q.machine as usize].push((q.key as u64) << 32 | t as u64);
    }

    /// How many differing genes join or leave machine `m` (one that changes its key there
    /// counts twice).
    fn touches(&self, m: usize) -> usize {
        self.ins[m].len() + self.outs[m].len()
    }

    /// Machine `m`'s joining and leaving places, each sorted.
    fn places(&mut self, m: usize) -> (&[u64], &[u64]) {
        self.ins[m].sort_unstable();
        self.outs[m].sort_unstable();
        (&self.ins[m], &self.outs[m])
    }

    /// Empties the per-machine buckets [`Side::differ_over`] filled.
    fn clear(&mut self) {
        for (ins, outs) in self.ins.iter_mut().zip(&mut self.outs) {
            ins.clear();
            outs.clear();
        }
    }
}

/// A trace's objectives from its machines' sums: the total utility (negated), the energy.
fn trace_point(machines: &[MachineSums]) -> Point {
    let mut utility = Utility::ZERO;
    let mut energy = 0u64;
    for m in machines {
        utility += m.utility;
        energy += m.energy;
    }
    [-utility.as_f64(), energy as f64 / 1000.0]
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod tests;

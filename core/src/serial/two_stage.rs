//! The two-stage batch pass (§2.4.3) that Min-Min Comp, Max-Max Util, Max-Max UPT and
//! MET-Max Util-Max UPT share: stage 1 pairs every mappable task with a machine and scores
//! the pair; stage 2 takes the best pair (higher score, then earlier arrival), appends the
//! task to that machine, updates the machine's ready time and repeats until every task is
//! mapped.
//!
//! Exactly that, without re-examining every pair at every iteration: a task's stage-1 choice
//! depends only on the ready times of the machines it considers, each pair's stage-1 value
//! never improves as its machine's ready time grows, and machine ties go to the earlier
//! completion, so only the tasks whose choice was the machine just used can change. Those
//! sit on that machine's list (a doubly linked list through the scratch slices) and are
//! re-chosen; the best pair is the root of a tournament tree over the tasks' scores. The
//! event's modelled cost still counts every pair a textbook pass examines (`cost.rs`).
//!
//! The heuristics run `grouped`, the same decisions over groups of tasks of one type and
//! curve; this per-task pass is its reference in the tests.

#[cfg(test)]
use super::env::MAX_SERIAL_MACHINES;
#[cfg(test)]
use super::queue::NONE;
use super::view::View;
#[cfg(test)]
use super::view::NO_MACHINE;

/// A heuristic's stage 1: the machine for a task and its stage-2 score (higher wins).
pub(crate) trait Stage {
    /// The machine for task `t` and the pair's score, or `None` if no machine can run it
    /// (the per-task reference pass's; the grouped pass has it by `grouped::Kind`).
    #[cfg_attr(not(test), allow(dead_code))]
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)>;
    /// The pairs a textbook implementation examines for `t` at each iteration.
    fn evals(&self, v: &View<'_>, t: u32) -> u64 {
        v.eligible(t)
    }
}

/// Scratch a batch pass works in, one entry per mappable task (`tree`: two), from the
/// caller's storage. `slots[..n]` holds the mappable tasks in arrival order.
pub(crate) struct Scratch<'s> {
    pub slots: &'s mut [u32],
    pub key: &'s mut [f64],
    pub choice: &'s mut [u16],
    pub next: &'s mut [u32],
    pub prev: &'s mut [u32],
    pub tree: &'s mut [u32],
    /// Each task's group (`grouped::assign_groups`), by task.
    pub group: &'s [u32],
    /// A grouped pass's per-group task.
    pub group_task: &'s mut [u32],
}

#[cfg(test)]
impl Scratch<'_> {
    /// The better of slots `a` and `b`: higher score, then earlier task.
    #[inline]
    fn better(&self, a: u32, b: u32) -> u32 {
        if a == NONE {
            return b;
        }
        if b == NONE {
            return a;
        }
        let (ka, kb) = (self.key[a as usize], self.key[b as usize]);
        if ka > kb || (ka == kb && self.slots[a as usize] < self.slots[b as usize]) {
            a
        } else {
            b
        }
    }

    fn set_leaf(&mut self, n: usize, s: usize, active: bool) {
        let mut p = n + s;
        self.tree[p] = if active { s as u32 } else { NONE };
        p >>= 1;
        while p >= 1 {
            self.tree[p] = self.better(self.tree[2 * p], self.tree[2 * p + 1]);
            p >>= 1;
        }
    }

    fn link(&mut self, heads: &mut [u32], s: usize, m: u16) {
        let h = heads[m as usize];
        self.next[s] = h;
        self.prev[s] = NONE;
        if h != NONE {
            self.prev[h as usize] = s as u32;
        }
        heads[m as usize] = s as u32;
    }

    fn unlink(&mut self, heads: &mut [u32], s: usize) {
        let m = self.choice[s];
        let (p, x) = (self.prev[s], self.next[s]);
        if p == NONE {
            heads[m as usize] = x;
        } else {
            self.next[p as usize] = x;
        }
        if x != NONE {
            self.prev[x as usize] = p;
        }
    }
}

#[cfg(test)]
/// Maps `sc.slots[..n]` by `stage`, calling `emit(task, machine)` in assignment order;
/// returns the evaluations a textbook pass would make.
pub(crate) fn run(
    v: &mut View<'_>,
    sc: &mut Scratch<'_>,
    n: usize,
    stage: &impl Stage,
    emit: &mut dyn FnMut(u32, u16),
) -> u64 {
    if n == 0 {
        return 0;
    }
    let mut heads = [NONE; MAX_SERIAL_MACHINES];
    let mut pairs: u64 = 0;
    for s in 0..n {
        let t = sc.slots[s];
        match stage.choose(v, t) {
            Some((m, k)) => {
                pairs += stage.evals(v, t);
                sc.choice[s] = m;
                sc.key[s] = k;
                sc.link(&mut heads, s, m);
                sc.tree[n + s] = s as u32;
            }
            None => {
                sc.choice[s] = NO_MACHINE;
                sc.tree[n + s] = NONE;
            }
        }
    }
    for p in (1..n).rev() {
        sc.tree[p] = sc.better(sc.tree[2 * p], sc.tree[2 * p + 1]);
    }
    let mut evals = 0u64;
    loop {
        let s = sc.tree[1] as usize;
        if sc.tree[1] == NONE {
            return evals;
        }
        evals += pairs;
        let t = sc.slots[s];
        let m = sc.choice[s];
        v.take(t, m);
        emit(t, m);
        pairs -= stage.evals(v, t);
        sc.unlink(&mut heads, s);
        sc.set_leaf(n, s, false);
        // Re-choose for the tasks whose choice was `m`; the others' choices still stand.
        // Many changed leaves rebuild the tree at once (O(n)) instead of a path each.
        let mut count = 0usize;
        let mut x = heads[m as usize];
        while x != NONE {
            count += 1;
            x = sc.next[x as usize];
        }
        let rebuild = count > n / 16;
        let mut x = heads[m as usize];
        heads[m as usize] = NONE;
        while x != NONE {
            let nx = sc.next[x as usize];
            let (m2, k2) = stage
                .choose(v, sc.slots[x as usize])
                .unwrap_or((m, f64::NEG_INFINITY));
            sc.choice[x as usize] = m2;
            sc.key[x as usize] = k2;
            sc.link(&mut heads, x as usize, m2);
            if !rebuild {
                sc.set_leaf(n, x as usize, true);
            }
            x = nx;
        }
        if rebuild {
            for p in (1..n).rev() {
                sc.tree[p] = sc.better(sc.tree[2 * p], sc.tree[2 * p + 1]);
            }
        }
    }
}

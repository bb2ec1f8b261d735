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

use super::env::MAX_SERIAL_MACHINES;
use super::queue::NONE;
use super::view::{View, NO_MACHINE};
use crate::units::Micros;

/// A heuristic's stage 1: the machine for a task and its stage-2 score (higher wins).
pub(crate) trait Stage {
    /// The machine for task `t` and the pair's score, or `None` if no machine can run it.
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)>;
    /// The pairs a textbook implementation examines for `t` at each iteration.
    fn evals(&self, v: &View<'_>, t: u32) -> u64 {
        v.eligible(t)
    }
    /// Whether stage 1 depends on the task's type alone ([`Stage::type_choice`] and
    /// [`Stage::score`] then hold), which lets [`run`] work type by type.
    fn by_type(&self) -> bool {
        false
    }
    /// Stage 1 for every task of type `ty` (when [`Stage::by_type`]).
    fn type_choice(&self, _v: &View<'_>, _ty: u16) -> Option<(u16, Micros)> {
        None
    }
    /// The stage-2 score of task `t` completing at `c` on `m` (when [`Stage::by_type`]).
    fn score(&self, _v: &View<'_>, _t: u32, _m: u16, _c: Micros) -> f64 {
        f64::NEG_INFINITY
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
}

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
    if stage.by_type() && v.env.task_types() <= MAX_TYPES {
        return run_by_type(v, sc, n, stage, emit);
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

/// Most task types [`run_by_type`] handles (more fall back to the per-task pass).
const MAX_TYPES: usize = 256;

/// One task type's state in [`run_by_type`].
#[derive(Clone, Copy)]
struct TypeState {
    head: u32,
    tail: u32,
    best: u32,
    machine: u16,
    completion: Micros,
}

/// [`run`] when stage 1 depends on the type alone (Min-Min Comp, Max-Max Util, MET-Max
/// Util-Max UPT): every task of a type has the same stage-1 pair, so a machine's new ready
/// time re-chooses only the types whose pair was on it, and each type keeps its best task
/// (highest score, earliest on ties); stage 2 compares the types' best tasks. The same
/// decisions as the per-task pass. Tasks of a type are listed in arrival order through
/// `next` / `prev`.
fn run_by_type(
    v: &mut View<'_>,
    sc: &mut Scratch<'_>,
    n: usize,
    stage: &impl Stage,
    emit: &mut dyn FnMut(u32, u16),
) -> u64 {
    let types = v.env.task_types();
    let empty = TypeState {
        head: NONE,
        tail: NONE,
        best: NONE,
        machine: NO_MACHINE,
        completion: Micros::ZERO,
    };
    let mut ts = [empty; MAX_TYPES];
    let mut pairs = 0u64;
    for s in 0..n {
        let t = sc.slots[s];
        let ty = v.tasks[t as usize].ty as usize;
        pairs += stage.evals(v, t);
        sc.next[s] = NONE;
        sc.prev[s] = ts[ty].tail;
        if ts[ty].tail == NONE {
            ts[ty].head = s as u32;
        } else {
            sc.next[ts[ty].tail as usize] = s as u32;
        }
        ts[ty].tail = s as u32;
    }
    let refresh = |v: &View<'_>, sc: &mut Scratch<'_>, st: &mut TypeState, ty: u16| {
        st.best = NONE;
        let Some((m, c)) = stage.type_choice(v, ty) else {
            st.machine = NO_MACHINE;
            return;
        };
        st.machine = m;
        st.completion = c;
        let mut x = st.head;
        let mut best_key = f64::NEG_INFINITY;
        while x != NONE {
            let k = stage.score(v, sc.slots[x as usize], m, c);
            sc.key[x as usize] = k;
            if st.best == NONE || k > best_key {
                st.best = x;
                best_key = k;
            }
            x = sc.next[x as usize];
        }
    };
    for (ty, st) in ts.iter_mut().enumerate().take(types) {
        if st.head != NONE {
            refresh(v, sc, st, ty as u16);
        }
    }
    let mut evals = 0u64;
    loop {
        let mut pick = NONE;
        for st in ts.iter().take(types) {
            pick = sc.better(pick, st.best);
        }
        if pick == NONE {
            return evals;
        }
        evals += pairs;
        let s = pick as usize;
        let t = sc.slots[s];
        let ty = v.tasks[t as usize].ty as usize;
        let m = ts[ty].machine;
        v.take(t, m);
        emit(t, m);
        pairs -= stage.evals(v, t);
        let (p, x) = (sc.prev[s], sc.next[s]);
        if p == NONE {
            ts[ty].head = x;
        } else {
            sc.next[p as usize] = x;
        }
        if x == NONE {
            ts[ty].tail = p;
        } else {
            sc.prev[x as usize] = p;
        }
        for (u, st) in ts.iter_mut().enumerate().take(types) {
            if st.head == NONE {
                st.best = NONE;
            } else if u == ty || st.machine == m {
                refresh(v, sc, st, u as u16);
            }
        }
    }
}

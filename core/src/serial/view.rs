//! What a heuristic sees at a mapping event: each machine's ready time, the two
//! earliest-ready machines of every machine type, and the completion and utility of a task
//! on a machine. The heuristics use this; it knows no heuristic.
//!
//! Machines of one type run a task equally fast, so within a type the earliest-ready machine
//! (lower index on ties) is the best for every objective that prefers earlier completion
//! among equal execution times; a query looks at one machine per type instead of every
//! machine. Machine ties are broken by earlier completion, then lower machine index
//! (`docs/model.md`).

use super::env::{SerialEnv, SerialTask, MAX_SERIAL_MACHINES, MAX_SERIAL_MACHINE_TYPES};
use crate::units::Micros;
use heapless::Vec;

/// No machine.
pub(crate) const NO_MACHINE: u16 = u16::MAX;

pub(crate) struct View<'v> {
    pub env: SerialEnv<'v>,
    pub tasks: &'v [SerialTask],
    ready: Vec<Micros, MAX_SERIAL_MACHINES>,
    /// First machine of each type, and one past the last.
    start: Vec<u16, { MAX_SERIAL_MACHINE_TYPES + 1 }>,
    /// The earliest- and second-earliest-ready machine of each type.
    best: Vec<[u16; 2], MAX_SERIAL_MACHINE_TYPES>,
    /// Their ready times (`u64::MAX`: no such machine), so that a batch pass's innermost
    /// loop (`type_two_completions`) reads one array instead of following the indices.
    ready0: [u64; MAX_SERIAL_MACHINE_TYPES],
    ready1: [u64; MAX_SERIAL_MACHINE_TYPES],
    /// The machine types that took a task since [`View::moved`] last emptied it (bit j).
    moved: u32,
}

/// A task type's first two completions kept from one pass of a batch event to the next
/// ([`View::kept_two_completions`]): the first machine type and its completion, and the
/// least (completion, type) over the other types' earliest-ready machines.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kept {
    fj: u8,
    bj: u8,
    c1: u64,
    b: u64,
}

impl Kept {
    /// Nothing kept yet.
    pub const NONE: Kept = Kept {
        fj: u8::MAX,
        bj: u8::MAX,
        c1: u64::MAX,
        b: u64::MAX,
    };
}

impl<'v> View<'v> {
    /// A view at `now` with machine `m` ready at `ready(m)` (never before `now`).
    pub fn new(
        env: SerialEnv<'v>,
        tasks: &'v [SerialTask],
        now: Micros,
        ready: impl Fn(usize) -> Micros,
    ) -> View<'v> {
        let mut v = View {
            env,
            tasks,
            ready: Vec::new(),
            start: Vec::new(),
            best: Vec::new(),
            ready0: [u64::MAX; MAX_SERIAL_MACHINE_TYPES],
            ready1: [u64::MAX; MAX_SERIAL_MACHINE_TYPES],
            moved: 0,
        };
        // Capacities hold: SerialEnv::check bounds machines and types.
        for m in 0..env.machine_type.len() {
            let r = ready(m);
            let _ = v.ready.push(if r > now { r } else { now });
        }
        let mut m = 0usize;
        for j in 0..env.machine_types {
            let _ = v.start.push(m as u16);
            while m < env.machine_type.len() && env.machine_type[m] == j {
                m += 1;
            }
            let _ = v.best.push([NO_MACHINE; 2]);
        }
        let _ = v.start.push(m as u16);
        for j in 0..env.machine_types {
            v.refresh(j);
        }
        v
    }

    /// Machine `m` takes task `t`: its ready time moves to `t`'s completion there.
    pub fn take(&mut self, t: u32, m: u16) -> Micros {
        let c = self.completion(t, m);
        self.ready[m as usize] = c;
        let j = self.env.machine_type[m as usize];
        self.moved |= 1 << j;
        self.refresh(j);
        c
    }

    /// The machine types that took a task since the last call (bit j), emptied.
    pub fn moved(&mut self) -> u32 {
        core::mem::take(&mut self.moved)
    }

    fn refresh(&mut self, j: u8) {
        let (a, b) = (self.start[j as usize], self.start[j as usize + 1]);
        let mut best = [NO_MACHINE; 2];
        for m in a..b {
            let r = self.ready[m as usize];
            if best[0] == NO_MACHINE || r < self.ready[best[0] as usize] {
                best[1] = best[0];
                best[0] = m;
            } else if best[1] == NO_MACHINE || r < self.ready[best[1] as usize] {
                best[1] = m;
            }
        }
        self.best[j as usize] = best;
        let at = |m: u16| {
            if m == NO_MACHINE {
                u64::MAX
            } else {
                self.ready[m as usize].0
            }
        };
        (self.ready0[j as usize], self.ready1[j as usize]) = (at(best[0]), at(best[1]));
    }

    /// The machines of type `j`.
    pub fn machines_of(&self, j: u8) -> core::ops::Range<u16> {
        self.start[j as usize]..self.start[j as usize + 1]
    }

    /// Task `t`'s execution time on machine `m` ([`Micros::MAX`]: cannot run).
    #[inline]
    pub fn etc(&self, t: u32, m: u16) -> Micros {
        self.env
            .etc(self.tasks[t as usize].ty, self.env.machine_type[m as usize])
    }

    /// Task `t`'s completion if appended to machine `m` now.
    #[inline]
    pub fn completion(&self, t: u32, m: u16) -> Micros {
        self.ready[m as usize].saturating_add(self.etc(t, m))
    }

    /// Task `t`'s utility if it completes at `c`.
    pub fn utility(&self, t: u32, c: Micros) -> f64 {
        let task = &self.tasks[t as usize];
        // Curves were checked by SerialEnv::check (every task's once), so evaluation cannot
        // fail and the checks need not be repeated.
        task.curve
            .value_after_check(c.saturating_sub(task.arrival), self.env.classes)
            .unwrap_or(0.0)
    }

    /// How many machines can run task `t` (a textbook heuristic's evaluations for it).
    pub fn eligible(&self, t: u32) -> u64 {
        let mt = self.env.machine_types as usize;
        let ty = self.tasks[t as usize].ty as usize;
        // One pass over the task's ETC row beside the types' first machines.
        let row = &self.env.etc[ty * mt..(ty + 1) * mt];
        row.iter()
            .zip(self.start.windows(2))
            .map(|(&e, w)| ((e != Micros::MAX) as u64) * (w[1] - w[0]) as u64)
            .sum()
    }

    /// The machine of type `j` that completes task `t` first, with the completion.
    pub fn min_completion_in(&self, t: u32, j: u8) -> Option<(u16, Micros)> {
        self.type_min_completion_in(self.tasks[t as usize].ty, j)
    }

    /// The machine of type `j` that completes a task of type `ty` first.
    pub fn type_min_completion_in(&self, ty: u16, j: u8) -> Option<(u16, Micros)> {
        let m = self.best[j as usize][0];
        if m == NO_MACHINE || !self.env.runs(ty, j) {
            return None;
        }
        Some((
            m,
            self.ready[m as usize].saturating_add(self.env.etc(ty, j)),
        ))
    }

    /// The machine that completes a task of type `ty` first (lower index on ties), among the
    /// machine types `allowed` accepts.
    pub fn type_min_completion_where(
        &self,
        ty: u16,
        allowed: impl Fn(u8) -> bool,
    ) -> Option<(u16, Micros)> {
        let mut best: Option<(u16, Micros)> = None;
        for j in 0..self.env.machine_types {
            if !allowed(j) {
                continue;
            }
            if let Some((m, c)) = self.type_min_completion_in(ty, j) {
                if best.is_none_or(|(bm, bc)| (c, m) < (bc, bm)) {
                    best = Some((m, c));
                }
            }
        }
        best
    }

    /// The machine that completes task `t` first (lower index on ties), among the machine
    /// types `allowed` accepts.
    pub fn min_completion_where(
        &self,
        t: u32,
        allowed: impl Fn(u8) -> bool,
    ) -> Option<(u16, Micros)> {
        self.type_min_completion_where(self.tasks[t as usize].ty, allowed)
    }

    /// The machine that completes task `t` first (lower index on ties).
    pub fn min_completion(&self, t: u32) -> Option<(u16, Micros)> {
        self.min_completion_where(t, |_| true)
    }

    /// The first and the second completion of task `t` over all machines: (machine,
    /// completion) of the first, and the second completion on any other machine.
    pub fn two_completions(&self, t: u32) -> Option<((u16, Micros), Option<Micros>)> {
        self.type_two_completions(self.tasks[t as usize].ty)
    }

    /// [`View::two_completions`] for a task of type `ty`, in one walk over the machine
    /// types: the first is the earliest (completion, machine) over each type's
    /// earliest-ready machine; the second is the earlier of the runner-up over those and
    /// the winner type's second-earliest-ready machine.
    pub fn type_two_completions(&self, ty: u16) -> Option<((u16, Micros), Option<Micros>)> {
        let mt = self.env.machine_types as usize;
        let row = &self.env.etc[ty as usize * mt..(ty as usize + 1) * mt];
        // Branch-free over the types, a batch pass's innermost loop: a missing machine or an
        // impossible execution time saturates to u64::MAX. Machines are numbered by type
        // (`SerialEnv::check`), so the first type of least completion holds the least
        // (completion, machine); `c2` is the second least over the types, a tie counted twice.
        let (mut c1, mut c2, mut fj) = (u64::MAX, u64::MAX, 0usize);
        for (j, (e, &r)) in row.iter().zip(&self.ready0[..mt]).enumerate() {
            let c = r.saturating_add(e.0);
            c2 = c2.min(c.max(c1));
            if c < c1 {
                (c1, fj) = (c, j);
            }
        }
        let c2 = c2.min(self.ready1[fj].saturating_add(row[fj].0));
        // u64::MAX is also a (saturated) completion: the walk below tells the two apart.
        if c2 != u64::MAX {
            return Some(((self.best[fj][0], Micros(c1)), Some(Micros(c2))));
        }
        self.two_completions_walk(row)
    }

    /// [`View::type_two_completions`] again, from what `k` kept of it when the machine types
    /// in `moved` (bit j) were the only ones to take a task since; `k` keeps this one.
    ///
    /// Within an event ready times only grow, so a type outside `moved` completes as it
    /// did. With the kept runner-up's type outside `moved`, the runner-up over the other
    /// types is still the kept one, and if the first type (its completion perhaps later) is
    /// still before it, the answer needs no walk over the types: the second is the earlier
    /// of the runner-up and the first type's second-earliest-ready machine, as in the walk.
    /// Otherwise the walk, which also finds the runner-up to keep.
    pub fn kept_two_completions(
        &self,
        ty: u16,
        k: &mut Kept,
        moved: u32,
    ) -> Option<((u16, Micros), Option<Micros>)> {
        let mt = self.env.machine_types as usize;
        let row = &self.env.etc[ty as usize * mt..(ty as usize + 1) * mt];
        let (mut c1, mut fj, mut b, mut bj);
        if k.fj != u8::MAX && (k.bj == u8::MAX || (moved >> k.bj) & 1 == 0) {
            fj = k.fj as usize;
            c1 = if (moved >> fj) & 1 == 0 {
                k.c1
            } else {
                self.ready0[fj].saturating_add(row[fj].0)
            };
            (b, bj) = (k.b, k.bj);
            if c1 != u64::MAX && (c1 < b || (c1 == b && fj < bj as usize)) {
                k.c1 = c1;
                return self.two_from(row, c1, fj, b);
            }
        }
        // The walk: (c1, fj) the least (completion, type), (b, bj) the least of the others.
        (c1, fj, b, bj) = (u64::MAX, 0usize, u64::MAX, u8::MAX);
        for (j, (e, &r)) in row.iter().zip(&self.ready0[..mt]).enumerate() {
            let c = r.saturating_add(e.0);
            if c < c1 {
                (b, bj) = (c1, fj as u8);
                (c1, fj) = (c, j);
            } else if c < b {
                (b, bj) = (c, j as u8);
            }
        }
        *k = Kept {
            fj: fj as u8,
            bj,
            c1,
            b,
        };
        self.two_from(row, c1, fj, b)
    }

    /// The answer of [`View::type_two_completions`] for ETC row `row` whose first is type
    /// `fj` at `c1`, with `b` the least completion over the other types.
    #[inline]
    fn two_from(
        &self,
        row: &[Micros],
        c1: u64,
        fj: usize,
        b: u64,
    ) -> Option<((u16, Micros), Option<Micros>)> {
        let c2 = b.min(self.ready1[fj].saturating_add(row[fj].0));
        // u64::MAX is also a (saturated) completion: the checked walk tells the two apart.
        if c2 != u64::MAX {
            return Some(((self.best[fj][0], Micros(c1)), Some(Micros(c2))));
        }
        self.two_completions_walk(row)
    }

    /// [`View::type_two_completions`] for ETC row `row`, each machine checked for being there.
    fn two_completions_walk(&self, row: &[Micros]) -> Option<((u16, Micros), Option<Micros>)> {
        let best = &self.best[..row.len().min(self.best.len())];
        // The first (completion, machine, type) and the runner-up's completion.
        let (mut fc, mut fm, mut fj) = (Micros::MAX, NO_MACHINE, 0usize);
        let (mut found, mut ru, mut has_ru) = (false, Micros::MAX, false);
        for (j, (&e, b)) in row.iter().zip(best).enumerate() {
            let m = b[0];
            if m == NO_MACHINE || e == Micros::MAX {
                continue;
            }
            let c = self.ready[m as usize].saturating_add(e);
            if found && (fc, fm) <= (c, m) {
                if !has_ru || c < ru {
                    (ru, has_ru) = (c, true);
                }
            } else {
                if found {
                    // The old first is the best of the others so far.
                    (ru, has_ru) = (fc, true);
                }
                (fc, fm, fj, found) = (c, m, j, true);
            }
        }
        if !found {
            return None;
        }
        let m2 = self.best[fj][1];
        if m2 != NO_MACHINE {
            let c = self.ready[m2 as usize].saturating_add(row[fj]);
            if !has_ru || c < ru {
                (ru, has_ru) = (c, true);
            }
        }
        Some(((fm, fc), has_ru.then_some(ru)))
    }

    /// The machine with the highest utility / execution time for task `t` (ties: earlier
    /// completion, then lower machine), with that value.
    pub fn max_upt(&self, t: u32) -> Option<(u16, f64)> {
        let mut best: Option<(u16, f64, Micros)> = None;
        for j in 0..self.env.machine_types {
            if let Some((m, c)) = self.min_completion_in(t, j) {
                let v = self.utility(t, c) / self.etc(t, m).0 as f64;
                let better = match best {
                    None => true,
                    Some((bm, bv, bc)) => v > bv || (v == bv && (c, m) < (bc, bm)),
                };
                if better {
                    best = Some((m, v, c));
                }
            }
        }
        best.map(|(m, v, _)| (m, v))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::utility::UtilityClasses;
    use proptest::prelude::*;
    use std::vec::Vec;

    proptest! {
        /// `type_two_completions` (the branch-free walk over the types and its fallback)
        /// equals the definition over every machine: the least (completion, machine) and
        /// the next completion, with missing machines, impossible types and completions
        /// that saturate at `Micros::MAX`.
        #[test]
        fn two_completions_by_definition(
            counts in prop::collection::vec(0usize..3, 1..6),
            etc_raw in prop::collection::vec(prop::option::weighted(0.8, 1u64..1_000), 30),
            ready_raw in prop::collection::vec((0u64..2_000, any::<bool>()), 15),
        ) {
            let mt: Vec<u8> = counts
                .iter()
                .enumerate()
                .flat_map(|(j, &c)| core::iter::repeat_n(j as u8, c))
                .collect();
            prop_assume!(!mt.is_empty());
            let types = counts.len();
            let tys = etc_raw.len() / types;
            let etc: Vec<Micros> = etc_raw[..tys * types]
                .iter()
                .map(|e| e.map_or(Micros::MAX, Micros))
                .collect();
            let classes = UtilityClasses::essc20();
            let env = SerialEnv {
                machine_type: &mt,
                machine_types: types as u8,
                special_types: 0,
                etc: &etc,
                classes: &classes,
            };
            // Some machines ready so late that their completions saturate.
            let ready = |m: usize| {
                let (r, late) = ready_raw[m];
                Micros(if late && m.is_multiple_of(3) { u64::MAX - r } else { r })
            };
            let v = View::new(env, &[], Micros::ZERO, ready);
            for ty in 0..tys as u16 {
                let mut all: Vec<(Micros, u16)> = (0..mt.len() as u16)
                    .filter(|&m| env.runs(ty, mt[m as usize]))
                    .map(|m| (ready(m as usize).saturating_add(env.etc(ty, mt[m as usize])), m))
                    .collect();
                all.sort();
                let want = all.first().map(|&(c, m)| ((m, c), all.get(1).map(|x| x.0)));
                prop_assert_eq!(v.type_two_completions(ty), want, "type {}", ty);
            }
        }

        /// `kept_two_completions` equals `type_two_completions` at every pass of an event:
        /// each pass asks for every type's completions with what it kept at the last one,
        /// then machines take tasks (ready times only grow), some tied with their type's
        /// other machines, some saturating at `Micros::MAX`.
        #[test]
        fn kept_two_completions_equal_the_walk(
            counts in prop::collection::vec(0usize..4, 1..7),
            etc_raw in prop::collection::vec(prop::option::weighted(0.8, 1u64..400), 42),
            ready_raw in prop::collection::vec(0u64..300, 21),
            takes in prop::collection::vec(
                prop::collection::vec((0usize..21, 0usize..7, any::<bool>()), 0..5),
                1..12,
            ),
        ) {
            let mt: Vec<u8> = counts
                .iter()
                .enumerate()
                .flat_map(|(j, &c)| core::iter::repeat_n(j as u8, c))
                .collect();
            prop_assume!(!mt.is_empty());
            let types = counts.len();
            let tys = etc_raw.len() / types;
            let mut etc: Vec<Micros> = etc_raw[..tys * types]
                .iter()
                .map(|e| e.map_or(Micros::MAX, Micros))
                .collect();
            // The last type is so slow that its completions saturate.
            for e in etc[(tys - 1) * types..].iter_mut() {
                *e = Micros(u64::MAX - 500);
            }
            let classes = UtilityClasses::essc20();
            let env = SerialEnv {
                machine_type: &mt,
                machine_types: types as u8,
                special_types: 0,
                etc: &etc,
                classes: &classes,
            };
            let curve = crate::utility::UtilityCurve::essc(
                1.0,
                crate::utility::Urgency::ALL[0],
                Micros(60_000_000),
                0,
            );
            let tasks: Vec<SerialTask> = (0..tys as u16)
                .map(|ty| SerialTask { ty, arrival: Micros::ZERO, curve })
                .collect();
            let mut v = View::new(env, &tasks, Micros::ZERO, |m| Micros(ready_raw[m] / 100 * 100));
            let mut kept = std::vec![Kept::NONE; tys];
            for pass in &takes {
                let moved = v.moved();
                for ty in 0..tys as u16 {
                    let want = v.type_two_completions(ty);
                    let got = v.kept_two_completions(ty, &mut kept[ty as usize], moved);
                    prop_assert_eq!(got, want, "type {}", ty);
                }
                for &(m, ty, fast) in pass {
                    let m = (m % mt.len()) as u16;
                    // A type that can run there (the fast one: the quickest on that type).
                    let j = mt[m as usize] as usize;
                    let ty = if fast {
                        (0..tys).min_by_key(|&t| etc[t * types + j]).unwrap()
                    } else {
                        ty % tys
                    };
                    if etc[ty * types + j] != Micros::MAX {
                        v.take(ty as u32, m);
                    }
                }
            }
        }
    }
}

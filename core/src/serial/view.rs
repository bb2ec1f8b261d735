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
        self.refresh(self.env.machine_type[m as usize]);
        c
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
        // Curves were checked by SerialEnv::check, so evaluation cannot fail.
        task.curve
            .value_at(c.saturating_sub(task.arrival), self.env.classes)
            .unwrap_or(0.0)
    }

    /// How many machines can run task `t` (a textbook heuristic's evaluations for it).
    pub fn eligible(&self, t: u32) -> u64 {
        let ty = self.tasks[t as usize].ty;
        (0..self.env.machine_types)
            .filter(|&j| self.env.runs(ty, j))
            .map(|j| self.machines_of(j).len() as u64)
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
        let best = &self.best[..row.len().min(self.best.len())];
        // The first (completion, machine, type) and the runner-up's completion, with
        // flags instead of options: this is a batch pass's innermost loop.
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

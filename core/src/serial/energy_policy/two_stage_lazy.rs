//! The two-stage pass of `two_stage` with lazy re-choices: the same decisions, far fewer
//! choices per event when many tasks want the same machine (every unfiltered run).
//!
//! The eager pass re-chooses every task whose machine was just taken. Here such a task keeps
//! its key, marked stale, and is chosen again only when it reaches the top of the tournament
//! tree. Both passes then take, at every step, the best fresh choice over every task (higher
//! score, then earlier task), so the same (task, option) in the same order, because within
//! one event:
//!
//! - a take only delays the best machine of its type and spends energy, so every option's
//!   score and place in the tie order only worsen: a stale key never underestimates, and a
//!   choice whose machine was not taken and that still fits is still the task's best;
//! - no option becomes valid, which holds while no option of a taken type can run across
//!   the day's end from the type's new earliest start (a later start there moves energy to
//!   tomorrow, so an option refused today could fit): each take that moves the type's
//!   earliest start checks it, and the event is mapped by the eager pass from its start if
//!   it fails (decisions are reported only once the lazy pass has finished). A take that
//!   leaves the earliest start where it was (another machine of the type ready then; every
//!   take of the polled environment, where each available machine is ready now) changes no
//!   option's times or shares;
//! - a task left without an option is reported when it surfaces rather than when the eager
//!   pass re-chooses it; whether it is filtered or invalid could differ between those moments
//!   only if it had a valid option at the event's start and none at its end, which is
//!   checked too (and falls back the same way).
//!
//! A re-choice looks again only at the machine type whose option moved (its machine was
//! taken, or the energy left no longer fits it): each task keeps, per type, an upper bound on
//! its options' scores (`sc.bounds`, set by its last choice over every type), and a type whose
//! bound is below the best found is not examined ([`Lazy::rechoose`]).
//!
//! The eager pass it falls back to re-chooses by machine type too (`two_stage::run_bounded`:
//! there a take that lets an option cross the day's end lifts every task's bound on the
//! type instead).
//!
//! Under `cfg(test)` every lazy event of the core's tests is mapped again by the eager pass
//! and compared (`tests::check_against_eager`), and every fallback's decisions by the eager
//! pass over every type (`tests::check_bounded_eager`).

use super::two_stage::{
    self, choose_again, choose_bounded, crosses_after, first_choices, pack, unpack, Cap, NO_CAP,
    NO_CHOICE,
};
use super::{Decision, EScratch};
use crate::serial::energy_heuristic::EnergyHeuristic;
use crate::serial::env::{MAX_SERIAL_MACHINES, MAX_SERIAL_MACHINE_TYPES};
use crate::serial::options::{NoOption, Opt, OptionView};
use crate::serial::queue::NONE;
use crate::units::Micros;

/// A decided slot's `choice` when it had no option: filtered, or invalid.
const FILTERED: u32 = u32::MAX - 1;
const INVALID: u32 = u32::MAX;

/// Each machine type's longest run among the event's tasks: the largest finite ETC over
/// their types and the P-states.
fn longest(v: &OptionView<'_>, slots: &[u32]) -> [Micros; MAX_SERIAL_MACHINE_TYPES] {
    let mut l = [Micros::ZERO; MAX_SERIAL_MACHINE_TYPES];
    let p = v.power.pstates as usize;
    let mut last = u16::MAX;
    for &t in slots {
        let ty = v.tasks[t as usize].ty;
        // Arrivals of one type often come together; a repeat adds nothing.
        if ty == last {
            continue;
        }
        last = ty;
        for j in 0..v.env.machine_types {
            let b = v.power.base(&v.env, ty, j);
            for &x in &v.power.etc[b..b + p] {
                if x != Micros::MAX && x > l[j as usize] {
                    l[j as usize] = x;
                }
            }
        }
    }
    l
}

/// The decisions in the order made: a list through `prev` of decided slots (free once a
/// slot is decided), each slot's `choice` its option (`pack`) or [`FILTERED`] / [`INVALID`].
struct Log {
    head: u32,
    tail: u32,
}

impl Log {
    fn push(&mut self, prev: &mut [u32], s: usize) {
        prev[s] = NONE;
        if self.tail == NONE {
            self.head = s as u32;
        } else {
            prev[self.tail as usize] = s as u32;
        }
        self.tail = s as u32;
    }
}

/// The lazy pass's state: takes per machine (a choice is fresh while its machine's count is
/// the one it saw, kept in `next`), the log, the options examined.
struct Lazy {
    taken: [u32; MAX_SERIAL_MACHINES],
    log: Log,
    evals: u64,
    /// Machine types, and whether `sc.bounds` holds one bound per type for every slot.
    types: usize,
    per_type: bool,
}

impl Lazy {
    /// Slot `s`'s bounds, one per machine type, if the scratch holds them for this event,
    /// and its cap if it holds that too.
    fn bounds<'b>(
        &self,
        sc: &'b mut EScratch<'_>,
        s: usize,
    ) -> (&'b mut [f32], Option<&'b mut Cap>) {
        if self.per_type {
            sc.kept(s, self.types)
        } else {
            (&mut [], None)
        }
    }

    /// Chooses for slot `s` over every type, keeping each type's bound; returns whether it
    /// has an option (otherwise it is logged).
    fn choose(
        &mut self,
        h: EnergyHeuristic,
        v: &OptionView<'_>,
        sc: &mut EScratch<'_>,
        s: usize,
    ) -> bool {
        let t = sc.slots[s];
        let (b, cap) = self.bounds(sc, s);
        let (c, e) = choose_bounded(h, v, t, b, cap, None);
        self.evals += e;
        match c {
            Some((o, key)) => {
                self.set(sc, s, o, key);
                true
            }
            None => {
                sc.choice[s] = match v.why_none(t) {
                    NoOption::Filtered => FILTERED,
                    NoOption::Invalid => INVALID,
                };
                self.log.push(&mut *sc.prev, s);
                false
            }
        }
    }

    /// Slot `s`'s first choice as [`first_choices`] left it: a fresh choice, or logged
    /// without an option; returns whether it has one.
    fn seed(&mut self, v: &OptionView<'_>, sc: &mut EScratch<'_>, s: usize) -> bool {
        let c = sc.choice[s];
        if c == NO_CHOICE {
            sc.choice[s] = match v.why_none(sc.slots[s]) {
                NoOption::Filtered => FILTERED,
                NoOption::Invalid => INVALID,
            };
            self.log.push(&mut *sc.prev, s);
            return false;
        }
        sc.next[s] = self.taken[unpack(c).0 as usize];
        true
    }

    /// Slot `s` chooses option `o` with stage-2 score `key`.
    fn set(&self, sc: &mut EScratch<'_>, s: usize, o: Opt, key: f64) {
        sc.choice[s] = pack(o.m, o.k);
        sc.key[s] = key;
        sc.next[s] = self.taken[o.m as usize];
    }

    /// Chooses again for slot `s`, whose option on a machine of type `j` was taken or no
    /// longer fits. Only type `j`'s options moved since the slot's bounds were set (every
    /// other type's only worsened: later starts, less energy), so after type `j` only the
    /// types whose bound is not below the best found so far are examined: the best found
    /// then scores above every type left, and is the option a choice over every type finds,
    /// whatever the tie order.
    fn rechoose(
        &mut self,
        h: EnergyHeuristic,
        v: &OptionView<'_>,
        sc: &mut EScratch<'_>,
        s: usize,
        j: u8,
    ) -> bool {
        if !self.per_type {
            return self.choose(h, v, sc, s);
        }
        let t = sc.slots[s];
        let mut evals = 0u64;
        let (b, cap) = self.bounds(sc, s);
        let cap = cap.map_or(NO_CAP, |c| *c);
        let again = choose_again(h, v, t, j, b, cap, &mut evals);
        self.evals += evals;
        match again {
            Some((o, key)) => {
                self.set(sc, s, o, key);
                true
            }
            // No option left, or a NaN: the choice over every type decides (and logs why).
            None => self.choose(h, v, sc, s),
        }
    }
}

/// The lazy pass over `sc.slots[..n]`; `None` if a take let an option cross the day's end.
fn pass(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    longest: &[Micros],
    lz: &mut Lazy,
) -> Option<()> {
    let w = if lz.per_type { lz.types } else { 0 };
    lz.evals += first_choices(h, v, sc, n, w);
    sc.seed_tree(n, |sc, s| lz.seed(v, sc, s));
    loop {
        let root = sc.tree[1];
        if root == NONE {
            return Some(());
        }
        let s = root as usize;
        let t = sc.slots[s];
        let (m, k) = unpack(sc.choice[s]);
        let fresh = sc.next[s] == lz.taken[m as usize];
        // Stale, or no longer fitting the energy left: choose again.
        let Some(o) = fresh.then(|| v.valid(t, m, k)).flatten() else {
            let active = lz.rechoose(h, v, sc, s, v.env.machine_type[m as usize]);
            sc.set_leaf(n, s, active);
            continue;
        };
        v.take(&o);
        lz.taken[m as usize] += 1;
        lz.log.push(&mut *sc.prev, s);
        sc.set_leaf(n, s, false);
        // The type's earliest start was the option's: `m` was its best machine.
        if crosses_after(v, longest, v.env.machine_type[m as usize], Some(o.start)) {
            return None;
        }
    }
}

/// The eager pass from the event's start, its re-choices by machine type
/// (`two_stage::run_bounded`).
#[cfg(not(test))]
fn eager(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    longest: &[Micros],
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    two_stage::run_bounded(h, v, sc, n, longest, out)
}

/// [`eager`], its decisions checked against `two_stage::run`'s, every re-choice over every
/// type.
#[cfg(test)]
fn eager(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    longest: &[Micros],
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    let start = v.clone();
    let mut got = tests::Vec::new();
    let e = two_stage::run_bounded(h, v, sc, n, longest, &mut |t, d| {
        got.push((t, d));
        out(t, d)
    });
    tests::check_bounded_eager(h, &start, sc, n, &got);
    e
}

/// Maps `sc.slots[..n]` as `two_stage::run` does, calling `out` once per task; returns the
/// options evaluated (the lazy pass's and, when it fell back, the eager pass's).
pub(super) fn run(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    if n == 0 {
        return 0;
    }
    let longest = longest(v, &sc.slots[..n]);
    // Already at the day's end: a take there would likely fall back (queued; a polled take
    // never moves a type's earliest start).
    if !v.polled() && (0..v.env.machine_types).any(|j| crosses_after(v, &longest, j, None)) {
        return eager(h, v, sc, n, &longest, out);
    }
    let start = v.clone();
    let mut lz = Lazy {
        taken: [0; MAX_SERIAL_MACHINES],
        log: Log {
            head: NONE,
            tail: NONE,
        },
        evals: 0,
        types: v.env.machine_types as usize,
        per_type: sc.bounds.len() >= n * v.env.machine_types as usize,
    };
    let done = pass(h, v, sc, n, &longest, &mut lz).is_some() && {
        // A task without options: the same verdict at the event's start and end, so at
        // whatever moment the eager pass reported it.
        let mut same = true;
        let mut s = lz.log.head;
        while s != NONE && same {
            let (t, c) = (sc.slots[s as usize], sc.choice[s as usize]);
            if c == FILTERED || c == INVALID {
                let w = if c == FILTERED {
                    NoOption::Filtered
                } else {
                    NoOption::Invalid
                };
                same = start.why_none(t) == w && v.why_none(t) == w;
            }
            s = sc.prev[s as usize];
        }
        same
    };
    *v = start;
    if !done {
        return lz.evals + eager(h, v, sc, n, &longest, out);
    }
    #[cfg(test)]
    tests::check_against_eager(h, v, sc, n, lz.log.head);
    // Replay from the event's start: the same takes on the same states give the same options.
    let mut s = lz.log.head;
    while s != NONE {
        let (t, c) = (sc.slots[s as usize], sc.choice[s as usize]);
        match c {
            FILTERED => out(t, Err(NoOption::Filtered)),
            INVALID => out(t, Err(NoOption::Invalid)),
            c => {
                let (m, k) = unpack(c);
                match v.valid(t, m, k) {
                    Some(o) => {
                        v.take(&o);
                        out(t, Ok(o));
                    }
                    // Unreachable: the lazy pass took this option on this same state.
                    None => {
                        debug_assert!(false, "replayed option no longer valid");
                        out(t, Err(v.why_none(t)));
                    }
                }
            }
        }
        s = sc.prev[s as usize];
    }
    lz.evals
}

#[cfg(test)]
mod tests {
    //! Every lazy event of the core's tests (golden digests, property tests) is mapped again
    //! by the eager pass from the same start: the same takes in the same order, and the same
    //! verdict for every task left without an option.

    extern crate std;
    use super::*;
    use std::vec;
    pub(super) use std::vec::Vec;

    /// The decisions of `two_stage::run`, the eager pass over every type, from the event's
    /// start on a copy of the event's tasks (`sc.slots[..n]`) in scratch of its own.
    fn eager_decisions(
        h: EnergyHeuristic,
        start: &OptionView<'_>,
        sc: &EScratch<'_>,
        n: usize,
    ) -> Vec<(u32, Decision)> {
        let mut slots: Vec<u32> = sc.slots[..n].to_vec();
        let (mut key, mut choice, mut next, mut prev, mut tree) = (
            vec![0.0; n],
            vec![0u32; n],
            vec![0u32; n],
            vec![0u32; n],
            vec![0u32; 2 * n],
        );
        let mut esc = EScratch {
            slots: &mut slots,
            key: &mut key,
            choice: &mut choice,
            next: &mut next,
            prev: &mut prev,
            tree: &mut tree,
            bounds: &mut [],
            caps: &mut [],
        };
        let mut v = start.clone();
        let mut got = Vec::new();
        two_stage::run(h, &mut v, &mut esc, n, &mut |t, d| got.push((t, d)));
        got
    }

    pub(super) fn check_bounded_eager(
        h: EnergyHeuristic,
        start: &OptionView<'_>,
        sc: &EScratch<'_>,
        n: usize,
        got: &[(u32, Decision)],
    ) {
        let want = eager_decisions(h, start, sc, n);
        assert_eq!(
            got,
            &want[..],
            "{h:?}: the eager pass by type decided otherwise"
        );
    }

    pub(super) fn check_against_eager(
        h: EnergyHeuristic,
        start: &OptionView<'_>,
        sc: &EScratch<'_>,
        n: usize,
        head: u32,
    ) {
        let mut lazy_ok = Vec::new();
        let mut lazy_none = Vec::new();
        let mut s = head;
        while s != NONE {
            let (t, c) = (sc.slots[s as usize], sc.choice[s as usize]);
            match c {
                FILTERED => lazy_none.push((t, NoOption::Filtered)),
                INVALID => lazy_none.push((t, NoOption::Invalid)),
                c => lazy_ok.push((t, unpack(c))),
            }
            s = sc.prev[s as usize];
        }
        let (mut eager_ok, mut eager_none) = (Vec::new(), Vec::new());
        for (t, d) in eager_decisions(h, start, sc, n) {
            match d {
                Ok(o) => eager_ok.push((t, (o.m, o.k))),
                Err(w) => eager_none.push((t, w)),
            }
        }
        assert_eq!(lazy_ok, eager_ok, "{h:?}: takes differ");
        lazy_none.sort_by_key(|x| x.0);
        eager_none.sort_by_key(|x| x.0);
        assert_eq!(lazy_none, eager_none, "{h:?}: tasks without options differ");
    }
}

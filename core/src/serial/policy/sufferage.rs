//! Sufferage (§2.4.3, after Maheswaran et al.): in each pass every unmapped task finds its
//! best machine (highest utility, which is its first completion) and its sufferage, the
//! best utility minus the second best over the other machines (the best itself when only
//! one machine can run it). A task claims its best machine; a later claimant with a strictly
//! higher sufferage displaces the holder, which waits for the next pass. At the end of the
//! pass every claim is assigned (in machine order) and the ready times move; passes repeat
//! until every task is mapped. Tasks are visited in arrival order, so equal sufferages go to
//! the earlier task.
//!
//! Computed without evaluating most sufferages. A task's first machine, first completion
//! and second completion depend on its type alone (one walk over the machine types per type
//! and pass), and each type keeps its unmapped tasks in a list in arrival order. A pass
//! bounds every task's sufferage from its curve's levels (`utility_bound`, no exponential)
//! and keeps each type's highest bound; the task of highest bound on each claimed machine
//! (earliest on ties) is evaluated as the provisional holder; then only the types whose
//! highest bound could beat their machine's holder are walked again, evaluating only the
//! tasks whose bound could (a higher sufferage, or an equal one from an earlier task). The
//! holders are those of the textbook pass: the task of highest sufferage on each machine,
//! the earliest on ties.
//!
//! More task types than the per-type table holds fall back to the per-task pass
//! (`per_task`): the same decisions, each task's completions computed for it.

use crate::serial::env::MAX_SERIAL_MACHINES;
use crate::serial::queue::NONE;
use crate::serial::two_stage::Scratch;
use crate::serial::utility_bound;
use crate::serial::view::{View, NO_MACHINE};
use crate::units::Micros;

/// Most task types the per-type pass keeps lists for (more: `per_task`).
const MAX_TYPES: usize = 256;

/// One task type's list of unmapped tasks and its pass values.
#[derive(Clone, Copy)]
struct TypeList {
    /// Its first unmapped task (slot), `NONE` when none; `sc.next` links the rest in
    /// arrival order (mapped slots are unlinked on the next walk).
    head: u32,
    /// Its unmapped tasks.
    live: u32,
    /// Machines that can run it (the textbook count of evaluations per task and pass).
    eligible: u64,
    /// This pass: its first machine and second completion, and its task of highest bound.
    m: u16,
    c2: Option<Micros>,
    top: u32,
}

pub(super) fn run(
    v: &mut View<'_>,
    sc: &mut Scratch<'_>,
    n: usize,
    emit: &mut dyn FnMut(u32, u16),
) -> u64 {
    let types = v.env.task_types();
    if types > MAX_TYPES {
        return per_task(v, sc, n, emit);
    }
    let machines = v.env.machine_type.len();
    let mut tl = [TypeList {
        head: NONE,
        live: 0,
        eligible: 0,
        m: NO_MACHINE,
        c2: None,
        top: NONE,
    }; MAX_TYPES];
    // The lists, built backwards so that each is in arrival order.
    for s in (0..n).rev() {
        let t = sc.slots[s];
        let x = &mut tl[v.tasks[t as usize].ty as usize];
        if x.live == 0 {
            x.eligible = v.eligible(t);
        }
        sc.next[s] = x.head;
        x.head = s as u32;
        x.live += 1;
        // `choice` marks a task unmapped (0) or mapped (NO_MACHINE).
        sc.choice[s] = 0;
    }
    let mut left = n;
    let mut evals = 0u64;
    // Each machine's holder (slot) and its sufferage.
    let mut claim = [NONE; MAX_SERIAL_MACHINES];
    let mut held = [0.0f64; MAX_SERIAL_MACHINES];
    while left > 0 {
        for c in claim.iter_mut().take(machines) {
            *c = NONE;
        }
        // Sweep 1: each type's completions, its tasks' bounds (in `key`) and its task of
        // highest bound; the highest over the types on a machine is its provisional holder.
        for x in tl.iter_mut().take(types) {
            x.top = NONE;
            if x.live == 0 {
                continue;
            }
            evals += x.live as u64 * x.eligible;
            let ty = v.tasks[sc.slots[x.head as usize] as usize].ty;
            let Some(((m, c1), c2)) = v.type_two_completions(ty) else {
                // No machine can run these tasks (SerialEnv::check rules this out).
                let mut s = x.head;
                while s != NONE {
                    if sc.choice[s as usize] != NO_MACHINE {
                        sc.choice[s as usize] = NO_MACHINE;
                        left -= 1;
                    }
                    s = sc.next[s as usize];
                }
                (x.live, x.head) = (0, NONE);
                continue;
            };
            (x.m, x.c2) = (m, c2);
            x.top = bound_all(v, sc, x, c1, c2);
            let h = claim[m as usize];
            if h == NONE || can_beat(sc.key[x.top as usize], x.top, sc.key[h as usize], h) {
                claim[m as usize] = x.top;
            }
        }
        for m in 0..machines {
            let h = claim[m];
            if h != NONE {
                let t = sc.slots[h as usize];
                held[m] = sufferage(v, t, m as u16, tl[v.tasks[t as usize].ty as usize].c2);
            }
        }
        // Sweep 2: only the types, and in them the tasks, whose bound can beat their
        // machine's holder.
        for x in tl.iter().take(types) {
            if x.top == NONE {
                continue;
            }
            let m = x.m as usize;
            if !can_beat(sc.key[x.top as usize], x.top, held[m], claim[m]) {
                continue;
            }
            let mut s = x.head;
            while s != NONE {
                let (h, hs) = (claim[m], held[m]);
                if s != h
                    && sc.choice[s as usize] != NO_MACHINE
                    && can_beat(sc.key[s as usize], s, hs, h)
                {
                    let suff = sufferage(v, sc.slots[s as usize], x.m, x.c2);
                    if suff > hs || (suff == hs && s < h) {
                        claim[m] = s;
                        held[m] = suff;
                    }
                }
                s = sc.next[s as usize];
            }
        }
        for (m, &s) in claim.iter().enumerate().take(machines) {
            if s == NONE {
                continue;
            }
            let t = sc.slots[s as usize];
            v.take(t, m as u16);
            emit(t, m as u16);
            sc.choice[s as usize] = NO_MACHINE;
            tl[v.tasks[t as usize].ty as usize].live -= 1;
            left -= 1;
        }
    }
    evals
}

/// Whether a task (slot `s`) whose sufferage is at most `b` could displace holder `h` of
/// sufferage `hs`: a higher sufferage, or an equal one from an earlier task.
#[inline]
fn can_beat(b: f64, s: u32, hs: f64, h: u32) -> bool {
    b > hs || (b == hs && s < h)
}

/// Bounds the sufferage of every unmapped task of list `x` (into `sc.key`) for first
/// completion `c1` and second `c2`, unlinking the mapped ones; returns the task of highest
/// bound (the earliest on ties).
fn bound_all(
    v: &View<'_>,
    sc: &mut Scratch<'_>,
    x: &mut TypeList,
    c1: Micros,
    c2: Option<Micros>,
) -> u32 {
    let mut top = NONE;
    let mut prev = NONE;
    let mut s = x.head;
    while s != NONE {
        let nx = sc.next[s as usize];
        if sc.choice[s as usize] == NO_MACHINE {
            if prev == NONE {
                x.head = nx;
            } else {
                sc.next[prev as usize] = nx;
            }
            s = nx;
            continue;
        }
        let task = &v.tasks[sc.slots[s as usize] as usize];
        let b = match c2 {
            Some(c2) => utility_bound::drop_bound(
                &task.curve,
                v.env.classes,
                c1.saturating_sub(task.arrival),
                c2.saturating_sub(task.arrival),
                task.curve.max_value(),
            ),
            // Sufferage is the best utility itself.
            None => f64::INFINITY,
        };
        sc.key[s as usize] = b;
        if top == NONE || sc.key[top as usize] < b {
            top = s;
        }
        prev = s;
        s = nx;
    }
    top
}

/// The pass for any number of task types: every unmapped task at every pass. Sweep 1 bounds
/// every task's sufferage and makes the task of highest bound on each machine (earliest on
/// ties) its provisional holder; sweep 2 evaluates only the tasks whose bound can beat
/// their machine's holder.
pub(in crate::serial) fn per_task(
    v: &mut View<'_>,
    sc: &mut Scratch<'_>,
    n: usize,
    emit: &mut dyn FnMut(u32, u16),
) -> u64 {
    let machines = v.env.machine_type.len();
    let mut left = 0usize;
    for s in 0..n {
        // `choice` marks a task still unmapped (0) or mapped (NO_MACHINE).
        sc.choice[s] = 0;
        left += 1;
    }
    let mut evals = 0u64;
    let mut claim = [NONE; MAX_SERIAL_MACHINES];
    let mut held = [0.0f64; MAX_SERIAL_MACHINES];
    while left > 0 {
        for c in claim.iter_mut().take(machines) {
            *c = NONE;
        }
        let mut any = false;
        for s in 0..n {
            if sc.choice[s] == NO_MACHINE {
                continue;
            }
            let t = sc.slots[s];
            evals += v.eligible(t);
            let Some(((m, c1), c2)) = v.two_completions(t) else {
                sc.choice[s] = NO_MACHINE;
                left -= 1;
                continue;
            };
            let task = &v.tasks[t as usize];
            let b = match c2 {
                Some(c2) => utility_bound::drop_bound(
                    &task.curve,
                    v.env.classes,
                    c1.saturating_sub(task.arrival),
                    c2.saturating_sub(task.arrival),
                    task.curve.max_value(),
                ),
                None => f64::INFINITY,
            };
            sc.key[s] = b;
            sc.choice[s] = m;
            any = true;
            let h = claim[m as usize];
            if h == NONE || sc.key[h as usize] < b {
                claim[m as usize] = s as u32;
            }
        }
        if !any {
            break;
        }
        for m in 0..machines {
            if claim[m] != NONE {
                let t = sc.slots[claim[m] as usize];
                held[m] = sufferage(v, t, m as u16, second(v, t));
            }
        }
        for s in 0..n {
            let m = sc.choice[s];
            if m == NO_MACHINE {
                continue;
            }
            let h = claim[m as usize];
            let (b, hs) = (sc.key[s], held[m as usize]);
            if s as u32 == h || b < hs || (b == hs && s as u32 > h) {
                continue;
            }
            let t = sc.slots[s];
            let suff = sufferage(v, t, m, second(v, t));
            if suff > hs || (suff == hs && (s as u32) < h) {
                claim[m as usize] = s as u32;
                held[m as usize] = suff;
            }
        }
        for (m, &s) in claim.iter().enumerate().take(machines) {
            if s == NONE {
                continue;
            }
            let t = sc.slots[s as usize];
            v.take(t, m as u16);
            emit(t, m as u16);
            sc.choice[s as usize] = NO_MACHINE;
            left -= 1;
        }
    }
    evals
}

/// Task `t`'s second completion now.
fn second(v: &View<'_>, t: u32) -> Option<Micros> {
    v.two_completions(t).and_then(|(_, c2)| c2)
}

/// Task `t`'s sufferage on its first machine `m`: its utility there minus its utility at
/// its second completion `c2` (the utility itself if no other machine can run it).
fn sufferage(v: &View<'_>, t: u32, m: u16, c2: Option<Micros>) -> f64 {
    v.utility(t, v.completion(t, m)) - c2.map_or(0.0, |c| v.utility(t, c))
}

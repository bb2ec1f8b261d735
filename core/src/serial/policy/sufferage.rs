//! Sufferage (§2.4.3, after Maheswaran et al.): in each pass every unmapped task finds its
//! best machine (highest utility, which is its first completion) and its sufferage, the
//! best utility minus the second best over the other machines (the best itself when only
//! one machine can run it). A task claims its best machine; a later claimant with a strictly
//! higher sufferage displaces the holder, which waits for the next pass. At the end of the
//! pass every claim is assigned (in machine order) and the ready times move; passes repeat
//! until every task is mapped. Tasks are visited in arrival order, so equal sufferages go to
//! the earlier task.
//!
//! Computed without visiting every task at every pass. A task's first machine, first
//! completion and second completion depend on its type alone, and its sufferage on those
//! three and the task; a pass moves the ready times of at most one machine per machine type,
//! so most types' three values stay as they were and so do their tasks' sufferages. Each
//! type keeps its unmapped tasks (a list in arrival order), the three values they were last
//! computed for, and its best task (highest sufferage, the earliest on ties). A pass
//! recomputes a type's best only when its values changed or its best task was mapped, and
//! then evaluates few sufferages: it bounds every task's sufferage from its curve's levels
//! (`utility_bound`, no exponential; kept while the values stand), evaluates the task of
//! highest bound, then only the tasks whose bound could beat it. A machine's holder is the
//! best of the types' best tasks whose first machine it is: the textbook pass's holder, the
//! task of highest sufferage on that machine, the earliest on ties.
//!
//! More task types than the per-type table holds fall back to the per-task pass
//! (`per_task`), the same decisions at a cost of every task at every pass.

use crate::serial::env::MAX_SERIAL_MACHINES;
use crate::serial::queue::NONE;
use crate::serial::two_stage::Scratch;
use crate::serial::utility_bound;
use crate::serial::view::{View, NO_MACHINE};
use crate::units::Micros;

/// Most task types the per-type pass keeps state for (more: `per_task`).
const MAX_TYPES: usize = 256;

/// A type's first (machine, completion) and second completion.
type Two = Option<((u16, Micros), Option<Micros>)>;

/// One task type's state across the passes of one event.
#[derive(Clone, Copy)]
struct TypeState {
    /// Its first unmapped task (slot), `NONE` when all are mapped; `sc.next` links the rest
    /// in arrival order (mapped slots are unlinked lazily, on the next walk).
    head: u32,
    /// Its unmapped tasks.
    live: u32,
    /// The values its tasks' bounds (`sc.key`) were computed for; `None` before the first.
    two: Option<Two>,
    /// Its best task and that task's sufferage; `NONE`: to be recomputed.
    best: u32,
    best_suff: f64,
    /// Machines that can run it (the textbook count of evaluations per task and pass).
    eligible: u64,
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
    let mut st = [TypeState {
        head: NONE,
        live: 0,
        two: None,
        best: NONE,
        best_suff: 0.0,
        eligible: 0,
    }; MAX_TYPES];
    // The lists, built backwards so each is in arrival order.
    for s in (0..n).rev() {
        let ty = v.tasks[sc.slots[s] as usize].ty as usize;
        let x = &mut st[ty];
        if x.live == 0 {
            x.eligible = v.eligible(sc.slots[s]);
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
        for x in st.iter_mut().take(types) {
            if x.live == 0 {
                continue;
            }
            evals += x.live as u64 * x.eligible;
            let two = v.two_completions(sc.slots[x.head as usize]);
            let Some(((m, c1), c2)) = two else {
                // No machine can run these tasks (SerialEnv::check rules this out).
                let mut s = x.head;
                while s != NONE {
                    if sc.choice[s as usize] != NO_MACHINE {
                        sc.choice[s as usize] = NO_MACHINE;
                        left -= 1;
                    }
                    s = sc.next[s as usize];
                }
                x.live = 0;
                x.head = NONE;
                continue;
            };
            if x.two != Some(two) {
                x.two = Some(two);
                bound_all(v, sc, x, c1, c2);
                x.best = NONE;
            }
            if x.best == NONE {
                best_of(v, sc, x, m, c2);
            }
            let h = claim[m as usize];
            if h == NONE
                || held[m as usize] < x.best_suff
                || (held[m as usize] == x.best_suff && x.best < h)
            {
                claim[m as usize] = x.best;
                held[m as usize] = x.best_suff;
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
            let x = &mut st[v.tasks[t as usize].ty as usize];
            x.live -= 1;
            x.best = NONE;
            left -= 1;
        }
    }
    evals
}

/// Bounds the sufferage of every unmapped task of type state `x` (into `sc.key`) for first
/// completion `c1` and second `c2`, unlinking the mapped ones.
fn bound_all(
    v: &View<'_>,
    sc: &mut Scratch<'_>,
    x: &mut TypeState,
    c1: Micros,
    c2: Option<Micros>,
) {
    let mut prev = NONE;
    let mut s = x.head;
    while s != NONE {
        let nx = sc.next[s as usize];
        if sc.choice[s as usize] == NO_MACHINE {
            unlink(sc, x, prev, nx);
            s = nx;
            continue;
        }
        let task = &v.tasks[sc.slots[s as usize] as usize];
        sc.key[s as usize] = match c2 {
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
        prev = s;
        s = nx;
    }
}

/// Removes the slot after `prev` (the head if `prev` is `NONE`), whose successor is `nx`.
fn unlink(sc: &mut Scratch<'_>, x: &mut TypeState, prev: u32, nx: u32) {
    if prev == NONE {
        x.head = nx;
    } else {
        sc.next[prev as usize] = nx;
    }
}

/// Type state `x`'s best task on its first machine `m` (second completion `c2`), from the
/// bounds in `sc.key`: the task of highest bound (earliest on ties) is evaluated, then every
/// task whose bound could beat the best so far (higher, or equal and earlier).
fn best_of(v: &View<'_>, sc: &mut Scratch<'_>, x: &mut TypeState, m: u16, c2: Option<Micros>) {
    let mut top = NONE;
    let mut prev = NONE;
    let mut s = x.head;
    while s != NONE {
        let nx = sc.next[s as usize];
        if sc.choice[s as usize] == NO_MACHINE {
            unlink(sc, x, prev, nx);
            s = nx;
            continue;
        }
        if top == NONE || sc.key[top as usize] < sc.key[s as usize] {
            top = s;
        }
        prev = s;
        s = nx;
    }
    let (mut h, mut hs) = (top, sufferage(v, sc.slots[top as usize], m, c2));
    let mut s = x.head;
    while s != NONE {
        let b = sc.key[s as usize];
        if s != top && (b > hs || (b == hs && s < h)) {
            let suff = sufferage(v, sc.slots[s as usize], m, c2);
            if suff > hs || (suff == hs && s < h) {
                (h, hs) = (s, suff);
            }
        }
        s = sc.next[s as usize];
    }
    x.best = h;
    x.best_suff = hs;
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

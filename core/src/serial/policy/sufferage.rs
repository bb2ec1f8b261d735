//! Sufferage (§2.4.3, after Maheswaran et al.): in each pass every unmapped task finds its
//! best machine (highest utility, which is its first completion) and its sufferage, the
//! best utility minus the second best over the other machines (the best itself when only
//! one machine can run it). A task claims its best machine; a later claimant with a strictly
//! higher sufferage displaces the holder, which waits for the next pass. At the end of the
//! pass every claim is assigned (in machine order) and the ready times move; passes repeat
//! until every task is mapped. Tasks are visited in arrival order, so equal sufferages go to
//! the earlier task.
//!
//! Computed without evaluating most sufferages, and without visiting most tasks. A task's
//! first machine, first completion and second completion depend on its type alone (one
//! walk over the machine types per type and pass). Within an event the completions only
//! move later, so each task keeps a bound on its sufferage that lasts
//! (`utility_bound::lasting`: what its curve can still fall, times `min(rate x gap, 1)`)
//! until the type's second completion reaches the end of the task's curve interval. Each
//! type keeps its unmapped tasks sorted by that bound's scale and the earliest such end;
//! only a type whose second completion has reached it is walked again to renew the bounds.
//! A pass bounds each type as a whole from its first task, its largest rate and margin,
//! visits the types in the order of those bounds, skips every type that cannot beat its
//! machine's holder, and in the others stops at the first task whose scale cannot; the
//! tasks left in between are evaluated only if their own bound can win (a higher
//! sufferage, or an equal one from an earlier task). The holders are those of the textbook
//! pass: the task of highest sufferage on each machine, the earliest on ties.
//!
//! The storage: `next[..n]` holds the slots by type (each type's run sorted by scale),
//! `key` each slot's scale, `tree[2s..2s + 2]` its rate's bits, `choice` marks it mapped.
//!
//! More task types than the per-type table holds fall back to the per-task pass
//! (`per_task`): the same decisions, each task's completions computed for it.

use crate::serial::env::MAX_SERIAL_MACHINES;
use crate::serial::queue::NONE;
use crate::serial::two_stage::Scratch;
use crate::serial::utility_bound::{self, factor};
use crate::serial::view::{View, NO_MACHINE};
use crate::units::Micros;

/// Most task types the per-type pass keeps lists for (more: `per_task`).
const MAX_TYPES: usize = 256;

/// One task type's run of unmapped tasks and its bounds.
#[derive(Clone, Copy)]
struct TypeRun {
    /// Its slots are `next[front..end]` (mapped ones skipped), sorted by scale, highest
    /// first.
    front: u32,
    end: u32,
    /// Its unmapped tasks.
    live: u32,
    /// Machines that can run it (the textbook count of evaluations per task and pass).
    eligible: u64,
    /// The largest rate and margin of its tasks' bounds, which hold while its second
    /// completion is before `until`.
    rate: f64,
    margin: f64,
    until: Micros,
    /// This pass: its first machine, second completion, their gap in minutes, and the
    /// bound on all its tasks' sufferages.
    m: u16,
    c2: Option<Micros>,
    dm: f64,
    bound: f64,
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
    let mut tr = [TypeRun {
        front: 0,
        end: 0,
        live: 0,
        eligible: 0,
        rate: 0.0,
        margin: 0.0,
        // Renewed at the first pass.
        until: Micros::ZERO,
        m: NO_MACHINE,
        c2: None,
        dm: 0.0,
        bound: 0.0,
    }; MAX_TYPES];
    // The runs: counted, placed, then filled in arrival order.
    for s in 0..n {
        let t = sc.slots[s];
        let x = &mut tr[v.tasks[t as usize].ty as usize];
        if x.live == 0 {
            x.eligible = v.eligible(t);
        }
        x.live += 1;
        // `choice` marks a task unmapped (0) or mapped (NO_MACHINE).
        sc.choice[s] = 0;
    }
    let mut at = 0u32;
    for x in tr.iter_mut().take(types) {
        (x.front, x.end) = (at, at);
        at += x.live;
    }
    for s in 0..n {
        let x = &mut tr[v.tasks[sc.slots[s] as usize].ty as usize];
        sc.next[x.end as usize] = s as u32;
        x.end += 1;
    }
    let mut left = n;
    let mut evals = 0u64;
    // Each machine's holder (slot) and its sufferage.
    let mut claim = [NONE; MAX_SERIAL_MACHINES];
    let mut held = [0.0f64; MAX_SERIAL_MACHINES];
    // The live types, in the order a pass visits them.
    let mut order = [0u16; MAX_TYPES];
    while left > 0 {
        for c in claim.iter_mut().take(machines) {
            *c = NONE;
        }
        let mut live_types = 0usize;
        for (ty, x) in tr.iter_mut().enumerate().take(types) {
            if x.live == 0 {
                continue;
            }
            evals += x.live as u64 * x.eligible;
            let Some(((m, c1), c2)) = v.type_two_completions(ty as u16) else {
                // No machine can run these tasks (SerialEnv::check rules this out).
                for p in x.front..x.end {
                    let s = sc.next[p as usize] as usize;
                    if sc.choice[s] != NO_MACHINE {
                        sc.choice[s] = NO_MACHINE;
                        left -= 1;
                    }
                }
                x.live = 0;
                continue;
            };
            (x.m, x.c2) = (m, c2);
            while sc.choice[sc.next[x.front as usize] as usize] == NO_MACHINE {
                x.front += 1;
            }
            x.bound = match c2 {
                Some(c2) => {
                    if c2 >= x.until {
                        renew(v, sc, x, c1, c2);
                    }
                    x.dm = (c2 - c1).as_mins_f64();
                    sc.key[sc.next[x.front as usize] as usize] * factor(x.rate, x.dm) + x.margin
                }
                // Sufferage is the best utility itself: no bound.
                None => f64::INFINITY,
            };
            order[live_types] = ty as u16;
            live_types += 1;
        }
        let order = &mut order[..live_types];
        order.sort_unstable_by(|&a, &b| {
            let (a, b) = (&tr[a as usize], &tr[b as usize]);
            b.bound.total_cmp(&a.bound)
        });
        for &ty in order.iter() {
            let x = &tr[ty as usize];
            let m = x.m as usize;
            if claim[m] != NONE && x.bound < held[m] {
                continue;
            }
            let whole = factor(x.rate, x.dm);
            for p in x.front..x.end {
                let s = sc.next[p as usize];
                if sc.choice[s as usize] == NO_MACHINE {
                    continue;
                }
                let (h, hs) = (claim[m], held[m]);
                if h != NONE && x.c2.is_some() {
                    let scale = sc.key[s as usize];
                    // Every task after this one has a scale at most this one's.
                    if scale * whole + x.margin < hs {
                        break;
                    }
                    let b = scale * factor(rate(sc, s), x.dm) + x.margin;
                    if !can_beat(b, s, hs, h) {
                        continue;
                    }
                }
                let suff = sufferage(v, sc.slots[s as usize], x.m, x.c2);
                if h == NONE || suff > hs || (suff == hs && s < h) {
                    claim[m] = s;
                    held[m] = suff;
                }
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
            tr[v.tasks[t as usize].ty as usize].live -= 1;
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

/// Slot `s`'s bound's rate (its bits in `tree[2s..2s + 2]`).
#[inline]
fn rate(sc: &Scratch<'_>, s: u32) -> f64 {
    let i = 2 * s as usize;
    f64::from_bits((sc.tree[i] as u64) << 32 | sc.tree[i + 1] as u64)
}

/// Renews the bounds of type run `x`'s unmapped tasks for first completion `c1` and second
/// `c2`: packs them to the front of the run, bounds each (`utility_bound::lasting`) and
/// sorts them by scale, highest first (earlier slot on ties).
fn renew(v: &View<'_>, sc: &mut Scratch<'_>, x: &mut TypeRun, c1: Micros, c2: Micros) {
    let start = x.front;
    let mut w = start;
    (x.rate, x.margin, x.until) = (0.0, 0.0, Micros::MAX);
    for p in x.front..x.end {
        let s = sc.next[p as usize];
        if sc.choice[s as usize] == NO_MACHINE {
            continue;
        }
        sc.next[w as usize] = s;
        w += 1;
        let t = sc.slots[s as usize];
        let task = &v.tasks[t as usize];
        let (a1, a2) = (
            c1.saturating_sub(task.arrival),
            c2.saturating_sub(task.arrival),
        );
        let l = utility_bound::lasting(&task.curve, v.env.classes, a1, a2, || v.utility(t, c1));
        sc.key[s as usize] = l.scale;
        let bits = l.rate.to_bits();
        let i = 2 * s as usize;
        (sc.tree[i], sc.tree[i + 1]) = ((bits >> 32) as u32, bits as u32);
        x.rate = x.rate.max(l.rate);
        x.margin = x.margin.max(l.margin);
        x.until = x.until.min(task.arrival.saturating_add(l.until));
    }
    x.end = w;
    let key = &*sc.key;
    sc.next[start as usize..w as usize]
        .sort_unstable_by(|&a, &b| key[b as usize].total_cmp(&key[a as usize]).then(a.cmp(&b)));
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

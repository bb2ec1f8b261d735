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
//! first machine, first completion and second completion depend on its type alone (kept
//! from one pass to the next, `View::kept_two_completions`: a walk over the machine types
//! only when the runner-up's machine type took a task or the first type fell behind it). Within an event the completions only
//! move later, so each task keeps a bound on its sufferage that lasts
//! (`utility_bound::lasting`: what its curve can still fall, times `factor(rate, gap)`,
//! and past one step the step itself at once)
//! until the type's second completion reaches the end of the task's curve interval; what
//! it can still fall also decays, at least at the smallest rate of its sub-run, as the
//! first completion moves on. Each type keeps its unmapped tasks in sub-runs by rate, each
//! sorted by the bound's scale, and the earliest such end; only a type whose second
//! completion has reached it is walked again to renew the bounds. A pass bounds each type
//! as a whole from each sub-run's first task, walks the type of highest bound on each
//! machine first, then every other type that can beat its machine's holder; a walk stops
//! in each sub-run at the first task whose scale cannot win, and evaluates the tasks before
//! it only if their own bound can (a higher sufferage, or an equal one from an earlier
//! task). The holders are those of the textbook pass: the task of highest sufferage on
//! each machine, the earliest on ties.
//!
//! The storage: `next[..n]` holds the slots by type and sub-run (each sorted by scale),
//! `key` each slot's scale, `tree[2s..2s + 2]` its rate's bits (in sub-run 0, past a step:
//! the rate rounded up and the part of the scale that goes at that rate rounded down, as
//! `f32`s), `choice` marks it mapped (else holds its sub-run).
//!
//! More task types than the per-type table holds fall back to the per-task pass
//! (`per_task`): the same decisions, each task's completions computed for it.

use crate::serial::env::MAX_SERIAL_MACHINES;
use crate::serial::queue::NONE;
use crate::serial::two_stage::Scratch;
use crate::serial::utility_bound::{self, factor, Lasting};
use crate::serial::view::{Kept, View, NO_MACHINE};
use crate::units::Micros;

/// Most task types the per-type pass keeps lists for (more: `per_task`).
const MAX_TYPES: usize = 256;

/// Sub-runs a type's tasks are split into by their bound's rate, so that a slowly decaying
/// task's bound is not scaled by a fast one's rate: past a step (bounds that do not decay as
/// the first completion moves on), and rates from `SPLITS[b - 1]` up (Table C.1's four
/// urgency levels fall in separate sub-runs; the splits only affect speed, never decisions).
const SUBRUNS: usize = 5;
const SPLITS: [f64; SUBRUNS - 2] = [0.3, 0.13, 0.04];

/// The sub-run for a bound.
#[inline]
fn subrun(l: &Lasting) -> usize {
    if !l.decays || l.rate == f64::INFINITY {
        0
    } else {
        let rate = l.rate;
        // SPLITS descend: the rates below a split are below every earlier one.
        1 + SPLITS.iter().map(|&x| (rate < x) as usize).sum::<usize>()
    }
}

/// One task type's unmapped tasks and its bounds.
#[derive(Clone, Copy)]
struct TypeRun {
    /// Its slots are `next[start..start + live]` at a renewal, then each sub-run's
    /// `next[front[b]..end[b]]` (mapped ones skipped), each sorted by scale, highest first.
    start: u32,
    front: [u32; SUBRUNS],
    end: [u32; SUBRUNS],
    /// Each sub-run's smallest and largest rate (the smallest over tasks that can lose
    /// anything).
    lo: [f64; SUBRUNS],
    hi: [f64; SUBRUNS],
    /// Sub-run 0's bounds as a whole: every task's `scale - part` is at most `step0`, its
    /// part at most `part0`, the rate of a part at most `rate0` (0 with no part).
    step0: f64,
    part0: f64,
    rate0: f64,
    /// Its unmapped tasks.
    live: u32,
    /// Whether a task of it was mapped (or its bounds renewed) since its sub-runs' fronts
    /// were moved past the mapped tasks: else they still are.
    stale: bool,
    /// Machines that can run it (the textbook count of evaluations per task and pass).
    eligible: u64,
    /// The largest margin of its tasks' bounds, which hold while its second completion is
    /// before `until`; its first completion when they were made.
    margin: f64,
    until: Micros,
    made: Micros,
    /// Its first two completions at the last pass.
    kept: Kept,
    /// This pass: its first machine, first and second completions, the gap between its
    /// completions and the time since the bounds were made (minutes), and the bound on all
    /// its tasks' sufferages (before their decay since).
    m: u16,
    c1: Micros,
    c2: Option<Micros>,
    dm: f64,
    since: f64,
    bound: f64,
    /// This pass: each sub-run's bound (before its decay since; -infinity when empty).
    sub: [f64; SUBRUNS],
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
        start: 0,
        front: [0; SUBRUNS],
        end: [0; SUBRUNS],
        lo: [0.0; SUBRUNS],
        hi: [f64::INFINITY; SUBRUNS],
        step0: f64::INFINITY,
        part0: 0.0,
        rate0: 0.0,
        live: 0,
        stale: true,
        eligible: 0,
        margin: 0.0,
        // Renewed at the first pass.
        until: Micros::ZERO,
        made: Micros::ZERO,
        kept: Kept::NONE,
        m: NO_MACHINE,
        c1: Micros::ZERO,
        c2: None,
        dm: 0.0,
        since: 0.0,
        bound: 0.0,
        sub: [f64::NEG_INFINITY; SUBRUNS],
    }; MAX_TYPES];
    // The runs: counted, placed, then filled in arrival order (all in sub-run 0 until
    // the first renewal).
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
        x.start = at;
        x.front = [at; SUBRUNS];
        x.end = [at; SUBRUNS];
        at += x.live;
    }
    for s in 0..n {
        let x = &mut tr[v.tasks[sc.slots[s] as usize].ty as usize];
        sc.next[x.end[0] as usize] = s as u32;
        x.end[0] += 1;
    }
    let mut left = n;
    let mut evals = 0u64;
    // Each machine's holder (slot) and its sufferage.
    let mut claim = [NONE; MAX_SERIAL_MACHINES];
    let mut held = [0.0f64; MAX_SERIAL_MACHINES];
    // The live types of a pass.
    let mut order = [0u16; MAX_TYPES];
    while left > 0 {
        for c in claim.iter_mut().take(machines) {
            *c = NONE;
        }
        let mut live_types = 0usize;
        // Every live type was visited at the last pass: what it kept then is updated by the
        // machine types that took a task since.
        let moved = v.moved();
        for (ty, x) in tr.iter_mut().enumerate().take(types) {
            if x.live == 0 {
                continue;
            }
            evals += x.live as u64 * x.eligible;
            let Some(((m, c1), c2)) = v.kept_two_completions(ty as u16, &mut x.kept, moved) else {
                // No machine can run these tasks (SerialEnv::check rules this out).
                for b in 0..SUBRUNS {
                    for p in x.front[b]..x.end[b] {
                        let s = sc.next[p as usize] as usize;
                        if sc.choice[s] != NO_MACHINE {
                            sc.choice[s] = NO_MACHINE;
                            left -= 1;
                        }
                    }
                }
                x.live = 0;
                continue;
            };
            (x.m, x.c1, x.c2) = (m, c1, c2);
            x.bound = match c2 {
                Some(c2) => {
                    if c2 >= x.until {
                        // Renewed fronts are at unmapped tasks.
                        renew(v, sc, x, c1, c2);
                        x.stale = false;
                    }
                    x.dm = (c2 - c1).as_mins_f64();
                    x.since = c1.saturating_sub(x.made).as_mins_f64();
                    if x.stale {
                        x.stale = false;
                        for b in 0..SUBRUNS {
                            // Past the tasks mapped since, to the sub-run's first unmapped one.
                            let (mut f, e) = (x.front[b], x.end[b]);
                            while f < e && sc.choice[sc.next[f as usize] as usize] == NO_MACHINE {
                                f += 1;
                            }
                            x.front[b] = f;
                        }
                    }
                    let mut bound = f64::NEG_INFINITY;
                    for b in 0..SUBRUNS {
                        let (f, e) = (x.front[b], x.end[b]);
                        x.sub[b] = if f < e {
                            let scale = sc.key[sc.next[f as usize] as usize];
                            let whole = if b == 0 {
                                scale.min(x.step0 + x.part0 * factor(x.rate0, x.dm))
                            } else {
                                scale * factor(x.hi[b], x.dm)
                            };
                            whole + x.margin
                        } else {
                            f64::NEG_INFINITY
                        };
                        bound = bound.max(x.sub[b]);
                    }
                    bound
                }
                // Sufferage is the best utility itself: no bound.
                None => {
                    for b in 0..SUBRUNS {
                        while x.front[b] < x.end[b]
                            && sc.choice[sc.next[x.front[b] as usize] as usize] == NO_MACHINE
                        {
                            x.front[b] += 1;
                        }
                    }
                    f64::INFINITY
                }
            };
            order[live_types] = ty as u16;
            live_types += 1;
        }
        // The type of highest bound on each machine first (a strong holder early), then
        // the others, each skipped if it cannot beat its machine's holder.
        let mut first = [NONE; MAX_SERIAL_MACHINES];
        for &ty in order[..live_types].iter() {
            let (m, bound) = (tr[ty as usize].m as usize, tr[ty as usize].bound);
            if first[m] == NONE || tr[first[m] as usize].bound < bound {
                first[m] = ty as u32;
            }
        }
        for &ty in first.iter().take(machines) {
            if ty != NONE {
                let x = &tr[ty as usize];
                walk(v, sc, x, &mut claim[x.m as usize], &mut held[x.m as usize]);
            }
        }
        for &ty in order[..live_types].iter() {
            let x = &tr[ty as usize];
            let m = x.m as usize;
            if first[m] == ty as u32 || (claim[m] != NONE && x.bound < held[m]) {
                continue;
            }
            walk(v, sc, x, &mut claim[m], &mut held[m]);
        }
        left -= assign(v, sc, &claim[..machines], emit, |ty| {
            let x = &mut tr[ty as usize];
            x.live -= 1;
            x.stale = true;
        });
    }
    evals
}

/// Visits type `x`'s tasks that could displace machine holder `h` (of sufferage `hs`),
/// making each that does the holder: in each sub-run, in order of scale, until a scale
/// (decayed since the bounds were made) cannot win.
fn walk(v: &View<'_>, sc: &Scratch<'_>, x: &TypeRun, h: &mut u32, hs: &mut f64) {
    let Some(c2) = x.c2 else {
        for b in 0..SUBRUNS {
            for p in x.front[b]..x.end[b] {
                let s = sc.next[p as usize];
                if sc.choice[s as usize] != NO_MACHINE {
                    hold(h, hs, s, sufferage_at(v, sc.slots[s as usize], x.c1, None));
                }
            }
        }
        return;
    };
    for b in 0..SUBRUNS {
        if x.front[b] >= x.end[b] {
            continue;
        }
        let whole = factor(x.hi[b], x.dm);
        if *h != NONE && x.sub[b] < *hs {
            continue;
        }
        // The first completion has moved on since the bounds were made: what each task
        // can still lose has decayed at least at its sub-run's smallest rate.
        let decay = if b == 0 || x.since == 0.0 || x.lo[b] == 0.0 {
            1.0
        } else {
            libm::exp(-x.lo[b] * x.since)
        };
        for p in x.front[b]..x.end[b] {
            let s = sc.next[p as usize];
            if sc.choice[s as usize] == NO_MACHINE {
                continue;
            }
            if *h != NONE {
                let scale = sc.key[s as usize] * decay;
                // Every task after this one has a scale at most this one's.
                if scale * whole + x.margin < *hs {
                    break;
                }
                let bound = if b == 0 {
                    // Past a step: the step at once, the rest at the later interval's rate.
                    let (rate, part) = step_parts(sc, s);
                    scale - part * (1.0 - factor(rate, x.dm)) + x.margin
                } else {
                    scale * factor(rate(sc, s), x.dm) + x.margin
                };
                if !can_beat(bound, s, *hs, *h) {
                    continue;
                }
            }
            hold(
                h,
                hs,
                s,
                sufferage_at(v, sc.slots[s as usize], x.c1, Some(c2)),
            );
        }
    }
}

/// The end of a pass: each machine's holder (slot, `NONE` for none) is assigned to it, in
/// machine order, and marked mapped; `mapped` hears each one's task type. Returns how
/// many were assigned.
fn assign(
    v: &mut View<'_>,
    sc: &mut Scratch<'_>,
    claim: &[u32],
    emit: &mut dyn FnMut(u32, u16),
    mut mapped: impl FnMut(u16),
) -> usize {
    let mut done = 0;
    for (m, &s) in claim.iter().enumerate() {
        if s == NONE {
            continue;
        }
        let t = sc.slots[s as usize];
        v.take(t, m as u16);
        emit(t, m as u16);
        sc.choice[s as usize] = NO_MACHINE;
        mapped(v.tasks[t as usize].ty);
        done += 1;
    }
    done
}

/// Slot `s` of sufferage `suff` takes machine holder `h` (of sufferage `hs`) if there is
/// none, or if it suffers more, or as much and is the earlier task.
#[inline]
fn hold(h: &mut u32, hs: &mut f64, s: u32, suff: f64) {
    if *h == NONE || suff > *hs || (suff == *hs && s < *h) {
        *h = s;
        *hs = suff;
    }
}

/// Whether a task (slot `s`) whose sufferage is at most `b` could displace holder `h` of
/// sufferage `hs`: a higher sufferage, or an equal one from an earlier task.
#[inline]
fn can_beat(b: f64, s: u32, hs: f64, h: u32) -> bool {
    b > hs || (b == hs && s < h)
}

/// Slot `s`'s bound's rate (its bits in `tree[2s..2s + 2]`), outside sub-run 0.
#[inline]
fn rate(sc: &Scratch<'_>, s: u32) -> f64 {
    let i = 2 * s as usize;
    f64::from_bits((sc.tree[i] as u64) << 32 | sc.tree[i + 1] as u64)
}

/// Slot `s`'s bound in sub-run 0: an upper bound on its rate and a lower bound on the part
/// of its scale that goes at that rate (`tree[2s]`, `tree[2s + 1]`), so that `scale - part
/// * (1 - factor(rate, dm))` is at least its bound `step + decaying * factor(rate, dm)`.
#[inline]
fn step_parts(sc: &Scratch<'_>, s: u32) -> (f64, f64) {
    let i = 2 * s as usize;
    (
        f32::from_bits(sc.tree[i]) as f64,
        f32::from_bits(sc.tree[i + 1]) as f64,
    )
}

/// `x` as an `f32` no smaller (`up`) or no larger than it.
#[inline]
fn to_f32(x: f64, up: bool) -> f32 {
    let y = x as f32;
    if up && (y as f64) < x {
        y.next_up()
    } else if !up && (y as f64) > x {
        y.next_down()
    } else {
        y
    }
}

/// Renews the bounds of type `x`'s unmapped tasks for first completion `c1` and second
/// `c2`: bounds each (`utility_bound::lasting`), splits them into sub-runs by rate (through
/// `prev`) and sorts each by scale, highest first (earlier slot on ties).
fn renew(v: &View<'_>, sc: &mut Scratch<'_>, x: &mut TypeRun, c1: Micros, c2: Micros) {
    let start = x.start;
    let mut count = [0u32; SUBRUNS];
    let mut w = start;
    (x.margin, x.until, x.made) = (0.0, Micros::MAX, c1);
    (x.lo, x.hi) = ([f64::INFINITY; SUBRUNS], [0.0; SUBRUNS]);
    (x.step0, x.part0, x.rate0) = (0.0, 0.0, 0.0);
    for b in 0..SUBRUNS {
        for p in x.front[b]..x.end[b] {
            let s = sc.next[p as usize];
            if sc.choice[s as usize] == NO_MACHINE {
                continue;
            }
            sc.prev[w as usize] = s;
            w += 1;
            let t = sc.slots[s as usize];
            let task = &v.tasks[t as usize];
            let (a1, a2) = (
                c1.saturating_sub(task.arrival),
                c2.saturating_sub(task.arrival),
            );
            let l = utility_bound::lasting(&task.curve, v.env.classes, a1, a2, || v.utility(t, c1));
            let r = subrun(&l);
            let i = 2 * s as usize;
            if r == 0 {
                sc.key[s as usize] = l.step + l.scale;
                // At an infinite rate all of it may go at once (and no part, so that an
                // infinite scale stays infinite, never NaN).
                let part = if l.rate == f64::INFINITY {
                    0.0
                } else {
                    l.scale
                };
                let (rate32, part32) = (to_f32(l.rate, true), to_f32(part, false));
                (sc.tree[i], sc.tree[i + 1]) = (rate32.to_bits(), part32.to_bits());
                x.step0 = x.step0.max(sc.key[s as usize] - part32 as f64);
                if part32 > 0.0 {
                    x.part0 = x.part0.max(part32 as f64);
                    x.rate0 = x.rate0.max(rate32 as f64);
                }
            } else {
                sc.key[s as usize] = l.scale;
                let bits = l.rate.to_bits();
                (sc.tree[i], sc.tree[i + 1]) = ((bits >> 32) as u32, bits as u32);
            }
            sc.choice[s as usize] = r as u16;
            count[r] += 1;
            if l.scale > 0.0 {
                x.lo[r] = x.lo[r].min(l.rate);
            }
            // Sub-run 0's bounds are walked as if the whole scale could go at once.
            x.hi[r] = x.hi[r].max(if r == 0 { f64::INFINITY } else { l.rate });
            x.margin = x.margin.max(l.margin);
            x.until = x.until.min(task.arrival.saturating_add(l.until));
        }
    }
    let mut at = start;
    for (b, &c) in count.iter().enumerate() {
        x.front[b] = at;
        x.end[b] = at;
        at += c;
        if x.lo[b] == f64::INFINITY {
            x.lo[b] = 0.0;
        }
    }
    for p in start..w {
        let s = sc.prev[p as usize];
        let r = sc.choice[s as usize] as usize;
        sc.next[x.end[r] as usize] = s;
        x.end[r] += 1;
    }
    for b in 0..SUBRUNS {
        sort_by_scale(&mut sc.next[x.front[b] as usize..x.end[b] as usize], sc.key);
    }
}

/// Sorts slots by `key`, highest first, the earlier slot first on ties. A renewed sub-run
/// is mostly short: an insertion sort there, the library's sort for long ones.
fn sort_by_scale(run: &mut [u32], key: &[f64]) {
    // `a` goes before `b`.
    let before = |a: u32, b: u32| {
        key[a as usize]
            .total_cmp(&key[b as usize])
            .then(b.cmp(&a))
            .is_gt()
    };
    if run.len() > 24 {
        run.sort_unstable_by(|&a, &b| key[b as usize].total_cmp(&key[a as usize]).then(a.cmp(&b)));
        return;
    }
    for i in 1..run.len() {
        let s = run[i];
        let mut j = i;
        while j > 0 && before(s, run[j - 1]) {
            run[j] = run[j - 1];
            j -= 1;
        }
        run[j] = s;
    }
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
        left -= assign(v, sc, &claim[..machines], emit, |_| {});
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
    sufferage_at(v, t, v.completion(t, m), c2)
}

/// Task `t`'s sufferage for its first completion `c1` and second `c2`.
#[inline]
fn sufferage_at(v: &View<'_>, t: u32, c1: Micros, c2: Option<Micros>) -> f64 {
    v.utility(t, c1) - c2.map_or(0.0, |c| v.utility(t, c))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::sort_by_scale;
    use proptest::prelude::*;
    use std::vec::Vec;

    proptest! {
        /// The insertion sort and the library's sort give one order: scale descending, the
        /// earlier slot first on ties (few distinct scales, so that ties are common).
        #[test]
        fn sorting_by_scale_is_the_library_sort(
            keys in proptest::collection::vec(0u8..6, 0..40),
            order in proptest::collection::vec(any::<u32>(), 0..40),
        ) {
            let key: Vec<f64> = keys.iter().map(|&k| if k == 5 { f64::INFINITY } else { k as f64 / 4.0 }).collect();
            let mut run: Vec<u32> = (0..key.len() as u32).collect();
            for (i, &o) in order.iter().enumerate().take(run.len()) {
                let j = o as usize % run.len();
                run.swap(i, j);
            }
            let mut want = run.clone();
            want.sort_unstable_by(|&a, &b| key[b as usize].total_cmp(&key[a as usize]).then(a.cmp(&b)));
            sort_by_scale(&mut run, &key);
            prop_assert_eq!(run, want);
        }
    }
}

//! Sufferage (§2.4.3, after Maheswaran et al.): in each pass every unmapped task finds its
//! best machine (highest utility, which is its first completion) and its sufferage, the
//! best utility minus the second best over the other machines (the best itself when only
//! one machine can run it). A task claims its best machine; a later claimant with a strictly
//! higher sufferage displaces the holder, which waits for the next pass. At the end of the
//! pass every claim is assigned (in machine order) and the ready times move; passes repeat
//! until every task is mapped. Tasks are visited in arrival order, so equal sufferages go to
//! the earlier task.
//!
//! Computed without evaluating most sufferages: a pass first bounds every task's sufferage
//! from its curve's levels (`utility_bound`, no exponential), evaluates the task of highest
//! bound on each claimed machine as the provisional holder, then evaluates, in arrival
//! order, only the tasks whose bound could still beat their machine's holder (a higher
//! sufferage, or an equal one from an earlier task). The holders are those of the textbook
//! pass: the task of highest sufferage on each machine, the earliest on ties.

use crate::serial::env::MAX_SERIAL_MACHINES;
use crate::serial::queue::NONE;
use crate::serial::two_stage::Scratch;
use crate::serial::utility_bound;
use crate::serial::view::{View, NO_MACHINE};
use crate::units::Micros;

/// Most task types whose completions a pass computes once per type (more: once per task).
const MAX_TYPES: usize = 256;

/// A task's first (machine, completion) and second completion.
type Two = Option<((u16, Micros), Option<Micros>)>;

pub(super) fn run(
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
    // Each machine's holder and its sufferage.
    let mut claim = [NONE; MAX_SERIAL_MACHINES];
    let mut held = [0.0f64; MAX_SERIAL_MACHINES];
    // A task's first and second completions depend on its type alone: computed once per
    // type and pass (when the types fit the table), as are the eligible machines.
    let by_type = v.env.task_types() <= MAX_TYPES;
    let mut firsts: [(u32, Two); MAX_TYPES] = [(u32::MAX, None); MAX_TYPES];
    let mut eligible = [u64::MAX; MAX_TYPES];
    let mut pass = 0u32;
    while left > 0 {
        for c in claim.iter_mut().take(machines) {
            *c = NONE;
        }
        // Sweep 1: every task's completions and the bound on its sufferage (in `key`); the
        // task of highest bound on each machine (earliest on ties) is its first holder.
        let mut any = false;
        for s in 0..n {
            if sc.choice[s] == NO_MACHINE {
                continue;
            }
            let t = sc.slots[s];
            let two = if by_type {
                let ty = v.tasks[t as usize].ty as usize;
                if eligible[ty] == u64::MAX {
                    eligible[ty] = v.eligible(t);
                }
                evals += eligible[ty];
                if firsts[ty].0 != pass {
                    firsts[ty] = (pass, v.two_completions(t));
                }
                firsts[ty].1
            } else {
                evals += v.eligible(t);
                v.two_completions(t)
            };
            let Some(((m, c1), c2)) = two else {
                // No machine can run it (SerialEnv::check rules this out).
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
                // Sufferage is the best utility itself.
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
                held[m] = sufferage(v, t, m as u16, second(v, &firsts, by_type, t));
            }
        }
        // Sweep 2: only the tasks whose bound can beat their machine's holder.
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
            let suff = sufferage(v, t, m, second(v, &firsts, by_type, t));
            if suff > hs || (suff == hs && (s as u32) < h) {
                claim[m as usize] = s as u32;
                held[m as usize] = suff;
            }
        }
        pass += 1;
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

/// Task `t`'s second completion this pass (from the per-type table when it is kept).
fn second(v: &View<'_>, firsts: &[(u32, Two)], by_type: bool, t: u32) -> Option<Micros> {
    let two = if by_type {
        firsts[v.tasks[t as usize].ty as usize].1
    } else {
        v.two_completions(t)
    };
    two.and_then(|(_, c2)| c2)
}

/// Task `t`'s sufferage on its first machine `m`: its utility there minus its utility at
/// its second completion `c2` (the utility itself if no other machine can run it).
fn sufferage(v: &View<'_>, t: u32, m: u16, c2: Option<Micros>) -> f64 {
    v.utility(t, v.completion(t, m)) - c2.map_or(0.0, |c| v.utility(t, c))
}

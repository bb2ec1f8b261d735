//! Sufferage (§2.4.3, after Maheswaran et al.): in each pass every unmapped task finds its
//! best machine (highest utility, which is its first completion) and its sufferage, the
//! best utility minus the second best over the other machines (the best itself when only
//! one machine can run it). A task claims its best machine; a later claimant with a strictly
//! higher sufferage displaces the holder, which waits for the next pass. At the end of the
//! pass every claim is assigned (in machine order) and the ready times move; passes repeat
//! until every task is mapped. Tasks are visited in arrival order, so equal sufferages go to
//! the earlier task.

use crate::serial::env::MAX_SERIAL_MACHINES;
use crate::serial::queue::NONE;
use crate::serial::two_stage::Scratch;
use crate::serial::view::{View, NO_MACHINE};

/// Most task types whose completions a pass computes once per type (more: once per task).
const MAX_TYPES: usize = 256;

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
    let mut claim = [NONE; MAX_SERIAL_MACHINES];
    // A task's first and second completions depend on its type alone: computed once per
    // type and pass (when the types fit the table), as are the eligible machines.
    let by_type = v.env.task_types() <= MAX_TYPES;
    let mut firsts = [(u32::MAX, None); MAX_TYPES];
    let mut eligible = [u64::MAX; MAX_TYPES];
    let mut pass = 0u32;
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
            let u1 = v.utility(t, c1);
            let suff = u1 - c2.map_or(0.0, |c| v.utility(t, c));
            sc.key[s] = suff;
            let holder = claim[m as usize];
            if holder == NONE || sc.key[holder as usize] < suff {
                claim[m as usize] = s as u32;
                any = true;
            }
        }
        if !any {
            break;
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

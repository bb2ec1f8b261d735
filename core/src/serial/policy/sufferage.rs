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

//! Chapter 4's FCFS and LCFS heuristics (§4.3.4), plain and prioritized, in their P-state 0
//! and all-P-states versions: tasks one at a time in arrival order (LCFS: newest first;
//! prioritized: the highest starting utility's group first, arrival order within it), each to
//! the valid machine of earliest ready time (polled: every available machine is ready now,
//! so the lowest index) whose P-state 0 passes the filter; the all-P-states version tries
//! P-states 0, 1, 2 on each machine in that order and takes the first that passes.

use super::{Decision, EScratch};
use crate::serial::env::MAX_SERIAL_MACHINE_TYPES;
use crate::serial::options::{OptionView, NO_MACHINE};
use crate::units::Micros;

pub(super) fn run(
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    newest_first: bool,
    prioritized: bool,
    all_pstates: bool,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    // The order: slots are in arrival order (task index); the key is the priority group.
    for s in 0..n {
        sc.key[s] = if prioritized {
            v.priority(sc.slots[s])
        } else {
            0.0
        };
    }
    let slots = &mut sc.slots[..n];
    let key = &sc.key[..n];
    // Sort slot positions by (priority desc, arrival asc or desc) through `choice`.
    let order = &mut sc.choice[..n];
    for (s, o) in order.iter_mut().enumerate() {
        *o = s as u32;
    }
    order.sort_unstable_by(|&a, &b| {
        let (ka, kb) = (key[a as usize], key[b as usize]);
        kb.total_cmp(&ka).then_with(|| {
            let (ta, tb) = (slots[a as usize], slots[b as usize]);
            if newest_first {
                tb.cmp(&ta)
            } else {
                ta.cmp(&tb)
            }
        })
    });
    let pstates = if all_pstates { v.power.pstates } else { 1 };
    let mut evals = 0u64;
    for i in 0..n {
        let t = slots[order[i] as usize];
        let ty = v.tasks[t as usize].ty;
        // The types' earliest-ready machines, by (ready, machine).
        let mut cand = [(Micros::MAX, NO_MACHINE); MAX_SERIAL_MACHINE_TYPES];
        let mut c = 0usize;
        for j in 0..v.env.machine_types {
            let m = v.best_of(j);
            if m != NO_MACHINE && v.env.runs(ty, j) {
                cand[c] = (v.ready(m), m);
                c += 1;
            }
        }
        cand[..c].sort_unstable();
        let mut taken = None;
        'machines: for &(_, m) in &cand[..c] {
            for k in 0..pstates {
                evals += 1;
                if let Some(o) = v.valid(t, m, k) {
                    if v.passes(&o) {
                        taken = Some(o);
                        break 'machines;
                    }
                }
            }
        }
        match taken {
            Some(o) => {
                v.take(&o);
                out(t, Ok(o));
            }
            None => out(t, Err(v.why_none(t))),
        }
    }
    evals
}

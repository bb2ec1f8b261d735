//! Chapter 4's Random heuristic (§4.3.4): a uniformly random mappable task to a uniformly
//! random valid, filtered (machine, P-state) option, until no task is left (polled: or no
//! machine). Every machine counts (not only the earliest-ready of a type).

use super::{Decision, EScratch};
use crate::serial::options::OptionView;
use crate::serial::policy::below;
use rand_chacha::ChaCha8Rng;

pub(super) fn run(
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    rng: &mut ChaCha8Rng,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    let mut left = n;
    let mut evals = 0u64;
    let machines = v.env.machine_type.len() as u16;
    while left > 0 {
        if !v.any_available() {
            for &t in &sc.slots[..left] {
                out(t, Err(v.why_none(t)));
            }
            return evals;
        }
        let i = below(rng, left as u64) as usize;
        let t = sc.slots[i];
        sc.slots.swap(i, left - 1);
        left -= 1;
        let mut count = 0u64;
        for m in 0..machines {
            for k in 0..v.power.pstates {
                evals += 1;
                if v.valid(t, m, k).is_some_and(|o| v.passes(&o)) {
                    count += 1;
                }
            }
        }
        if count == 0 {
            out(t, Err(v.why_none(t)));
            continue;
        }
        let mut pick = below(rng, count);
        'pick: for m in 0..machines {
            for k in 0..v.power.pstates {
                if let Some(o) = v.valid(t, m, k).filter(|o| v.passes(o)) {
                    if pick == 0 {
                        v.take(&o);
                        out(t, Ok(o));
                        break 'pick;
                    }
                    pick -= 1;
                }
            }
        }
    }
    evals
}

//! Chapter 4's Random heuristic (§4.3.4): a uniformly random mappable task to a uniformly
//! random valid, filtered (machine, P-state) option, until no task is left (polled: or no
//! machine). Every machine counts (not only the earliest-ready of a type).
//!
//! The option drawn is the `below(count)`-th of the task's valid, passing options in
//! (machine, P-state) order. Whether an option is valid and passes depends on the machine
//! only through its type and its ready time (the task's type, the day and the energy left
//! being the same for all), and an unavailable machine has none, so the pass walks the
//! available machines only and checks the P-states once per run of machines of one type
//! ready at the same time (polled: every available machine of a type is ready now). The
//! random draws, and so the decisions, are those of the walk over every (machine, P-state).
//! Under `cfg(test)` every event of the core's tests is mapped again by that walk and
//! compared (`tests::check_against_walk`).

use super::{Decision, EScratch};
use crate::serial::env::MAX_SERIAL_MACHINES;
use crate::serial::options::OptionView;
use crate::serial::policy::below;
use crate::units::Micros;
use heapless::Vec;
use rand_chacha::ChaCha8Rng;

pub(super) fn run(
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    rng: &mut ChaCha8Rng,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    #[cfg(test)]
    {
        let walk = tests::walk(v, &sc.slots[..n], rng);
        let mut got = tests::Vec::new();
        let evals = pass(v, sc, n, rng, &mut |t, d| {
            got.push((t, d));
            out(t, d)
        });
        tests::check_against_walk(walk, &got, rng);
        evals
    }
    #[cfg(not(test))]
    pass(v, sc, n, rng, out)
}

fn pass(
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    rng: &mut ChaCha8Rng,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    let mut left = n;
    let mut evals = 0u64;
    let machines = v.env.machine_type.len() as u16;
    let pstates = v.power.pstates;
    // The available machines in index order (capacity holds: SerialEnv::check bounds them);
    // a machine leaves when a take makes it unavailable (polled).
    let mut avail: Vec<u16, MAX_SERIAL_MACHINES> = Vec::new();
    for m in 0..machines {
        if v.ready(m) != Micros::MAX {
            let _ = avail.push(m);
        }
    }
    // Per available machine (same position), the set of P-states whose option is valid and
    // passes, for the task being placed.
    let mut mask = [0u8; MAX_SERIAL_MACHINES];
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
        // The options a walk over every (machine, P-state) would evaluate.
        evals += machines as u64 * pstates as u64;
        let ty = v.tasks[t as usize].ty;
        let mut count = 0u64;
        // The last run's (machine type, ready time, P-state set).
        let mut run: Option<(u8, Micros, u8)> = None;
        for (a, &m) in avail.iter().enumerate() {
            let (j, r) = (v.env.machine_type[m as usize], v.ready(m));
            let bits = match run {
                Some((rj, rr, bits)) if rj == j && rr == r => bits,
                _ => {
                    let base = v.power.base(&v.env, ty, j);
                    let mut bits = 0u8;
                    for k in 0..pstates {
                        if v.valid_at(base, m, k).is_some_and(|o| v.passes(&o)) {
                            bits |= 1 << k;
                        }
                    }
                    run = Some((j, r, bits));
                    bits
                }
            };
            mask[a] = bits;
            count += bits.count_ones() as u64;
        }
        if count == 0 {
            out(t, Err(v.why_none(t)));
            continue;
        }
        let mut pick = below(rng, count);
        for (a, &m) in avail.iter().enumerate() {
            let c = mask[a].count_ones() as u64;
            if pick >= c {
                pick -= c;
                continue;
            }
            let base = v.power.base(&v.env, ty, v.env.machine_type[m as usize]);
            for k in 0..pstates {
                if let Some(o) = v.valid_at(base, m, k).filter(|o| v.passes(o)) {
                    if pick == 0 {
                        v.take(&o);
                        out(t, Ok(o));
                        break;
                    }
                    pick -= 1;
                }
            }
            if v.ready(m) == Micros::MAX {
                avail.remove(a);
            }
            break;
        }
    }
    evals
}

#[cfg(test)]
mod tests {
    //! The pass against the walk over every (machine, P-state) it replaces: the same draws
    //! from the same stream give the same decisions in the same order.

    extern crate std;
    use super::*;
    use crate::serial::energy_heuristic::Normalisers;
    use crate::serial::env::{SerialEnv, SerialTask};
    use crate::serial::pstate::PowerModel;
    use crate::units::MilliJoules;
    use crate::utility::{Urgency, UtilityClasses, UtilityCurve};
    use proptest::prelude::*;
    pub(super) use std::vec::Vec;

    /// The walk over every (machine, P-state), on copies: its decisions and its stream after.
    pub(super) fn walk(
        start: &OptionView<'_>,
        slots: &[u32],
        rng: &ChaCha8Rng,
    ) -> (Vec<(u32, Decision)>, ChaCha8Rng) {
        let (mut v, mut rng, mut slots) = (start.clone(), rng.clone(), slots.to_vec());
        let mut got = Vec::new();
        let mut left = slots.len();
        let machines = v.env.machine_type.len() as u16;
        while left > 0 {
            if !v.any_available() {
                for &t in &slots[..left] {
                    got.push((t, Err(v.why_none(t))));
                }
                break;
            }
            let i = below(&mut rng, left as u64) as usize;
            let t = slots[i];
            slots.swap(i, left - 1);
            left -= 1;
            let mut count = 0u64;
            for m in 0..machines {
                for k in 0..v.power.pstates {
                    if v.valid(t, m, k).is_some_and(|o| v.passes(&o)) {
                        count += 1;
                    }
                }
            }
            if count == 0 {
                got.push((t, Err(v.why_none(t))));
                continue;
            }
            let mut pick = below(&mut rng, count);
            'pick: for m in 0..machines {
                for k in 0..v.power.pstates {
                    if let Some(o) = v.valid(t, m, k).filter(|o| v.passes(o)) {
                        if pick == 0 {
                            v.take(&o);
                            got.push((t, Ok(o)));
                            break 'pick;
                        }
                        pick -= 1;
                    }
                }
            }
        }
        (got, rng)
    }

    pub(super) fn check_against_walk(
        walk: (Vec<(u32, Decision)>, ChaCha8Rng),
        got: &[(u32, Decision)],
        rng: &ChaCha8Rng,
    ) {
        assert_eq!(
            got,
            &walk.0[..],
            "Random's decisions differ from the walk's"
        );
        assert!(*rng == walk.1, "Random drew differently from the walk");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Machines of a type at equal and unequal ready times, unavailable machines, types
        /// that cannot run, energy left and filter budgets that cut some options: `run`
        /// checks itself against the walk.
        #[test]
        fn random_draws_what_the_walk_over_every_option_draws(
            per_type in prop::collection::vec(1usize..4, 1..4),
            pstates in 1u8..4,
            etc_min in prop::collection::vec(0u64..40, 36),
            apc_w in prop::collection::vec(1u32..300, 36),
            ready in prop::collection::vec(0usize..6, 12),
            tys in prop::collection::vec(0u16..3, 1..30),
            left_kj in (0u64..400, 0u64..400),
            budget_kj in 0.0f64..200.0,
            polled in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let types = per_type.len() as u8;
            let mut machine_type = Vec::new();
            for (j, &c) in per_type.iter().enumerate() {
                machine_type.extend(core::iter::repeat_n(j as u8, c));
            }
            let entries = 3 * types as usize * pstates as usize;
            // Zero minutes: the pair cannot run.
            let etc: Vec<Micros> = etc_min[..entries]
                .iter()
                .map(|&x| if x == 0 { Micros::MAX } else { Micros::from_mins(x) })
                .collect();
            let base_etc: Vec<Micros> = etc.iter().step_by(pstates as usize).copied().collect();
            let apc: Vec<u32> = apc_w[..entries].iter().map(|&w| w * 1000).collect();
            let classes = UtilityClasses::essc20();
            let env = SerialEnv {
                machine_type: &machine_type,
                machine_types: types,
                special_types: 0,
                etc: &base_etc,
                classes: &classes,
            };
            let power = PowerModel { pstates, etc: &etc, apc_mw: &apc };
            let tasks: Vec<SerialTask> = tys
                .iter()
                .map(|&ty| SerialTask {
                    ty,
                    arrival: Micros::ZERO,
                    curve: UtilityCurve::essc(8.0, Urgency::ALL[0], Micros::from_mins(10), 0),
                })
                .collect();
            let norm = Normalisers {
                max_utility: 8.0,
                max_eec_j: 1.0,
                min_eec_j: 1.0,
                min_etc_s: 1.0,
            };
            let day = (Micros::ZERO, Micros::from_hours(2));
            // Ready now, later, near or past the day's end, or unavailable.
            let at = [
                Micros::ZERO,
                Micros::ZERO,
                Micros::from_mins(30),
                Micros::from_mins(115),
                Micros::from_hours(3),
                Micros::MAX,
            ];
            let mut v = OptionView::new(env, power, &tasks, norm, day, Micros::from_hours(4), polled, |m| {
                at[ready[m]]
            });
            v.left_today = MilliJoules::from_joules(left_kj.0 * 1000);
            v.left_tomorrow = MilliJoules::from_joules(left_kj.1 * 1000);
            v.set_filter_budget(budget_kj * 1000.0);
            let n = tasks.len();
            let mut slots: Vec<u32> = (0..n as u32).collect();
            let (mut key, mut choice, mut next, mut prev, mut tree) =
                (std::vec![0.0; n], std::vec![0; n], std::vec![0; n], std::vec![0; n], std::vec![0; 2 * n]);
            let mut sc = EScratch {
                slots: &mut slots,
                key: &mut key,
                choice: &mut choice,
                next: &mut next,
                prev: &mut prev,
                tree: &mut tree,
                bounds: &mut [],
                caps: &mut [],
            };
            let mut rng = <ChaCha8Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(seed);
            let mut decided = 0usize;
            run(&mut v, &mut sc, n, &mut rng, &mut |_, _| decided += 1);
            prop_assert_eq!(decided, n);
        }
    }
}

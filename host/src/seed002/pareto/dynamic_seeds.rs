//! Chapter 7's seeds from the dynamic heuristics themselves (spec §6: "traces of dynamic
//! Max-Max Util / UPT / UPP / UPE ... key = start order; dropped tasks get the last keys").
//!
//! Each of §7.3.4's Max-Max heuristics (Max Utility, Max UPT, Max UPP, Max UPE) runs
//! the Chapter 7 trace through the core's energy event loop (`EnergySim`: queued machines, an
//! event a minute, no budget, no filter, theta = [`THETA`]) on the platform's P-state tables,
//! the very tables the stochastic model is built on. The loop's decisions are not touched:
//! its per-task storage is the caller's, so the allocation is read back from it after the
//! run: every started task's machine and start (`TaskOutcome::Started`) and its P-state.
//!
//! The chromosome: each started task on its machine and P-state, keyed by start time (ties
//! by machine, then task index), so a machine runs its tasks in the order the loop started
//! them; tasks the loop dropped or never started get the last keys, in task order, on their
//! first eligible machine in P-state 0 (at the end of a queue the evaluator's own drop rule
//! skips them unless they still earn theta). Max UPP is the core's `MaxMaxUpp` (utility
//! over average power, utility x ETC / EEC).

use crate::seed002::energy::env::power_tables;
use crate::seed002::generate::{etc_table, MACHINE_COUNTS, SPECIAL_MACHINE_TYPES};
use crate::seed002::pareto::stochastic::{SGene, Stochastic, THETA};
use kairos_core::serial::{
    EnergyConfig, EnergyHeuristic, EnergySim, EnergyStorage, Machines, PowerModel, SerialEnv,
    SerialError, SerialFilter, SerialTask, TaskOutcome,
};
use kairos_core::units::{Micros, MilliJoules};

/// The dynamic heuristics that seed Chapter 7's populations, with their report names.
pub const DYNAMIC_SEEDS: [(&str, EnergyHeuristic); 4] = [
    ("max-utility", EnergyHeuristic::MaxMaxUtil),
    ("max-upt", EnergyHeuristic::MaxMaxUpt),
    ("max-upp", EnergyHeuristic::MaxMaxUpp),
    ("max-upe", EnergyHeuristic::MaxMaxUpe),
];

/// What one dynamic run allocated to one task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// Started on `machine` in `pstate` at `start`.
    Started {
        /// The machine.
        machine: u16,
        /// Its P-state.
        pstate: u8,
        /// When it started.
        start: Micros,
    },
    /// Dropped, or not started when the run ended.
    NotRun,
}

/// Runs `h` over `inst`'s trace (platform `seed`, trial 0, as `Stochastic::new` builds it)
/// and returns each task's allocation.
pub fn dynamic_allocation(
    inst: &Stochastic,
    seed: u64,
    h: EnergyHeuristic,
) -> Result<Vec<Allocation>, SerialError> {
    let etc0 = etc_table(seed, 0);
    let power = power_tables(seed, 0, &etc0);
    let env = SerialEnv {
        machine_type: &inst.machine_type,
        machine_types: MACHINE_COUNTS.len() as u8,
        special_types: SPECIAL_MACHINE_TYPES as u8,
        etc: &etc0,
        classes: &inst.classes,
    };
    let model = PowerModel {
        pstates: 3,
        etc: &power.etc,
        apc_mw: &power.apc_mw,
    };
    let tasks: Vec<SerialTask> = inst
        .tasks
        .iter()
        .map(|t| SerialTask {
            ty: t.ty,
            arrival: t.arrival,
            curve: t.curve,
        })
        .collect();
    let n = tasks.len();
    // Long enough for every queue to empty: the last arrival plus a week.
    let end = tasks.last().map_or(Micros::ZERO, |t| t.arrival) + Micros::from_hours(24 * 7);
    let cfg = EnergyConfig {
        heuristic: h,
        filter: SerialFilter::None,
        machines: Machines::Queued,
        theta: THETA,
        interval: Micros::MINUTE,
        budget: MilliJoules::MAX,
        first_day: Micros::from_hours(24),
        day_len: Micros::from_hours(24),
        window: (Micros::ZERO, end),
        seed,
    };
    let mut outcome = vec![TaskOutcome::Waiting; n];
    let mut pstate = vec![0u8; n];
    let mut wait = vec![0u16; n];
    let mut u32s: [Vec<u32>; 7] = std::array::from_fn(|i| vec![0; if i == 6 { 2 * n } else { n }]);
    let mut key = vec![0.0; n];
    {
        let [link, slots, pool, choice, next, prev, tree] = &mut u32s;
        let storage = EnergyStorage {
            outcome: &mut outcome,
            pstate: &mut pstate,
            wait: &mut wait,
            link,
            slots,
            pool,
            key: &mut key,
            choice,
            next,
            prev,
            tree,
            type_bound: &mut [],
            cap: &mut [],
        };
        EnergySim::new(env, model, &tasks, cfg, storage)?.run();
    }
    Ok(outcome
        .iter()
        .zip(&pstate)
        .map(|(o, &k)| match *o {
            TaskOutcome::Started { machine, start } => Allocation::Started {
                machine,
                pstate: k,
                start,
            },
            _ => Allocation::NotRun,
        })
        .collect())
}

/// The chromosome of an allocation (see the module's notes for the keys).
pub fn chromosome(inst: &Stochastic, alloc: &[Allocation]) -> Vec<SGene> {
    let mut started: Vec<(Micros, u16, usize)> = alloc
        .iter()
        .enumerate()
        .filter_map(|(t, a)| match *a {
            Allocation::Started { machine, start, .. } => Some((start, machine, t)),
            Allocation::NotRun => None,
        })
        .collect();
    started.sort_unstable();
    let mut out: Vec<SGene> = alloc
        .iter()
        .enumerate()
        .map(|(t, a)| match *a {
            Allocation::Started {
                machine, pstate, ..
            } => SGene {
                machine,
                pstate,
                key: 0,
            },
            Allocation::NotRun => SGene {
                machine: inst.eligible_machines(t)[0],
                pstate: 0,
                key: 0,
            },
        })
        .collect();
    for (k, &(_, _, t)) in started.iter().enumerate() {
        out[t].key = k as u32;
    }
    let mut k = started.len() as u32;
    for (t, a) in alloc.iter().enumerate() {
        if *a == Allocation::NotRun {
            out[t].key = k;
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed002::pareto::stochastic::Score;

    #[test]
    fn dynamic_seeds_replay_the_loops_own_allocation() {
        let inst = Stochastic::new(1, 120, Micros::from_secs(300), Score::Expected, 4);
        for (name, h) in DYNAMIC_SEEDS {
            let a = dynamic_allocation(&inst, 1, h).unwrap();
            assert_eq!(a.len(), inst.tasks.len());
            let c = chromosome(&inst, &a);
            // Keys are a permutation; started tasks first, by start.
            let mut keys: Vec<u32> = c.iter().map(|g| g.key).collect();
            keys.sort_unstable();
            assert!(
                keys.iter().enumerate().all(|(i, &k)| k == i as u32),
                "{name}"
            );
            let run = a.iter().filter(|x| **x != Allocation::NotRun).count();
            assert!(run > 0, "{name}: nothing started");
            for (t, x) in a.iter().enumerate() {
                assert!(inst.eligible_machines(t).contains(&c[t].machine), "{name}");
                if let Allocation::Started {
                    machine,
                    pstate,
                    start,
                } = *x
                {
                    assert_eq!((c[t].machine, c[t].pstate), (machine, pstate), "{name}");
                    assert!((c[t].key as usize) < run, "{name}");
                    assert!(start >= inst.tasks[t].arrival, "{name}");
                    // Same machine: earlier start, lower key.
                    for (u, y) in a.iter().enumerate() {
                        if let Allocation::Started {
                            machine: m2,
                            start: s2,
                            ..
                        } = *y
                        {
                            if m2 == machine && s2 < start {
                                assert!(c[u].key < c[t].key, "{name}");
                            }
                        }
                    }
                } else {
                    assert!(c[t].key as usize >= run, "{name}");
                }
            }
        }
        // The heuristics allocate differently; Max UPP is not Max UPE.
        let cs: Vec<Vec<SGene>> = DYNAMIC_SEEDS
            .iter()
            .map(|&(_, h)| chromosome(&inst, &dynamic_allocation(&inst, 1, h).unwrap()))
            .collect();
        assert_ne!(cs[0], cs[3]);
        assert_ne!(cs[2], cs[3]);
    }
}

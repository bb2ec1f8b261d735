//! The heuristics that seed NSGA-II's populations (§5.5.2, §6.5.1): a single pass over the
//! tasks in arrival order (Min Energy, Max Utility, Max UPE) or the two-stage Min-Min
//! Completion, each a chromosome whose keys are the mapping order, so that evaluating it
//! replays the heuristic's own schedule.
//!
//! Ties: Min Energy breaks equal energy by the earlier completion (which spreads a bag over
//! the machines of its best type: Chapter 6's balanced min-energy seed), every heuristic
//! then by the lower machine, Min-Min by the lower task index.

use crate::seed002::pareto::{Gene, Instance};
use kairos_core::units::Micros;

/// A seeding heuristic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seed {
    /// Each task to its minimum-EEC machine (ties: earliest completion).
    MinEnergy,
    /// Each task to its earliest-completion machine.
    MaxUtility,
    /// Each task to its machine of highest utility per energy (U / EEC).
    MaxUpe,
    /// Two-stage: each unmapped task's earliest completion, then the task whose completion
    /// is earliest overall, until all are mapped.
    MinMinCompletion,
}

impl Seed {
    /// Every seed, in the dissertation's order.
    pub const ALL: [Seed; 4] = [
        Seed::MinEnergy,
        Seed::MaxUtility,
        Seed::MaxUpe,
        Seed::MinMinCompletion,
    ];

    /// The name used in experiment files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Seed::MinEnergy => "min-energy",
            Seed::MaxUtility => "max-utility",
            Seed::MaxUpe => "max-upe",
            Seed::MinMinCompletion => "min-min",
        }
    }

    /// The seed called `name`.
    pub fn from_name(name: &str) -> Option<Seed> {
        Seed::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The chromosome this heuristic builds for `inst`.
    pub fn chromosome(self, inst: &Instance) -> Vec<Gene> {
        match self {
            Seed::MinMinCompletion => min_min(inst),
            _ => single_pass(inst, self),
        }
    }
}

fn completion(inst: &Instance, free: &[Micros], t: usize, m: u16) -> Micros {
    free[m as usize].max(inst.tasks[t].arrival) + inst.etc(t, m)
}

fn single_pass(inst: &Instance, seed: Seed) -> Vec<Gene> {
    let mut free = vec![Micros::ZERO; inst.machines()];
    let mut out = Vec::with_capacity(inst.tasks.len());
    for t in 0..inst.tasks.len() {
        let mut best: Option<(u16, Micros, f64)> = None;
        for &m in inst.eligible(t) {
            let c = completion(inst, &free, t, m);
            let score = match seed {
                Seed::MinEnergy => -(inst.eec(t, m) as f64),
                Seed::MaxUtility => 0.0,
                _ => inst.utility(t, c) / inst.eec(t, m).max(1) as f64,
            };
            let better = match best {
                None => true,
                Some((_, bc, bs)) => score > bs || (score == bs && c < bc),
            };
            if better {
                best = Some((m, c, score));
            }
        }
        let (m, c, _) = best.expect("every task has an eligible machine");
        free[m as usize] = c;
        out.push(Gene::new(m, t as u32));
    }
    out
}

fn min_min(inst: &Instance) -> Vec<Gene> {
    let n = inst.tasks.len();
    let mut free = vec![Micros::ZERO; inst.machines()];
    let best_of = |free: &[Micros], t: usize| -> (Micros, u16) {
        inst.eligible(t)
            .iter()
            .map(|&m| (completion(inst, free, t, m), m))
            .min()
            .expect("every task has an eligible machine")
    };
    let mut best: Vec<Option<(Micros, u16)>> = (0..n).map(|t| Some(best_of(&free, t))).collect();
    let mut out = vec![Gene::new(0, 0); n];
    for round in 0..n {
        let (t, (c, m)) = best
            .iter()
            .enumerate()
            .filter_map(|(t, b)| b.map(|b| (t, b)))
            .min_by_key(|&(t, b)| (b, t))
            .expect("a task is left");
        free[m as usize] = c;
        best[t] = None;
        out[t] = Gene::new(m, round as u32);
        // Only machine m got later: a task whose best was elsewhere keeps it.
        for (u, b) in best.iter_mut().enumerate() {
            if let Some((_, bm)) = *b {
                if bm == m {
                    *b = Some(best_of(&free, u));
                }
            }
        }
    }
    out
}

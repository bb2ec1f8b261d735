//! The twelve heuristics of Chapter 2, one a file, and App. A's permutation: the immediate
//! ones choose a machine for one task; the batch ones map a set of tasks, in order.

mod k_best_types;
pub(crate) mod max_max_upt;
pub(crate) mod max_max_util;
mod max_upt;
mod max_util;
mod met_max_util;
pub(crate) mod met_max_util_max_upt;
mod met_random;
pub(crate) mod min_min_comp;
pub(crate) mod permute;
mod random;
mod round_robin;
pub(in crate::serial) mod sufferage;

use super::env::{Heuristic, MAX_SERIAL_MACHINES};
use super::grouped;
use super::two_stage::{self, Scratch};
use super::view::View;
use heapless::Vec;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The heuristics' own state: the seeded stream and Round-Robin's fixed machine order.
pub(crate) struct PolicyState {
    pub rng: ChaCha8Rng,
    pub order: Vec<u16, MAX_SERIAL_MACHINES>,
    pub next: usize,
}

impl PolicyState {
    /// The stream seeded by `seed`; Round-Robin's order is its first draws (Fisher-Yates
    /// over the machines), so every heuristic's stream starts at the same place.
    pub fn new(seed: u64, machines: usize, h: Heuristic) -> PolicyState {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut order = Vec::new();
        for m in 0..machines {
            let _ = order.push(m as u16);
        }
        if h == Heuristic::RoundRobin {
            for i in (1..machines).rev() {
                let j = below(&mut rng, i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
        PolicyState {
            rng,
            order,
            next: 0,
        }
    }
}

/// Uniform in `0..n` (n > 0) without modulo bias (Lemire's multiply and reject).
pub(crate) fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    let mut m = rng.next_u64() as u128 * n as u128;
    if (m as u64) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = rng.next_u64() as u128 * n as u128;
        }
    }
    (m >> 64) as u64
}

/// An immediate heuristic's machine for task `t`, and the evaluations it made.
pub(crate) fn immediate(
    h: Heuristic,
    v: &View<'_>,
    t: u32,
    st: &mut PolicyState,
) -> (Option<u16>, u64) {
    match h {
        Heuristic::Random => random::choose(v, t, st),
        Heuristic::RoundRobin => round_robin::choose(v, t, st),
        Heuristic::MaxUtil => max_util::choose(v, t),
        Heuristic::MaxUpt => max_upt::choose(v, t),
        Heuristic::MetRandom => met_random::choose(v, t, st),
        Heuristic::MetMaxUtil => met_max_util::choose(v, t),
        Heuristic::KBestTypes(k) => k_best_types::choose(v, t, k),
        _ => (None, 0),
    }
}

/// A batch heuristic's pass over `sc.slots[..n]`; returns the evaluations it made.
pub(crate) fn batch(
    h: Heuristic,
    v: &mut View<'_>,
    sc: &mut Scratch<'_>,
    n: usize,
    emit: &mut dyn FnMut(u32, u16),
) -> u64 {
    use grouped::Kind;
    let g = |v: &mut View<'_>, sc: &mut Scratch<'_>, kind, stage: &dyn two_stage::Stage, emit| {
        grouped::run(v, sc, n, kind, &|v, t| stage.evals(v, t), emit)
    };
    match h {
        Heuristic::MinMinComp => g(v, sc, Kind::MinMin, &min_min_comp::MinMinComp, emit),
        Heuristic::MaxMaxUtil => g(v, sc, Kind::MaxUtil, &max_max_util::MaxMaxUtil, emit),
        Heuristic::MaxMaxUpt => g(v, sc, Kind::MaxUpt, &max_max_upt::MaxMaxUpt, emit),
        Heuristic::MetMaxUtilMaxUpt => g(
            v,
            sc,
            Kind::MetMaxUpt,
            &met_max_util_max_upt::MetMaxUtilMaxUpt,
            emit,
        ),
        Heuristic::Sufferage => sufferage::run(v, sc, n, emit),
        _ => 0,
    }
}

//! A mapping event's own duration, modelled deterministically (spec §2, "Event cost").
//!
//! The dissertation's Fig. 2.7 and its 50k results depend on slow events delaying the next
//! one, but a wall clock would make runs irreproducible. An event is charged
//! `evaluations x cost per evaluation`, where an evaluation is one (task, machine) pair a
//! textbook implementation examines: the dropping check over every mappable task and machine,
//! then every remaining task and machine at every iteration of a two-stage pass (every
//! unmapped task and machine at every Sufferage pass), one machine per eligible machine for
//! an immediate heuristic. Our implementation examines far fewer pairs (see `two_stage`);
//! the model charges what the dissertation's implementation did. The cost per evaluation of
//! each heuristic is calibrated once so that its mean event at 50k tasks a day and theta =
//! 0.5 matches Table G.1 (see [`PICOS_PER_EVAL`] and `docs/model.md`).

use super::heuristic::Heuristic;
use crate::units::Micros;

/// How a mapping event's duration is modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventCost {
    /// Events take no time (Ch. 3/4, where events take ~1e-4 s).
    Zero,
    /// Evaluations x the heuristic's calibrated [`PICOS_PER_EVAL`].
    Modelled,
    /// Evaluations x this many picoseconds, for every heuristic.
    PerEval(u64),
}

/// Picoseconds charged per evaluation, by heuristic (the order of [`Heuristic::ALL`]).
///
/// Calibrated as Table G.1's 50k mean (ms) / our mean evaluations per event at 50k tasks a
/// day, theta = 0.5, the one-minute trigger, cost off, over trials 0-3 of seed 2002
/// (`kairos experiment experiments/s002-calibrate-50k.toml`; `docs/model.md` lists the
/// evaluations). K-Best Types takes MET-Max Util's rate (Table G.1 omits it). Held out, the
/// 33k column is predicted within -12% to +19% for the batch heuristics but -37% for
/// MET-Max Util-Max UPT (`python3 scripts/why_s002_cost.py`; results/seed002/why-cost/).
pub const PICOS_PER_EVAL: [u64; 12] = [
    150_000_000, // Random: 0.15 ms / 1.00
    135_580_296, // Round-Robin: 0.15 ms / 1.11
    2_433_077,   // Max Util: 0.22 ms / 90.42
    3_649_615,   // Max UPT: 0.33 ms / 90.42
    220_000_000, // MET-Random: 0.22 ms / 1.00
    24_274_723,  // MET-Max Util: 0.22 ms / 9.06
    24_274_723,  // K-Best Types: as MET-Max Util
    9_277,       // Min-Min Comp: 46.66 ms / 5,029,831
    210_219,     // Sufferage: 280.09 ms / 1,332,370
    107_055,     // Max-Max Util: 316.47 ms / 2,956,137
    100_342,     // Max-Max UPT: 319.61 ms / 3,185,192
    148_127,     // MET-Max Util-Max UPT: 66.22 ms / 447,049
];

impl EventCost {
    /// The duration of an event of `evaluations` pairs under heuristic `h`.
    pub fn duration(self, h: Heuristic, evaluations: u64) -> Micros {
        let ps = match self {
            EventCost::Zero => return Micros::ZERO,
            EventCost::PerEval(ps) => ps,
            EventCost::Modelled => PICOS_PER_EVAL[h.index()],
        };
        Micros((evaluations as u128 * ps as u128 / 1_000_000).min(u64::MAX as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_is_evaluations_times_rate() {
        assert_eq!(
            EventCost::PerEval(2_000_000).duration(Heuristic::MaxMaxUpt, 7),
            Micros(14)
        );
        assert_eq!(
            EventCost::Zero.duration(Heuristic::MaxMaxUpt, 1 << 40),
            Micros::ZERO
        );
    }
}

//! The heuristics of Chapters 3 and 4 over (task, machine, P-state) options, one file per
//! family: the two-stage passes (`two_stage`: Min-Min Comp, Max-Max Util / UPT / UPE and the
//! weighted heuristics; `two_stage_lazy` gives the same decisions with fewer re-choices), Chapter 4's arrival-order family (`arrival_order`: FCFS and LCFS,
//! plain and prioritized, P-state 0 or all P-states) and Random (`random`).
//!
//! Each maps the mappable tasks `slots[..n]` (in arrival order) through the event's
//! [`OptionView`] and tells the caller, per task, the option taken or why there was none.

mod arrival_order;
mod random;
mod two_stage;
mod two_stage_lazy;

use super::energy_heuristic::EnergyHeuristic;
use super::options::{NoOption, Opt, OptionView};
use rand_chacha::ChaCha8Rng;

/// Scratch a pass works in, one entry per mappable task (`tree`: two), from the caller.
pub(crate) struct EScratch<'s> {
    pub slots: &'s mut [u32],
    pub key: &'s mut [f64],
    pub choice: &'s mut [u32],
    pub next: &'s mut [u32],
    pub prev: &'s mut [u32],
    pub tree: &'s mut [u32],
    /// Per slot, one bound per machine type (`two_stage_lazy`); shorter: not kept.
    pub bounds: &'s mut [f32],
    /// Per slot, its [`two_stage::Cap`] (`two_stage_lazy`), kept beside `bounds` (shorter:
    /// not kept, and re-choices go uncapped).
    pub caps: &'s mut [two_stage::Cap],
}

impl EScratch<'_> {
    /// Slot `s`'s bounds (`w` a slot) and its cap, where this event's scratch holds them;
    /// else no bounds and no cap (the slot's re-choices then go over every type, uncapped).
    pub(crate) fn kept(&mut self, s: usize, w: usize) -> (&mut [f32], Option<&mut two_stage::Cap>) {
        match self.bounds.get_mut(s * w..(s + 1) * w) {
            Some(b) if !b.is_empty() => (b, self.caps.get_mut(s)),
            _ => (&mut [], None),
        }
    }
}

/// What a pass decided for one task.
pub(crate) type Decision = Result<Opt, NoOption>;

/// Maps `sc.slots[..n]` by `h`, calling `out` once per task in decision order; returns the
/// options evaluated.
pub(crate) fn run(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    rng: &mut ChaCha8Rng,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    match h {
        EnergyHeuristic::ArrivalOrder {
            newest_first,
            prioritized,
            all_pstates,
        } => arrival_order::run(v, sc, n, newest_first, prioritized, all_pstates, out),
        EnergyHeuristic::Random => random::run(v, sc, n, rng, out),
        h => two_stage_lazy::run(h, v, sc, n, out),
    }
}

//! Max Value (seed 001 §3.3): the value the task earns at its completion, as Max Utility,
//! but "if a task has multiple choices that tie for the same maximum value, then, the one
//! with the earliest completion time is selected". Seed 001's value functions are flat up to
//! the soft deadline, so ties are the rule there, and Max Utility's tie-break (the lower
//! cluster index) would book a task late on the first cluster while another runs it now.
//!
//! The Min-Min framework (`greedy`) compares one `f64`, so the objective packs (value,
//! earliest completion) into one exactly: the value in micro-units (as the ledger rounds it)
//! times 2^20, plus 2^20 - 1 - the completion in whole seconds (capped at 2^20 - 1 s, about
//! 12 days). The sum stays an exact integer in an `f64` while the value is below 2^33
//! micro-units (8,589); above that the ordering by value still holds up to rounding.

use super::greedy::Objective;
use crate::error::Error;
use crate::plan::{Choice, Planner};

/// Completion seconds a tie-break can tell apart: 2^20 (about 12 days).
const COMPLETION_SPAN: f64 = (1u64 << 20) as f64;

/// Max Value's objective.
#[derive(Clone, Copy)]
pub(super) struct MaxValue;

impl Objective for MaxValue {
    // The completion is packed in: no cost of the option alone divides the utility.
    const PER_COST: bool = false;

    fn value(self, _: &Planner<'_>, ch: &Choice, u: f64) -> Result<f64, Error> {
        let end = ch.start.saturating_add(ch.duration);
        let micro = libm::round(u * 1e6);
        let secs = libm::floor(end.as_secs_f64()).min(COMPLETION_SPAN - 1.0);
        Ok(micro * COMPLETION_SPAN + (COMPLETION_SPAN - 1.0 - secs))
    }
}

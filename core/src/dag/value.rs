//! A seed 003 job's value curve (§7.1.3, R5) and the exact comparison of value per energy.
//!
//! The curve is seed 001's linear value function ([`UtilityCurve::Linear`]), kept in integers:
//! the maximum value up to the soft deadline, linear down to the final value at the hard
//! deadline, zero after. A job that can only earn zero is rejected, so the curve must reach
//! zero after its hard deadline (a flat tail would let Alg. 7.3 slow every job for free).
//! Ratios are compared by cross-multiplication in `u128`, never as floats, so a tie is a tie
//! on every machine and ties fall to the documented index rules.

use crate::dag::error::DagError;
use crate::units::{Micros, Utility};
use crate::utility::UtilityCurve;
use core::cmp::Ordering;

/// The value of completing a job `since` after its arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueCurve {
    max: Utility,
    last: Utility,
    soft: Micros,
    hard: Micros,
}

impl ValueCurve {
    /// `max` up to `soft` after arrival, linear to zero at `hard`, zero after (a final value
    /// of zero, [`ValueCurve::with_final`]).
    ///
    /// Errors: `soft > hard` or `hard` zero ([`DagError::Curve`]).
    pub fn new(max: Utility, soft: Micros, hard: Micros) -> Result<ValueCurve, DagError> {
        ValueCurve::with_final(max, Utility::ZERO, soft, hard)
    }

    /// `max` up to `soft` after arrival, linear to `last` at `hard` (exactly `last` there,
    /// as [`UtilityCurve::Linear`]), zero after.
    ///
    /// Errors: `soft > hard`, `hard` zero or `last > max` ([`DagError::Curve`]).
    pub fn with_final(
        max: Utility,
        last: Utility,
        soft: Micros,
        hard: Micros,
    ) -> Result<ValueCurve, DagError> {
        if soft > hard || hard == Micros::ZERO || last > max {
            return Err(DagError::Curve);
        }
        Ok(ValueCurve {
            max,
            last,
            soft,
            hard,
        })
    }

    /// The value of completing `since` after arrival, rounded down to the micro-unit.
    pub fn value(&self, since: Micros) -> Utility {
        if since > self.hard {
            return Utility::ZERO;
        }
        if since == self.hard {
            // Also when `soft == hard` (a step): the final value at the hard deadline.
            return self.last;
        }
        if since <= self.soft {
            return self.max;
        }
        let left = (self.hard - since).0 as u128;
        let span = (self.hard - self.soft).0 as u128;
        let drop = (self.max.0 - self.last.0) as u128;
        Utility(self.last.0 + (drop * left / span) as u64)
    }

    /// Whether a job that has waited `since` can still earn anything (completing at once): a
    /// queued job that cannot is dropped and counts as rejected (§7.2.1).
    pub fn can_earn(&self, since: Micros) -> bool {
        self.value(since).0 > 0
    }

    /// The most the job can earn.
    pub fn max(&self) -> Utility {
        self.max
    }
    /// The value at the hard deadline (zero after it).
    pub fn last(&self) -> Utility {
        self.last
    }
    /// The soft deadline, after arrival.
    pub fn soft(&self) -> Micros {
        self.soft
    }
    /// The hard deadline, after arrival: after it the job earns nothing.
    pub fn hard(&self) -> Micros {
        self.hard
    }

    /// The same curve as kairos's float [`UtilityCurve`] (for reports; decisions use
    /// [`ValueCurve::value`]).
    pub fn as_utility_curve(&self) -> UtilityCurve {
        UtilityCurve::Linear {
            start: self.max.as_f64(),
            soft: self.soft,
            hard: self.hard,
            final_value: self.last.as_f64(),
        }
    }
}

/// A positive ratio `num / den`, compared exactly (value per energy, or 1 / (RT x E)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    /// The numerator.
    pub num: u128,
    /// The denominator (a zero one counts as one: energy is never free).
    pub den: u128,
}

impl Ratio {
    /// `num / den`.
    pub const fn new(num: u128, den: u128) -> Ratio {
        Ratio {
            num,
            den: if den == 0 { 1 } else { den },
        }
    }

    /// Value per energy: micro-units per nanojoule.
    pub fn per_energy(value: Utility, energy_nj: u64) -> Ratio {
        Ratio::new(value.0 as u128, energy_nj as u128)
    }

    /// Compares exactly (`a/b` against `c/d` as `a d` against `c b`; the factors stay
    /// below 2^64 x 2^64 in every use here, value per energy and 1 / (RT x E)).
    pub fn cmp_exact(&self, o: &Ratio) -> Ordering {
        let l = self.num.saturating_mul(o.den);
        let r = o.num.saturating_mul(self.den);
        l.cmp(&r)
    }

    /// As a float, for reports only.
    pub fn as_f64(&self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

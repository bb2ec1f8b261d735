//! Typed quantities: what a number is, and the integer resolution it is kept at.
//!
//! Time is integer microseconds and energy is integer millijoules so that every ledger is an
//! associative integer sum (MODEL.md, "Units and determinism"): totals never depend on the
//! order in which they were added, on the host or on the firmware.

use core::ops::{Add, AddAssign, Sub};
use serde::{Deserialize, Serialize};

/// A point in time or a duration, in integer microseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Micros(pub u64);

impl Micros {
    /// Zero time.
    pub const ZERO: Micros = Micros(0);
    /// The end of time: a void that never closes ends here.
    pub const MAX: Micros = Micros(u64::MAX);
    /// One second.
    pub const SECOND: Micros = Micros(1_000_000);
    /// One minute.
    pub const MINUTE: Micros = Micros(60_000_000);
    /// One hour.
    pub const HOUR: Micros = Micros(3_600_000_000);

    /// Whole seconds.
    pub const fn from_secs(s: u64) -> Micros {
        Micros(s * 1_000_000)
    }
    /// Whole minutes.
    pub const fn from_mins(m: u64) -> Micros {
        Micros(m * 60_000_000)
    }
    /// Whole hours.
    pub const fn from_hours(h: u64) -> Micros {
        Micros(h * 3_600_000_000)
    }
    /// Seconds as a float (for reports and utility curves only, never for ledgers).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Minutes as a float (utility curves are defined per minute).
    pub fn as_mins_f64(self) -> f64 {
        self.0 as f64 / 6e7
    }
    /// Rounds a non-negative number of seconds to the nearest microsecond (saturating).
    pub fn from_secs_f64(s: f64) -> Micros {
        if s.is_nan() || s <= 0.0 {
            Micros(0)
        } else if s >= 1.8e13 {
            Micros::MAX
        } else {
            Micros(libm::round(s * 1e6) as u64)
        }
    }
    /// Addition that stops at [`Micros::MAX`] instead of overflowing.
    pub const fn saturating_add(self, d: Micros) -> Micros {
        Micros(self.0.saturating_add(d.0))
    }
    /// Subtraction that stops at zero.
    pub const fn saturating_sub(self, d: Micros) -> Micros {
        Micros(self.0.saturating_sub(d.0))
    }
}

impl Add for Micros {
    type Output = Micros;
    fn add(self, o: Micros) -> Micros {
        Micros(self.0 + o.0)
    }
}
impl AddAssign for Micros {
    fn add_assign(&mut self, o: Micros) {
        self.0 += o.0;
    }
}
impl Sub for Micros {
    type Output = Micros;
    fn sub(self, o: Micros) -> Micros {
        Micros(self.0 - o.0)
    }
}

/// Energy in integer millijoules; ledgers add these exactly.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MilliJoules(pub u64);

impl MilliJoules {
    /// No energy.
    pub const ZERO: MilliJoules = MilliJoules(0);
    /// Unlimited (an unconstrained budget).
    pub const MAX: MilliJoules = MilliJoules(u64::MAX);
    /// Whole joules.
    pub const fn from_joules(j: u64) -> MilliJoules {
        MilliJoules(j * 1000)
    }
    /// Joules as a float, for reports and filter ratios.
    pub fn as_joules_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
    /// Addition that stops at [`MilliJoules::MAX`].
    pub const fn saturating_add(self, o: MilliJoules) -> MilliJoules {
        MilliJoules(self.0.saturating_add(o.0))
    }
    /// Subtraction that stops at zero.
    pub const fn saturating_sub(self, o: MilliJoules) -> MilliJoules {
        MilliJoules(self.0.saturating_sub(o.0))
    }
}

impl Add for MilliJoules {
    type Output = MilliJoules;
    fn add(self, o: MilliJoules) -> MilliJoules {
        MilliJoules(self.0 + o.0)
    }
}
impl AddAssign for MilliJoules {
    fn add_assign(&mut self, o: MilliJoules) {
        self.0 += o.0;
    }
}

/// Average power of one node, in integer milliwatts.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MilliWatts(pub u32);

impl MilliWatts {
    /// Energy drawn by `nodes` nodes at this power for `d`, exact in integers (rounded down to
    /// the millijoule): mW x us / 1e6 = mJ.
    pub const fn energy(self, nodes: NodeCount, d: Micros) -> MilliJoules {
        // Most products fit 64 bits, where the division is a plain one rather than a call to
        // the 128-bit routine; the quotient is the same either way.
        if let Some(p) = (self.0 as u64).checked_mul(nodes.0 as u64) {
            if let Some(nano) = p.checked_mul(d.0) {
                return MilliJoules(nano / 1_000_000);
            }
        }
        let nano = self.0 as u128 * nodes.0 as u128 * d.0 as u128;
        let mj = nano / 1_000_000;
        MilliJoules(if mj > u64::MAX as u128 {
            u64::MAX
        } else {
            mj as u64
        })
    }
}

/// A number of nodes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NodeCount(pub u32);

/// A number of cores.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cores(pub u64);

/// Resources allocated to a task (seed 000 Eq. 1): execution time x cores, in core-microseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CoreMicros(pub u128);

impl CoreMicros {
    /// Resources of `cores` cores held for `d`.
    pub const fn of(cores: Cores, d: Micros) -> CoreMicros {
        CoreMicros(cores.0 as u128 * d.0 as u128)
    }
    /// As a float (core-seconds), for objective ratios.
    pub fn as_core_secs_f64(self) -> f64 {
        // Below 2^64 (every option of a real platform) through `u64`: both conversions round
        // to nearest, so the float is the same, without the soft 128-bit routine.
        let x = match u64::try_from(self.0) {
            Ok(x) => x as f64,
            Err(_) => wide_as_f64(self.0),
        };
        x / 1e6
    }
}

/// A `u128` as a float, out of line: inline, the compiler converts every value the slow way
/// ahead of the branch (it counts the conversion as cheap) and only picks the result after.
#[cold]
#[inline(never)]
fn wide_as_f64(x: u128) -> f64 {
    x as f64
}

/// Utility in integer micro-units (1 utility = 1,000,000): the ledger adds these exactly.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Utility(pub u64);

impl Utility {
    /// No utility.
    pub const ZERO: Utility = Utility(0);
    /// Rounds a non-negative utility value to the nearest micro-unit.
    pub fn from_f64(u: f64) -> Utility {
        if u.is_nan() || u <= 0.0 {
            Utility(0)
        } else {
            Utility(libm::round(u * 1e6) as u64)
        }
    }
    /// As a float, for objectives and reports.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

impl Add for Utility {
    type Output = Utility;
    fn add(self, o: Utility) -> Utility {
        Utility(self.0 + o.0)
    }
}
impl AddAssign for Utility {
    fn add_assign(&mut self, o: Utility) {
        self.0 += o.0;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn energy_is_exact_integer_arithmetic() {
        // 133 W x 4 nodes x 1 h = 1,915,200 J.
        let e = MilliWatts(133_000).energy(NodeCount(4), Micros::HOUR);
        assert_eq!(e, MilliJoules(1_915_200_000));
    }

    #[test]
    fn energy_saturates_instead_of_overflowing() {
        let e = MilliWatts(u32::MAX).energy(NodeCount(u32::MAX), Micros(u64::MAX));
        assert_eq!(e, MilliJoules(u64::MAX));
    }

    /// The `u64` path converts as the `u128` one does: exact below 2^53, rounded to nearest
    /// (ties to even) above it, around the 2^64 switch and at the extremes.
    #[test]
    fn core_seconds_convert_as_from_u128() {
        let mut xs = std::vec![0u128, 1, 999_999, 1_000_000, u128::MAX, u64::MAX as u128];
        for k in 50..=66 {
            let p = 1u128 << k;
            xs.extend([
                p - 1,
                p,
                p + 1,
                p + (p >> 53),
                p + (p >> 53) + 1,
                p + 3 * (p >> 54),
            ]);
        }
        // A spread of values with low bits set, where rounding shows.
        let mut x: u128 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            xs.push(x >> (x % 70));
        }
        for x in xs {
            let slow = x as f64 / 1e6;
            assert_eq!(
                CoreMicros(x).as_core_secs_f64().to_bits(),
                slow.to_bits(),
                "{x}"
            );
        }
    }

    #[test]
    fn seconds_round_to_microseconds() {
        assert_eq!(Micros::from_secs_f64(1.5), Micros(1_500_000));
        assert_eq!(Micros::from_secs_f64(-3.0), Micros(0));
        assert_eq!(Utility::from_f64(5.18), Utility(5_180_000));
    }
}

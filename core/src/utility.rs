//! Utility curves: what completing a task is worth, as a function of time since its arrival.
//!
//! This module owns the two value shapes the seeds use: the piecewise-exponential utility
//! functions of seed 002 (Eq. 1 of §2.2.1, App. B and C), which seed 000 uses, and the linear
//! soft/hard-deadline value functions of seed 001. It also owns the utility classes (seed 002
//! Table C.1, and seed 000's 20 classes: Table C.1 at five time scales), the length of the
//! first, flat interval (App. B), and the prorating of earned utility over a window (seed 000
//! §II.D), which is exact in integers so that utility ledgers never depend on float rounding.
//!
//! Curves are evaluated in `f64` through `libm` only (MODEL.md, "Units and determinism"): a
//! value feeds decisions, and the ledger stores it as an integer [`Utility`].

use crate::error::{full, Capacity, Error, InputError};
use crate::limits::{MAX_CLASS_INTERVALS, MAX_UTILITY_CLASSES};
use crate::units::{Micros, Utility};
use serde::{Deserialize, Serialize};

/// One interval after the first of a utility class (seed 002 Table C.1, one column).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassInterval {
    /// Start of the interval, after the end of the first (flat) interval.
    pub offset: Micros,
    /// psi(k, c): fraction of the priority at the interval's start.
    pub psi: f64,
    /// delta(k, c): modifier of the urgency's decay rate in this interval.
    pub delta: f64,
}

/// The four utility classes of seed 002 Table C.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TableC1 {
    /// Class A.
    A,
    /// Class B.
    B,
    /// Class C.
    C,
    /// Class D.
    D,
}

impl TableC1 {
    /// The four classes, in table order (their index in [`UtilityClasses::essc20`]).
    pub const ALL: [TableC1; 4] = [TableC1::A, TableC1::B, TableC1::C, TableC1::D];

    /// The class for a letter `A`-`D` (either case).
    pub fn from_letter(c: char) -> Option<TableC1> {
        match c {
            'A' | 'a' => Some(TableC1::A),
            'B' | 'b' => Some(TableC1::B),
            'C' | 'c' => Some(TableC1::C),
            'D' | 'd' => Some(TableC1::D),
            _ => None,
        }
    }

    /// Its columns k = 2..7 as (offset in seconds after F, psi, delta): Table C.1 verbatim,
    /// with minutes written as seconds so that 22.5 and 12.5 minutes stay exact integers.
    const fn columns(self) -> [(u64, f64, f64); 6] {
        match self {
            TableC1::A => [
                (0, 1.0, 1.1),
                (300, 0.6, 1.15),
                (600, 0.3, 1.2),
                (1200, 0.2, 1.1),
                (1800, 0.1, 1.2),
                (600_000, 0.0, 10.0),
            ],
            TableC1::B => [
                (0, 1.0, 0.9),
                (420, 0.5, 0.9),
                (900, 0.25, 0.9),
                (1350, 0.12, 0.9),
                (1800, 0.05, 0.9),
                (600_000, 0.0, 10.0),
            ],
            TableC1::C => [
                (0, 1.0, 0.9),
                (600, 0.75, 0.85),
                (1200, 0.5, 0.85),
                (1800, 0.25, 0.8),
                (2400, 0.12, 0.8),
                (600_000, 0.0, 10.0),
            ],
            TableC1::D => [
                (0, 1.0, 1.2),
                (750, 0.8, 1.1),
                (1500, 0.66, 1.1),
                (2220, 0.33, 0.9),
                (3000, 0.11, 0.9),
                (600_000, 0.0, 10.0),
            ],
        }
    }
}

/// A utility class: the shape of a piecewise-exponential curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UtilityClass {
    /// Intervals k = 2, 3, ... in order of offset.
    pub intervals: heapless::Vec<ClassInterval, MAX_CLASS_INTERVALS>,
}

impl UtilityClass {
    /// A class from its intervals k = 2, 3, ...; checks what keeps the curve non-increasing:
    /// offsets strictly increasing, 1 >= psi(2) >= psi(3) >= ... >= 0, and every delta finite
    /// and non-negative (any violation is [`InputError::BadNumber`]).
    pub fn new(intervals: &[ClassInterval]) -> Result<UtilityClass, Error> {
        let mut v = heapless::Vec::new();
        let mut prev: Option<&ClassInterval> = None;
        for iv in intervals {
            let psi_ok = iv.psi >= 0.0 && iv.psi <= prev.map_or(1.0, |p| p.psi);
            let delta_ok = iv.delta.is_finite() && iv.delta >= 0.0;
            let order_ok = prev.is_none_or(|p| p.offset < iv.offset);
            if !(psi_ok && delta_ok && order_ok) {
                return Err(InputError::BadNumber.into());
            }
            v.push(*iv)
                .map_err(|_| full(Capacity::ClassIntervals, MAX_CLASS_INTERVALS))?;
            prev = Some(iv);
        }
        Ok(UtilityClass { intervals: v })
    }

    /// Seed 002 Table C.1's class `class` with every offset, the 10,000-minute one included,
    /// multiplied by `scale` (seed 000's time scales; offsets saturate at [`Micros::MAX`]).
    pub fn table_c1(class: TableC1, scale: u32) -> UtilityClass {
        let mut v = heapless::Vec::new();
        for (secs, psi, delta) in class.columns() {
            let offset = Micros(secs.saturating_mul(1_000_000).saturating_mul(scale as u64));
            // Six columns always fit: MAX_CLASS_INTERVALS is 8.
            let _ = v.push(ClassInterval { offset, psi, delta });
        }
        UtilityClass { intervals: v }
    }

    /// Eq. 1 for a task of this class; `t` is the time since arrival.
    ///
    /// The first interval is [0, F + offset of k = 2) (Table C.1 puts k = 2 at F), flat at
    /// the priority. In interval k, from t(k) = F + offset(k) to t(k+1), the value decays
    /// from Psi(k) towards Psi(k+1) at rate delta(k) x urgency per minute; Psi(k+1) is only
    /// reached asymptotically, so the curve steps down to Psi(k+1) at t(k+1). That is Eq. 1
    /// read literally, and we keep it. After the last listed interval's start there is no
    /// Psi(k+1): it is 0 and the curve decays to 0 (Table C.1's last psi is 0, so there the
    /// value is 0 from F + 10,000 minutes on). A class with no interval never decays.
    fn value(&self, priority: f64, urgency_per_min: f64, first: Micros, t: Micros) -> f64 {
        if t < first {
            return priority;
        }
        let dt = t - first;
        // The interval holding dt: the last one whose offset is at or before it.
        let Some(k) = self.intervals.iter().rposition(|iv| iv.offset <= dt) else {
            return priority;
        };
        let iv = &self.intervals[k];
        let psi_next = self.intervals.get(k + 1).map_or(0.0, |n| n.psi);
        let big_k = iv.psi * priority;
        let big_next = psi_next * priority;
        let minutes = (dt - iv.offset).as_mins_f64();
        let u = (big_k - big_next) * libm::exp(-(iv.delta * urgency_per_min) * minutes) + big_next;
        // Clamp away the last-bit rounding of `a - b + b`, so that the curve provably never
        // rises, within an interval or across a boundary.
        clamp(u, big_next, big_k)
    }
}

/// The utility classes of a scenario, indexed by [`UtilityCurve::PiecewiseExp::class`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UtilityClasses {
    /// The classes.
    pub classes: heapless::Vec<UtilityClass, MAX_UTILITY_CLASSES>,
}

/// The time scales of seed 000's 20 utility classes: Table C.1's offsets times these.
pub const ESSC20_SCALES: [u32; 5] = [1, 2, 4, 8, 16];

impl UtilityClasses {
    /// No class.
    pub const fn new() -> UtilityClasses {
        UtilityClasses {
            classes: heapless::Vec::new(),
        }
    }

    /// Seed 000's 20 classes: Table C.1's four classes at the scales [`ESSC20_SCALES`].
    /// Class `TableC1` c at scale index s (scale `ESSC20_SCALES[s]`) has index `s * 4 + c`
    /// (see [`UtilityClasses::essc20_index`]).
    pub fn essc20() -> UtilityClasses {
        let mut out = UtilityClasses::new();
        for scale in ESSC20_SCALES {
            for c in TableC1::ALL {
                // 20 classes always fit: MAX_UTILITY_CLASSES is 32.
                let _ = out.classes.push(UtilityClass::table_c1(c, scale));
            }
        }
        out
    }

    /// The index in [`UtilityClasses::essc20`] of class `class` at scale index `scale_index`
    /// (0..5, for scales 1, 2, 4, 8, 16).
    pub const fn essc20_index(class: TableC1, scale_index: u8) -> u8 {
        scale_index * 4 + class as u8
    }

    /// Adds a class; returns its index.
    pub fn push(&mut self, class: UtilityClass) -> Result<u8, Error> {
        let i = self.classes.len() as u8;
        self.classes
            .push(class)
            .map_err(|_| full(Capacity::UtilityClasses, MAX_UTILITY_CLASSES))?;
        Ok(i)
    }

    /// The class at `index`.
    pub fn get(&self, index: u8) -> Result<&UtilityClass, InputError> {
        self.classes
            .get(index as usize)
            .ok_or(InputError::UnknownUtilityClass(index))
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there is no class.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }
}

/// Seed 002's urgency levels (§2.2.1.2) with their decay rates per minute (MODEL.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Urgency {
    /// 0.6 per minute.
    Extreme,
    /// 0.2 per minute.
    High,
    /// 0.1 per minute.
    Medium,
    /// 0.01 per minute.
    Low,
}

impl Urgency {
    /// The four levels, most urgent first.
    pub const ALL: [Urgency; 4] = [
        Urgency::Extreme,
        Urgency::High,
        Urgency::Medium,
        Urgency::Low,
    ];
    /// Decay rate of extreme urgency, per minute.
    pub const EXTREME_PER_MIN: f64 = 0.6;
    /// Decay rate of high urgency, per minute.
    pub const HIGH_PER_MIN: f64 = 0.2;
    /// Decay rate of medium urgency, per minute.
    pub const MEDIUM_PER_MIN: f64 = 0.1;
    /// Decay rate of low urgency, per minute.
    pub const LOW_PER_MIN: f64 = 0.01;

    /// Decay rate rho(r), per minute.
    pub const fn per_min(self) -> f64 {
        match self {
            Urgency::Extreme => Urgency::EXTREME_PER_MIN,
            Urgency::High => Urgency::HIGH_PER_MIN,
            Urgency::Medium => Urgency::MEDIUM_PER_MIN,
            Urgency::Low => Urgency::LOW_PER_MIN,
        }
    }

    /// The first interval's length as a percentage of the mean execution time (seed 002
    /// App. B: 80 / 90 / 100 / 110); an integer so that [`first_interval`] is exact.
    pub const fn first_interval_percent(self) -> u64 {
        match self {
            Urgency::Extreme => 80,
            Urgency::High => 90,
            Urgency::Medium => 100,
            Urgency::Low => 110,
        }
    }

    /// The level whose rate is nearest `per_min` (ties and NaN go to the more urgent level).
    pub fn nearest(per_min: f64) -> Urgency {
        let mut best = Urgency::Extreme;
        let mut best_d = abs(per_min - best.per_min());
        for u in Urgency::ALL {
            let d = abs(per_min - u.per_min());
            if d < best_d {
                best = u;
                best_d = d;
            }
        }
        best
    }
}

/// Length F of the first, flat interval (seed 002 App. B): the mean execution time scaled
/// by 0.8 / 0.9 / 1.0 / 1.1 for urgency 0.6 / 0.2 / 0.1 / 0.01 per minute. A rate that is not
/// one of the four levels uses the nearest level's factor. Exact integer arithmetic, rounded
/// to the nearest microsecond.
pub fn first_interval(mean_exec: Micros, urgency_per_min: f64) -> Micros {
    let pct = Urgency::nearest(urgency_per_min).first_interval_percent() as u128;
    let us = (mean_exec.0 as u128 * pct + 50) / 100;
    Micros(if us > u64::MAX as u128 {
        u64::MAX
    } else {
        us as u64
    })
}

/// A monotonically non-increasing function of the time since a task's arrival.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum UtilityCurve {
    /// Seed 002 Eq. 1: flat at `priority` for `first`, then the class's intervals.
    PiecewiseExp {
        /// Starting utility pi(p).
        priority: f64,
        /// Urgency decay rate rho(r), per minute.
        urgency_per_min: f64,
        /// Duration F of the first, flat interval.
        first: Micros,
        /// Index of the utility class.
        class: u8,
    },
    /// Seed 001 §2: `start` until the soft deadline, linear to `final_value` at the hard
    /// deadline, zero after it.
    Linear {
        /// Starting value.
        start: f64,
        /// Soft deadline, after arrival.
        soft: Micros,
        /// Hard deadline, after arrival.
        hard: Micros,
        /// Value at the hard deadline.
        final_value: f64,
    },
}

impl UtilityCurve {
    /// A seed 000 curve: `priority`, the urgency level's rate, and the first interval
    /// [`first_interval`] of the type's mean execution time `mean_exec`, in class `class`.
    pub fn essc(priority: f64, urgency: Urgency, mean_exec: Micros, class: u8) -> UtilityCurve {
        UtilityCurve::PiecewiseExp {
            priority,
            urgency_per_min: urgency.per_min(),
            first: first_interval(mean_exec, urgency.per_min()),
            class,
        }
    }

    /// The value of completing `since_arrival` after arrival.
    ///
    /// Piecewise exponential: seed 002 Eq. 1 read literally (see the module's curve notes:
    /// it steps down at each interval boundary); t is in minutes. An unknown class is
    /// [`InputError::UnknownUtilityClass`]; a priority or urgency that is negative or not
    /// finite is [`InputError::BadNumber`].
    ///
    /// Linear: `start` up to and including `soft`, linear down to `final_value` at `hard`
    /// (exactly `final_value` at `hard`, even when `soft == hard`), 0 after `hard`. It needs
    /// finite `0 <= final_value <= start` and `soft <= hard`, else [`InputError::BadNumber`].
    pub fn value_at(&self, since_arrival: Micros, classes: &UtilityClasses) -> Result<f64, Error> {
        match *self {
            UtilityCurve::PiecewiseExp {
                priority,
                urgency_per_min,
                first,
                class,
            } => {
                let c = classes.get(class)?;
                if !(non_negative(priority) && non_negative(urgency_per_min)) {
                    return Err(InputError::BadNumber.into());
                }
                Ok(c.value(priority, urgency_per_min, first, since_arrival))
            }
            UtilityCurve::Linear {
                start,
                soft,
                hard,
                final_value,
            } => {
                if !(non_negative(final_value)
                    && start.is_finite()
                    && final_value <= start
                    && soft <= hard)
                {
                    return Err(InputError::BadNumber.into());
                }
                let t = since_arrival;
                Ok(if t > hard {
                    0.0
                } else if t == hard {
                    final_value
                } else if t <= soft {
                    start
                } else {
                    let frac = (t - soft).0 as f64 / (hard - soft).0 as f64;
                    // Clamped so that rounding can never put a point below the value at `hard`.
                    clamp(start - (start - final_value) * frac, final_value, start)
                })
            }
        }
    }

    /// The starting value, which is the most the task can earn.
    pub fn max_value(&self) -> f64 {
        match *self {
            UtilityCurve::PiecewiseExp { priority, .. } => priority,
            UtilityCurve::Linear { start, .. } => start,
        }
    }

    /// The starting utility pi(p) of a piecewise-exponential curve, or a linear one's start.
    pub fn priority(&self) -> f64 {
        self.max_value()
    }

    /// The urgency decay rate per minute of a piecewise-exponential curve (`None` if linear).
    pub fn urgency_per_min(&self) -> Option<f64> {
        match *self {
            UtilityCurve::PiecewiseExp {
                urgency_per_min, ..
            } => Some(urgency_per_min),
            UtilityCurve::Linear { .. } => None,
        }
    }

    /// The utility class index of a piecewise-exponential curve (`None` if linear).
    pub fn class(&self) -> Option<u8> {
        match *self {
            UtilityCurve::PiecewiseExp { class, .. } => Some(class),
            UtilityCurve::Linear { .. } => None,
        }
    }
}

/// The share of `earned` that falls in the window `[w0, w1)` for a run over `[start, end)`
/// (seed 000 §II.D), exact in integers.
///
/// The share is `earned x overlap / (end - start)` computed as the difference of the
/// cumulative amounts `floor(earned x (x - start) / (end - start))` at the overlap's two ends,
/// so the shares of adjacent windows add up to exactly `earned` (plain per-window flooring
/// could lose a micro-unit). A zero-length run (`end <= start`) is all or nothing, by whether
/// `end` lies in the window.
pub fn prorate(earned: Utility, start: Micros, end: Micros, w0: Micros, w1: Micros) -> Utility {
    Utility(window_part(earned.0, start, end, w0, w1))
}

/// The part of `amount`, spread evenly over `[start, end)`, that lies in `[w0, w1)`: the
/// integer split that [`prorate`] and [`crate::energy::window_share`] share.
pub(crate) fn window_part(amount: u64, start: Micros, end: Micros, w0: Micros, w1: Micros) -> u64 {
    if end <= start {
        return if w0 <= end && end < w1 { amount } else { 0 };
    }
    if w0 <= start && end <= w1 {
        // Wholly inside: what the general case gives (cum(end) - cum(start) = amount - 0),
        // without its two 128-bit divisions, the common case of every option's energy.
        return amount;
    }
    let lo = if start > w0 { start } else { w0 };
    let hi = if end < w1 { end } else { w1 };
    if hi <= lo {
        return 0;
    }
    let d = (end - start).0 as u128;
    // amount x elapsed < 2^64 x 2^64 fits u128; the cumulative part at `end` is `amount`.
    let cum = |x: Micros| (amount as u128 * (x - start).0 as u128 / d) as u64;
    cum(hi) - cum(lo)
}

fn non_negative(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

fn abs(x: f64) -> f64 {
    libm::fabs(x)
}

fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;

    const CLASS_A: u8 = UtilityClasses::essc20_index(TableC1::A, 0);

    fn close(a: f64, b: f64) -> bool {
        libm::fabs(a - b) < 1e-9
    }

    /// Class A, priority 8, urgency 0.1 per minute, F = 60 minutes.
    fn a8() -> UtilityCurve {
        UtilityCurve::PiecewiseExp {
            priority: 8.0,
            urgency_per_min: 0.1,
            first: Micros::from_mins(60),
            class: CLASS_A,
        }
    }

    #[test]
    fn first_interval_is_flat_at_the_priority() {
        let cs = UtilityClasses::essc20();
        let c = a8();
        for t in [
            Micros(0),
            Micros::from_mins(30),
            Micros::from_mins(60) - Micros(1),
        ] {
            assert_eq!(c.value_at(t, &cs).unwrap(), 8.0);
        }
        // At F, interval k = 2 starts at Psi(2) = 100% x 8.
        assert_eq!(c.value_at(Micros::from_mins(60), &cs).unwrap(), 8.0);
        assert_eq!(c.max_value(), 8.0);
    }

    #[test]
    fn steps_down_at_an_interval_boundary_by_hand() {
        // Class A, k = 2: Psi(2) = 1.0 x 8 = 8, Psi(3) = 0.6 x 8 = 4.8, Delta(2) = 1.1 x 0.1 =
        // 0.11 per minute, t(2) = F = 60 min, t(3) = F + 5 min = 65 min.
        // At 65 min - 1 us (t - t(2) = 5 min - 1/60,000,000 min, the 1 us moves U by ~3e-9):
        //   U = (8 - 4.8) x e^(-0.11 x 5) + 4.8 = 3.2 x e^(-0.55) + 4.8
        //     = 3.2 x 0.576949810380486 + 4.8 = 1.846239393217555 + 4.8 = 6.646239393217555.
        // At 65 min, interval k = 3 starts: U = Psi(3) = 4.8 (the literal step down).
        let cs = UtilityClasses::essc20();
        let c = a8();
        let before = c.value_at(Micros::from_mins(65) - Micros(1), &cs).unwrap();
        assert!(libm::fabs(before - 6.646_239_393) < 1e-8, "{before}");
        assert!(close(c.value_at(Micros::from_mins(65), &cs).unwrap(), 4.8));
        // Halfway through k = 2 (62.5 min): 3.2 x e^(-0.275) + 4.8 = 3.2 x 0.7595721 + 4.8.
        let mid = c
            .value_at(Micros(62 * 60_000_000 + 30_000_000), &cs)
            .unwrap();
        assert!(libm::fabs(mid - 7.230_630_8) < 1e-6, "{mid}");
        // k = 3 -> 4 at F + 10 min: 4.8 -> 2.4 decaying at 1.15 x 0.1; at the boundary, 2.4.
        let b = c.value_at(Micros::from_mins(70) - Micros(1), &cs).unwrap();
        assert!(
            libm::fabs(b - (2.4 * libm::exp(-0.575) + 2.4)) < 1e-8,
            "{b}"
        );
        assert!(close(c.value_at(Micros::from_mins(70), &cs).unwrap(), 2.4));
    }

    #[test]
    fn zero_from_the_last_listed_interval_on() {
        let cs = UtilityClasses::essc20();
        let c = a8();
        // Class A's last interval starts at F + 10,000 minutes with psi 0.
        assert_eq!(
            c.value_at(Micros::from_mins(60 + 10_000), &cs).unwrap(),
            0.0
        );
        assert_eq!(
            c.value_at(Micros::from_mins(60 + 20_000), &cs).unwrap(),
            0.0
        );
        assert_eq!(c.value_at(Micros::MAX, &cs).unwrap(), 0.0);
        // Just before, in k = 6 (psi 10% -> 0 at 1.2 x 0.1 per minute over 9,970 minutes).
        let just = c
            .value_at(Micros::from_mins(60 + 10_000) - Micros(1), &cs)
            .unwrap();
        assert!((0.0..1e-100).contains(&just), "{just}");
        // After the last listed interval of a class whose last psi is not 0, it decays to 0.
        let mut own = UtilityClasses::new();
        let iv = |m, psi, delta| ClassInterval {
            offset: Micros::from_mins(m),
            psi,
            delta,
        };
        let k = own
            .push(UtilityClass::new(&[iv(0, 1.0, 1.0), iv(10, 0.5, 1.0)]).unwrap())
            .unwrap();
        let c = UtilityCurve::PiecewiseExp {
            priority: 2.0,
            urgency_per_min: 0.1,
            first: Micros::ZERO,
            class: k,
        };
        // t = 20 min: 10 min into the last interval: (1.0 - 0) x e^(-1) + 0.
        assert!(close(
            c.value_at(Micros::from_mins(20), &own).unwrap(),
            libm::exp(-1.0)
        ));
    }

    #[test]
    fn scaled_classes_stretch_every_offset() {
        let cs = UtilityClasses::essc20();
        assert_eq!(cs.len(), 20);
        let b16 = cs.get(UtilityClasses::essc20_index(TableC1::B, 4)).unwrap();
        // B's k = 5 starts at F + 22.5 minutes; x16 = 360 minutes.
        assert_eq!(b16.intervals[3].offset, Micros::from_mins(360));
        assert_eq!(b16.intervals[5].offset, Micros::from_mins(160_000));
        assert_eq!(
            b16,
            &UtilityClass::table_c1(TableC1::from_letter('b').unwrap(), 16)
        );
        let d2 = cs.get(UtilityClasses::essc20_index(TableC1::D, 1)).unwrap();
        assert_eq!(d2.intervals[1].offset, Micros::from_mins(25)); // 12.5 x 2
        assert_eq!(d2.intervals[2].psi, 0.66);
    }

    #[test]
    fn unknown_class_and_bad_numbers_are_errors() {
        let cs = UtilityClasses::essc20();
        let c = UtilityCurve::PiecewiseExp {
            priority: 1.0,
            urgency_per_min: 0.1,
            first: Micros(0),
            class: 20,
        };
        assert_eq!(
            c.value_at(Micros(0), &cs),
            Err(Error::Input(InputError::UnknownUtilityClass(20)))
        );
        let c = UtilityCurve::PiecewiseExp {
            priority: -1.0,
            urgency_per_min: 0.1,
            first: Micros(0),
            class: 0,
        };
        assert_eq!(
            c.value_at(Micros(0), &cs),
            Err(Error::Input(InputError::BadNumber))
        );
        let l = UtilityCurve::Linear {
            start: 1.0,
            soft: Micros(5),
            hard: Micros(4),
            final_value: 0.5,
        };
        assert_eq!(
            l.value_at(Micros(0), &cs),
            Err(Error::Input(InputError::BadNumber))
        );
        let iv = |m, psi| ClassInterval {
            offset: Micros::from_mins(m),
            psi,
            delta: 1.0,
        };
        assert!(UtilityClass::new(&[iv(0, 1.0), iv(5, 1.1)]).is_err()); // psi rises
        assert!(UtilityClass::new(&[iv(5, 1.0), iv(5, 0.5)]).is_err()); // offsets not increasing
        assert!(UtilityClass::new(&[iv(0, 1.0), iv(5, 0.5)]).is_ok());
    }

    #[test]
    fn linear_value_function() {
        let cs = UtilityClasses::new();
        let l = UtilityCurve::Linear {
            start: 10.0,
            soft: Micros::from_secs(100),
            hard: Micros::from_secs(300),
            final_value: 2.0,
        };
        let v = |s: u64| l.value_at(Micros::from_secs(s), &cs).unwrap();
        assert_eq!(v(0), 10.0);
        assert_eq!(v(100), 10.0); // at soft
        assert!(close(v(200), 6.0)); // midway: 10 - 8 x 0.5
        assert_eq!(v(300), 2.0); // at hard
        assert_eq!(
            l.value_at(Micros::from_secs(300) + Micros(1), &cs).unwrap(),
            0.0
        );
        assert_eq!(v(1000), 0.0);
        // soft == hard: start before, final value at it, 0 after.
        let s = UtilityCurve::Linear {
            start: 5.0,
            soft: Micros(10),
            hard: Micros(10),
            final_value: 1.0,
        };
        assert_eq!(s.value_at(Micros(9), &cs).unwrap(), 5.0);
        assert_eq!(s.value_at(Micros(10), &cs).unwrap(), 1.0);
        assert_eq!(s.value_at(Micros(11), &cs).unwrap(), 0.0);
    }

    #[test]
    fn first_interval_follows_appendix_b() {
        let mean = Micros::from_mins(100);
        assert_eq!(
            first_interval(mean, Urgency::EXTREME_PER_MIN),
            Micros::from_mins(80)
        );
        assert_eq!(
            first_interval(mean, Urgency::HIGH_PER_MIN),
            Micros::from_mins(90)
        );
        assert_eq!(
            first_interval(mean, Urgency::MEDIUM_PER_MIN),
            Micros::from_mins(100)
        );
        assert_eq!(
            first_interval(mean, Urgency::LOW_PER_MIN),
            Micros::from_mins(110)
        );
        // Other rates use the nearest level's factor.
        assert_eq!(Urgency::nearest(0.3), Urgency::High);
        assert_eq!(Urgency::nearest(0.02), Urgency::Low);
        assert_eq!(Urgency::nearest(f64::NAN), Urgency::Extreme);
        // Rounded to the nearest microsecond: 7 us x 1.1 = 7.7 -> 8.
        assert_eq!(first_interval(Micros(7), 0.01), Micros(8));
        let c = UtilityCurve::essc(4.0, Urgency::High, mean, 3);
        assert_eq!(
            c,
            UtilityCurve::PiecewiseExp {
                priority: 4.0,
                urgency_per_min: 0.2,
                first: Micros::from_mins(90),
                class: 3
            }
        );
    }

    #[test]
    fn prorate_splits_70_30() {
        // Seed 000 §II.D: 70% of the execution in window A, 30% in window B.
        let earned = Utility(5_180_000);
        let (s, e) = (Micros::from_hours(17), Micros::from_hours(27));
        let day = Micros::from_hours(24);
        let a = prorate(earned, s, e, Micros::from_hours(0), day);
        let b = prorate(earned, s, e, day, Micros::from_hours(48));
        assert_eq!(a, Utility(3_626_000));
        assert_eq!(b, Utility(1_554_000));
        // Wholly inside and wholly outside.
        assert_eq!(
            prorate(earned, Micros(5), Micros(9), Micros(0), Micros(10)),
            earned
        );
        assert_eq!(
            prorate(earned, Micros(10), Micros(19), Micros(0), Micros(10)),
            Utility(0)
        );
        // Shares that do not divide evenly still add up exactly: 1/3 + 2/3.
        let x = prorate(Utility(10), Micros(0), Micros(3), Micros(0), Micros(1));
        let y = prorate(Utility(10), Micros(0), Micros(3), Micros(1), Micros(3));
        assert_eq!((x, y), (Utility(3), Utility(7)));
        // A zero-length run: all or nothing by whether its end is in [w0, w1).
        assert_eq!(
            prorate(earned, Micros(10), Micros(10), Micros(0), Micros(11)),
            earned
        );
        assert_eq!(
            prorate(earned, Micros(10), Micros(10), Micros(0), Micros(10)),
            Utility(0)
        );
        assert_eq!(
            prorate(earned, Micros(10), Micros(10), Micros(10), Micros(11)),
            earned
        );
    }

    fn arb_exp() -> impl Strategy<Value = UtilityCurve> {
        (
            0.0f64..100.0,
            prop::sample::select(&[0.6, 0.2, 0.1, 0.01][..]),
            0u64..10_000_000_000,
            0u8..20,
        )
            .prop_map(|(priority, urgency_per_min, first, class)| {
                UtilityCurve::PiecewiseExp {
                    priority,
                    urgency_per_min,
                    first: Micros(first),
                    class,
                }
            })
    }

    fn arb_linear() -> impl Strategy<Value = UtilityCurve> {
        (
            0.0f64..100.0,
            0.0f64..=1.0,
            0u64..10_000_000_000,
            0u64..10_000_000_000,
        )
            .prop_map(|(start, f, soft, extra)| UtilityCurve::Linear {
                start,
                soft: Micros(soft),
                hard: Micros(soft + extra),
                final_value: start * f,
            })
    }

    /// Times that often land on or next to an interval boundary, where a rise would show.
    fn arb_time() -> impl Strategy<Value = u64> {
        prop_oneof![
            0u64..2_000_000_000_000,
            (
                0u64..10_000_000_000,
                prop::sample::select(&[0u64, 5, 7, 10, 12, 15, 20, 25, 30, 40, 50][..])
            )
                .prop_map(|(f, m)| f + m * 60_000_000),
        ]
    }

    proptest! {
        #[test]
        fn value_never_increases(
            c in prop_oneof![arb_exp(), arb_linear()],
            t in arb_time(),
            d in prop_oneof![0u64..3, 0u64..1_000_000_000_000],
        ) {
            let cs = UtilityClasses::essc20();
            let a = c.value_at(Micros(t), &cs).unwrap();
            let b = c.value_at(Micros(t + d), &cs).unwrap();
            prop_assert!(b <= a, "{:?}: {} at {} then {} at {}", c, a, t, b, t + d);
            prop_assert!(a <= c.max_value() && b >= 0.0);
        }

        #[test]
        fn adjacent_windows_share_exactly(earned in 0u64..u64::MAX, s in 0u64..1_000_000, len in 0u64..1_000_000, cut in 0u64..2_000_000) {
            let (s, e, cut) = (Micros(s), Micros(s + len), Micros(cut));
            let a = prorate(Utility(earned), s, e, Micros(0), cut);
            let b = prorate(Utility(earned), s, e, cut, Micros::MAX);
            prop_assert_eq!(a.0 + b.0, earned);
            // And each is within one micro-unit of earned x overlap / length.
            if len > 0 {
                let ov = cut.0.clamp(s.0, e.0) - s.0;
                let exact = earned as u128 * ov as u128 / len as u128;
                prop_assert!((a.0 as u128).abs_diff(exact) <= 1);
            }
        }
    }
}

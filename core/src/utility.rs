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
        UtilityClass::check(intervals)?;
        let mut v = heapless::Vec::new();
        for iv in intervals {
            // Fits: `check` counted them.
            let _ = v.push(*iv);
        }
        Ok(UtilityClass { intervals: v })
    }

    /// The checks of [`UtilityClass::new`] without building the class: what a decoder runs
    /// on classes it has deserialized in place (`crate::packed`), with no second copy on
    /// the stack. The same errors, in the same order.
    pub fn check(intervals: &[ClassInterval]) -> Result<(), Error> {
        let mut prev: Option<&ClassInterval> = None;
        for (i, iv) in intervals.iter().enumerate() {
            let psi_ok = iv.psi >= 0.0 && iv.psi <= prev.map_or(1.0, |p| p.psi);
            let delta_ok = iv.delta.is_finite() && iv.delta >= 0.0;
            let order_ok = prev.is_none_or(|p| p.offset < iv.offset);
            if !(psi_ok && delta_ok && order_ok) {
                return Err(InputError::BadNumber.into());
            }
            if i >= MAX_CLASS_INTERVALS {
                return Err(full(Capacity::ClassIntervals, MAX_CLASS_INTERVALS).into());
            }
            prev = Some(iv);
        }
        Ok(())
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
    /// Either curve worth more than [`MAX_CURVE_VALUE`](crate::limits::MAX_CURVE_VALUE) is
    /// [`InputError::UtilityTooLarge`].
    pub fn value_at(&self, since_arrival: Micros, classes: &UtilityClasses) -> Result<f64, Error> {
        self.check()?;
        self.value_after_check(since_arrival, classes)
    }

    /// [`UtilityCurve::value_at`] for a curve whose [`UtilityCurve::check`] has already
    /// passed (the checks of its own numbers are not repeated; an unknown class is still an
    /// error): an inner loop's evaluation of curves checked once beforehand.
    pub(crate) fn value_after_check(
        &self,
        since_arrival: Micros,
        classes: &UtilityClasses,
    ) -> Result<f64, Error> {
        match *self {
            UtilityCurve::PiecewiseExp {
                priority,
                urgency_per_min,
                first,
                class,
            } => Ok(classes
                .get(class)?
                .value(priority, urgency_per_min, first, since_arrival)),
            UtilityCurve::Linear {
                start,
                soft,
                hard,
                final_value,
            } => {
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

    /// The checks [`UtilityCurve::value_at`] makes of the curve's own numbers (not its
    /// class, which needs the scenario's classes): worth at most
    /// [`MAX_CURVE_VALUE`](crate::limits::MAX_CURVE_VALUE), else
    /// [`InputError::UtilityTooLarge`]; a finite non-negative priority and urgency, or a
    /// finite `0 <= final_value <= start` and `soft <= hard`, else [`InputError::BadNumber`].
    /// A decoder runs it on every curve it reads ([`crate::packed`]).
    pub fn check(&self) -> Result<(), Error> {
        let ok = match *self {
            UtilityCurve::PiecewiseExp {
                priority,
                urgency_per_min,
                ..
            } => non_negative(priority) && non_negative(urgency_per_min),
            UtilityCurve::Linear {
                start,
                soft,
                hard,
                final_value,
            } => {
                non_negative(final_value)
                    && start.is_finite()
                    && final_value <= start
                    && soft <= hard
            }
        };
        if !ok {
            Err(InputError::BadNumber.into())
        } else if self.max_value() > crate::limits::MAX_CURVE_VALUE {
            Err(InputError::UtilityTooLarge.into())
        } else {
            Ok(())
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
mod tests;

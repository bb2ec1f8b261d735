//! Every task's utility curve prepared once for the NSGA-II's inner loop (seed 002 Chapter
//! 5): the integer [`Utility`] a task earns completing `dt` after its arrival, bit for bit
//! what `Utility::from_f64(curve.value_at(dt, classes).unwrap_or(0.0))` gives, without that
//! call's per-evaluation checks and lookups.
//!
//! Why it is exact: `value_at` checks the curve and looks its class up on every call; here
//! both ran once (a curve `value_at` refuses keeps the general path). The value itself is
//! the same IEEE operations on the same operands as `UtilityClass::value`, through `libm`.
//! The class intervals sit in flat arrays shared by every task of the class, so the interval
//! search reads cache, not a heap vector per task. The rounding to micro-units is
//! `libm::round`'s (half away from zero) done in integers: for `0 <= x < 2^52`, `x - trunc(x)`
//! is exact, so comparing it with 0.5 decides as `round` does; from 2^52 on every `f64` is an
//! integer. Linear curves (seed 001) keep the general path.
//!
//! The integer utility first tries a faster value ([`Curves::utility`]): the decay's `exp`
//! from [`crate::seed002::pareto::exp`] (within a proven absolute bound of e^y) and its argument by a
//! precomputed rate per microsecond (no division), then the same clamp and a rounding that
//! is trusted only if the value lies farther from a rounding edge (a half micro-unit) than
//! everything the approximation can move it; else the exact value above. See
//! [`Curves::utility`] for the bound.
use crate::seed002::pareto::exp::{exp_decay, ABS_ERROR};
use kairos_core::limits::MAX_CLASS_INTERVALS;
use kairos_core::units::{Micros, Utility};
use kairos_core::utility::{UtilityClasses, UtilityCurve};

/// A utility class's intervals k = 2, 3, ... as flat arrays (shared by every task of the
/// class, so they stay in cache).
#[derive(Clone, Debug, PartialEq)]
struct Class {
    /// Intervals.
    len: usize,
    /// Their starts, after the first (flat) interval; [`Micros::MAX`] from `len` on, so
    /// that [`Curves::utility`]'s search stops there without counting.
    offset: [Micros; MAX_CLASS_INTERVALS + 1],
    /// psi(k).
    psi: [f64; MAX_CLASS_INTERVALS],
    /// psi(k + 1) (0 after the last).
    psi_next: [f64; MAX_CLASS_INTERVALS],
    /// delta(k).
    delta: [f64; MAX_CLASS_INTERVALS],
    /// -delta(k) per microsecond (-delta(k) / 6e7): the decay's argument per microsecond and
    /// unit of urgency, for [`Curves::utility`]'s faster value.
    rate: [f64; MAX_CLASS_INTERVALS],
    /// Whether the faster value's bound holds for this class: every psi finite, at least 0
    /// and not above the one before, and every delta finite and at least 0 (so that
    /// 0 <= Psi(k + 1) <= Psi(k) and the decay's argument is at most 0); and the offsets
    /// rising (so that the interval is found from the first up).
    decays: bool,
}

/// One task's curve.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Curve {
    /// Piecewise exponential (seed 002 Eq. 1).
    Exp {
        /// Length of the first, flat interval.
        first: Micros,
        priority: f64,
        urgency_per_min: f64,
        /// Index into [`Curves::classes`].
        class: u8,
        /// The utility at the priority (before the first interval ends).
        flat: Utility,
        /// Whether [`Curves::utility`] may try the faster value: the class decays and
        /// the priority and urgency are finite and at least 0.
        fast: bool,
    },
    /// Any other curve: evaluated through [`UtilityCurve::value_at`].
    General(UtilityCurve),
}

/// What [`Curves::utility`]'s faster value reads of a task, in one record with no variant
/// to match: a [`Curve::Exp`]'s fields, `class` [`NOT_FAST`] where the faster value does not
/// apply (its `fast` is false, or the curve is not `Exp`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Fast {
    first: Micros,
    priority: f64,
    urgency_per_min: f64,
    flat: Utility,
    class: u8,
}

/// [`Fast::class`] of a task the faster value does not apply to.
const NOT_FAST: u8 = u8::MAX;

/// Every task's curve, prepared.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Curves {
    classes: Vec<Class>,
    tasks: Vec<Curve>,
    /// Per task, what the faster value reads (from `tasks`).
    fast: Vec<Fast>,
    /// The scenario's classes, for the general path.
    all: UtilityClasses,
}

impl Curves {
    /// Prepares `curves` (task by task) over `classes`. A curve `value_at` refuses keeps the
    /// general path, which then earns nothing, as `value_at`'s error did.
    pub(crate) fn new<'a>(
        curves: impl Iterator<Item = &'a UtilityCurve>,
        classes: &UtilityClasses,
    ) -> Curves {
        let prepared: Vec<Class> = classes
            .classes
            .iter()
            .map(|c| {
                let ivs = &c.intervals;
                let mut out = Class {
                    len: ivs.len(),
                    offset: [Micros::MAX; MAX_CLASS_INTERVALS + 1],
                    psi: [0.0; MAX_CLASS_INTERVALS],
                    psi_next: [0.0; MAX_CLASS_INTERVALS],
                    delta: [0.0; MAX_CLASS_INTERVALS],
                    rate: [0.0; MAX_CLASS_INTERVALS],
                    decays: true,
                };
                for (k, iv) in ivs.iter().enumerate() {
                    out.offset[k] = iv.offset;
                    out.psi[k] = iv.psi;
                    out.psi_next[k] = ivs.get(k + 1).map_or(0.0, |n| n.psi);
                    out.delta[k] = iv.delta;
                    out.rate[k] = -iv.delta / 6e7;
                    let psi_ok = iv.psi.is_finite() && iv.psi >= 0.0 && out.psi_next[k] <= iv.psi;
                    let delta_ok = iv.delta.is_finite() && iv.delta >= 0.0;
                    let order_ok = k == 0 || ivs[k - 1].offset < iv.offset;
                    out.decays &= psi_ok && delta_ok && order_ok;
                }
                out
            })
            .collect();
        let tasks: Vec<Curve> = curves
            .map(|curve| match *curve {
                UtilityCurve::PiecewiseExp {
                    priority,
                    urgency_per_min,
                    first,
                    class,
                } if curve.check().is_ok() && classes.get(class).is_ok() => Curve::Exp {
                    first,
                    priority,
                    urgency_per_min,
                    class,
                    flat: round_units(priority),
                    fast: prepared[class as usize].decays
                        && priority.is_finite()
                        && priority >= 0.0
                        && urgency_per_min.is_finite()
                        && urgency_per_min >= 0.0,
                },
                _ => Curve::General(*curve),
            })
            .collect();
        let fast = tasks
            .iter()
            .map(|curve| match *curve {
                Curve::Exp {
                    first,
                    priority,
                    urgency_per_min,
                    class,
                    flat,
                    fast: true,
                } => Fast {
                    first,
                    priority,
                    urgency_per_min,
                    flat,
                    class,
                },
                _ => Fast {
                    first: Micros::ZERO,
                    priority: 0.0,
                    urgency_per_min: 0.0,
                    flat: Utility(0),
                    class: NOT_FAST,
                },
            })
            .collect();
        Curves {
            classes: prepared,
            tasks,
            fast,
            all: classes.clone(),
        }
    }

    /// The utility task `t` earns completing `dt` after its arrival, in micro-units:
    /// `round_units(self.value(t, dt))`, through the faster value where it decides the same.
    ///
    /// Why the faster value gives the same integer. With `bk = fl(psi(k) p)`, `bn =
    /// fl(psi(k+1) p)` and `a = fl(bk - bn)` (the same operations as `value`'s; the class's
    /// checks give 0 <= bn <= bk, so 0 <= a <= bk), both paths compute `x = fl(clamp(fl(fl(a
    /// e) + bn), bn, bk) 1e6)`, `value` with `e_t = libm::exp(y_t)`, `y_t = fl(fl(-fl(delta
    /// urgency)) fl(m / 6e7))` (m the microseconds into the interval), this one with `e_a =
    /// exp_decay(y_a)`, `y_a = fl(fl(rate urgency) m)`, `rate = fl(-delta / 6e7)`. With u =
    /// 2^-53: y_t and y_a are each within 3u|y| of the real y <= 0, and |y| e^y <= 1/e, so
    /// e^{y_a} and e^{y_t} differ by at most 2.3u; `exp_decay` is within 2^-50 of e^{y_a}
    /// and `libm::exp` within an ulp (2^-52) of e^{y_t}: |e_a - e_t| < 2^-48 (both at most
    /// 1 + 2^-48). The product by a adds a rounding of each side (2u a), the sum with bn
    /// one of each (2.1u (a + bn)), the clamp is 1-Lipschitz (bn <= bk), and the product
    /// by 1e6 one more rounding of each (2u 1e6 bk): |x_a - x_t| < 1e6 bk 2^-44, as a + bn
    /// <= 2 bk. `round_units` is a step function of x with steps only at half-integers
    /// (0 for every x below 0.5, `u <= 0` included), so if no half-integer lies within
    /// [`MARGIN`] 1e6 bk (2^-40, sixteen times the bound) of x_a, x_t rounds to the same
    /// integer; else, and for a class or curve the bound does not cover, the exact value.
    #[inline]
    pub(crate) fn utility(&self, t: usize, dt: Micros) -> Utility {
        self.utility_near(t, dt, MARGIN)
            .unwrap_or_else(|| round_units(self.value(t, dt)))
    }

    /// [`Curves::utility`]'s faster value, if it is farther than `margin` times `bk` from a
    /// rounding edge (and the curve's bound holds); `None` if the exact value must decide.
    #[inline(always)]
    fn utility_near(&self, t: usize, dt: Micros, margin: f64) -> Option<Utility> {
        let Fast {
            first,
            priority,
            urgency_per_min,
            flat,
            class,
        } = self.fast[t];
        if class == NOT_FAST {
            return None;
        }
        if dt < first {
            return Some(flat);
        }
        let d = dt - first;
        if d.0 >= 1 << 53 {
            // (So that the microseconds into the interval, at most d, convert exactly, and
            // the padding, `Micros::MAX`, never counts as an interval.)
            return None;
        }
        match fast_decay(&self.classes[class as usize], d, priority, urgency_per_min) {
            None => Some(flat),
            Some((u, big_k)) => round_clear(u * 1e6, big_k * margin),
        }
    }

    /// Whether task `t`'s curve `dt` after its arrival is below `theta`: `self.value(t, dt)
    /// < theta` (Chapter 7's drop test), through the faster value where it decides the same.
    ///
    /// Why the faster value decides the same: before the product by 1e6, [`Curves::utility`]'s
    /// argument bounds the two clamped values' distance by a (2^-48 + 2.1u) from the
    /// product by a and 2.1u (a + bn) <= 4.2u bk from the sum (u = 2^-53, 0 <= bn, a <= bk):
    /// under bk 2^-47. Farther than [`DECIDE`] bk (2^-40, 128 times that) from `theta`,
    /// the faster value lies on the same side of it as the exact one; else, and for a curve
    /// the bound does not cover, the exact value decides.
    #[inline]
    pub(crate) fn below(&self, t: usize, dt: Micros, theta: f64) -> bool {
        let Fast {
            first,
            priority,
            urgency_per_min,
            class,
            ..
        } = self.fast[t];
        if class != NOT_FAST {
            if dt < first {
                return priority < theta;
            }
            let d = dt - first;
            if d.0 < 1 << 53 {
                match fast_decay(&self.classes[class as usize], d, priority, urgency_per_min) {
                    None => return priority < theta,
                    Some((u, big_k)) if (u - theta).abs() > big_k * DECIDE => return u < theta,
                    Some(_) => {}
                }
            }
        }
        self.value(t, dt) < theta
    }

    /// The value of task `t`'s curve `dt` after its arrival: `value_at`'s, or 0 where it
    /// fails.
    #[inline]
    pub(crate) fn value(&self, t: usize, dt: Micros) -> f64 {
        match self.tasks[t] {
            Curve::Exp {
                first,
                priority,
                urgency_per_min,
                class,
                ..
            } => {
                if dt < first {
                    return priority;
                }
                let d = dt - first;
                let c = &self.classes[class as usize];
                // The last interval starting at or before d.
                let Some(k) = (0..c.len).rev().find(|&k| c.offset[k] <= d) else {
                    return priority;
                };
                // The same operations on the same operands as `UtilityClass::value`.
                let big_k = c.psi[k] * priority;
                let big_next = c.psi_next[k] * priority;
                let minutes = (d - c.offset[k]).as_mins_f64();
                let u = (big_k - big_next) * libm::exp(-(c.delta[k] * urgency_per_min) * minutes)
                    + big_next;
                if u < big_next {
                    big_next
                } else if u > big_k {
                    big_k
                } else {
                    u
                }
            }
            Curve::General(c) => c.value_at(dt, &self.all).unwrap_or(0.0),
        }
    }
}

/// The faster value of a decaying curve (class `c`, `priority`, `urgency_per_min`) `d`
/// after its first interval (`d` < 2^53), clamped, and its `bk` (psi(k) priority):
/// [`Curves::utility`]'s before the rounding. `None` before the class's first interval
/// starts (the value is the priority).
#[inline(always)]
fn fast_decay(c: &Class, d: Micros, priority: f64, urgency_per_min: f64) -> Option<(f64, f64)> {
    // The last interval starting at or before d, found from the first (the offsets
    // rise, most completions fall in the first intervals, and the padding stops it).
    if c.offset[0] > d {
        return None;
    }
    let k = c.offset[1..].iter().take_while(|&&o| o <= d).count();
    let m = (d - c.offset[k]).0;
    let big_k = c.psi[k] * priority;
    let big_next = c.psi_next[k] * priority;
    // Exact as a signed conversion (m < 2^53), which is one instruction.
    let y = c.rate[k] * urgency_per_min * (m as i64 as f64);
    let u = (big_k - big_next) * exp_decay(y) + big_next;
    let u = if u < big_next {
        big_next
    } else if u > big_k {
        big_k
    } else {
        u
    };
    Some((u, big_k))
}

/// The distance per unit of `bk` from the threshold beyond which [`Curves::below`] trusts
/// the faster value: 2^-40, 128 times its bound.
const DECIDE: f64 = ABS_ERROR * 1024.0;

/// The margin per unit of `bk` (1e6 2^-40, in micro-units) that [`Curves::utility`] keeps
/// from a rounding edge: sixteen times the faster value's bound.
const MARGIN: f64 = 1e6 * (ABS_ERROR * 1024.0);

/// `round_units`' integer for a value of `x >= 0` micro-units, if every `x'` within `margin`
/// of `x` rounds to it (no half-integer lies within `margin`); `None` if one may not.
///
/// For `0 <= x < 2^51`, `x + 2^52` is x rounded to the nearest integer n (its low bits:
/// the doubles there are the integers), `(x + 2^52) - 2^52` and `x - n` are exact
/// (Sterbenz), and the nearest half-integer is 0.5 - |x - n| away (exact when |x - n| >=
/// 0.25; below, it is above 0.25 and the margin is kept below that). Farther than the
/// margin from every half-integer, any rounding to nearest gives n.
#[inline]
fn round_clear(x: f64, margin: f64) -> Option<Utility> {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    if !((0.0..TWO_52 / 2.0).contains(&x) && margin < 0.25) {
        return None;
    }
    let big = x + TWO_52;
    let n = big.to_bits() - TWO_52.to_bits();
    if 0.5 - (x - (big - TWO_52)).abs() <= margin {
        return None;
    }
    Some(Utility(n))
}

/// [`Utility::from_f64`] without `libm::round` (see the module comment for why it is the same).
#[inline]
fn round_units(u: f64) -> Utility {
    if u.is_nan() || u <= 0.0 {
        return Utility(0);
    }
    let x = u * 1e6;
    if x >= 4_503_599_627_370_496.0 {
        // 2^52 and above: already an integer (saturating like `as u64` after `round`).
        return Utility(x as u64);
    }
    let i = x as u64;
    let frac = x - i as f64;
    Utility(if frac >= 0.5 { i + 1 } else { i })
}

#[cfg(test)]
#[path = "curve_tests.rs"]
mod tests;

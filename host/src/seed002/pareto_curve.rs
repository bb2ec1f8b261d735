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

use kairos_core::limits::MAX_CLASS_INTERVALS;
use kairos_core::units::{Micros, Utility};
use kairos_core::utility::{UtilityClasses, UtilityCurve};

/// A utility class's intervals k = 2, 3, ... as flat arrays (shared by every task of the
/// class, so they stay in cache).
#[derive(Clone, Debug, PartialEq)]
struct Class {
    /// Intervals.
    len: usize,
    /// Their starts, after the first (flat) interval.
    offset: [Micros; MAX_CLASS_INTERVALS],
    /// psi(k).
    psi: [f64; MAX_CLASS_INTERVALS],
    /// psi(k + 1) (0 after the last).
    psi_next: [f64; MAX_CLASS_INTERVALS],
    /// delta(k).
    delta: [f64; MAX_CLASS_INTERVALS],
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
    },
    /// Any other curve: evaluated through [`UtilityCurve::value_at`].
    General(UtilityCurve),
}

/// Every task's curve, prepared.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Curves {
    classes: Vec<Class>,
    tasks: Vec<Curve>,
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
        let prepared = classes
            .classes
            .iter()
            .map(|c| {
                let ivs = &c.intervals;
                let mut out = Class {
                    len: ivs.len(),
                    offset: [Micros::ZERO; MAX_CLASS_INTERVALS],
                    psi: [0.0; MAX_CLASS_INTERVALS],
                    psi_next: [0.0; MAX_CLASS_INTERVALS],
                    delta: [0.0; MAX_CLASS_INTERVALS],
                };
                for (k, iv) in ivs.iter().enumerate() {
                    out.offset[k] = iv.offset;
                    out.psi[k] = iv.psi;
                    out.psi_next[k] = ivs.get(k + 1).map_or(0.0, |n| n.psi);
                    out.delta[k] = iv.delta;
                }
                out
            })
            .collect();
        let tasks = curves
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
                },
                _ => Curve::General(*curve),
            })
            .collect();
        Curves {
            classes: prepared,
            tasks,
            all: classes.clone(),
        }
    }

    /// The utility task `t` earns completing `dt` after its arrival, in micro-units.
    #[inline]
    pub(crate) fn utility(&self, t: usize, dt: Micros) -> Utility {
        round_units(self.value(t, dt))
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
mod tests {
    use super::*;
    use crate::generate::rng::Stream;
    use kairos_core::utility::Urgency;

    #[test]
    fn rounding_matches_from_f64_at_the_edges() {
        let cases = [
            0.0,
            -1.0,
            f64::NAN,
            f64::from_bits(0.5e-6f64.to_bits() - 2),
            0.5e-6,
            f64::from_bits(0.5e-6f64.to_bits() - 1),
            // The largest double below 0.5, times 10^-6 (so u * 1e6 lands just below 0.5).
            f64::from_bits(0.5f64.to_bits() - 1) / 1e6,
            1.5e-6,
            2.5e-6,
            5.18,
            1e9,
            4.5e9,
            4.503599627370497e9,
            1e12,
            1e300,
            f64::INFINITY,
        ];
        for u in cases {
            assert_eq!(round_units(u), Utility::from_f64(u), "{u:e}");
        }
        let mut rng = Stream::new(7, 0, "round", 0);
        for _ in 0..100_000 {
            let u = rng.unit() * 10f64.powi(rng.int(0, 12) as i32 - 6);
            assert_eq!(round_units(u), Utility::from_f64(u), "{u:e}");
            // Exactly half a micro-unit, and its neighbours.
            let h = (rng.int(0, 1 << 40) as f64 + 0.5) / 1e6;
            for v in [
                h,
                f64::from_bits(h.to_bits() - 1),
                f64::from_bits(h.to_bits() + 1),
            ] {
                assert_eq!(round_units(v), Utility::from_f64(v), "{v:e}");
            }
        }
    }

    #[test]
    fn prepared_curves_earn_what_value_at_gives_bit_for_bit() {
        let classes = UtilityClasses::essc20();
        let mut rng = Stream::new(11, 0, "curve", 0);
        for _ in 0..300 {
            let urgency = [Urgency::Low, Urgency::Medium, Urgency::High][rng.int(0, 2) as usize];
            let curve = UtilityCurve::essc(
                rng.unit() * 10.0,
                urgency,
                Micros(rng.int(1, 600_000_000)),
                rng.int(0, 19) as u8,
            );
            let fast = Curves::new([curve].iter(), &classes);
            assert!(matches!(fast.tasks[0], Curve::Exp { .. }));
            for _ in 0..300 {
                // Up to about a week, so every interval and the step at each boundary.
                let dt = Micros(rng.int(0, 600_000_000_000));
                let want = Utility::from_f64(curve.value_at(dt, &classes).unwrap_or(0.0));
                assert_eq!(fast.utility(0, dt), want, "{curve:?} at {dt:?}");
                let v = curve.value_at(dt, &classes).unwrap();
                assert_eq!(fast.value(0, dt).to_bits(), v.to_bits());
            }
        }
        let linear = UtilityCurve::Linear {
            start: 3.0,
            soft: Micros(10),
            hard: Micros(20),
            final_value: 1.0,
        };
        let fast = Curves::new([linear].iter(), &classes);
        assert!(matches!(fast.tasks[0], Curve::General(_)));
        assert_eq!(fast.utility(0, Micros(15)), Utility(2_000_000));
    }
}

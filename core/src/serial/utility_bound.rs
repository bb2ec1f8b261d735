//! Upper bounds on how much a piecewise-exponential utility curve (seed 002 Eq. 1) can fall
//! between two completion times, from the curve's levels alone: no exponential is evaluated.
//!
//! Sufferage needs, at every pass, each task's drop between its first and second completion
//! and keeps only the largest per machine; most drops are far below the largest, and a bound
//! that is cheap to compute lets the pass skip evaluating them. The bound is exact arithmetic
//! on the curve's definition (`crate::utility`): within one interval k the curve is
//! `(K_k - K_k+1) e^(-lambda m) + K_k+1`, whose drop over `dm` minutes from value `u1` is
//! `(u1 - K_k+1)(1 - e^(-lambda dm)) <= (u1 - K_k+1) lambda dm`; across intervals it falls
//! at most from the first interval's top to the second's floor. A relative margin covers
//! the last-bit rounding of the evaluated curve, so a skip on `bound < best` can never skip
//! a task whose evaluated drop would have won. Any other curve gets no bound (infinity).
//! Energy-aware and Pareto heuristics that rank by a utility difference could use it too.

use crate::units::Micros;
use crate::utility::{UtilityClasses, UtilityCurve};

/// Margin on every bound, relative to the curve's priority: far above the rounding of
/// `a - b + b` and the clamp in the evaluated curve (~1e-15 of the priority).
const MARGIN: f64 = 1e-9;

/// The interval holding age `t` of a curve with first interval `first`: `None` while the
/// curve is flat at its priority, else the index of the class interval.
#[inline]
fn interval(
    class: &crate::utility::UtilityClass,
    first: Micros,
    t: Micros,
) -> Option<(usize, Micros)> {
    if t < first {
        return None;
    }
    let dt = t - first;
    let k = class.intervals.iter().rposition(|iv| iv.offset <= dt)?;
    Some((k, dt - class.intervals[k].offset))
}

/// An upper bound on `curve(a1) - curve(a2)` for ages `a1 <= a2`, given `u1_max`, an upper
/// bound on `curve(a1)` (the priority if nothing better is known). Infinity when no bound
/// is known (a linear curve, an unknown class).
pub(crate) fn drop_bound(
    curve: &UtilityCurve,
    classes: &UtilityClasses,
    a1: Micros,
    a2: Micros,
    u1_max: f64,
) -> f64 {
    let UtilityCurve::PiecewiseExp {
        priority,
        urgency_per_min,
        first,
        class,
    } = *curve
    else {
        return f64::INFINITY;
    };
    let Ok(class) = classes.get(class) else {
        return f64::INFINITY;
    };
    let level = |k: usize| class.intervals.get(k).map_or(0.0, |iv| iv.psi * priority);
    let margin = MARGIN * priority;
    // The common case first: both ages in one interval, found with one search.
    if let Some((k1, m1)) = interval(class, first, a1) {
        let end = class
            .intervals
            .get(k1 + 1)
            .map(|iv| first.saturating_add(iv.offset));
        if end.is_none_or(|e| a2 < e) {
            let m2 = a2 - first - class.intervals[k1].offset;
            let top = u1_max.min(level(k1));
            let floor = level(k1 + 1);
            let lambda = class.intervals[k1].delta * urgency_per_min;
            let dm = (m2 - m1).as_mins_f64();
            return ((top - floor) * lambda * dm).min(top - floor).max(0.0) + margin;
        }
    }
    let raw = match (interval(class, first, a1), interval(class, first, a2)) {
        // Flat at both ages: the evaluated curve is the priority at both, exactly.
        (None, None) => return 0.0,
        (Some((k1, m1)), Some((k2, m2))) if k1 == k2 => {
            let top = u1_max.min(level(k1));
            let floor = level(k1 + 1);
            let lambda = class.intervals[k1].delta * urgency_per_min;
            let dm = (m2 - m1).as_mins_f64();
            ((top - floor) * lambda * dm).min(top - floor)
        }
        (i1, i2) => {
            let top = i1.map_or(priority, |(k, _)| level(k)).min(u1_max);
            let floor = i2.map_or(priority, |(k, _)| level(k + 1));
            top - floor
        }
    };
    raw.max(0.0) + margin
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::utility::{TableC1, Urgency};

    /// The bound holds over a grid of ages for every Table C.1 class and urgency, and is
    /// tight within an interval (no more than the drop's first-order term).
    #[test]
    fn the_bound_is_never_below_the_evaluated_drop() {
        let classes = UtilityClasses::essc20();
        for class in 0..classes.len() as u8 {
            for urgency in Urgency::ALL {
                let curve = UtilityCurve::essc(8.0, urgency, Micros::from_secs(600), class);
                let v = |t: u64| curve.value_at(Micros(t), &classes).unwrap();
                let mut a = 0u64;
                while a < 40 * 3_600_000_000 {
                    for d in [
                        1u64,
                        1_000,
                        1_000_000,
                        60_000_000,
                        600_000_000,
                        7_200_000_000,
                    ] {
                        let drop = v(a) - v(a + d);
                        for u1 in [8.0, v(a)] {
                            let b = drop_bound(&curve, &classes, Micros(a), Micros(a + d), u1);
                            assert!(
                                b >= drop,
                                "class {class} {urgency:?} at {a} + {d}: {b} < {drop}"
                            );
                        }
                    }
                    a += 77_777_777;
                }
            }
        }
        let _ = TableC1::ALL;
    }

    #[test]
    fn flat_ages_drop_nothing_and_linear_curves_have_no_bound() {
        let classes = UtilityClasses::essc20();
        let c = UtilityCurve::essc(4.0, Urgency::ALL[0], Micros::from_secs(600), 0);
        assert_eq!(drop_bound(&c, &classes, Micros(0), Micros(5), 4.0), 0.0);
        let lin = UtilityCurve::Linear {
            start: 1.0,
            soft: Micros(10),
            hard: Micros(20),
            final_value: 0.0,
        };
        assert_eq!(
            drop_bound(&lin, &classes, Micros(0), Micros(5), 1.0),
            f64::INFINITY
        );
    }
}

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
    // The offsets ascend (`UtilityClass::check`): the last one at or before `dt`, counted
    // from the front, where the young tasks of a batch are.
    let k = class
        .intervals
        .iter()
        .take_while(|iv| iv.offset <= dt)
        .count()
        .checked_sub(1)?;
    Some((k, dt - class.intervals[k].offset))
}

/// A piecewise-exponential curve's priority, urgency rate, first interval and class;
/// `None` for any other curve or an unknown class (no bound is known for them).
fn piecewise<'c>(
    curve: &UtilityCurve,
    classes: &'c UtilityClasses,
) -> Option<(f64, f64, Micros, &'c crate::utility::UtilityClass)> {
    let UtilityCurve::PiecewiseExp {
        priority,
        urgency_per_min,
        first,
        class,
    } = *curve
    else {
        return None;
    };
    Some((priority, urgency_per_min, first, classes.get(class).ok()?))
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
    let Some((priority, urgency_per_min, first, class)) = piecewise(curve, classes) else {
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

/// A bound on a curve's drop that keeps holding while both ages grow: for every later pair
/// of ages `b1 <= b2` with `b1` at least the age it was made at and `b2 < until`, the drop
/// `curve(b1) - curve(b2)` is at most `step + scale * factor(rate, dm) + margin` for the gap
/// of `dm` minutes between them (`Lasting::at`).
///
/// Sufferage's pass bounds all of a task type's tasks at once with it: within an event the
/// completions only move later, so a bound made once lasts until the second completion
/// reaches the earliest `until` among the type's tasks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lasting {
    /// What the curve can still fall at once, whatever the gap: across the step into the
    /// later age's interval (0 when both ages are in one interval).
    pub step: f64,
    /// What the curve can still fall by decaying (to the interval's floor).
    pub scale: f64,
    /// The interval's decay rate per minute; infinity when the whole `scale` can be lost
    /// whatever the gap (the later age may already be past a step down).
    pub rate: f64,
    /// [`MARGIN`] of the priority: the evaluated curve's rounding.
    pub margin: f64,
    /// The later age below which the bound holds ([`Micros::MAX`]: always).
    pub until: Micros,
    /// Whether what the curve can still fall decays (at least at `rate`) as the earlier age
    /// grows: not across a step, where the earlier age may still be before it.
    pub decays: bool,
}

impl Lasting {
    /// The bound for a gap of `dm` minutes between the two ages.
    #[cfg(test)]
    pub fn at(&self, dm: f64) -> f64 {
        self.step + self.scale * factor(self.rate, dm) + self.margin
    }
}

/// `min(rate * dm, 1)`, and 1 for an infinite rate (never NaN for `dm >= 0`).
#[inline]
pub(crate) fn factor(rate: f64, dm: f64) -> f64 {
    if rate == f64::INFINITY {
        1.0
    } else {
        (rate * dm).min(1.0)
    }
}
/// A [`Lasting`] bound for ages `a1 <= a2` now, where `u1()` is the evaluated curve at `a1`
/// (called only where it pays: where the curve decays to 0, and past a step).
///
/// Why it holds: within interval k the curve is `(u - K_k+1)` decaying at rate `lambda`,
/// so from any later age `b1` its drop over `dm` minutes is `(curve(b1) - K_k+1)(1 -
/// e^(-lambda dm)) <= (u1 - K_k+1) min(lambda dm, 1)` as long as `b2` stays in the interval
/// (`until` is its end); flat at `a2`, the drop is exactly 0 until the flat part ends.
/// With `a2` one step past `a1` (`a2` in interval k, `a1` before it), while `b2` stays in
/// interval k: if `b1` is before the step, the drop is `curve(b1) - K_k` (at most `u1 -
/// K_k`) plus the decay in interval k since it began, `(K_k - K_k+1)(1 - e^(-lambda (b2 -
/// start)))`, and `b2 - start <= dm`; if `b1` is in interval k too, the drop is at most
/// `(K_k - K_k+1) min(lambda dm, 1)` as above. Further past a step the drop is at most the
/// value down to the later interval's floor, whatever the gap.
pub(crate) fn lasting(
    curve: &UtilityCurve,
    classes: &UtilityClasses,
    a1: Micros,
    a2: Micros,
    u1: impl FnOnce() -> f64,
) -> Lasting {
    let no_bound = Lasting {
        step: 0.0,
        scale: f64::INFINITY,
        rate: f64::INFINITY,
        margin: 0.0,
        until: Micros::MAX,
        decays: false,
    };
    let Some((priority, urgency_per_min, first, class)) = piecewise(curve, classes) else {
        return no_bound;
    };
    let margin = MARGIN * priority;
    let end = |k: usize| {
        class
            .intervals
            .get(k)
            .map_or(Micros::MAX, |iv| first.saturating_add(iv.offset))
    };
    // The level interval k decays towards.
    let floor = |k: usize| {
        class
            .intervals
            .get(k + 1)
            .map_or(0.0, |iv| iv.psi * priority)
    };
    match (interval(class, first, a1), interval(class, first, a2)) {
        // Flat at both ages: the evaluated curve is the priority at both, exactly.
        (_, None) => Lasting {
            step: 0.0,
            scale: 0.0,
            rate: 0.0,
            margin,
            until: end(0),
            decays: true,
        },
        (Some((k1, m1)), Some((k2, _))) if k1 == k2 => {
            let floor = floor(k1);
            let level = class.intervals[k1].psi * priority;
            let rate = class.intervals[k1].delta * urgency_per_min;
            // The value itself only where the curve decays towards 0 (Table C.1's long last
            // interval, where a task can wait for hours and its bound lasts): there it pays
            // for its exponential. Elsewhere a bound on it with no exponential:
            // e^-x <= 1 / (1 + x + x^2/2 + x^3/6) for x >= 0 (the series of e^x has no
            // negative term), x the decay so far in the interval.
            let top = if floor == 0.0 {
                u1().min(level)
            } else {
                let x = rate * m1.as_mins_f64();
                floor + (level - floor) / (1.0 + x * (1.0 + x * (0.5 + x / 6.0)))
            };
            Lasting {
                step: 0.0,
                scale: (top - floor).max(0.0),
                rate,
                margin,
                until: end(k1 + 1),
                decays: true,
            }
        }
        // Past a step: the drop is at most the value down to the floor of the later age's
        // interval, while the later age stays at or before that interval (the levels
        // descend, `UtilityClass::check`); whatever the gap.
        (None, Some((k2, _))) => Lasting {
            step: 0.0,
            scale: priority - floor(k2),
            rate: f64::INFINITY,
            margin,
            until: end(k2 + 1),
            decays: false,
        },
        // One step: the step itself at once, the later interval's decay at its rate.
        (Some((k1, _)), Some((k2, _))) if k2 == k1 + 1 => {
            let level = class.intervals[k2].psi * priority;
            let floor = floor(k2);
            Lasting {
                step: (u1().min(priority) - level).max(0.0),
                scale: (level - floor).max(0.0),
                rate: class.intervals[k2].delta * urgency_per_min,
                margin,
                until: end(k2 + 1),
                decays: false,
            }
        }
        (Some(_), Some((k2, _))) => Lasting {
            step: 0.0,
            scale: (u1().min(priority) - floor(k2)).max(0.0),
            rate: f64::INFINITY,
            margin,
            until: end(k2 + 1),
            decays: false,
        },
    }
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

    /// A lasting bound made at ages (a1, a2) holds for every later pair of ages with the
    /// later one below `until`, over a grid of ages for every Table C.1 class and urgency.
    #[test]
    fn a_lasting_bound_holds_while_the_ages_grow() {
        let classes = UtilityClasses::essc20();
        let gaps = [0u64, 1, 1_000_000, 60_000_000, 600_000_000, 7_200_000_000];
        for class in 0..classes.len() as u8 {
            for urgency in Urgency::ALL {
                let curve = UtilityCurve::essc(8.0, urgency, Micros::from_secs(600), class);
                let v = |t: u64| curve.value_at(Micros(t), &classes).unwrap();
                let mut a = 0u64;
                while a < 30 * 3_600_000_000 {
                    for d in gaps {
                        let l = lasting(&curve, &classes, Micros(a), Micros(a + d), || v(a));
                        for later in [0u64, 1, 30_000_000, 400_000_000, 5_000_000_000] {
                            for d2 in gaps {
                                let (b1, b2) = (a + later, a + later + d2);
                                if Micros(b2) >= l.until || b2 < a + d {
                                    continue;
                                }
                                let drop = v(b1) - v(b2);
                                let b = l.at(Micros(d2).as_mins_f64());
                                assert!(b >= drop, "{class} {urgency:?} {a} {d} {later} {d2}");
                            }
                        }
                    }
                    a += 97_777_777;
                }
            }
        }
    }

    /// Hand-worked: class A (Table C.1), priority 8, medium urgency (0.1 a minute), a first
    /// interval of 10 min. One minute into interval k = 2 (psi 1 -> 0.6, delta 1.1) it can
    /// still fall to 4.8, at most 3.2 / (1 + x + x^2/2 + x^3/6) for the decay so far
    /// x = 0.11 (above the exact 3.2 e^-0.11), at rate 0.11 a minute, until the interval ends
    /// 5 min after it began; at the interval's start, all of 3.2. In interval k = 5 (psi
    /// 0.1 -> 0, delta 1.2), 10 min in, the value
    /// is 0.8 e^(-1.2), all of which it can lose, at rate 0.12, for 10,000 minutes.
    #[test]
    fn a_lasting_bound_by_hand() {
        let classes = UtilityClasses::essc20();
        let curve = UtilityCurve::essc(8.0, Urgency::Medium, Micros::from_mins(10), 0);
        let u = |t: Micros| curve.value_at(t, &classes).unwrap();
        let (a1, a2) = (Micros::from_mins(11), Micros::from_mins(13));
        let l = lasting(&curve, &classes, a1, a2, || u(a1));
        let x = 0.11f64;
        let want = 3.2 / (1.0 + x + x * x / 2.0 + x * x * x / 6.0);
        assert!((l.scale - want).abs() < 1e-12, "{}", l.scale);
        assert!(l.scale > 3.2 * libm::exp(-x) && l.scale < 2.87);
        let start = Micros::from_mins(10);
        let s = lasting(&curve, &classes, start, a1, || u(start));
        assert!((s.scale - 3.2).abs() < 1e-12, "{}", s.scale);
        assert!((l.rate - 0.11).abs() < 1e-15);
        assert_eq!(l.until, Micros::from_mins(15));
        assert_eq!(l.margin, 8.0 * MARGIN);
        let (b1, b2) = (Micros::from_mins(50), Micros::from_mins(52));
        let last = lasting(&curve, &classes, b1, b2, || u(b1));
        assert!((last.scale - 0.8 * libm::exp(-1.2)).abs() < 1e-12);
        assert!((last.rate - 0.12).abs() < 1e-15);
        assert_eq!(last.until, Micros::from_mins(10_010));
        // Flat at both ages: nothing to lose until the flat part ends.
        let flat = lasting(&curve, &classes, Micros(0), Micros::from_mins(9), || 8.0);
        assert_eq!((flat.scale, flat.until), (0.0, Micros::from_mins(10)));
        // Across the step at 15 min into k = 3 (psi 0.6 -> 0.3, delta 1.15): the value down
        // to 4.8 at once, then what k = 3 can decay, 2.4, at its rate 0.115 a minute, until
        // k = 3 ends at 20 min (for a long gap, the value down to 2.4); into k = 6 (psi 0.1
        // -> 0), the whole value whatever the gap, until k = 6 ends at 10,010 min.
        let step = lasting(&curve, &classes, a1, Micros::from_mins(16), || u(a1));
        assert_eq!(step.until, Micros::from_mins(20));
        assert!((step.rate - 0.115).abs() < 1e-15);
        assert!((step.step - (u(a1) - 4.8)).abs() < 1e-12);
        assert!((step.scale - 2.4).abs() < 1e-12);
        assert!((step.at(2.0) - (u(a1) - 4.8 + 2.4 * 0.23 + l.margin)).abs() < 1e-12);
        assert!((step.at(60.0) - (u(a1) - 2.4 + l.margin)).abs() < 1e-12);
        let deep = lasting(&curve, &classes, a1, Micros::from_mins(41), || u(a1));
        let to = Micros::from_mins(10_010);
        assert_eq!((deep.rate, deep.until), (f64::INFINITY, to));
        assert_eq!(deep.at(0.0), u(a1) + l.margin);
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

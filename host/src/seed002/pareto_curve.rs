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
//! from [`super::pareto_exp`] (within a proven absolute bound of e^y) and its argument by a
//! precomputed rate per microsecond (no division), then the same clamp and a rounding that
//! is trusted only if the value lies farther from a rounding edge (a half micro-unit) than
//! everything the approximation can move it; else the exact value above. See
//! [`Curves::utility`] for the bound.
use super::pareto_exp::{exp_decay, ABS_ERROR};
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
        Curves {
            classes: prepared,
            tasks,
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
        let Curve::Exp {
            first,
            priority,
            urgency_per_min,
            class,
            flat,
            fast: true,
        } = self.tasks[t]
        else {
            return None;
        };
        if dt < first {
            return Some(flat);
        }
        let d = dt - first;
        if d == Micros::MAX {
            // (Where the padding would count as an interval.)
            return None;
        }
        let c = &self.classes[class as usize];
        // The last interval starting at or before d, found from the first (the offsets
        // rise, most completions fall in the first intervals, and the padding stops it).
        if c.offset[0] > d {
            return Some(flat);
        }
        let k = c.offset[1..].iter().take_while(|&&o| o <= d).count();
        let m = (d - c.offset[k]).0;
        if m >= 1 << 53 {
            return None;
        }
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
        round_clear(u * 1e6, big_k * margin)
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
mod tests {
    use super::*;
    use crate::generate::rng::Stream;
    use kairos_core::utility::{ClassInterval, Urgency, UtilityClass};
    use proptest::prelude::*;

    /// The exact integer: the general path's.
    fn exact(curve: &UtilityCurve, classes: &UtilityClasses, dt: Micros) -> Utility {
        Utility::from_f64(curve.value_at(dt, classes).unwrap_or(0.0))
    }

    /// A completion time: anywhere up to the curve's last interval and far past it, near a
    /// class interval's start (either side), or near the end of the domain.
    fn completion(rng: &mut Stream, first: Micros, class: &UtilityClass) -> Micros {
        match rng.int(0, 4) {
            0 => Micros(rng.int(0, 2_000_000_000_000)),
            1 => Micros(rng.int(0, 60_000_000_000)),
            2 => Micros(u64::MAX - rng.int(0, 1_000_000_000)),
            _ => {
                let k = rng.int(0, class.intervals.len() as u64 - 1) as usize;
                let at = first.0.saturating_add(class.intervals[k].offset.0);
                Micros(at.saturating_add(rng.int(0, 2_000)).saturating_sub(1_000))
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Over the curves' whole domain (any priority up to the largest a curve may have,
        /// any urgency, any of the 20 classes, completions from 0 to the end of time), the
        /// faster utility is the exact one, and so it is wherever it trusts itself at all:
        /// with the margin shrunk to 0 (the rounding of the approximation itself) it may
        /// only decline, never differ, except where the value lies within the bound of an edge.
        #[test]
        fn the_faster_utility_is_the_exact_one_over_the_whole_domain(
            seed in 0u64..1_000_000,
            priority_exp in -6i32..=6,
            urgency_index in 0usize..5,
        ) {
            let classes = UtilityClasses::essc20();
            let mut rng = Stream::new(seed, 0, "faster-utility", 0);
            let urgency = [0.6, 0.2, 0.1, 0.01, rng.unit() * 3.0][urgency_index];
            let priority = rng.unit() * 10f64.powi(priority_exp);
            let class = rng.int(0, 19) as u8;
            let curve = UtilityCurve::PiecewiseExp {
                priority,
                urgency_per_min: urgency,
                first: Micros(rng.int(0, 3_600_000_000)),
                class,
            };
            let UtilityCurve::PiecewiseExp { first, .. } = curve else { unreachable!() };
            let fast = Curves::new([curve].iter(), &classes);
            let prepared = matches!(fast.tasks[0], Curve::Exp { fast: true, .. });
            prop_assert!(prepared);
            let c = &classes.classes[class as usize];
            for _ in 0..500 {
                let dt = completion(&mut rng, first, c);
                let want = exact(&curve, &classes, dt);
                prop_assert_eq!(fast.utility(0, dt), want, "{:?} at {:?}", curve, dt);
                if let Some(u) = fast.utility_near(0, dt, MARGIN) {
                    prop_assert_eq!(u, want);
                }
            }
        }
    }

    /// Where the value lies on (or within an ulp or two of) a rounding edge, the faster
    /// value must decline and the exact one decide: the priority is scaled so that the
    /// exact value lands on a half micro-unit, then the completions around it are checked.
    #[test]
    fn near_a_rounding_edge_the_exact_value_decides() {
        let classes = UtilityClasses::essc20();
        let mut rng = Stream::new(5, 0, "edge", 0);
        let (mut declined, mut cases) = (0, 0);
        for _ in 0..20_000 {
            let class = rng.int(0, 19) as u8;
            let urgency = [0.6, 0.2, 0.1, 0.01][rng.int(0, 3) as usize];
            let first = Micros(rng.int(0, 600_000_000));
            let c = &classes.classes[class as usize];
            let k = rng.int(0, c.intervals.len() as u64 - 2) as usize;
            // Inside interval k, where the curve decays.
            let span = c.intervals[k + 1].offset.0 - c.intervals[k].offset.0;
            let dt = Micros(first.0 + c.intervals[k].offset.0 + rng.int(0, span - 1));
            let probe = UtilityCurve::PiecewiseExp {
                priority: 1.0,
                urgency_per_min: urgency,
                first,
                class,
            };
            let x = probe.value_at(dt, &classes).unwrap() * 1e6;
            if x < 1.0 {
                continue;
            }
            let target = (rng.int(0, 1_000_000) as f64 + 0.5).min(x.floor() + 0.5);
            // The curve's value scales with the priority (up to rounding): put it on an edge.
            let priority = target / x;
            let curve = UtilityCurve::PiecewiseExp {
                priority,
                urgency_per_min: urgency,
                first,
                class,
            };
            let fast = Curves::new([curve].iter(), &classes);
            for d in [dt.0 - 1, dt.0, dt.0 + 1] {
                let dt = Micros(d);
                let want = exact(&curve, &classes, dt);
                assert_eq!(fast.utility(0, dt), want, "{curve:?} at {dt:?}");
                let v = curve.value_at(dt, &classes).unwrap() * 1e6;
                if (v - v.floor() - 0.5).abs() < 1e-9 {
                    cases += 1;
                    match fast.utility_near(0, dt, MARGIN) {
                        None => declined += 1,
                        Some(u) => assert_eq!(u, want),
                    }
                }
            }
        }
        // Values within 1e-9 of an edge are well inside the margin: always declined.
        assert!(cases > 1_000, "{cases}");
        assert_eq!(declined, cases);
    }

    #[test]
    fn clear_rounding_is_round_units_or_declines() {
        let mut rng = Stream::new(9, 0, "clear", 0);
        for _ in 0..200_000 {
            let x = rng.int(0, 1 << 40) as f64 + [0.5, 0.0, rng.unit()][rng.int(0, 2) as usize];
            for v in [
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits().saturating_sub(1)),
            ] {
                for margin in [0.0, 1e-9, 1e-3, 0.2] {
                    if let Some(u) = round_clear(v, margin) {
                        assert_eq!(u, Utility(libm::round(v) as u64), "{v}");
                        assert!((v - u.0 as f64).abs() < 0.5 - margin);
                    }
                }
            }
        }
        // A half-integer is always declined, a margin of 0.25 or more always.
        assert_eq!(round_clear(2.5, 0.0), None);
        assert_eq!(round_clear(2.0, 0.25), None);
        assert_eq!(round_clear(0.0, 0.0), Some(Utility(0)));
        assert_eq!(round_clear(-1.0, 0.0), None);
        assert_eq!(round_clear(f64::NAN, 0.0), None);
        assert_eq!(round_clear(3e15, 0.0), None);
    }

    /// A class the bound does not cover (rising psi, a negative or infinite delta, offsets
    /// out of order) keeps the exact path only.
    #[test]
    fn classes_the_bound_does_not_cover_keep_the_exact_path() {
        let iv = |secs: u64, psi: f64, delta: f64| ClassInterval {
            offset: Micros(secs * 1_000_000),
            psi,
            delta,
        };
        let bad = [
            vec![iv(0, 0.5, 0.1), iv(60, 0.8, 0.1)],
            vec![iv(0, 0.9, -0.1), iv(60, 0.2, 0.1)],
            vec![iv(0, 0.9, f64::INFINITY)],
            vec![iv(60, 0.9, 0.1), iv(0, 0.2, 0.1)],
        ];
        for ivs in bad {
            let mut classes = UtilityClasses::new();
            let mut class = UtilityClasses::essc20().classes[0].clone();
            class.intervals.clear();
            for i in ivs {
                class.intervals.push(i).unwrap();
            }
            classes.push(class).unwrap();
            let curve = UtilityCurve::PiecewiseExp {
                priority: 3.0,
                urgency_per_min: 0.2,
                first: Micros(1_000),
                class: 0,
            };
            let fast = Curves::new([curve].iter(), &classes);
            assert!(matches!(fast.tasks[0], Curve::Exp { fast: false, .. }));
            for s in [0, 1, 30, 59, 60, 61, 1_000, 100_000] {
                let dt = Micros(s * 1_000_000 + 1_000);
                assert_eq!(fast.utility_near(0, dt, MARGIN), None);
                assert_eq!(fast.utility(0, dt), exact(&curve, &classes, dt));
            }
        }
    }

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

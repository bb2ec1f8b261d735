//! Tests of the prepared curves: the faster utility against the exact one.

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

/// A random piecewise-exponential curve (priority up to 10^`priority_exp`, urgency one of
/// five, any of the 20 classes, a first interval up to an hour), with its class and first.
fn random_curve(
    rng: &mut Stream,
    priority_exp: i32,
    urgency_index: usize,
) -> (UtilityCurve, u8, Micros) {
    let urgency = [0.6, 0.2, 0.1, 0.01, rng.unit() * 3.0][urgency_index];
    let priority = rng.unit() * 10f64.powi(priority_exp);
    let class = rng.int(0, 19) as u8;
    let first = Micros(rng.int(0, 3_600_000_000));
    let curve = UtilityCurve::PiecewiseExp {
        priority,
        urgency_per_min: urgency,
        first,
        class,
    };
    (curve, class, first)
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
        let (curve, class, first) = random_curve(&mut rng, priority_exp, urgency_index);
        let fast = Curves::new([curve].iter(), &classes);
        let prepared = matches!(fast.tasks[0], Curve::Exp { fast: true, .. });
        prop_assert!(prepared);
        // The faster value's record is the curve's.
        prop_assert_eq!(fast.fast[0].class, class);
        prop_assert_eq!(fast.fast[0].first, first);
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
        assert_eq!(fast.fast[0].class, NOT_FAST);
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Chapter 7's drop test through the faster value is the exact comparison, over the
    /// whole domain and at thresholds on the exact value or within a few ulps of it (where
    /// the exact value must decide), and at the chapter's 0.5.
    #[test]
    fn the_faster_drop_test_is_the_exact_comparison(
        seed in 0u64..1_000_000,
        priority_exp in -1i32..=1,
        urgency_index in 0usize..5,
    ) {
        let classes = UtilityClasses::essc20();
        let mut rng = Stream::new(seed, 0, "faster-below", 0);
        let (curve, class, first) = random_curve(&mut rng, priority_exp, urgency_index);
        let fast = Curves::new([curve].iter(), &classes);
        let c = &classes.classes[class as usize];
        for _ in 0..300 {
            let dt = completion(&mut rng, first, c);
            let v = fast.value(0, dt);
            let near = |k: i64| f64::from_bits((v.to_bits() as i64 + k).max(0) as u64);
            for theta in [0.5, v, near(1), near(-1), near(3), near(-3), v * (1.0 + 1e-13)] {
                prop_assert_eq!(fast.below(0, dt, theta), v < theta, "{:?} at {:?}, {}", curve, dt, theta);
            }
        }
    }
}

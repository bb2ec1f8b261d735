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
        .prop_map(
            |(priority, urgency_per_min, first, class)| UtilityCurve::PiecewiseExp {
                priority,
                urgency_per_min,
                first: Micros(first),
                class,
            },
        )
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

/// Issue 27 (a fuzz find): a curve worth more than `MAX_CURVE_VALUE` is an error, not a value
/// whose sums overflow the ledger; at the limit it is fine.
#[test]
fn curve_worth_over_max_value_is_refused() {
    let cs = UtilityClasses::essc20();
    let at = |priority| UtilityCurve::essc(priority, Urgency::ALL[0], Micros::from_mins(5), 0);
    assert!(at(crate::limits::MAX_CURVE_VALUE).check().is_ok());
    assert!(at(crate::limits::MAX_CURVE_VALUE)
        .value_at(Micros(0), &cs)
        .is_ok());
    for p in [crate::limits::MAX_CURVE_VALUE * 1.000_001, 1e300] {
        assert_eq!(
            at(p).check(),
            Err(Error::Input(InputError::UtilityTooLarge))
        );
        assert_eq!(
            at(p).value_at(Micros(0), &cs),
            Err(Error::Input(InputError::UtilityTooLarge))
        );
    }
    assert_eq!(
        at(f64::NAN).check(),
        Err(Error::Input(InputError::BadNumber))
    );
    let l = UtilityCurve::Linear {
        start: 2e6,
        soft: Micros(1),
        hard: Micros(2),
        final_value: 1.0,
    };
    assert_eq!(l.check(), Err(Error::Input(InputError::UtilityTooLarge)));
}

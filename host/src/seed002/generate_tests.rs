use super::*;

#[test]
fn table_d1_sums_to_one_and_draws_its_shares() {
    let total: u32 = TABLE_D1.iter().flatten().sum();
    assert_eq!(total, 10_000);
    let mut r = Stream::new(1, 0, "test", 0);
    let mut low = 0;
    let mut critical = 0;
    let n = 100_000;
    for _ in 0..n {
        match priority_urgency(&mut r).0 {
            0 => critical += 1,
            3 => low += 1,
            _ => {}
        }
    }
    // 53% low, 4.05% critical.
    assert!((low as f64 / n as f64 - 0.53).abs() < 0.005, "{low}");
    assert!(
        (critical as f64 / n as f64 - 0.0405).abs() < 0.003,
        "{critical}"
    );
}

#[test]
fn etc_has_the_papers_means_and_special_pairs() {
    let mt = MACHINE_COUNTS.len();
    let etc = etc_table(7, 0);
    let mut gp = Vec::new();
    let mut specials = 0;
    for ty in 0..TASK_TYPES {
        let row = &etc[ty * mt..(ty + 1) * mt];
        gp.extend(row[SPECIAL_MACHINE_TYPES..].iter().map(|e| e.as_secs_f64()));
        let sp: Vec<_> = row[..SPECIAL_MACHINE_TYPES]
            .iter()
            .filter(|e| **e != Micros::MAX)
            .collect();
        if ty < SPECIAL_TASK_TYPES {
            assert_eq!(sp.len(), 1, "type {ty}");
            // About ten times faster than its general mean.
            assert!(sp[0].as_secs_f64() < 120.0, "{:?}", sp[0]);
            specials += 1;
        } else {
            assert!(sp.is_empty());
        }
    }
    assert_eq!(specials, 17);
    let mean = gp.iter().sum::<f64>() / gp.len() as f64;
    assert!((mean - 600.0).abs() < 20.0, "{mean}");
}

#[test]
fn bursty_rate_repeats_the_interval_before_hour_two_before_hour_26() {
    let mut r = Stream::new(3, 0, "test", 0);
    let rate = rate_pattern(&mut r, true, 500.0, Micros::from_hours(2), Bursts::Literal);
    for m in 0..120 {
        let t = Micros::from_mins(m);
        assert_eq!(rate.at(t), rate.at(t + Micros::from_hours(24)));
    }
    let mean = 500.0 / 86_400.0;
    for m in 0..1440 {
        let x = rate.at(Micros::from_mins(m)) / mean;
        assert!(
            (0.5..=0.75).contains(&x) || (1.25..=1.5).contains(&x),
            "{x}"
        );
    }
}

#[test]
fn steps_are_capped_and_counts_near_the_mean() {
    let w = Workload::chapter2(11, 33_000.0);
    let tr = trial(&w, 0);
    let day = tr
        .tasks
        .iter()
        .filter(|t| t.arrival >= Micros::from_hours(2))
        .count();
    assert!((31_000..35_000).contains(&day), "{day}");
    assert!(tr.tasks.windows(2).all(|p| p[0].arrival <= p[1].arrival));
    let mut r = Stream::new(1, 0, "test", 0);
    let slow = Rate::Sinusoid {
        mean: 1e-9,
        cycles: 1,
        phase: 0.0,
        amplitude: 0.5,
    };
    let ts = step_arrivals(&mut r, &slow, Micros::from_hours(1));
    assert_eq!(ts, vec![STEP_CAP, STEP_CAP + STEP_CAP]);
    tr.env().check(&tr.tasks).unwrap();
}

#[test]
fn mean_bursts_keep_the_draws_and_average_the_mean() {
    let day = Micros::from_hours(24);
    let mean = 500.0 / 86_400.0;
    let literal = rate_pattern(
        &mut Stream::new(3, 0, "t", 0),
        true,
        500.0,
        day,
        Bursts::Literal,
    );
    let scaled = rate_pattern(
        &mut Stream::new(3, 0, "t", 0),
        true,
        500.0,
        day,
        Bursts::Mean,
    );
    let minutes = 1440;
    let avg = |r: &Rate| {
        (0..minutes)
            .map(|m| r.at(Micros::from_mins(m)))
            .sum::<f64>()
            / minutes as f64
    };
    assert!(avg(&literal) / mean < 0.9, "{}", avg(&literal) / mean);
    assert!(
        (avg(&scaled) / mean - 1.0).abs() < 0.01,
        "{}",
        avg(&scaled) / mean
    );
    // The same pattern, one factor apart.
    let k = scaled.at(Micros::ZERO) / literal.at(Micros::ZERO);
    for m in 0..minutes {
        let t = Micros::from_mins(m);
        assert!((scaled.at(t) / literal.at(t) / k - 1.0).abs() < 1e-9);
    }
}

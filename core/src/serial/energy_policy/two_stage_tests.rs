//! Tests of the two-stage pass by machine type: every choice of the core's tests made again
//! by the scan over every option (`check_choice`), a take that lets an option cross the
//! day's end, and `f32_above`.

extern crate std;
use super::*;
use std::vec;

/// Every choice of the core's tests is made again by the scan over every option: the
/// same option and key; and no valid, filtered option scores above its type's bound.
pub(in crate::serial::energy_policy) fn check_choice(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    t: u32,
    got: &Option<(Opt, f64)>,
    bounds: &[f32],
) {
    let mut scratch = vec![0.0f32; bounds.len()];
    let (want, _) = choose_scan(h, v, t, &mut scratch);
    match (got, want) {
        (None, None) => {}
        (Some((a, ka)), Some((b, kb))) => {
            assert_eq!(*a, b, "{h:?}: task {t} chose another option");
            assert!(
                ka.to_bits() == kb.to_bits() || (ka.is_nan() && kb.is_nan()),
                "{h:?}: task {t}: key {ka} against {kb}"
            );
        }
        _ => panic!("{h:?}: task {t}: {got:?} against {want:?}"),
    }
    let task = &v.tasks[t as usize];
    for j in 0..(bounds.len().min(v.env.machine_types as usize)) as u8 {
        let m = v.best_of(j);
        if m == NO_MACHINE || !v.env.runs(task.ty, j) {
            continue;
        }
        for k in 0..v.power.pstates {
            let Some(o) = v.valid(t, m, k).filter(|o| v.passes(o)) else {
                continue;
            };
            let (etc_s, eec_j, end_s) = parts(&o, task.arrival);
            let s = h.stage1(&v.norm, v.utility(t, o.end), etc_s, eec_j, end_s);
            assert!(
                s.is_nan() || s <= bounds[j as usize] as f64,
                "{h:?}: task {t}, type {j}, P-state {k}: {s} above {}",
                bounds[j as usize]
            );
        }
    }
}

/// Every re-choice's cap holds: no valid, filtered option of task `t` completes before it
/// or earns more than its utility.
pub(in crate::serial::energy_policy) fn check_cap(v: &OptionView<'_>, t: u32, cap: Cap) {
    if cap.1.is_nan() {
        return;
    }
    let task = &v.tasks[t as usize];
    for j in 0..v.env.machine_types {
        let m = v.best_of(j);
        if m == NO_MACHINE || !v.env.runs(task.ty, j) {
            continue;
        }
        for k in 0..v.power.pstates {
            let Some(o) = v.valid(t, m, k).filter(|o| v.passes(o)) else {
                continue;
            };
            assert!(
                o.end >= cap.0,
                "task {t}: {o:?} completes before its cap {cap:?}"
            );
            let u = v.utility(t, o.end);
            assert!(
                u <= cap.1,
                "task {t}: {o:?} earns {u}, above its cap {cap:?}"
            );
        }
    }
}

#[test]
fn a_take_that_lets_an_option_cross_the_days_end_lifts_the_types_bounds() {
    use crate::serial::env::{SerialEnv, SerialTask};
    use crate::serial::pstate::PowerModel;
    use crate::utility::{UtilityClasses, UtilityCurve};
    const MIN: u64 = 60_000_000;
    let mins = |x: u64| Micros(x * MIN);
    let classes = UtilityClasses::essc20();
    // Machine 0 is type A, machine 1 type B; one P-state. Task 0 (X): A 100 min ~10 kJ,
    // B 60 min ~60 kJ; task 1 (T1): B 30 min ~5 kJ; task 2 (T2): A 35 min ~5 kJ.
    let etc = [
        mins(100),
        mins(60),
        mins(200),
        mins(30),
        mins(35),
        mins(200),
    ];
    let apc = [1667, 16_667, 1000, 2778, 2381, 1000];
    let env = SerialEnv {
        machine_type: &[0, 1],
        machine_types: 2,
        special_types: 0,
        etc: &etc,
        classes: &classes,
    };
    let power = PowerModel {
        pstates: 1,
        etc: &etc,
        apc_mw: &apc,
    };
    let flat = UtilityCurve::Linear {
        start: 1.0,
        soft: mins(10_000),
        hard: mins(10_000),
        final_value: 1.0,
    };
    let tasks: std::vec::Vec<SerialTask> = (0..3)
        .map(|ty| SerialTask {
            ty,
            arrival: Micros::ZERO,
            curve: flat,
        })
        .collect();
    let norm = Normalisers {
        max_utility: 1.0,
        max_eec_j: 1.0,
        min_eec_j: 1.0,
        min_etc_s: 1.0,
    };
    let mut v = OptionView::new(
        env,
        power,
        &tasks,
        norm,
        (Micros::ZERO, mins(60)),
        mins(120),
        false,
        |_| Micros::ZERO,
    );
    // 50 kJ today: X's 60 kJ on B does not fit at first. T1 then takes B to 30 min, so
    // X on B would run 30-90 min, half of it (30 kJ) today, which fits the 40 kJ left
    // once T1 and T2 are charged; T2's take of A re-chooses X, which must see B again.
    v.left_today = MilliJoules(50_000_000);
    v.left_tomorrow = MilliJoules(1_000_000_000);
    let start = v.clone();
    let n = 3;
    let (mut slots, mut key) = (vec![0u32, 1, 2], vec![0.0; n]);
    let (mut choice, mut next, mut prev, mut tree) = (
        vec![0u32; n],
        vec![0u32; n],
        vec![0u32; n],
        vec![0u32; 2 * n],
    );
    let mut bounds = vec![0.0f32; 2 * n];
    let mut caps = vec![NO_CAP; n];
    let mut sc = EScratch {
        slots: &mut slots,
        key: &mut key,
        choice: &mut choice,
        next: &mut next,
        prev: &mut prev,
        tree: &mut tree,
        bounds: &mut bounds,
        caps: &mut caps,
    };
    let mut got = std::vec::Vec::new();
    let h = EnergyHeuristic::MinMinComp;
    run_bounded(
        h,
        &mut v,
        &mut sc,
        n,
        &[mins(200), mins(200)],
        &mut |t, d| got.push((t, d.map(|o| (o.m, o.start)))),
    );
    assert_eq!(
        got,
        [
            (1, Ok((1, mins(0)))),
            (2, Ok((0, mins(0)))),
            (0, Ok((1, mins(30))))
        ]
    );
    // The pass over every type agrees.
    sc.bounds = &mut [];
    let mut v = start;
    let mut want = std::vec::Vec::new();
    run(h, &mut v, &mut sc, n, &mut |t, d| {
        want.push((t, d.map(|o| (o.m, o.start))))
    });
    assert_eq!(got, want);
}

#[test]
fn f32_above_is_the_least_f32_at_or_above() {
    for x in [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        -0.1,
        1e-50,
        -1e-50,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        1.0 + f64::EPSILON,
        -1.0 - f64::EPSILON,
        0.123_456_789_012_345,
        -98_765.432_109_876,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let f = f32_above(x);
        assert!(f as f64 >= x, "{x}: {f} below");
        // The f32 just below is below x: no tighter bound exists.
        let below = if f == f32::NEG_INFINITY {
            None
        } else if f == 0.0 {
            Some(-f32::from_bits(1))
        } else if f > 0.0 {
            Some(f32::from_bits(f.to_bits() - 1))
        } else if f == f32::MIN {
            Some(f32::NEG_INFINITY)
        } else {
            Some(f32::from_bits(f.to_bits() + 1))
        };
        if let Some(b) = below {
            assert!((b as f64) < x, "{x}: {f} is not the least ({b} also holds)");
        }
    }
    assert_eq!(f32_above(f64::NAN), f32::INFINITY);
}

#[test]
fn stage1_reads_only_the_parts_reads_names() {
    let n = Normalisers {
        max_utility: 8.0,
        max_eec_j: 400_000.0,
        min_eec_j: 1_000.0,
        min_etc_s: 10.0,
    };
    let hs = [
        EnergyHeuristic::MinMinComp,
        EnergyHeuristic::MaxMaxUtil,
        EnergyHeuristic::MaxMaxUpt,
        EnergyHeuristic::MaxMaxUpe,
        EnergyHeuristic::MaxMaxUpp,
        EnergyHeuristic::WeightedUtil(0.5),
        EnergyHeuristic::WeightedUpt(0.3),
        EnergyHeuristic::WeightedUpe(0.7),
    ];
    for h in hs {
        let r = reads(h);
        for (u, etc, eec, end) in [
            (4.0, 500.0, 100_000.0, 900.0),
            (0.25, 12.5, 1_234.5, 7_200.0),
            (7.9, 3_600.0, 399_999.0, 86_400.0),
        ] {
            let all = h.stage1(&n, u, etc, eec, end);
            let part = h.stage1(
                &n,
                u,
                if r.0 { etc } else { 0.0 },
                if r.1 { eec } else { 0.0 },
                if r.2 { end } else { 0.0 },
            );
            assert_eq!(all.to_bits(), part.to_bits(), "{h:?}: {all} against {part}");
        }
    }
}

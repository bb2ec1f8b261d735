//! Seed 003's hand-worked examples and property tests: the evaluator's precedence and core
//! exclusivity, the FTPS/FCPS example the paper's missing Fig. 7.4 would have shown, FTPS never
//! below the all-fastest value per energy, FTPS = FCPS when every core holds one task.

extern crate std;

use super::error::DagError;
use super::evaluator::{check, evaluate, Levels, Mapping};
use super::job::{DagJob, Edge};
use super::list::list_schedule;
use super::nba_fcps::nba_fcps;
use super::nba_ftps::nba_ftps;
use super::pba::{pba_choose, Profile};
use super::power::DvfsTable;
use super::valopt::valopt;
use super::value::{Ratio, ValueCurve};
use crate::limits::MAX_DAG_TASKS;
use crate::units::{Micros, MilliWatts, Utility};
use core::cmp::Ordering;
use proptest::prelude::*;
use std::vec::Vec;

fn s(x: u64) -> Micros {
    Micros::from_secs(x)
}

fn edge(from: u8, to: u8, comm: Micros) -> Edge {
    Edge { from, to, comm }
}

/// The diamond 0 -> {1, 2} -> 3: tasks of 100, 100, 20 and 100 s, no communication. Task 2
/// has 80 s of slack; the path 0 -> 1 -> 3 is critical.
fn diamond() -> DagJob {
    let e = [
        edge(0, 1, Micros::ZERO),
        edge(0, 2, Micros::ZERO),
        edge(1, 3, Micros::ZERO),
        edge(2, 3, Micros::ZERO),
    ];
    DagJob::new(&[s(100), s(100), s(20), s(100)], &e).unwrap()
}

#[test]
fn r1_table_matches_the_spec() {
    let t = DvfsTable::r1(MilliWatts(600));
    let p: Vec<u32> = (0..6).map(|l| t.p_dyn(l).0).collect();
    assert_eq!(p, [1659, 1354, 1084, 847, 640, 462]);
    assert_eq!(t.exec_time(s(18), 5), Micros(40_500_000)); // 18 s x 1.8 / 0.8
    assert_eq!(t.exec_time(Micros(100), 1), Micros(113)); // 112.5 rounds half up
}

/// The Pentium M table by hand: level 0 draws the 24.5 W TDP; at 6.125 W static, the dynamic
/// 18,375 mW scales by V^2 f: level 3 (1.0 GHz, 1.164 V) is 18,375 x 1.164^2 x 1.0 /
/// (1.484^2 x 1.6) = 7,066 mW, level 5 (0.6 GHz, 0.956 V) 2,860 mW.
#[test]
fn pentium_m_table_by_hand() {
    let t = DvfsTable::pentium_m(MilliWatts(6125)).unwrap();
    assert_eq!(t.levels(), 6);
    assert_eq!(t.freq_mhz(0), 1600);
    assert_eq!(t.freq_mhz(5), 600);
    assert_eq!(t.p_dyn(0).0 + t.p_static().0, 24_500);
    let p: Vec<u32> = (0..6).map(|l| t.p_dyn(l).0).collect();
    assert_eq!(p, [18375, 14721, 10189, 7066, 4478, 2860]);
    // Energy per unit of work (the whole core's power over its frequency) is lowest at 1.0 GHz,
    // 13.8% under level 0: (7066 + 6125) / 1000 against 24500 / 1600.
    let per_work = |l: usize| (t.p_dyn(l).0 + 6125) as f64 / t.freq_mhz(l) as f64;
    let best = (0..6).min_by(|&a, &b| per_work(a).total_cmp(&per_work(b)));
    assert_eq!(best, Some(3));
    assert_eq!(
        DvfsTable::pentium_m(MilliWatts(24_501)),
        Err(DagError::StaticPower(24_501))
    );
}

/// Half frequency-bound: 100 s at level 0 takes 100 x (0.5 x 1.6 / 0.6 + 0.5) = 183.33 s at
/// level 5, against 266.67 s fully bound; level 0 is unchanged; 1000 per mille is R2 exactly.
#[test]
fn frequency_bound_share_scales_only_its_part() {
    let t = DvfsTable::pentium_m(MilliWatts(6125)).unwrap();
    let h = t.with_freq_bound(500).unwrap();
    assert_eq!(h.exec_time(s(100), 0), s(100));
    assert_eq!(h.exec_time(s(100), 5), Micros(183_333_333));
    assert_eq!(t.exec_time(s(100), 5), Micros(266_666_667));
    let full = t.with_freq_bound(1000).unwrap();
    for l in 0..6 {
        assert_eq!(
            full.exec_time(Micros(123_457), l),
            t.exec_time(Micros(123_457), l)
        );
    }
    assert_eq!(t.with_freq_bound(0).unwrap().exec_time(s(7), 5), s(7));
    assert_eq!(t.with_freq_bound(1001), Err(DagError::FreqBound(1001)));
}

#[test]
fn bad_inputs_are_errors() {
    assert_eq!(DagJob::new(&[], &[]), Err(DagError::Tasks(0)));
    assert_eq!(DagJob::new(&[s(1); 17], &[]), Err(DagError::Tasks(17)));
    assert_eq!(
        DagJob::new(&[s(1), Micros::ZERO], &[]),
        Err(DagError::ZeroWcet(1))
    );
    let w = [s(1), s(1)];
    assert_eq!(
        DagJob::new(&w, &[edge(1, 0, Micros::ZERO)]),
        Err(DagError::Edge(1, 0))
    );
    assert_eq!(
        DagJob::new(&w, &[edge(0, 2, Micros::ZERO)]),
        Err(DagError::Edge(0, 2))
    );
    let twice = [edge(0, 1, Micros::ZERO), edge(0, 1, s(1))];
    assert_eq!(DagJob::new(&w, &twice), Err(DagError::DuplicateEdge(0, 1)));
    assert_eq!(
        DvfsTable::new(&[1000, 1000], &[MilliWatts(1); 2], MilliWatts(0)),
        Err(DagError::Frequency(1))
    );
    assert_eq!(
        DvfsTable::new(&[1000; 9], &[MilliWatts(1); 9], MilliWatts(0)),
        Err(DagError::Levels(9))
    );
    assert_eq!(
        ValueCurve::new(Utility(1), s(2), s(1)),
        Err(DagError::Curve)
    );
    let job = diamond();
    let t = DvfsTable::r1(MilliWatts(600));
    let mut m = Mapping::default();
    m.core[2] = 2;
    assert_eq!(
        check(&job, &t, &m, &Levels::FASTEST, 2),
        Err(DagError::Core(2))
    );
    let mut l = Levels::FASTEST;
    l.level[3] = 6;
    assert_eq!(evaluate(&job, &t, &m, &l), Err(DagError::Level(3)));
    assert_eq!(list_schedule(&job, 0), Err(DagError::CoreCount(0)));
}

/// The list schedule and the evaluator on the diamond, worked by hand: order 0, 1, 2, 3 by
/// upward rank (300, 200, 120, 100 s); task 1 ties on finish (200 s) and goes to the emptier
/// core 1; task 2 finishes first on core 0 (120 s); task 3 ties on finish (300 s) and goes to
/// core 1 (load 100 s against 120 s).
#[test]
fn diamond_schedule_by_hand() {
    let job = diamond();
    assert_eq!(job.order(), &[0, 1, 2, 3]);
    assert_eq!(job.critical_path(), s(300));
    let m = list_schedule(&job, 2).unwrap();
    assert_eq!(&m.core[..4], &[0, 1, 0, 1]);
    let t = DvfsTable::r1(MilliWatts(600));
    let sc = evaluate(&job, &t, &m, &Levels::FASTEST).unwrap();
    assert_eq!(&sc.start[..4], &[s(0), s(100), s(100), s(200)]);
    assert_eq!(&sc.finish[..4], &[s(100), s(200), s(120), s(300)]);
    assert_eq!(sc.rt, s(300));
    assert_eq!(sc.cores(), 2);
    // 320 s x 1659 mW dynamic + 2 cores x 300 s x 600 mW static = 530,880 + 360,000 J... in
    // millijoules, times 1e6 for nanojoules.
    assert_eq!(sc.energy_nj, (320 * 1659 + 2 * 300 * 600) * 1_000_000);
}

/// The missing Fig. 7.4, worked by hand. Value 100 until 300 s, zero at 330 s. FTPS slows only
/// task 2, which has slack: at the slowest level it runs 45 s (100 to 145 s, well before task
/// 1's data at 200 s), so the response time stays 300 s and its dynamic energy falls from
/// 33,180 to 20,790 J... mJ x 1e3. Slowing any critical task loses value (one level on task 0
/// already costs 12.5 s, 42% of the value) and costs static energy. FCPS cannot slow task 2
/// alone: core 0 also runs task 0, so every slower level of a core delays the job, and FCPS
/// keeps both cores fast. FTPS's value per energy is strictly higher.
#[test]
fn ftps_slows_the_slack_task_and_fcps_a_whole_core() {
    let job = diamond();
    let t = DvfsTable::r1(MilliWatts(600));
    let curve = ValueCurve::new(Utility(100_000_000), s(300), s(330)).unwrap();
    let m = list_schedule(&job, 2).unwrap();
    let ftps = nba_ftps(&job, &t, &curve, &m, Micros::ZERO).unwrap();
    assert_eq!(&ftps.levels.level[..4], &[0, 0, 5, 0]);
    assert_eq!(ftps.schedule.rt, s(300));
    assert_eq!(ftps.schedule.finish[2], s(145));
    assert_eq!(
        ftps.schedule.energy_nj,
        (300 * 1659 + 45 * 462 + 2 * 300 * 600) * 1_000_000
    );
    let fcps = nba_fcps(&job, &t, &curve, &m, Micros::ZERO).unwrap();
    // A core's tasks share its level.
    for a in 0..4 {
        for b in 0..4 {
            if m.core[a] == m.core[b] {
                assert_eq!(fcps.levels.level[a], fcps.levels.level[b]);
            }
        }
    }
    assert_eq!(&fcps.levels.level[..4], &[0, 0, 0, 0]);
    let r = |a: &super::evaluator::Allocation| {
        Ratio::per_energy(curve.value(a.schedule.rt), a.schedule.energy_nj)
    };
    assert_eq!(r(&ftps).cmp_exact(&r(&fcps)), Ordering::Greater);
    // Had FCPS slowed core 0 by one level, the job would end at 312.5 s.
    let mut l = Levels::FASTEST;
    l.level[0] = 1;
    l.level[2] = 1;
    assert_eq!(evaluate(&job, &t, &m, &l).unwrap().rt, Micros(312_500_000));
}

#[test]
fn value_curve_is_linear_to_zero() {
    let c = ValueCurve::new(Utility(100), s(10), s(20)).unwrap();
    assert_eq!(c.value(s(0)), Utility(100));
    assert_eq!(c.value(s(10)), Utility(100));
    assert_eq!(c.value(s(15)), Utility(50));
    assert_eq!(c.value(s(20)), Utility(0));
    assert_eq!(c.value(s(99)), Utility(0));
    // The same curve as seed 001's linear function with a zero final value.
    let u = c.as_utility_curve();
    let classes = crate::utility::UtilityClasses::new();
    for x in [0, 10, 12, 15, 19, 20, 25] {
        let f = u.value_at(s(x), &classes).unwrap();
        assert!((f - c.value(s(x)).as_f64()).abs() < 1e-9, "{x}");
    }
}

#[test]
fn value_curve_with_a_final_value_drops_to_zero_after_the_hard_deadline() {
    let c = ValueCurve::with_final(Utility(100), Utility(20), s(10), s(20)).unwrap();
    assert_eq!(c.value(s(10)), Utility(100));
    assert_eq!(c.value(s(15)), Utility(60));
    assert_eq!(c.value(s(20)), Utility(20));
    assert_eq!(c.value(Micros(s(20).0 + 1)), Utility(0));
    assert!(c.can_earn(s(20)) && !c.can_earn(s(21)));
    // A step (soft == hard) keeps the final value at the deadline, as seed 001's function.
    let step = ValueCurve::with_final(Utility(100), Utility(20), s(10), s(10)).unwrap();
    assert_eq!(step.value(s(9)), Utility(100));
    assert_eq!(step.value(s(10)), Utility(20));
    assert_eq!(
        ValueCurve::with_final(Utility(10), Utility(11), s(1), s(2)),
        Err(DagError::Curve)
    );
    let u = c.as_utility_curve();
    let classes = crate::utility::UtilityClasses::new();
    for x in [0, 10, 12, 15, 19, 20, 25] {
        let f = u.value_at(s(x), &classes).unwrap();
        assert!((f - c.value(s(x)).as_f64()).abs() < 1e-9, "{x}");
    }
}

#[test]
fn pba_takes_the_best_profile_capped_by_the_bid() {
    let job = diamond();
    let t = DvfsTable::r1(MilliWatts(600));
    let curve = ValueCurve::new(Utility(100_000_000), s(300), s(700)).unwrap();
    let p1 = Profile::of(&job, &t, &Mapping::default(), &Levels::FASTEST).unwrap();
    let p2 = Profile::of(&job, &t, &list_schedule(&job, 2).unwrap(), &Levels::FASTEST).unwrap();
    // One core: 320 s, less static energy but less value; two cores: 300 s.
    assert_eq!((p1.rt, p1.cores), (s(320), 1));
    let both = [p1, p2];
    let best = pba_choose(&both, &curve, Micros::ZERO, 4).unwrap();
    let r = |p: &Profile| Ratio::per_energy(curve.value(p.rt), p.energy_nj);
    let want = if r(&p2).cmp_exact(&r(&p1)) == Ordering::Greater {
        1
    } else {
        0
    };
    assert_eq!(best.profile, want);
    assert_eq!(
        pba_choose(&both, &curve, Micros::ZERO, 1).unwrap().profile,
        0
    );
    assert_eq!(pba_choose(&both, &curve, Micros::ZERO, 0), None);
}

/// A random DAG: 1 to 16 tasks of 1 to 600 s, each pair an edge with probability 0.3, comm 0
/// to 60 s.
fn dag() -> impl Strategy<Value = DagJob> {
    (1usize..=MAX_DAG_TASKS)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(1u64..=600, n),
                proptest::collection::vec((0u8..10, 0u64..=60), n * n),
            )
        })
        .prop_map(|(w, pairs)| {
            let n = w.len();
            let wcet: Vec<Micros> = w.into_iter().map(s).collect();
            let mut edges = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    let (p, c) = pairs[a * n + b];
                    if p < 3 {
                        edges.push(edge(a as u8, b as u8, s(c)));
                    }
                }
            }
            DagJob::new(&wcet, &edges).unwrap()
        })
}

fn mapping_levels() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, usize)> {
    (1usize..=MAX_DAG_TASKS).prop_flat_map(|c| {
        (
            proptest::collection::vec(0u8..c as u8, MAX_DAG_TASKS),
            proptest::collection::vec(0u8..6, MAX_DAG_TASKS),
            Just(c),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// No task starts before its predecessors' data arrive; no core runs two tasks at once;
    /// the response time is the last finish; the energy is Eq. 7.1.
    #[test]
    fn evaluator_respects_precedence_and_cores(job in dag(), (cores, lv, c) in mapping_levels()) {
        let t = DvfsTable::r1(MilliWatts(600));
        let mut m = Mapping::default();
        let mut l = Levels::FASTEST;
        m.core.copy_from_slice(&cores);
        l.level.copy_from_slice(&lv);
        check(&job, &t, &m, &l, c).unwrap();
        let sc = evaluate(&job, &t, &m, &l).unwrap();
        let n = job.len();
        let mut dynamic = 0u64;
        for b in 0..n {
            let d = t.exec_time(job.wcet(b), l.level[b] as usize);
            prop_assert_eq!(sc.finish[b], sc.start[b] + d);
            dynamic += t.p_dyn(l.level[b] as usize).0 as u64 * d.0;
            for a in super::job::tasks(job.preds(b)) {
                let comm = if m.core[a] == m.core[b] { Micros::ZERO } else { job.comm(a, b) };
                prop_assert!(sc.start[b] >= sc.finish[a] + comm, "{} before {}", b, a);
            }
            for a in 0..b {
                if m.core[a] == m.core[b] {
                    prop_assert!(
                        sc.finish[a] <= sc.start[b] || sc.finish[b] <= sc.start[a],
                        "tasks {} and {} overlap on core {}", a, b, m.core[a]
                    );
                }
            }
        }
        prop_assert_eq!(sc.rt, (0..n).map(|x| sc.finish[x]).max().unwrap());
        prop_assert_eq!(sc.energy_nj, dynamic + 600 * sc.cores() as u64 * sc.rt.0);
    }

    /// The list schedule uses at most min(c, |T|) cores, and its schedule is valid.
    #[test]
    fn list_schedule_stays_on_its_cores(job in dag(), c in 1usize..=MAX_DAG_TASKS) {
        let m = list_schedule(&job, c).unwrap();
        let t = DvfsTable::r1(MilliWatts(600));
        check(&job, &t, &m, &Levels::FASTEST, c.min(job.len())).unwrap();
    }

    /// FTPS's value per energy is never below the all-fastest allocation's (ValOpt's levels on
    /// the same mapping), and FCPS's neither.
    #[test]
    fn ftps_never_below_all_fastest(
        job in dag(),
        c in 1usize..=MAX_DAG_TASKS,
        p_static in 0u32..2000,
        slack in 0u64..40,
        waited in 0u64..3000,
        v in 1u64..100,
    ) {
        let t = DvfsTable::r1(MilliWatts(p_static));
        let cp = job.critical_path();
        let curve = ValueCurve::new(
            Utility(v * 1_000_000),
            cp,
            Micros(cp.0 + cp.0 * slack / 4 + 1),
        ).unwrap();
        let m = list_schedule(&job, c).unwrap();
        let w = s(waited);
        let base = valopt(&job, &t, &m).unwrap().schedule;
        let base_v = curve.value(w + base.rt);
        let r0 = Ratio::per_energy(base_v, base.energy_nj);
        for a in [nba_ftps(&job, &t, &curve, &m, w).unwrap(), nba_fcps(&job, &t, &curve, &m, w).unwrap()] {
            let r = Ratio::per_energy(curve.value(w + a.schedule.rt), a.schedule.energy_nj);
            prop_assert!(r.cmp_exact(&r0) != Ordering::Less);
            prop_assert_eq!(a.schedule, evaluate(&job, &t, &m, &a.levels).unwrap());
            if base_v.0 == 0 {
                prop_assert_eq!(a.levels, Levels::FASTEST);
            }
        }
    }

    /// With one task per core, FCPS and FTPS choose the same levels.
    #[test]
    fn ftps_equals_fcps_with_one_task_per_core(
        job in dag(),
        p_static in 0u32..2000,
        slack in 0u64..40,
    ) {
        let t = DvfsTable::r1(MilliWatts(p_static));
        let cp = job.critical_path();
        let curve = ValueCurve::new(Utility(50_000_000), cp, Micros(cp.0 + cp.0 * slack / 4 + 1)).unwrap();
        let mut m = Mapping::default();
        for x in 0..MAX_DAG_TASKS {
            m.core[x] = x as u8;
        }
        let a = nba_ftps(&job, &t, &curve, &m, Micros::ZERO).unwrap();
        let b = nba_fcps(&job, &t, &curve, &m, Micros::ZERO).unwrap();
        prop_assert_eq!(a.levels, b.levels);
        prop_assert_eq!(a.schedule, b.schedule);
    }
}

//! Hand-worked tests of each heuristic's defining choice, the queue rules, dropping,
//! property tests of the run's invariants, and golden digests of a reference scenario.

extern crate std;

use super::env::{Heuristic, SerialConfig, SerialEnv, SerialTask, Trigger};
use super::policy::{self, PolicyState};
use super::two_stage::Scratch;
use super::view::View;
use super::{EventCost, SerialStorage, Sim, TaskOutcome};
use crate::units::Micros;
use crate::utility::{Urgency, UtilityClasses, UtilityCurve};
use proptest::prelude::*;
use std::vec;
use std::vec::Vec;

const X: Micros = Micros::MAX;

/// A linear curve: `start` until arrival, down by 1 per `per` us after it, 0 at `start * per`.
fn lin(start: f64, per: u64) -> UtilityCurve {
    UtilityCurve::Linear {
        start,
        soft: Micros::ZERO,
        hard: Micros((start as u64) * per),
        final_value: 0.0,
    }
}

fn task(ty: u16, arrival: u64, curve: UtilityCurve) -> SerialTask {
    SerialTask {
        ty,
        arrival: Micros(arrival),
        curve,
    }
}

fn env<'a>(
    mt: &'a [u8],
    types: u8,
    etc: &'a [Micros],
    classes: &'a UtilityClasses,
) -> SerialEnv<'a> {
    SerialEnv {
        machine_type: mt,
        machine_types: types,
        special_types: 0,
        etc,
        classes,
    }
}

/// The assignments of batch heuristic `h` over all `tasks` at time 0, machines ready at
/// `ready`.
fn batch(h: Heuristic, e: SerialEnv<'_>, tasks: &[SerialTask], ready: &[u64]) -> Vec<(u32, u16)> {
    let n = tasks.len();
    let (mut slots, mut key, mut choice) = (vec![0u32; n], vec![0.0; n], vec![0u16; n]);
    let (mut next, mut prev, mut tree) = (vec![0u32; n], vec![0u32; n], vec![0u32; 2 * n]);
    for (i, s) in slots.iter_mut().enumerate() {
        *s = i as u32;
    }
    let (mut group, mut group_task) = (vec![0u32; n], vec![0u32; n]);
    super::grouped::assign_groups(tasks, h != Heuristic::MinMinComp, &mut group, &mut slots);
    for (i, s) in slots.iter_mut().enumerate() {
        *s = i as u32;
    }
    let mut sc = Scratch {
        slots: &mut slots,
        key: &mut key,
        choice: &mut choice,
        next: &mut next,
        prev: &mut prev,
        tree: &mut tree,
        group: &group,
        group_task: &mut group_task,
    };
    let mut v = View::new(e, tasks, Micros::ZERO, |m| Micros(ready[m]));
    let mut out = Vec::new();
    policy::batch(h, &mut v, &mut sc, n, &mut |t, m| out.push((t, m)));
    out
}

fn immediate(h: Heuristic, e: SerialEnv<'_>, tasks: &[SerialTask], ready: &[u64]) -> Option<u16> {
    let v = View::new(e, tasks, Micros::ZERO, |m| Micros(ready[m]));
    let mut st = PolicyState::new(1, e.machine_type.len(), h);
    policy::immediate(h, &v, 0, &mut st).0
}

/// Machine 0 is type 0 (ETC 10), machines 1 and 2 type 1 (ETC 6, the task's MET type),
/// ready at 0, 100 and 50.
#[test]
fn met_heuristics_keep_to_the_fastest_type_max_util_does_not() {
    let classes = UtilityClasses::new();
    let etc = [Micros(10), Micros(6)];
    let mt = [0u8, 1, 1];
    let e = env(&mt, 2, &etc, &classes);
    let tasks = [task(0, 0, lin(100.0, 10))];
    let ready = [0, 100, 50];
    // Completions: 10 on machine 0, 106 on 1, 56 on 2.
    assert_eq!(immediate(Heuristic::MaxUtil, e, &tasks, &ready), Some(0));
    assert_eq!(immediate(Heuristic::MetMaxUtil, e, &tasks, &ready), Some(2));
    assert_eq!(
        immediate(Heuristic::KBestTypes(1), e, &tasks, &ready),
        Some(2)
    );
    assert_eq!(
        immediate(Heuristic::KBestTypes(2), e, &tasks, &ready),
        Some(0)
    );
    for seed in 0..20 {
        let v = View::new(e, &tasks, Micros::ZERO, |m| Micros(ready[m]));
        let mut st = PolicyState::new(seed, 3, Heuristic::MetRandom);
        let m = policy::immediate(Heuristic::MetRandom, &v, 0, &mut st).0;
        assert!(m == Some(1) || m == Some(2));
    }
}

/// Max UPT weighs utility by execution time: utility 100 - c/10. Machine 0 (ETC 10, ready
/// 0): 99 / 10 = 9.9. Machine 1 (ETC 2, ready 20): completion 22, 97.8 / 2 = 48.9.
#[test]
fn max_upt_prefers_utility_per_time_over_completion() {
    let classes = UtilityClasses::new();
    let etc = [Micros(10), Micros(2)];
    let mt = [0u8, 1];
    let e = env(&mt, 2, &etc, &classes);
    let tasks = [task(0, 0, lin(100.0, 10))];
    assert_eq!(immediate(Heuristic::MaxUtil, e, &tasks, &[0, 20]), Some(0));
    assert_eq!(immediate(Heuristic::MaxUpt, e, &tasks, &[0, 20]), Some(1));
}

/// Min-Min's two stages. Machines A (type 0) and B (type 1); t0 takes 4 on A and 6 on B,
/// t1 takes 3 on A and 8 on B. Stage 1 sends both to A; stage 2 takes t1 (3 < 4); A is
/// then ready at 3, so t0's best becomes B (6 < 3 + 4).
#[test]
fn min_min_picks_the_earliest_pair_then_rechooses() {
    let classes = UtilityClasses::new();
    let etc = [Micros(4), Micros(6), Micros(3), Micros(8)];
    let mt = [0u8, 1];
    let e = env(&mt, 2, &etc, &classes);
    let tasks = [task(0, 0, lin(10.0, 100)), task(1, 0, lin(10.0, 100))];
    assert_eq!(
        batch(Heuristic::MinMinComp, e, &tasks, &[0, 0]),
        vec![(1, 0), (0, 1)]
    );
}

/// Max-Max Util's stage 2 takes the most utility, not the earliest completion: with the
/// same ETC as above, t0 is worth 50 and t1 only 10, so t0 goes first to A.
#[test]
fn max_max_util_takes_the_most_utility_first() {
    let classes = UtilityClasses::new();
    let etc = [Micros(4), Micros(6), Micros(3), Micros(8)];
    let mt = [0u8, 1];
    let e = env(&mt, 2, &etc, &classes);
    let tasks = [task(0, 0, lin(50.0, 100)), task(1, 0, lin(10.0, 100))];
    // t0 on A (completion 4); t1 then: A 7, B 8 -> A.
    assert_eq!(
        batch(Heuristic::MaxMaxUtil, e, &tasks, &[0, 0]),
        vec![(0, 0), (1, 0)]
    );
    assert_eq!(
        batch(Heuristic::MinMinComp, e, &tasks, &[0, 0]),
        vec![(1, 0), (0, 1)]
    );
}

/// Sufferage: utility 10 - c/10 for both. t0: A 10 (U 9), B 20 (U 8), sufferage 1. t1: A 10
/// (U 9), B 60 (U 4), sufferage 5. Both claim A; t1 suffers more and wins it. Next pass t0
/// sees A at 20 and B at 20 and takes A (equal completion, lower machine). Min-Min instead
/// gives A to the earlier t0 (equal completions).
#[test]
fn sufferage_gives_the_machine_to_the_task_that_would_suffer_most() {
    let classes = UtilityClasses::new();
    let etc = [Micros(10), Micros(20), Micros(10), Micros(60)];
    let mt = [0u8, 1];
    let e = env(&mt, 2, &etc, &classes);
    let tasks = [task(0, 0, lin(10.0, 10)), task(1, 0, lin(10.0, 10))];
    assert_eq!(
        batch(Heuristic::Sufferage, e, &tasks, &[0, 0]),
        vec![(1, 0), (0, 0)]
    );
    assert_eq!(
        batch(Heuristic::MinMinComp, e, &tasks, &[0, 0]),
        vec![(0, 0), (1, 0)]
    );
}

/// MET-Max Util-Max UPT keeps stage 1 inside the fastest type: t0's MET type is 1 (ETC 6)
/// though machine 0 (type 0, ETC 10) is free now and machine 1 is busy until 10,000.
#[test]
fn met_max_util_max_upt_stage_one_is_the_met_type() {
    let classes = UtilityClasses::new();
    let etc = [Micros(10), Micros(6)];
    let mt = [0u8, 1];
    let e = env(&mt, 2, &etc, &classes);
    let tasks = [task(0, 0, lin(1000.0, 10))];
    assert_eq!(
        batch(Heuristic::MetMaxUtilMaxUpt, e, &tasks, &[0, 10_000]),
        vec![(0, 1)]
    );
    // Max-Max UPT: machine 0 earns 999 / 10; machine 1 completes at 10,006, past the
    // curve's end, and earns 0.
    assert_eq!(
        batch(Heuristic::MaxMaxUpt, e, &tasks, &[0, 10_000]),
        vec![(0, 0)]
    );
}

/// Round-Robin walks one fixed order, skipping machines that cannot run the task.
#[test]
fn round_robin_walks_a_fixed_order() {
    let classes = UtilityClasses::new();
    // Type 0 is special: only task type 1 runs there.
    let etc = [X, Micros(5), Micros(5), Micros(5)];
    let mt = [0u8, 1, 1, 1];
    let e = env(&mt, 2, &etc, &classes);
    let tasks = [task(0, 0, lin(1.0, 10))];
    let v = View::new(e, &tasks, Micros::ZERO, |_| Micros::ZERO);
    let mut st = PolicyState::new(9, 4, Heuristic::RoundRobin);
    let order: Vec<u16> = st.order.iter().copied().filter(|&m| m != 0).collect();
    let picks: Vec<u16> = (0..6)
        .map(|_| {
            policy::immediate(Heuristic::RoundRobin, &v, 0, &mut st)
                .0
                .unwrap()
        })
        .collect();
    assert_eq!(&picks[..3], &order[..]);
    assert_eq!(&picks[3..], &order[..]);
}

struct Run {
    outcome: Vec<TaskOutcome>,
    report: super::SerialReport,
}

fn run(e: SerialEnv<'_>, tasks: &[SerialTask], cfg: SerialConfig) -> Run {
    let n = tasks.len();
    let mut outcome = vec![TaskOutcome::Waiting; n];
    let (mut link, mut slots, mut key) = (vec![0u32; n], vec![0u32; n], vec![0.0; n]);
    let (mut choice, mut next, mut prev) = (vec![0u16; n], vec![0u32; n], vec![0u32; n]);
    let (mut tree, mut group) = (vec![0u32; 2 * n], vec![0u32; 2 * n]);
    let st = SerialStorage {
        outcome: &mut outcome,
        link: &mut link,
        slots: &mut slots,
        key: &mut key,
        choice: &mut choice,
        next: &mut next,
        prev: &mut prev,
        tree: &mut tree,
        group: &mut group,
    };
    let report = Sim::new(e, tasks, cfg, st).unwrap().run();
    Run { outcome, report }
}

fn cfg(h: Heuristic, theta: f64) -> SerialConfig {
    SerialConfig {
        heuristic: h,
        theta,
        trigger: Trigger::MINUTE,
        cost: EventCost::Zero,
        permute: 0,
        seed: 5,
        window: (Micros::ZERO, Micros::from_hours(10)),
    }
}

fn start(o: TaskOutcome) -> u64 {
    match o {
        TaskOutcome::Started { start, .. } => start.0 / 1_000_000,
        other => panic!("{other:?}"),
    }
}

/// One machine, 10-minute tasks: t0, t1, t2 (worth 1) at 0 and t3 (worth 8) at 90 s.
fn one_machine_tasks() -> [SerialTask; 4] {
    let day = 1_000_000 * 86_400;
    [
        task(0, 0, lin(1.0, day)),
        task(0, 0, lin(1.0, day)),
        task(0, 0, lin(1.0, day)),
        task(0, 90_000_000, lin(8.0, day)),
    ]
}

/// The first event (60 s) runs t0, makes t1 pending and queues t2. At 120 s, t3 (worth 8)
/// jumps the virtual queue but not the pending t1, which is never remapped.
#[test]
fn batch_remaps_the_virtual_queue_but_never_the_pending_task() {
    let classes = UtilityClasses::new();
    let etc = [Micros::from_mins(10)];
    let mt = [0u8];
    let e = env(&mt, 1, &etc, &classes);
    let tasks = one_machine_tasks();
    let r = run(e, &tasks, cfg(Heuristic::MaxMaxUtil, 0.0));
    let starts: Vec<u64> = r.outcome.iter().map(|&o| start(o)).collect();
    assert_eq!(starts, vec![60, 660, 1860, 1260]);
    // Immediate mode never remaps: t3 waits behind t2.
    let r = run(e, &tasks, cfg(Heuristic::MaxUtil, 0.0));
    let starts: Vec<u64> = r.outcome.iter().map(|&o| start(o)).collect();
    assert_eq!(starts, vec![0, 600, 1200, 1800]);
}

/// Immediate dropping: utility at the chosen completion below theta drops the task. With
/// theta = 1 the worth-1 tasks (utility 1 - tiny decay < 1) drop; t3 (8) stays.
#[test]
fn dropping_rules() {
    let classes = UtilityClasses::new();
    let etc = [Micros::from_mins(10)];
    let mt = [0u8];
    let e = env(&mt, 1, &etc, &classes);
    let tasks = one_machine_tasks();
    let r = run(e, &tasks, cfg(Heuristic::MaxUtil, 1.0));
    assert!(matches!(r.outcome[0], TaskOutcome::Dropped(_)));
    assert_eq!(start(r.outcome[3]), 90);
    assert_eq!(r.report.dropped, 3);
    // Batch: at 60 s each worth-1 task's best is below 1 and drops before the heuristic;
    // a threshold equal to the best utility keeps the task (ties stay).
    let r = run(e, &tasks, cfg(Heuristic::MinMinComp, 1.0));
    assert_eq!(r.report.dropped, 3);
    let flat = [task(
        0,
        0,
        UtilityCurve::Linear {
            start: 2.0,
            soft: Micros::from_hours(1),
            hard: Micros::from_hours(2),
            final_value: 0.0,
        },
    )];
    let r = run(e, &flat, cfg(Heuristic::MinMinComp, 2.0));
    assert_eq!((r.report.dropped, start(r.outcome[0])), (0, 60));
}

/// Events are delayed by the previous event's modelled duration: at 1 ms an evaluation,
/// a 100,000-evaluation event lasts 100 s, so the next fires at 160 s and is delayed.
#[test]
fn a_slow_event_delays_the_next() {
    let classes = UtilityClasses::new();
    let etc = [Micros::from_mins(10)];
    let mt = [0u8];
    let e = env(&mt, 1, &etc, &classes);
    let tasks = one_machine_tasks();
    let mut c = cfg(Heuristic::MaxMaxUtil, 0.0);
    // 3 tasks, 1 machine: 3 + 2 + 1 = 6 evaluations at the first event.
    c.cost = EventCost::PerEval(20_000_000_000_000);
    c.window = (Micros::ZERO, Micros::from_mins(30));
    let r = run(e, &tasks, c);
    // Events at 60 s (6 evals, 120 s long) and 180 s (delayed; 1 eval for t2 and t3: 2 + 1),
    // then 240 s is delayed by the 60 s event... every later event is on time or delayed.
    assert!(r.report.delayed_events >= 1);
    assert_eq!(start(r.outcome[3]), 1260);
    assert!(r.report.events < 30);
}

/// App. A: with permutation on, a later task that decays fast goes ahead in the virtual
/// queue when that earns more.
#[test]
fn permutation_reorders_the_virtual_queue_heads() {
    let classes = UtilityClasses::new();
    let etc = [Micros::from_mins(10)];
    let mt = [0u8];
    let e = env(&mt, 1, &etc, &classes);
    let day = 1_000_000 * 86_400;
    let fast_decay = UtilityCurve::Linear {
        start: 4.0,
        soft: Micros::from_mins(35),
        hard: Micros::from_mins(36),
        final_value: 0.0,
    };
    let tasks = [
        task(0, 0, lin(8.0, day)),
        task(0, 0, lin(8.0, day)),
        task(0, 0, lin(5.0, day)),
        task(0, 0, fast_decay),
    ];
    // t0 and t1 (8) execute and pend; Max-Max Util queues t2 (5) before t3 (4), and t3
    // would complete at 41 min and earn 0. Swapping earns 4 (t3 at 31 min) + about 5 (t2
    // at 41 min).
    let plain = run(e, &tasks, cfg(Heuristic::MaxMaxUtil, 0.0));
    let mut c = cfg(Heuristic::MaxMaxUtil, 0.0);
    c.permute = 2;
    let permuted = run(e, &tasks, c);
    assert!(start(plain.outcome[2]) < start(plain.outcome[3]));
    assert!(start(permuted.outcome[3]) < start(permuted.outcome[2]));
    assert!(permuted.report.utility > plain.report.utility);
}

/// A reference scenario: 3 machine types (type 0 special), 8 machines, 12 task types (0-2
/// special on type 0), `n` tasks over 6 h from a fixed LCG, Table C.1 curves.
fn reference(n: usize, seed: u64) -> (Vec<Micros>, Vec<SerialTask>) {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let mut etc = vec![X; 12 * 3];
    for ty in 0..12 {
        for j in 1..3 {
            etc[ty * 3 + j] = Micros::from_secs(300 + next() % 600);
        }
        if ty < 3 {
            etc[ty * 3] = Micros::from_secs(30 + next() % 60);
        }
    }
    let mut t = 0u64;
    let mut tasks = Vec::new();
    for _ in 0..n {
        t += next() % (6 * 3_600_000_000 / n as u64 * 2);
        let ty = (next() % 12) as u16;
        let p = [8.0, 4.0, 2.0, 1.0][(next() % 4) as usize];
        let u = Urgency::ALL[(next() % 4) as usize];
        let class = (next() % 4) as u8;
        tasks.push(task(
            ty,
            t,
            UtilityCurve::essc(p, u, Micros::from_mins(8), class),
        ));
    }
    (etc, tasks)
}

const REF_MT: [u8; 8] = [0, 1, 1, 1, 2, 2, 2, 2];

fn reference_env<'a>(etc: &'a [Micros], classes: &'a UtilityClasses) -> SerialEnv<'a> {
    SerialEnv {
        machine_type: &REF_MT,
        machine_types: 3,
        special_types: 1,
        etc,
        classes,
    }
}

/// Golden digests: every heuristic on the reference scenario at theta = 0.5, the one-minute
/// trigger, modelled-free cost. A change here is a change of decisions.
#[test]
fn golden_digests_of_the_reference_scenario() {
    let classes = UtilityClasses::essc20();
    let (etc, tasks) = reference(300, 1);
    let e = reference_env(&etc, &classes);
    let mut got = Vec::new();
    for h in Heuristic::ALL {
        let r = run(e, &tasks, cfg(h, 0.5));
        got.push((h.name(), r.report.digest));
    }
    let want: [(&str, u64); 12] = GOLDEN;
    assert_eq!(got, want.to_vec(), "{got:#x?}");
}

/// K-Best Types at K = 1 makes MET-Max Util's decisions, so their digests agree.
const GOLDEN: [(&str, u64); 12] = [
    ("random", 0xd1499afa7fd2dbf4),
    ("round-robin", 0xb00ca13c20f64680),
    ("max-util", 0xbe2c1e62d707d32),
    ("max-upt", 0xe00704c5c0475f06),
    ("met-random", 0x6b5d551f18cbc416),
    ("met-max-util", 0x24e06f50de1bed6e),
    ("k-best-types", 0x24e06f50de1bed6e),
    ("min-min-comp", 0xcd99f7ee5d1a6671),
    ("sufferage", 0xa9603c66e5406031),
    ("max-max-util", 0xde9f83f9c4c57b37),
    ("max-max-upt", 0xd479771675c35417),
    ("met-max-util-max-upt", 0x399e8f5bc2bad1b9),
];

fn check_invariants(e: SerialEnv<'_>, tasks: &[SerialTask], r: &Run) -> Result<(), TestCaseError> {
    let mut runs: Vec<(u16, u64, u64)> = Vec::new();
    let mut started = 0u32;
    for (i, o) in r.outcome.iter().enumerate() {
        if let TaskOutcome::Started { machine, start } = *o {
            let j = e.machine_type[machine as usize];
            let etc = e.etc(tasks[i].ty, j);
            prop_assert!(
                etc != Micros::MAX,
                "task {} on a machine that cannot run it",
                i
            );
            prop_assert!(
                start >= tasks[i].arrival,
                "task {} starts before it arrives",
                i
            );
            runs.push((machine, start.0, start.0 + etc.0));
            started += 1;
        }
        if let TaskOutcome::Dropped(at) = *o {
            prop_assert!(at >= tasks[i].arrival);
        }
    }
    runs.sort();
    for w in runs.windows(2) {
        if w[0].0 == w[1].0 {
            prop_assert!(
                w[0].2 <= w[1].1,
                "machine {} runs two tasks at once",
                w[0].0
            );
        }
    }
    // Each task is in exactly one state; the window's completions are started tasks.
    prop_assert!(r.report.completed <= started);
    prop_assert!(r.report.dropped as usize <= tasks.len() - started as usize);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn runs_keep_the_queue_invariants(
        seed in 0u64..1_000,
        n in 1usize..250,
        h in 0usize..12,
        theta in prop::sample::select(vec![0.0, 0.05, 0.5, 1.5]),
        cost in prop::sample::select(vec![0u64, 1_000_000, 50_000_000_000]),
        tasks_trigger in prop::option::of(1u32..40),
        permute in prop::sample::select(vec![0u8, 2, 3, 5]),
    ) {
        let classes = UtilityClasses::essc20();
        let (etc, tasks) = reference(n, seed);
        let e = reference_env(&etc, &classes);
        let mut c = cfg(Heuristic::ALL[h], theta);
        c.cost = EventCost::PerEval(cost);
        c.trigger.tasks = tasks_trigger;
        c.permute = permute;
        c.window = (Micros::from_mins(30), Micros::from_hours(8));
        let r = run(e, &tasks, c);
        check_invariants(e, &tasks, &r)?;
        // Same inputs, same digest.
        let again = run(e, &tasks, c);
        prop_assert_eq!(r.report, again.report);
    }
}

/// A batch pass: grouped (`Some(kind)`) or the per-task reference (`None`).
fn pass(
    kind: Option<super::grouped::Kind>,
    stage: &impl super::two_stage::Stage,
    e: SerialEnv<'_>,
    tasks: &[SerialTask],
    ready: &[u64],
) -> (Vec<(u32, u16)>, u64) {
    let n = tasks.len();
    let (mut slots, mut key, mut choice) = (vec![0u32; n], vec![0.0; n], vec![0u16; n]);
    let (mut next, mut prev, mut tree) = (vec![0u32; n], vec![0u32; n], vec![0u32; 2 * n]);
    let (mut group, mut group_task) = (vec![0u32; n], vec![0u32; n]);
    let by_curve = kind != Some(super::grouped::Kind::MinMin);
    super::grouped::assign_groups(tasks, by_curve, &mut group, &mut slots);
    for (i, s) in slots.iter_mut().enumerate() {
        *s = i as u32;
    }
    let mut sc = Scratch {
        slots: &mut slots,
        key: &mut key,
        choice: &mut choice,
        next: &mut next,
        prev: &mut prev,
        tree: &mut tree,
        group: &group,
        group_task: &mut group_task,
    };
    let mut v = View::new(e, tasks, Micros::ZERO, |m| Micros(ready[m]));
    let mut out = Vec::new();
    let mut emit = |t, m| out.push((t, m));
    let evals = match kind {
        Some(k) => super::grouped::run(&mut v, &mut sc, n, k, &|v, t| stage.evals(v, t), &mut emit),
        None => super::two_stage::run(&mut v, &mut sc, n, stage, &mut emit),
    };
    (out, evals)
}

/// The textbook two-stage pass, by definition: at every iteration every remaining task's
/// stage-1 pair, then the best pair (higher score, then earlier task).
fn textbook(
    stage: &impl super::two_stage::Stage,
    e: SerialEnv<'_>,
    tasks: &[SerialTask],
    ready: &[u64],
) -> Vec<(u32, u16)> {
    let mut v = View::new(e, tasks, Micros::ZERO, |m| Micros(ready[m]));
    let mut left: Vec<u32> = (0..tasks.len() as u32).collect();
    let mut out = Vec::new();
    loop {
        let mut best: Option<(usize, u16, f64)> = None;
        for (i, &t) in left.iter().enumerate() {
            if let Some((m, k)) = stage.choose(&v, t) {
                if best.is_none_or(|(_, _, bk)| k > bk) {
                    best = Some((i, m, k));
                }
            }
        }
        let Some((i, m, _)) = best else {
            return out;
        };
        let t = left.remove(i);
        v.take(t, m);
        out.push((t, m));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The grouped pass (tasks of one type and curve together) makes the per-task pass's
    /// decisions, which are the textbook pass's, and counts the textbook evaluations.
    #[test]
    fn grouped_pass_equals_per_task_and_textbook_passes(
        seed in 0u64..10_000,
        n in 1usize..300,
        ready in prop::collection::vec(0u64..3_000_000_000, 8),
        spread_h in prop::sample::select(vec![0u64, 1, 6]),
    ) {
        use super::grouped::Kind;
        use super::policy::{max_max_upt::MaxMaxUpt, max_max_util::MaxMaxUtil,
            met_max_util_max_upt::MetMaxUtilMaxUpt, min_min_comp::MinMinComp};
        let classes = UtilityClasses::essc20();
        let (etc, mut tasks) = reference(n, seed);
        // All arrived by the event at `spread_h` hours (0: all at once, many equal ages).
        for t in tasks.iter_mut() {
            t.arrival = Micros(t.arrival.0.min(spread_h * 3_600_000_000));
        }
        let e = reference_env(&etc, &classes);
        let grouped = pass(Some(Kind::MinMin), &MinMinComp, e, &tasks, &ready);
        prop_assert_eq!(&grouped, &pass(None, &MinMinComp, e, &tasks, &ready));
        prop_assert_eq!(&grouped.0, &textbook(&MinMinComp, e, &tasks, &ready));
        let grouped = pass(Some(Kind::MaxUtil), &MaxMaxUtil, e, &tasks, &ready);
        prop_assert_eq!(&grouped, &pass(None, &MaxMaxUtil, e, &tasks, &ready));
        prop_assert_eq!(&grouped.0, &textbook(&MaxMaxUtil, e, &tasks, &ready));
        let grouped = pass(Some(Kind::MaxUpt), &MaxMaxUpt, e, &tasks, &ready);
        prop_assert_eq!(&grouped, &pass(None, &MaxMaxUpt, e, &tasks, &ready));
        prop_assert_eq!(&grouped.0, &textbook(&MaxMaxUpt, e, &tasks, &ready));
        let grouped = pass(Some(Kind::MetMaxUpt), &MetMaxUtilMaxUpt, e, &tasks, &ready);
        prop_assert_eq!(&grouped, &pass(None, &MetMaxUtilMaxUpt, e, &tasks, &ready));
        prop_assert_eq!(&grouped.0, &textbook(&MetMaxUtilMaxUpt, e, &tasks, &ready));
    }
}

/// Sufferage's per-task pass (`policy::sufferage::per_task`) over all `tasks` at time 0.
fn sufferage_per_task(e: SerialEnv<'_>, tasks: &[SerialTask], ready: &[u64]) -> Vec<(u32, u16)> {
    let n = tasks.len();
    let mut slots: Vec<u32> = (0..n as u32).collect();
    let (mut key, mut choice) = (vec![0.0; n], vec![0u16; n]);
    let (mut next, mut prev, mut tree) = (vec![0u32; n], vec![0u32; n], vec![0u32; 2 * n]);
    let (group, mut group_task) = (vec![0u32; n], vec![0u32; n]);
    let mut sc = Scratch {
        slots: &mut slots,
        key: &mut key,
        choice: &mut choice,
        next: &mut next,
        prev: &mut prev,
        tree: &mut tree,
        group: &group,
        group_task: &mut group_task,
    };
    let mut v = View::new(e, tasks, Micros::ZERO, |m| Micros(ready[m]));
    let mut out = Vec::new();
    policy::sufferage::per_task(&mut v, &mut sc, n, &mut |t, m| out.push((t, m)));
    out
}

/// Sufferage by definition: at every pass every unmapped task, in arrival order, computes
/// its best utility (first completion) minus its second best and claims its first machine,
/// displacing a holder of strictly lower sufferage; the claims are then assigned.
fn textbook_sufferage(e: SerialEnv<'_>, tasks: &[SerialTask], ready: &[u64]) -> Vec<(u32, u16)> {
    let mut v = View::new(e, tasks, Micros::ZERO, |m| Micros(ready[m]));
    let mut left: Vec<u32> = (0..tasks.len() as u32).collect();
    let mut out = Vec::new();
    while !left.is_empty() {
        let mut claim: Vec<Option<(u32, f64)>> = vec![None; e.machine_type.len()];
        for &t in &left {
            // First and second completion over every machine, by definition.
            let mut all: Vec<(Micros, u16)> = (0..e.machine_type.len() as u16)
                .filter(|&m| v.etc(t, m) != X)
                .map(|m| (v.completion(t, m), m))
                .collect();
            all.sort();
            let (c1, m) = all[0];
            let c2 = all.get(1).map(|&(c, _)| c);
            let suff = v.utility(t, c1) - c2.map_or(0.0, |c| v.utility(t, c));
            if claim[m as usize].is_none_or(|(_, s)| s < suff) {
                claim[m as usize] = Some((t, suff));
            }
        }
        for (m, c) in claim.iter().enumerate() {
            if let Some((t, _)) = *c {
                v.take(t, m as u16);
                out.push((t, m as u16));
                left.retain(|&x| x != t);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Sufferage's pass, which evaluates only the tasks whose bound can win, makes the
    /// textbook pass's decisions.
    #[test]
    fn sufferage_pass_equals_the_textbook_pass(
        seed in 0u64..10_000,
        n in 1usize..300,
        ready in prop::collection::vec(0u64..3_000_000_000, 8),
        spread_h in prop::sample::select(vec![0u64, 1, 6, 30]),
    ) {
        let classes = UtilityClasses::essc20();
        let (etc, mut tasks) = reference(n, seed);
        for t in tasks.iter_mut() {
            t.arrival = Micros(t.arrival.0.min(spread_h * 3_600_000_000));
        }
        let e = reference_env(&etc, &classes);
        let got = batch(Heuristic::Sufferage, e, &tasks, &ready);
        let want = textbook_sufferage(e, &tasks, &ready);
        prop_assert_eq!(&got, &want);
        // The fallback for more task types than the per-type table holds, too.
        prop_assert_eq!(sufferage_per_task(e, &tasks, &ready), want);
    }
}

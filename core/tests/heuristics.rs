//! Hand-checkable tests, one per defining property of each heuristic (seed 000 §III).
mod common;
use common::*;
use kairos_core::energy::{Budget, EnergyFilter, FilterKind};
use kairos_core::platform::{ClusterId, PState, Platform};
use kairos_core::task::TaskId;
use kairos_core::units::{Micros, MilliJoules};
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use kairos_core::{Config, DecisionKind};
use kairos_core::{Heuristic, Reservations};

fn cfg(h: Heuristic, end_min: u64) -> Config {
    Config::new(h, mins(0), mins(end_min))
}

/// Four nodes; all five tasks arrive at 0:
/// A 3 nodes x 60, B 4 x 30, C 1 x 30, D 2 x 10, E 1 x 100 (minutes).
fn backfill_case() -> (Platform, Vec<kairos_core::task::Task>) {
    let p = single(4, &[(3, 60), (4, 30), (1, 30), (2, 10), (1, 100)]);
    let tasks = (0..5).map(|t| task(0, t, flat(1.0))).collect();
    (p, tasks)
}

#[test]
fn easy_holds_one_reservation_and_backfills_only_what_does_not_delay_it() {
    let (p, tasks) = backfill_case();
    let run = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::Easy, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    // By hand: A starts at 0 on 3 nodes. B cannot start: the one reservation, at 60 (A's
    // end). C fits the free node before 60: backfilled at 0. D (2 nodes) cannot start and a
    // reservation exists: it waits. E (1 x 100) would run past 60 on the free node, delaying
    // B: it waits. At 60 B starts; D, now first, is reserved at 90 (B's end); E waits (no
    // node free at 60). At 90 D starts on 2 nodes and E starts on another.
    assert_eq!(
        starts(&run),
        vec![Some(0), Some(60), Some(0), Some(90), Some(90)]
    );
    assert!(
        run.after.iter().all(|e| e.reserved_later <= 1),
        "EASY holds at most one reservation"
    );
    assert!(run.after.iter().any(|e| e.reserved_later == 1));
    // Never more than one task is ever reserved at once, and B's reservation never moved later.
    let b: Vec<u64> = run
        .decisions
        .iter()
        .filter(|(_, d)| d.task == TaskId(1))
        .map(|(_, d)| d.start.0)
        .collect();
    assert!(b.windows(2).all(|w| w[1] <= w[0]));
}

#[test]
fn conservative_reserves_every_waiting_task_and_never_delays_an_earlier_reservation() {
    let (p, tasks) = backfill_case();
    let run = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::Conservative, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    // By hand, all in the first event: A at 0; B reserved at 60; C backfilled at 0 (node 4
    // until 30); D (2 x 10) has no two nodes before B ends: reserved at 90; E (1 x 100): node
    // 4 is free 30..60 only, so reserved at 90 on a node D does not take.
    assert_eq!(
        starts(&run),
        vec![Some(0), Some(60), Some(0), Some(90), Some(90)]
    );
    let first_event: Vec<_> = run
        .decisions
        .iter()
        .filter(|(t, _)| *t == Micros::ZERO)
        .collect();
    assert_eq!(
        first_event.len(),
        5,
        "every task started or reserved at once"
    );
    assert_eq!(run.after[0].reserved_later, 3);
    // Every reservation is kept exactly: one decision per task, never moved.
    assert_eq!(run.decisions.len(), 5);
}

#[test]
fn easy_backfills_what_would_delay_a_second_queued_task_and_conservative_does_not() {
    // Three nodes. At 0: A 2 x 20 runs 0..20 on n1, n2. B 2 x 10 waits for them: reserved
    // at 20 on n1, n2 (they leave no new void; n3 would). C 3 x 10 comes next.
    // At 1, D 1 x 35 arrives.
    // Conservative reserves C too, at 30 (B's end), so D on n3 from 1 would run into C:
    // D goes after C, at 40.
    // EASY protects only B: D runs on n3 from 1 to 36, and C, reserved once B has started,
    // starts when n3 is free again, at 36.
    let p = single(3, &[(2, 20), (2, 10), (3, 10), (1, 35)]);
    let tasks = vec![
        task(0, 0, flat(1.0)),
        task(0, 1, flat(1.0)),
        task(0, 2, flat(1.0)),
        task(1, 3, flat(1.0)),
    ];
    let cons = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::Conservative, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    assert_eq!(starts(&cons), vec![Some(0), Some(20), Some(30), Some(40)]);
    let easy = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::Easy, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    assert_eq!(starts(&easy), vec![Some(0), Some(20), Some(36), Some(1)]);
}

#[test]
fn multiple_queues_take_one_large_four_medium_eight_small_per_cycle() {
    // Large: 8 nodes x 100 (800 node-min, the reference); medium 4 x 100 (400: 50%);
    // small 1 x 100 (100: 12.5%). Everything fits at once on 64 nodes, so the decisions come
    // out in the order the queues are served.
    let p = single(64, &[(8, 100), (4, 100), (1, 100)]);
    let mut tasks = Vec::new();
    // Arrival order mixes the queues: S M L S M S S M L S S M S S M S S L S.
    let pattern = "SMLSMSSMLSSMSSMSSLS";
    for c in pattern.chars() {
        let ty = match c {
            'L' => 0,
            'M' => 1,
            _ => 2,
        };
        tasks.push(task(0, ty, flat(1.0)));
    }
    let run = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::MultiQueue, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    let order: String = run
        .decisions
        .iter()
        .map(|(_, d)| pattern.as_bytes()[d.task.0 as usize] as char)
        .collect();
    // 3 L, 5 M, 11 S: cycle 1 = L MMMM SSSSSSSS, cycle 2 = L M SSS, cycle 3 = L.
    assert_eq!(order, "LMMMMSSSSSSSSLMSSSL");
    // Within a queue, arrival order.
    let ls: Vec<u32> = run
        .decisions
        .iter()
        .filter(|(_, d)| pattern.as_bytes()[d.task.0 as usize] == b'L')
        .map(|(_, d)| d.task.0)
        .collect();
    assert_eq!(ls, vec![2, 8, 17]);
}

/// Two nodes. R (worth 8) runs 0..30; L (worth 2) waits for 30. H (worth 6) arrives at 5.
fn placeholder_case(r: Reservations) -> Vec<Option<u64>> {
    let p = single(2, &[(2, 30), (2, 60)]);
    let tasks = vec![
        task(0, 0, flat(8.0)),
        task(0, 1, flat(2.0)),
        task(5, 1, flat(6.0)),
    ];
    let mut c = cfg(Heuristic::MaxUtil, 600);
    c.reservations = r;
    starts(&replay(&p, &UtilityClasses::default(), c, mins(5), &tasks).unwrap())
}

#[test]
fn a_place_holder_vanishes_so_a_later_higher_utility_task_takes_its_slot() {
    // Place-holders: L holds 30 until the event at 5, where H (6 > 2) takes 30 and L goes
    // to 90.
    assert_eq!(
        placeholder_case(Reservations::PlaceHolder),
        vec![Some(0), Some(90), Some(30)]
    );
    // Permanent: L keeps 30 and H waits for 90.
    assert_eq!(
        placeholder_case(Reservations::Permanent),
        vec![Some(0), Some(30), Some(90)]
    );
}

/// One node, three P-states: 10 / 15 / 20 minutes at 100 / 50 / 40 W, i.e. 1000 / 750 /
/// 800 W-minutes of energy.
fn pstate_platform() -> Platform {
    let mut p = Platform::new(&[cluster(1)], 3).unwrap();
    p.add_resolved_type(&[Some(pl(1, [10, 15, 20], [100, 50, 40]))])
        .unwrap();
    p
}

#[test]
fn max_upe_picks_the_pstate_with_the_most_utility_per_joule() {
    let p = pstate_platform();
    let tasks = vec![task(0, 0, flat(4.0))];
    let upe = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::MaxUpe, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    assert_eq!(upe.slots[0].assignment.unwrap().pstate, PState(1));
    // The same utility everywhere: Max Util keeps the first best, P-state 0; a decaying curve
    // makes P-state 0 strictly best for it.
    let decaying = vec![task(0, 0, linear(4.0, 0, 60))];
    let util = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::MaxUtil, 600),
        mins(1),
        &decaying,
    )
    .unwrap();
    assert_eq!(util.slots[0].assignment.unwrap().pstate, PState(0));
}

#[test]
fn a_filter_removes_exactly_the_options_over_its_budget() {
    // One one-core node, a 100-minute day (6000 core-seconds) and a 420 kJ budget: the
    // energy-per-resource budget at 0 is 1.0 x 420000 / 6000 = 70 J per core-second. The
    // options draw 100, 50 and 40 W on one core: only P-state 0 is over it.
    let p = pstate_platform();
    let decaying = vec![task(0, 0, linear(4.0, 0, 60))];
    let mut c = cfg(Heuristic::MaxUtil, 100);
    c.budget = MilliJoules::from_joules(420_000);
    c.filter = EnergyFilter {
        kind: FilterKind::PerResource,
        leniency: 1.0,
    };
    let run = replay(&p, &UtilityClasses::default(), c, mins(1), &decaying).unwrap();
    // Max Util would take P-state 0 (fastest); with it filtered out, P-state 1 is next.
    assert_eq!(run.slots[0].assignment.unwrap().pstate, PState(1));
    // At leniency 0.5 the budget at 0 is 35: every option is over it. It loosens as the
    // day's resources run out: at minute t it is 0.5 x 420000 / ((100 - t) x 60), which
    // first reaches P-state 2's 40 W at t = 13 (40.2; 39.8 at t = 12) and P-state 1's 50 W
    // only at t = 30. So the task starts at 13 in P-state 2.
    c.filter.leniency = 0.5;
    let run = replay(&p, &UtilityClasses::default(), c, mins(1), &decaying).unwrap();
    let a = run.slots[0].assignment.unwrap();
    assert_eq!((a.start, a.pstate), (mins(13), PState(2)));
    // Energy-per-task: n = min(6000 / avg resources, 420000 / avg energy). Averages over the
    // three options: resources (600 + 900 + 1200) / 3 = 900 core-s; energy (60000 + 45000 +
    // 48000) / 3 = 51000 J. n = min(6.67, 8.24) = 6.67; budget = 2.0 x 420000 / 6.67 =
    // 126000 J at leniency 2: all pass. At leniency 0.8: 50400 J: P-state 0 (60 kJ) is out,
    // P-states 1 (45 kJ) and 2 (48 kJ) pass, so Max Util takes P-state 1.
    c.filter = EnergyFilter {
        kind: FilterKind::PerTask,
        leniency: 0.8,
    };
    let run = replay(&p, &UtilityClasses::default(), c, mins(1), &decaying).unwrap();
    assert_eq!(run.slots[0].assignment.unwrap().pstate, PState(1));
    let _ = Budget::Unlimited;
}

#[test]
fn dropping_removes_exactly_the_tasks_under_the_threshold_at_their_fastest_cluster() {
    // Two clusters: fast (10 min) and slow (30 min). Curves fall linearly from 1 at arrival
    // to 0 at T. At 0, started now on the fast cluster: T = 16 -> 1 - 10/16 = 0.375 (dropped);
    // T = 25 -> 0.6 (kept, although the slow cluster would give 0).
    let mut p = Platform::new(&[cluster(4), cluster(4)], 1).unwrap();
    p.add_resolved_type(&[
        Some(pl(1, [10, 10, 10], [100; 3])),
        Some(pl(1, [30, 30, 30], [100; 3])),
    ])
    .unwrap();
    let tasks = vec![
        task(0, 0, linear(1.0, 0, 16)),
        task(0, 0, linear(1.0, 0, 25)),
    ];
    let run = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::MaxUtil, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    let drops: Vec<u32> = run
        .decisions
        .iter()
        .filter(|(_, d)| d.kind == DecisionKind::Drop)
        .map(|(_, d)| d.task.0)
        .collect();
    assert_eq!(drops, vec![0]);
    assert_eq!(run.slots[1].assignment.unwrap().cluster, ClusterId(0));
    // The comparison heuristics never drop.
    let run = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::Conservative, 600),
        mins(1),
        &tasks,
    )
    .unwrap();
    assert_eq!(run.report.dropped, 0);
}

#[test]
fn random_is_reproducible_from_its_seed() {
    let mut p = Platform::new(&[cluster(8), cluster(8)], 3).unwrap();
    p.add_resolved_type(&[
        Some(pl(2, [10, 14, 20], [100, 70, 40])),
        Some(pl(3, [8, 12, 16], [120, 80, 50])),
    ])
    .unwrap();
    let tasks: Vec<_> = (0..60).map(|i| task(i, 0, flat(1.0))).collect();
    let digest = |seed| {
        let mut c = cfg(Heuristic::Random, 600);
        c.seed = seed;
        replay(&p, &UtilityClasses::default(), c, mins(1), &tasks)
            .unwrap()
            .report
            .digest
    };
    assert_eq!(digest(7), digest(7));
    assert_ne!(digest(7), digest(8));
}

#[test]
fn the_memo_and_the_void_index_never_change_a_decision() {
    // The fit memo and the void index are caches: with them, without them, with a tiny,
    // colliding memo and with an index too small for some clusters, every heuristic decides
    // the same.
    let mut p = Platform::new(&[cluster(6), cluster(9)], 3).unwrap();
    p.add_resolved_type(&[
        Some(pl(2, [30, 40, 60], [100, 70, 40])),
        Some(pl(3, [20, 30, 40], [120, 80, 50])),
    ])
    .unwrap();
    p.add_resolved_type(&[None, Some(pl(6, [50, 60, 80], [100, 70, 40]))])
        .unwrap();
    p.add_resolved_type(&[
        Some(pl(1, [5, 7, 9], [100, 70, 40])),
        Some(pl(1, [6, 8, 10], [100, 70, 40])),
    ])
    .unwrap();
    let tasks: Vec<_> = (0..80)
        .map(|i| {
            task(
                i * 3,
                (i % 3) as u16,
                linear(1.0 + (i % 7) as f64, 30 + i % 50, 400),
            )
        })
        .collect();
    for h in Heuristic::ALL {
        let c = cfg(h, 600);
        let a = replay_with_memo(&p, &UtilityClasses::default(), c, mins(1), &tasks, 0, 0)
            .unwrap()
            .report;
        let b = replay_with_memo(&p, &UtilityClasses::default(), c, mins(1), &tasks, 4096, 16)
            .unwrap()
            .report;
        let d = replay_with_memo(&p, &UtilityClasses::default(), c, mins(1), &tasks, 3, 2)
            .unwrap()
            .report;
        assert_eq!(a, b, "{h}");
        assert_eq!(a, d, "{h}");
    }
}

#[test]
fn essc_curves_work_through_the_controller() {
    let p = pstate_platform();
    let classes = UtilityClasses::essc20();
    let curve = UtilityCurve::PiecewiseExp {
        priority: 4.0,
        urgency_per_min: 0.1,
        first: mins(20),
        class: 0,
    };
    let run = replay(
        &p,
        &classes,
        cfg(Heuristic::MaxUtil, 600),
        mins(1),
        &[task(0, 0, curve)],
    )
    .unwrap();
    assert_eq!(run.report.completed, 1);
    assert_eq!(run.report.utility.0, 4_000_000);
}

/// Regression (trace replay): a completion exactly at the planned end must trigger a pass when
/// the schedule asks for passes at completions, not only an early one. One node; A and B
/// (1 x 10 each) arrive at 0; periodic events every 1000 minutes, so only arrivals and
/// completions drive the passes. Strict FCFS holds no reservation: B starts when A ends.
#[test]
fn an_on_time_completion_triggers_a_pass() {
    let p = single(1, &[(1, 10)]);
    let tasks = vec![task(0, 0, flat(1.0)), task(0, 0, flat(1.0))];
    let run = replay(
        &p,
        &UtilityClasses::default(),
        cfg(Heuristic::Fcfs, 5000),
        mins(1000),
        &tasks,
    )
    .unwrap();
    assert_eq!(starts(&run), vec![Some(0), Some(10)]);
}

//! The controller's tests: whole runs on a small platform, held to invariants and to
//! each other (a clone, the memo, pruning, the full plan).
extern crate std;
use super::*;
use crate::config::{Heuristic, Reservations};
use crate::energy::{option_bit, EnergyFilter};
use crate::error::{Capacity, CapacityError};
use crate::plan::{Assignment, Choice, MemoEntry, StorageSizes, TaskState, Work};
use crate::platform::{Cluster, ClusterKind, TaskTypeId};
use crate::platform::{PState, Placement};
use crate::task::Demand;
use crate::timeline::Booking;
use crate::units::MilliWatts;
use crate::units::{MilliJoules, NodeCount};
use std::vec;
use std::vec::Vec;

/// Owned buffers for one controller.
struct Bufs {
    tasks: Vec<TaskSlot>,
    bookings: Vec<Booking>,
    members: Vec<u32>,
    a: Vec<u64>,
    b: Vec<u64>,
    work: Vec<Work>,
    open: Vec<u32>,
    memo: Vec<MemoEntry>,
    voids: Vec<crate::timeline::Void>,
    log: Vec<crate::timeline::Logged>,
}

impl Bufs {
    /// Buffers for `tasks` tasks, a memo of `memo` entries and no void index.
    fn new(platform: &Platform, tasks: usize, memo: usize) -> Bufs {
        let s = StorageSizes::of(platform, tasks);
        Bufs {
            tasks: vec![TaskSlot::EMPTY; s.tasks],
            bookings: vec![Booking::EMPTY; s.bookings],
            members: vec![0; s.members],
            a: vec![0; s.scratch],
            b: vec![0; s.scratch],
            work: vec![Work::default(); s.work],
            open: vec![0; s.open],
            memo: vec![MemoEntry::default(); memo],
            voids: Vec::new(),
            log: vec![crate::timeline::Logged::EMPTY; s.booking_log],
        }
    }
    fn storage(&mut self) -> Storage<'_> {
        Storage {
            tasks: &mut self.tasks,
            bookings: &mut self.bookings,
            members: &mut self.members,
            scratch_a: &mut self.a,
            scratch_b: &mut self.b,
            work: &mut self.work,
            open: &mut self.open,
            memo: &mut self.memo,
            voids: &mut self.voids,
            booking_log: &mut self.log,
        }
    }
}

/// Two clusters, three P-states, eight task types of 1 to 9 nodes and 3 to 40 minutes.
fn platform() -> Platform {
    let cluster = |nodes, kind| Cluster {
        nodes: NodeCount(nodes),
        cores_per_node: 4,
        kind,
    };
    let mut p = Platform::new(
        &[
            cluster(10, ClusterKind::General),
            cluster(14, ClusterKind::General),
        ],
        3,
    )
    .unwrap();
    for t in 0..8u64 {
        let place = |nodes: u32, mins: u64, watts: u32| Placement {
            nodes: NodeCount(nodes),
            etc: [
                Micros::from_mins(mins),
                Micros::from_mins(mins + mins / 3 + 1),
                Micros::from_mins(2 * mins),
                Micros::ZERO,
            ],
            apc: [
                MilliWatts(watts),
                MilliWatts(watts * 3 / 4),
                MilliWatts(watts / 2),
                MilliWatts(0),
            ],
        };
        let nodes = 1 + (t as u32 * 5) % 9;
        let mins = 3 + (t * 7) % 38;
        let second = (t % 3 != 0).then(|| place(nodes.min(14), mins + 2, 90_000));
        p.add_resolved_type(&[Some(place(nodes, mins, 120_000 + 5_000 * t as u32)), second])
            .unwrap();
    }
    p
}

/// `n` tasks arriving over the first 90 minutes, in arrival order.
fn tasks(n: u64) -> Vec<Task> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut v: Vec<Task> = (0..n)
        .map(|_| Task {
            id: TaskId(0),
            arrival: Micros::from_mins(next() % 90),
            demand: Demand::Typed(TaskTypeId((next() % 8) as u16)),
            curve: crate::utility::UtilityCurve::PiecewiseExp {
                priority: (1 + next() % 8) as f64,
                urgency_per_min: 0.01 * (1 + next() % 5) as f64,
                first: Micros::from_mins(5 + next() % 30),
                class: (next() % 20) as u8,
            },
            actual: None,
        })
        .collect();
    v.sort_by_key(|t| t.arrival);
    v
}

/// The time task slot `s` really ends: a quarter of the tasks (by id) end a minute early,
/// so that the early-completion path runs too.
fn actual_end(id: TaskId, s: &TaskSlot) -> Option<Micros> {
    let a = s.assignment?;
    let early = id.0 & 3 == 0 && a.end - a.start > Micros::from_mins(2);
    Some(if early {
        a.end - Micros::from_mins(1)
    } else {
        a.end
    })
}

/// The completions due at `now` (in task order), then the arrivals up to `now`.
fn events(ctl: &mut Controller<'_>, tasks: &[Task], next: &mut usize, now: Micros) {
    let due: Vec<(TaskId, Micros)> = ctl
        .tasks()
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.state, TaskState::Running | TaskState::Reserved))
        .filter_map(|(i, s)| Some((TaskId(i as u32), actual_end(TaskId(i as u32), s)?)))
        .filter(|&(_, end)| end <= now)
        .collect();
    for (id, end) in due {
        ctl.on_completion(id, end).unwrap();
    }
    while *next < tasks.len() && tasks[*next].arrival <= now {
        ctl.on_arrival(tasks[*next].clone()).unwrap();
        *next += 1;
    }
    open_list_holds(ctl);
}

/// The open list holds every waiting task, in slot order, and `unsettled` counts its
/// entries that are not mappable (the event's clean-up stops after the last of them).
fn open_list_holds(ctl: &Controller<'_>) {
    ctl.planner().check_open_list();
}

/// Drives `ctl` over the minutes `[from, to)`: at each, the completions due, the arrivals,
/// then a mapping event; every decision goes to `log`. The minute `from` starts after its
/// completions and arrivals if `mid` (they were handled before).
fn drive(
    ctl: &mut Controller<'_>,
    tasks: &[Task],
    next: &mut usize,
    (from, to, mid): (u64, u64, bool),
    log: &mut Vec<Decision>,
) {
    for m in from..to {
        let now = Micros::from_mins(m);
        if !(mid && m == from) {
            events(ctl, tasks, next, now);
        }
        ctl.on_mapping_event(now, &mut |d| log.push(*d)).unwrap();
        open_list_holds(ctl);
    }
}

/// What a controller holds that shows outside: ledgers, utility, counts, clock, the
/// filter's budget, and every task's state and assignment.
type Outcome = (
    EnergyLedger,
    Utility,
    Counts,
    Micros,
    Budget,
    Vec<(TaskState, Option<Assignment>)>,
);

fn outcome(ctl: &Controller<'_>) -> Outcome {
    (
        *ctl.ledger(),
        ctl.utility(),
        ctl.counts(),
        ctl.now(),
        ctl.filter_budget(),
        ctl.tasks()
            .iter()
            .map(|s| (s.state, s.assignment))
            .collect(),
    )
}

fn configs() -> Vec<Config> {
    let day = (Micros::from_mins(10), Micros::from_mins(150));
    let mut out: Vec<Config> = Heuristic::ALL
        .iter()
        .map(|&h| {
            let mut c = Config::new(h, day.0, day.1);
            if !h.is_utility_aware() {
                c.reservations = Reservations::Permanent;
            }
            c.seed = 7;
            c
        })
        .collect();
    let mut upr = Config::new(Heuristic::MaxUpr, day.0, day.1);
    upr.filter = EnergyFilter {
        kind: FilterKind::PerResource,
        leniency: 1.5,
    };
    upr.budget = MilliJoules(15_000_000_000);
    out.push(upr);
    let mut upe = Config::new(Heuristic::MaxUpe, day.0, day.1);
    upe.reservations = Reservations::Permanent;
    out.push(upe);
    out
}

/// Runs every configuration to minute 45, copies the controller (right after the event of
/// minute 44, or later between an early completion and the event of its minute), and runs
/// the original and the copy to minute 200: same decisions, same end.
#[test]
fn a_clone_decides_as_the_original() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let tasks = tasks(120);
    for config in configs() {
        let h = config.heuristic;
        // Memo sizes of the original and the copy (0: none; a different size starts empty).
        for (memo, copy_memo) in [(64, 64), (64, 32), (0, 0)] {
            for mid in [false, true] {
                let mut bufs = Bufs::new(&platform, tasks.len(), memo);
                let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
                let (mut next, mut before) = (0, Vec::new());
                drive(&mut ctl, &tasks, &mut next, (0, 45, false), &mut before);
                // Mid-step: the first minute from 45 on with an early completion, copied
                // between its completions and its event.
                let mut at = 45;
                if mid {
                    loop {
                        events(&mut ctl, &tasks, &mut next, Micros::from_mins(at));
                        if ctl.early_completions > 0 {
                            break;
                        }
                        ctl.on_mapping_event(Micros::from_mins(at), &mut |d| before.push(*d))
                            .unwrap();
                        at += 1;
                        assert!(at < 100, "{h:?}: an early completion by minute 100");
                    }
                }
                let states = |c: &Controller<'_>, f: fn(TaskState) -> bool| {
                    c.tasks().iter().filter(|s| f(s.state)).count()
                };
                assert!(
                    states(&ctl, |s| s == TaskState::Running) > 0
                        && states(&ctl, |s| matches!(
                            s,
                            TaskState::Mappable | TaskState::PlaceHeld | TaskState::Reserved
                        )) > 0,
                    "{h:?}: the copy point has running and waiting work"
                );
                if config.filter.kind == FilterKind::PerResource {
                    assert!(matches!(ctl.filter_budget(), Budget::PerResource(_)));
                }
                let mut copy_bufs = Bufs::new(&platform, tasks.len() + 5, copy_memo);
                let mut copy = ctl.clone_into(copy_bufs.storage()).unwrap();
                assert_eq!(outcome(&copy), outcome(&ctl));
                let mut next_copy = next;
                let (mut after, mut after_copy) = (Vec::new(), Vec::new());
                drive(&mut ctl, &tasks, &mut next, (at, 200, mid), &mut after);
                drive(
                    &mut copy,
                    &tasks,
                    &mut next_copy,
                    (at, 200, mid),
                    &mut after_copy,
                );
                assert!(
                    after.iter().any(|d| d.start < Micros::from_mins(150)
                        && ctl.tasks()[d.task.0 as usize].task.arrival > Micros::from_mins(at)),
                    "{h:?}: tasks arriving after the copy are placed"
                );
                assert_eq!(after, after_copy, "{h:?} decides the same");
                assert_eq!(outcome(&copy), outcome(&ctl), "{h:?}");
                assert!(ctl.counts().completed > 20, "{h:?}");
                if config.filter.kind == FilterKind::PerResource {
                    assert!(ctl.ledger().consumed() > MilliJoules(config.budget.0 / 2));
                }
            }
        }
    }
}

/// The fit memo is a cache: with no memo, a tiny one (constant collisions), or a large
/// one (answers kept across events and checked against the booking log), every
/// configuration makes the same decisions and ends the same, early completions included.
/// At every event of a filtered run, each task's admitted options (a typed task's from
/// its type's kept verdicts, a table of its own's worked out as asked) are the event's
/// budget's, option by option; the verdicts change between events, so verdicts kept from
/// an earlier budget would show.
#[test]
fn verdicts_follow_each_events_budget() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let mut tasks = tasks(120);
    // Every fifth task carries its type's table as its own.
    for t in tasks.iter_mut().step_by(5) {
        if let Demand::Typed(ty) = t.demand {
            t.demand = Demand::Own(platform.task_type(ty).unwrap().clone());
        }
    }
    let config = configs()
        .into_iter()
        .find(|c| c.filter.kind == FilterKind::PerResource)
        .unwrap();
    let mut bufs = Bufs::new(&platform, tasks.len(), 64);
    let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
    let (mut next, mut log) = (0, Vec::new());
    let mut seen: Vec<Vec<u32>> = vec![Vec::new(); tasks.len()];
    for m in 0..200 {
        drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
        let b = ctl.filter_budget();
        for i in 0..ctl.tasks().len() as u32 {
            let mut want = 0;
            for c in (0..ctl.planner().cluster_count()).map(ClusterId) {
                let Some(pl) = ctl.planner().placement(i, c) else {
                    continue;
                };
                for p in (0..ctl.planner().pstates()).map(PState) {
                    let ok = b.admits(pl.energy(p), platform.resources(c, &pl, p));
                    assert_eq!(
                        ctl.planner_mut().admits(i, &pl, c, p, true),
                        ok,
                        "minute {m}, task {i}"
                    );
                    assert!(ctl.planner_mut().admits(i, &pl, c, p, false));
                    want |= if ok { option_bit(c, p) } else { 0 };
                }
            }
            assert_eq!(
                ctl.planner_mut().admitted_options(i, true),
                want,
                "minute {m}, task {i}"
            );
            assert_eq!(ctl.planner_mut().admitted_options(i, false), u32::MAX);
            if !seen[i as usize].contains(&want) {
                seen[i as usize].push(want);
            }
        }
    }
    let changed = seen.iter().filter(|s| s.len() > 1).count();
    assert!(changed > 10, "verdicts changed for {changed} tasks");
}

/// The utility-aware pass that ends once nothing may start now decides what the full
/// plan decides: the same starts, drops and reservations in the same order, the same
/// ledgers and the same task states, place-holders aside (which the next event clears).
#[test]
fn ending_the_plan_early_changes_no_decision() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let tasks = tasks(160);
    let mut cut_somewhere = false;
    for config in configs()
        .into_iter()
        .filter(|c| c.heuristic.is_utility_aware())
    {
        let mut runs = Vec::new();
        for full_plan in [true, false] {
            let config = Config {
                full_plan,
                ..config
            };
            let mut bufs = Bufs::new(&platform, tasks.len(), 64);
            let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
            let (mut next, mut log) = (0, Vec::new());
            drive(&mut ctl, &tasks, &mut next, (0, 240, false), &mut log);
            let held = log
                .iter()
                .filter(|d| d.kind == DecisionKind::PlaceHold)
                .count();
            log.retain(|d| d.kind != DecisionKind::PlaceHold);
            let mut end = outcome(&ctl);
            for t in end.5.iter_mut() {
                if t.0 == TaskState::PlaceHeld {
                    *t = (TaskState::Mappable, None);
                }
                // The count of assignments made differs by the place-holders.
                if let Some(a) = t.1.as_mut() {
                    a.seq = 0;
                }
            }
            runs.push((log, end, held));
        }
        let h = config.heuristic;
        assert!(runs[0].0.len() > 30, "{h:?} decides enough to test");
        assert_eq!(runs[1].0, runs[0].0, "{h:?}: same decisions");
        assert_eq!(runs[1].1, runs[0].1, "{h:?}: same end");
        if config.reservations == Reservations::PlaceHolder {
            cut_somewhere |= runs[1].2 < runs[0].2;
        } else {
            assert_eq!(
                runs[1].2, runs[0].2,
                "{h:?}: permanent reservations are all made"
            );
        }
    }
    assert!(cut_somewhere, "some pass ended before planning every task");
}

#[test]
fn the_memo_changes_no_decision() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let tasks = tasks(160);
    for config in configs() {
        let mut runs = Vec::new();
        for memo in [0, 2, 64, 4096] {
            let mut bufs = Bufs::new(&platform, tasks.len(), memo);
            let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
            let (mut next, mut log) = (0, Vec::new());
            drive(&mut ctl, &tasks, &mut next, (0, 240, false), &mut log);
            runs.push((log, outcome(&ctl)));
        }
        let h = config.heuristic;
        assert!(runs[0].0.len() > 30, "{h:?} decides enough to test");
        for r in &runs[1..] {
            assert_eq!(r.0, runs[0].0, "{h:?}: same decisions with any memo");
            assert_eq!(r.1, runs[0].1, "{h:?}: same end with any memo");
        }
    }
}

/// The Min-Min framework skips the options whose bound cannot beat its best so far: at
/// every event of every utility-aware configuration (and Max Value's, whose packed
/// objective ties often), each waiting task's pick is the exhaustive loop's, and a task
/// that loop finds able to start now is flagged so.
#[test]
fn pruning_picks_as_the_exhaustive_loop() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let tasks = tasks(160);
    let day = (Micros::from_mins(10), Micros::from_mins(150));
    let mut all = configs();
    all.push(Config::new(Heuristic::MaxValue, day.0, day.1));
    let mut over = 0;
    for config in all.into_iter().filter(|c| c.heuristic.is_utility_aware()) {
        let h = config.heuristic;
        let mut bufs = Bufs::new(&platform, tasks.len(), 64);
        let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
        let (mut next, mut log, mut compared) = (0, Vec::new(), 0);
        for m in 0..240 {
            drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
            for i in 0..ctl.tasks().len() as u32 {
                if ctl.tasks()[i as usize].state != TaskState::Mappable {
                    continue;
                }
                let [pruned, exhaustive] =
                    policy::greedy_bests(ctl.planner_mut(), i).unwrap().unwrap();
                // The memo slot and generation vouch for a start; the start is compared.
                let bare = |c: Option<Choice>| {
                    c.map(|c| Choice {
                        memo: 0,
                        gen: 0,
                        ..c
                    })
                };
                assert_eq!(bare(pruned.0), bare(exhaustive.0), "{h:?} at {m}, slot {i}");
                assert!(pruned.1 || !exhaustive.1, "{h:?} at {m}, slot {i}");
                over += usize::from(pruned.1 && !exhaustive.1);
                compared += 1;
            }
        }
        assert!(compared > 200, "{h:?} compares enough tasks");
    }
    assert!(over > 0, "some flag stands for an option skipped unread");
}

/// Under every utility-aware configuration, at every event, each waiting task's bound as
/// the pass finds it (a typed task's through its type's least cost, kept for the event and
/// shared by the event's tasks) has the value of the highest of its options' bounds, bit
/// for bit; and each objective that says its value is the utility over a cost keeps to it,
/// for every option and a spread of utilities (zero, tiny, huge, infinite, NaN).
#[test]
fn a_types_least_cost_bounds_as_its_options() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let mut tasks = tasks(160);
    // Every seventh task carries its type's table as its own: bounded option by option.
    for t in tasks.iter_mut().step_by(7) {
        if let Demand::Typed(ty) = t.demand {
            t.demand = Demand::Own(platform.task_type(ty).unwrap().clone());
        }
    }
    let day = (Micros::from_mins(10), Micros::from_mins(150));
    let mut all = configs();
    all.push(Config::new(Heuristic::MaxValue, day.0, day.1));
    let us = [
        0.0,
        f64::MIN_POSITIVE,
        1e-300,
        0.37,
        1.0,
        7.9,
        1e300,
        f64::INFINITY,
        f64::NAN,
    ];
    for config in all.into_iter().filter(|c| c.heuristic.is_utility_aware()) {
        let h = config.heuristic;
        let mut bufs = Bufs::new(&platform, tasks.len(), 64);
        let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
        let (mut next, mut log, mut compared) = (0, Vec::new(), 0);
        for m in 0..240 {
            drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
            let mut types = policy::type_bounds();
            for i in 0..ctl.tasks().len() as u32 {
                if ctl.tasks()[i as usize].state != TaskState::Mappable {
                    continue;
                }
                let ([kept, by_option], per_cost) =
                    policy::greedy_bounds(ctl.planner_mut(), i, &mut types, &us)
                        .unwrap()
                        .unwrap();
                let value = |c: Option<Choice>| c.map(|c| c.value.to_bits());
                assert_eq!(value(kept), value(by_option), "{h:?} at {m}, slot {i}");
                assert!(per_cost, "{h:?} at {m}, slot {i}");
                compared += 1;
            }
        }
        assert!(compared > 200, "{h:?} compares enough tasks");
    }
}

#[test]
fn the_dropping_checks_point_is_the_curves_value_there() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let tasks = tasks(60);
    let config = Config::new(Heuristic::MaxUpt, Micros::ZERO, Micros::from_mins(150));
    let mut bufs = Bufs::new(&platform, tasks.len(), 64);
    let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
    let (mut next, mut log) = (0, Vec::new());
    let mut points = 0;
    for m in 0..60 {
        drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
        for (i, s) in ctl.tasks().iter().enumerate() {
            let curve = |since| s.task.curve.value_at(since, &classes).unwrap();
            if let Some(p) = s.point {
                points += 1;
                assert_eq!(p.value.to_bits(), curve(p.since).to_bits());
                // Read back through it, and past it.
                let end = s.task.arrival + p.since;
                let at = |end| ctl.planner().value_at_end(i as u32, end).unwrap().to_bits();
                assert_eq!(at(end), curve(p.since).to_bits());
                let later = end + Micros::from_mins(7);
                assert_eq!(at(later), curve(later - s.task.arrival).to_bits());
            }
        }
    }
    assert!(points > 0, "the dropping check kept points");
}

#[test]
fn a_clone_needs_room_for_the_tasks() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let tasks = tasks(40);
    let config = Config::new(Heuristic::MaxUpe, Micros::ZERO, Micros::from_mins(150));
    let mut bufs = Bufs::new(&platform, tasks.len(), 64);
    let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
    let (mut next, mut log) = (0, Vec::new());
    drive(&mut ctl, &tasks, &mut next, (0, 60, false), &mut log);
    let mut small = Bufs::new(&platform, 10, 64);
    let err = ctl.clone_into(small.storage()).err();
    assert_eq!(
        err,
        Some(Error::Capacity(CapacityError {
            what: Capacity::Tasks,
            capacity: 10,
            needs: 0
        }))
    );
    let mut few_nodes = Bufs::new(&platform, tasks.len(), 64);
    few_nodes.members.truncate(20);
    assert!(matches!(
        ctl.clone_into(few_nodes.storage()),
        Err(Error::Capacity(CapacityError {
            what: Capacity::Nodes,
            ..
        }))
    ));
    // A copy's bookings need a pool to go in.
    let mut no_pool = Bufs::new(&platform, tasks.len(), 64);
    no_pool.bookings.clear();
    assert!(matches!(
        ctl.clone_into(no_pool.storage()),
        Err(Error::Capacity(CapacityError {
            what: Capacity::Bookings,
            ..
        }))
    ));
}

/// What EASY's backfilling passes over on node counts alone (`next_fitting_idle`) is what
/// asking would turn down: after each event of an EASY run on two clusters (typed tasks
/// and tables of their own, early completions included), every mappable task before the
/// position it gives has no option that starts now on any cluster.
#[test]
fn the_idle_count_passes_over_only_what_asking_would_turn_down() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let mut tasks = tasks(120);
    for t in tasks.iter_mut().step_by(4) {
        if let Demand::Typed(ty) = t.demand {
            t.demand = Demand::Own(platform.task_type(ty).unwrap().clone());
        }
    }
    let mut config = Config::new(Heuristic::Easy, Micros::ZERO, Micros::from_mins(400));
    config.reservations = Reservations::Permanent;
    let mut bufs = Bufs::new(&platform, tasks.len(), 64);
    let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
    let (mut next, mut log) = (0, Vec::new());
    let (mut passed, mut found) = (0, 0);
    for m in 0..300 {
        drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
        let p = &mut ctl.planner;
        let at = p.next_fitting_idle(0);
        for k in 0..at {
            let i = p.open_slot(k) as u32;
            if p.slot(i).state != TaskState::Mappable {
                continue;
            }
            passed += 1;
            for c in 0..2 {
                assert!(
                    p.option_now(i, ClusterId(c), PState(0), false)
                        .unwrap()
                        .is_none(),
                    "minute {m}: task {i} passed over could start now on cluster {c}"
                );
            }
        }
        if at < p.open_count() {
            let i = p.open_slot(at) as u32;
            assert_eq!(p.slot(i).state, TaskState::Mappable);
            found += 1;
        }
    }
    assert!(passed > 100 && found > 0, "passed {passed}, found {found}");
}

/// What EASY's record of its last pass lets the next pass skip (`first_unscanned`) cannot
/// start now: at each event of an EASY run with early completions, after the event has
/// begun, every mappable task before that position has no option that starts now on any
/// cluster.
#[test]
fn the_tasks_a_pass_skips_cannot_start_now() {
    let platform = platform();
    let classes = UtilityClasses::essc20();
    let tasks = tasks(120);
    let mut config = Config::new(Heuristic::Easy, Micros::ZERO, Micros::from_mins(400));
    config.reservations = Reservations::Permanent;
    let mut bufs = Bufs::new(&platform, tasks.len(), 64);
    let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
    let (mut next, mut log) = (0, Vec::new());
    let (mut skipped, mut events_skipping) = (0, 0);
    for m in 0..300 {
        let now = Micros::from_mins(m);
        events(&mut ctl, &tasks, &mut next, now);
        let p = &mut ctl.planner;
        p.begin_event(now).unwrap();
        let from = p.first_unscanned();
        events_skipping += usize::from(from > 0);
        for k in 0..from {
            let i = p.open_slot(k) as u32;
            if p.slot(i).state != TaskState::Mappable {
                continue;
            }
            skipped += 1;
            for c in 0..2 {
                assert!(
                    p.option_now(i, ClusterId(c), PState(0), false)
                        .unwrap()
                        .is_none(),
                    "minute {m}: task {i} skipped could start now on cluster {c}"
                );
            }
        }
        ctl.on_mapping_event(now, &mut |d| log.push(*d)).unwrap();
    }
    assert!(
        skipped > 100 && events_skipping > 10,
        "skipped {skipped} at {events_skipping} events"
    );
}

/// A withdrawn task (a job cancelled before it started) stops waiting: a mappable one is
/// dropped, a reserved one gives its nodes back so that the next task can take them, a
/// running one cannot be withdrawn.
#[test]
fn a_withdrawn_task_gives_back_its_reservation() {
    let platform = Platform::new(
        &[Cluster {
            nodes: NodeCount(2),
            cores_per_node: 1,
            kind: ClusterKind::General,
        }],
        1,
    )
    .unwrap();
    let classes = UtilityClasses::new();
    let task = |arrival: u64, nodes: u32, mins: u64| {
        let mut p = Placement {
            nodes: NodeCount(nodes),
            etc: [Micros::ZERO; crate::limits::MAX_PSTATES],
            apc: [MilliWatts(0); crate::limits::MAX_PSTATES],
        };
        p.etc[0] = Micros::from_mins(mins);
        Task {
            id: TaskId(0),
            arrival: Micros::from_mins(arrival),
            demand: Demand::Own(crate::platform::TaskType {
                placements: core::iter::once(Some(p)).collect(),
            }),
            curve: crate::utility::UtilityCurve::Linear {
                start: 1.0,
                soft: Micros::MAX,
                hard: Micros::MAX,
                final_value: 1.0,
            },
            actual: None,
        }
    };
    let config = Config::new(Heuristic::Easy, Micros::ZERO, Micros::MAX);
    let mut bufs = Bufs::new(&platform, 8, 16);
    let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
    let mut decisions = Vec::new();
    let a = ctl.on_arrival(task(0, 2, 10)).unwrap();
    let b = ctl.on_arrival(task(0, 2, 10)).unwrap();
    let c = ctl.on_arrival(task(0, 1, 5)).unwrap();
    ctl.on_mapping_event(Micros::ZERO, &mut |d| decisions.push(*d))
        .unwrap();
    assert_eq!(ctl.task(a).unwrap().state, TaskState::Running);
    // EASY: b holds the reservation at a's end, c waits behind it.
    assert_eq!(ctl.task(b).unwrap().state, TaskState::Reserved);
    assert_eq!(ctl.task(c).unwrap().state, TaskState::Mappable);
    assert!(ctl.withdraw(a, Micros::from_mins(1)).is_err(), "a runs");
    ctl.withdraw(b, Micros::from_mins(1)).unwrap();
    assert_eq!(ctl.task(b).unwrap().state, TaskState::Dropped);
    assert_eq!(ctl.counts().dropped, 1);
    decisions.clear();
    ctl.on_mapping_event(Micros::from_mins(1), &mut |d| decisions.push(*d))
        .unwrap();
    // c takes the reservation at a's end that b gave back.
    assert_eq!(ctl.task(c).unwrap().state, TaskState::Reserved);
    assert_eq!(
        ctl.task(c).unwrap().assignment.unwrap().start,
        Micros::from_mins(10)
    );
    assert!(ctl.withdraw(b, Micros::from_mins(2)).is_err(), "b is gone");
    ctl.withdraw(c, Micros::from_mins(2)).unwrap();
    ctl.on_completion(a, Micros::from_mins(10)).unwrap();
    assert_eq!(ctl.slots_used(), 0);
    open_list_holds(&ctl);
}

/// Nodes taken out of service and back at random minutes, under every configuration (and
/// EASY, FCFS and Conservative, which reserve): after every event no booking on an
/// out-of-service node is a task's but those that ran there when it went out (left to
/// finish), its block starts no later than they end (no stretch a task could be placed in),
/// and once every node is back every task ends (none waits for ever).
mod out_of_service {
    use super::*;
    use crate::timeline::BookingKind;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// (minute, cluster, node, back in service)
    type Change = (u64, u8, u32, bool);

    fn run(config: Config, changes: &[Change]) -> Result<(), TestCaseError> {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let tasks = tasks(60);
        let mut bufs = Bufs::new(&platform, tasks.len(), 64);
        let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
        // The tasks each out node may still carry: those that ran there when it went out.
        let mut out: BTreeMap<(u8, u32), BTreeSet<u32>> = BTreeMap::new();
        let mut next = 0;
        let last_change = changes.iter().map(|c| c.0).max().unwrap_or(0);
        for m in 0..400u64 {
            let now = Micros::from_mins(m);
            events(&mut ctl, &tasks, &mut next, now);
            for &(_, c, node, back) in changes.iter().filter(|c| c.0 == m) {
                let cluster = ClusterId(c);
                if back {
                    ctl.node_in(cluster, node, now).unwrap();
                    out.remove(&(c, node));
                    prop_assert!(ctl.in_service(cluster, node));
                    continue;
                }
                if out.contains_key(&(c, node)) {
                    // Out twice: nothing changes.
                    ctl.node_out(cluster, node, now).unwrap();
                    continue;
                }
                let tl = ctl.timeline(cluster).unwrap();
                let running: BTreeSet<u32> = tl
                    .nodes()
                    .nth(node as usize)
                    .unwrap()
                    .bookings()
                    .iter()
                    .filter(|b| {
                        b.kind == BookingKind::Running
                            || (b.kind == BookingKind::Reserved && b.start <= now)
                    })
                    .map(|b| b.task.0)
                    .collect();
                ctl.node_out(cluster, node, now).unwrap();
                prop_assert!(!ctl.in_service(cluster, node));
                out.insert((c, node), running);
            }
            ctl.on_mapping_event(now, &mut |_| {}).unwrap();
            open_list_holds(&ctl);
            for (&(c, node), allowed) in &out {
                let tl = ctl.timeline(ClusterId(c)).unwrap();
                let bs = tl.nodes().nth(node as usize).unwrap().bookings();
                let block = bs.last().copied();
                prop_assert!(
                    block.is_some_and(|b| b.kind == BookingKind::OutOfService),
                    "node {} of cluster {} out at minute {} without its block: {:?}",
                    node,
                    c,
                    m,
                    bs
                );
                let block = block.unwrap();
                let before = bs[..bs.len() - 1].last().map_or(Micros::ZERO, |b| b.end);
                prop_assert!(block.start <= before.max(now), "a free stretch: {:?}", bs);
                for b in &bs[..bs.len() - 1] {
                    prop_assert!(
                        allowed.contains(&b.task.0),
                        "task {} booked on out-of-service node {} of cluster {} at minute {}",
                        b.task.0,
                        node,
                        c,
                        m
                    );
                }
            }
            if m > last_change && next == tasks.len() && ctl.slots_used() == 0 {
                break;
            }
        }
        let counts = ctl.counts();
        // (Random leaves some tasks waiting for ever with every node in service too.)
        if config.budget == MilliJoules::MAX && config.heuristic != Heuristic::Random {
            prop_assert_eq!(
                counts.completed + counts.dropped,
                counts.arrived,
                "every task ends once its nodes are back"
            );
        }
        Ok(())
    }

    fn change() -> impl Strategy<Value = Change> {
        (0u64..150, 0u8..2, 0u32..10, any::<bool>())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn no_booking_lands_on_an_out_of_service_node(
            k in 0usize..64,
            mut changes in proptest::collection::vec(change(), 1..12),
        ) {
            let all = configs();
            let mut config = all[k % all.len()];
            // A day without end, so that what waits at the configured end still runs.
            config.day_end = Micros::MAX;
            // Every node out is back by minute 160.
            let outs: Vec<Change> = changes.iter().filter(|c| !c.3).copied().collect();
            for (_, c, node, _) in outs {
                changes.push((160, c, node, true));
            }
            run(config, &changes)?;
        }
    }

    /// A whole cluster but one node out: a task that needs two nodes there waits (the
    /// other cluster still runs), and starts when a node is back; a node the platform does
    /// not have is an error.
    #[test]
    fn a_task_waits_for_enough_nodes_in_service() {
        for config in configs() {
            let platform = platform();
            let classes = UtilityClasses::essc20();
            let mut bufs = Bufs::new(&platform, 8, 64);
            let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
            for node in 1..10 {
                ctl.node_out(ClusterId(0), node, Micros::ZERO).unwrap();
            }
            assert!(ctl.node_out(ClusterId(0), 10, Micros::ZERO).is_err());
            assert!(ctl.node_out(ClusterId(5), 0, Micros::ZERO).is_err());
            // Type 3: 7 nodes, cluster 0 only.
            let mut t = tasks(1).remove(0);
            t.arrival = Micros::ZERO;
            t.demand = Demand::Typed(TaskTypeId(3));
            let id = ctl.on_arrival(t).unwrap();
            let mut made = Vec::new();
            ctl.on_mapping_event(Micros::MINUTE, &mut |d| made.push(*d))
                .unwrap();
            assert!(
                made.iter().all(|d| d.kind != DecisionKind::Start),
                "{:?}: {made:?}",
                config.heuristic
            );
            for node in 1..7 {
                ctl.node_in(ClusterId(0), node, Micros::from_mins(2))
                    .unwrap();
            }
            made.clear();
            ctl.on_mapping_event(Micros::from_mins(2), &mut |d| made.push(*d))
                .unwrap();
            let state = ctl.task(id).unwrap().state;
            assert!(
                matches!(state, TaskState::Running | TaskState::Dropped),
                "{:?}: {state:?} {made:?}",
                config.heuristic
            );
        }
    }
}

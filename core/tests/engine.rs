//! The engine stepped by hand, copied, and given events of its own: the same run as
//! [`engine::run`], and the table of pending ends changes nothing.
mod common;
use common::*;
use kairos_core::engine::{self, Engine, Event, NoObserver, Observer, Pending, Report, Schedule};
use kairos_core::platform::Platform;
use kairos_core::task::{Task, TaskId};
use kairos_core::timeline::{Booking, Logged};
use kairos_core::units::Micros;
use kairos_core::utility::UtilityClasses;
use kairos_core::{Config, Controller, Decision, MemoEntry, Storage, StorageSizes, TaskSlot, Work};
use kairos_core::{Heuristic, Reservations};

/// Owned buffers for one controller and its engine.
struct Bufs {
    tasks: Vec<TaskSlot>,
    bookings: Vec<Booking>,
    members: Vec<u32>,
    a: Vec<u64>,
    b: Vec<u64>,
    work: Vec<Work>,
    open: Vec<u32>,
    memo: Vec<MemoEntry>,
    log: Vec<Logged>,
    pending: Vec<Pending>,
    ends: Vec<Micros>,
}

impl Bufs {
    fn new(p: &Platform, tasks: &[Task]) -> Bufs {
        let s = StorageSizes::of(p, tasks.len());
        Bufs {
            tasks: vec![TaskSlot::EMPTY; s.tasks],
            bookings: vec![Booking::EMPTY; s.bookings],
            members: vec![0; s.members],
            a: vec![0; s.scratch],
            b: vec![0; s.scratch],
            work: vec![Work::default(); s.work],
            open: vec![0; s.open],
            memo: vec![MemoEntry::default(); 64],
            log: vec![Logged::EMPTY; s.booking_log],
            pending: vec![Pending::default(); 2 * tasks.len() + 4],
            ends: vec![Micros::ZERO; tasks.len()],
        }
    }

    /// The controller's storage, the pending buffer and the table of pending ends.
    fn split(&mut self) -> (Storage<'_>, &mut [Pending], &mut [Micros]) {
        (
            Storage {
                tasks: &mut self.tasks,
                bookings: &mut self.bookings,
                members: &mut self.members,
                scratch_a: &mut self.a,
                scratch_b: &mut self.b,
                work: &mut self.work,
                open: &mut self.open,
                memo: &mut self.memo,
                voids: &mut [],
                booking_log: &mut self.log,
            },
            &mut self.pending,
            &mut self.ends,
        )
    }
}

/// Every decision and completion, in order.
#[derive(Default, Debug, PartialEq)]
struct Log {
    decisions: Vec<Decision>,
    completions: Vec<(TaskId, Micros)>,
}

impl Observer for Log {
    fn on_decision(&mut self, d: &Decision) {
        self.decisions.push(*d);
    }
    fn on_completion(&mut self, task: TaskId, at: Micros) {
        self.completions.push((task, at));
    }
}

/// Three nodes; twelve tasks of three shapes arriving over two hours, some ending early.
fn case() -> (Platform, Vec<Task>) {
    let p = single(3, &[(1, 30), (2, 45), (3, 20)]);
    let tasks = (0..12u64)
        .map(|i| {
            let mut t = task(i * 10, (i % 3) as u16, linear(4.0 + i as f64, 90, 400));
            if i % 4 == 1 {
                t.actual = Some(mins(7));
            }
            t
        })
        .collect();
    (p, tasks)
}

fn config(h: Heuristic) -> Config {
    let mut c = Config::new(h, Micros::ZERO, mins(600));
    if h.is_utility_aware() {
        c.reservations = Reservations::PlaceHolder;
    }
    c
}

/// `engine::run` over fresh buffers, with or without the table of pending ends.
fn run(p: &Platform, tasks: &[Task], h: Heuristic, s: Schedule, ends: bool) -> (Report, Log) {
    let classes = UtilityClasses::default();
    let mut bufs = Bufs::new(p, tasks);
    let (st, pending, table) = bufs.split();
    let mut ctl = Controller::new(p, &classes, config(h), st).unwrap();
    let mut log = Log::default();
    let tasks = tasks.iter().cloned().map(Ok);
    let report = if ends {
        Engine::new(s, pending)
            .with_pending_ends(table)
            .run(&mut ctl, tasks, &mut log)
    } else {
        engine::run(&mut ctl, tasks, s, pending, &mut log)
    };
    (report.unwrap(), log)
}

fn schedules() -> [Schedule; 3] {
    [
        Schedule::every(mins(5)),
        Schedule::on_events(),
        Schedule {
            on_completion: true,
            ..Schedule::every(mins(60))
        },
    ]
}

#[test]
fn the_table_of_pending_ends_changes_nothing() {
    let (p, tasks) = case();
    for h in Heuristic::ALL.into_iter().chain([Heuristic::Fcfs]) {
        for s in schedules() {
            let (with, log_with) = run(&p, &tasks, h, s, true);
            let (without, log_without) = run(&p, &tasks, h, s, false);
            assert_eq!(with, without, "{h} {s:?}");
            assert_eq!(log_with, log_without, "{h} {s:?}");
            assert_eq!(
                with.completed + with.dropped + with.unfinished,
                with.arrived
            );
        }
    }
}

#[test]
fn an_engine_stepped_by_hand_and_copied_runs_as_run_does() {
    let (p, tasks) = case();
    let classes = UtilityClasses::default();
    for h in [Heuristic::Easy, Heuristic::Conservative, Heuristic::MaxUpr] {
        let s = Schedule::every(mins(5));
        let (reference, _) = run(&p, &tasks, h, s, true);
        let mut bufs = Bufs::new(&p, &tasks);
        let (st, pending, ends) = bufs.split();
        let mut ctl = Controller::new(&p, &classes, config(h), st).unwrap();
        let mut engine = Engine::new(s, pending).with_pending_ends(ends);
        let mut next = 0;
        // Step to the mapping event at 55 minutes, then copy the run there.
        loop {
            let arrival = tasks.get(next).map(|t| t.arrival);
            match engine.next_event(&ctl, arrival).unwrap() {
                Event::Completion(_) => engine.complete_next(&mut ctl, &mut NoObserver).unwrap(),
                Event::Arrival(_) => {
                    engine
                        .arrive(&mut ctl, tasks[next].clone(), &mut NoObserver)
                        .unwrap();
                    next += 1;
                }
                Event::Mapping(t) if t >= mins(55) => break,
                Event::Mapping(t) => engine.map(&mut ctl, t, &mut NoObserver).unwrap(),
            }
        }
        let mut copy_bufs = Bufs::new(&p, &tasks);
        let (st, pending, ends) = copy_bufs.split();
        let mut copy_ctl = ctl.clone_into(st).unwrap();
        assert!(engine.clone_into(pending, &mut ends[..2]).is_err());
        let copy = engine.clone_into(pending, ends).unwrap();
        let rest = || tasks[next..].iter().cloned().map(Ok);
        let copied = copy.run(&mut copy_ctl, rest(), &mut NoObserver).unwrap();
        let original = engine.run(&mut ctl, rest(), &mut NoObserver).unwrap();
        assert_eq!(original, reference, "{h}");
        assert_eq!(copied, reference, "{h}");
    }
}

/// A task reported done before its run ends frees its node at once: with mapping events at
/// completions, the next task starts then.
#[test]
fn a_completion_brought_early_frees_the_nodes_at_once() {
    let p = single(1, &[(1, 60)]);
    let tasks = [task(0, 0, flat(1.0)), task(0, 0, flat(1.0))];
    let classes = UtilityClasses::default();
    let mut bufs = Bufs::new(&p, &tasks);
    let (st, pending, _) = bufs.split();
    let mut ctl = Controller::new(&p, &classes, config(Heuristic::Fcfs), st).unwrap();
    let mut engine = Engine::new(Schedule::on_events(), pending);
    let mut log = Log::default();
    for t in &tasks {
        engine.arrive(&mut ctl, t.clone(), &mut log).unwrap();
    }
    assert_eq!(
        engine.next_event(&ctl, None),
        Some(Event::Mapping(Micros::ZERO))
    );
    engine.map(&mut ctl, Micros::ZERO, &mut log).unwrap();
    // The first task is due at 60 minutes; it reports done at 25.
    assert_eq!(
        engine.next_event(&ctl, None),
        Some(Event::Completion(mins(60)))
    );
    engine
        .complete(&mut ctl, TaskId(0), mins(25), &mut log)
        .unwrap();
    assert_eq!(
        engine.next_event(&ctl, None),
        Some(Event::Mapping(mins(25)))
    );
    engine.map(&mut ctl, mins(25), &mut log).unwrap();
    let report = engine.finish(&mut ctl, &mut log).unwrap();
    let starts: Vec<_> = log.decisions.iter().map(|d| (d.task, d.start)).collect();
    assert_eq!(starts, [(TaskId(0), Micros::ZERO), (TaskId(1), mins(25))]);
    assert_eq!(
        log.completions,
        [(TaskId(0), mins(25)), (TaskId(1), mins(85))]
    );
    assert_eq!((report.completed, report.mapping_events), (2, 2));
    // `run` on the same tasks without the early report ends the first at 60.
    let (_, plain) = run(&p, &tasks, Heuristic::Fcfs, Schedule::on_events(), false);
    assert_eq!(
        plain.completions,
        [(TaskId(0), mins(60)), (TaskId(1), mins(120))]
    );
}

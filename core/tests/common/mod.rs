//! Small platforms and task lists for the core's integration tests (std only here).
#![allow(dead_code)]

use kairos_core::engine::{self, Observer, Pending, Report, Schedule};
use kairos_core::error::Error;
use kairos_core::platform::{Cluster, ClusterId, ClusterKind, Placement, Platform, TaskTypeId};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::timeline::{Booking, Logged, Void};
use kairos_core::units::{Micros, MilliWatts, NodeCount};
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use kairos_core::{
    Config, Controller, Decision, MemoEntry, Storage, StorageSizes, TaskSlot, TaskState, Work,
};

pub fn mins(m: u64) -> Micros {
    Micros::from_mins(m)
}

/// A placement with the same time and power in every P-state unless given.
pub fn pl(nodes: u32, etc: [u64; 3], apc_w: [u32; 3]) -> Placement {
    let mut p = Placement {
        nodes: NodeCount(nodes),
        etc: [Micros::ZERO; 4],
        apc: [MilliWatts(0); 4],
    };
    for i in 0..3 {
        p.etc[i] = mins(etc[i]);
        p.apc[i] = MilliWatts(apc_w[i] * 1000);
    }
    p
}

pub fn cluster(nodes: u32) -> Cluster {
    Cluster {
        nodes: NodeCount(nodes),
        cores_per_node: 1,
        kind: ClusterKind::General,
    }
}

pub fn linear(start: f64, soft_min: u64, hard_min: u64) -> UtilityCurve {
    UtilityCurve::Linear {
        start,
        soft: mins(soft_min),
        hard: mins(hard_min),
        final_value: 0.0,
    }
}

pub fn task(arrival_min: u64, ty: u16, curve: UtilityCurve) -> Task {
    Task {
        id: TaskId(0),
        arrival: mins(arrival_min),
        demand: Demand::Typed(TaskTypeId(ty)),
        curve,
        actual: None,
    }
}

pub struct Run {
    pub after: Vec<EventCheck>,
    pub report: Report,
    pub decisions: Vec<(Micros, Decision)>,
    pub slots: Vec<TaskSlot>,
}

struct Log {
    now: Micros,
    decisions: Vec<(Micros, Decision)>,
    after: Vec<EventCheck>,
}

/// What the controller looked like right after a mapping event.
#[derive(Clone, Copy, Debug)]
pub struct EventCheck {
    /// The event's time.
    pub now: Micros,
    /// Tasks holding a permanent reservation that starts later.
    pub reserved_later: usize,
    /// Waiting (mappable) tasks with enough nodes free now, on some cluster at P-state 0, for
    /// their whole run (energy aside).
    pub startable: usize,
    /// Energy consumed plus committed.
    pub energy: u64,
    /// The ledger's budget.
    pub budget: u64,
}

impl Observer for Log {
    fn before_mapping(&mut self, now: Micros) {
        self.now = now;
    }
    fn after_mapping(&mut self, now: Micros, ctl: &Controller<'_>, _n: u32) {
        let reserved_later = ctl
            .tasks()
            .iter()
            .filter(|s| {
                s.state == TaskState::Reserved && s.assignment.is_some_and(|a| a.start > now)
            })
            .count();
        let platform = ctl.platform();
        let startable = ctl
            .tasks()
            .iter()
            .filter(|s| s.state == TaskState::Mappable)
            .filter(|s| {
                (0..platform.clusters().len() as u8).any(|c| {
                    let c = ClusterId(c);
                    match (s.task.on(platform, c), ctl.timeline(c)) {
                        (Some(p), Some(tl)) => {
                            let end = now.saturating_add(p.etc[0]);
                            tl.free_over(now, end, p.nodes.0) >= p.nodes.0
                        }
                        _ => false,
                    }
                })
            })
            .count();
        let l = ctl.ledger();
        self.after.push(EventCheck {
            now,
            reserved_later,
            startable,
            energy: (l.consumed() + l.committed()).0,
            budget: l.budget().0,
        });
    }
    fn on_decision(&mut self, d: &Decision) {
        self.decisions.push((self.now, *d));
    }
}

/// Replays `tasks` and returns the report, every decision with its event time, and the
/// final task table.
pub fn replay(
    platform: &Platform,
    classes: &UtilityClasses,
    config: Config,
    interval: Micros,
    tasks: &[Task],
) -> Result<Run, Error> {
    replay_with_memo(platform, classes, config, interval, tasks, 64, 16)
}

/// As [`replay`], with a fit memo of `memo` entries (0 disables it) and a void index of
/// `voids_per_node` a node (0 disables it; too few falls back to sorting).
pub fn replay_with_memo(
    platform: &Platform,
    classes: &UtilityClasses,
    config: Config,
    interval: Micros,
    tasks: &[Task],
    memo: usize,
    voids_per_node: usize,
) -> Result<Run, Error> {
    let sizes = StorageSizes::of(platform, tasks.len().max(1));
    let mut tslots = vec![TaskSlot::EMPTY; sizes.tasks];
    let mut bookings = vec![Booking::EMPTY; sizes.bookings];
    let mut members = vec![0u32; sizes.members];
    let mut a = vec![0u64; sizes.scratch];
    let mut b = vec![0u64; sizes.scratch];
    let mut work = vec![Work::default(); sizes.work];
    let mut open = vec![0u32; sizes.open];
    let mut memo = vec![MemoEntry::default(); memo];
    let mut pending: Vec<Pending> = vec![Default::default(); 2 * tasks.len() + 4];
    let mut voids = vec![Void::default(); 2 * voids_per_node * platform.total_nodes() as usize];
    let mut log = vec![Logged::EMPTY; sizes.booking_log];
    let storage = Storage {
        tasks: &mut tslots,
        bookings: &mut bookings,
        members: &mut members,
        scratch_a: &mut a,
        scratch_b: &mut b,
        work: &mut work,
        open: &mut open,
        memo: &mut memo,
        voids: &mut voids,
        booking_log: &mut log,
    };
    let mut ctl = Controller::new(platform, classes, config, storage)?;
    let mut log = Log {
        now: Micros::ZERO,
        decisions: Vec::new(),
        after: Vec::new(),
    };
    let schedule = Schedule {
        on_completion: interval > Micros::from_hours(1),
        on_arrival: interval > Micros::from_hours(1),
        ..Schedule::every(interval)
    };
    let report = engine::run(
        &mut ctl,
        tasks.iter().cloned().map(Ok),
        schedule,
        &mut pending,
        &mut log,
    )?;
    let slots = ctl.tasks().to_vec();
    Ok(Run {
        report,
        decisions: log.decisions,
        slots,
        after: log.after,
    })
}

/// The start of each task's final assignment (None if it never got one).
pub fn starts(run: &Run) -> Vec<Option<u64>> {
    run.slots
        .iter()
        .map(|s| s.assignment.map(|a| a.start.0 / 60_000_000))
        .collect()
}

/// A one-P-state platform of one cluster of `nodes` one-core nodes, with task types given as
/// (nodes, minutes).
pub fn single(nodes: u32, types: &[(u32, u64)]) -> Platform {
    let mut p = Platform::new(&[cluster(nodes)], 1).unwrap();
    for &(n, m) in types {
        p.add_resolved_type(&[Some(pl(n, [m, m, m], [100, 100, 100]))])
            .unwrap();
    }
    p
}

/// A curve worth `v` for a long time (so the order of heuristics is not about decay).
pub fn flat(v: f64) -> UtilityCurve {
    linear(v, 100_000, 200_000)
}

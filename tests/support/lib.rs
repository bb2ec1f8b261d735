//! Helpers shared by the integration tests and the benchmarks.
//!
//! The benchmarks measure states captured in the middle of a generated ESSC day. [`Driver`]
//! steps a [`Controller`] through a trial as `kairos_core::replay::run` does (completions,
//! then arrivals, then a mapping event every interval; completions from a heap at each
//! commitment's real end) but can stop just before any mapping event, and is `Clone`, so a
//! run can be copied ([`Controller::clone_into`] plus a clone of the driver) and continued.
//! Run to the end, it yields `replay::run`'s digest (`tests/clone_replay.rs` checks both).

use kairos_core::controller::{Config, Controller, DecisionKind, TaskState};
use kairos_core::digest::Digest;
use kairos_core::energy::FilterKind;
use kairos_core::error::{Error, InputError};
use kairos_core::policy::{Heuristic, Reservations};
use kairos_core::task::{Task, TaskId};
use kairos_core::units::Micros;
use kairos_host::generate::{self, Trial};
use kairos_host::run::{self, RunOptions};
use kairos_host::scenario::Scenario;
use kairos_host::sim::HostStorage;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;

/// A path relative to the repository's root.
pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The ESSC scenario at `tasks_per_day` (5,000 or 10,000: `scenarios/essc-<n>k.toml`).
pub fn essc(tasks_per_day: u32) -> Scenario {
    let path = repo_path(&format!("scenarios/essc-{}k.toml", tasks_per_day / 1000));
    Scenario::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One benchmarked configuration: a label and `kairos run`'s options.
#[derive(Clone, Debug)]
pub struct Case {
    /// Short label, used in benchmark ids (`max-upr-ph-epr`).
    pub label: &'static str,
    /// What to run.
    pub opts: RunOptions,
}

/// The benchmarked configurations: the four comparison heuristics (permanent reservations),
/// the four utility-aware ones with place-holders, and Max UPR with place-holders and the
/// energy-per-resource filter; all under the scenario's energy budget, as `kairos run` runs
/// them.
pub fn cases() -> Vec<Case> {
    let plain = |label, h| Case {
        label,
        opts: RunOptions::new(h),
    };
    let ph = |label, h| Case {
        label,
        opts: RunOptions {
            reservations: Some(Reservations::PlaceHolder),
            ..RunOptions::new(h)
        },
    };
    vec![
        plain("random", Heuristic::Random),
        plain("conservative", Heuristic::Conservative),
        plain("easy", Heuristic::Easy),
        plain("multi-queue", Heuristic::MultiQueue),
        ph("max-util-ph", Heuristic::MaxUtil),
        ph("max-upt-ph", Heuristic::MaxUpt),
        ph("max-upr-ph", Heuristic::MaxUpr),
        ph("max-upe-ph", Heuristic::MaxUpe),
        Case {
            label: "max-upr-ph-epr",
            opts: RunOptions {
                reservations: Some(Reservations::PlaceHolder),
                filter: FilterKind::PerResource,
                ..RunOptions::new(Heuristic::MaxUpr)
            },
        },
    ]
}

/// A generated trial with the configuration of one case.
pub struct Setup {
    /// The scenario.
    pub scenario: Scenario,
    /// Trial `opts.trial` of it.
    pub trial: Trial,
    /// The core configuration `kairos run` would use.
    pub config: Config,
    /// The mapping interval.
    pub interval: Micros,
}

impl Setup {
    /// Generates the case's trial of `scenario`.
    pub fn new(scenario: Scenario, opts: &RunOptions) -> Setup {
        let trial = generate::generate(&scenario, opts.trial).expect("the trial generates");
        let config = run::config(&scenario, opts, &trial).expect("a valid configuration");
        let interval = Micros::from_secs(scenario.simulation.mapping_interval_s as u64);
        Setup {
            scenario,
            trial,
            config,
            interval,
        }
    }

    /// Storage for one controller of this trial (as `kairos run` allocates it).
    pub fn storage(&self) -> HostStorage {
        HostStorage::new(
            &self.trial.platform,
            self.trial.tasks.len(),
            &self.trial.tasks[0],
        )
    }

    /// A fresh controller over `storage`, with its void index (as `kairos run` builds it).
    pub fn controller<'s>(&'s self, storage: &'s mut HostStorage) -> Controller<'s> {
        let (st, _, voids) = storage.split();
        Controller::new(&self.trial.platform, &self.trial.classes, self.config, st)
            .expect("a controller")
            .with_void_index(voids)
    }

    /// A driver over this trial's tasks.
    pub fn driver(&self) -> Driver<'_> {
        Driver::new(&self.trial.tasks, self.interval, self.config.day_end)
    }
}

/// A copy of `ctl` over `storage`, with a void index, as [`Setup::controller`] builds one.
pub fn copy_into<'a: 's, 's>(ctl: &Controller<'a>, storage: &'s mut HostStorage) -> Controller<'s> {
    let (st, _, voids) = storage.split();
    ctl.clone_into(st)
        .expect("the copy fits")
        .with_void_index(voids)
}

/// Drives a controller through a trial's events in `replay::run`'s order and hashes its
/// decisions and final ledgers as `replay::run` does.
#[derive(Clone, Debug)]
pub struct Driver<'t> {
    tasks: &'t [Task],
    next: usize,
    /// Pending completions: (time, task, sequence number of the assignment they end).
    pending: BinaryHeap<Reverse<(u64, u32, u32)>>,
    next_map: Micros,
    interval: Micros,
    horizon: Micros,
    digest: Digest,
    completed: u32,
    commitments: Vec<TaskId>,
}

impl<'t> Driver<'t> {
    /// A driver of `tasks` (in arrival order) with a mapping event every `interval` from time
    /// zero until `horizon`.
    pub fn new(tasks: &'t [Task], interval: Micros, horizon: Micros) -> Driver<'t> {
        Driver {
            tasks,
            next: 0,
            pending: BinaryHeap::new(),
            next_map: Micros::ZERO,
            interval,
            horizon,
            digest: Digest::new(),
            completed: 0,
            commitments: Vec::new(),
        }
    }

    /// The time of the next scheduled mapping event.
    pub fn next_mapping(&self) -> Micros {
        self.next_map
    }

    /// Runs every event until the next one is the mapping event at or after `until` (its
    /// time's completions and arrivals are done), or to the horizon. Returns that mapping
    /// event's time, `None` at the horizon.
    pub fn run_until(
        &mut self,
        ctl: &mut Controller<'_>,
        until: Micros,
    ) -> Result<Option<Micros>, Error> {
        loop {
            let t_arrival = self
                .tasks
                .get(self.next)
                .map(|t| t.arrival)
                .filter(|&a| a < self.horizon);
            let t_map = (self.next_map < self.horizon).then_some(self.next_map);
            let t_done = self.pending.peek().map(|Reverse(p)| Micros(p.0));
            let Some(t) = [t_done, t_arrival, t_map].into_iter().flatten().min() else {
                return Ok(None);
            };
            if t_done == Some(t) {
                let Some(Reverse((at, id, seq))) = self.pending.pop() else {
                    unreachable!("peeked")
                };
                let slot = &ctl.tasks()[id as usize];
                let live = matches!(slot.state, TaskState::Running | TaskState::Reserved)
                    && slot.assignment.is_some_and(|a| a.seq == seq);
                if live {
                    ctl.on_completion(TaskId(id), Micros(at))?;
                    if Micros(at) <= self.horizon {
                        self.completed += 1;
                    }
                }
                continue;
            }
            if t_arrival == Some(t) {
                ctl.on_arrival(self.tasks[self.next].clone())?;
                self.next += 1;
                continue;
            }
            if t >= until {
                return Ok(Some(t));
            }
            self.mapping_event(ctl)?;
        }
    }

    /// Runs the next scheduled mapping event (call it when [`run_until`](Self::run_until)
    /// stopped before it) and queues the completions of its commitments.
    pub fn mapping_event(&mut self, ctl: &mut Controller<'_>) -> Result<(), Error> {
        let t = self.next_map;
        self.next_map = t + self.interval;
        self.commitments.clear();
        let (digest, commitments) = (&mut self.digest, &mut self.commitments);
        ctl.on_mapping_event(t, &mut |d| {
            if d.kind != DecisionKind::PlaceHold {
                digest.decision(d);
            }
            if matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
                commitments.push(d.task);
            }
        })?;
        for &id in &self.commitments {
            let slot = &ctl.tasks()[id.0 as usize];
            let a = slot.assignment.ok_or(InputError::BadTaskState(id.0))?;
            // A task ends at its real run time, not at its planned one.
            let run = slot.task.run_time(a.end - a.start);
            self.pending.push(Reverse(((a.start + run).0, id.0, a.seq)));
        }
        Ok(())
    }

    /// Runs to the horizon and lets the started tasks finish; returns `replay::run`'s digest.
    pub fn finish(mut self, ctl: &mut Controller<'_>) -> Result<u64, Error> {
        self.run_until(ctl, Micros::MAX)?;
        while let Some(Reverse((at, id, seq))) = self.pending.pop() {
            let slot = &ctl.tasks()[id as usize];
            let live = matches!(slot.state, TaskState::Running | TaskState::Reserved)
                && slot.assignment.is_some_and(|a| a.seq == seq);
            if live {
                ctl.on_completion(TaskId(id), Micros(at))?;
                if Micros(at) <= self.horizon {
                    self.completed += 1;
                }
            }
        }
        let counts = ctl.counts();
        let mut digest = self.digest;
        digest.u64(ctl.utility().0);
        digest.u64(ctl.ledger().consumed().0);
        digest.u32(self.completed);
        digest.u32(counts.dropped);
        digest.u32(counts.arrived - self.completed - counts.dropped);
        digest.u32(counts.mapping_events);
        Ok(digest.value())
    }
}

/// What a captured state holds, for the reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Tasks waiting to be mapped (mappable or place-held).
    pub waiting: usize,
    /// Tasks running.
    pub running: usize,
    /// Tasks holding a permanent reservation.
    pub reserved: usize,
    /// Bookings over every node.
    pub bookings: usize,
    /// The most bookings one node holds.
    pub max_node_bookings: usize,
}

/// Counts the backlog of `ctl`.
pub fn backlog(ctl: &Controller<'_>) -> Backlog {
    let mut b = Backlog::default();
    for s in ctl.tasks() {
        match s.state {
            TaskState::Mappable | TaskState::PlaceHeld => b.waiting += 1,
            TaskState::Running => b.running += 1,
            TaskState::Reserved => b.reserved += 1,
            _ => {}
        }
    }
    let mut c = 0u8;
    while let Some(tl) = ctl.timeline(kairos_core::platform::ClusterId(c)) {
        for n in tl.nodes() {
            b.bookings += n.bookings().len();
            b.max_node_bookings = b.max_node_bookings.max(n.bookings().len());
        }
        c += 1;
    }
    b
}

/// Whether a bench binary runs as a smoke test: `cargo bench` passes `--bench`, while
/// `cargo test --benches` does not (criterion then runs each benchmark once). The benches
/// then skip their 10k setups, which take minutes.
pub fn smoke_test() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

/// Whether benchmark `id` may be selected by the filter on the command line (criterion's
/// positional argument): `false` only for a plain-text filter that `id` does not contain, so
/// that a bench can skip an expensive setup whose benchmarks criterion would skip anyway. A
/// filter with regular-expression syntax selects everything here (criterion still filters).
pub fn selected(id: &str) -> bool {
    // Criterion's options that take a value (the value is not a filter).
    const WITH_VALUE: &[&str] = &[
        "--save-baseline",
        "-s",
        "--baseline",
        "-b",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--format",
        "--color",
        "-c",
        "--output-format",
        "--plotting-backend",
        "--logfile",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.starts_with('-') {
            i += if WITH_VALUE.contains(&a.as_str()) {
                2
            } else {
                1
            };
            continue;
        }
        let plain = a
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || "-_/ ".contains(ch));
        return !plain || id.contains(a.as_str());
    }
    true
}

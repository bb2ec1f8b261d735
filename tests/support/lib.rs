//! Helpers shared by the integration tests and the benchmarks.
//!
//! The benchmarks measure states captured in the middle of a generated ESSC day. [`Driver`]
//! steps the core's engine ([`kairos_core::engine::Engine`]) through a trial as `kairos run`
//! does, but stops just before any mapping event, and a run can be copied there
//! ([`copy_run`]: `Controller::clone_into` and `Engine::clone_into`) and continued. Run to
//! the end, it yields `engine::run`'s digest (`tests/clone_replay.rs` checks both).

use kairos_core::energy::FilterKind;
use kairos_core::engine::{Engine, Event, NoObserver, Schedule};
use kairos_core::error::Error;
use kairos_core::task::Task;
use kairos_core::units::Micros;
use kairos_core::{Config, Controller, TaskState};
use kairos_core::{Heuristic, Reservations};
use kairos_host::generate::{self, Trial};
use kairos_host::run::{self, RunOptions};
use kairos_host::scenario::Scenario;
use kairos_host::storage::HostStorage;
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
        HostStorage::new(&self.trial.platform, self.trial.tasks.len())
    }

    /// A fresh controller with its void index (as `kairos run` builds it) and a driver of
    /// this trial's tasks, both over `storage`.
    pub fn start<'s>(&'s self, storage: &'s mut HostStorage) -> (Controller<'s>, Driver<'s>) {
        let parts = storage.split();
        let ctl = Controller::new(
            &self.trial.platform,
            &self.trial.classes,
            self.config,
            parts.controller,
        )
        .expect("a controller");
        let driver = Driver {
            tasks: &self.trial.tasks,
            next: 0,
            engine: Engine::new(Schedule::every(self.interval), parts.pending)
                .with_pending_ends(parts.ends),
        };
        (ctl, driver)
    }
}

/// A copy of `ctl` over `storage`, with a void index, as [`Setup::start`] builds one.
pub fn copy_into<'a: 's, 's>(ctl: &Controller<'a>, storage: &'s mut HostStorage) -> Controller<'s> {
    let parts = storage.split();
    ctl.clone_into(parts.controller).expect("the copy fits")
}

/// A copy of a run stopped by `driver` over `storage`, to continue apart from the original.
pub fn copy_run<'a: 's, 't: 's, 's>(
    ctl: &Controller<'a>,
    driver: &Driver<'t>,
    storage: &'s mut HostStorage,
) -> (Controller<'s>, Driver<'s>) {
    let parts = storage.split();
    let copy = ctl.clone_into(parts.controller).expect("the copy fits");
    let driver = Driver {
        tasks: driver.tasks,
        next: driver.next,
        engine: driver
            .engine
            .clone_into(parts.pending, parts.ends)
            .expect("the pending copy fits"),
    };
    (copy, driver)
}

/// Steps the core's engine through a trial's tasks with a mapping event every interval, as
/// `kairos run` runs it, stopping when asked just before a mapping event.
pub struct Driver<'s> {
    tasks: &'s [Task],
    /// The next task to arrive.
    next: usize,
    engine: Engine<'s>,
}

impl Driver<'_> {
    /// Runs every event until the next one is the mapping event at or after `until` (its
    /// time's completions and arrivals are done), or to the horizon. Returns that mapping
    /// event's time, `None` at the horizon.
    pub fn run_until(
        &mut self,
        ctl: &mut Controller<'_>,
        until: Micros,
    ) -> Result<Option<Micros>, Error> {
        loop {
            let arrival = self.tasks.get(self.next).map(|t| t.arrival);
            match self.engine.next_event(ctl, arrival) {
                None => return Ok(None),
                Some(Event::Completion(_)) => self.engine.complete_next(ctl, &mut NoObserver)?,
                Some(Event::Arrival(_)) => {
                    self.engine
                        .arrive(ctl, self.tasks[self.next].clone(), &mut NoObserver)?;
                    self.next += 1;
                }
                Some(Event::Mapping(t)) if t >= until => return Ok(Some(t)),
                Some(Event::Mapping(t)) => self.engine.map(ctl, t, &mut NoObserver)?,
            }
        }
    }

    /// Runs to the horizon and lets the started tasks finish; returns `engine::run`'s digest.
    pub fn finish(self, ctl: &mut Controller<'_>) -> Result<u64, Error> {
        let rest = self.tasks[self.next..].iter().cloned().map(Ok);
        Ok(self.engine.run(ctl, rest, &mut NoObserver)?.digest)
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

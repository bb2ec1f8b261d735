//! One run: a scenario's trial generated and simulated under one configuration (heuristic,
//! reservations, energy filter, leniency, budget), and what it gives ([`RunSummary`]).
//!
//! Data flows one way: [`RunOptions`] (what `kairos run`'s flags and an experiment's
//! configurations both become) and a [`Scenario`] go in; [`config`] turns them into the
//! core's `Config`; [`run_generated`] hands the trial to [`crate::storage::simulate`], which
//! runs it through the core's engine, and times its mapping events through `Watch` (an
//! `Observer`);
//! a [`RunSummary`] comes out. `kairos run`, the experiment runner,
//! seed 001's runs ([`crate::seed001`]), the benches and the tests all call this module.
//!
//! Defaults: place-holders for the utility-aware heuristics (the comparison heuristics only
//! reserve permanently, so asking them for place-holders is an error), no energy filter, the
//! scenario's leniency for the chosen filter, the scenario's budget (none if absent), trial 0.
//! Dropping, at the scenario's threshold, applies to the utility-aware heuristics only.

use crate::generate::{self, Trial};
use crate::scenario::Scenario;
use anyhow::{bail, Context};
use kairos_core::energy::{EnergyFilter, FilterKind};
use kairos_core::engine::{Observer, Report, Schedule};
use kairos_core::platform::Platform;
use kairos_core::task::Task;
use kairos_core::units::{Micros, MilliJoules};
use kairos_core::utility::UtilityClasses;
use kairos_core::{Config, Controller};
use kairos_core::{Heuristic, Reservations};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// How often the trace samples the cumulative utility and energy: every 20 simulated minutes.
pub const TRACE_EVERY: Micros = Micros::from_mins(20);

/// What to run: everything but the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    /// The heuristic.
    pub heuristic: Heuristic,
    /// Reservations; `None` takes the heuristic's default.
    pub reservations: Option<Reservations>,
    /// The energy filter.
    pub filter: FilterKind,
    /// The filter's leniency; `None` takes the scenario's.
    pub leniency: Option<f64>,
    /// The trial.
    pub trial: u32,
    /// The day's budget in joules, overriding the scenario's.
    pub budget_joules: Option<f64>,
    /// Place-holders for every task (`Config::full_plan`).
    pub full_plan: bool,
}

impl RunOptions {
    /// A heuristic with every other option at its default.
    pub fn new(heuristic: Heuristic) -> RunOptions {
        RunOptions {
            heuristic,
            reservations: None,
            filter: FilterKind::None,
            leniency: None,
            trial: 0,
            budget_joules: None,
            full_plan: false,
        }
    }
}

/// Wall-clock time of the mapping events, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct EventTimes {
    /// Median (nearest rank).
    pub p50: u64,
    /// 99th percentile (nearest rank).
    pub p99: u64,
    /// The slowest.
    pub max: u64,
    /// The mean.
    pub mean: f64,
}

/// One row of the trace: the cumulative ledgers at a mapping event.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TracePoint {
    /// Simulated time, in seconds.
    pub time_s: f64,
    /// Utility earned inside the day so far (completed tasks).
    pub utility: f64,
    /// Energy consumed inside the day so far (completed tasks), in joules.
    pub energy_j: f64,
}

/// What one run gives.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    /// The scenario's name.
    pub scenario: String,
    /// The heuristic.
    pub heuristic: String,
    /// permanent or place-holder.
    pub reservations: String,
    /// The energy filter.
    pub filter: String,
    /// The filter's leniency.
    pub leniency: f64,
    /// The trial.
    pub trial: u32,
    /// 100 x utility / max utility.
    pub utility_percent: f64,
    /// Utility earned inside the day.
    pub utility: f64,
    /// The most the day's arrivals could earn.
    pub max_utility: f64,
    /// Energy consumed inside the day, in joules.
    pub energy_joules: f64,
    /// The day's budget, in joules (`None` when unconstrained).
    pub energy_budget_joules: Option<f64>,
    /// Tasks that arrived over the horizon.
    pub arrived: u32,
    /// Tasks completed.
    pub completed: u32,
    /// Tasks dropped.
    pub dropped: u32,
    /// Tasks neither completed nor dropped.
    pub unfinished: u32,
    /// Mapping events run.
    pub mapping_events: u32,
    /// Wall-clock time of a mapping event.
    pub mapping_event_us: EventTimes,
    /// Offered load: node-time at P-state 0 on each task's fastest cluster, of the tasks
    /// arriving in the day, over the platform's node-time in the day, in percent.
    pub offered_load_percent: f64,
    /// Wall-clock time of the simulation, in seconds.
    pub wall_time_s: f64,
    /// Wall-clock time of the trial's generation, in seconds.
    pub generate_s: f64,
    /// The run's digest, 16 hex digits.
    pub digest: String,
    /// The cumulative ledgers every 20 simulated minutes, and the final ledgers at the horizon.
    #[serde(skip)]
    pub trace: Vec<TracePoint>,
}

/// Times the mapping events and samples the ledgers.
pub(crate) struct Watch {
    started: Option<Instant>,
    durations: Vec<u64>,
    next_sample: Micros,
    trace: Vec<TracePoint>,
}

impl Observer for Watch {
    fn before_mapping(&mut self, _now: Micros) {
        self.started = Some(Instant::now());
    }
    fn after_mapping(&mut self, now: Micros, ctl: &Controller<'_>, _decisions: u32) {
        if let Some(t) = self.started.take() {
            self.durations.push(t.elapsed().as_micros() as u64);
        }
        self.sample(
            now,
            ctl.utility().as_f64(),
            ctl.ledger().consumed().as_joules_f64(),
        );
    }
}

impl Watch {
    /// A watch that has seen nothing yet.
    pub(crate) fn new() -> Watch {
        Watch {
            started: None,
            durations: Vec::new(),
            next_sample: Micros::ZERO,
            trace: Vec::new(),
        }
    }

    /// After the mapping event at `now`, with the ledgers then: a trace point if one is due.
    pub(crate) fn sample(&mut self, now: Micros, utility: f64, energy_j: f64) {
        if now >= self.next_sample {
            self.trace.push(TracePoint {
                time_s: now.as_secs_f64(),
                utility,
                energy_j,
            });
            while self.next_sample <= now {
                self.next_sample = self.next_sample.saturating_add(TRACE_EVERY);
            }
        }
    }

    /// The mapping events' times so far.
    pub(crate) fn event_times(&self) -> EventTimes {
        let mut d = self.durations.clone();
        d.sort_unstable();
        EventTimes {
            p50: percentile(&d, 0.5),
            p99: percentile(&d, 0.99),
            max: d.last().copied().unwrap_or(0),
            mean: if d.is_empty() {
                0.0
            } else {
                d.iter().sum::<u64>() as f64 / d.len() as f64
            },
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = libm::ceil(p * sorted.len() as f64) as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The core configuration of a run of `opts` on `scenario` and its generated `trial`.
pub fn config(scenario: &Scenario, opts: &RunOptions, trial: &Trial) -> anyhow::Result<Config> {
    let sim = &scenario.simulation;
    let h = opts.heuristic;
    let reservations = match (h.is_utility_aware(), opts.reservations) {
        (true, r) => r.unwrap_or(Reservations::PlaceHolder),
        (false, None | Some(Reservations::Permanent)) => Reservations::Permanent,
        (false, Some(Reservations::PlaceHolder)) => bail!(
            "{h} only reserves permanently: drop --reservations or pass permanent \
             (place-holders are for max-util, max-upt, max-upr and max-upe)"
        ),
    };
    let leniency = match opts.leniency {
        Some(l) => l,
        None => match opts.filter {
            FilterKind::None => 1.0,
            FilterKind::PerTask => sim.leniency.per_task,
            FilterKind::PerResource => sim.leniency.per_resource,
            FilterKind::Adaptive => sim.leniency.adaptive,
        },
    };
    if !(leniency.is_finite() && leniency >= 0.0) {
        bail!("--leniency {leniency}: must be a finite number at least 0");
    }
    let budget = match opts.budget_joules.or(sim.energy_budget_joules) {
        None => MilliJoules::MAX,
        Some(j) if j.is_finite() && j > 0.0 && j <= 1e16 => {
            MilliJoules(libm::round(j * 1000.0) as u64)
        }
        Some(j) => bail!("energy budget {j} J: must be greater than 0 and at most 1e16"),
    };
    let mut cfg = Config::new(
        h,
        Micros::from_hours(sim.warmup_hours as u64),
        Micros::from_hours(sim.horizon_hours as u64),
    );
    cfg.reservations = reservations;
    cfg.filter = EnergyFilter {
        kind: opts.filter,
        leniency,
    };
    cfg.drop_threshold = h.is_utility_aware().then_some(sim.dropping_threshold);
    cfg.budget = budget;
    cfg.seed = trial.controller_seed;
    cfg.full_plan = opts.full_plan;
    Ok(cfg)
}

/// Generates trial `opts.trial` of `scenario` and simulates it under `opts`.
pub fn run_trial(scenario: &Scenario, opts: &RunOptions) -> anyhow::Result<RunSummary> {
    let t0 = Instant::now();
    let trial = generate::generate(scenario, opts.trial)
        .with_context(|| format!("generating trial {} of {}", opts.trial, scenario.name))?;
    let generate_s = t0.elapsed().as_secs_f64();
    run_generated(scenario, opts, &trial, generate_s)
}

/// Simulates an already generated `trial` of `scenario` under `opts` (`generate_s` is only
/// reported).
pub fn run_generated(
    scenario: &Scenario,
    opts: &RunOptions,
    trial: &Trial,
    generate_s: f64,
) -> anyhow::Result<RunSummary> {
    run_generated_with(
        scenario,
        opts,
        trial,
        generate_s,
        &mut |p, c, cfg, s, t, w| {
            crate::storage::simulate(p, c, cfg, s, t, w).map_err(anyhow::Error::new)
        },
    )
}

/// How a trial is simulated: the in-process engine ([`crate::storage::simulate`]) or a live
/// controller over a link ([`crate::live`]); the watch sees every mapping event.
pub(crate) type Simulate<'f> = dyn FnMut(
        &Platform,
        &UtilityClasses,
        Config,
        Schedule,
        &[Task],
        &mut Watch,
    ) -> anyhow::Result<Report>
    + 'f;

/// [`run_generated`], simulated by `simulate`.
pub(crate) fn run_generated_with(
    scenario: &Scenario,
    opts: &RunOptions,
    trial: &Trial,
    generate_s: f64,
    simulate: &mut Simulate<'_>,
) -> anyhow::Result<RunSummary> {
    let cfg = config(scenario, opts, trial)?;
    let schedule = Schedule::every(Micros::from_secs(
        scenario.simulation.mapping_interval_s as u64,
    ));
    let mut watch = Watch::new();
    let t0 = Instant::now();
    let report = simulate(
        &trial.platform,
        &trial.classes,
        cfg,
        schedule,
        &trial.tasks,
        &mut watch,
    )
    .with_context(|| {
        format!(
            "simulating trial {} of {} under {}",
            trial.index, scenario.name, opts.heuristic
        )
    })?;
    let wall_time_s = t0.elapsed().as_secs_f64();
    let mapping_event_us = watch.event_times();
    let mut trace = watch.trace;
    trace.push(TracePoint {
        time_s: cfg.day_end.as_secs_f64(),
        utility: report.utility.as_f64(),
        energy_j: report.energy.as_joules_f64(),
    });
    let max_utility = report.max_utility.as_f64();
    Ok(RunSummary {
        scenario: scenario.name.clone(),
        heuristic: opts.heuristic.name().to_string(),
        reservations: cfg.reservations.name().to_string(),
        filter: cfg.filter.kind.name().to_string(),
        leniency: cfg.filter.leniency,
        trial: trial.index,
        utility_percent: if max_utility > 0.0 {
            100.0 * report.utility.as_f64() / max_utility
        } else {
            0.0
        },
        utility: report.utility.as_f64(),
        max_utility,
        energy_joules: report.energy.as_joules_f64(),
        energy_budget_joules: (cfg.budget != MilliJoules::MAX).then(|| cfg.budget.as_joules_f64()),
        arrived: report.arrived,
        completed: report.completed,
        dropped: report.dropped,
        unfinished: report.unfinished,
        mapping_events: report.mapping_events,
        mapping_event_us,
        offered_load_percent: 100.0 * trial.offered_load(scenario).window_share,
        wall_time_s,
        generate_s,
        digest: format!("{:016x}", report.digest),
        trace,
    })
}

/// The summary as aligned `key: value` lines.
pub fn text(s: &RunSummary) -> String {
    let budget = s
        .energy_budget_joules
        .map_or("none".to_string(), |b| format!("{b:.0} J"));
    let e = &s.mapping_event_us;
    format!(
        "scenario:        {} (trial {})\n\
         heuristic:       {} ({}, filter {}, leniency {})\n\
         utility:         {:.2}% of max ({:.3} of {:.3})\n\
         energy:          {:.4e} J (budget {budget})\n\
         tasks:           {} arrived, {} completed, {} dropped, {} unfinished\n\
         offered load:    {:.1}% of the platform's node-time in the day\n\
         mapping events:  {} (p50 {} us, p99 {} us, max {} us)\n\
         wall time:       {:.2} s (+ {:.2} s generating)\n\
         digest:          {}\n",
        s.scenario,
        s.trial,
        s.heuristic,
        s.reservations,
        s.filter,
        s.leniency,
        s.utility_percent,
        s.utility,
        s.max_utility,
        s.energy_joules,
        s.arrived,
        s.completed,
        s.dropped,
        s.unfinished,
        s.offered_load_percent,
        s.mapping_events,
        e.p50,
        e.p99,
        e.max,
        s.wall_time_s,
        s.generate_s,
        s.digest,
    )
}

/// Writes the trace as CSV (`time_s,utility,energy_j`).
pub fn write_trace(path: &Path, trace: &[TracePoint]) -> anyhow::Result<()> {
    let mut out = String::from("time_s,utility,energy_j\n");
    for p in trace {
        out.push_str(&format!("{},{},{}\n", p.time_s, p.utility, p.energy_j));
    }
    std::fs::write(path, out).with_context(|| format!("{}: cannot write the trace", path.display()))
}

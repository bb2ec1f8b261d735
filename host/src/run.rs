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
    /// Tasks that arrived in the measured day (the warm-up's arrivals are not counted).
    pub arrived: u32,
    /// Of them, completed by the horizon.
    pub completed: u32,
    /// Of them, dropped.
    pub dropped: u32,
    /// Of them, neither completed by the horizon nor dropped.
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

/// Times the mapping events, samples the ledgers, and (given the day) counts the fates of
/// the tasks that arrived in the measured day.
pub(crate) struct Watch {
    started: Option<Instant>,
    durations: Vec<u64>,
    next_sample: Micros,
    trace: Vec<TracePoint>,
    day: Option<DayCounts>,
    /// Simulated hours told to the command's progress ([`crate::progress::tick`]).
    hours_told: u64,
}

/// The tasks that arrived in the measured day `[start, end)` and their fates by its end:
/// what the summary's `arrived`, `completed`, `dropped` and `unfinished` count
/// (docs/formats.md). The engine's report counts every task of the horizon, warm-up
/// included, and folds those counts into the digest, so the day's are counted here.
#[derive(Clone, Debug, Default)]
pub(crate) struct DayCounts {
    start: Micros,
    end: Micros,
    /// By task id: arrived in the day.
    in_day: Vec<bool>,
    arrived: u32,
    completed: u32,
    dropped: u32,
}

impl DayCounts {
    fn counted(&self, task: kairos_core::task::TaskId) -> bool {
        self.in_day.get(task.0 as usize).copied().unwrap_or(false)
    }
}

impl Observer for Watch {
    fn before_mapping(&mut self, _now: Micros) {
        self.started = Some(Instant::now());
    }
    fn after_mapping(&mut self, now: Micros, ctl: &Controller<'_>, _decisions: u32) {
        if let Some(t) = self.started.take() {
            self.durations.push(t.elapsed().as_micros() as u64);
        }
        // `kairos run` shows its progress in simulated hours (a no-op elsewhere).
        let hours = now.0 / 3_600_000_000;
        if hours > self.hours_told {
            crate::progress::tick(hours - self.hours_told);
            self.hours_told = hours;
        }
        self.sample(
            now,
            ctl.utility().as_f64(),
            ctl.ledger().consumed().as_joules_f64(),
        );
    }
    fn on_arrival(&mut self, task: kairos_core::task::TaskId, at: Micros) {
        if let Some(d) = &mut self.day {
            if at >= d.start && at < d.end {
                let k = task.0 as usize;
                if k >= d.in_day.len() {
                    d.in_day.resize(k + 1, false);
                }
                d.in_day[k] = true;
                d.arrived += 1;
            }
        }
    }
    fn on_decision(&mut self, dec: &kairos_core::Decision) {
        if let Some(d) = &mut self.day {
            if dec.kind == kairos_core::DecisionKind::Drop && d.counted(dec.task) {
                d.dropped += 1;
            }
        }
    }
    fn on_completion(&mut self, task: kairos_core::task::TaskId, at: Micros) {
        if let Some(d) = &mut self.day {
            // As the engine counts a completion: by the horizon.
            if at <= d.end && d.counted(task) {
                d.completed += 1;
            }
        }
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
            day: None,
            hours_told: 0,
        }
    }

    /// A watch that also counts the tasks arriving in the day `[start, end)`.
    pub(crate) fn for_day(start: Micros, end: Micros) -> Watch {
        Watch {
            day: Some(DayCounts {
                start,
                end,
                ..DayCounts::default()
            }),
            ..Watch::new()
        }
    }

    /// The measured day's counts so far (a watch [`for_day`](Self::for_day)): arrived,
    /// completed and dropped, of the tasks that arrived in the day.
    pub(crate) fn day_counts(&self) -> Option<(u32, u32, u32)> {
        self.day
            .as_ref()
            .map(|d| (d.arrived, d.completed, d.dropped))
    }

    /// A mapping event's wall time measured elsewhere (over a live controller's link).
    pub(crate) fn record_event_us(&mut self, us: u64) {
        self.durations.push(us);
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

/// Shows `watch` what a live controller did (the engine's observer calls, which a run over a
/// link does not make): the arrivals (task `k` is the `k`-th of `tasks`), decisions and
/// completions, so that the day's counts are the in-process run's.
pub(crate) fn watch_driven(
    watch: &mut Watch,
    tasks: &[Task],
    decisions: &[kairos_core::Decision],
    completions: &[(kairos_core::task::TaskId, Micros)],
) {
    for (k, t) in tasks.iter().enumerate() {
        watch.on_arrival(kairos_core::task::TaskId(k as u32), t.arrival);
    }
    for d in decisions {
        watch.on_decision(d);
    }
    for &(task, at) in completions {
        watch.on_completion(task, at);
    }
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
    let mut watch = Watch::for_day(cfg.day_start, cfg.day_end);
    // `kairos run`'s simulated hours begin here, after the trial's generation.
    crate::progress::begin();
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
    // The simulated hours after the last mapping event, to the horizon.
    let end_h = cfg.day_end.0 / 3_600_000_000;
    crate::progress::tick(end_h.saturating_sub(watch.hours_told));
    let mapping_event_us = watch.event_times();
    let day = watch.day.take().unwrap_or_default();
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
        arrived: day.arrived,
        completed: day.completed,
        dropped: day.dropped,
        unfinished: day.arrived.saturating_sub(day.completed + day.dropped),
        mapping_events: report.mapping_events,
        mapping_event_us,
        offered_load_percent: 100.0 * trial.offered_load(scenario).window_share,
        wall_time_s,
        generate_s,
        digest: format!("{:016x}", report.digest),
        trace,
    })
}

/// Joules for a person to read: in GJ, MJ or kJ with three decimals once the value reaches
/// that unit (a day of the ESSC platform is some GJ), in whole J below 1 kJ. Files keep
/// joules; this is for the terminal.
pub fn energy_text(joules: f64) -> String {
    let a = joules.abs();
    if a >= 1e9 {
        format!("{:.3} GJ", joules / 1e9)
    } else if a >= 1e6 {
        format!("{:.3} MJ", joules / 1e6)
    } else if a >= 1e3 {
        format!("{:.3} kJ", joules / 1e3)
    } else {
        format!("{joules:.0} J")
    }
}

/// The summary as aligned `key: value` lines.
pub fn text(s: &RunSummary) -> String {
    let budget = s
        .energy_budget_joules
        .map_or("none".to_string(), energy_text);
    let e = &s.mapping_event_us;
    format!(
        "scenario:        {} (trial {})\n\
         heuristic:       {} ({}, filter {}, leniency {})\n\
         utility:         {:.2}% of max ({:.3} of {:.3})\n\
         energy:          {} (budget {budget})\n\
         tasks:           {} arrived in the day: {} completed, {} dropped, {} unfinished\n\
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
        energy_text(s.energy_joules),
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
    crate::output::write_atomic(path, out)
}

#[cfg(test)]
mod energy_text_tests {
    use super::energy_text;

    #[test]
    fn energy_reads_in_the_unit_it_reaches() {
        assert_eq!(energy_text(0.0), "0 J");
        assert_eq!(energy_text(999.4), "999 J");
        assert_eq!(energy_text(1_500.0), "1.500 kJ");
        assert_eq!(energy_text(2.5e6), "2.500 MJ");
        assert_eq!(energy_text(3.456_789e9), "3.457 GJ");
        assert_eq!(energy_text(1.2e12), "1200.000 GJ");
    }
}

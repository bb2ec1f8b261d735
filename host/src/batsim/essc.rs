//! The jobs file of a `kairos run`: one row per task that arrived in an ESSC trial, with
//! node ids global across clusters (cluster `c`'s nodes follow those of clusters `0..c`)
//! the task type as its `profile` (`type12`), and, in `metadata`, what Batsim has no
//! column for: the cluster, the P-state, the utility earned (the day's share, as the summary counts it), and the task's
//! fate: `completed` by the horizon, `dropped`, or `unfinished` (ended after the horizon,
//! still running, or never started), and `warmup` for a task that arrived in the warm-up
//! (the summary's counts are of the other rows). Batsim's state says what happened by the
//! horizon: a task still running then is `COMPLETED_KILLED` there (the engine lets it run
//! on, but the day and this schedule end), a dropped one `REJECTED`. Energy is the day's
//! share too.
//!
//! The run is [`crate::run::run_generated_with`] with the in-process engine, so its summary
//! and digest are the plain run's; an observer beside the run's own keeps each task's
//! completion time and nodes ([`crate::placement`]), and the rows are read off the
//! controller's task table when the day ends.

use anyhow::Context;
use kairos_core::engine::{Engine, Observer};
use kairos_core::platform::ClusterId;
use kairos_core::task::{Demand, TaskId};
use kairos_core::units::{Micros, Utility};
use kairos_core::{Controller, Decision, TaskState};

use super::jobs::{BatsimJob, FinalState};
use crate::generate;
use crate::placement::NodeLog;
use crate::run::{RunOptions, RunSummary};
use crate::scenario::Scenario;
use crate::storage::HostStorage;

/// The jobs of one run and the platform's size.
#[derive(Clone, Debug)]
pub struct EsscJobs {
    /// One row per task that arrived, in arrival order.
    pub rows: Vec<BatsimJob>,
    /// Nodes of the platform, every cluster.
    pub machines: u32,
}

/// Watches the engine beside the run's own observer: arrivals (task ids in arrival
/// order), completion times and nodes.
struct Tee<'w> {
    inner: &'w mut dyn Observer,
    arrived: Vec<TaskId>,
    completed: Vec<Option<Micros>>,
    nodes: NodeLog,
}

impl Observer for Tee<'_> {
    fn before_mapping(&mut self, now: Micros) {
        self.inner.before_mapping(now);
    }
    fn after_mapping(&mut self, now: Micros, ctl: &Controller<'_>, decisions: u32) {
        self.nodes.after_mapping(ctl);
        self.inner.after_mapping(now, ctl, decisions);
    }
    fn on_decision(&mut self, d: &Decision) {
        self.nodes.on_decision(d);
        self.inner.on_decision(d);
    }
    fn on_arrival(&mut self, task: TaskId, at: Micros) {
        self.arrived.push(task);
        self.inner.on_arrival(task, at);
    }
    fn on_completion(&mut self, task: TaskId, at: Micros) {
        let k = task.0 as usize;
        if k >= self.completed.len() {
            self.completed.resize(k + 1, None);
        }
        self.completed[k] = Some(at);
        self.inner.on_completion(task, at);
    }
}

/// Generates trial `opts.trial` of `scenario`, simulates it under `opts` (the same run as
/// [`crate::run::run_trial`], same digest) and gives its summary and its jobs.
pub fn run_trial_jobs(
    scenario: &Scenario,
    opts: &RunOptions,
) -> anyhow::Result<(RunSummary, EsscJobs)> {
    let t0 = std::time::Instant::now();
    let trial = generate::generate(scenario, opts.trial)
        .with_context(|| format!("generating trial {} of {}", opts.trial, scenario.name))?;
    let generate_s = t0.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    let summary = crate::run::run_generated_with(
        scenario,
        opts,
        &trial,
        generate_s,
        &mut |platform, classes, cfg, schedule, tasks, watch| {
            let mut storage = HostStorage::new(platform, tasks.len());
            let parts = storage.split();
            let mut ctl = Controller::new(platform, classes, cfg, parts.controller)?;
            let mut tee = Tee {
                inner: watch,
                arrived: Vec::with_capacity(tasks.len()),
                completed: vec![None; tasks.len()],
                nodes: NodeLog::new(tasks.len()),
            };
            let report = Engine::new(schedule, parts.pending)
                .with_pending_ends(parts.ends)
                .run(&mut ctl, tasks.iter().cloned().map(Ok), &mut tee)?;
            rows = task_rows(scenario, &ctl, &mut tee);
            Ok(report)
        },
    )?;
    let machines = trial.platform.clusters().iter().map(|c| c.nodes.0).sum();
    Ok((summary, EsscJobs { rows, machines }))
}

/// The rows of the tasks that arrived, read off the controller at the end of the day.
fn task_rows(scenario: &Scenario, ctl: &Controller<'_>, tee: &mut Tee<'_>) -> Vec<BatsimJob> {
    let cfg = ctl.config();
    let (day_start, day_end) = (cfg.day_start, cfg.day_end);
    let platform = ctl.platform();
    let mut rows = Vec::with_capacity(tee.arrived.len());
    for (n, &id) in tee.arrived.iter().enumerate() {
        let Some(slot) = ctl.task(id) else { continue };
        let task = &slot.task;
        let profile = match task.demand {
            Demand::Typed(t) => format!("type{}", t.0),
            Demand::Own(_) => "own".to_string(),
        };
        // Where it ran, or where it could have run first (its lowest cluster).
        let cluster = slot.assignment.map(|a| a.cluster).or_else(|| {
            (0..platform.clusters().len())
                .map(|c| ClusterId(c as u8))
                .find(|&c| task.on(platform, c).is_some())
        });
        let placement = cluster.and_then(|c| task.on(platform, c));
        let (resources, requested) = match (slot.assignment, placement) {
            (Some(a), _) => (a.nodes.0, a.end.0 - a.start.0),
            (None, Some(p)) => (p.nodes.0, p.etc[0].0),
            (None, None) => (0, 0),
        };
        let finish = tee.completed.get(id.0 as usize).copied().flatten();
        let (state, fate, end) = match slot.state {
            // The engine lets the tasks running at the horizon run to their end; the run's
            // summary counts those that end after it as unfinished: for Batsim, killed at the
            // horizon (where the measured day, and this schedule, end).
            TaskState::Completed if finish.is_some_and(|f| f > day_end) => {
                if slot.assignment.is_some_and(|a| a.start < day_end) {
                    // Its energy is read up to its real end (the day's share of it, as the
                    // ledger counts it); the row ends at the horizon.
                    (FinalState::CompletedKilled, "unfinished", finish)
                } else {
                    // Reserved to start at or after the horizon: not started by then.
                    (FinalState::Submitted, "unfinished", None)
                }
            }
            TaskState::Completed => (FinalState::CompletedSuccessfully, "completed", finish),
            TaskState::Dropped => (FinalState::Rejected, "dropped", None),
            TaskState::Running => (FinalState::CompletedKilled, "unfinished", Some(day_end)),
            _ => (FinalState::Submitted, "unfinished", None),
        };
        let mut row = BatsimJob {
            job_id: n.to_string(),
            workload_name: scenario.name.clone(),
            profile,
            submit: task.arrival.0,
            resources,
            requested_time: requested,
            state,
            start: None,
            finish: None,
            nodes: Vec::new(),
            energy_j: None,
            metadata: String::new(),
        };
        let mut meta = Vec::new();
        if let (Some(a), Some(end), Some(p)) = (slot.assignment, end, placement) {
            if state.ran() && end >= a.start {
                row.start = Some(a.start.0);
                row.finish = Some(end.min(day_end).0);
                row.nodes = tee.nodes.take(id.0 as usize);
                // The day's share, as the run's summary counts it.
                let energy = p.apc[a.pstate.0 as usize].energy(a.nodes, end - a.start);
                let share =
                    kairos_core::energy::window_share(energy, a.start, end, day_start, day_end);
                row.energy_j = Some(share.as_joules_f64());
                meta.push(format!("cluster={}", a.cluster.0));
                meta.push(format!("pstate={}", a.pstate.0));
                // A task that ends after the horizon earns its prorated share inside the day,
                // as the summary counts it, killed at the horizon or not.
                if slot.state == TaskState::Completed {
                    let value = task
                        .curve
                        .value_at(end - task.arrival, ctl.classes())
                        .unwrap_or(0.0);
                    let earned = kairos_core::utility::prorate(
                        Utility::from_f64(value),
                        a.start,
                        end,
                        day_start,
                        day_end,
                    );
                    meta.push(format!("utility={:.6}", earned.as_f64()));
                }
            }
        }
        if row.energy_j.is_none() {
            row.energy_j = Some(0.0);
        }
        meta.push(format!("state={fate}"));
        if task.arrival < day_start {
            // Not one of the summary's `arrived`: it came in the warm-up.
            meta.push("warmup".to_string());
        }
        row.metadata = meta.join(" ");
        rows.push(row);
    }
    rows
}

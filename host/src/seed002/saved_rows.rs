//! Seed 002's resumable experiment runs ([`serial_run_saved`], [`energy_run_saved`]) and
//! their rows as saved steps ([`crate::experiment::saved`]): every field the reports read,
//! integers as they are and floats in their shortest round-trip form, so the reports of a
//! resumed run are those of an uninterrupted one to the byte. Also each run's identity: the
//! experiment file's contents and the trial count. The runs' progress in simulated hours
//! (`show_hours`).

use super::energy::experiment::{
    self as energy_experiment, EnergyExperiment, EnergyTrial, Row as EnergyRow,
};
use super::grid::{run_grid_saved, RowCodec, Saving};
use super::serial::experiment::{self as serial_experiment, Row as SerialRow, SerialExperiment};
use crate::experiment::saved::Rows;
use crate::progress::{hours_of, Shown, Steps};
use crate::shard::Identity;
use kairos_core::serial::{EnergyReport, SerialReport};
use kairos_core::units::{Micros, MilliJoules, Utility};
use std::ops::Range;
use std::path::Path;

/// The identity of a seed 002 run of the file at `path` over `trials` trials.
pub fn identity(path: &Path, trials: u32) -> anyhow::Result<String> {
    let mut id = Identity::new();
    id.file("experiment", path)?;
    id.part("trials", &trials.to_le_bytes());
    Ok(id.text())
}

/// The columns of a serial row.
pub const SERIAL_COLUMNS: [&str; 16] = [
    "config",
    "trial",
    "bound",
    "utility",
    "utility_special",
    "completed",
    "dropped",
    "events",
    "delayed_events",
    "evaluations",
    "event_time_us",
    "digest",
    "utility_critical",
    "utility_high",
    "utility_medium",
    "utility_low",
];

/// A serial row's fields.
pub fn serial_fields(r: &SerialRow) -> Vec<String> {
    let p = &r.report;
    let mut v = vec![
        r.config.to_string(),
        r.trial.to_string(),
        format!("{:?}", r.bound),
        p.utility.0.to_string(),
        p.utility_special.0.to_string(),
        p.completed.to_string(),
        p.dropped.to_string(),
        p.events.to_string(),
        p.delayed_events.to_string(),
        p.evaluations.to_string(),
        p.event_time.0.to_string(),
        p.digest.to_string(),
    ];
    v.extend(r.by_priority.iter().map(|u| u.0.to_string()));
    v
}

/// Row `i` of a saved serial trial.
pub fn serial_parse(rows: &Rows, i: usize) -> anyhow::Result<SerialRow> {
    Ok(SerialRow {
        config: rows.get(i, 0)?,
        trial: rows.get(i, 1)?,
        bound: rows.finite(i, 2)?,
        report: SerialReport {
            utility: Utility(rows.get(i, 3)?),
            utility_special: Utility(rows.get(i, 4)?),
            completed: rows.get(i, 5)?,
            dropped: rows.get(i, 6)?,
            events: rows.get(i, 7)?,
            delayed_events: rows.get(i, 8)?,
            evaluations: rows.get(i, 9)?,
            event_time: Micros(rows.get(i, 10)?),
            digest: rows.get(i, 11)?,
        },
        by_priority: [
            Utility(rows.get(i, 12)?),
            Utility(rows.get(i, 13)?),
            Utility(rows.get(i, 14)?),
            Utility(rows.get(i, 15)?),
        ],
    })
}

/// A serial row's (configuration, trial).
pub fn serial_key(r: &SerialRow) -> (usize, u32) {
    (r.config, r.trial)
}

/// The columns of an energy row.
pub const ENERGY_COLUMNS: [&str; 16] = [
    "config",
    "trial",
    "utility",
    "energy_mj",
    "completed",
    "dropped",
    "postponed",
    "events",
    "evaluations",
    "max_day_energy_mj",
    "max_day_budget_mj",
    "digest",
    "prio1_pct",
    "prio8_pct",
    "trace",
    "idle_pct",
];

/// An energy row's fields; the trace as `utility:joules` pairs joined by `;`.
pub fn energy_fields(r: &EnergyRow) -> Vec<String> {
    let p = &r.report;
    vec![
        r.config.to_string(),
        r.trial.to_string(),
        p.utility.0.to_string(),
        p.energy.0.to_string(),
        p.completed.to_string(),
        p.dropped.to_string(),
        p.postponed.to_string(),
        p.events.to_string(),
        p.evaluations.to_string(),
        p.max_day_energy.0.to_string(),
        p.max_day_budget.0.to_string(),
        p.digest.to_string(),
        format!("{:?}", r.priority_share[0]),
        format!("{:?}", r.priority_share[1]),
        r.trace
            .iter()
            .map(|(u, e)| format!("{u:?}:{e:?}"))
            .collect::<Vec<_>>()
            .join(";"),
        format!("{:?}", r.idle_pct),
    ]
}

/// Row `i` of a saved energy trial.
pub fn energy_parse(rows: &Rows, i: usize) -> anyhow::Result<EnergyRow> {
    let trace_text = rows.text(i, 14);
    let mut trace = Vec::new();
    if !trace_text.is_empty() {
        for (k, pair) in trace_text.split(';').enumerate() {
            let bad = || rows.error(i, format!("trace point {k} = {pair:?}: expected U:E"));
            let (u, e) = pair.split_once(':').ok_or_else(bad)?;
            let (u, e): (f64, f64) = (u.parse().map_err(|_| bad())?, e.parse().map_err(|_| bad())?);
            if !u.is_finite() || !e.is_finite() {
                return Err(rows.error(
                    i,
                    format!("trace point {k} = {pair:?}: not a finite number"),
                ));
            }
            trace.push((u, e));
        }
    }
    Ok(EnergyRow {
        config: rows.get(i, 0)?,
        trial: rows.get(i, 1)?,
        report: EnergyReport {
            utility: Utility(rows.get(i, 2)?),
            energy: MilliJoules(rows.get(i, 3)?),
            completed: rows.get(i, 4)?,
            dropped: rows.get(i, 5)?,
            postponed: rows.get(i, 6)?,
            events: rows.get(i, 7)?,
            evaluations: rows.get(i, 8)?,
            max_day_energy: MilliJoules(rows.get(i, 9)?),
            max_day_budget: MilliJoules(rows.get(i, 10)?),
            digest: rows.get(i, 11)?,
        },
        trace,
        priority_share: [rows.finite(i, 12)?, rows.finite(i, 13)?],
        idle_pct: rows.finite(i, 15)?,
    })
}

/// An energy row's (configuration, trial).
pub fn energy_key(r: &EnergyRow) -> (usize, u32) {
    (r.config, r.trial)
}

/// How a serial row is saved.
pub(crate) const SERIAL_CODEC: RowCodec<SerialRow> = RowCodec {
    columns: &SERIAL_COLUMNS,
    fields: serial_fields,
    parse: serial_parse,
    key: serial_key,
};

/// How an energy row is saved.
pub(crate) const ENERGY_CODEC: RowCodec<EnergyRow> = RowCodec {
    columns: &ENERGY_COLUMNS,
    fields: energy_fields,
    parse: energy_parse,
    key: energy_key,
};

/// The progress of a run's simulated hours over the (configuration, trial) units of
/// `units` (`hours` of a configuration each), the saved trials' counted as done: the runs tick it as their
/// clocks go ([`crate::progress::SimHours`]), so an experiment of one long trial shows its
/// progress and an estimate within seconds, not only when the trial is done. Shown until
/// the returned guard is dropped.
fn show_hours(
    name: &str,
    units: &Range<u64>,
    hours: impl Fn(usize) -> u64,
    configs: usize,
    saved: &[bool],
) -> Shown {
    let (mut total, mut before) = (0, 0);
    for u in units.clone() {
        let (trial, config) = (u / configs.max(1) as u64, u % configs.max(1) as u64);
        let h = hours(config as usize);
        total += h;
        if saved.get(trial as usize).copied().unwrap_or(false) {
            before += h;
        }
    }
    crate::progress::show(
        Steps::new(name, "simulated hours (all runs)", total, before)
            .quiet_for(crate::progress::QUIET),
    )
}

/// [`serial_experiment::run`] over the (configuration, trial) units of `units` (trial-major,
/// `grid::trials_of`; `0..trials x configs` for the whole run), saving each trial
/// in `r`'s steps as it finishes and running only the trials not saved; `None` if stopped.
pub fn serial_run_saved(
    exp: &SerialExperiment,
    units: Range<u64>,
    jobs: Option<usize>,
    r: &super::Resumed<'_>,
) -> anyhow::Result<Option<Vec<SerialRow>>> {
    let h = hours_of(exp.workload.window().1 .0);
    let _hours = show_hours(&exp.name, &units, |_| h, exp.configs.len(), r.saved);
    run_grid_saved(
        exp.configs.len(),
        units,
        jobs,
        |t| serial_experiment::trial_data(exp, t),
        |d, i, t| serial_experiment::run_config(exp, d, i, t),
        &Saving {
            steps: r.steps,
            saved: r.saved,
            codec: &SERIAL_CODEC,
            stop: r.stop,
            progress: r.progress,
        },
    )
}

/// [`energy_experiment::run`] over the units of `units`, as [`serial_run_saved`] runs them.
pub fn energy_run_saved(
    exp: &EnergyExperiment,
    units: Range<u64>,
    jobs: Option<usize>,
    r: &super::Resumed<'_>,
) -> anyhow::Result<Option<Vec<EnergyRow>>> {
    let _hours = show_hours(
        &exp.name,
        &units,
        |c| hours_of(exp.configs[c].cfg.window.1 .0),
        exp.configs.len(),
        r.saved,
    );
    run_grid_saved(
        exp.configs.len(),
        units,
        jobs,
        |t| EnergyTrial::new(&exp.workload, t, exp.affinity),
        |et, i, t| energy_experiment::run_config(exp, et, i, t),
        &Saving {
            steps: r.steps,
            saved: r.saved,
            codec: &ENERGY_CODEC,
            stop: r.stop,
            progress: r.progress,
        },
    )
}

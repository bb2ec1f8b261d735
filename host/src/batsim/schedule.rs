//! Batsim's schedule file: one header line and one row of whole-run metrics, the keys of
//! Batsim's file that apply to kairos's runs ([`SCHEDULE_COLUMNS`], in Batsim's order,
//! which is alphabetical). Computed from the jobs file's rows, so the two files agree.

use std::io::Write;

use super::jobs::{BatsimJob, FinalState};
use crate::trace::secs;

/// The header of the schedule file.
pub const SCHEDULE_COLUMNS: [&str; 16] = [
    "consumed_joules",
    "makespan",
    "max_slowdown",
    "max_turnaround_time",
    "max_waiting_time",
    "mean_slowdown",
    "mean_turnaround_time",
    "mean_waiting_time",
    "nb_computing_machines",
    "nb_jobs",
    "nb_jobs_finished",
    "nb_jobs_killed",
    "nb_jobs_rejected",
    "nb_jobs_success",
    "scheduling_time",
    "simulation_time",
];

/// The schedule file's metrics. As Batsim: the means and maxima are over the jobs that ran
/// (finished or killed); the slowdown is the stretch, turnaround over execution time; the
/// makespan is the last finish time (from time 0, not from the first submission). A job that
/// ran for no time has no stretch (Batsim would divide by zero and write `inf`): it is left
/// out of the slowdowns, counted in `zero_time_jobs`, and the writer warns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScheduleRow {
    /// Energy of every job, joules (`-1` when no power is modelled).
    pub consumed_joules: f64,
    /// Last finish time, microseconds.
    pub makespan: u64,
    /// Largest stretch.
    pub max_slowdown: f64,
    /// Largest turnaround, microseconds.
    pub max_turnaround_time: u64,
    /// Largest wait, microseconds.
    pub max_waiting_time: u64,
    /// Mean stretch.
    pub mean_slowdown: f64,
    /// Mean turnaround, seconds.
    pub mean_turnaround_time: f64,
    /// Mean wait, seconds.
    pub mean_waiting_time: f64,
    /// Machines (processors or nodes) of the platform.
    pub nb_computing_machines: u32,
    /// Jobs submitted.
    pub nb_jobs: usize,
    /// Jobs that ran to an end (successfully, at their walltime, or killed).
    pub nb_jobs_finished: usize,
    /// Jobs stopped: at their walltime, or when the run stopped.
    pub nb_jobs_killed: usize,
    /// Jobs rejected (dropped).
    pub nb_jobs_rejected: usize,
    /// Jobs completed successfully.
    pub nb_jobs_success: usize,
    /// Wall-clock time of the scheduling, seconds.
    pub scheduling_time: f64,
    /// Jobs that ran for no time, left out of the slowdowns (not a column of the file).
    pub zero_time_jobs: usize,
    /// The machine-state times of a platform file's replay ([`MACHINE_COLUMNS`], written
    /// after the others, as Batsim's alphabetical order puts them).
    pub machine_times: Option<MachineTimes>,
}

/// The columns a replay on a platform file adds, in Batsim's (alphabetical) order.
pub const MACHINE_COLUMNS: [&str; 3] = ["time_computing", "time_idle", "time_sleeping"];

/// Node-seconds in each machine state, from 0 to the last end (Batsim's `time_*` keys).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MachineTimes {
    /// Running a job.
    pub computing_s: f64,
    /// On and idle.
    pub idle_s: f64,
    /// Asleep.
    pub sleeping_s: f64,
}

impl ScheduleRow {
    /// The metrics of `rows` on `machines` machines; `scheduling_time_s` is the run's
    /// wall-clock time.
    pub fn of(rows: &[BatsimJob], machines: u32, scheduling_time_s: f64) -> ScheduleRow {
        let mut r = ScheduleRow {
            consumed_joules: 0.0,
            makespan: 0,
            max_slowdown: 0.0,
            max_turnaround_time: 0,
            max_waiting_time: 0,
            mean_slowdown: 0.0,
            mean_turnaround_time: 0.0,
            mean_waiting_time: 0.0,
            nb_computing_machines: machines,
            nb_jobs: rows.len(),
            nb_jobs_finished: 0,
            nb_jobs_killed: 0,
            nb_jobs_rejected: 0,
            nb_jobs_success: 0,
            scheduling_time: scheduling_time_s,
            zero_time_jobs: 0,
            machine_times: None,
        };
        let (mut wait, mut turnaround, mut slowdown) = (0u128, 0u128, 0.0f64);
        let mut energy = false;
        for j in rows {
            if let Some(e) = j.energy_j {
                energy = true;
                r.consumed_joules += e;
            }
            match j.state {
                FinalState::Rejected => r.nb_jobs_rejected += 1,
                FinalState::CompletedSuccessfully => r.nb_jobs_success += 1,
                FinalState::CompletedWalltimeReached | FinalState::CompletedKilled => {
                    r.nb_jobs_killed += 1
                }
                FinalState::Submitted => {}
            }
            let (Some(s), Some(f)) = (j.start, j.finish) else {
                continue;
            };
            if !j.state.ran() {
                continue;
            }
            r.nb_jobs_finished += 1;
            let w = s.saturating_sub(j.submit);
            let t = f.saturating_sub(j.submit);
            wait += w as u128;
            turnaround += t as u128;
            if f > s {
                let sd = t as f64 / (f - s) as f64;
                slowdown += sd;
                r.max_slowdown = r.max_slowdown.max(sd);
            } else {
                r.zero_time_jobs += 1;
            }
            r.makespan = r.makespan.max(f);
            r.max_waiting_time = r.max_waiting_time.max(w);
            r.max_turnaround_time = r.max_turnaround_time.max(t);
        }
        if !energy {
            r.consumed_joules = -1.0;
        }
        let n = r.nb_jobs_finished;
        if n > 0 {
            r.mean_waiting_time = wait as f64 / 1e6 / n as f64;
            r.mean_turnaround_time = turnaround as f64 / 1e6 / n as f64;
        }
        let stretched = n - r.zero_time_jobs;
        if stretched > 0 {
            r.mean_slowdown = slowdown / stretched as f64;
        }
        r
    }
}

/// Writes the schedule file: the header of [`SCHEDULE_COLUMNS`] and one row.
/// `simulation_time` is the scheduling time: kairos simulates in the scheduler's process.
pub fn write_schedule(out: &mut dyn Write, r: &ScheduleRow) -> std::io::Result<()> {
    write!(out, "{}", SCHEDULE_COLUMNS.join(","))?;
    if r.machine_times.is_some() {
        write!(out, ",{}", MACHINE_COLUMNS.join(","))?;
    }
    writeln!(out)?;
    write!(
        out,
        "{:.6},{},{:.6},{},{},{:.6},{:.6},{:.6},{},{},{},{},{},{},{:.6},{:.6}",
        r.consumed_joules,
        secs(r.makespan),
        r.max_slowdown,
        secs(r.max_turnaround_time),
        secs(r.max_waiting_time),
        r.mean_slowdown,
        r.mean_turnaround_time,
        r.mean_waiting_time,
        r.nb_computing_machines,
        r.nb_jobs,
        r.nb_jobs_finished,
        r.nb_jobs_killed,
        r.nb_jobs_rejected,
        r.nb_jobs_success,
        r.scheduling_time,
        r.scheduling_time,
    )?;
    if let Some(t) = &r.machine_times {
        write!(
            out,
            ",{:.6},{:.6},{:.6}",
            t.computing_s, t.idle_s, t.sleeping_s
        )?;
    }
    writeln!(out)
}

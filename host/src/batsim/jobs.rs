//! Batsim's jobs file: one row per job, the 17 columns in the order Batsim's code writes
//! them ([`JOBS_COLUMNS`]), and the rows of a trace replay ([`replay_rows`]).

use std::io::Write;

use super::workload::{delay_profile, Workload};
use crate::swf::ReplayJob;
use crate::trace::{secs, Placed, TraceResult};

/// The header of the jobs file, in Batsim's order.
pub const JOBS_COLUMNS: [&str; 17] = [
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
];

/// How a job ended, with Batsim's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalState {
    /// It ran to its end within its requested time.
    CompletedSuccessfully,
    /// It was stopped at its requested time (its log's run time was longer).
    CompletedWalltimeReached,
    /// It was running when the run stopped (an ESSC day's horizon).
    CompletedKilled,
    /// It never ran: dropped (it could no longer earn the dropping threshold).
    Rejected,
    /// It was still waiting (or reserved for later) when the run stopped.
    Submitted,
}

impl FinalState {
    /// Batsim's name.
    pub fn name(self) -> &'static str {
        match self {
            FinalState::CompletedSuccessfully => "COMPLETED_SUCCESSFULLY",
            FinalState::CompletedWalltimeReached => "COMPLETED_WALLTIME_REACHED",
            FinalState::CompletedKilled => "COMPLETED_KILLED",
            FinalState::Rejected => "REJECTED",
            FinalState::Submitted => "SUBMITTED",
        }
    }

    /// Whether it ran (and so has a start, a finish and resources).
    pub fn ran(self) -> bool {
        matches!(
            self,
            FinalState::CompletedSuccessfully
                | FinalState::CompletedWalltimeReached
                | FinalState::CompletedKilled
        )
    }
}

/// One row of the jobs file; times in microseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct BatsimJob {
    /// The job's id within its workload.
    pub job_id: String,
    /// The workload's name.
    pub workload_name: String,
    /// The profile's name.
    pub profile: String,
    /// Submit time.
    pub submit: u64,
    /// Resources (processors, or nodes for ESSC) requested.
    pub resources: u32,
    /// Requested time (walltime).
    pub requested_time: u64,
    /// How it ended.
    pub state: FinalState,
    /// Start, if it ran.
    pub start: Option<u64>,
    /// Finish, if it ran (for [`FinalState::CompletedKilled`], when the run stopped).
    pub finish: Option<u64>,
    /// Global ids of the resources it ran on, ascending.
    pub nodes: Vec<u32>,
    /// Energy, joules, if power is modelled.
    pub energy_j: Option<f64>,
    /// What Batsim has no column for, as `key=value` pairs separated by spaces.
    pub metadata: String,
}

/// Node ids as an interval set, Batsim's and evalys's form: ascending ids, runs of
/// consecutive ids as `a-b`, separated by spaces (`0-3 7`); empty for none. Ids need not
/// come sorted or unique.
pub fn interval_set(ids: &[u32]) -> String {
    let mut v = ids.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out = String::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        if i == j {
            out.push_str(&v[i].to_string());
        } else {
            out.push_str(&format!("{}-{}", v[i], v[j]));
        }
        i = j + 1;
    }
    out
}

/// A CSV field: quoted when it holds a comma, a quote or a line break, or always with
/// `force` (Batsim quotes `metadata` always).
fn field(s: &str, force: bool) -> String {
    if force || s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A ratio with six decimals (`inf` when the denominator is zero, as Batsim's division).
fn ratio(num: u64, den: u64) -> String {
    if den == 0 {
        "inf".to_string()
    } else {
        format!("{:.6}", num as f64 / den as f64)
    }
}

/// Writes the jobs file: the header of [`JOBS_COLUMNS`], then one line per row in the order
/// given. A job that did not run has `-1` for its times and stretch and no resources; energy
/// is `-1` where none is modelled.
pub fn write_jobs(out: &mut dyn Write, rows: &[BatsimJob]) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "{}", JOBS_COLUMNS.join(","))?;
    for r in rows {
        let (start, exec, finish, wait, turnaround, stretch) = match (r.start, r.finish) {
            (Some(s), Some(f)) if r.state.ran() => (
                secs(s),
                secs(f - s),
                secs(f),
                secs(s.saturating_sub(r.submit)),
                secs(f.saturating_sub(r.submit)),
                ratio(f.saturating_sub(r.submit), f - s),
            ),
            _ => {
                let m = "-1".to_string();
                (m.clone(), m.clone(), m.clone(), m.clone(), m.clone(), m)
            }
        };
        let energy = r.energy_j.map_or("-1".to_string(), |e| format!("{e:.6}"));
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&r.job_id, false),
            field(&r.workload_name, false),
            field(&r.profile, false),
            secs(r.submit),
            r.resources,
            secs(r.requested_time),
            u8::from(r.state == FinalState::CompletedSuccessfully),
            r.state.name(),
            start,
            exec,
            finish,
            wait,
            turnaround,
            stretch,
            interval_set(&r.nodes),
            energy,
            field(&r.metadata, true),
        )?;
    }
    w.flush()
}

/// The rows of a replay, one per job in the order of `jobs` (the jobs replayed): the
/// records of `result` with the nodes of `placed`, the dropped jobs as
/// [`FinalState::Rejected`] and the unfinished ones (never started) as
/// [`FinalState::Submitted`]. Ids and profiles come from `workload` when the jobs were read
/// from a Batsim workload (their `line` is their 1-based position in it), else the SWF job
/// number and a `delay` profile named for the run time. `workload_name` names the log.
pub fn replay_rows(
    jobs: &[ReplayJob],
    result: &TraceResult,
    placed: &Placed,
    workload: Option<&Workload>,
    workload_name: &str,
) -> Vec<BatsimJob> {
    let mut dropped = vec![false; jobs.len()];
    for &i in &placed.dropped {
        if let Some(d) = dropped.get_mut(i) {
            *d = true;
        }
    }
    let mut unfinished = vec![false; jobs.len()];
    for &i in &placed.unfinished {
        if let Some(u) = unfinished.get_mut(i) {
            *u = true;
        }
    }
    let names = |j: &ReplayJob| match workload.and_then(|w| w.jobs.get(j.line.wrapping_sub(1))) {
        Some(wj) => (wj.id.clone(), wj.profile.clone()),
        None => (j.id.to_string(), delay_profile(j.runtime)),
    };
    let mut records = result.jobs.iter().zip(&placed.nodes);
    let mut rows = Vec::with_capacity(jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        let (job_id, profile) = names(j);
        let mut row = BatsimJob {
            job_id,
            workload_name: workload_name.to_string(),
            profile,
            submit: j.submit,
            resources: j.procs,
            requested_time: j.request,
            state: FinalState::Rejected,
            start: None,
            finish: None,
            nodes: Vec::new(),
            energy_j: None,
            metadata: String::new(),
        };
        if dropped[i] {
            row.metadata = "dropped".to_string();
        } else if unfinished[i] {
            // Submitted, never started: an energy budget spent before the day's end.
            row.state = FinalState::Submitted;
            row.metadata = "unfinished".to_string();
        } else if let Some((rec, nodes)) = records.next() {
            row.state = if j.runtime > j.request {
                FinalState::CompletedWalltimeReached
            } else {
                FinalState::CompletedSuccessfully
            };
            row.start = Some(rec.start);
            row.finish = Some(rec.end);
            row.nodes = nodes.clone();
        }
        rows.push(row);
    }
    rows
}

//! Batsim workload JSON: read as a replay input ([`read_workload`]) and written as an
//! export ([`write_workload`]). The part kairos models: `nb_res`, and `jobs` with `id`,
//! `subtime`, `walltime`, `res` and `profile`, whose profiles are of type `delay` (a job
//! that runs `delay` seconds). Other profile types (parallel tasks, SMPI traces) model
//! communication kairos does not, and are refused by name.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use crate::swf::ReplayJob;
use crate::trace::{secs, LoadedTrace};

/// A Batsim workload, as far as kairos reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// The file, as given.
    pub file: String,
    /// Resources of the platform (`nb_res`).
    pub nb_res: u32,
    /// The jobs, in the file's order.
    pub jobs: Vec<WorkloadJob>,
}

/// One job of a workload; times in microseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadJob {
    /// Its id, as written (a number or a string).
    pub id: String,
    /// Submit time.
    pub subtime: u64,
    /// Requested time; `None` when absent or negative (no walltime).
    pub walltime: Option<u64>,
    /// Resources.
    pub res: u32,
    /// Its profile's name.
    pub profile: String,
    /// Its profile's run time (`delay`).
    pub delay: u64,
}

/// The name of the `delay` profile of a run time (`delay_3600`, `delay_12.5`): jobs of one
/// run time share a profile, as Batsim's SWF converters do.
pub fn delay_profile(runtime_us: u64) -> String {
    let s = secs(runtime_us);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("delay_{s}")
}

/// Seconds (a JSON number, finite and >= 0) as microseconds.
fn micros(v: &Value, what: &str) -> anyhow::Result<u64> {
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 && x * 1e6 < u64::MAX as f64 => {
            Ok(libm::round(x * 1e6) as u64)
        }
        _ => bail!("{what} is {v}: expected a number of seconds at least 0"),
    }
}

/// Reads the Batsim workload at `path`. Errors name the file, the job (position and id) and
/// the field.
pub fn read_workload(path: &Path) -> anyhow::Result<Workload> {
    let file = path.display().to_string();
    let text =
        crate::bounded::read_to_string(path, crate::bounded::WORKLOAD_BYTES, "Batsim workload")
            .with_context(|| format!("{file}: cannot read"))?;
    parse_workload(&text, file)
}

/// Reads a Batsim workload from `text`, the contents of `file` (named in errors).
pub fn parse_workload(text: &str, file: String) -> anyhow::Result<Workload> {
    let root: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .with_context(|| format!("{file}: not valid JSON"))?;
    let nb_res = match root.get("nb_res").and_then(Value::as_u64) {
        Some(n) if (1..=u32::MAX as u64).contains(&n) => n as u32,
        Some(_) | None => bail!(
            "{file}: `nb_res` is {}: a Batsim workload needs the platform's resource count, \
             a whole number at least 1",
            root.get("nb_res")
                .map_or("missing".to_string(), Value::to_string)
        ),
    };
    let profiles = root
        .get("profiles")
        .and_then(Value::as_object)
        .with_context(|| format!("{file}: `profiles` is missing or not an object"))?;
    let list = root
        .get("jobs")
        .and_then(Value::as_array)
        .with_context(|| format!("{file}: `jobs` is missing or not a list"))?;
    let mut jobs = Vec::with_capacity(list.len());
    // The jobs read told to the command's progress: 200,000 of them take seconds.
    crate::progress::expect(list.len() as u64);
    for (i, j) in list.iter().enumerate() {
        crate::progress::tick(1);
        let id = match j.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => bail!("{file}: jobs[{i}]: `id` is missing (a number or a string)"),
        };
        let at = || format!("{file}: jobs[{i}] (id {id})");
        let field = |k: &str| {
            j.get(k)
                .with_context(|| format!("{}: `{k}` is missing", at()))
        };
        let subtime = micros(field("subtime")?, "`subtime`").with_context(at)?;
        let walltime = match j.get("walltime") {
            None | Some(Value::Null) => None,
            Some(v) if v.as_f64().is_some_and(|x| x < 0.0) => None,
            Some(v) => Some(micros(v, "`walltime`").with_context(at)?),
        };
        let res = match field("res")?.as_u64() {
            Some(n) if (1..=u32::MAX as u64).contains(&n) => n as u32,
            _ => bail!(
                "{}: `res` is {}: expected a whole number at least 1",
                at(),
                j["res"]
            ),
        };
        if res > nb_res {
            bail!(
                "{}: `res` is {res} but the platform has nb_res = {nb_res} resources",
                at()
            );
        }
        let profile = match field("profile")? {
            Value::String(s) => s.clone(),
            v => bail!("{}: `profile` is {v}: expected a profile's name", at()),
        };
        let p = profiles
            .get(&profile)
            .with_context(|| format!("{}: profile {profile:?} is not in `profiles`", at()))?;
        match p.get("type").and_then(Value::as_str) {
            Some("delay") => {}
            t => bail!(
                "{}: profile {profile:?} is of type {}: kairos replays only `delay` profiles \
                 (a job that runs a fixed time)",
                at(),
                t.unwrap_or("(none)")
            ),
        }
        let delay = micros(
            p.get("delay")
                .with_context(|| format!("{}: profile {profile:?}: `delay` is missing", at()))?,
            "`delay`",
        )
        .with_context(|| format!("{}: profile {profile:?}", at()))?;
        jobs.push(WorkloadJob {
            id,
            subtime,
            walltime,
            res,
            profile,
            delay,
        });
    }
    if jobs.is_empty() {
        bail!("{file}: the workload has no jobs");
    }
    Ok(Workload { file, nb_res, jobs })
}

impl Workload {
    /// The jobs as replay jobs, in the file's order: `line` is the 1-based position in
    /// `jobs`, `id` the job's id when it is a number (else that position), the request the
    /// walltime (the run time when there is none). Run times above the walltime end at it.
    pub fn replay_jobs(&self) -> Vec<ReplayJob> {
        self.jobs
            .iter()
            .enumerate()
            .map(|(i, j)| ReplayJob {
                id: j.id.parse().unwrap_or(i as u64 + 1),
                submit: j.subtime,
                runtime: j.delay,
                request: j.walltime.unwrap_or(j.delay),
                procs: j.res,
                line: i + 1,
            })
            .collect()
    }

    /// The workload as a loaded trace on `procs` resources (default `nb_res`), jobs sorted
    /// by submit time (ties in file order).
    pub fn loaded(&self, procs: Option<u32>) -> anyhow::Result<LoadedTrace> {
        let procs = procs.unwrap_or(self.nb_res);
        let mut jobs = self.replay_jobs();
        if let Some(j) = jobs.iter().find(|j| j.procs > procs) {
            bail!(
                "{}: jobs[{}] (id {}) needs {} resources but the machine has {procs}",
                self.file,
                j.line - 1,
                self.jobs[j.line - 1].id,
                j.procs
            );
        }
        if let Some(j) = jobs.iter().find(|j| j.runtime == 0 || j.request == 0) {
            bail!(
                "{}: jobs[{}] (id {}): a run time and walltime of 0 cannot be replayed",
                self.file,
                j.line - 1,
                self.jobs[j.line - 1].id
            );
        }
        jobs.sort_by_key(|j| (j.submit, j.line));
        Ok(LoadedTrace {
            file: self.file.clone(),
            procs,
            jobs,
            skipped_bad_lines: 0,
            clean: None,
            // Counted as an SWF log's are (`order.rs`); the jobs are sorted above either way.
            order: super::WorkloadOrder::of(self).as_report(self),
        })
    }
}

/// Seconds as a JSON number: whole seconds as integers, others with the microseconds.
fn seconds(us: u64) -> Value {
    if us.is_multiple_of(1_000_000) {
        json!(us / 1_000_000)
    } else {
        json!(us as f64 / 1e6)
    }
}

/// Writes a Batsim workload: `nb_res`, the jobs (`walltime` -1 where there is none) and one
/// `delay` profile per distinct profile name. `description` goes in a top-level
/// `description` key (Batsim ignores keys it does not know).
pub fn write_workload(
    out: &mut dyn Write,
    nb_res: u32,
    jobs: &[WorkloadJob],
    description: &str,
) -> anyhow::Result<()> {
    let mut profiles = BTreeMap::new();
    let list: Vec<Value> = jobs
        .iter()
        .map(|j| {
            profiles.insert(
                j.profile.clone(),
                json!({"type": "delay", "delay": seconds(j.delay)}),
            );
            json!({
                "id": j.id.parse::<u64>().map_or(json!(j.id), |n| json!(n)),
                "subtime": seconds(j.subtime),
                "walltime": j.walltime.map_or(json!(-1), seconds),
                "res": j.res,
                "profile": j.profile,
            })
        })
        .collect();
    let root = json!({
        "description": description,
        "nb_res": nb_res,
        "jobs": list,
        "profiles": profiles,
    });
    serde_json::to_writer_pretty(&mut *out, &root)?;
    writeln!(out)?;
    Ok(())
}

//! What Slurm says, read from `squeue --json` and `sinfo --json`: the jobs and the nodes, as
//! the fields kairos needs. A field missing or of the wrong type is an error naming the
//! command, the job or node, and the field; never a panic, never a job silently skipped.
//!
//! Slurm 22.05 writes plain numbers and strings; later versions write a number as
//! `{"set": true, "infinite": false, "number": N}` and a state as a list of flags. Both are
//! read.

use serde_json::Value;

use super::hostlist;

/// A job's state, reduced to what kairos acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobState {
    /// Waiting (held or not).
    Pending,
    /// Running, or being set up or torn down around a run.
    Running,
    /// Over: completed, cancelled, failed, timed out, ...
    Finished,
}

/// One job of `squeue --json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmJob {
    /// The job id.
    pub id: u64,
    /// Its state.
    pub state: JobState,
    /// Slurm's state word (`PENDING`, `COMPLETED`, ...), for messages.
    pub state_name: String,
    /// Why it waits (`JobHeldUser`, `JobHeldAdmin`, `Resources`, ...).
    pub reason: String,
    /// Its priority: 0 while held.
    pub priority: u64,
    /// Nodes asked for.
    pub nodes: u32,
    /// The time limit, seconds (`None`: none).
    pub limit_s: Option<u64>,
    /// Submitted, Unix seconds.
    pub submit: u64,
    /// Started, Unix seconds (0: not yet).
    pub start: u64,
    /// Ended (or will end at its limit), Unix seconds (0: not known).
    pub end: u64,
    /// Its comment (kairos's hints, `kairos: class=... watts=... estimate=...`).
    pub comment: String,
    /// Its partition.
    pub partition: String,
    /// Its QOS.
    pub qos: String,
    /// The nodes it runs on, expanded (empty while pending).
    pub node_list: Vec<String>,
    /// Part of a job array (kairos schedules single jobs).
    pub array: bool,
}

impl SlurmJob {
    /// Whether it is held (waiting for kairos).
    pub fn held(&self) -> bool {
        self.state == JobState::Pending
            && (self.priority == 0 || self.reason.starts_with("JobHeld"))
    }
}

/// One node of `sinfo --json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmNode {
    /// Its name.
    pub name: String,
    /// Its state words and flags, lower case, joined by `+` (`idle`, `idle+drain`,
    /// `allocated+drain`, `down`, ...).
    pub state: String,
    /// The partitions it is in.
    pub partitions: Vec<String>,
}

impl SlurmNode {
    /// Whether Slurm will not start jobs on it (down, drained, failing, ...).
    pub fn unavailable(&self) -> bool {
        [
            "down",
            "drain",
            "fail",
            "maint",
            "not_responding",
            "future",
            "unknown",
        ]
        .iter()
        .any(|w| self.state.contains(w))
    }
}

/// A bad answer from Slurm.
fn bad(command: &str, what: &str, field: &str, why: &str) -> String {
    format!("{command}: {what}: field {field:?} {why}")
}

/// A number field: a plain number, or `{"set": .., "infinite": .., "number": N}` (`None`
/// when unset or infinite).
fn number(v: &Value, command: &str, what: &str, field: &str) -> Result<Option<u64>, String> {
    match v.get(field) {
        None => Err(bad(command, what, field, "is missing")),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(x) => Ok(Some(x)),
            None => match n.as_i64() {
                // Slurm writes -1 or similar for "none" in places.
                Some(x) if x < 0 => Ok(None),
                _ => n
                    .as_f64()
                    .filter(|f| f.is_finite() && *f >= 0.0)
                    .map(|f| Some(f as u64))
                    .ok_or_else(|| bad(command, what, field, "is not a number")),
            },
        },
        Some(Value::Object(o)) => {
            let set = o.get("set").and_then(Value::as_bool).unwrap_or(true);
            let inf = o.get("infinite").and_then(Value::as_bool).unwrap_or(false);
            if !set || inf {
                return Ok(None);
            }
            o.get("number")
                .and_then(Value::as_u64)
                .map(Some)
                .ok_or_else(|| bad(command, what, field, "has no number"))
        }
        Some(Value::Null) => Ok(None),
        Some(_) => Err(bad(command, what, field, "is not a number")),
    }
}

/// A string field (a missing one is an error; null is empty).
fn string(v: &Value, command: &str, what: &str, field: &str) -> Result<String, String> {
    match v.get(field) {
        None => Err(bad(command, what, field, "is missing")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Null) => Ok(String::new()),
        Some(_) => Err(bad(command, what, field, "is not a string")),
    }
}

/// A state field: a word, or a list of words (joined with `+`, as squeue prints them).
fn state_words(v: &Value, command: &str, what: &str, field: &str) -> Result<String, String> {
    match v.get(field) {
        None => Err(bad(command, what, field, "is missing")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| bad(command, what, field, "holds a non-string"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|w| w.join("+")),
        Some(_) => Err(bad(command, what, field, "is not a state")),
    }
}

/// Parses `squeue --json`'s output (`command` names it in errors).
pub fn parse_jobs(text: &str, command: &str) -> Result<Vec<SlurmJob>, String> {
    let root: Value =
        serde_json::from_str(text).map_err(|e| format!("{command}: not JSON: {e}"))?;
    let jobs = root
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{command}: no \"jobs\" list"))?;
    let mut out = Vec::with_capacity(jobs.len());
    for (k, j) in jobs.iter().enumerate() {
        let id = number(j, command, &format!("job #{k}"), "job_id")?
            .ok_or_else(|| bad(command, &format!("job #{k}"), "job_id", "is not set"))?;
        let what = format!("job {id}");
        let what = what.as_str();
        let state_name = state_words(j, command, what, "job_state")?;
        let first = state_name
            .split('+')
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        let state = match first.as_str() {
            "PENDING" | "REQUEUED" | "REQUEUE_HOLD" | "REQUEUE_FED" | "SUSPENDED" => {
                JobState::Pending
            }
            "RUNNING" | "CONFIGURING" | "COMPLETING" | "STAGE_OUT" | "SIGNALING" | "RESIZING" => {
                JobState::Running
            }
            "COMPLETED" | "CANCELLED" | "FAILED" | "TIMEOUT" | "NODE_FAIL" | "PREEMPTED"
            | "BOOT_FAIL" | "DEADLINE" | "OUT_OF_MEMORY" | "SPECIAL_EXIT" | "REVOKED" => {
                JobState::Finished
            }
            _ => {
                return Err(bad(
                    command,
                    what,
                    "job_state",
                    &format!("is {state_name:?}"),
                ))
            }
        };
        let nodes = number(j, command, what, "node_count")?.unwrap_or(1);
        let nodes =
            u32::try_from(nodes).map_err(|_| bad(command, what, "node_count", "is too large"))?;
        let node_list = hostlist::expand(&string(j, command, what, "nodes")?)
            .map_err(|e| bad(command, what, "nodes", &e))?;
        let array = match j.get("array_task_id") {
            Some(Value::Number(n)) => n.as_i64().is_some_and(|x| x >= 0),
            Some(Value::Object(_)) => number(j, command, what, "array_task_id")?.is_some(),
            _ => false,
        } || j
            .get("array_task_string")
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty());
        out.push(SlurmJob {
            id,
            state,
            state_name,
            reason: string(j, command, what, "state_reason")?,
            priority: number(j, command, what, "priority")?.unwrap_or(0),
            nodes,
            limit_s: number(j, command, what, "time_limit")?.map(|m| m.saturating_mul(60)),
            submit: number(j, command, what, "submit_time")?.unwrap_or(0),
            start: number(j, command, what, "start_time")?.unwrap_or(0),
            end: number(j, command, what, "end_time")?.unwrap_or(0),
            comment: string(j, command, what, "comment")?,
            partition: string(j, command, what, "partition")?,
            qos: string(j, command, what, "qos")?,
            node_list,
            array,
        });
    }
    Ok(out)
}

/// Parses `sinfo --json`'s output (`command` names it in errors). A node in several
/// partitions is listed once.
pub fn parse_nodes(text: &str, command: &str) -> Result<Vec<SlurmNode>, String> {
    let root: Value =
        serde_json::from_str(text).map_err(|e| format!("{command}: not JSON: {e}"))?;
    let nodes = root
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{command}: no \"nodes\" list"))?;
    let mut out: Vec<SlurmNode> = Vec::with_capacity(nodes.len());
    for (k, n) in nodes.iter().enumerate() {
        let name = string(n, command, &format!("node #{k}"), "name")?;
        let what = format!("node {name}");
        let mut state = state_words(n, command, &what, "state")?.to_ascii_lowercase();
        // Slurm 22.05 keeps DRAIN, NOT_RESPONDING and the like apart from the base state
        // (`"state": "idle", "state_flags": ["DRAIN"]`); later versions list them in `state`.
        if n.get("state_flags").is_some_and(|f| !f.is_null()) {
            let flags = state_words(n, command, &what, "state_flags")?.to_ascii_lowercase();
            if !flags.is_empty() {
                state = format!("{state}+{flags}");
            }
        }
        let partitions = match n.get("partitions") {
            Some(Value::Array(a)) => a
                .iter()
                .map(|p| {
                    p.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(command, &what, "partitions", "holds a non-string"))
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(Value::String(s)) => s.split(',').map(str::to_string).collect(),
            Some(Value::Null) => Vec::new(),
            None => return Err(bad(command, &what, "partitions", "is missing")),
            Some(_) => return Err(bad(command, &what, "partitions", "is not a list")),
        };
        if let Some(seen) = out.iter_mut().find(|s| s.name == name) {
            for p in partitions {
                if !seen.partitions.contains(&p) {
                    seen.partitions.push(p);
                }
            }
            continue;
        }
        out.push(SlurmNode {
            name,
            state,
            partitions,
        });
    }
    Ok(out)
}

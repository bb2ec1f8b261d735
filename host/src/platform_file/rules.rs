//! Which jobs a partition accepts ([`Accepts`]): by the SWF queue (field 15) and partition
//! (field 16) numbers, by a field of the Batsim job, or by a rule on the job's size and
//! request; and the job fields the rules read ([`JobTags`]), gathered once per log.
//!
//! Every condition given must hold (and); a list of values is any of them (or). A partition
//! with no `[partitions.jobs]` table accepts every job. A job that fits no partition is an
//! error naming the log's line and the platform file (`machine.rs`).

use std::collections::HashMap;

use serde::Deserialize;

use crate::swf::ReplayJob;
use crate::toml_file::Checker;

/// `[partitions.jobs]` as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JobsSpec {
    #[serde(default)]
    swf_queues: Option<Vec<u32>>,
    #[serde(default)]
    swf_partitions: Option<Vec<u32>>,
    #[serde(default)]
    batsim_field: Option<String>,
    #[serde(default)]
    batsim_values: Option<Vec<String>>,
    #[serde(default)]
    procs: Option<Vec<u32>>,
    #[serde(default)]
    request_s: Option<Vec<f64>>,
}

impl JobsSpec {
    /// Checks the table at `key` and resolves it.
    pub(super) fn check(&self, c: &mut Checker<'_>, key: &str) -> Accepts {
        if self.batsim_field.is_some() != self.batsim_values.is_some() {
            c.fail(
                &format!("{key}.batsim_field"),
                format_args!("{:?}", self.batsim_field),
                "batsim_field and batsim_values go together: the job field and its accepted \
                 values",
            );
        }
        for (k, l) in [
            ("swf_queues", &self.swf_queues),
            ("swf_partitions", &self.swf_partitions),
        ] {
            if l.as_ref().is_some_and(|l| l.is_empty()) {
                c.fail(&format!("{key}.{k}"), "[]", "must list at least one number");
            }
        }
        let procs = match self.procs.as_deref() {
            Some(&[a, b]) => {
                c.int_range(&format!("{key}.procs"), [a, b], 1, u32::MAX as u64);
                Some([a, b])
            }
            Some(other) => {
                c.fail(
                    &format!("{key}.procs"),
                    format_args!("{other:?}"),
                    "must be [least, most] processors",
                );
                None
            }
            None => None,
        };
        let request_s = match self.request_s.as_deref() {
            Some(&[a, b]) => {
                c.float_range(&format!("{key}.request_s"), [a, b], 0.0, 1e12);
                Some([a, b])
            }
            Some(other) => {
                c.fail(
                    &format!("{key}.request_s"),
                    format_args!("{other:?}"),
                    "must be [shortest, longest] requested seconds",
                );
                None
            }
            None => None,
        };
        Accepts {
            swf_queues: self.swf_queues.clone(),
            swf_partitions: self.swf_partitions.clone(),
            batsim: self.batsim_field.clone().zip(self.batsim_values.clone()),
            procs,
            request_us: request_s
                .map(|[a, b]| [libm::round(a * 1e6) as u64, libm::round(b * 1e6) as u64]),
        }
    }
}

/// The jobs a partition accepts; `None` conditions accept every job.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Accepts {
    /// SWF queue numbers (field 15).
    pub swf_queues: Option<Vec<u32>>,
    /// SWF partition numbers (field 16).
    pub swf_partitions: Option<Vec<u32>>,
    /// A Batsim job field and the values accepted (compared as text).
    pub batsim: Option<(String, Vec<String>)>,
    /// Processors, inclusive range.
    pub procs: Option<[u32; 2]>,
    /// Requested time, inclusive range, microseconds.
    pub request_us: Option<[u64; 2]>,
}

impl Accepts {
    /// Whether it accepts every job.
    pub fn is_any(&self) -> bool {
        *self == Accepts::default()
    }

    /// Whether it reads the jobs' SWF queue or partition fields.
    pub fn reads_swf(&self) -> bool {
        self.swf_queues.is_some() || self.swf_partitions.is_some()
    }

    /// Whether `job` (with `tag`, its fields the rules read) is accepted. A job without the
    /// field a rule reads (`-1` in SWF, absent in Batsim) is not.
    pub fn accepts(&self, job: &ReplayJob, tag: Option<&JobTag>) -> bool {
        if let Some([lo, hi]) = self.procs {
            if job.procs < lo || job.procs > hi {
                return false;
            }
        }
        if let Some([lo, hi]) = self.request_us {
            if job.request < lo || job.request > hi {
                return false;
            }
        }
        if let Some(q) = &self.swf_queues {
            if !tag.and_then(|t| t.queue).is_some_and(|x| q.contains(&x)) {
                return false;
            }
        }
        if let Some(p) = &self.swf_partitions {
            if !tag
                .and_then(|t| t.partition)
                .is_some_and(|x| p.contains(&x))
            {
                return false;
            }
        }
        if let Some((field, values)) = &self.batsim {
            let v = tag.and_then(|t| t.fields.get(field));
            if !v.is_some_and(|v| values.contains(v)) {
                return false;
            }
        }
        true
    }

    /// The rule as text, for errors.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(q) = &self.swf_queues {
            parts.push(format!("swf_queues = {q:?}"));
        }
        if let Some(p) = &self.swf_partitions {
            parts.push(format!("swf_partitions = {p:?}"));
        }
        if let Some((f, v)) = &self.batsim {
            parts.push(format!("batsim_field {f:?} in {v:?}"));
        }
        if let Some([a, b]) = self.procs {
            parts.push(format!("procs in [{a}, {b}]"));
        }
        if let Some([a, b]) = self.request_us {
            parts.push(format!(
                "request_s in [{}, {}]",
                a as f64 / 1e6,
                b as f64 / 1e6
            ));
        }
        if parts.is_empty() {
            "every job".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// The fields of one job that rules read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobTag {
    /// SWF queue number (field 15; `None` for `-1`).
    pub queue: Option<u32>,
    /// SWF partition number (field 16; `None` for `-1`).
    pub partition: Option<u32>,
    /// Batsim job fields, as text (strings unquoted, numbers as written).
    pub fields: HashMap<String, String>,
}

/// The tags of a log's jobs, by the job's line (SWF: its 1-based line; Batsim: its 1-based
/// position in `jobs`, as [`ReplayJob::line`] numbers it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobTags {
    by_line: HashMap<usize, JobTag>,
}

impl JobTags {
    /// The tag of the job on `line`.
    pub fn get(&self, line: usize) -> Option<&JobTag> {
        self.by_line.get(&line)
    }

    /// Adds the tag of the job on `line`.
    pub fn insert(&mut self, line: usize, tag: JobTag) {
        self.by_line.insert(line, tag);
    }

    /// The tags `platform`'s rules read of the log at `path` (a Batsim workload when `json`,
    /// else SWF): none when no rule reads a job field; a rule on the other format's fields
    /// is an error naming both files.
    pub fn for_log(
        platform: &super::PlatformFile,
        path: &std::path::Path,
        json: bool,
        skip_bad_lines: bool,
    ) -> anyhow::Result<JobTags> {
        let parts = &platform.partitions;
        let fields: Vec<String> = parts
            .iter()
            .filter_map(|p| p.accepts.batsim.as_ref().map(|b| b.0.clone()))
            .collect();
        let swf = parts.iter().any(|p| p.accepts.reads_swf());
        let log = path.display();
        match (json, swf, fields.is_empty()) {
            (true, true, _) => anyhow::bail!(
                "{}: its partitions' rules read SWF queues or partitions, but {log} is a \
                 Batsim workload: use batsim_field rules",
                platform.file
            ),
            (false, _, false) => anyhow::bail!(
                "{}: its partitions' rules read Batsim job fields, but {log} is an SWF log: \
                 use swf_queues or swf_partitions rules",
                platform.file
            ),
            (false, true, _) => JobTags::of_swf(path, skip_bad_lines),
            (true, _, false) => {
                use anyhow::Context;
                let text = crate::bounded::read_to_string(
                    path,
                    crate::bounded::WORKLOAD_BYTES,
                    "Batsim workload",
                )
                .with_context(|| format!("{log}: cannot read"))?;
                JobTags::of_batsim(&text, &fields).with_context(|| format!("{log}: not valid JSON"))
            }
            _ => Ok(JobTags::default()),
        }
    }

    /// The SWF queue and partition of every job line of the log at `path` (read with the
    /// batch reader; bad lines skipped as `skip_bad_lines` says, as the replay's load does).
    pub fn of_swf(path: &std::path::Path, skip_bad_lines: bool) -> anyhow::Result<JobTags> {
        let log = crate::swf::read(path, &crate::swf::ReadOptions { skip_bad_lines })?;
        let mut tags = JobTags::default();
        for j in &log.jobs {
            tags.insert(
                j.line,
                JobTag {
                    queue: j.queue,
                    partition: j.partition,
                    fields: HashMap::new(),
                },
            );
        }
        Ok(tags)
    }

    /// The `fields` of every job of the Batsim workload JSON `text` (strings unquoted).
    pub fn of_batsim(text: &str, fields: &[String]) -> anyhow::Result<JobTags> {
        let root: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))?;
        let mut tags = JobTags::default();
        if let Some(list) = root.get("jobs").and_then(|j| j.as_array()) {
            for (i, j) in list.iter().enumerate() {
                let mut tag = JobTag::default();
                for f in fields {
                    if let Some(v) = j.get(f) {
                        let text = match v {
                            serde_json::Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        tag.fields.insert(f.clone(), text);
                    }
                }
                tags.insert(i + 1, tag);
            }
        }
        Ok(tags)
    }
}

//! kairos's TOML platform format and every check on it (docs/formats.md, "Platform files").
//!
//! ```toml
//! name = "two-speeds"
//! pstates = [{ time = 1.0, power = 1.0 }, { time = 1.25, power = 0.6 }]  # default for all
//!
//! [[partitions]]
//! name = "fast"
//! nodes = 50
//! cores_per_node = 1
//! speed = 2.0            # relative to the speed the log's run times were measured at
//! busy_watts = 250.0     # a node running a job at P-state 0; x each P-state's power factor
//! idle_watts = 60.0
//! sleep_watts = 9.75
//! off_watts = 5.0
//! [partitions.jobs]      # which jobs it accepts (all, when absent)
//! procs = [1, 64]
//! ```
//!
//! A P-state is given by factors (`time`, `power`: over P-state 0 of the partition) or
//! absolutely (`speed`, `watts`: the relative speed and busy watts in that state); one list
//! uses one form. Parsing denies unknown keys (the toml crate's message, with the line);
//! then every value is checked, each failure naming the file, the line and the dotted key.

use serde::Deserialize;

use super::rules::{Accepts, JobsSpec};
use super::{Format, PStateSpec, Partition, PartitionKind, PlatformError, PlatformFile};
use crate::toml_file::{self, Checker};
use kairos_core::limits::{MAX_CLUSTERS, MAX_PSTATES};

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    name: String,
    /// P-states of every partition that lists none.
    #[serde(default)]
    pstates: Option<Vec<PStateEntry>>,
    partitions: Vec<PartitionSpec>,
}

/// One partition as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartitionSpec {
    name: String,
    #[serde(default = "general")]
    kind: PartitionKind,
    nodes: u32,
    #[serde(default = "one")]
    cores_per_node: u32,
    #[serde(default = "unit")]
    speed: f64,
    #[serde(default)]
    busy_watts: f64,
    #[serde(default)]
    idle_watts: f64,
    #[serde(default)]
    sleep_watts: Option<f64>,
    #[serde(default)]
    off_watts: Option<f64>,
    #[serde(default)]
    pstates: Option<Vec<PStateEntry>>,
    #[serde(default)]
    jobs: Option<JobsSpec>,
}

/// One P-state as written: factors or absolute values.
#[derive(Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct PStateEntry {
    time: Option<f64>,
    power: Option<f64>,
    speed: Option<f64>,
    watts: Option<f64>,
}

fn general() -> PartitionKind {
    PartitionKind::General
}
fn one() -> u32 {
    1
}
fn unit() -> f64 {
    1.0
}

/// Parses and checks the TOML platform `text` of `file`.
pub(super) fn parse(text: &str, file: &str) -> Result<PlatformFile, PlatformError> {
    let spec: FileSpec = toml_file::parse(text, file)?;
    let mut c = Checker::new(file, text);
    let partitions = check(&spec, &mut c);
    c.finish()?;
    Ok(PlatformFile {
        file: file.to_string(),
        format: Format::Toml,
        name: spec.name,
        partitions,
    })
}

/// Every check; the partitions as resolved (meaningful only when `c` found nothing).
fn check(spec: &FileSpec, c: &mut Checker<'_>) -> Vec<Partition> {
    if spec.name.trim().is_empty() {
        c.fail("name", "\"\"", "must not be empty");
    }
    let n = spec.partitions.len();
    if n == 0 || n > MAX_CLUSTERS {
        c.fail(
            "partitions",
            format_args!("{n} partitions"),
            format_args!("must have between 1 and {MAX_CLUSTERS} partitions"),
        );
    }
    if let Some(list) = &spec.pstates {
        pstate_list(c, "pstates", list);
    }
    let mut out = Vec::with_capacity(n);
    let mut count: Option<(usize, usize)> = None;
    for (i, p) in spec.partitions.iter().enumerate() {
        let key = |k: &str| format!("partitions[{i}].{k}");
        if p.name.trim().is_empty() {
            c.fail(&key("name"), "\"\"", "must not be empty");
        } else if spec.partitions[..i].iter().any(|o| o.name == p.name) {
            c.fail(&key("name"), format_args!("{:?}", p.name), "must be unique");
        }
        c.int(&key("nodes"), p.nodes as u64, 1, 1_000_000);
        c.int(&key("cores_per_node"), p.cores_per_node as u64, 1, 65_536);
        c.float_above(&key("speed"), p.speed, 0.0, 1e6);
        // The core's milliwatts are 32-bit: about 4.29 MW a node.
        let max_w = (u32::MAX / 1000) as f64;
        c.float(&key("busy_watts"), p.busy_watts, 0.0, max_w);
        c.float(&key("idle_watts"), p.idle_watts, 0.0, max_w);
        if let Some(w) = p.sleep_watts {
            c.float(&key("sleep_watts"), w, 0.0, max_w);
        }
        if let Some(w) = p.off_watts {
            c.float(&key("off_watts"), w, 0.0, max_w);
        }
        let (list, list_key) = match (&p.pstates, &spec.pstates) {
            (Some(l), _) => {
                pstate_list(c, &key("pstates"), l);
                (l.clone(), key("pstates"))
            }
            (None, Some(l)) => (l.clone(), "pstates".to_string()),
            (None, None) => (
                vec![PStateEntry {
                    time: Some(1.0),
                    power: Some(1.0),
                    speed: None,
                    watts: None,
                }],
                key("nodes"),
            ),
        };
        // One P-state count for the whole platform: the core's nodes all offer the same.
        match count {
            None => count = Some((i, list.len())),
            Some((first, len)) if len != list.len() => c.fail(
                &list_key,
                format_args!("{} P-states", list.len()),
                format_args!(
                    "must list as many P-states as partitions[{first}] ({len}): every node of \
                     a platform offers the same number"
                ),
            ),
            Some(_) => {}
        }
        let pstates = resolve(p, &list);
        // Absolute P-states carry the partition's speed: P-state 0's.
        let speed = if is_absolute(&list) {
            if p.speed != 1.0 {
                c.fail(
                    &key("speed"),
                    p.speed,
                    "the P-states are given as speeds: the partition's speed is P-state 0's",
                );
            }
            list[0].speed.unwrap_or(1.0)
        } else {
            p.speed
        };
        for (k, s) in pstates.iter().enumerate() {
            if s.busy_watts > max_w {
                c.fail(
                    &format!("{list_key}[{k}]"),
                    s.busy_watts,
                    format_args!("busy watts must be at most {max_w}"),
                );
            }
        }
        let accepts = match &p.jobs {
            Some(j) => j.check(c, &key("jobs")),
            None => Accepts::default(),
        };
        out.push(Partition {
            name: p.name.clone(),
            kind: p.kind,
            nodes: p.nodes,
            cores_per_node: p.cores_per_node,
            speed,
            pstates,
            sleep_watts: p.sleep_watts,
            off_watts: p.off_watts,
            accepts,
            hosts: Vec::new(),
            idle_watts: p.idle_watts,
            pstate_ids: (0..list.len() as u32).collect(),
            initial_pstate: 0,
        });
    }
    out
}

/// Checks a P-state list: its length, one form throughout, every value in range.
fn pstate_list(c: &mut Checker<'_>, key: &str, list: &[PStateEntry]) {
    if list.is_empty() || list.len() > MAX_PSTATES {
        c.fail(
            key,
            format_args!("{} P-states", list.len()),
            format_args!("must have between 1 and {MAX_PSTATES} P-states"),
        );
    }
    let absolute = is_absolute(list);
    for (k, e) in list.iter().enumerate() {
        let at = format!("{key}[{k}]");
        if absolute {
            if e.time.is_some() || e.power.is_some() {
                c.fail(
                    &at,
                    "time/power",
                    "one list gives every P-state as speed and watts, or every one as time \
                     and power factors, not both",
                );
            }
            match (e.speed, e.watts) {
                (Some(s), Some(w)) => {
                    c.float_above(&format!("{at}.speed"), s, 0.0, 1e6);
                    c.float(&format!("{at}.watts"), w, 0.0, 4_294_967.0);
                }
                _ => c.fail(
                    &at,
                    "an absolute P-state",
                    "needs both speed (relative) and watts (busy, per node)",
                ),
            }
        } else {
            if e.speed.is_some() || e.watts.is_some() {
                c.fail(
                    &at,
                    "speed/watts",
                    "one list gives every P-state as speed and watts, or every one as time \
                     and power factors, not both",
                );
            }
            c.float_above(&format!("{at}.time"), e.time.unwrap_or(1.0), 0.0, 1000.0);
            c.float(&format!("{at}.power"), e.power.unwrap_or(1.0), 0.0, 1000.0);
        }
    }
}

/// Whether `list` gives its P-states as speeds and watts.
fn is_absolute(list: &[PStateEntry]) -> bool {
    list.first()
        .is_some_and(|e| e.speed.is_some() || e.watts.is_some())
}

/// The P-states of partition `p` from `list`: factors over P-state 0, busy and idle watts.
fn resolve(p: &PartitionSpec, list: &[PStateEntry]) -> Vec<PStateSpec> {
    if is_absolute(list) {
        let s0 = list[0].speed.unwrap_or(1.0);
        let w0 = list[0].watts.unwrap_or(0.0);
        list.iter()
            .map(|e| {
                let s = e.speed.unwrap_or(1.0);
                let w = e.watts.unwrap_or(0.0);
                PStateSpec {
                    time: if s > 0.0 { s0 / s } else { 1.0 },
                    busy_watts: w,
                    idle_watts: p.idle_watts,
                    power: if w0 > 0.0 { w / w0 } else { 1.0 },
                }
            })
            .collect()
    } else {
        list.iter()
            .map(|e| {
                let power = e.power.unwrap_or(1.0);
                PStateSpec {
                    time: e.time.unwrap_or(1.0),
                    busy_watts: p.busy_watts * power,
                    idle_watts: p.idle_watts,
                    power,
                }
            })
            .collect()
    }
}

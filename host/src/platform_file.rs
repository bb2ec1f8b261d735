//! Platform files: a machine described once and used by `kairos replay --platform FILE` and
//! by scenario files (`[platform] file = ...`). Two formats, told apart by content:
//! kairos's TOML (`toml_format.rs`) and SimGrid/Batsim platform XML (`simgrid.rs`). Both
//! become one [`PlatformFile`]: partitions of identical nodes, each with its relative speed,
//! its P-states (time factor and busy watts per node), its idle, sleep and off watts, and
//! which jobs it accepts (`rules.rs`).
//!
//! # Files, one idea each
//! - this file: the resolved platform ([`PlatformFile`], [`Partition`], [`PStateSpec`]),
//!   [`load`] and what a scenario's clusters may take from it
//!   ([`PlatformFile::not_for_scenarios`]; the conversion is `scenario.rs`'s).
//! - `toml_format.rs`: the TOML format and every range check on it (errors name the file,
//!   the line and the dotted key, as every kairos TOML file's do).
//! - `simgrid.rs`: SimGrid platform XML as Batsim reads it (hosts, `speed` P-state lists,
//!   `wattage_per_state`/`watt_per_state`, `wattage_off`/`watt_off`, `sleep_pstates`, the
//!   master host left out), hosts grouped into partitions in Batsim's machine-id order.
//! - `rules.rs`: which jobs a partition accepts ([`Accepts`]) and the job fields the rules
//!   read ([`JobTags`]: SWF queue and partition, Batsim job fields).
//!
//! The trace replay's use of a platform (the core's clusters, each job's placement table,
//! run times and energy) is `trace/machine.rs`'s; a scenario's is `scenario.rs`'s.

mod rules;
mod simgrid;
mod toml_format;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use rules::{Accepts, JobTag, JobTags};

use crate::toml_file::TomlFileError;

/// Which format a platform file was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// kairos's TOML.
    Toml,
    /// SimGrid/Batsim platform XML.
    Simgrid,
}

/// Whether a partition runs every general task type or only its own special ones (seed
/// 000's cluster kinds; a trace replay runs any job its rules accept on either).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartitionKind {
    /// General purpose.
    General,
    /// Special purpose.
    Special,
}

/// One P-state of a partition's nodes, resolved from either form of the file.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PStateSpec {
    /// Time factor over the partition's P-state 0 (1 for P-state 0; 1.25: 25% longer).
    pub time: f64,
    /// Watts a node draws while it runs a job in this P-state.
    pub busy_watts: f64,
    /// Watts a node draws while idle in this P-state (SimGrid's first value; the TOML
    /// format's `idle_watts` for every P-state).
    pub idle_watts: f64,
    /// Power factor over P-state 0 (the scenario's `pstates` list; 1 for P-state 0).
    pub power: f64,
}

/// A partition: nodes that are identical in every way the scheduler and the energy model see.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Partition {
    /// Its name (the TOML's `name`; for SimGrid, the first host's name).
    pub name: String,
    /// General or special purpose (seed 000's scenarios; trace replays ignore it).
    pub kind: PartitionKind,
    /// Nodes.
    pub nodes: u32,
    /// Cores in each node (a job of `procs` processors holds `ceil(procs / cores)` nodes).
    pub cores_per_node: u32,
    /// Speed at P-state 0 relative to the speed the log's run times were measured at.
    pub speed: f64,
    /// The computation P-states, the nominal one first.
    pub pstates: Vec<PStateSpec>,
    /// Watts of a sleeping node (`None`: the partition has no sleep state).
    pub sleep_watts: Option<f64>,
    /// Watts of a node switched off (`None`: not given).
    pub off_watts: Option<f64>,
    /// Which jobs it accepts.
    pub accepts: Accepts,
    /// The host names of its nodes, in machine-id order (SimGrid platforms; empty for TOML).
    #[serde(skip)]
    pub hosts: Vec<String>,
    /// Watts of an idle node (in its initial P-state).
    pub idle_watts: f64,
    /// The file's number of each computation P-state (SimGrid's index in `speed`; for TOML
    /// `0, 1, ...`), as Batsim's `_pstate_changes.csv` names them.
    pub pstate_ids: Vec<u32>,
    /// The file's number of the P-state idle nodes are in.
    pub initial_pstate: u32,
}

impl Partition {
    /// Cores over all its nodes.
    pub fn cores(&self) -> u64 {
        self.nodes as u64 * self.cores_per_node as u64
    }

    /// Nodes a job of `procs` processors holds: whole nodes, rounded up (MODEL.md).
    pub fn nodes_for(&self, procs: u32) -> u32 {
        procs.div_ceil(self.cores_per_node.max(1))
    }
}

/// A platform file, resolved.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlatformFile {
    /// The file, as given (named in errors).
    pub file: String,
    /// Its format.
    pub format: Format,
    /// Its name (the TOML's `name`; the file's stem for SimGrid).
    pub name: String,
    /// The partitions, in order: their index is the core's cluster id, and node ids are
    /// global across them in this order (Batsim's machine ids for SimGrid files).
    pub partitions: Vec<Partition>,
}

/// Why a platform file could not be loaded: the shape every kairos input file's errors share
/// (file, line, field).
pub type PlatformError = TomlFileError;

/// Reads the platform file at `path`: SimGrid XML when its first non-blank character is `<`,
/// kairos TOML otherwise.
pub fn load(path: impl AsRef<Path>) -> Result<PlatformFile, PlatformError> {
    let (text, file) = crate::toml_file::read(path.as_ref())?;
    parse(&text, &file)
}

/// Parses platform text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<PlatformFile, PlatformError> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if body.starts_with('<') {
        simgrid::parse(text, file)
    } else {
        toml_format::parse(text, file)
    }
}

impl PlatformFile {
    /// Nodes over all partitions.
    pub fn nodes(&self) -> u64 {
        self.partitions.iter().map(|p| p.nodes as u64).sum()
    }

    /// Cores (processors) over all partitions.
    pub fn cores(&self) -> u64 {
        self.partitions.iter().map(Partition::cores).sum()
    }

    /// The P-state count every partition shares (the core's nodes all offer the same count).
    pub fn pstate_count(&self) -> usize {
        self.partitions.first().map_or(0, |p| p.pstates.len())
    }

    /// The first partition field a seed 000 scenario cannot take, as `partitions[i] (name):
    /// field`: the scenario's model draws its task types' times and powers itself (seed 000
    /// §IV.B), so speeds, watts, time factors and job rules must be left at their defaults,
    /// and every partition must share one list of P-state power factors.
    pub fn not_for_scenarios(&self) -> Option<String> {
        let first = self.partitions.first()?;
        for (i, p) in self.partitions.iter().enumerate() {
            let bad = if p.speed != 1.0 {
                Some("speed")
            } else if p.pstates.iter().any(|s| s.time != 1.0) {
                Some("pstates (time factors)")
            } else if p.idle_watts != 0.0
                || p.pstates
                    .iter()
                    .any(|s| s.busy_watts != 0.0 || s.idle_watts != 0.0)
            {
                Some("busy_watts, idle_watts or watts")
            } else if !p.accepts.is_any() {
                Some("jobs")
            } else if p
                .pstates
                .iter()
                .map(|s| s.power)
                .ne(first.pstates.iter().map(|s| s.power))
            {
                Some("pstates (a power factor list unlike partitions[0]'s)")
            } else {
                None
            };
            if let Some(k) = bad {
                return Some(format!("partitions[{i}] ({}): {k}", p.name));
            }
        }
        None
    }
}

//! Scenario files: the TOML format of a simulated environment (platform, workload,
//! resource-management parameters), its defaults (MODEL.md's ESSC values) and its validation.
//!
//! This module owns the format and every range check on it; reading, parsing and the shape
//! of the errors are [`crate::toml_file`]'s, shared with experiment files. A scenario is
//! parsed with `#[serde(deny_unknown_fields)]` everywhere, so a misspelt key is an error that
//! shows the file and the line (the toml crate's message, span included); then every value is
//! checked against its allowed range, naming the file, the line, the dotted key, the value
//! and the range, for instance
//! `scenarios/x.toml:14: simulation.mapping_interval_s = 0: must be between 1 and 86400`.
//!
//! Every key but `name`, `seed`, `platform.clusters` and `workload.tasks_per_day` has a
//! default: the value MODEL.md gives for the ESSC environment of seed 000. The checked-in
//! scenarios (`scenarios/essc-5k.toml`, `scenarios/essc-10k.toml`) still spell every key out.

use crate::toml_file::{self, Checker, TomlFileError};
use kairos_core::limits::{MAX_CLUSTERS, MAX_PSTATES, MAX_TASK_TYPES};
use kairos_core::platform::ClusterKind;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A scenario: one simulated environment, from which trials are generated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Its name, as reports show it.
    pub name: String,
    /// The seed every trial's random streams derive from.
    pub seed: u64,
    /// The clusters and their P-states.
    pub platform: PlatformSpec,
    /// Task types and arrivals.
    pub workload: Workload,
    /// Horizon, mapping events, dropping, energy.
    #[serde(default)]
    pub simulation: Simulation,
}

/// The clusters of the platform and the P-states of every node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformSpec {
    /// A platform file ([`crate::platform_file`]) to take the clusters and P-states from,
    /// relative to the scenario's folder. It is resolved when the scenario is loaded, and the
    /// loaded scenario is the same as one that spells its clusters out (so are its digests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The clusters, in order (their index is their `ClusterId`).
    #[serde(default)]
    pub clusters: Vec<ClusterSpec>,
    /// Power scaling factor of each P-state, fastest first (seed 000: 1.0, 0.75, 0.5).
    #[serde(default = "default_pstates")]
    pub pstates: Vec<f64>,
}

/// One cluster of identical nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Its name (unique in the scenario).
    pub name: String,
    /// General purpose (runs every general task type) or special purpose (runs its own).
    pub kind: Kind,
    /// Number of nodes.
    pub nodes: u32,
    /// Cores in each node.
    pub cores_per_node: u32,
}

/// The kind of a cluster, as scenario files spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A general-purpose cluster.
    General,
    /// A special-purpose cluster.
    Special,
}

impl From<Kind> for ClusterKind {
    fn from(k: Kind) -> ClusterKind {
        match k {
            Kind::General => ClusterKind::General,
            Kind::Special => ClusterKind::Special,
        }
    }
}

/// The workload: how task types are drawn and how their tasks arrive (seed 000 §IV.B).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// Mean number of tasks arriving per day, shared equally between the task types.
    pub tasks_per_day: u32,
    /// How many task types a trial draws, and of which kind.
    #[serde(default)]
    pub task_types: TaskTypes,
    /// Coefficients of variation of the generator's distributions.
    #[serde(default)]
    pub cov: Cov,
    /// Mean average power of one node at P-state 0, in watts (seed 000: 133 W).
    #[serde(default = "default_apc_mean")]
    pub apc_mean_watts: f64,
    /// Range of the Downey sigma, drawn uniformly per task type (seed 000: [4, 10]).
    #[serde(default = "default_sigma", deserialize_with = "crate::toml_file::pair")]
    pub downey_sigma: [f64; 2],
    /// Mean base time of the least and the most valuable task types, in hours (seed 000: a
    /// starting utility of 1 means 1 h, of 8 means 18 h; linear in between).
    #[serde(
        default = "default_base_time",
        deserialize_with = "crate::toml_file::pair"
    )]
    pub base_time_hours: [f64; 2],
    /// Arrival patterns.
    #[serde(default)]
    pub arrivals: Arrivals,
}

/// How many task types a trial has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskTypes {
    /// General-purpose types: they run on every general cluster (seed 000: 60).
    pub general: u32,
    /// Special-purpose types of each special cluster: they run on that cluster only (seed
    /// 000: 20 per cluster, 40 in all).
    pub special_per_cluster: u32,
}

impl Default for TaskTypes {
    fn default() -> TaskTypes {
        TaskTypes {
            general: 60,
            special_per_cluster: 20,
        }
    }
}

/// Coefficients of variation (standard deviation over mean) of the generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cov {
    /// Of the Gaussian base time around its utility-correlated mean (seed 000: 0.15).
    pub base_time: f64,
    /// Of the per-cluster execution time around the base time, COV method (0.3).
    pub etc: f64,
    /// Of the node power, COV method, at the task and at the cluster level (0.2).
    pub apc: f64,
    /// Of the P-state randomness factor of general task types (0.3).
    pub randomness_general: f64,
    /// Of the P-state randomness factor of special task types (0.2).
    pub randomness_special: f64,
    /// Of the per-P-state power and time scalings of general task types (0.03).
    pub pstate_general: f64,
    /// Of the per-P-state power and time scalings of special task types (0.02).
    pub pstate_special: f64,
}

impl Default for Cov {
    fn default() -> Cov {
        Cov {
            base_time: 0.15,
            etc: 0.3,
            apc: 0.2,
            randomness_general: 0.3,
            randomness_special: 0.2,
            pstate_general: 0.03,
            pstate_special: 0.02,
        }
    }
}

/// Arrival patterns: sinusoidal for small task types (seed 002 App. F), working hours for
/// large ones (seed 000 §IV.B, rates of MODEL.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arrivals {
    /// Task types of at most this many cores arrive sinusoidally; larger ones follow working
    /// hours (seed 000: 4096).
    pub sinusoid_max_cores: u64,
    /// Range of the whole number of sinusoidal cycles a day, drawn uniformly ([1, 24]).
    #[serde(deserialize_with = "crate::toml_file::pair")]
    pub cycles: [u32; 2],
    /// Range of the amplitude as a fraction of the mean rate, drawn uniformly ([0.25, 0.9]).
    #[serde(deserialize_with = "crate::toml_file::pair")]
    pub amplitude: [f64; 2],
    /// Working hours of the clock, [start, end) ([9, 18]).
    #[serde(deserialize_with = "crate::toml_file::pair")]
    pub work_hours: [u32; 2],
    /// Rate during working hours, as a multiple of the mean (2.0).
    pub work_rate: f64,
    /// Rate outside working hours, as a multiple of the mean (0.4: 2 x 9 h + 0.4 x 15 h = 24 h).
    pub off_rate: f64,
    /// The clock hour at simulated time 0 (0: the simulation starts at 00:00, so with 4 h of
    /// warm-up the measured day runs from 04:00 to 04:00).
    pub clock_at_start_hour: u32,
}

impl Default for Arrivals {
    fn default() -> Arrivals {
        Arrivals {
            sinusoid_max_cores: 4096,
            cycles: [1, 24],
            amplitude: [0.25, 0.9],
            work_hours: [9, 18],
            work_rate: 2.0,
            off_rate: 0.4,
            clock_at_start_hour: 0,
        }
    }
}

/// The simulation and resource-management parameters (seed 000 §IV.A, §IV.C).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Simulated time, in hours; arrivals cover all of it (seed 000: 28).
    #[serde(default = "default_horizon")]
    pub horizon_hours: u32,
    /// Warm-up, in hours: the measured day is [warmup, horizon) (seed 000: 4).
    #[serde(default = "default_warmup")]
    pub warmup_hours: u32,
    /// Time between mapping events, in seconds (seed 000: 60).
    #[serde(default = "default_interval")]
    pub mapping_interval_s: u32,
    /// Utility below which a utility-aware heuristic drops a task (seed 000: 0.5).
    #[serde(default = "default_threshold")]
    pub dropping_threshold: f64,
    /// The leniency factor of each energy filter.
    #[serde(default)]
    pub leniency: Leniency,
    /// The day's energy budget in joules; absent means unconstrained.
    #[serde(default)]
    pub energy_budget_joules: Option<f64>,
}

impl Default for Simulation {
    fn default() -> Simulation {
        Simulation {
            horizon_hours: default_horizon(),
            warmup_hours: default_warmup(),
            mapping_interval_s: default_interval(),
            dropping_threshold: default_threshold(),
            leniency: Leniency::default(),
            energy_budget_joules: None,
        }
    }
}

/// Leniency factors of the energy filters (seed 000 §IV.C.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leniency {
    /// Energy-per-task filter (2.0).
    pub per_task: f64,
    /// Energy-per-resource filter (4.0).
    pub per_resource: f64,
    /// Adaptive filter (1.0: its lambda replaces a tuned leniency).
    pub adaptive: f64,
}

impl Default for Leniency {
    fn default() -> Leniency {
        Leniency {
            per_task: 2.0,
            per_resource: 4.0,
            adaptive: 1.0,
        }
    }
}

fn default_pstates() -> Vec<f64> {
    vec![1.0, 0.75, 0.5]
}
fn default_apc_mean() -> f64 {
    133.0
}
fn default_sigma() -> [f64; 2] {
    [4.0, 10.0]
}
fn default_base_time() -> [f64; 2] {
    [1.0, 18.0]
}
fn default_horizon() -> u32 {
    28
}
fn default_warmup() -> u32 {
    4
}
fn default_interval() -> u32 {
    60
}
fn default_threshold() -> f64 {
    0.5
}

/// Why a scenario could not be loaded (the error every kairos TOML file shares).
pub type ScenarioError = TomlFileError;

impl Scenario {
    /// Reads, parses and validates the scenario at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        let (text, file) = toml_file::read(path.as_ref())?;
        Scenario::parse(&text, &file)
    }

    /// Parses and validates scenario text; `file` names it in error messages, and the
    /// messages about values give the line of the key in `text`.
    pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        let mut s: Scenario = toml_file::parse(text, file)?;
        s.platform.resolve(file, text)?;
        let mut c = Checker::new(file, text);
        s.check(&mut c);
        c.finish()?;
        Ok(s)
    }

    /// Checks every value against its range; `file` names the scenario in the messages.
    pub fn validate(&self, file: &str) -> Result<(), ScenarioError> {
        let mut c = Checker::without_text(file);
        self.check(&mut c);
        c.finish()
    }

    fn check(&self, c: &mut Checker<'_>) {
        if self.name.trim().is_empty() {
            c.fail("name", "\"\"", "must not be empty");
        }
        self.platform.check(c);
        self.workload.check(c, &self.platform);
        self.simulation.check(c);
        self.check_memory(c);
    }

    /// The scheduler's storage for a trial, checked before anything is allocated: a
    /// platform too large for [`crate::limits::MAX_STORAGE_BYTES`] is an error naming its
    /// largest cluster's `nodes`, not an abort in the allocator.
    fn check_memory(&self, c: &mut Checker<'_>) {
        let clusters = &self.platform.clusters;
        let Some((i, largest)) = clusters.iter().enumerate().max_by_key(|(_, x)| x.nodes) else {
            return;
        };
        let nodes: u64 = clusters.iter().map(|x| x.nodes as u64).sum();
        let tasks = self.workload.tasks_per_day as u64;
        let need = crate::storage::bytes_for(nodes, largest.nodes as u64, tasks);
        let limit = crate::limits::MAX_STORAGE_BYTES;
        if need > limit {
            c.fail(
                &format!("platform.clusters[{i}].nodes"),
                largest.nodes,
                format_args!(
                    "{nodes} nodes in all (and {tasks} tasks a day) need {} of scheduler \
                     storage, over the limit of {}: at most about {} nodes",
                    crate::limits::bytes_text(need),
                    crate::limits::bytes_text(limit),
                    nodes as u128 * limit / need
                ),
            );
        }
    }

    /// Total task types a trial draws: the general ones and the special ones of every special
    /// cluster.
    pub fn task_type_count(&self) -> usize {
        let special = self
            .platform
            .clusters
            .iter()
            .filter(|c| c.kind == Kind::Special)
            .count();
        self.workload.task_types.general as usize
            + special * self.workload.task_types.special_per_cluster as usize
    }
}

impl PlatformSpec {
    /// Takes the clusters and P-states from `platform.file`, if the scenario `file` (whose
    /// text is `text`) names one: relative to the scenario's folder, and the only key of
    /// `[platform]` then.
    fn resolve(&mut self, file: &str, text: &str) -> Result<(), ScenarioError> {
        let Some(name) = self.file.take() else {
            return Ok(());
        };
        let c = Checker::new(file, text);
        let at = c.at("platform.file");
        let fail = |rule: String| {
            Err(toml_file::TomlFileError::Invalid(vec![format!(
                "{at}: platform.file = {name:?}: {rule}"
            )]))
        };
        if !self.clusters.is_empty() || c.sets("platform.pstates") {
            return fail(
                "the platform comes from the file: leave out platform.clusters and \
                 platform.pstates"
                    .to_string(),
            );
        }
        let path = Path::new(file)
            .parent()
            .unwrap_or(Path::new(""))
            .join(&name);
        let platform = match crate::platform_file::load(&path) {
            Ok(p) => p,
            Err(e) => return fail(format!("cannot be used:\n{e}")),
        };
        if let Some(what) = platform.not_for_scenarios() {
            return fail(format!(
                "{}: {what} is set, but a seed 000 scenario draws its task types' times and \
                 powers itself: its platform file gives names, kinds, nodes, cores_per_node \
                 and one list of P-state power factors",
                platform.file
            ));
        }
        self.clusters = platform
            .partitions
            .iter()
            .map(|p| ClusterSpec {
                name: p.name.clone(),
                kind: match p.kind {
                    crate::platform_file::PartitionKind::General => Kind::General,
                    crate::platform_file::PartitionKind::Special => Kind::Special,
                },
                nodes: p.nodes,
                cores_per_node: p.cores_per_node,
            })
            .collect();
        self.pstates = platform.partitions[0]
            .pstates
            .iter()
            .map(|s| s.power)
            .collect();
        Ok(())
    }

    fn check(&self, c: &mut Checker<'_>) {
        let n = self.clusters.len();
        if n == 0 || n > MAX_CLUSTERS {
            c.fail(
                "platform.clusters",
                format_args!("{n} clusters"),
                format_args!("must have between 1 and {MAX_CLUSTERS} clusters"),
            );
        }
        for (i, cl) in self.clusters.iter().enumerate() {
            let key = |k: &str| format!("platform.clusters[{i}].{k}");
            if cl.name.trim().is_empty() {
                c.fail(&key("name"), "\"\"", "must not be empty");
            } else if self.clusters[..i].iter().any(|o| o.name == cl.name) {
                c.fail(
                    &key("name"),
                    format_args!("{:?}", cl.name),
                    "must be unique",
                );
            }
            c.int(&key("nodes"), cl.nodes as u64, 1, 1_000_000);
            c.int(&key("cores_per_node"), cl.cores_per_node as u64, 1, 65_536);
        }
        let p = self.pstates.len();
        if p == 0 || p > MAX_PSTATES {
            c.fail(
                "platform.pstates",
                format_args!("{p} P-states"),
                format_args!("must have between 1 and {MAX_PSTATES} P-states"),
            );
        }
        for (i, s) in self.pstates.iter().enumerate() {
            c.float_above(&format!("platform.pstates[{i}]"), *s, 0.0, 1.0);
        }
    }
}

impl Workload {
    fn check(&self, c: &mut Checker<'_>, platform: &PlatformSpec) {
        c.int(
            "workload.tasks_per_day",
            self.tasks_per_day as u64,
            1,
            1_000_000,
        );
        let max = MAX_TASK_TYPES as u64;
        let general = self.task_types.general as u64;
        let per = self.task_types.special_per_cluster as u64;
        c.int("workload.task_types.general", general, 0, max);
        c.int("workload.task_types.special_per_cluster", per, 0, max);
        let gen_clusters = platform
            .clusters
            .iter()
            .filter(|x| x.kind == Kind::General)
            .count() as u64;
        let spec_clusters = platform.clusters.len() as u64 - gen_clusters;
        if general > 0 && gen_clusters == 0 {
            c.fail(
                "workload.task_types.general",
                general,
                "must be 0 on a platform without a general cluster",
            );
        }
        let total = general + if per <= max { per * spec_clusters } else { 0 };
        if general <= max && per <= max && (total == 0 || total > max) {
            c.fail(
                "workload.task_types",
                format_args!("{total} types in all"),
                format_args!(
                    "general + special_per_cluster x {spec_clusters} special clusters must be \
                     between 1 and {max}"
                ),
            );
        }
        let cov = &self.cov;
        for (k, v) in [
            ("base_time", cov.base_time),
            ("etc", cov.etc),
            ("apc", cov.apc),
            ("randomness_general", cov.randomness_general),
            ("randomness_special", cov.randomness_special),
            ("pstate_general", cov.pstate_general),
            ("pstate_special", cov.pstate_special),
        ] {
            c.float(&format!("workload.cov.{k}"), v, 0.0, 2.0);
        }
        c.float_above(
            "workload.apc_mean_watts",
            self.apc_mean_watts,
            0.0,
            100_000.0,
        );
        c.float_range("workload.downey_sigma", self.downey_sigma, 0.0, 1000.0);
        if self.base_time_hours[0] <= 0.0 {
            c.fail(
                "workload.base_time_hours[0]",
                self.base_time_hours[0],
                "must be greater than 0 and at most 10000",
            );
        } else {
            c.float_range(
                "workload.base_time_hours",
                self.base_time_hours,
                0.0,
                10_000.0,
            );
        }
        let a = &self.arrivals;
        c.int(
            "workload.arrivals.sinusoid_max_cores",
            a.sinusoid_max_cores,
            0,
            u32::MAX as u64,
        );
        c.int_range("workload.arrivals.cycles", a.cycles, 1, 1000);
        c.float_range("workload.arrivals.amplitude", a.amplitude, 0.0, 1.0);
        c.int_range("workload.arrivals.work_hours", a.work_hours, 0, 24);
        c.float("workload.arrivals.work_rate", a.work_rate, 0.0, 100.0);
        c.float("workload.arrivals.off_rate", a.off_rate, 0.0, 100.0);
        if a.work_hours[0] == a.work_hours[1] && a.work_hours[0] <= 24 {
            c.fail(
                "workload.arrivals.work_hours",
                format_args!("[{}, {}]", a.work_hours[0], a.work_hours[1]),
                "must not be empty",
            );
        }
        c.int(
            "workload.arrivals.clock_at_start_hour",
            a.clock_at_start_hour as u64,
            0,
            23,
        );
        if a.work_hours[0] < a.work_hours[1] && a.work_hours[1] <= 24 {
            // Every type keeps the same mean rate over the day (seed 000 §IV.B).
            let on = (a.work_hours[1] - a.work_hours[0]) as f64;
            let day = a.work_rate * on + a.off_rate * (24.0 - on);
            if day.is_nan() || libm::fabs(day - 24.0) > 1e-9 {
                c.fail(
                    "workload.arrivals.off_rate",
                    a.off_rate,
                    format_args!(
                        "work_rate x {on} h + off_rate x {} h must be 24 h (the mean rate over \
                         the day), not {day} h",
                        24.0 - on
                    ),
                );
            }
        }
    }
}

impl Simulation {
    fn check(&self, c: &mut Checker<'_>) {
        c.int(
            "simulation.horizon_hours",
            self.horizon_hours as u64,
            1,
            10_000,
        );
        let h = self.horizon_hours.max(1) as u64;
        if self.warmup_hours as u64 >= h
            && self.horizon_hours >= 1
            && !c.sets("simulation.warmup_hours")
        {
            // The warm-up was left to its default: the horizon the file sets is the value out
            // of range, so it is the one named.
            c.fail(
                "simulation.horizon_hours",
                self.horizon_hours,
                format_args!(
                    "must be greater than simulation.warmup_hours, {} by default (the \
                     warm-up is part of the horizon): set both",
                    self.warmup_hours
                ),
            );
        } else {
            c.int(
                "simulation.warmup_hours",
                self.warmup_hours as u64,
                0,
                h - 1,
            );
        }
        c.int(
            "simulation.mapping_interval_s",
            self.mapping_interval_s as u64,
            1,
            86_400,
        );
        c.float(
            "simulation.dropping_threshold",
            self.dropping_threshold,
            0.0,
            1000.0,
        );
        let l = &self.leniency;
        c.float("simulation.leniency.per_task", l.per_task, 0.0, 1000.0);
        c.float(
            "simulation.leniency.per_resource",
            l.per_resource,
            0.0,
            1000.0,
        );
        c.float("simulation.leniency.adaptive", l.adaptive, 0.0, 1000.0);
        if let Some(b) = self.energy_budget_joules {
            // The ledger counts u64 millijoules: at most ~1.8e16 J.
            c.float_above("simulation.energy_budget_joules", b, 0.0, 1e16);
        }
    }
}

//! The policy file of `kairos slurm-control` (TOML; docs/operations.md): the heuristic, the
//! partitions kairos manages, the platform power model, the daily energy budget, and the
//! utility classes with the QOS and partitions that select them. A misspelt key, a wrong
//! type or a bad value is an error naming the file, the line (the toml crate's message) or
//! the key.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};
use clap::ValueEnum;
use kairos_core::units::Micros;
use kairos_core::utility::UtilityCurve;
use serde::Deserialize;

use crate::trace::{PStateFactors, Policy, PowerModel};

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    policy: String,
    partitions: Vec<String>,
    #[serde(default)]
    reservations: Option<String>,
    #[serde(default)]
    poll_ms: Option<u64>,
    #[serde(default)]
    settle_s: Option<u64>,
    #[serde(default)]
    power: Option<PowerFile>,
    #[serde(default)]
    classes: BTreeMap<String, ClassFile>,
    #[serde(default)]
    default_class: Option<String>,
    #[serde(default)]
    qos: BTreeMap<String, String>,
    #[serde(default)]
    partition_class: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PowerFile {
    busy_watts: f64,
    idle_watts: f64,
    #[serde(default)]
    pstates: Vec<String>,
    #[serde(default)]
    budget_kwh_per_day: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassFile {
    value: f64,
    soft_s: u64,
    hard_s: u64,
    #[serde(default)]
    final_value: f64,
}

/// A utility class: seed 001's value function (`value` until the soft deadline, linear to
/// `final_value` at the hard one, zero after), deadlines counted from submission.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Class {
    /// The value function.
    pub curve: UtilityCurve,
}

/// The policy, checked.
#[derive(Clone, Debug)]
pub struct SitePolicy {
    /// The heuristic.
    pub policy: Policy,
    /// Place-holders or permanent reservations (utility-aware heuristics).
    pub reservations: kairos_core::Reservations,
    /// The partitions kairos manages (their held jobs are its tasks; their nodes its
    /// platform).
    pub partitions: Vec<String>,
    /// How often Slurm is read, milliseconds.
    pub poll_ms: u64,
    /// Seconds a second's events wait before the mapping event that decides over them (at
    /// that second's time).
    pub settle_s: u64,
    /// The platform power model (per node); `None`: nodes draw 0 W.
    pub power: Option<PowerModel>,
    /// The daily energy budget, millijoules (`None`: none).
    pub budget_mj: Option<u64>,
    /// Utility classes by name.
    pub classes: BTreeMap<String, Class>,
    /// The class of a job that names none and whose QOS and partition select none.
    pub default_class: Option<String>,
    /// QOS -> class.
    pub qos: BTreeMap<String, String>,
    /// Partition -> class.
    pub partition_class: BTreeMap<String, String>,
}

impl SitePolicy {
    /// Reads and checks the policy file at `path`.
    pub fn load(path: &Path) -> anyhow::Result<SitePolicy> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read the policy file", path.display()))?;
        SitePolicy::parse(&text, &path.display().to_string())
    }

    /// Parses and checks a policy file's text (`name` names it in errors).
    pub fn parse(text: &str, name: &str) -> anyhow::Result<SitePolicy> {
        let f: File = toml::from_str(text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let policy = Policy::from_str(&f.policy, true).map_err(|_| {
            anyhow::anyhow!(
                "{name}: policy = {:?}: not one of fcfs, easy, conservative, knapsack, \
                 max-util, max-value, max-upt, max-upr, max-upe",
                f.policy
            )
        })?;
        let reservations = match &f.reservations {
            None => kairos_core::Reservations::Permanent,
            Some(r) => r.parse().map_err(|_| {
                anyhow::anyhow!(
                    "{name}: reservations = {r:?}: expected \"permanent\" or \"place-holder\""
                )
            })?,
        };
        if reservations == kairos_core::Reservations::PlaceHolder && !policy.is_utility_aware() {
            bail!("{name}: reservations = \"place-holder\" is for the utility-aware policies");
        }
        if f.partitions.is_empty() || f.partitions.iter().any(|p| p.trim().is_empty()) {
            bail!("{name}: partitions: name at least one partition, none empty");
        }
        let poll_ms = f.poll_ms.unwrap_or(500);
        if !(10..=600_000).contains(&poll_ms) {
            bail!("{name}: poll_ms = {poll_ms}: must be between 10 and 600000");
        }
        let settle_s = f.settle_s.unwrap_or(1);
        if settle_s > 60 {
            bail!("{name}: settle_s = {settle_s}: must be at most 60");
        }
        let (power, budget_mj) = match &f.power {
            None => (None, None),
            Some(p) => {
                let extra = p
                    .pstates
                    .iter()
                    .map(|s| s.parse::<PStateFactors>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| anyhow::anyhow!("{name}: power.pstates: {e}"))?;
                let model = PowerModel::new(p.busy_watts, p.idle_watts, &extra)
                    .map_err(|e| anyhow::anyhow!("{name}: [power]: {e}"))?;
                let budget = match p.budget_kwh_per_day {
                    None => None,
                    Some(b) if b.is_finite() && b > 0.0 && b < 1e9 => {
                        Some(libm::round(b * 3.6e9) as u64)
                    }
                    Some(b) => bail!(
                        "{name}: power.budget_kwh_per_day = {b}: must be a number of kWh above 0"
                    ),
                };
                (Some(model), budget)
            }
        };
        let mut classes = BTreeMap::new();
        for (k, c) in &f.classes {
            let ok = |v: f64| v.is_finite() && v >= 0.0;
            if !ok(c.value) || !ok(c.final_value) || c.final_value > c.value {
                bail!(
                    "{name}: classes.{k}: value and final_value must be numbers at least 0, \
                     final_value at most value"
                );
            }
            if c.soft_s > c.hard_s || c.hard_s == 0 || c.hard_s > 10 * 365 * 86_400 {
                bail!(
                    "{name}: classes.{k}: soft_s ({}) must be at most hard_s ({}), which must \
                     be above 0 and at most ten years",
                    c.soft_s,
                    c.hard_s
                );
            }
            classes.insert(
                k.clone(),
                Class {
                    curve: UtilityCurve::Linear {
                        start: c.value,
                        soft: Micros::from_secs(c.soft_s),
                        hard: Micros::from_secs(c.hard_s),
                        final_value: c.final_value,
                    },
                },
            );
        }
        let known = |what: &str, class: &str| -> anyhow::Result<()> {
            if classes.contains_key(class) {
                Ok(())
            } else {
                bail!("{name}: {what} = {class:?}: no such class (classes.{class} is not defined)")
            }
        };
        if let Some(d) = &f.default_class {
            known("default_class", d)?;
        }
        for (q, c) in &f.qos {
            known(&format!("qos.{q}"), c)?;
        }
        for (p, c) in &f.partition_class {
            known(&format!("partition_class.{p}"), c)?;
        }
        if policy.is_utility_aware() && f.default_class.is_none() {
            bail!(
                "{name}: policy = {:?} weighs utility: give default_class (and classes)",
                f.policy
            );
        }
        Ok(SitePolicy {
            policy,
            reservations,
            partitions: f.partitions,
            poll_ms,
            settle_s,
            power,
            budget_mj,
            classes,
            default_class: f.default_class,
            qos: f.qos,
            partition_class: f.partition_class,
        })
    }

    /// Whether kairos manages partition `p` (a job may name several, comma-separated: all
    /// must be managed).
    pub fn manages(&self, p: &str) -> bool {
        !p.is_empty() && p.split(',').all(|p| self.partitions.iter().any(|m| m == p))
    }
}

//! The ESSC workload generator (seed 000 §IV.B, as MODEL.md resolves it): one trial of a
//! scenario is a platform with its task types, the utility classes, and the tasks that
//! arrive over the horizon.
//!
//! This module owns the trial: [`generate`] builds it, [`Trial::offered_load`] gives the
//! sanity numbers MODEL.md quotes, [`Trial::fingerprint`] pins it. The pieces live in
//! submodules: [`rng`] (streams and distributions), [`types`] (task types), [`arrivals`]
//! (arrival patterns and times).
//!
//! Choices made here where MODEL.md is silent (docs/model.md lists them):
//! - Type order: the general types first (eligible on every general cluster), then
//!   `special_per_cluster` types for each special cluster in platform order. Type i draws
//!   from its own streams, so adding types leaves the earlier ones unchanged.
//! - The clock reads `clock_at_start_hour` (00:00) at time 0: with 4 h of warm-up the measured
//!   day is 04:00 to 04:00, and the 09:00-18:00 burst of large types falls inside it, clear of
//!   its edges. Arrivals cover the whole horizon [0, horizon), warm-up included.
//! - The utility class of each task is uniform over the 20 classes, from the stream
//!   ("classes", type), one draw per arrival of that type in time order.
//! - Tasks are sorted by arrival, ties by type index, then by draw order; ids follow.
//! - The mean execution time behind the first utility interval is the integer mean of the
//!   type's P-state 0 times over its eligible clusters, rounded to the microsecond.
//! - APC: the COV method with COV 0.2 at both of its levels: a mean per type drawn around
//!   133 W, then one value per eligible cluster around the type's mean.
//! - P-states: the randomness factor and the scalings apply to every P-state, P-state 0
//!   included (a factor's mean is scale x randomness, and scale is 1.0 there).

pub mod arrivals;
pub mod rng;
pub mod types;

use crate::scenario::{Kind, Scenario};
use anyhow::Context;
use kairos_core::platform::{Cluster, ClusterKind, PState, Platform, TaskTypeId};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::Micros;
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use rng::Stream;
pub use types::TypeInfo;

/// One generated trial of a scenario.
#[derive(Clone, Debug)]
pub struct Trial {
    /// The trial's index.
    pub index: u32,
    /// The platform, with the trial's task types.
    pub platform: Platform,
    /// The utility classes (seed 000's 20).
    pub classes: UtilityClasses,
    /// What was drawn for each task type (index = `TaskTypeId`).
    pub types: Vec<TypeInfo>,
    /// The arrival pattern of each task type.
    pub patterns: Vec<arrivals::Pattern>,
    /// The tasks, sorted by arrival (ties by type, then draw order); ids are their index.
    pub tasks: Vec<Task>,
    /// The seed of the controller's own stream (the Random heuristic), from the stream
    /// ("controller", 0).
    pub controller_seed: u64,
}

/// Offered load: the demand of a trial at P-state 0 on each task's fastest cluster (the
/// cluster with the smallest P-state 0 time; ties to the lower index).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Load {
    /// Node-time a day of the expected arrivals (the mean rate of every type) over the
    /// platform's node-time a day.
    pub expected_share: f64,
    /// Energy a day of the expected arrivals, in joules.
    pub expected_energy_j: f64,
    /// Node-time of the tasks arriving in the measured day over the platform's node-time in
    /// that day.
    pub window_share: f64,
    /// Energy of the tasks arriving in the measured day, in joules.
    pub window_energy_j: f64,
}

/// The cluster indices of the types of scenario `s`, in type order, with their kind.
fn type_plan(s: &Scenario) -> Vec<(ClusterKind, Vec<u8>)> {
    let clusters = &s.platform.clusters;
    let general: Vec<u8> = (0..clusters.len() as u8)
        .filter(|&i| clusters[i as usize].kind == Kind::General)
        .collect();
    let mut plan = Vec::new();
    for _ in 0..s.workload.task_types.general {
        plan.push((ClusterKind::General, general.clone()));
    }
    for (i, c) in clusters.iter().enumerate() {
        if c.kind == Kind::Special {
            for _ in 0..s.workload.task_types.special_per_cluster {
                plan.push((ClusterKind::Special, vec![i as u8]));
            }
        }
    }
    plan
}

/// Generates trial `trial` of scenario `s` (which should have passed
/// [`Scenario::validate`]). The same (scenario, trial) always gives the same trial, whatever
/// was generated before.
pub fn generate(s: &Scenario, trial: u32) -> anyhow::Result<Trial> {
    let clusters: Vec<Cluster> = s
        .platform
        .clusters
        .iter()
        .map(|c| Cluster {
            nodes: kairos_core::units::NodeCount(c.nodes),
            cores_per_node: c.cores_per_node,
            kind: c.kind.into(),
        })
        .collect();
    let mut platform = Platform::new(&clusters, s.platform.pstates.len() as u8)
        .context("building the platform")?;
    let classes = UtilityClasses::essc20();
    let plan = type_plan(s);
    let per_type = s.workload.tasks_per_day as f64 / plan.len().max(1) as f64;
    let horizon = Micros::from_hours(s.simulation.horizon_hours as u64);
    let mut types = Vec::with_capacity(plan.len());
    let mut patterns = Vec::with_capacity(plan.len());
    // (arrival, type, draw order within the type, class)
    let mut raw: Vec<(Micros, u16, u32, u8)> = Vec::new();
    for (i, (kind, eligible)) in plan.iter().enumerate() {
        let index = i as u32;
        let t = types::draw_type(s, trial, index, *kind, eligible, &clusters);
        let id = platform
            .add_resolved_type(&t.placements)
            .with_context(|| format!("adding task type {i}"))?;
        debug_assert_eq!(id.0 as usize, i);
        let mut pr = Stream::new(s.seed, trial, "arrival-pattern", index);
        let pattern = arrivals::Pattern::draw(&mut pr, t.cores, &s.workload.arrivals);
        let mut ar = Stream::new(s.seed, trial, "arrivals", index);
        let times = arrivals::arrival_times(
            &mut ar,
            &pattern,
            per_type,
            horizon,
            s.workload.arrivals.clock_at_start_hour,
        );
        let mut cr = Stream::new(s.seed, trial, "classes", index);
        let n_classes = classes.len() as u64;
        for (k, at) in times.into_iter().enumerate() {
            let class = cr.int(0, n_classes - 1) as u8;
            raw.push((at, i as u16, k as u32, class));
        }
        types.push(t);
        patterns.push(pattern);
    }
    raw.sort_by_key(|&(at, ty, k, _)| (at, ty, k));
    let tasks = raw
        .into_iter()
        .enumerate()
        .map(|(n, (arrival, ty, _, class))| {
            let t = &types[ty as usize];
            Task {
                id: TaskId(n as u32),
                arrival,
                demand: Demand::Typed(TaskTypeId(ty)),
                curve: UtilityCurve::essc(t.priority, t.urgency, t.mean_exec, class),
                actual: None,
            }
        })
        .collect();
    let controller_seed = Stream::new(s.seed, trial, "controller", 0).u64();
    Ok(Trial {
        index: trial,
        platform,
        classes,
        types,
        patterns,
        tasks,
        controller_seed,
    })
}

impl Trial {
    /// The sanity numbers of MODEL.md for this trial under scenario `s` (the one it was
    /// generated from): ~63% and ~16 GJ at 5k tasks a day, ~125% at 10k.
    pub fn offered_load(&self, s: &Scenario) -> Load {
        let fastest: Vec<(f64, f64)> = self
            .platform
            .types()
            .iter()
            .map(|t| {
                // The platform refuses a type without an eligible cluster.
                t.placements
                    .iter()
                    .flatten()
                    .min_by_key(|p| p.etc[0])
                    .map_or((0.0, 0.0), |best| {
                        (
                            best.nodes.0 as f64 * best.etc[0].as_secs_f64(),
                            best.energy(PState(0)).as_joules_f64(),
                        )
                    })
            })
            .collect();
        let nodes = self.platform.total_nodes() as f64;
        let per_type = s.workload.tasks_per_day as f64 / fastest.len().max(1) as f64;
        let (node_s, energy) = fastest.iter().fold((0.0, 0.0), |(a, b), (n, e)| {
            (a + n * per_type, b + e * per_type)
        });
        let w0 = Micros::from_hours(s.simulation.warmup_hours as u64);
        let w1 = Micros::from_hours(s.simulation.horizon_hours as u64);
        let (mut wn, mut we) = (0.0, 0.0);
        for t in self
            .tasks
            .iter()
            .filter(|t| t.arrival >= w0 && t.arrival < w1)
        {
            if let Demand::Typed(ty) = t.demand {
                let (n, e) = fastest[ty.0 as usize];
                wn += n;
                we += e;
            }
        }
        Load {
            expected_share: node_s / (nodes * 86_400.0),
            expected_energy_j: energy,
            window_share: wn / (nodes * (w1 - w0).as_secs_f64()),
            window_energy_j: we,
        }
    }

    /// A 64-bit FNV-1a hash of the platform and the tasks (their postcard encoding): two
    /// trials with the same fingerprint are the same trial.
    pub fn fingerprint(&self) -> u64 {
        let bytes = postcard::to_allocvec(&(&self.platform, &self.tasks, self.controller_seed))
            .expect("a trial always encodes");
        bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
}

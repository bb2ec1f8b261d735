//! A Slurm job as the core's task: its node count, its estimate (the `estimate=` hint of its
//! comment, else its time limit), its utility class (the comment's `class=`, else its QOS's or
//! its partition's in the policy file, else the default) and its power per node (the
//! comment's `watts=`, else the power model's), and the platform those tasks run on: one
//! cluster of the managed partitions' nodes, one core each (kairos gives jobs whole nodes).
//!
//! The hints sit in the comment after `kairos:`, as `key=value` words
//! (`--comment "kairos: class=urgent watts=250 estimate=600"`). A job whose hints cannot be
//! read is refused with the reason (the caller cancels it with that reason in its comment).

use kairos_core::limits::MAX_PSTATES;
use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskType};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::{Micros, MilliWatts, NodeCount};
use kairos_core::utility::UtilityCurve;

use super::policy::SitePolicy;
use super::queue::SlurmJob;

/// The hints of a comment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hints {
    /// `class=NAME`.
    pub class: Option<String>,
    /// `watts=W`: per node at the nominal P-state.
    pub watts: Option<f64>,
    /// `estimate=S`: seconds.
    pub estimate_s: Option<u64>,
}

/// The hints of `comment` (none without `kairos:`).
pub fn hints(comment: &str) -> Result<Hints, String> {
    let mut h = Hints::default();
    let Some(at) = comment.find("kairos:") else {
        return Ok(h);
    };
    for word in comment[at + "kairos:".len()..]
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|w| !w.is_empty())
    {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| format!("hint {word:?} is not key=value"))?;
        match k {
            "class" => h.class = Some(v.to_string()),
            "watts" => match v.parse::<f64>() {
                Ok(w) if w.is_finite() && (0.0..=4_000_000.0).contains(&w) => h.watts = Some(w),
                _ => return Err(format!("hint watts={v}: not a number of watts in [0, 4e6]")),
            },
            "estimate" => match v.trim_end_matches('s').parse::<u64>() {
                Ok(s) if s > 0 && s <= 10 * 365 * 86_400 => h.estimate_s = Some(s),
                _ => {
                    return Err(format!(
                        "hint estimate={v}: not a number of seconds above 0"
                    ))
                }
            },
            _ => return Err(format!("unknown hint {k:?} (class, watts, estimate)")),
        }
    }
    Ok(h)
}

/// The platform of `nodes` nodes under `policy`'s power model.
pub fn platform(nodes: u32, policy: &SitePolicy) -> Result<Platform, String> {
    let pstates = policy.power.as_ref().map_or(1, |m| m.pstates.len()) as u8;
    Platform::new(
        &[Cluster {
            nodes: NodeCount(nodes),
            cores_per_node: 1,
            kind: ClusterKind::General,
        }],
        pstates,
    )
    .map_err(|e| format!("a platform of {nodes} nodes: {e}"))
}

/// The task of `job`, arriving at `arrival`, on a platform of `nodes` nodes; the reason it
/// cannot be one otherwise.
pub fn job_task(
    job: &SlurmJob,
    arrival: Micros,
    nodes: u32,
    policy: &SitePolicy,
) -> Result<Task, String> {
    let h = hints(&job.comment)?;
    if job.nodes == 0 || job.nodes > nodes {
        return Err(format!(
            "it asks for {} nodes; kairos manages {nodes}",
            job.nodes
        ));
    }
    let estimate_s = match (h.estimate_s, job.limit_s) {
        (Some(e), Some(l)) => e.min(l),
        (Some(e), None) => e,
        (None, Some(l)) if l > 0 => l,
        _ => return Err("it has no time limit and no estimate= hint".to_string()),
    };
    let class = match &h.class {
        Some(c) => Some(c.clone()),
        None => policy
            .qos
            .get(&job.qos)
            .or_else(|| policy.partition_class.get(&job.partition))
            .or(policy.default_class.as_ref())
            .cloned(),
    };
    let curve = match class {
        Some(c) => {
            policy
                .classes
                .get(&c)
                .ok_or_else(|| format!("no utility class {c:?} in the policy file"))?
                .curve
        }
        None => UtilityCurve::Linear {
            start: 1.0,
            soft: Micros::MAX,
            hard: Micros::MAX,
            final_value: 1.0,
        },
    };
    let request = Micros::from_secs(estimate_s);
    let mut placement = Placement {
        nodes: NodeCount(job.nodes),
        etc: [Micros::ZERO; MAX_PSTATES],
        apc: [MilliWatts(0); MAX_PSTATES],
    };
    match &policy.power {
        None => placement.etc[0] = request,
        Some(m) => {
            for p in 0..m.pstates.len() {
                placement.etc[p] = m.etc(request.0, p);
                placement.apc[p] = match h.watts {
                    Some(w) => MilliWatts(libm::round(w * m.pstates[p].power * 1000.0) as u32),
                    None => m.apc(p),
                };
            }
        }
    }
    Ok(Task {
        id: TaskId(0),
        arrival,
        demand: Demand::Own(TaskType {
            placements: core::iter::once(Some(placement)).collect(),
        }),
        curve,
        actual: None,
    })
}

//! A platform file ([`crate::platform_file`]) as the trace replay's machine ([`TraceMachine`]): one core cluster per
//! partition, each job's placement table over the partitions that accept it, its run time
//! where it runs, and the energy of a replay ([`MachineEnergy`]).
//!
//! # The model (one line each in docs/model.md)
//! - a job of `procs` processors holds `ceil(procs / cores_per_node)` whole nodes of one
//!   partition; it may go to the partitions whose rules accept it and that have the nodes;
//! - on partition `c` at P-state `p` it is planned for `request x time(c, p) / speed(c)`
//!   and runs `runtime x time(c, p) / speed(c)` (the log's times are at speed 1), never
//!   beyond its plan; both are rounded to the microsecond;
//! - its nodes draw the partition's busy watts of `p` for its run (for SimGrid platforms,
//!   the idle watts of `p`: Batsim's delay profiles); every other node draws the
//!   partition's idle watts; no node is put to sleep or switched off, so the sleeping time
//!   is 0;
//! - the platform's energy (Batsim's `consumed_joules`) is the jobs' and the idle nodes'
//!   from the first submission to the last end; the machine-state times (`time_idle`,
//!   `time_computing`) count from time 0 to the last end, as Batsim's do.

use kairos_core::limits::MAX_PSTATES;
use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskType};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::{Micros, MilliWatts, NodeCount};
use kairos_core::utility::UtilityCurve;
use serde::Serialize;

use super::{JobRecord, TraceError};
use crate::platform_file::{JobTags, PlatformFile};
use crate::swf::ReplayJob;

/// A platform file with the tags of the log's jobs its rules read.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceMachine {
    /// The platform.
    pub platform: PlatformFile,
    /// The jobs' fields the rules read.
    pub tags: JobTags,
}

impl TraceMachine {
    /// The machine of `platform` for jobs tagged `tags`.
    pub fn new(platform: PlatformFile, tags: JobTags) -> TraceMachine {
        TraceMachine { platform, tags }
    }

    /// Processors (cores) over all partitions, as the summaries count them.
    pub fn procs(&self) -> u32 {
        self.platform.cores().min(u32::MAX as u64) as u32
    }

    /// Nodes over all partitions (Batsim's machines).
    pub fn nodes(&self) -> u32 {
        self.platform.nodes().min(u32::MAX as u64) as u32
    }

    /// Whether partition `c` may run `job`: its rules accept it and it has the nodes.
    pub fn may_run(&self, c: usize, job: &ReplayJob) -> bool {
        let p = &self.platform.partitions[c];
        p.nodes_for(job.procs) <= p.nodes && p.accepts.accepts(job, self.tags.get(job.line))
    }

    /// The first job (by submit time) that no partition may run, as an error naming the
    /// log's line and the platform file.
    pub fn fit(&self, jobs: &[ReplayJob]) -> Result<(), TraceError> {
        let lone = jobs
            .iter()
            .filter(|j| !(0..self.platform.partitions.len()).any(|c| self.may_run(c, j)))
            .min_by_key(|j| (j.submit, j.line));
        match lone {
            None => Ok(()),
            Some(j) => Err(TraceError::FitsNoPartition {
                line: j.line,
                id: j.id,
                procs: j.procs,
                platform: self.platform.file.clone(),
                partitions: self
                    .platform
                    .partitions
                    .iter()
                    .map(|p| {
                        format!(
                            "{}: {} nodes x {} cores, {}",
                            p.name,
                            p.nodes,
                            p.cores_per_node,
                            p.accepts.describe()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            }),
        }
    }

    /// The planned or real time `t` us of a job on partition `c` at P-state `p`: `t x
    /// time / speed`, rounded, at least 1 us.
    pub fn scaled(&self, t: u64, c: usize, p: usize) -> Micros {
        let part = &self.platform.partitions[c];
        let x = libm::round(t as f64 * part.pstates[p].time / part.speed);
        Micros(if x < 1.0 {
            1
        } else if x >= u64::MAX as f64 {
            u64::MAX
        } else {
            x as u64
        })
    }

    /// Busy watts of a node of partition `c` at P-state `p`, as the core counts them.
    pub fn apc(&self, c: usize, p: usize) -> MilliWatts {
        MilliWatts(libm::round(self.platform.partitions[c].pstates[p].busy_watts * 1000.0) as u32)
    }

    /// The placement of `procs` processors requesting `request` us on partition `c`.
    fn placement(&self, c: usize, procs: u32, request: u64) -> Placement {
        let part = &self.platform.partitions[c];
        let mut pl = Placement {
            nodes: NodeCount(part.nodes_for(procs).clamp(1, part.nodes)),
            etc: [Micros::ZERO; MAX_PSTATES],
            apc: [MilliWatts(0); MAX_PSTATES],
        };
        for p in 0..part.pstates.len() {
            pl.etc[p] = self.scaled(request, c, p);
            pl.apc[p] = self.apc(c, p);
        }
        pl
    }

    /// The core's platform: a cluster a partition, and the log's mean job as a type on
    /// every partition (the energy filters' mean option; no job uses it).
    pub fn core_platform(&self, jobs: &[ReplayJob]) -> Result<Platform, TraceError> {
        let clusters: Vec<Cluster> = self
            .platform
            .partitions
            .iter()
            .map(|p| Cluster {
                nodes: NodeCount(p.nodes),
                cores_per_node: p.cores_per_node,
                kind: ClusterKind::General,
            })
            .collect();
        let mut platform = Platform::new(&clusters, self.platform.pstate_count() as u8)?;
        let n = jobs.len().max(1) as f64;
        let mean_procs = jobs.iter().map(|j| j.procs as f64).sum::<f64>() / n;
        let mean_request = jobs.iter().map(|j| j.request as f64).sum::<f64>() / n;
        let procs = (libm::round(mean_procs) as u32).max(1);
        let request = (libm::round(mean_request) as u64).max(1);
        let mean: Vec<Option<Placement>> = (0..clusters.len())
            .map(|c| Some(self.placement(c, procs, request)))
            .collect();
        platform.add_resolved_type(&mean)?;
        Ok(platform)
    }

    /// The task of `job` worth `curve`: a placement on every partition that may run it. Its
    /// real run time is given at the speed of its first placement's P-state 0 (the core's
    /// reference, [`Task::run_time`]).
    pub fn job_task(&self, job: &ReplayJob, curve: UtilityCurve) -> Task {
        let mut table = TaskType {
            placements: Default::default(),
        };
        // At most MAX_CLUSTERS partitions (the formats' checks): every push fits.
        for p in (0..self.platform.partitions.len()).map(|c| {
            self.may_run(c, job)
                .then(|| self.placement(c, job.procs, job.request))
        }) {
            let _ = table.placements.push(p);
        }
        let reference = table
            .placements
            .iter()
            .flatten()
            .next()
            .map_or(job.request, |p| p.etc[0].0);
        let actual = (job.runtime as u128 * reference as u128 / job.request.max(1) as u128) as u64;
        Task {
            id: TaskId(0),
            arrival: Micros(job.submit),
            demand: Demand::Own(table),
            curve,
            actual: Some(Micros(actual)),
        }
    }

    /// How long `job` runs once started on partition `c` at P-state `p` (what the core's
    /// [`Task::run_time`] gives its task there).
    pub fn run_time(&self, job: &ReplayJob, c: usize, p: usize) -> u64 {
        let task = self.job_task(job, super::job_task(job).curve);
        let planned = self.placement(c, job.procs, job.request).etc[p];
        task.run_time(planned).0
    }

    /// The energy of a replay: `records` ran on `clusters` at `pstates` (one each).
    pub fn energy(&self, records: &[JobRecord], clusters: &[u8], pstates: &[u8]) -> MachineEnergy {
        let parts = &self.platform.partitions;
        let first = records.iter().map(|r| r.submit).min().unwrap_or(0);
        let last = records.iter().map(|r| r.end).max().unwrap_or(0);
        let mut per = vec![PartitionEnergy::default(); parts.len()];
        let mut per_job = Vec::with_capacity(records.len());
        for ((r, &c), &p) in records.iter().zip(clusters).zip(pstates) {
            let (c, p) = (c as usize, p as usize);
            let nodes = parts[c].nodes_for(r.procs) as u128;
            let run = (r.end - r.start) as u128;
            let j = self
                .apc(c, p)
                .energy(NodeCount(nodes as u32), Micros(run as u64))
                .as_joules_f64();
            per_job.push(j);
            per[c].jobs += 1;
            per[c].jobs_joules += j;
            per[c].busy_node_us += nodes * run;
        }
        let mut total = 0.0;
        let (mut computing, mut idle) = (0u128, 0u128);
        for (e, part) in per.iter_mut().zip(parts) {
            e.name = part.name.clone();
            let window = part.nodes as u128 * last.saturating_sub(first) as u128;
            let idle_window = window.saturating_sub(e.busy_node_us);
            e.idle_joules = part.idle_watts * idle_window as f64 / 1e6;
            total += e.jobs_joules + e.idle_joules;
            computing += e.busy_node_us;
            idle += (part.nodes as u128 * last as u128).saturating_sub(e.busy_node_us);
        }
        MachineEnergy {
            platform: self.platform.name.clone(),
            partitions: per,
            per_job_joules: per_job,
            total_joules: total,
            time_computing_s: computing as f64 / 1e6,
            time_idle_s: idle as f64 / 1e6,
            time_sleeping_s: 0.0,
        }
    }
}

/// One partition's share of a replay's energy.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PartitionEnergy {
    /// The partition.
    pub name: String,
    /// Jobs it ran.
    pub jobs: usize,
    /// Its jobs' energy, joules.
    pub jobs_joules: f64,
    /// Its idle nodes' energy from the first submission to the last end, joules.
    pub idle_joules: f64,
    /// Node-microseconds its jobs held.
    #[serde(skip)]
    pub busy_node_us: u128,
}

/// What a replay on a platform file drew, as Batsim reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MachineEnergy {
    /// The platform's name.
    pub platform: String,
    /// Per partition, in order.
    pub partitions: Vec<PartitionEnergy>,
    /// Each record's energy, joules (Batsim's `consumed_energy`).
    #[serde(skip)]
    pub per_job_joules: Vec<f64>,
    /// Jobs and idle nodes from the first submission to the last end (Batsim's
    /// `consumed_joules`).
    pub total_joules: f64,
    /// Node-seconds computing, from 0 to the last end (Batsim's `time_computing`).
    pub time_computing_s: f64,
    /// Node-seconds idle, from 0 to the last end (`time_idle`).
    pub time_idle_s: f64,
    /// Node-seconds asleep (`time_sleeping`): kairos puts no node to sleep.
    pub time_sleeping_s: f64,
}

//! The run-time machinery every seed 003 approach shares (Alg. 7.1 lines 1-17, Alg. 7.2), one
//! trial under one approach.
//!
//! At each instant with completions or arrivals, in this order: completions free their job's
//! cores; arrivals join the queue (in arrival order, then job index); every queued job whose
//! value has reached zero is dropped (rejected); then, while the queue is not empty, the node
//! with the most idle cores bids them (ties: the lowest node, R7), the loop stops on a zero
//! bid, and the approach picks a job and an allocation on at most that many cores. A picked
//! job starts now (NBA: after its decision's overhead, R10) and holds its used cores until it
//! completes (R8). A job whose completion earns zero still runs and counts as rejected (R9:
//! the paper has no admission control). The run ends when every job has completed or been
//! dropped; there is no horizon.
//!
//! - ValOpt, NBA-FCPS, NBA-FTPS: every queued job is scored by its predicted value on the NBA
//!   list schedule on min(bid, |T|) cores at the fastest level (maxValuableJob; ties: the
//!   earlier in the queue); the chosen job then gets its levels (none, FCPS, FTPS).
//! - PBA: every queued job is scored by the value per energy of its run-time choice among its
//!   profiles (maxValuePerEnergyJob); the chosen job runs its stored profile.
//!
//! The digest hashes each start (job, node, start, each task's core and level) and each drop,
//! then the ledgers (value, energy, rejections), with the core's FNV-1a [`Digest`].

use super::generate::{arrival, Job, Rate};
use kairos_core::dag::error::DagError;
use kairos_core::dag::evaluator::{evaluate, Allocation, Levels, Mapping};
use kairos_core::dag::list::list_schedule;
use kairos_core::dag::nba_fcps::nba_fcps;
use kairos_core::dag::nba_ftps::nba_ftps;
use kairos_core::dag::pba::{pba_choose, Profile};
use kairos_core::dag::power::DvfsTable;
use kairos_core::dag::valopt::valopt;
use kairos_core::dag::value::Ratio;
use kairos_core::digest::Digest;
use kairos_core::limits::{MAX_DAG_TASKS, MAX_DVFS_LEVELS};
use kairos_core::units::Micros;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// One of the four approaches of §7.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Approach {
    /// The value-only baseline, no DVFS.
    ValOpt,
    /// NBA, fixing cores' power states.
    NbaFcps,
    /// NBA, fixing tasks' power states (Alg. 7.3).
    NbaFtps,
    /// The profiling-based approach.
    Pba,
}

impl Approach {
    /// The four, in the paper's order.
    pub const ALL: [Approach; 4] = [
        Approach::ValOpt,
        Approach::NbaFcps,
        Approach::NbaFtps,
        Approach::Pba,
    ];
    /// Its name in files.
    pub fn key(self) -> &'static str {
        match self {
            Approach::ValOpt => "valopt",
            Approach::NbaFcps => "nba-fcps",
            Approach::NbaFtps => "nba-ftps",
            Approach::Pba => "pba",
        }
    }
    /// Its name in reports.
    pub fn label(self) -> &'static str {
        match self {
            Approach::ValOpt => "ValOpt",
            Approach::NbaFcps => "NBA-FCPS",
            Approach::NbaFtps => "NBA-FTPS",
            Approach::Pba => "PBA",
        }
    }
    /// The approach keyed `s`.
    pub fn parse(s: &str) -> Option<Approach> {
        Approach::ALL.into_iter().find(|a| a.key() == s)
    }
}

/// The platform of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    /// The arrival rate.
    pub rate: Rate,
    /// Nodes.
    pub nodes: u32,
    /// Cores a node.
    pub cores: u32,
    /// NBA's delay per evaluator call (R10).
    pub overhead: Micros,
}

/// What one trial under one approach gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrialResult {
    /// Total value earned, micro-units.
    pub value: u64,
    /// Total energy of the executed jobs, nanojoules.
    pub energy_nj: u64,
    /// Jobs dropped from the queue at zero value.
    pub dropped: u32,
    /// Jobs that ran and earned zero.
    pub zero_value: u32,
    /// Jobs that ran.
    pub executed: u32,
    /// Jobs in the trial.
    pub jobs: u32,
    /// Evaluator calls of the decisions (NBA).
    pub evals: u64,
    /// The run's digest.
    pub digest: u64,
    /// Tasks started, by the used cores of their job's allocation (index cores - 1) and their
    /// level (`pba_choices.csv`): the mechanism behind the totals.
    pub choices: [[u32; MAX_DVFS_LEVELS]; MAX_DAG_TASKS],
}

impl TrialResult {
    /// Rejected jobs (queue drops and zero-value completions), percent of the jobs.
    pub fn rejected_percent(&self) -> f64 {
        100.0 * (self.dropped + self.zero_value) as f64 / self.jobs.max(1) as f64
    }
}

type Cache = [Option<(Mapping, Micros)>; MAX_DAG_TASKS];

/// The NBA list schedule of job `j` on `c` cores and its response time at the fastest level,
/// computed once per (job, c).
fn nba_mapping(
    cache: &mut Cache,
    j: &Job,
    c: usize,
    t: &DvfsTable,
) -> Result<(Mapping, Micros), DagError> {
    if let Some(x) = cache[c - 1] {
        return Ok(x);
    }
    let m = list_schedule(&j.dag, c)?;
    let rt = evaluate(&j.dag, t, &m, &Levels::FASTEST)?.rt;
    cache[c - 1] = Some((m, rt));
    Ok((m, rt))
}

/// Runs the trial's `jobs` under `approach` on `setup` (PBA needs each job's `profiles`).
pub fn run(
    jobs: &[Job],
    profiles: Option<&[Vec<Profile>]>,
    table: &DvfsTable,
    approach: Approach,
    setup: &Setup,
) -> anyhow::Result<TrialResult> {
    if approach == Approach::Pba && profiles.is_none_or(|p| p.len() != jobs.len()) {
        anyhow::bail!("PBA needs one profile list per job");
    }
    let arrivals: Vec<Micros> = jobs.iter().map(|j| arrival(j, setup.rate)).collect();
    let mut res = TrialResult {
        jobs: jobs.len() as u32,
        ..TrialResult::default()
    };
    let mut digest = Digest::new();
    let mut idle = vec![setup.cores; setup.nodes as usize];
    let mut running: BinaryHeap<Reverse<(Micros, usize, usize, u32)>> = BinaryHeap::new();
    let mut queue: Vec<usize> = Vec::new();
    let mut cache: Vec<Cache> = vec![[None; MAX_DAG_TASKS]; jobs.len()];
    let mut next = 0usize;
    loop {
        let now = match (arrivals.get(next), running.peek()) {
            (Some(&a), Some(Reverse(r))) => a.min(r.0),
            (Some(&a), None) => a,
            (None, Some(Reverse(r))) => r.0,
            (None, None) => break,
        };
        while let Some(Reverse((at, _, node, p))) = running.peek().copied() {
            if at != now {
                break;
            }
            running.pop();
            idle[node] += p;
        }
        while next < jobs.len() && arrivals[next] == now {
            queue.push(next);
            next += 1;
        }
        queue.retain(|&j| {
            let keep = jobs[j].curve.can_earn(now - arrivals[j]);
            if !keep {
                res.dropped += 1;
                digest.u32(j as u32);
                digest.bytes(b"drop");
            }
            keep
        });
        while !queue.is_empty() {
            // The largest bid, the lowest node on ties.
            let (node, bid) =
                idle.iter()
                    .enumerate()
                    .fold((0, 0), |b, (i, &c)| if c > b.1 { (i, c) } else { b });
            if bid == 0 {
                break;
            }
            let (pos, alloc) = match approach {
                Approach::Pba => {
                    let profiles = profiles.unwrap_or(&[]);
                    let mut best: Option<(Ratio, usize, usize)> = None;
                    for (pos, &j) in queue.iter().enumerate() {
                        let waited = now - arrivals[j];
                        if let Some(c) =
                            pba_choose(&profiles[j], &jobs[j].curve, waited, bid as usize)
                        {
                            if best
                                .as_ref()
                                .is_none_or(|b| c.score.cmp_exact(&b.0) == Ordering::Greater)
                            {
                                best = Some((c.score, pos, c.profile));
                            }
                        }
                    }
                    let Some((_, pos, k)) = best else { break };
                    let j = queue[pos];
                    let p = &profiles[j][k];
                    let schedule = evaluate(&jobs[j].dag, table, &p.mapping, &p.levels)?;
                    let alloc = Allocation {
                        mapping: p.mapping,
                        levels: p.levels,
                        schedule,
                        evals: 0,
                    };
                    (pos, alloc)
                }
                _ => {
                    let mut best: Option<(u64, usize)> = None;
                    for (pos, &j) in queue.iter().enumerate() {
                        let c = (bid as usize).min(jobs[j].dag.len());
                        let (_, rt) = nba_mapping(&mut cache[j], &jobs[j], c, table)?;
                        let v = jobs[j].curve.value(now - arrivals[j] + rt).0;
                        if best.is_none_or(|b| v > b.0) {
                            best = Some((v, pos));
                        }
                    }
                    let Some((_, pos)) = best else { break };
                    let j = queue[pos];
                    let c = (bid as usize).min(jobs[j].dag.len());
                    let (m, _) = nba_mapping(&mut cache[j], &jobs[j], c, table)?;
                    let (dag, curve, waited) = (&jobs[j].dag, &jobs[j].curve, now - arrivals[j]);
                    let alloc = match approach {
                        Approach::NbaFcps => nba_fcps(dag, table, curve, &m, waited)?,
                        Approach::NbaFtps => nba_ftps(dag, table, curve, &m, waited)?,
                        _ => valopt(dag, table, &m)?,
                    };
                    (pos, alloc)
                }
            };
            let j = queue.remove(pos);
            let delay = Micros(setup.overhead.0.saturating_mul(alloc.evals as u64));
            let start = now.saturating_add(delay);
            let end = start.saturating_add(alloc.schedule.rt);
            let p = alloc.schedule.cores();
            idle[node] -= p;
            running.push(Reverse((end, j, node, p)));
            let v = jobs[j].curve.value(end - arrivals[j]).0;
            res.value += v;
            res.energy_nj += alloc.schedule.energy_nj;
            res.executed += 1;
            res.evals += alloc.evals as u64;
            if v == 0 {
                res.zero_value += 1;
            }
            digest.u32(j as u32);
            digest.u32(node as u32);
            digest.u64(start.0);
            for x in 0..jobs[j].dag.len() {
                digest.bytes(&[alloc.mapping.core[x], alloc.levels.level[x]]);
                let (c, l) = (p as usize - 1, alloc.levels.level[x] as usize);
                if let Some(n) = res.choices.get_mut(c).and_then(|r| r.get_mut(l)) {
                    *n += 1;
                }
            }
        }
    }
    digest.u64(res.value);
    digest.u64(res.energy_nj);
    digest.u32(res.dropped);
    digest.u32(res.zero_value);
    res.digest = digest.value();
    Ok(res)
}

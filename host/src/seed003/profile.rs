//! PBA's design-time profiling (§7.2.1, R13): for each job and each core count k = 1..|T|, a
//! mapping onto at most k cores and a level per task minimising RT x E_total, found by a
//! genetic algorithm "as in \[117\]" (the paper gives no parameters).
//!
//! A chromosome is a (core in 0..k, level) pair per task, decoded by the core's evaluator in
//! the job's list order. The population starts from the NBA list schedule on k cores at the
//! fastest level and from Alg. 7.3's greedy on it under 1 / (RT x E), the rest random; then
//! size-2 tournaments, uniform crossover, a per-value mutation rate of 1 / (2|T|) (one change a
//! child on average), and elitism: the result is never worse than either seed. Ties in fitness
//! keep the earlier individual (stable sorts). Each (job, k) has its own ChaCha stream
//! (`seed003-ga`, index job x 16 + k), so the profiles are the same for any thread count and
//! any order; jobs are profiled in parallel (rayon) and collected in job order.

use super::generate::Job;
use super::model::{Ga, Model};
use crate::generate::rng::Stream;
use kairos_core::dag::error::DagError;
use kairos_core::dag::evaluator::{evaluate, Levels, Mapping, Schedule};
use kairos_core::dag::job::DagJob;
use kairos_core::dag::list::list_schedule;
use kairos_core::dag::nba_ftps::greedy_tasks;
use kairos_core::dag::pba::Profile;
use kairos_core::dag::power::DvfsTable;
use kairos_core::dag::value::Ratio;
use kairos_core::digest::Digest;
use kairos_core::limits::MAX_DAG_TASKS;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// RT x E_total (microseconds x nanojoules), the profile's objective (lower is better).
fn cost(s: &Schedule) -> u128 {
    s.rt.0 as u128 * s.energy_nj as u128
}

#[derive(Clone, Copy)]
struct Individual {
    m: Mapping,
    l: Levels,
    cost: u128,
}

fn decode(job: &DagJob, t: &DvfsTable, m: Mapping, l: Levels) -> Result<Individual, DagError> {
    let s = evaluate(job, t, &m, &l)?;
    Ok(Individual {
        m,
        l,
        cost: cost(&s),
    })
}

/// The best allocation of `job` onto at most `k` cores under RT x E (R13), from stream `r`.
pub fn profile_k(
    job: &DagJob,
    t: &DvfsTable,
    k: usize,
    ga: &Ga,
    r: &mut Stream,
) -> Result<Profile, DagError> {
    let n = job.len();
    let levels = t.levels() as u64;
    let m0 = list_schedule(job, k)?;
    let (l1, _, _) = greedy_tasks(job, t, &m0, &Levels::FASTEST, |s| {
        Some(Ratio::new(1, cost(s)))
    })?;
    let mut pop = vec![
        decode(job, t, m0, Levels::FASTEST)?,
        decode(job, t, m0, l1)?,
    ];
    while pop.len() < ga.population as usize {
        let mut m = Mapping::default();
        let mut l = Levels::FASTEST;
        for x in 0..n {
            m.core[x] = r.int(0, k as u64 - 1) as u8;
            l.level[x] = r.int(0, levels - 1) as u8;
        }
        pop.push(decode(job, t, m, l)?);
    }
    pop.truncate(ga.population as usize);
    pop.sort_by_key(|i| i.cost);
    let rate = 1.0 / (2.0 * n as f64);
    for _ in 0..ga.generations {
        let mut next: Vec<Individual> = pop[..ga.elitism as usize].to_vec();
        while next.len() < pop.len() {
            let mut pick = || {
                let a = r.int(0, pop.len() as u64 - 1) as usize;
                let b = r.int(0, pop.len() as u64 - 1) as usize;
                // The population is sorted: the lower index is the fitter (or the equal).
                pop[a.min(b)]
            };
            let (p, q) = (pick(), pick());
            let mut child = p;
            if r.unit() < ga.crossover {
                for x in 0..n {
                    if r.unit() < 0.5 {
                        child.m.core[x] = q.m.core[x];
                        child.l.level[x] = q.l.level[x];
                    }
                }
            }
            for x in 0..n {
                if r.unit() < rate {
                    child.m.core[x] = r.int(0, k as u64 - 1) as u8;
                }
                if r.unit() < rate {
                    child.l.level[x] = r.int(0, levels - 1) as u8;
                }
            }
            next.push(decode(job, t, child.m, child.l)?);
        }
        next.sort_by_key(|i| i.cost);
        pop = next;
    }
    let best = pop[0];
    Profile::of(job, t, &best.m, &best.l)
}

/// A job's profiles, k = 1..|T| (index k - 1).
pub fn profile_job(
    seed: u64,
    trial: u32,
    index: u32,
    job: &DagJob,
    t: &DvfsTable,
    ga: &Ga,
) -> Result<Vec<Profile>, DagError> {
    (1..=job.len())
        .map(|k| {
            let mut r = Stream::new(
                seed,
                trial,
                "seed003-ga",
                index * MAX_DAG_TASKS as u32 + k as u32,
            );
            profile_k(job, t, k, ga, &mut r)
        })
        .collect()
}

/// Every job's profiles, in parallel over the jobs, in job order.
pub fn profile_all(
    seed: u64,
    trial: u32,
    jobs: &[Job],
    t: &DvfsTable,
    ga: &Ga,
) -> Result<Vec<Vec<Profile>>, DagError> {
    jobs.par_iter()
        .enumerate()
        .map(|(i, j)| profile_job(seed, trial, i as u32, &j.dag, t, ga))
        .collect()
}

/// The profile cache's format version: part of every file's key, bumped whenever the GA, the
/// generator or this format changes what a key's profiles would be.
const CACHE_VERSION: u32 = 2;

/// The file of a trial's profiles in the cache `dir`: named by a hash of everything the
/// profiles depend on (the format version, the seed, the trial, the workload's knobs, the
/// static power and the GA's parameters).
pub fn cache_file(dir: &Path, m: &Model, trial: u32) -> PathBuf {
    let mut d = Digest::new();
    // The profiles depend on the DAGs and the power model, not on the value curves (they
    // minimise RT x E): experiments that differ only in the curves share them.
    let w = &m.workload;
    let p = &m.platform;
    let key = format!(
        "v{CACHE_VERSION}:{}:{trial}:{}:{:?}:{}:{:?}:{}:{}:{}:{}:{}:{:?}",
        m.seed,
        w.jobs,
        w.tasks,
        w.edge_probability,
        w.wcet_s,
        w.s_w,
        w.ccr,
        p.table.key(),
        p.p_static_w,
        p.freq_bound,
        m.ga
    );
    d.bytes(key.as_bytes());
    dir.join(format!("trial{trial}-{:016x}.bin", d.value()))
}

/// Writes a trial's profiles (per job: a count, then per profile 16 cores, 16 levels, RT,
/// energy and used cores, little-endian).
pub fn write_cache(path: &Path, profiles: &[Vec<Profile>]) -> std::io::Result<()> {
    let mut b = Vec::new();
    b.extend_from_slice(&(profiles.len() as u32).to_le_bytes());
    for ps in profiles {
        b.push(ps.len() as u8);
        for p in ps {
            b.extend_from_slice(&p.mapping.core);
            b.extend_from_slice(&p.levels.level);
            b.extend_from_slice(&p.rt.0.to_le_bytes());
            b.extend_from_slice(&p.energy_nj.to_le_bytes());
            b.extend_from_slice(&p.cores.to_le_bytes());
        }
    }
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    // Written aside and renamed, so a reader never sees half a file.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, b)?;
    std::fs::rename(tmp, path)
}

/// A trial's profiles from the cache, if the file exists and matches `jobs`: one list per
/// job, one profile per task count, each re-evaluated to the stored RT and energy (a stale
/// or damaged file is ignored, and the profiles recomputed).
pub fn read_cache(path: &Path, jobs: &[Job], t: &DvfsTable) -> Option<Vec<Vec<Profile>>> {
    let bytes = crate::bounded::read(path, crate::bounded::BINARY_FILE_BYTES, "profile cache");
    parse_cache(&bytes.ok()?, jobs, t)
}

/// [`read_cache`] of a file's bytes `b` (the fuzz target `seed003_profile_cache` feeds it
/// any bytes: a damaged file is `None`, never a panic).
pub fn parse_cache(b: &[u8], jobs: &[Job], t: &DvfsTable) -> Option<Vec<Vec<Profile>>> {
    let mut at = 0usize;
    let mut take = |n: usize| {
        let s = b.get(at..at + n)?;
        at += n;
        Some(s)
    };
    let count = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
    if count != jobs.len() {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    for j in jobs {
        let k = take(1)?[0] as usize;
        if k != j.dag.len() {
            return None;
        }
        let mut ps = Vec::with_capacity(k);
        for _ in 0..k {
            let mut m = Mapping::default();
            let mut l = Levels::FASTEST;
            m.core.copy_from_slice(take(MAX_DAG_TASKS)?);
            l.level.copy_from_slice(take(MAX_DAG_TASKS)?);
            let rt = u64::from_le_bytes(take(8)?.try_into().ok()?);
            let e = u64::from_le_bytes(take(8)?.try_into().ok()?);
            let c = u32::from_le_bytes(take(4)?.try_into().ok()?);
            let p = Profile::of(&j.dag, t, &m, &l).ok()?;
            if (p.rt.0, p.energy_nj, p.cores) != (rt, e, c) {
                return None;
            }
            ps.push(p);
        }
        out.push(ps);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed003::generate;
    use crate::seed003::model::Workload;
    use kairos_core::units::MilliWatts;

    /// Never worse than the list schedule at the fastest level or the greedy on it (elitism),
    /// within k cores, and the same for any thread count.
    #[test]
    fn profiles_beat_their_seeds_and_ignore_threads() {
        let w = Workload::default();
        let t = DvfsTable::r1(MilliWatts(600));
        let ga = Ga {
            generations: 10,
            ..Ga::default()
        };
        let jobs: Vec<Job> = (0..6)
            .map(|i| generate::job(9, 0, i, &w).unwrap())
            .collect();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| profile_all(9, 0, &jobs, &t, &ga).unwrap());
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| profile_all(9, 0, &jobs, &t, &ga).unwrap());
        assert_eq!(one, two);
        for (j, ps) in jobs.iter().zip(&one) {
            assert_eq!(ps.len(), j.dag.len());
            for (i, p) in ps.iter().enumerate() {
                let k = i + 1;
                assert!(p.cores as usize <= k);
                assert!((0..j.dag.len()).all(|x| (p.mapping.core[x] as usize) < k));
                let m0 = list_schedule(&j.dag, k).unwrap();
                let s0 = evaluate(&j.dag, &t, &m0, &Levels::FASTEST).unwrap();
                assert!(p.rt.0 as u128 * p.energy_nj as u128 <= cost(&s0));
            }
        }
    }
}

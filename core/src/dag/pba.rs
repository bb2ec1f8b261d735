//! PBA's run-time half (Alg. 7.1): choosing, from a job's design-time profiles, how many cores
//! it takes and with which stored allocation, and the score by which the queue's jobs compete
//! (maxValuePerEnergyJob).
//!
//! A job's profiles are one per core count k = 1..|T| (profile `k - 1`: a mapping onto at most
//! k cores and a level per task, minimising RT x E_total; the host's genetic algorithm finds
//! them, `kairos_host::seed003::profile`). At run time, with `maxBid` idle cores on the best
//! node: k* = argmax_k VC(waited + RT_k) / E_k (ties: fewer cores), k = min(maxBid, k*) (the
//! paper's rule read literally, spec §5.3), and the job's score is VC(waited + RT_k) / E_k.
//! Storage is the caller's: the profiles are a slice.

use crate::dag::error::DagError;
use crate::dag::evaluator::{evaluate, Levels, Mapping};
use crate::dag::job::DagJob;
use crate::dag::power::DvfsTable;
use crate::dag::value::{Ratio, ValueCurve};
use crate::units::{Micros, Utility};
use core::cmp::Ordering;

/// One design-time profile: an allocation of a job onto at most k cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The core of each task (below k).
    pub mapping: Mapping,
    /// The level of each task.
    pub levels: Levels,
    /// The response time.
    pub rt: Micros,
    /// E_total, nanojoules.
    pub energy_nj: u64,
    /// The cores it uses, p_k (at most k).
    pub cores: u32,
}

impl Profile {
    /// The profile of mapping `m` and levels `l` (evaluated).
    pub fn of(
        job: &DagJob,
        table: &DvfsTable,
        m: &Mapping,
        l: &Levels,
    ) -> Result<Profile, DagError> {
        let s = evaluate(job, table, m, l)?;
        Ok(Profile {
            mapping: *m,
            levels: *l,
            rt: s.rt,
            energy_nj: s.energy_nj,
            cores: s.cores(),
        })
    }
}

/// PBA's choice for one queued job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PbaChoice {
    /// The index of the chosen profile (k - 1).
    pub profile: usize,
    /// The value if it starts now.
    pub value: Utility,
    /// Its value per energy, the queue's ordering.
    pub score: Ratio,
}

/// The choice for a job that has waited `waited`, with `max_bid` idle cores on the chosen
/// node; `None` without idle cores or profiles.
pub fn pba_choose(
    profiles: &[Profile],
    curve: &ValueCurve,
    waited: Micros,
    max_bid: usize,
) -> Option<PbaChoice> {
    if max_bid == 0 || profiles.is_empty() {
        return None;
    }
    let score = |p: &Profile| {
        let v = curve.value(waited.saturating_add(p.rt));
        (v, Ratio::per_energy(v, p.energy_nj))
    };
    let mut star = 0;
    let mut best = score(&profiles[0]).1;
    for (i, p) in profiles.iter().enumerate().skip(1) {
        let r = score(p).1;
        if r.cmp_exact(&best) == Ordering::Greater {
            star = i;
            best = r;
        }
    }
    let k = star.min(max_bid - 1);
    let (value, score) = score(&profiles[k]);
    Some(PbaChoice {
        profile: k,
        value,
        score,
    })
}

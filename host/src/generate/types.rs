//! Task types of seed 000 §IV.B as MODEL.md resolves them: priority and urgency (Table I),
//! base time, cores (Table II), Downey speedup over nodes, ETC and APC by the COV method, and
//! the P-state scalings.
//!
//! Each purpose draws from its own stream of the type (see [`super::rng`]), in a fixed order
//! within the stream: ("priority", i), ("base-time", i), ("cores", i), ("downey", i),
//! ("etc", i), ("apc", i), ("pstates", i). The per-cluster draws visit the eligible clusters
//! in platform order.

use super::rng::Stream;
use crate::scenario::Scenario;
use kairos_core::limits::MAX_PSTATES;
use kairos_core::platform::{Cluster, ClusterKind, Placement};
use kairos_core::units::{Cores, Micros, MilliWatts};
use kairos_core::utility::Urgency;
use serde::Serialize;

/// A priority level of Table I: its name and the range of its starting utility.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Level {
    /// critical, high, medium or low.
    pub name: &'static str,
    /// Lower end of the starting utility (exclusive, except 1 for low, where it has
    /// probability zero anyway).
    pub lo: f64,
    /// Upper end (inclusive).
    pub hi: f64,
}

/// The four priority levels of seed 000 Table I, most valuable first.
pub const LEVELS: [Level; 4] = [
    Level {
        name: "critical",
        lo: 6.0,
        hi: 8.0,
    },
    Level {
        name: "high",
        lo: 4.0,
        hi: 6.0,
    },
    Level {
        name: "medium",
        lo: 2.0,
        hi: 4.0,
    },
    Level {
        name: "low",
        lo: 1.0,
        hi: 2.0,
    },
];

/// Seed 000 Table I: the share of task types at each (level, urgency), in hundredths of a
/// percent (rows follow [`LEVELS`], columns [`Urgency::ALL`]: 0.6, 0.2, 0.1, 0.01 per minute).
/// The cells add up to 10,000.
pub const TABLE_I: [[u32; 4]; 4] = [
    [200, 200, 5, 0],
    [345, 500, 150, 300],
    [0, 1000, 1000, 1000],
    [0, 0, 2000, 3300],
];

/// Seed 000 Table II for a largest size of `max` cores: (percent of types, min cores, max
/// cores). On a platform smaller than the table assumes (max <= 4097) every bound is clamped
/// to [1, max], so a row may collapse to a single size; ESSC never needs it.
pub fn table_ii(max: u64) -> [(u32, u64, u64); 5] {
    let rows = [
        (20, 2, 4),
        (20, 5, 256),
        (40, 257, 4096),
        (19, 4097, max.saturating_sub(1)),
        (1, max, max),
    ];
    rows.map(|(pct, lo, hi): (u32, u64, u64)| {
        let hi = hi.clamp(1, max.max(1));
        (pct, lo.clamp(1, hi), hi)
    })
}

/// Downey's speedup S(n) of a program of average parallelism `a` and variance `sigma` on
/// `n` processors (Downey 1997, seed 000 ref \[4\]): the high-variance form for sigma >= 1,
/// the low-variance form below. S(1) = 1 and S(n) = a once n is large enough.
pub fn downey_speedup(n: f64, a: f64, sigma: f64) -> f64 {
    if sigma >= 1.0 {
        if n <= a + a * sigma - sigma {
            n * a * (sigma + 1.0) / (sigma * (n + a - 1.0) + a)
        } else {
            a
        }
    } else if n <= a {
        a * n / (a + sigma / 2.0 * (n - 1.0))
    } else if n <= 2.0 * a - 1.0 {
        a * n / (sigma * (a - 0.5) + n * (1.0 - sigma / 2.0))
    } else {
        a
    }
}

/// Everything drawn for one task type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TypeInfo {
    /// General or special purpose.
    #[serde(serialize_with = "kind_name")]
    pub kind: ClusterKind,
    /// The clusters it may run on (indices into the platform).
    pub eligible: Vec<u8>,
    /// Its Table I level (index into [`LEVELS`]).
    pub level: usize,
    /// Its starting utility.
    pub priority: f64,
    /// Its urgency.
    #[serde(serialize_with = "urgency_rate")]
    pub urgency: Urgency,
    /// Base time (the time on one node, before heterogeneity), in seconds.
    pub base_time_s: f64,
    /// Cores a task of the type uses (Table II).
    pub cores: u64,
    /// Downey sigma.
    pub sigma: f64,
    /// Mean execution time over its eligible clusters at P-state 0: the base of the first
    /// utility interval.
    pub mean_exec: Micros,
    /// Placement on each cluster of the platform (`None` where it may not run).
    pub placements: Vec<Option<Placement>>,
}

fn kind_name<S: serde::Serializer>(k: &ClusterKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match k {
        ClusterKind::General => "general",
        ClusterKind::Special => "special",
    })
}

fn urgency_rate<S: serde::Serializer>(u: &Urgency, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(u.per_min())
}

/// Seconds to whole microseconds, at least 1 (the core rejects zero durations).
fn micros(secs: f64) -> Micros {
    Micros::from_secs_f64(secs).max(Micros(1))
}

/// Watts to whole milliwatts, at least 1.
fn milliwatts(w: f64) -> MilliWatts {
    let mw = libm::round(w * 1000.0);
    MilliWatts(if mw >= u32::MAX as f64 {
        u32::MAX
    } else if mw >= 1.0 {
        mw as u32
    } else {
        1
    })
}

/// Draws task type `index` of kind `kind`, eligible on `eligible` (cluster indices), of
/// scenario `s` in trial `trial`, on `clusters`.
pub fn draw_type(
    s: &Scenario,
    trial: u32,
    index: u32,
    kind: ClusterKind,
    eligible: &[u8],
    clusters: &[Cluster],
) -> TypeInfo {
    let w = &s.workload;
    let stream = |purpose: &str| Stream::new(s.seed, trial, purpose, index);

    // Table I: one cell by its share, then the starting utility uniform in the level's range.
    let mut r = stream("priority");
    let cell = r.int(0, 9_999) as u32;
    let (mut level, mut urgency, mut acc) = (3, Urgency::Low, 0u32);
    'found: for (li, row) in TABLE_I.iter().enumerate() {
        for (ui, share) in row.iter().enumerate() {
            acc += share;
            if cell < acc {
                (level, urgency) = (li, Urgency::ALL[ui]);
                break 'found;
            }
        }
    }
    let lv = LEVELS[level];
    let priority = lv.hi - (lv.hi - lv.lo) * r.unit();

    // Base time: Gaussian around 1 h + (u - 1) / 7 x 17 h (for the default range), COV 0.15;
    // non-positive draws are drawn again.
    let [t_lo, t_hi] = w.base_time_hours;
    let mean_h = t_lo + (priority - 1.0) / 7.0 * (t_hi - t_lo);
    let mean_s = mean_h * 3600.0;
    let mut r = stream("base-time");
    let base_time_s = loop {
        let x = mean_s + mean_s * w.cov.base_time * r.normal();
        if x > 0.0 {
            break x;
        }
    };

    // Cores: Table II with the smallest eligible cluster as "max cores of cluster".
    let max_cores = eligible
        .iter()
        .map(|&c| clusters[c as usize].cores().0)
        .min()
        .unwrap_or(1);
    let mut r = stream("cores");
    let pick = r.int(0, 99) as u32;
    let rows = table_ii(max_cores);
    let mut acc = 0;
    let mut row = rows[rows.len() - 1];
    for x in rows {
        acc += x.0;
        if pick < acc {
            row = x;
            break;
        }
    }
    let cores = r.int(row.1, row.2);

    let [s_lo, s_hi] = w.downey_sigma;
    let sigma = stream("downey").uniform(s_lo, s_hi);

    // Per cluster: nodes, base time on the cluster (COV method), Downey time on the nodes,
    // node power (COV method, two levels: the type's mean, then the cluster's), P-states.
    let (cov_r, cov_p) = match kind {
        ClusterKind::General => (w.cov.randomness_general, w.cov.pstate_general),
        ClusterKind::Special => (w.cov.randomness_special, w.cov.pstate_special),
    };
    let mut etc_r = stream("etc");
    let mut apc_r = stream("apc");
    let mut ps_r = stream("pstates");
    let type_power = apc_r.gamma_mean_cov(w.apc_mean_watts, w.cov.apc);
    let scales = &s.platform.pstates;
    let mut placements = vec![None; clusters.len()];
    for &ci in eligible {
        let cl = &clusters[ci as usize];
        let nodes = cl.nodes_for_cores(Cores(cores));
        let on_cluster = etc_r.gamma_mean_cov(base_time_s, w.cov.etc);
        let n = nodes.0 as f64;
        let time0 = on_cluster / downey_speedup(n, n, sigma);
        let power0 = apc_r.gamma_mean_cov(type_power, w.cov.apc);
        let rand = ps_r.gamma_mean_cov(1.0, cov_r);
        let mut etc = [Micros::ZERO; MAX_PSTATES];
        let mut apc = [MilliWatts(0); MAX_PSTATES];
        for (p, &scale) in scales.iter().enumerate() {
            apc[p] = milliwatts(power0 * ps_r.gamma_mean_cov(scale * rand, cov_p));
        }
        for (p, &scale) in scales.iter().enumerate() {
            let f = ps_r.gamma_mean_cov(libm::sqrt(scale) * rand, cov_p);
            etc[p] = micros(time0 / f);
        }
        placements[ci as usize] = Some(Placement { nodes, etc, apc });
    }
    let (sum, count) = placements
        .iter()
        .flatten()
        .fold((0u128, 0u128), |(s, n), p| (s + p.etc[0].0 as u128, n + 1));
    let mean_exec = Micros(((sum + count / 2) / count.max(1)) as u64);
    TypeInfo {
        kind,
        eligible: eligible.to_vec(),
        level,
        priority,
        urgency,
        base_time_s,
        cores,
        sigma,
        mean_exec,
        placements,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_i_adds_up_to_one() {
        let total: u32 = TABLE_I.iter().flatten().sum();
        assert_eq!(total, 10_000);
    }

    #[test]
    fn table_ii_for_essc_and_for_small_platforms() {
        assert_eq!(
            table_ii(12_800),
            [
                (20, 2, 4),
                (20, 5, 256),
                (40, 257, 4096),
                (19, 4097, 12_799),
                (1, 12_800, 12_800)
            ]
        );
        assert_eq!(table_ii(100)[2], (40, 100, 100));
        assert_eq!(table_ii(100)[3], (19, 99, 99));
        assert_eq!(table_ii(1)[0], (20, 1, 1));
    }

    #[test]
    fn downey_by_hand() {
        // S(1) = 1 in both forms.
        assert!(libm::fabs(downey_speedup(1.0, 1.0, 4.0) - 1.0) < 1e-12);
        assert!(libm::fabs(downey_speedup(1.0, 1.0, 0.5) - 1.0) < 1e-12);
        // High variance, A = n = 10, sigma = 4: 10 x 10 x 5 / (4 x 19 + 10) = 500 / 86.
        assert!(libm::fabs(downey_speedup(10.0, 10.0, 4.0) - 500.0 / 86.0) < 1e-12);
        // Low variance, A = n = 10, sigma = 0.5: 100 / (10 + 0.25 x 9) = 100 / 12.25.
        assert!(libm::fabs(downey_speedup(10.0, 10.0, 0.5) - 100.0 / 12.25) < 1e-12);
        // The two forms meet at sigma = 1: 2A^2 / (3A - 1).
        assert!(libm::fabs(downey_speedup(10.0, 10.0, 1.0) - 200.0 / 29.0) < 1e-12);
        // Past A + A sigma - sigma processors, the speedup is A.
        assert_eq!(downey_speedup(100.0, 10.0, 4.0), 10.0);
    }
}

//! Unit tests of the replay analysis: selection, percentiles, classes, the cut, the
//! utilisation over the window and the plots' step means.

use super::plots::{queue_svg, step_means, utilisation_svg, Labels, BUCKETS};
use super::*;

fn job(id: u64, submit: u64, start: u64, end: u64, procs: u32) -> JobRecord {
    JobRecord {
        id,
        line: id as usize,
        submit: submit * 1_000_000,
        start: start * 1_000_000,
        end: end * 1_000_000,
        procs,
        request: (end - start) * 1_000_000,
    }
}

fn rj(id: u64, submit: u64) -> ReplayJob {
    ReplayJob {
        id,
        submit: submit * 1_000_000,
        runtime: 1_000_000,
        request: 1_000_000,
        procs: 1,
        line: id as usize,
    }
}

#[test]
fn select_takes_the_window_then_the_first_n() {
    let jobs: Vec<ReplayJob> = (1..=10).map(|i| rj(i, i * 10)).collect();
    let ids = |v: Vec<ReplayJob>| v.iter().map(|j| j.id).collect::<Vec<_>>();
    assert_eq!(ids(select(jobs.clone(), Some(3), None).unwrap()), [1, 2, 3]);
    let w = Some((25_000_000, 65_000_000));
    assert_eq!(ids(select(jobs.clone(), None, w).unwrap()), [3, 4, 5, 6]);
    assert_eq!(ids(select(jobs.clone(), Some(2), w).unwrap()), [3, 4]);
    assert!(select(jobs.clone(), None, Some((500_000_000, 600_000_000)))
        .unwrap_err()
        .contains("no job"));
    assert!(select(jobs, None, Some((5, 5)))
        .unwrap_err()
        .contains("before the end"));
}

#[test]
fn percentiles_are_nearest_rank() {
    let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
    let d = Distribution::of(&mut v);
    assert_eq!((d.p50, d.p90, d.p99, d.max), (50.0, 90.0, 99.0, 100.0));
    assert_eq!(d.mean, 50.5);
    assert_eq!(Distribution::of(&mut []), Distribution::default());
}

#[test]
fn analysis_cuts_classes_and_bounds() {
    // Job 1: 1 proc, waits 0, runs 5 s (bsld 1 with a 10 s bound, 1 with 1 s too);
    // job 2: 4 procs, waits 10 s, runs 20 s; job 3: 100 procs, waits 30 s, runs 2 h.
    let jobs = [
        job(1, 0, 0, 5, 1),
        job(2, 10, 20, 40, 4),
        job(3, 20, 50, 7_250, 100),
    ];
    let a = analyse(&jobs, 128, &AnalysisOptions::default());
    assert_eq!(a.jobs, 3);
    assert_eq!(a.wait_s.max, 30.0);
    assert_eq!(a.wait_s.p50, 10.0);
    assert_eq!(a.bsld.max, 1.5);
    let classes: Vec<&str> = a.by_size.iter().map(|c| c.class).collect();
    assert_eq!(classes, ["1", "2-4", "65-256"]);
    let lengths: Vec<&str> = a.by_length.iter().map(|c| c.class).collect();
    assert_eq!(lengths, ["under 1 min", "1-10 h"]);
    // A 1 s bound: job 1's slowdown is 5/5 = 1, job 2's still 30/20.
    let b = analyse(
        &jobs,
        128,
        &AnalysisOptions {
            bsld_bound: 1_000_000,
            ..AnalysisOptions::default()
        },
    );
    assert_eq!(b.bsld.max, 1.5);
    assert_eq!(b.bsld_bound_s, 1.0);
    // Warm-up 5 s and cool-down 5 s: only job 2 (submitted at 10 s) is measured, and the
    // window is [5 s, 15 s]: job 1 runs 0-5 (outside), job 2 starts at 20 (outside).
    let c = analyse(
        &jobs,
        128,
        &AnalysisOptions {
            warmup: 5_000_000,
            cooldown: 5_000_000,
            ..AnalysisOptions::default()
        },
    );
    assert_eq!(c.jobs, 1);
    assert_eq!((c.window_start_s, c.window_end_s), (5.0, 15.0));
    assert_eq!(c.utilization, 0.0);
    // No cut: window [0 s, 20 s] (first to last submit): job 1's 1 x 5 processor-seconds
    // only (job 2 starts at 20 s) of 128 x 20.
    assert_eq!(a.utilization, 5.0 / (128.0 * 20.0));
}

#[test]
fn step_means_average_over_equal_spans() {
    // Level 2 over [0, 5), 0 after: over two spans of [0, 10): 2 and 0.
    assert_eq!(step_means(vec![(5, -2), (0, 2)], 0, 10, 2), [2.0, 0.0]);
    // Level 1 over [2, 7): spans [0, 5) and [5, 10) hold 3 and 2 units.
    assert_eq!(step_means(vec![(2, 1), (7, -1)], 0, 10, 2), [0.6, 0.4]);
    assert_eq!(step_means(vec![], 5, 5, 3), [0.0, 0.0, 0.0]);
}

#[test]
fn plots_are_bounded_and_deterministic() {
    let jobs: Vec<JobRecord> = (0..5000u64)
        .map(|i| job(i + 1, i, i + 3, i + 50, 1 + (i % 7) as u32))
        .collect();
    let u = utilisation_svg(&jobs, 64, &Labels::titled("t"));
    assert_eq!(u, utilisation_svg(&jobs, 64, &Labels::titled("t")));
    assert!(u.starts_with("<svg") && u.ends_with("</svg>\n"));
    let points = u
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(points.split(' ').count(), BUCKETS);
    let q = queue_svg(&jobs, &Labels::titled("q"));
    assert!(q.contains("jobs waiting"));
    assert!(q.len() < 60_000, "{} bytes", q.len());
}

#[test]
fn total_keys_order_as_total_cmp_and_give_the_value_back() {
    let xs = [
        f64::NEG_INFINITY,
        -1e300,
        -2.5,
        -0.0,
        0.0,
        f64::MIN_POSITIVE,
        1.0,
        3.75,
        f64::INFINITY,
        f64::NAN,
        -f64::NAN,
    ];
    for a in xs {
        assert_eq!(from_total_key(total_key(a)).to_bits(), a.to_bits());
        for b in xs {
            assert_eq!(total_key(a).cmp(&total_key(b)), a.total_cmp(&b), "{a} {b}");
        }
    }
}

/// The one-pass distribution is the one of the sorted values, bit for bit, at every length
/// (the ranks of short classes coincide) and with values that do not add exactly.
#[test]
fn a_running_distribution_is_the_sorted_values_one() {
    let mut s = 0x853c_49e6_748f_ea9bu64;
    let mut draw = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for len in (0..40).chain([99, 100, 101, 1000, 1001]) {
        let mut values: Vec<f64> = (0..len)
            .map(|_| (draw() % 1_000_000) as f64 / 7.0)
            .collect();
        values.sort_by(f64::total_cmp);
        let mut r = Running::new(len);
        for &v in &values {
            r.push(v);
        }
        let (a, b) = (r.finish(), Distribution::of_sorted(&values));
        let bits = |d: &Distribution| [d.mean, d.p50, d.p90, d.p99, d.max].map(f64::to_bits);
        assert_eq!(bits(&a), bits(&b), "{len} values");
    }
}

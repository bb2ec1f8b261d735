//! The model's distributions against what its parameters say analytically, on 200,000 jobs
//! (standard errors about 0.001 for shares and 0.01 for means of ln seconds; the
//! tolerances below are several of them).

use super::*;

fn sample(procs: u32, seed: u64, n: usize) -> Vec<LublinJob> {
    Lublin99::new(procs, seed).take(n).collect()
}

#[test]
fn gamma_cdf_matches_closed_forms() {
    for &x in &[0.1, 0.5, 1.0, 2.5, 4.0, 10.0] {
        // Shape 1: exponential; shape 2: 1 - e^-x (1 + x); both branches are crossed.
        assert!((gamma_cdf(x, 1.0, 1.0) - (1.0 - (-x).exp())).abs() < 1e-12);
        let two = 1.0 - (-x).exp() * (1.0 + x);
        assert!((gamma_cdf(x, 2.0, 1.0) - two).abs() < 1e-12, "x = {x}");
        // A scale divides x.
        assert!((gamma_cdf(3.0 * x, 2.0, 3.0) - two).abs() < 1e-12);
    }
    assert_eq!(gamma_cdf(0.0, 3.0, 1.0), 0.0);
}

#[test]
fn the_same_seed_gives_the_same_jobs_and_another_seed_others() {
    assert_eq!(sample(1024, 7, 500), sample(1024, 7, 500));
    assert_ne!(sample(1024, 7, 500), sample(1024, 8, 500));
}

#[test]
fn arrivals_increase_and_sizes_fit_the_machine() {
    for procs in [1, 100, 128, 93_312, 163_840] {
        let jobs = sample(procs, 3, 20_000);
        assert!(jobs.windows(2).all(|w| w[0].arrival_s <= w[1].arrival_s));
        assert!(jobs.iter().all(|j| j.procs >= 1 && j.procs <= procs));
        assert!(jobs.iter().all(|j| j.runtime_s >= 1));
        // exp(12) seconds is the longest run time the model draws.
        assert!(jobs
            .iter()
            .all(|j| j.runtime_s as f64 <= TOO_MUCH_TIME.exp()));
    }
}

#[test]
fn sizes_follow_the_parameters() {
    let jobs = sample(128, 11, 200_000);
    for batch in [false, true] {
        let p = if batch { BATCH } else { INTERACTIVE };
        let of: Vec<&LublinJob> = jobs.iter().filter(|j| j.batch == batch).collect();
        let n = of.len() as f64;
        assert!(n > 20_000.0, "both types are common: {n}");
        let serial = of.iter().filter(|j| j.procs == 1).count() as f64 / n;
        assert!(
            (serial - p.serial_prob).abs() < 0.01,
            "serial share {serial} vs {}",
            p.serial_prob
        );
        // Power-of-two jobs: the pow2 share, plus the other parallel jobs whose 2^x rounds
        // to a power of two anyway (at least the pow2 share itself).
        let pow2 = of
            .iter()
            .filter(|j| j.procs > 1 && j.procs.is_power_of_two())
            .count() as f64
            / n;
        assert!(pow2 >= p.pow2_prob - 0.01, "pow2 share {pow2}");
        // The mean of log2(size) over non-power-of-two-rounded parallel jobs is the two-stage
        // uniform's mean; over all parallel jobs rounding moves it little. Checked on the
        // mean of x itself through the largest sizes: none above 2^uhi.
        let max = of.iter().map(|j| j.procs).max().unwrap();
        assert!(f64::from(max) <= libm::pow(2.0, p.uhi) + 0.5);
    }
}

#[test]
fn serial_run_times_follow_the_hyper_gamma() {
    let jobs = sample(128, 12, 200_000);
    for batch in [false, true] {
        let p = if batch { BATCH } else { INTERACTIVE };
        let ln: Vec<f64> = jobs
            .iter()
            .filter(|j| j.batch == batch && j.procs == 1)
            .map(|j| (j.runtime_s as f64 + 0.5).ln())
            .collect();
        let mean = ln.iter().sum::<f64>() / ln.len() as f64;
        let first = (p.pa + p.pb).clamp(0.0, 1.0);
        let expected = first * p.a1 * p.b1 + (1.0 - first) * p.a2 * p.b2;
        assert!(
            (mean - expected).abs() < 0.1,
            "batch {batch}: mean ln run time {mean} vs {expected}"
        );
    }
}

#[test]
fn arrivals_follow_the_daily_cycle() {
    let jobs = sample(128, 13, 200_000);
    let mut per_hour = [0u64; 24];
    for j in &jobs {
        per_hour[((j.arrival_s / 3600.0) as u64 % 24) as usize] += 1;
    }
    let day: u64 = per_hour[9..18].iter().sum();
    let night: u64 = per_hour[0..6].iter().sum();
    // The model's cycle puts its peak in working hours: nine day hours get well over three
    // times what six night hours get.
    assert!(day > 3 * night, "day {day}, night {night}");
    // And the weights are normalized to a mean of 1.
    let a = Arrivals::new(BATCH, Stream::new(1, 0, "t", 0));
    let mean = a.weights.iter().sum::<f64>() / BUCKETS as f64;
    assert!((mean - 1.0).abs() < 1e-12);
}

#[test]
fn a_load_is_reached() {
    let options = Lublin99Options {
        procs: 1024,
        jobs: 20_000,
        load: Some(0.7),
        seed: 5,
    };
    let mut out = Vec::new();
    let g = write_swf(&mut out, &options).unwrap();
    assert_eq!(g.jobs, 20_000);
    assert!((g.load - 0.7).abs() < 0.01, "load {}", g.load);
    // The log reads back as SWF with the same jobs.
    let log = crate::swf::parse("gen.swf", &out, &Default::default()).unwrap();
    assert_eq!(log.jobs.len(), 20_000);
    assert_eq!(log.header.max_procs, Some(1024));
    assert!(log.jobs.iter().all(|j| j.requested_us == j.run_us));
}

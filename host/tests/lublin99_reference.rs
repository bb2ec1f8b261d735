//! `kairos generate-swf --model lublin99` against the PyPI package `parallelworkloads`, a
//! Python port of the model's reference code, installed into `target/pyenv` by
//! `scripts/setup-parallelworkloads.sh` (called from `scripts/test`). Both draw 50,000 jobs
//! of the model's published 128-processor parameters, and these statistics must agree within
//! the tolerances below (each several standard errors at this sample size):
//! - sizes: the serial share (±0.02) and the power-of-two share (±0.03) of all jobs; the
//!   mean of log2(size) (±0.15); the median and 90th percentile of log2(size) (±1, one
//!   power of two);
//! - run times: the mean of ln(seconds) (±0.1) and its 10th, 50th and 90th percentiles
//!   (±0.25);
//! - inter-arrival times: the mean (within 15%: the tail is heavy) and the median of
//!   ln(seconds + 1) (±0.2).
//!
//! When Python, the venv or a usable package is missing, the test prints why it could not
//! compare (and the seeds' draws are still checked by the unit tests of `lublin99`).

use std::path::PathBuf;
use std::process::Command;

use kairos_host::lublin99::Lublin99;

const JOBS: usize = 50_000;

/// The statistics compared.
#[derive(Debug)]
struct Stats {
    serial: f64,
    pow2: f64,
    mean_log2_size: f64,
    log2_size_q: [f64; 2],
    mean_ln_run: f64,
    ln_run_q: [f64; 3],
    mean_gap: f64,
    median_ln_gap: f64,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn stats(submit: &[f64], run: &[f64], procs: &[u32]) -> Stats {
    let n = procs.len() as f64;
    let mut log2: Vec<f64> = procs.iter().map(|&p| f64::from(p).log2()).collect();
    log2.sort_by(f64::total_cmp);
    let mut ln_run: Vec<f64> = run.iter().map(|&r| r.max(1.0).ln()).collect();
    ln_run.sort_by(f64::total_cmp);
    let gaps: Vec<f64> = submit.windows(2).map(|w| w[1] - w[0]).collect();
    let mut ln_gap: Vec<f64> = gaps.iter().map(|g| (g + 1.0).ln()).collect();
    ln_gap.sort_by(f64::total_cmp);
    Stats {
        serial: procs.iter().filter(|&&p| p == 1).count() as f64 / n,
        pow2: procs
            .iter()
            .filter(|&&p| p > 1 && p.is_power_of_two())
            .count() as f64
            / n,
        mean_log2_size: log2.iter().sum::<f64>() / n,
        log2_size_q: [quantile(&log2, 0.5), quantile(&log2, 0.9)],
        mean_ln_run: ln_run.iter().sum::<f64>() / n,
        ln_run_q: [
            quantile(&ln_run, 0.1),
            quantile(&ln_run, 0.5),
            quantile(&ln_run, 0.9),
        ],
        mean_gap: gaps.iter().sum::<f64>() / gaps.len() as f64,
        median_ln_gap: quantile(&ln_gap, 0.5),
    }
}

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KAIROS_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/pyenv/bin/python3");
    venv.exists().then_some(venv)
}

#[test]
fn lublin99_matches_the_parallelworkloads_package() {
    let Some(py) = python() else {
        eprintln!(
            "NOT COMPARED: no Python venv at target/pyenv (run scripts/setup-parallelworkloads.sh; \
             python3 may be missing)"
        );
        return;
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/lublin99_reference.py");
    let out = Command::new(&py)
        .arg(&script)
        .args([JOBS.to_string(), "7".to_string()])
        .output()
        .unwrap_or_else(|e| panic!("{}: cannot run: {e}", py.display()));
    if out.status.code() == Some(3) {
        eprintln!(
            "NOT COMPARED: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return;
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let floats = |k: &str| -> Vec<f64> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let procs: Vec<u32> = floats("procs").iter().map(|&p| p as u32).collect();
    let theirs = stats(&floats("submit"), &floats("run"), &procs);
    compare(&ours(7), &theirs);
}

/// The statistics of our model's first [`JOBS`] jobs from `seed`, at 128 processors (whole
/// seconds, as the reference code prints them).
fn ours(seed: u64) -> Stats {
    let jobs: Vec<_> = Lublin99::new(128, seed).take(JOBS).collect();
    stats(
        &jobs.iter().map(|j| j.arrival_s.floor()).collect::<Vec<_>>(),
        &jobs.iter().map(|j| j.runtime_s as f64).collect::<Vec<_>>(),
        &jobs.iter().map(|j| j.procs).collect::<Vec<_>>(),
    )
}

/// Asserts the tolerances of the module doc.
fn compare(ours: &Stats, theirs: &Stats) {
    eprintln!("ours   {ours:?}\ntheirs {theirs:?}");
    let near = |a: f64, b: f64, tol: f64, what: &str| {
        assert!(
            (a - b).abs() <= tol,
            "{what}: ours {a}, theirs {b}, tolerance {tol}"
        );
    };
    near(ours.serial, theirs.serial, 0.02, "serial share");
    near(ours.pow2, theirs.pow2, 0.03, "power-of-two share");
    near(
        ours.mean_log2_size,
        theirs.mean_log2_size,
        0.15,
        "mean log2 size",
    );
    for i in 0..2 {
        near(
            ours.log2_size_q[i],
            theirs.log2_size_q[i],
            1.0,
            "log2 size quantile",
        );
    }
    near(
        ours.mean_ln_run,
        theirs.mean_ln_run,
        0.1,
        "mean ln run time",
    );
    for i in 0..3 {
        near(
            ours.ln_run_q[i],
            theirs.ln_run_q[i],
            0.25,
            "ln run time quantile",
        );
    }
    near(
        ours.mean_gap / theirs.mean_gap,
        1.0,
        0.15,
        "mean inter-arrival ratio",
    );
    near(
        ours.median_ln_gap,
        theirs.median_ln_gap,
        0.2,
        "median ln inter-arrival",
    );
}

/// The tolerances are wide enough for sampling noise: two seeds of the same model pass
/// them (so a failure against the package means the models differ, not the draws).
#[test]
fn the_tolerances_hold_between_two_seeds_of_the_model() {
    compare(&ours(7), &ours(8));
    compare(&ours(1), &ours(2));
}

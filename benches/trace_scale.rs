//! Trace replay at scale, timed once per case and printed (as `day`: a 5-million-job replay
//! is too long for criterion's repetitions). Logs of 1 million and 5 million jobs from the
//! Lublin-Feitelson model (`kairos_host::lublin99`, seed 1, load 0.8) on 163,840 processors
//! (ANL-Intrepid's size) are written once to `target/trace-scale/` and streamed through the
//! processor pool (`kairos_host::trace::replay_file_pool`, what `kairos replay --allocation
//! pool` runs: reading, cleaning, scheduling and writing nothing else); the three shared logs
//! (`../shared/traces/`) are replayed under both allocations.
//!
//! ```text
//! cargo bench --bench trace_scale              # every case
//! cargo bench --bench trace_scale -- 1m easy   # the cases whose label has "1m" and "easy"
//! ```
//!
//! Peak memory is not measured here (one process runs every case): docs/performance.md has
//! the whole-process figures of `/usr/bin/time -v`, from `scripts/bench-scale.sh`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use kairos_host::lublin99::{self, Lublin99Options};
use kairos_host::trace::{self, LoadOptions, Policy};
use kairos_suite::{repo_path, smoke_test};

const PROCS: u32 = 163_840;

/// The generated log of `jobs` jobs, written if missing.
fn generated(jobs: u64) -> PathBuf {
    let dir = repo_path("target/trace-scale");
    std::fs::create_dir_all(&dir).expect("target/trace-scale");
    let path = dir.join(format!("lublin99-{}k-163840.swf", jobs / 1000));
    if !path.exists() {
        let clock = Instant::now();
        let tmp = path.with_extension("tmp");
        let mut f = std::fs::File::create(&tmp).expect("create the log");
        let options = Lublin99Options {
            procs: PROCS,
            jobs,
            load: Some(0.8),
            seed: 1,
        };
        lublin99::write_swf(&mut f, &options).expect("write the log");
        std::fs::rename(&tmp, &path).expect("rename the log");
        println!(
            "generated {} in {:.2} s",
            path.display(),
            clock.elapsed().as_secs_f64()
        );
    }
    path
}

fn run(label: &str, filters: &[String], f: impl FnOnce() -> (usize, f64)) {
    if !filters.iter().all(|w| label.contains(w.as_str())) {
        return;
    }
    let clock = Instant::now();
    let (jobs, wall) = f();
    let total = clock.elapsed().as_secs_f64();
    println!(
        "{label:<40} {jobs:>9} jobs  replay {wall:>8.3} s  {:>11.0} jobs/s  (whole call {total:.3} s)",
        jobs as f64 / wall
    );
}

fn pool(path: &Path, options: &LoadOptions, policy: Policy) -> (usize, f64) {
    let r = trace::replay_file_pool(path, options, policy, None).expect("the replay");
    (r.summary.jobs, r.summary.wall_time_s)
}

fn main() {
    if smoke_test() {
        println!(
            "trace_scale: run with `cargo bench --bench trace_scale`; nothing to do as a test"
        );
        return;
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let strong = LoadOptions {
        procs: None,
        clean_strong: true,
        skip_bad_lines: false,
    };
    for (name, file) in [
        ("kth-sp2", "KTH-SP2-1996-2.1.swf"),
        ("gaia", "UniLu-Gaia-2014-2.swf"),
        ("curie", "CEA-Curie-2011-2.1-sample.swf"),
    ] {
        let path = repo_path(&format!("../shared/traces/{file}"));
        if !path.exists() {
            println!("{}: not found, skipped", path.display());
            continue;
        }
        for policy in Policy::ALL {
            run(&format!("{name} pool {policy}"), &filters, || {
                pool(&path, &strong, policy)
            });
            run(&format!("{name} nodes {policy}"), &filters, || {
                let t = trace::load(&path, &strong).expect("the log");
                let r = trace::replay_trace(&t.jobs, t.procs, policy).expect("the replay");
                (r.summary.jobs, r.summary.wall_time_s)
            });
        }
    }
    let none = LoadOptions::default();
    for (label, jobs) in [("1m", 1_000_000), ("5m", 5_000_000)] {
        let wanted = |l: &str| filters.iter().all(|w| l.contains(w.as_str()));
        if !Policy::ALL
            .iter()
            .any(|p| wanted(&format!("lublin99-{label} pool {p}")))
        {
            continue;
        }
        let path = generated(jobs);
        for policy in Policy::ALL {
            run(&format!("lublin99-{label} pool {policy}"), &filters, || {
                pool(&path, &none, policy)
            });
        }
    }
}

//! Trace replay of the KTH-SP2 log (Parallel Workloads Archive, `KTH-SP2-1996-2.1.swf`,
//! 100 processors, 28,481 jobs after `--clean strong`) under FCFS, EASY and Conservative
//! backfilling: `kairos_host::trace::replay_trace`, what `kairos replay` times as its wall
//! time (building the tasks and scheduling; reading and cleaning the file are outside); and
//! the same jobs on the processor pool (`kairos_host::trace::replay_pool`, group
//! `swf_replay/kth-sp2-pool`).
//!
//! ```text
//! cargo bench --bench swf_replay
//! cargo bench --bench swf_replay -- easy
//! ```
//!
//! The log is read from `../shared/traces/` (next to the repository); without it the bench
//! prints a note and measures nothing. Throughput is in jobs per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use kairos_host::trace::{self, LoadOptions, Policy};
use kairos_suite::repo_path;
use std::time::Duration;

fn swf_replay(c: &mut Criterion) {
    let path = repo_path("../shared/traces/KTH-SP2-1996-2.1.swf");
    if !path.exists() {
        eprintln!("{}: not found, nothing to measure", path.display());
        return;
    }
    let options = LoadOptions {
        procs: None,
        clean_strong: true,
        skip_bad_lines: false,
    };
    let log = trace::load(&path, &options).expect("KTH-SP2 loads");
    let mut group = c.benchmark_group("swf_replay/kth-sp2");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(log.jobs.len() as u64));
    for policy in Policy::ALL {
        group.bench_function(policy.name(), |b| {
            b.iter(|| {
                let r = trace::replay_trace(&log.jobs, log.procs, policy).expect("the replay");
                black_box(r.summary);
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("swf_replay/kth-sp2-pool");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(log.jobs.len() as u64));
    for policy in Policy::ALL {
        group.bench_function(policy.name(), |b| {
            b.iter(|| {
                let r = trace::replay_pool(&log.jobs, log.procs, policy).expect("the replay");
                black_box(r.summary);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, swf_replay);
criterion_main!(benches);

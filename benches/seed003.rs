//! Seed 003's decisions: one NBA-FTPS decision (Alg. 7.3) for a 10-task job on 8 cores, the
//! same for NBA-FCPS, one GA profile (PBA's design time, one job and core count), and one
//! whole trial (1000 jobs, high rate, 3 nodes x 8 cores) under NBA-FTPS, the approach of the
//! rates experiment with the most work at run time.
//!
//! ```text
//! cargo bench --bench seed003
//! cargo bench --bench seed003 -- nba-ftps
//! ```

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kairos_core::dag::list::list_schedule;
use kairos_core::dag::nba_fcps::nba_fcps;
use kairos_core::dag::nba_ftps::nba_ftps;
use kairos_core::units::Micros;
use kairos_host::generate::rng::Stream;
use kairos_host::seed003::generate::{self, Rate};
use kairos_host::seed003::model::Model;
use kairos_host::seed003::profile::profile_k;
use kairos_host::seed003::sim::{self, Approach, Setup};
use std::time::Duration;

/// The first job of trial 0 with 10 tasks.
fn ten_task_job(m: &Model) -> generate::Job {
    (0..)
        .map(|i| generate::job(m.seed, 0, i, &m.workload).unwrap())
        .find(|j| j.dag.len() == 10)
        .unwrap()
}

fn decisions(c: &mut Criterion) {
    let m = Model::default();
    let t = m.platform.dvfs().unwrap();
    let j = ten_task_job(&m);
    let map = list_schedule(&j.dag, 8).unwrap();
    // Waited a tenth of the way to the hard deadline: value left to trade for energy.
    let waited = Micros(j.curve.hard().0 / 10);
    let mut g = c.benchmark_group("seed003");
    g.bench_function("nba-ftps/10-tasks/8-cores", |b| {
        b.iter(|| nba_ftps(black_box(&j.dag), &t, &j.curve, &map, waited).unwrap())
    });
    g.bench_function("nba-fcps/10-tasks/8-cores", |b| {
        b.iter(|| nba_fcps(black_box(&j.dag), &t, &j.curve, &map, waited).unwrap())
    });
    g.bench_function("pba-profile/10-tasks/k=4", |b| {
        b.iter(|| {
            let mut r = Stream::new(1, 0, "bench", 0);
            profile_k(black_box(&j.dag), &t, 4, &m.ga, &mut r).unwrap()
        })
    });
    g.finish();
}

fn trial(c: &mut Criterion) {
    let m = Model::default();
    let t = m.platform.dvfs().unwrap();
    let jobs = generate::workload(m.seed, 0, &m.workload).unwrap();
    let setup = Setup {
        rate: Rate::High,
        nodes: 3,
        cores: 8,
        overhead: Micros(10),
    };
    let mut g = c.benchmark_group("seed003-trial");
    g.sample_size(10);
    g.bench_function("nba-ftps/1000-jobs/high", |b| {
        b.iter(|| sim::run(black_box(&jobs), None, &t, Approach::NbaFtps, &setup).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = decisions, trial
}
criterion_main!(benches);

//! Seed 002 Chapters 5-6: one NSGA-II generation (100 chromosomes: 100 children made,
//! mutated, evaluated on the default rayon pool, and the 200 cut back to 100) for each data
//! set, after 20 warm-up generations from a random population. Generations a second =
//! 1 / the time per iteration (docs/performance.md). The issue's target size, 100
//! chromosomes over 1,000 tasks, is `investigation1` and `investigation2-9types` (bags) and
//! `set2` (a trace of arriving tasks).
//!
//! ```text
//! cargo bench --bench pareto -- --measurement-time 5                 # every data set
//! cargo bench --bench pareto -- pareto_generation/set2               # one
//! ```

use criterion::{criterion_group, criterion_main, Criterion};
use kairos_host::generate::rng::Stream;
use kairos_host::nsga2::{Nsga2, Params, Ranking};
use kairos_host::seed002::pareto::data::load_benchmarks;
use kairos_host::seed002::pareto::sets::DataSet;
use kairos_suite::{repo_path, selected};

fn generation(c: &mut Criterion) {
    let bench = load_benchmarks(&repo_path("data/s002-benchmarks-synthetic.toml")).unwrap();
    let sets = [
        DataSet::Set1,
        DataSet::Set2,
        DataSet::Set3,
        DataSet::Investigation1,
        DataSet::Investigation2(9),
    ];
    for set in sets {
        let id = format!("pareto_generation/{}", set.name());
        if !selected(&id) {
            continue;
        }
        let inst = set.instance(Some(&bench), None, 1).unwrap();
        let params = Params {
            population: 100,
            mutation: 0.5,
            ranking: Ranking::Dominators,
        };
        let mut ga = Nsga2::new(&inst, params, Vec::new(), Stream::new(1, 0, "bench", 0));
        for _ in 0..20 {
            ga.step();
        }
        c.bench_function(&id, |b| b.iter(|| ga.step()));
    }
}

criterion_group!(benches, generation);
criterion_main!(benches);

//! Seed 002's serial system (Chapter 2) at 50,000 tasks a day, trial 0 of seed 2002, theta =
//! 0.5, the one-minute trigger, the modelled event cost:
//!
//! - `serial_event/50k/<heuristic>`: batch mapping events of a whole day, in order; an
//!   iteration is the next event (`Sim::map`, the completions before it untimed), and a day
//!   that ends starts again. Before each case it prints the median, 90th percentile and
//!   maximum of one day's events, timed one by one.
//! - `serial_day/50k/<heuristic>`: one whole 26 h day (`Sim::run`), every heuristic.
//!
//! ```text
//! cargo bench --bench serial -- --measurement-time 5                 # everything
//! cargo bench --bench serial -- serial_event/50k/max-max-upt         # one case
//! ```

use criterion::{criterion_group, criterion_main, Criterion};
use kairos_core::serial::{EventCost, Mode, SerialConfig, SerialHeuristic, Sim, Trigger};
use kairos_host::seed002::generate::{self, Trial, Workload};
use kairos_host::seed002::serial::run::Buffers;
use kairos_suite::{selected, smoke_test};
use std::time::{Duration, Instant};

fn config(h: SerialHeuristic, w: &Workload) -> SerialConfig {
    SerialConfig {
        heuristic: h,
        theta: 0.5,
        trigger: Trigger::MINUTE,
        cost: EventCost::Modelled,
        permute: 0,
        seed: w.seed,
        window: w.window(),
    }
}

fn trial() -> (Workload, Trial) {
    // As a smoke test (`cargo test --benches`), a light day.
    let per_day = if smoke_test() { 2_000.0 } else { 50_000.0 };
    let w = Workload::chapter2(2002, per_day);
    let tr = generate::trial(&w, 0);
    (w, tr)
}

/// One day's batch events timed one by one: (median, p90, max) in ms and the count.
fn event_percentiles(tr: &Trial, cfg: SerialConfig) -> (f64, f64, f64, usize) {
    let mut b = Buffers::new(tr.tasks.len());
    let mut sim = Sim::new(tr.env(), &tr.tasks, cfg, b.storage()).expect("a valid trial");
    let mut ts = Vec::new();
    while sim.next_event().is_some() {
        let t0 = Instant::now();
        sim.map();
        ts.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    ts.sort_by(f64::total_cmp);
    let q = |p: f64| ts[((ts.len() - 1) as f64 * p) as usize];
    (q(0.5), q(0.9), q(1.0), ts.len())
}

fn serial_event(c: &mut Criterion) {
    let (w, tr) = trial();
    let mut group = c.benchmark_group("serial_event/50k");
    group.sample_size(20).warm_up_time(Duration::from_secs(1));
    for h in SerialHeuristic::ALL {
        let id = format!("serial_event/50k/{}", h.name());
        if h.mode() != Mode::Batch || !selected(&id) {
            continue;
        }
        let cfg = config(h, &w);
        let (p50, p90, max, n) = event_percentiles(&tr, cfg);
        eprintln!(
            "{id}: one day, {n} events: median {p50:.3} ms, p90 {p90:.3} ms, max {max:.3} ms"
        );
        group.bench_function(h.name(), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut done = 0u64;
                while done < iters {
                    let mut buf = Buffers::new(tr.tasks.len());
                    let mut sim =
                        Sim::new(tr.env(), &tr.tasks, cfg, buf.storage()).expect("a valid trial");
                    while done < iters && sim.next_event().is_some() {
                        let t0 = Instant::now();
                        sim.map();
                        total += t0.elapsed();
                        done += 1;
                    }
                }
                total
            })
        });
    }
    group.finish();
}

fn serial_day(c: &mut Criterion) {
    let (w, tr) = trial();
    let mut group = c.benchmark_group("serial_day/50k");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for h in SerialHeuristic::ALL {
        let id = format!("serial_day/50k/{}", h.name());
        if !selected(&id) {
            continue;
        }
        let cfg = config(h, &w);
        group.bench_function(h.name(), |b| {
            b.iter(|| {
                let mut buf = Buffers::new(tr.tasks.len());
                Sim::new(tr.env(), &tr.tasks, cfg, buf.storage())
                    .expect("a valid trial")
                    .run()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, serial_event, serial_day);
criterion_main!(benches);

//! Seed 002's energy-constrained serial system (Chapters 3-4), trial 0 of seed 2002, theta =
//! 0.5, E = Chapter 3's calibrated budget:
//!
//! - `serial_energy_event/<heuristic>`: the mapping events of Chapter 3's two days (50k tasks
//!   a day, queued, tuned filter L = 0.75, or none for `-unfiltered`; weighted: w = 0.5, no
//!   filter), in order; an
//!   iteration is the next event (`EnergySim::map`). Before each case it prints the median,
//!   90th percentile and maximum of the two days' events, timed one by one.
//! - `serial_energy_run/<heuristic>`: one whole two-day run (`EnergySim::run`).
//! - Chapter 4's arrival-order heuristics and Random run at 32k tasks a day, 26 h, polled,
//!   adaptive filter.
//!
//! ```text
//! cargo bench --bench serial_energy -- serial_energy_event/max-max-upe --measurement-time 5
//! ```

use criterion::{criterion_group, criterion_main, Criterion};
use kairos_core::serial::{EnergyConfig, EnergyHeuristic, EnergySim, Machines, SerialFilter};
use kairos_core::units::{Micros, MilliJoules};
use kairos_host::seed002::energy::env::Affinity;
use kairos_host::seed002::energy::experiment::{EnergyBuffers, EnergyTrial};
use kairos_host::seed002::generate::Workload;
use kairos_suite::{selected, smoke_test};
use std::time::{Duration, Instant};

/// Chapter 3's budget from `experiments/s002-energy-calibrate-ch3.toml`, in GJ.
const BUDGET_GJ: f64 = 1.161;

/// (name, heuristic, Chapter 3's setting, no filter).
fn cases() -> Vec<(&'static str, EnergyHeuristic, bool, bool)> {
    let ao = |n, p, a| EnergyHeuristic::ArrivalOrder {
        newest_first: n,
        prioritized: p,
        all_pstates: a,
    };
    vec![
        ("min-min-comp", EnergyHeuristic::MinMinComp, true, false),
        ("max-max-util", EnergyHeuristic::MaxMaxUtil, true, false),
        ("max-max-upt", EnergyHeuristic::MaxMaxUpt, true, false),
        ("max-max-upe", EnergyHeuristic::MaxMaxUpe, true, false),
        (
            "min-min-comp-unfiltered",
            EnergyHeuristic::MinMinComp,
            true,
            true,
        ),
        (
            "max-max-util-unfiltered",
            EnergyHeuristic::MaxMaxUtil,
            true,
            true,
        ),
        (
            "max-max-upt-unfiltered",
            EnergyHeuristic::MaxMaxUpt,
            true,
            true,
        ),
        (
            "max-max-upe-unfiltered",
            EnergyHeuristic::MaxMaxUpe,
            true,
            true,
        ),
        (
            "weighted-util",
            EnergyHeuristic::WeightedUtil(0.5),
            true,
            false,
        ),
        (
            "weighted-upt",
            EnergyHeuristic::WeightedUpt(0.5),
            true,
            false,
        ),
        (
            "weighted-upe",
            EnergyHeuristic::WeightedUpe(0.5),
            true,
            false,
        ),
        ("fcfs-all", ao(false, false, true), false, false),
        ("prio-lcfs-p0", ao(true, true, false), false, false),
        ("random", EnergyHeuristic::Random, false, false),
        ("max-upe-polled", EnergyHeuristic::MaxMaxUpe, false, false),
    ]
}

fn setup(ch3: bool) -> (EnergyTrial, EnergyConfig) {
    let per_day = match (smoke_test(), ch3) {
        (true, _) => 2_000.0,
        (false, true) => 50_000.0,
        (false, false) => 32_000.0,
    };
    let mut w = Workload::chapter2(2002, per_day);
    let (first, win, horizon) = if ch3 {
        (24, (24, 48), 48)
    } else {
        (2, (2, 26), 26)
    };
    w.warmup_hours = win.0;
    w.horizon_hours = horizon;
    w.classes = if ch3 { 4 } else { 20 };
    let et = EnergyTrial::new(&w, 0, Affinity::Example);
    let cfg = EnergyConfig {
        heuristic: EnergyHeuristic::MinMinComp,
        filter: if ch3 {
            SerialFilter::Tuned(0.75)
        } else {
            SerialFilter::Adaptive(1.0)
        },
        machines: if ch3 {
            Machines::Queued
        } else {
            Machines::Polled
        },
        theta: 0.5,
        interval: Micros::MINUTE,
        budget: MilliJoules((BUDGET_GJ * 1e12) as u64),
        first_day: Micros::from_hours(first),
        day_len: Micros::from_hours(24),
        window: (Micros::from_hours(win.0), Micros::from_hours(win.1)),
        seed: 2002,
    };
    (et, cfg)
}

fn config(base: EnergyConfig, h: EnergyHeuristic, unfiltered: bool) -> EnergyConfig {
    EnergyConfig {
        heuristic: h,
        filter: if unfiltered || h.weight().is_some() {
            SerialFilter::None
        } else {
            base.filter
        },
        ..base
    }
}

fn serial_energy(c: &mut Criterion) {
    let ch3 = setup(true);
    let ch4 = setup(false);
    let mut events = c.benchmark_group("serial_energy_event");
    events.sample_size(20).warm_up_time(Duration::from_secs(1));
    for (name, h, is3, unfiltered) in cases() {
        let id = format!("serial_energy_event/{name}");
        if !selected(&id) {
            continue;
        }
        let (et, base) = if is3 { &ch3 } else { &ch4 };
        let cfg = config(*base, h, unfiltered);
        let tr = &et.trial;
        // One whole run, its events timed one by one.
        let mut ts = Vec::new();
        let mut b = EnergyBuffers::new(tr.tasks.len());
        let mut sim =
            EnergySim::new(tr.env(), et.power(), &tr.tasks, cfg, b.storage()).expect("valid");
        while sim.next_event().is_some() {
            let t0 = Instant::now();
            sim.map();
            ts.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        ts.sort_by(f64::total_cmp);
        let q = |p: f64| ts[((ts.len() - 1) as f64 * p) as usize];
        eprintln!(
            "{id}: {} events: median {:.3} ms, p90 {:.3} ms, max {:.3} ms",
            ts.len(),
            q(0.5),
            q(0.9),
            q(1.0)
        );
        events.bench_function(name, |bch| {
            bch.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut done = 0u64;
                while done < iters {
                    let mut b = EnergyBuffers::new(tr.tasks.len());
                    let mut sim = EnergySim::new(tr.env(), et.power(), &tr.tasks, cfg, b.storage())
                        .expect("valid");
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
    events.finish();
    let mut runs = c.benchmark_group("serial_energy_run");
    runs.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (name, h, is3, unfiltered) in cases() {
        let id = format!("serial_energy_run/{name}");
        if !selected(&id) {
            continue;
        }
        let (et, base) = if is3 { &ch3 } else { &ch4 };
        let cfg = config(*base, h, unfiltered);
        let tr = &et.trial;
        runs.bench_function(name, |bch| {
            bch.iter(|| {
                let mut b = EnergyBuffers::new(tr.tasks.len());
                EnergySim::new(tr.env(), et.power(), &tr.tasks, cfg, b.storage())
                    .expect("valid")
                    .run()
            })
        });
    }
    runs.finish();
}

criterion_group!(benches, serial_energy);
criterion_main!(benches);

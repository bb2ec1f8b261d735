//! One whole simulated day (28 h: 4 h of warm-up and the measured day) per configuration,
//! timed once each and printed. Not criterion: a utility-aware day at 10k takes tens of
//! seconds, and criterion's smallest sample (10 runs) would make the whole set last hours.
//!
//! ```text
//! cargo bench --bench day                    # every configuration at 10k, once each
//! cargo bench --bench day -- 5k              # at 5k
//! cargo bench --bench day -- 10k max-upe     # the configurations whose label has "max-upe"
//! cargo bench --bench day -- --repeat 3      # each three times (prints every run)
//! ```
//!
//! The time is `kairos run`'s `wall_time_s` (the replay, not the trial's generation) through
//! `kairos_host::run::run_generated`, trial 0; the mapping-event percentiles are its
//! per-event wall-clock times.

use kairos_host::generate;
use kairos_host::run::run_generated;
use kairos_suite::{cases, essc, smoke_test};
use std::time::Instant;

fn main() {
    if smoke_test() {
        // `cargo test --benches`: the days take minutes; `cargo bench --bench day` runs them.
        println!("day: run with `cargo bench --bench day`; nothing to do as a test");
        return;
    }
    let mut loads = Vec::new();
    let mut filters = Vec::new();
    let mut repeat = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "5k" => loads.push(5000),
            "10k" => loads.push(10000),
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--repeat N")
            }
            // `cargo bench` passes --bench; `cargo test --benches` passes nothing here.
            a if a.starts_with('-') => {}
            a => filters.push(a.to_string()),
        }
    }
    if loads.is_empty() {
        loads.push(10000);
    }
    for load in loads {
        let scenario = essc(load);
        let t0 = Instant::now();
        let trial = generate::generate(&scenario, 0).expect("trial 0 generates");
        println!(
            "{} trial 0: {} tasks, generated in {:.2} s",
            scenario.name,
            trial.tasks.len(),
            t0.elapsed().as_secs_f64()
        );
        println!(
            "{:<16} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}  digest",
            "case", "wall s", "events", "p50 us", "p99 us", "max us", "mean us", "utility%"
        );
        for case in cases() {
            if !filters.is_empty() && !filters.iter().any(|f| case.label.contains(f.as_str())) {
                continue;
            }
            for _ in 0..repeat {
                let s = run_generated(&scenario, &case.opts, &trial, 0.0).expect("the day runs");
                let e = &s.mapping_event_us;
                println!(
                    "{:<16} {:>8.3} {:>7} {:>9} {:>9} {:>9} {:>9.0} {:>9.2}  {}",
                    case.label,
                    s.wall_time_s,
                    s.mapping_events,
                    e.p50,
                    e.p99,
                    e.max,
                    e.mean,
                    s.utility_percent,
                    s.digest
                );
            }
        }
    }
}

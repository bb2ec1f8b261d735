//! The CPU time of each mapping event of one Chapter 3 run (seed 2002, trial 0, 50k tasks a
//! day, two days, queued, theta = 0.5, E = 1.161 GJ), read from the thread's CPU clock, so
//! that a loaded machine (other processes taking the cores) does not count; criterion's
//! `benches/serial_energy.rs` times the same events by wall clock.
//!
//! With a third argument `ch4`, Chapter 4's run instead: 32k tasks a day, 20 utility classes,
//! 26 h (the day from 2 h), polled machines, the same E (as `benches/serial_energy.rs`; the
//! filter then `adaptive:L`, say).
//!
//! ```text
//! cargo run --release -p kairos-host --example energy_event_cpu -- weighted-util none
//! cargo run --release -p kairos-host --example energy_event_cpu -- max-max-upe tuned:0.75
//! cargo run --release -p kairos-host --example energy_event_cpu -- random adaptive:1 ch4
//! ```
//!
//! Prints the run's CPU seconds (the events alone), the median, 90th percentile and largest
//! event in milliseconds, and the run's digest (the `digest` column of `trials.csv`).

use kairos_core::serial::{EnergyConfig, EnergyHeuristic, EnergySim, Machines, SerialFilter};
use kairos_core::units::{Micros, MilliJoules};
use kairos_host::seed002::energy::env::Affinity;
use kairos_host::seed002::energy::experiment::{EnergyBuffers, EnergyTrial};
use kairos_host::seed002::generate::Workload;
use std::process::ExitCode;

/// This thread's CPU time, milliseconds.
fn cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: energy_event_cpu HEURISTIC [none | tuned:L | adaptive:L] [ch4] (weighted: w = 0.5)";
    let Some(h) = args
        .first()
        .and_then(|n| EnergyHeuristic::from_name(n, 0.5))
    else {
        eprintln!("{usage}");
        return ExitCode::FAILURE;
    };
    let filter = match args.get(1).map(String::as_str) {
        None | Some("none") => SerialFilter::None,
        Some(f) => {
            let leniency = |p: &str| f.strip_prefix(p).and_then(|l| l.parse().ok());
            match (leniency("tuned:"), leniency("adaptive:")) {
                (Some(l), _) => SerialFilter::Tuned(l),
                (_, Some(l)) => SerialFilter::Adaptive(l),
                _ => {
                    eprintln!("{usage}");
                    return ExitCode::FAILURE;
                }
            }
        }
    };
    let ch4 = match args.get(2).map(String::as_str) {
        None => false,
        Some("ch4") => true,
        Some(_) => {
            eprintln!("{usage}");
            return ExitCode::FAILURE;
        }
    };
    // Chapter 3: 50k a day, the day from 24 h to 48 h; Chapter 4: 32k, from 2 h to 26 h.
    let (per_day, first, end, classes) = if ch4 {
        (32_000.0, 2, 26, 20)
    } else {
        (50_000.0, 24, 48, 4)
    };
    let mut w = Workload::chapter2(2002, per_day);
    w.warmup_hours = first;
    w.horizon_hours = end;
    w.classes = classes;
    let et = EnergyTrial::new(&w, 0, Affinity::Example);
    let cfg = EnergyConfig {
        heuristic: h,
        filter,
        machines: if ch4 {
            Machines::Polled
        } else {
            Machines::Queued
        },
        theta: 0.5,
        interval: Micros::MINUTE,
        budget: MilliJoules((1.161 * 1e12) as u64),
        first_day: Micros::from_hours(first),
        day_len: Micros::from_hours(24),
        window: (Micros::from_hours(first), Micros::from_hours(end)),
        seed: 2002,
    };
    let tr = &et.trial;
    let mut b = EnergyBuffers::new(tr.tasks.len());
    let mut sim = match EnergySim::new(tr.env(), et.power(), &tr.tasks, cfg, b.storage()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("energy_event_cpu: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut ms = Vec::new();
    while sim.next_event().is_some() {
        let t0 = cpu_ms();
        sim.map();
        ms.push(cpu_ms() - t0);
    }
    let total: f64 = ms.iter().sum::<f64>() / 1e3;
    let digest = sim.finish().digest;
    ms.sort_by(f64::total_cmp);
    let q = |p: f64| ms[((ms.len() - 1) as f64 * p) as usize];
    println!(
        "{} {:?}: {} events, {total:.2} s CPU; event median {:.3} ms, p90 {:.3} ms, max {:.3} ms; digest {digest:016x}",
        h.name(),
        filter,
        ms.len(),
        q(0.5),
        q(0.9),
        q(1.0)
    );
    ExitCode::SUCCESS
}

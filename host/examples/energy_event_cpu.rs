//! The CPU time of each mapping event of one Chapter 3 run (seed 2002, trial 0, 50k tasks a
//! day, two days, queued, theta = 0.5, E = 1.161 GJ), read from the thread's CPU clock, so
//! that a loaded machine (other processes taking the cores) does not count; criterion's
//! `benches/serial_energy.rs` times the same events by wall clock.
//!
//! ```text
//! cargo run --release -p kairos-host --example energy_event_cpu -- weighted-util none
//! cargo run --release -p kairos-host --example energy_event_cpu -- max-max-upe tuned:0.75
//! ```
//!
//! Prints the run's CPU seconds (the events alone), the median, 90th percentile and largest
//! event in milliseconds, and the run's digest (the `digest` column of `trials.csv`).

use kairos_core::serial::{EnergyConfig, EnergyHeuristic, EnergySim, Machines, SerialFilter};
use kairos_core::units::{Micros, MilliJoules};
use kairos_host::seed002::energy_env::Affinity;
use kairos_host::seed002::energy_experiment::{EnergyBuffers, EnergyTrial};
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
    let usage = "usage: energy_event_cpu HEURISTIC [none | tuned:L] (weighted: w = 0.5)";
    let Some(h) = args
        .first()
        .and_then(|n| EnergyHeuristic::from_name(n, 0.5))
    else {
        eprintln!("{usage}");
        return ExitCode::FAILURE;
    };
    let filter = match args.get(1).map(String::as_str) {
        None | Some("none") => SerialFilter::None,
        Some(f) => match f.strip_prefix("tuned:").and_then(|l| l.parse().ok()) {
            Some(l) => SerialFilter::Tuned(l),
            None => {
                eprintln!("{usage}");
                return ExitCode::FAILURE;
            }
        },
    };
    let mut w = Workload::chapter2(2002, 50_000.0);
    w.warmup_hours = 24;
    w.horizon_hours = 48;
    w.classes = 4;
    let et = EnergyTrial::new(&w, 0, Affinity::Example);
    let cfg = EnergyConfig {
        heuristic: h,
        filter,
        machines: Machines::Queued,
        theta: 0.5,
        interval: Micros::MINUTE,
        budget: MilliJoules((1.161 * 1e12) as u64),
        first_day: Micros::from_hours(24),
        day_len: Micros::from_hours(24),
        window: (Micros::from_hours(24), Micros::from_hours(48)),
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

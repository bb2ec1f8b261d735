//! Why do the MET-based immediate heuristics of seed 002's Fig. 2.5 vary so much from trial to
//! trial (MET-Max Util 21-48% of the bound at 33k over 50 trials, Max Util 16.6-18.3%)? MET
//! sends every task to the machine type that runs its type fastest, whatever the queue there,
//! so what it can earn is bounded by how much of that work the chosen types can hold. For
//! each trial of the 33k workload (the workload of `s002-fig2.5-33k-no-sufferage.toml`) this
//! sums, over the measured day's arrivals, each task's execution time on its MET type, and
//! writes the share of that work beyond the MET types' capacity (the work a MET heuristic
//! cannot run in the day, whatever the order) and the busiest type's load. CSV on stdout
//! (results/seed002/why-met/overflow.csv); `python3 scripts/why_s002_met.py` sets it beside
//! the trials' MET shares.
//!
//!     cargo run --release -p kairos-host --example why_met > results/seed002/why-met/overflow.csv

use kairos_host::seed002::generate::{trial, Workload, MACHINE_COUNTS};

fn main() {
    let w = Workload::chapter2(2002, 33_000.0);
    let (start, end) = w.window();
    let day_s = (end.0 - start.0) as f64 / 1e6;
    let mt = MACHINE_COUNTS.len();
    println!("trial,tasks,met_work_h,overflow_share,busiest_load,kept_up_tasks_share");
    for t in 0..50 {
        let tr = trial(&w, t);
        let env = tr.env();
        let mut demand = vec![0.0f64; mt];
        let mut count = vec![0u64; mt];
        let mut n = 0u64;
        for task in tr
            .tasks
            .iter()
            .filter(|k| k.arrival >= start && k.arrival < end)
        {
            // The core's MET choice, the one the MET heuristics make.
            let j = env.met_type(task.ty) as usize;
            let e = env.etc(task.ty, j as u8);
            demand[j] += e.0 as f64 / 1e6;
            count[j] += 1;
            n += 1;
        }
        let total: f64 = demand.iter().sum();
        let over: f64 = demand
            .iter()
            .zip(MACHINE_COUNTS)
            .map(|(d, c)| (d - c as f64 * day_s).max(0.0))
            .sum();
        let busiest = demand
            .iter()
            .zip(MACHINE_COUNTS)
            .map(|(d, c)| d / (c as f64 * day_s))
            .fold(0.0, f64::max);
        // The tasks sent to a type that can run all of its MET work within the day.
        let kept_up: u64 = (0..mt)
            .filter(|&j| demand[j] <= MACHINE_COUNTS[j] as f64 * day_s)
            .map(|j| count[j])
            .sum();
        println!(
            "{t},{n},{:.1},{:.4},{:.3},{:.4}",
            total / 3600.0,
            over / total,
            busiest,
            kept_up as f64 / n as f64
        );
    }
}

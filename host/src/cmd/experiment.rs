//! `kairos experiment`: runs an experiment file (heuristics x filters x trials) in parallel
//! and writes its reports and plots.
//!
//! The format is in [`crate::experiment`], the runner in [`crate::experiment::runner`], the
//! files written in [`crate::report`]. On a terminal (stderr) a progress bar counts the runs;
//! otherwise one line per finished trial gives the counts, the elapsed time and the ETA. The
//! summary table (and the calibrated budget, for a calibration) goes to stdout.

use crate::experiment::runner::{self, Progress};
use crate::experiment::Experiment;
use crate::report;
use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Flags of `kairos experiment`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The experiment file (TOML), e.g. experiments/fig9-5k.toml.
    pub file: PathBuf,
    /// Run this many trials (0..N) instead of the file's.
    #[arg(long, value_name = "N")]
    pub trials: Option<u32>,
    /// Write the reports here instead of `out/<name>/`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only the K-th of N slices of the runs and write its shard file,
    /// `shard-K-of-N.shard`, into `--out` (default `out/<name>/shards/`); `kairos merge`
    /// joins the shards into the reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::shard::Slice>,
}

/// `1h02m03s`, `4m05s` or `6.7s`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// Progress as plain lines on stderr: one per finished trial.
struct Lines {
    start: Instant,
    runs_total: u64,
    trials_total: u64,
    runs: AtomicU64,
    trials: AtomicU64,
}

impl Progress for Lines {
    fn run_done(&self, _label: &str, _trial: u32) {
        self.runs.fetch_add(1, Ordering::Relaxed);
    }
    fn trial_done(&self, trial: u32) {
        let done = self.trials.fetch_add(1, Ordering::Relaxed) + 1;
        let runs = self.runs.load(Ordering::Relaxed);
        let elapsed = self.start.elapsed();
        let eta = if runs > 0 {
            elapsed.mul_f64((self.runs_total - runs.min(self.runs_total)) as f64 / runs as f64)
        } else {
            Duration::ZERO
        };
        eprintln!(
            "trial {trial} done: {done}/{} trials, {runs}/{} runs, {} elapsed, eta {}",
            self.trials_total,
            self.runs_total,
            duration_text(elapsed),
            duration_text(eta)
        );
    }
}

/// Progress as an indicatif bar counting the runs.
struct Bar {
    bar: ProgressBar,
    trials_total: u64,
    trials: AtomicU64,
}

impl Progress for Bar {
    fn run_done(&self, _label: &str, _trial: u32) {
        self.bar.inc(1);
    }
    fn trial_done(&self, _trial: u32) {
        let done = self.trials.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar
            .set_message(format!("{done}/{} trials", self.trials_total));
    }
}

/// Runs `kairos experiment`.
pub fn main(args: Args) -> anyhow::Result<()> {
    if crate::seed002::experiment::is_serial(&args.file) {
        if args.shard.is_some() {
            bail!(
                "{}: --shard: seed 002 experiments run on one machine (--jobs spreads their \
                 trials over its threads)",
                args.file.display()
            );
        }
        return serial(args);
    }
    if crate::seed002::energy_experiment::is_energy(&args.file) {
        if args.shard.is_some() {
            bail!(
                "{}: --shard: seed 002 experiments run on one machine (--jobs spreads their \
                 trials over its threads)",
                args.file.display()
            );
        }
        return serial_energy(args);
    }
    if crate::seed003::experiment::is_seed003(&args.file) {
        if args.shard.is_some() {
            bail!(
                "{}: --shard: seed 003 experiments run on one machine (their trials share \
                 PBA's profiles through seed003.profile_cache instead)",
                args.file.display()
            );
        }
        return super::seed003::main(super::seed003::Options {
            file: args.file,
            trials: args.trials,
            out: args.out,
            jobs: args.jobs,
        });
    }
    let mut exp = Experiment::load(&args.file)?;
    if let Some(n) = args.trials {
        if n == 0 || n > crate::experiment::MAX_TRIALS {
            bail!(
                "--trials {n}: must be between 1 and {}",
                crate::experiment::MAX_TRIALS
            );
        }
        exp.trials = n;
    }
    if args.jobs == Some(0) {
        bail!("--jobs 0: must be at least 1");
    }
    if let Some(slice) = args.shard {
        return shard(&exp, slice, &args);
    }
    let out_dir = args.out.clone().unwrap_or_else(|| exp.default_out_dir());
    let runs_total = exp.trials as u64 * exp.configs.len() as u64;
    eprintln!(
        "{}: {} configurations x {} trials of {} ({} runs), budget {}",
        exp.name,
        exp.configs.len(),
        exp.trials,
        exp.scenario.name,
        runs_total,
        exp.budget_joules()
            .map_or("none (unconstrained)".to_string(), |b| format!("{b:.0} J")),
    );
    let outcome = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(runs_total);
        bar.set_style(
            ProgressStyle::with_template(
                "[{elapsed_precise}] {wide_bar} {pos}/{len} runs, {msg}, eta {eta}",
            )
            .expect("a valid template"),
        );
        bar.set_message(format!("0/{} trials", exp.trials));
        bar.enable_steady_tick(Duration::from_millis(500));
        let p = Bar {
            bar,
            trials_total: exp.trials as u64,
            trials: AtomicU64::new(0),
        };
        let r = runner::run(&exp, args.jobs, &p);
        p.bar.finish_and_clear();
        r?
    } else {
        let p = Lines {
            start: Instant::now(),
            runs_total,
            trials_total: exp.trials as u64,
            runs: AtomicU64::new(0),
            trials: AtomicU64::new(0),
        };
        runner::run(&exp, args.jobs, &p)?
    };
    let written = report::write_all(&out_dir, &exp, &outcome)?;
    let summaries = report::summarize(&exp, &outcome);
    let mut stdout = std::io::stdout().lock();
    write!(stdout, "{}", report::text_table(&exp, &summaries))?;
    if let Some(c) = report::calibration(&exp, &summaries) {
        writeln!(
            stdout,
            "calibrated energy budget: {:.0} J ({} x the mean daily energy of {:?}, {:.0} J{} \
             over {} trial{}); set simulation.energy_budget_joules = {:.0} in {}",
            c.energy_budget_joules,
            c.fraction,
            c.reference,
            c.reference_energy.mean,
            c.reference_energy
                .ci95
                .map_or(String::new(), |ci| format!(" ± {ci:.0}")),
            c.reference_energy.n,
            if c.reference_energy.n == 1 { "" } else { "s" },
            c.energy_budget_joules,
            exp.scenario_path.display(),
        )?;
    }
    writeln!(
        stdout,
        "{} runs in {} on {} threads; wrote {}",
        outcome.rows.len(),
        duration_text(Duration::from_secs_f64(outcome.wall_s)),
        outcome.jobs,
        written
            .files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    if !outcome.failures.is_empty() {
        for f in &outcome.failures {
            eprintln!(
                "failed: {:?} on trial {}: {}",
                exp.configs[f.config].label, f.trial, f.error
            );
        }
        bail!(
            "{} of {runs_total} runs failed (listed above and in summary.json); the reports \
             cover the others",
            outcome.failures.len()
        );
    }
    Ok(())
}

/// A seed 002 file (`system = "serial"`): one line per finished trial, the table to stdout.
fn serial(args: Args) -> anyhow::Result<()> {
    let start = Instant::now();
    let done = AtomicU64::new(0);
    let progress = |t: u32| {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!(
            "trial {t} done ({n} so far, {} elapsed)",
            duration_text(start.elapsed())
        );
    };
    let (table, dir) =
        crate::seed002::run_file(&args.file, args.trials, args.out, args.jobs, &progress)?;
    print!("{table}");
    eprintln!("reports written to {}", dir.display());
    Ok(())
}

/// A seed 002 energy file (`system = "serial-energy"`, Chapters 3-4): as [`serial`].
fn serial_energy(args: Args) -> anyhow::Result<()> {
    let start = Instant::now();
    let done = AtomicU64::new(0);
    let progress = |t: u32| {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!(
            "trial {t} done ({n} so far, {} elapsed)",
            duration_text(start.elapsed())
        );
    };
    let (table, dir) = crate::seed002::energy_experiment::run_file(
        &args.file,
        args.trials,
        args.out,
        args.jobs,
        &progress,
    )?;
    print!("{table}");
    eprintln!("reports written to {}", dir.display());
    Ok(())
}

/// `kairos experiment --shard K/N`: runs the slice, writes its shard file, prints where.
fn shard(exp: &Experiment, slice: crate::shard::Slice, args: &Args) -> anyhow::Result<()> {
    let total = runner::run_count(exp);
    let runs = slice.range(total);
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| exp.default_out_dir().join("shards"));
    let path = dir.join(slice.file_name());
    eprintln!(
        "{}: shard {slice}: runs {}..{} of {total} ({} configurations x {} trials)",
        exp.name,
        runs.start,
        runs.end,
        exp.configs.len(),
        exp.trials
    );
    let p = Lines {
        start: Instant::now(),
        runs_total: runs.end - runs.start,
        trials_total: if runs.is_empty() {
            0
        } else {
            (runner::run_at(exp, runs.end - 1).1 - runner::run_at(exp, runs.start).1) as u64 + 1
        },
        runs: AtomicU64::new(0),
        trials: AtomicU64::new(0),
    };
    let outcome = runner::run_slice(exp, runs.clone(), args.jobs, &p)?;
    crate::shard::experiment::write(&path, exp, slice, &outcome)?;
    println!(
        "shard {slice}: {} runs in {} on {} threads; wrote {}",
        outcome.rows.len(),
        duration_text(Duration::from_secs_f64(outcome.wall_s)),
        outcome.jobs,
        path.display()
    );
    if !outcome.failures.is_empty() {
        for f in &outcome.failures {
            eprintln!(
                "failed: {:?} on trial {}: {}",
                exp.configs[f.config].label, f.trial, f.error
            );
        }
        bail!(
            "{} of the shard's {} runs failed (listed above and in {})",
            outcome.failures.len(),
            runs.end - runs.start,
            path.display()
        );
    }
    Ok(())
}

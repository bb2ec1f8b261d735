//! `kairos experiment`: runs an experiment file (heuristics x filters x trials) in parallel
//! and writes its reports and plots.
//!
//! The format is in [`crate::experiment`], the runner in [`crate::experiment::runner`], the
//! files written in [`crate::report`]. On a terminal (stderr) a progress bar counts the runs;
//! otherwise one line per finished trial gives the counts, the elapsed time and the ETA. The
//! summary table (and the calibrated budget, for a calibration) goes to stdout.

use crate::experiment::resume::{self, Ended};
use crate::experiment::runner::{self, Progress};
use crate::experiment::Experiment;
use crate::report;
use anyhow::{bail, Context};
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
    /// Worker threads (default: one per core). `--jobs` is its former name, kept as an alias.
    #[arg(long = "threads", visible_alias = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only the K-th of N slices of the runs and write its shard file,
    /// `shard-K-of-N.shard`, into `--out` (default `out/<name>/shards/`); `kairos merge`
    /// joins the shards into the reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::shard::Slice>,
    /// Overwrite the results (and the saved runs) of an earlier run in the output folder.
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// Continue an interrupted run: the trials saved in the output folder's `runs/` are not
    /// run again; the reports are the same as an uninterrupted run's. With `--shard` (seed
    /// 002 files), continues the shard from its `shard-K-of-N.runs/`.
    #[arg(long)]
    pub resume: bool,
    /// Print the summary as JSON on stdout (summary.json as written, or the summary CSV's
    /// rows as objects) instead of the text table.
    #[arg(long)]
    pub json: bool,
}

pub use crate::progress::duration_text;

/// Progress as plain lines on stderr: one per finished trial.
struct Lines {
    start: Instant,
    runs_total: u64,
    /// Runs saved before this session (a resume): counted as done, not in the rate.
    runs_before: u64,
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
        let here = runs.saturating_sub(self.runs_before);
        let eta = if here > 0 {
            elapsed.mul_f64((self.runs_total - runs.min(self.runs_total)) as f64 / here as f64)
        } else {
            Duration::ZERO
        };
        crate::diag!(
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
pub fn main(mut args: Args) -> anyhow::Result<()> {
    crate::batsim::check_kind(
        &args.file,
        "experiment",
        &[crate::batsim::FileKind::Experiment],
    )?;
    if args.jobs == Some(0) {
        return Err(super::usage("--threads 0 (--jobs 0): must be at least 1"));
    }
    args.jobs =
        crate::limits::threads("--threads", args.jobs).map_err(|e| super::usage(e.to_string()))?;
    let serial = crate::seed002::serial::experiment::is_serial(&args.file);
    if serial || crate::seed002::energy::experiment::is_energy(&args.file) {
        if let Some(slice) = args.shard {
            return seed002_shard(&args, slice);
        }
        return seed002(
            args,
            if serial {
                crate::seed002::run_file
            } else {
                crate::seed002::run_energy_file
            },
        );
    }
    if args.shard.is_some() && args.resume {
        return Err(super::usage(format!(
            "{}: --resume with --shard: a shard of this experiment runs whole (seed 002 \
             shards resume); run the shard again",
            args.file.display()
        )));
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
            force: args.force,
            resume: args.resume,
            json: args.json,
        });
    }
    let mut exp = Experiment::load(&args.file)?;
    if let Some(n) = args.trials {
        if n == 0 || n > crate::experiment::MAX_TRIALS {
            return Err(super::usage(format!(
                "--trials {n}: must be between 1 and {}",
                crate::experiment::MAX_TRIALS
            )));
        }
        exp.trials = n;
    }
    if args.jobs == Some(0) {
        return Err(super::usage("--threads 0 (--jobs 0): must be at least 1"));
    }
    if exp.trials == 2 {
        crate::diag!(
            "warning: 2 trials: the 95% confidence intervals (Student t, one degree of \
             freedom) say little; use 3 or more"
        );
    } else if exp.trials == 1 {
        crate::diag!("warning: 1 trial: no confidence intervals; use 3 or more");
    }
    if let Some(slice) = args.shard {
        return shard(&exp, slice, &args);
    }
    let out_dir = args.out.clone().unwrap_or_else(|| exp.default_out_dir());
    let runs_dir = out_dir.join(resume::RUNS_DIR);
    // Checked before any run: a bad --out or earlier results fail at once.
    let saved = resume::saved_trials(&exp, &runs_dir).len() as u32;
    if !args.resume && !args.force && runs_dir.is_dir() && !out_dir.join("summary.json").exists() {
        bail!(
            "{}: holds an interrupted run ({saved} of {} trials saved in {}); pass --resume to \
             continue it, or --force to start again",
            out_dir.display(),
            exp.trials,
            runs_dir.display()
        );
    }
    let source = exp.trace.as_ref().map_or(&exp.scenario_path, |t| &t.path);
    crate::output::prepare_reports_dir(
        &out_dir,
        args.force || args.resume,
        crate::output::RESULTS_MARKER,
        &[&exp.file, source],
        &[],
    )?;
    if args.force {
        // No report of the earlier run stays: a plot it had and this one has not, or its
        // complete-looking results if this run is interrupted.
        if runs_dir.exists() {
            std::fs::remove_dir_all(&runs_dir).with_context(|| {
                format!("{}: cannot remove the earlier runs", runs_dir.display())
            })?;
        }
        for name in report::REPORT_FILES {
            let p = out_dir.join(name);
            if p.exists() {
                std::fs::remove_file(&p)
                    .with_context(|| format!("{}: cannot remove", p.display()))?;
            }
        }
    }
    if args.resume {
        resume::check_saved(&exp, &runs_dir)?;
    }
    let saved = if args.resume { saved } else { 0 };
    let runs_total = (exp.trials - saved) as u64 * exp.configs.len() as u64;
    crate::diag!(
        "{}: {} configurations x {} trials of {} ({} runs{}), budget {}",
        exp.name,
        exp.configs.len(),
        exp.trials,
        exp.scenario.name,
        runs_total,
        if saved > 0 {
            format!(" to run; {saved} trials saved")
        } else {
            String::new()
        },
        exp.budget_joules()
            .map_or("none (unconstrained)".to_string(), crate::run::energy_text),
    );
    crate::interrupt::catch();
    let running = (args.jobs.unwrap_or_else(rayon::current_num_threads) as u32)
        .clamp(1, (exp.trials - saved).max(1));
    crate::interrupt::say_when_requested(format!(
        "Ctrl-C: finishing {running} running trial{}, then stopping (finished trials are \
         saved); Ctrl-C again stops at once",
        if running == 1 { "" } else { "s" }
    ));
    let stop = crate::interrupt::requested_saying;
    // Progress counts the whole experiment, the trials saved before a resume included.
    let saved_runs = saved as u64 * exp.configs.len() as u64;
    let all_runs = runs_total + saved_runs;
    let ended = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(all_runs);
        bar.set_position(saved_runs);
        bar.reset_eta();
        bar.set_style(
            ProgressStyle::with_template(
                "[{elapsed_precise}] {wide_bar} {pos}/{len} runs, {msg}, eta {eta}",
            )
            .expect("a valid template"),
        );
        bar.set_message(format!("{saved}/{} trials", exp.trials));
        bar.enable_steady_tick(Duration::from_millis(500));
        let p = Bar {
            bar,
            trials_total: exp.trials as u64,
            trials: AtomicU64::new(saved as u64),
        };
        let r = resume::run(&exp, &runs_dir, args.jobs, &p, &stop);
        p.bar.finish_and_clear();
        r?
    } else {
        let p = Lines {
            start: Instant::now(),
            runs_total: all_runs,
            runs_before: saved_runs,
            trials_total: exp.trials as u64,
            runs: AtomicU64::new(saved_runs),
            trials: AtomicU64::new(saved as u64),
        };
        resume::run(&exp, &runs_dir, args.jobs, &p, &stop)?
    };
    let (exp, outcome) = match ended {
        Ended::Complete(exp, outcome) => (*exp, outcome),
        Ended::Stopped { saved } => bail!(
            "interrupted: {saved} of {} trials saved in {}; resume with `kairos experiment {} \
             --out {}{} --resume`",
            exp.trials,
            runs_dir.display(),
            args.file.display(),
            out_dir.display(),
            args.trials
                .map_or(String::new(), |n| format!(" --trials {n}")),
        ),
    };
    let written = report::write_all(&out_dir, &exp, &outcome)?;
    // The reports are complete: the saved runs have served (the folder holds only the
    // reports, as an unsharded run's always did).
    std::fs::remove_dir_all(&runs_dir)
        .with_context(|| format!("{}: cannot remove the saved runs", runs_dir.display()))?;
    let summaries = report::summarize(&exp, &outcome);
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", super::json::dir_summary(&out_dir, &[])?)?;
        return failed(&exp, &outcome, runs_total);
    }
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
    failed(&exp, &outcome, runs_total)
}

/// The runs that failed, listed on stderr, as the command's error (none: success).
fn failed(exp: &Experiment, outcome: &runner::Outcome, runs_total: u64) -> anyhow::Result<()> {
    if !outcome.failures.is_empty() {
        for f in &outcome.failures {
            crate::diag!(
                "failed: {:?} on trial {}: {}",
                exp.configs[f.config].label,
                f.trial,
                f.error
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

/// How a seed 002 system runs a file: `crate::seed002::run_file` (`system = "serial"`) or
/// `crate::seed002::run_energy_file` (`system = "serial-energy"`).
type Seed002Run = fn(
    &std::path::Path,
    Option<u32>,
    crate::seed002::ReportsDir,
    Option<usize>,
    &crate::seed002::Resume<'_>,
) -> anyhow::Result<(String, PathBuf)>;

/// A seed 002 file: progress on stderr ([`crate::progress`]), each trial saved as it
/// finishes, Ctrl-C stopping after the running trials (`--resume` continues), the table to
/// stdout (or `--json`), the reports to `--out` (checked before any trial, `--force` to
/// overwrite).
fn seed002(args: Args, run: Seed002Run) -> anyhow::Result<()> {
    let out = crate::seed002::ReportsDir {
        dir: args.out.clone(),
        force: args.force,
    };
    crate::interrupt::catch_for_steps(args.jobs, "trial");
    let resume = crate::seed002::Resume {
        resume: args.resume,
        stop: &crate::interrupt::requested_saying,
    };
    let (table, dir) = run(&args.file, args.trials, out, args.jobs, &resume)?;
    if args.json {
        let s = super::json::dir_summary(&dir, &["summary.csv"])?;
        writeln!(super::pipe::stdout(), "{s}")?;
        return Ok(());
    }
    write!(super::pipe::stdout(), "{table}")?;
    crate::diag!("reports written to {}", dir.display());
    Ok(())
}

/// `kairos experiment --shard K/N` of a seed 002 file: runs the slice's (configuration,
/// trial) units, each trial saved as it finishes (`--resume` continues), and writes the
/// shard file ([`crate::seed002::shard`]).
fn seed002_shard(args: &Args, slice: crate::shard::Slice) -> anyhow::Result<()> {
    crate::interrupt::catch_for_steps(args.jobs, "trial");
    let resume = crate::seed002::Resume {
        resume: args.resume,
        stop: &crate::interrupt::requested_saying,
    };
    let line = crate::seed002::shard::run_shard_file(
        &args.file,
        &crate::seed002::shard::ShardRun {
            slice,
            dir: args.out.clone(),
            trials: args.trials,
            force: args.force,
            resume: &resume,
            jobs: args.jobs,
        },
    )?;
    writeln!(super::pipe::stdout(), "{line}")?;
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
    crate::diag!(
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
        runs_before: 0,
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
    writeln!(
        super::pipe::stdout(),
        "shard {slice}: {} runs in {} on {} threads; wrote {}",
        outcome.rows.len(),
        duration_text(Duration::from_secs_f64(outcome.wall_s)),
        outcome.jobs,
        path.display()
    )?;
    if !outcome.failures.is_empty() {
        for f in &outcome.failures {
            crate::diag!(
                "failed: {:?} on trial {}: {}",
                exp.configs[f.config].label,
                f.trial,
                f.error
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

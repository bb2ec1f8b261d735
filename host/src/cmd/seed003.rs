//! `kairos experiment` on a seed 003 file (one with a `[seed003]` table): runs it, prints the
//! table (and a calibration's verdict) and writes the reports. The work is in
//! [`crate::seed003`].

use crate::seed003::experiment::{self, Seed003Experiment};
use crate::seed003::report;
use std::io::Write;
use std::path::PathBuf;

/// `kairos experiment`'s flags, as a seed 003 file uses them.
pub struct Options {
    /// The experiment file.
    pub file: PathBuf,
    /// `--trials`.
    pub trials: Option<u32>,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// `--jobs`.
    pub jobs: Option<usize>,
    /// `--force`: overwrite an earlier run's reports in the folder.
    pub force: bool,
    /// `--json`: the summary CSV's rows as JSON instead of the text table.
    pub json: bool,
}

/// Runs a seed 003 experiment file.
pub fn main(mut args: Options) -> anyhow::Result<()> {
    let mut exp = Seed003Experiment::load(&args.file)?;
    if let Some(n) = args.trials {
        if n == 0 || n > 100_000 {
            return Err(super::usage(format!(
                "--trials {n}: must be between 1 and 100000"
            )));
        }
        exp.trials = n;
    }
    if args.jobs == Some(0) {
        return Err(super::usage("--threads 0 (--jobs 0): must be at least 1"));
    }
    args.jobs =
        crate::limits::threads("--threads", args.jobs).map_err(|e| super::usage(e.to_string()))?;
    let out_dir = args.out.clone().unwrap_or_else(|| exp.default_out_dir());
    // Created and checked before any work: a bad --out fails at once.
    crate::output::prepare_reports_dir(
        &out_dir,
        args.force,
        "summary.csv",
        &[&args.file, &exp.scenario_path],
        &[],
    )?;
    crate::diag!(
        "{}: {} points x {} approaches x {} trials of {}",
        exp.name,
        exp.points.len(),
        exp.approaches.len(),
        exp.trials,
        exp.scenario_path.display()
    );
    let progress = |done: usize, total: usize| {
        crate::diag!("workload {done}/{total} done");
    };
    let out = experiment::run(&exp, args.jobs, &progress)?;
    let (cells, avgs) = report::summarize(&exp, &out);
    let written = report::write_all(&out_dir, &exp, &out, &cells)?;
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(
            stdout,
            "{}",
            super::json::dir_summary(&out_dir, &["summary.csv"])?
        )?;
        return Ok(());
    }
    write!(stdout, "{}", report::text(&exp, &cells, &avgs))?;
    if let Some(c) = report::calibration(&exp, &cells) {
        write!(stdout, "{c}")?;
    }
    if out.profiled_jobs > 0 {
        writeln!(
            stdout,
            "PBA profiling: {} jobs, {:.1} worker-seconds, {:.2} ms a job",
            out.profiled_jobs,
            out.profile_cpu_s,
            1e3 * out.profile_cpu_s / out.profiled_jobs as f64
        )?;
    }
    writeln!(
        stdout,
        "{} runs in {:.1} s on {} threads ({:.1} worker-seconds without profiling); wrote {}",
        out.rows.len(),
        out.wall_s,
        out.threads,
        out.run_cpu_s,
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    Ok(())
}

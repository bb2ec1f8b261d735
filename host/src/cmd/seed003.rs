//! `kairos experiment` on a seed 003 file (one with a `[seed003]` table): runs it, prints the
//! table (and a calibration's verdict) and writes the reports. The work is in
//! [`crate::seed003`].

use crate::experiment::saved::{self, Steps};
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
    /// `--force`: overwrite an earlier run's reports (and saved units) in the folder.
    pub force: bool,
    /// `--resume`: run only the units an interrupted run did not save.
    pub resume: bool,
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
        args.force || args.resume,
        "summary.csv",
        &[&args.file, &exp.scenario_path],
        &[],
    )?;
    exp.cache_profiles_under(&out_dir);
    let mut id = crate::shard::Identity::new();
    id.file("experiment", &args.file)?;
    id.file("scenario", &exp.scenario_path)?;
    id.part("trials", &exp.trials.to_le_bytes());
    let steps = Steps {
        dir: out_dir.join(saved::RUNS_DIR),
        kind: "seed003",
        hash: id.text(),
        steps: experiment::unit_count(&exp),
    };
    let flags = saved::Flags {
        resume: args.resume,
        force: args.force,
    };
    let saved_units = flags.prepare(&out_dir, "summary.csv", &steps)?;
    let before = saved_units.iter().filter(|s| **s).count() as u32;
    crate::diag!(
        "{}: {} points x {} approaches x {} trials of {} ({} workloads{})",
        exp.name,
        exp.points.len(),
        exp.approaches.len(),
        exp.trials,
        exp.scenario_path.display(),
        steps.steps,
        if before > 0 {
            format!(", {before} saved")
        } else {
            String::new()
        }
    );
    crate::interrupt::catch_for_steps(args.jobs, "workload");
    let progress =
        crate::progress::Steps::new(&exp.name, "workloads", steps.steps as u64, before as u64);
    let saving = experiment::Saving {
        steps: &steps,
        saved: &saved_units,
        stop: &crate::interrupt::requested_saying,
        progress: &progress,
    };
    let ran = experiment::run_saved(&exp, args.jobs, &saving)?;
    progress.finish();
    let Some(out) = ran else {
        let n = steps.saved()?.iter().filter(|s| **s).count();
        return Err(saved::stopped(
            n,
            &steps,
            "workloads",
            &format!(
                "kairos experiment {} --out {}{}",
                args.file.display(),
                out_dir.display(),
                args.trials
                    .map_or(String::new(), |n| format!(" --trials {n}"))
            ),
        ));
    };
    let (cells, avgs) = report::summarize(&exp, &out);
    let mut written = report::write_all(&out_dir, &exp, &out, &cells)?;
    written.extend(crate::seed003::claim_grid::write(&exp, &out_dir)?);
    // The reports are complete: the saved units have served.
    steps.remove()?;
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

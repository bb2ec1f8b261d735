//! `kairos merge`: joins the shard files of a sharded experiment or knapsack sweep into the
//! reports one machine would have written (the library is [`crate::shard`]; seed 002's
//! serial and energy shards, [`crate::seed002::shard`]).

use crate::report;
use crate::shard;
use anyhow::bail;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `kairos merge`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Shard files, or directories whose `*.shard` files are read.
    #[arg(required = true, value_name = "DIR|FILE")]
    pub shards: Vec<PathBuf>,
    /// Write the reports here (default: `out/<name>/` for an experiment,
    /// `out/<log stem>-knapsack/` for a knapsack sweep, as the unsharded commands do).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The experiment file, when it is no longer where the shards ran it (its content must
    /// be the same).
    #[arg(long, value_name = "FILE")]
    pub experiment: Option<PathBuf>,
    /// Overwrite the reports of an earlier merge or run in the output folder (without it, a
    /// folder holding a `summary.json` is refused, as `kairos experiment` refuses it).
    #[arg(long)]
    pub force: bool,
    /// Print the summary as JSON on stdout (an experiment's summary.json; a knapsack
    /// sweep's summary is JSON in any case).
    #[arg(long)]
    pub json: bool,
}

/// Runs `kairos merge`.
pub fn main(args: Args) -> anyhow::Result<()> {
    let files = shard::find(&args.shards)?;
    let kind = shard::kind(&files[0])?;
    match kind.as_str() {
        k if crate::seed002::shard::is_kind(k) => {
            let to = crate::seed002::shard::MergeTo {
                out: args.out,
                experiment: args.experiment,
                force: args.force,
            };
            let (table, dir) = crate::seed002::shard::merge_files(k, &files, &to)?;
            if args.json {
                let s = super::json::dir_summary(&dir, &["summary.csv"])?;
                writeln!(super::pipe::stdout(), "{s}")?;
            } else {
                write!(super::pipe::stdout(), "{table}")?;
                writeln!(
                    super::pipe::stdout(),
                    "merged {} shard files; wrote the reports to {}",
                    files.len(),
                    dir.display()
                )?;
            }
        }
        shard::experiment::KIND => {
            let (exp, outcome) = shard::experiment::merge(&files, args.experiment.as_deref())?;
            let dir = args.out.unwrap_or_else(|| exp.default_out_dir());
            // The experiment and scenario files are inputs a report must not overwrite (the
            // shard files may share the folder: no report is a `.shard`).
            crate::output::prepare_reports_dir(
                &dir,
                args.force,
                crate::output::RESULTS_MARKER,
                &[exp.file.as_path(), exp.scenario_path.as_path()],
                &[],
            )?;
            let written = report::write_all(&dir, &exp, &outcome)?;
            let summaries = report::summarize(&exp, &outcome);
            if args.json {
                writeln!(
                    super::pipe::stdout(),
                    "{}",
                    super::json::dir_summary(&dir, &[])?
                )?;
            } else {
                write!(
                    super::pipe::stdout(),
                    "{}",
                    report::text_table(&exp, &summaries)
                )?;
                writeln!(
                    super::pipe::stdout(),
                    "merged {} shard files ({} runs); wrote {}",
                    files.len(),
                    outcome.rows.len() + outcome.failures.len(),
                    written
                        .files
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )?;
            }
            if !outcome.failures.is_empty() {
                bail!(
                    "{} runs failed in the shards (listed in summary.json); the reports cover \
                     the others",
                    outcome.failures.len()
                );
            }
        }
        shard::knapsack::KIND => {
            if args.experiment.is_some() {
                bail!("--experiment: these are knapsack-sweep shards, not experiment shards");
            }
            let (sweep, w, grid, points) = shard::knapsack::merge(&files)?;
            let dir = args
                .out
                .unwrap_or_else(|| super::sweep_knapsack::default_out_dir(&sweep));
            let inputs: Vec<&std::path::Path> = sweep.swf.iter().map(|p| p.as_path()).collect();
            crate::output::prepare_reports_dir(
                &dir,
                args.force,
                crate::output::RESULTS_MARKER,
                &inputs,
                &[],
            )?;
            let json = shard::knapsack::write_reports(&dir, &sweep, &w, &grid, &points)?;
            writeln!(super::pipe::stdout(), "{json}")?;
            crate::diag!(
                "merged {} shard files ({} points); wrote {}",
                files.len(),
                points.len(),
                dir.display()
            );
        }
        other => bail!(
            "{}: shards of kind {other:?}: this kairos merges experiment (seed 000, seed 002 \
             serial and energy) and knapsack shards",
            files[0].display()
        ),
    }
    Ok(())
}

//! `kairos pareto`: evolves the Pareto fronts of a seed 002 Chapter 5-6 experiment file
//! (`system = "pareto"`) and writes them (`crate::seed002::pareto::report`), each
//! checkpoint's fronts as soon as the run reaches it. One line per population and
//! checkpoint on stderr, and between them one after 3 s, then one every 30 s (generation,
//! elapsed, time left); the summary table to stdout. With `--export-instance PATH` it
//! writes the generated instance instead of running.

use crate::cmd::experiment::duration_text;
use crate::seed002::pareto::checkpoints::Progress;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `kairos pareto`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The experiment file (TOML), e.g. experiments/s002-pareto-fig5.4-set2.toml.
    pub file: PathBuf,
    /// Record fronts at these generations instead of the file's (comma-separated,
    /// increasing), e.g. 0,1000,10000 for a shorter run.
    #[arg(long, value_name = "G,G,..", value_delimiter = ',')]
    pub checkpoints: Option<Vec<u64>>,
    /// Write the reports here instead of `out/<name>/`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: one per core). Results do not depend on it. `--jobs` is its
    /// former name, kept as an alias.
    #[arg(long = "threads", visible_alias = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
    /// Overwrite an earlier run's reports in the folder.
    #[arg(long)]
    pub force: bool,
    /// Print the summary (coverage.csv's rows) as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Save each population's state (chromosomes, random stream, generation) here at each
    /// checkpoint, so that a later piece can go on with --resume.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Start each population from its state in --state DIR and run on to --checkpoints
    /// (all later than the saved generation): the pieces give the fronts of one sitting.
    #[arg(long, requires = "state")]
    pub resume: bool,
    /// Write the file's generated instance (tasks, arrivals, utility curves, machines, ETC
    /// and power tables; Chapter 7's P-states, time distributions and common random numbers)
    /// to PATH as JSON (docs/formats.md, "Pareto instances") and exit without evolving. With
    /// the run's allocations.csv (one row per task of each last-checkpoint front point:
    /// machine, order, P-state) it lets another tool recompute every point of fronts.csv,
    /// e.g. `python3 scripts/pareto_evaluate.py PATH DIR/allocations.csv`.
    #[arg(long, value_name = "PATH")]
    pub export_instance: Option<PathBuf>,
}

/// Runs `kairos pareto`.
pub fn main(mut a: Args) -> anyhow::Result<()> {
    let progress = |p: &Progress| {
        let eta = match p.eta() {
            Some(left) if p.generation < p.last => format!(", about {} left", duration_text(left)),
            _ => String::new(),
        };
        crate::diag!(
            "population {}: generation {} of {} after {}{eta}{}",
            p.population,
            p.generation,
            p.last,
            duration_text(p.elapsed),
            if p.checkpoint {
                " (checkpoint: fronts written)"
            } else {
                ""
            }
        );
    };
    if let Some(path) = &a.export_instance {
        let f = crate::seed002::pareto::instance_file::export(&a.file, path)?;
        writeln!(
            super::pipe::stdout(),
            "instance of {} ({} tasks, {} machines) written to {}",
            f.experiment,
            f.tasks.len(),
            f.machines.len(),
            path.display()
        )?;
        return Ok(());
    }
    if a.jobs == Some(0) {
        return Err(super::usage("--threads 0 (--jobs 0): must be at least 1"));
    }
    a.jobs =
        crate::limits::threads("--threads", a.jobs).map_err(|e| super::usage(e.to_string()))?;
    let out = crate::seed002::ReportsDir {
        dir: a.out,
        force: a.force,
    };
    let setup = setup_progress(&a.file);
    let (table, dir) = crate::seed002::run_pareto_file(
        &a.file,
        a.checkpoints,
        out,
        a.jobs,
        a.state.map(|d| (d, a.resume)),
        &progress,
    )?;
    drop(setup);
    if a.json {
        let s = super::json::dir_summary(&dir, &["coverage.csv"])?;
        writeln!(super::pipe::stdout(), "{s}")?;
        return Ok(());
    }
    write!(super::pipe::stdout(), "{table}")?;
    writeln!(
        super::pipe::stdout(),
        "reports written to {}",
        dir.display()
    )?;
    Ok(())
}

/// The progress of a run's setup: every population's first generation evaluated, a
/// chromosome a step (`crate::nsga2::Nsga2::new` ticks it), which on a large instance takes
/// seconds before the first checkpoint's line. None for a file that does not load (the run
/// says why) or a stochastic one, whose populations are set up as they start.
fn setup_progress(file: &std::path::Path) -> Option<crate::progress::Shown> {
    use crate::seed002::pareto;
    if pareto::stochastic_run::is_stochastic(file) {
        return None;
    }
    let exp = pareto::experiment::ParetoExperiment::load(file).ok()?;
    let chromosomes = exp.populations.len() as u64 * exp.params.population as u64;
    Some(crate::progress::show(
        crate::progress::Steps::new(
            &exp.name,
            "chromosomes of generation 0 evaluated",
            chromosomes,
            0,
        )
        .quiet_for(crate::progress::QUIET),
    ))
}

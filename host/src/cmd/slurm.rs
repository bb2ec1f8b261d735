//! `kairos slurm`: writes the Slurm scripts of a sharded experiment, and with `--submit`
//! submits them (the library is [`crate::slurm`]).

use crate::experiment::Experiment;
use crate::slurm::{self, Plan};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Flags of `kairos slurm`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The experiment file (TOML).
    pub file: PathBuf,
    /// Shards: the job array's tasks.
    #[arg(long, value_name = "N")]
    pub shards: u32,
    /// The Slurm partition of the jobs.
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// The time limit of each job (Slurm's format: minutes, HH:MM:SS, D-HH:MM, ...).
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// Cores per shard (each shard runs that many threads).
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub cpus_per_task: u32,
    /// Run this many trials (0..N) instead of the file's.
    #[arg(long, value_name = "N")]
    pub trials: Option<u32>,
    /// Where the scripts, logs and shard files go (default `out/<name>/slurm/`).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Where the merge writes the reports (default `out/<name>/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Submit the jobs with sbatch and print their ids.
    #[arg(long)]
    pub submit: bool,
    /// Submit only these shards (e.g. `3` or `2,4`: ones that failed) and a merge after
    /// them; the other shards' files are kept. Implies --submit.
    #[arg(long, value_name = "K,...", value_delimiter = ',')]
    pub only: Option<Vec<u32>>,
}

/// What `kairos slurm` needs of the experiment it shards.
struct Sweep {
    /// Its name.
    name: String,
    /// `out/<name>/`.
    default_out: PathBuf,
    /// Its runs (seed 002: its (configuration, trial) units).
    runs: u64,
    /// The files the scripts must not overwrite.
    inputs: Vec<PathBuf>,
    /// Whether its shards take `--resume` (seed 002's).
    resume: bool,
}

fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    Ok(std::env::current_dir()
        .context("cannot read the working directory")?
        .join(p))
}

/// Runs `kairos slurm`.
pub fn main(args: Args) -> anyhow::Result<()> {
    if let Some(n) = args.trials {
        if n == 0 || n > crate::experiment::MAX_TRIALS {
            return Err(super::usage(format!(
                "--trials {n}: must be between 1 and {}",
                crate::experiment::MAX_TRIALS
            )));
        }
    }
    // A seed 002 serial or energy file shards its (configuration, trial) units and resumes
    // a shard whose job was cut short; a seed 000 file, its runs.
    let sweep = match crate::seed002::shard::describe(&args.file, args.trials) {
        Some(d) => {
            let (name, trials, configs) = d?;
            Sweep {
                default_out: std::path::Path::new("out").join(&name),
                name,
                runs: trials as u64 * configs as u64,
                inputs: vec![args.file.clone()],
                resume: true,
            }
        }
        None => {
            let exp = Experiment::load(&args.file)?;
            Sweep {
                name: exp.name.clone(),
                default_out: exp.default_out_dir(),
                runs: args.trials.unwrap_or(exp.trials) as u64 * exp.configs.len() as u64,
                inputs: vec![args.file.clone(), exp.scenario_path.clone()],
                resume: false,
            }
        }
    };
    let out = absolute(
        &args
            .out
            .clone()
            .unwrap_or_else(|| sweep.default_out.clone()),
    )?;
    let dir = absolute(
        &args
            .dir
            .clone()
            .unwrap_or_else(|| sweep.default_out.join("slurm")),
    )?;
    let plan = Plan {
        name: sweep.name.clone(),
        experiment: std::fs::canonicalize(&args.file)
            .with_context(|| format!("{}: cannot resolve", args.file.display()))?,
        shards: args.shards,
        trials: args.trials,
        partition: args.partition.clone(),
        time: args.time.clone(),
        cpus_per_task: args.cpus_per_task,
        kairos: std::env::current_exe().context("cannot find the kairos binary's path")?,
        workdir: std::env::current_dir().context("cannot read the working directory")?,
        dir,
        out,
        resume: sweep.resume,
    };
    // Values clap parses but a job array cannot take: a bad command line (exit 2).
    slurm::check_flags(&plan).map_err(|e| super::usage(format!("{e:#}")))?;
    slurm::check(&plan)?;
    // The scripts are outputs: neither may be the experiment or its scenario file.
    for name in ["shards.sbatch", "merge.sbatch"] {
        crate::output::refuse_input(
            "--dir",
            &plan.dir.join(name),
            &sweep
                .inputs
                .iter()
                .map(PathBuf::as_path)
                .collect::<Vec<_>>(),
        )?;
    }
    let only = match &args.only {
        Some(list) => {
            Some(slurm::check_only(list, plan.shards).map_err(|e| super::usage(format!("{e:#}")))?)
        }
        None => None,
    };
    let runs = sweep.runs;
    if runs < plan.shards as u64 {
        crate::diag!(
            "note: {} shards for {runs} runs: {} shards will have no runs",
            plan.shards,
            plan.shards as u64 - runs
        );
    }
    let (array, merge) = plan.write()?;
    writeln!(
        super::pipe::stdout(),
        "wrote {} and {}",
        array.display(),
        merge.display()
    )?;
    if !args.submit && only.is_none() {
        writeln!(
            super::pipe::stdout(),
            "submit with: id=$(sbatch --parsable {}) && sbatch --dependency=afterok:$id {}",
            array.display(),
            merge.display()
        )?;
        return Ok(());
    }
    if only.is_none() {
        let n = plan.clear_shards()?;
        if n > 0 {
            writeln!(
                super::pipe::stdout(),
                "removed {n} shard files of an earlier submission from {}",
                plan.shard_dir().display()
            )?;
        }
    }
    let s = slurm::submit(&plan, &array, &merge, only.as_deref())?;
    writeln!(
        super::pipe::stdout(),
        "array job {}: shards {} of {}, logs in {}",
        s.array,
        s.tasks,
        plan.shards,
        plan.log_dir().display()
    )?;
    writeln!(
        super::pipe::stdout(),
        "merge job {}: after job {} succeeds, writes {}",
        s.merge,
        s.array,
        plan.out.display()
    )?;
    if only.is_some() {
        writeln!(
            super::pipe::stdout(),
            "(cancel the merge job of the earlier submission if it still waits: scancel <id>)"
        )?;
    }
    Ok(())
}

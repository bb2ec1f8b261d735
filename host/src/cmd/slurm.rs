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
    let exp = Experiment::load(&args.file)?;
    if let Some(n) = args.trials {
        if n == 0 || n > crate::experiment::MAX_TRIALS {
            return Err(super::usage(format!(
                "--trials {n}: must be between 1 and {}",
                crate::experiment::MAX_TRIALS
            )));
        }
    }
    let out = absolute(&args.out.clone().unwrap_or_else(|| exp.default_out_dir()))?;
    let dir = absolute(
        &args
            .dir
            .clone()
            .unwrap_or_else(|| exp.default_out_dir().join("slurm")),
    )?;
    let plan = Plan {
        name: exp.name.clone(),
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
    };
    // Values clap parses but a job array cannot take: a bad command line (exit 2).
    slurm::check_flags(&plan).map_err(|e| super::usage(format!("{e:#}")))?;
    slurm::check(&plan)?;
    // The scripts are outputs: neither may be the experiment or its scenario file.
    for name in ["shards.sbatch", "merge.sbatch"] {
        crate::output::refuse_input(
            "--dir",
            &plan.dir.join(name),
            &[args.file.as_path(), exp.scenario_path.as_path()],
        )?;
    }
    let only = match &args.only {
        Some(list) => {
            Some(slurm::check_only(list, plan.shards).map_err(|e| super::usage(format!("{e:#}")))?)
        }
        None => None,
    };
    let runs = args.trials.unwrap_or(exp.trials) as u64 * exp.configs.len() as u64;
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

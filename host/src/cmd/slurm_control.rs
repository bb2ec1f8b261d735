//! `kairos slurm-control`: kairos in charge of a Slurm cluster's scheduling (the library is
//! [`crate::slurm_control`]; docs/operations.md).

use std::path::PathBuf;

use anyhow::Context;

use crate::slurm_control::{self, Options, SitePolicy, SlurmCli, SystemClock};

/// Flags of `kairos slurm-control`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The policy file (TOML; docs/operations.md).
    pub policy: PathBuf,
    /// The ledger file: what kairos told its controller, rebuilt from on a restart.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/var/lib/kairos/slurm-control.json"
    )]
    pub ledger: PathBuf,
    /// Tasks the controller holds at once (waiting or running jobs).
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_jobs: usize,
    /// Stop after this many cycles (default: run until SIGINT or SIGTERM).
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
    /// Take every decision from a policy in another process: exec:COMMAND (run by sh),
    /// speaking JSON lines on its stdin and stdout (docs/protocol.md); each decision is
    /// checked before it is applied. The policy file's `policy` still sets the controller's
    /// configuration (drop threshold, reservations).
    #[arg(long, value_name = "exec:COMMAND")]
    pub controller: Option<crate::live::ControllerSpec>,
    /// Seconds to wait for each answer of the --controller before giving up.
    #[arg(long, value_name = "S", default_value = "10", value_parser = super::run::parse_timeout)]
    pub controller_timeout: std::time::Duration,
    /// Release every held job of the managed partitions as it is and exit: scheduling
    /// handed back to Slurm (stop kairos and take the partitions out of job_submit.lua
    /// first).
    #[arg(long)]
    pub hand_back: bool,
}

/// Runs `kairos slurm-control`.
pub fn main(args: Args) -> anyhow::Result<()> {
    let policy = SitePolicy::load(&args.policy)?;
    let mut slurm = SlurmCli;
    if args.hand_back {
        let released = slurm_control::hand_back(&mut slurm, &policy)
            .map_err(|e| anyhow::anyhow!("handing back: {e}"))?;
        println!(
            "released {} held jobs of {}",
            released.len(),
            policy.partitions.join(",")
        );
        return Ok(());
    }
    if args.max_jobs == 0 {
        return Err(super::usage("--max-jobs 0: must be at least 1".to_string()));
    }
    if args.cycles == Some(0) {
        return Err(super::usage("--cycles 0: must be at least 1".to_string()));
    }
    let exec = match &args.controller {
        None => None,
        Some(crate::live::ControllerSpec::Exec(command)) => {
            Some((command.clone(), args.controller_timeout))
        }
        Some(_) => {
            return Err(super::usage(
                "kairos slurm-control takes --controller exec:COMMAND (the firmware's serial \
                 controllers run scenarios: kairos run --controller)",
            ))
        }
    };
    let policy_text = std::fs::read_to_string(&args.policy)
        .with_context(|| format!("{}: cannot read", args.policy.display()))?;
    if let Some(dir) = args.ledger.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the ledger's folder", dir.display()))?;
    }
    slurm_control::signals::catch();
    let options = Options {
        policy,
        policy_text,
        ledger: args.ledger.clone(),
        max_tasks: args.max_jobs,
        cycles: args.cycles,
        exec,
    };
    let stop = slurm_control::signals::requested;
    let mut log = |m: &str| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "slurm-control: {m}");
    };
    let reports = slurm_control::serve(&options, &mut slurm, &mut SystemClock, &stop, &mut log)?;
    log(&format!(
        "stopped after {} cycles that did something; ledger {}",
        reports.len(),
        args.ledger.display()
    ));
    Ok(())
}

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
    /// Take every decision from elsewhere, each checked before it is applied: qemu (the
    /// firmware's live image under QEMU, see --image) or serial:/dev/ttyACM0 (a board at
    /// 115200 baud), over the wire protocol; or exec:COMMAND (run by sh), a policy speaking
    /// JSON lines on its stdin and stdout (docs/protocol.md). The policy file's `policy`
    /// sets the controller's configuration (the heuristic the firmware runs; an exec
    /// policy's drop threshold and reservations).
    #[arg(long, value_name = "WHERE")]
    pub controller: Option<crate::live::ControllerSpec>,
    /// Seconds to wait for each answer of the --controller (the firmware: before asking
    /// again; an exec policy: before giving up).
    #[arg(long, value_name = "S", default_value = "10", value_parser = super::run::parse_timeout)]
    pub controller_timeout: std::time::Duration,
    /// The live firmware image for --controller qemu (default: what firmware/live.sh
    /// builds).
    #[arg(long, value_name = "ELF")]
    pub image: Option<PathBuf>,
    /// Compact the ledger once it passes this many bytes: the entries up to the last
    /// moment kairos held no job are dropped (a replay of the rest rebuilds the same state).
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    pub compact_bytes: u64,
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
    let (mut exec, mut remote) = (None, None);
    match &args.controller {
        None => {}
        Some(crate::live::ControllerSpec::Exec(command)) => {
            exec = Some((command.clone(), args.controller_timeout));
        }
        Some(crate::live::ControllerSpec::Inline) => {
            return Err(super::usage(
                "kairos slurm-control --controller inline: the in-process controller is the \
                 default (omit --controller); give qemu, serial:PATH or exec:COMMAND",
            ))
        }
        Some(spec) => {
            let image = args.image.clone().unwrap_or_else(|| {
                let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .parent()
                    .unwrap_or(std::path::Path::new("."))
                    .to_path_buf();
                crate::live::default_image(&root)
            });
            remote = Some((spec.clone(), image, args.controller_timeout));
        }
    }
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
        remote,
        compact_bytes: args.compact_bytes,
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

//! `kairos export`: writes a scenario's generated trial, an SWF log or a Batsim workload as
//! SWF or as a Batsim workload (the library is [`crate::export`]).

use std::path::PathBuf;

use anyhow::Context;

use crate::export::{self, Format};
use crate::trace::LoadOptions;

/// Flags of `kairos export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The input, told apart by content: a scenario (TOML), an SWF log or a Batsim workload
    /// (JSON).
    pub input: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    pub format: Format,
    /// The file to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Which trial of a scenario to generate.
    #[arg(long, default_value_t = 0)]
    pub trial: u32,
    /// SWF input: machine size (default: the header's MaxProcs, else MaxNodes).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: Option<u32>,
    /// SWF input: clean the log first (as `kairos replay --clean strong`).
    #[arg(long)]
    pub clean_strong: bool,
}

/// Runs `kairos export`.
pub fn main(args: Args) -> anyhow::Result<()> {
    let options = LoadOptions {
        procs: args.procs,
        clean_strong: args.clean_strong,
        skip_bad_lines: false,
        strict: false,
    };
    let jobs = export::read_jobs(&args.input, args.trial, &options)?;
    if let Some(dir) = args.output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
    }
    let mut out = Vec::new();
    export::write(&mut out, &jobs, args.format)?;
    std::fs::write(&args.output, out)
        .with_context(|| format!("{}: cannot write", args.output.display()))?;
    eprintln!(
        "{}: {} jobs on {} machines ({})",
        args.output.display(),
        jobs.jobs.len(),
        jobs.machine,
        jobs.source
    );
    Ok(())
}

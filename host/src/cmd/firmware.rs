//! `kairos firmware-scenario [--out-dir DIR] [--check]`: writes the firmware's reference
//! scenarios ([`crate::firmware_scenarios::NAMES`]) encoded, one `<name>.bin` each, to
//! `firmware/scenarios/` (the firmware embeds them at build time); `--check` only compares
//! and fails if a file is missing or stale. The work is
//! [`crate::firmware_scenarios::write_files`].

use std::io::Write;
use std::path::PathBuf;

use crate::firmware_scenarios::{self, FileState};
use anyhow::bail;

/// Flags of `kairos firmware-scenario`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to write `<name>.bin` (default: the source tree's firmware/scenarios).
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// Compare with the files instead of writing them; fail if any is missing or stale.
    #[arg(long)]
    pub check: bool,
}

/// Runs `kairos firmware-scenario`.
pub fn main(args: Args) -> anyhow::Result<()> {
    let dir = args
        .out_dir
        .unwrap_or_else(firmware_scenarios::scenario_dir);
    let files = firmware_scenarios::write_files(&dir, args.check)?;
    let mut stale = 0;
    for f in &files {
        let path = f.path.display();
        match f.state {
            FileState::UpToDate => writeln!(
                super::pipe::stdout(),
                "{path}: up to date ({} bytes)",
                f.bytes
            )?,
            FileState::Written => {
                writeln!(super::pipe::stdout(), "{path}: written ({} bytes)", f.bytes)?
            }
            FileState::Stale => {
                writeln!(super::pipe::stdout(), "{path}: stale or missing")?;
                stale += 1;
            }
        }
    }
    if stale > 0 {
        bail!(
            "{stale} scenario file(s) stale: run `cargo run -p kairos-host -- firmware-scenario`"
        );
    }
    Ok(())
}

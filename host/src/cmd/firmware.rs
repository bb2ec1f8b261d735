//! `kairos firmware-scenario [--out-dir DIR] [--check]`: writes the firmware's reference
//! scenarios ([`crate::fwscenario::NAMES`]) encoded, one `<name>.bin` each, to
//! `firmware/scenarios/` (the firmware embeds them at build time); `--check` only compares
//! and fails if a file is missing or stale.

use std::path::PathBuf;

use crate::fwscenario;
use anyhow::{bail, Context};

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
    let dir = args.out_dir.unwrap_or_else(fwscenario::scenario_dir);
    if !args.check {
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut stale = Vec::new();
    for name in fwscenario::NAMES {
        let bytes = fwscenario::encoded(name)?;
        let path = dir.join(format!("{name}.bin"));
        let current = std::fs::read(&path).ok();
        if current.as_deref() == Some(&bytes[..]) {
            println!("{}: up to date ({} bytes)", path.display(), bytes.len());
        } else if args.check {
            println!("{}: stale or missing", path.display());
            stale.push(path);
        } else {
            std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
            println!("{}: written ({} bytes)", path.display(), bytes.len());
        }
    }
    if !stale.is_empty() {
        bail!(
            "{} scenario file(s) stale: run `cargo run -p kairos-host -- firmware-scenario`",
            stale.len()
        );
    }
    Ok(())
}

//! `kairos replay` (being written).

/// Flags of `kairos replay`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kairos replay`.
pub fn main(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("kairos replay is not implemented yet")
}

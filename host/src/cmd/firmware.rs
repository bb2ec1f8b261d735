//! `kairos firmware` (being written).

/// Flags of `kairos firmware`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kairos firmware`.
pub fn main(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("kairos firmware is not implemented yet")
}

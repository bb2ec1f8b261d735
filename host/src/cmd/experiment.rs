//! `kairos experiment` (being written).

/// Flags of `kairos experiment`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kairos experiment`.
pub fn main(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("kairos experiment is not implemented yet")
}

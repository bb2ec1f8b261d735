//! `kairos digest` (being written).

/// Flags of `kairos digest`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kairos digest`.
pub fn main(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("kairos digest is not implemented yet")
}

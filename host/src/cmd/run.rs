//! `kairos run` (being written).

/// Flags of `kairos run`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kairos run`.
pub fn main(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("kairos run is not implemented yet")
}

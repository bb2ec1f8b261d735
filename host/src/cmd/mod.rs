//! One module per subcommand of the `kairos` binary: its flags (`Args`) and its `main`.

pub mod digest;
pub mod experiment;
pub mod firmware;
pub mod replay;
pub mod run;
pub mod sweep_knapsack;

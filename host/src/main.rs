//! The `kairos` binary: parses flags and calls the library (`kairos_host::cmd`).
//!
//! Exit codes: 0 success (also when the reader of stdout closed it early); 1 a run failed (bad
//! input, a core error); 2 bad command line.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "kairos",
    version,
    about = "Utility-aware, energy-constrained scheduling for heterogeneous HPC clusters"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one trial of a scenario under one heuristic.
    Run(kairos_host::cmd::run::Args),
    /// Run an experiment file: heuristics x filters x trials, with reports and plots.
    Experiment(kairos_host::cmd::experiment::Args),
    /// Replay a Standard Workload Format trace.
    // Boxed: its flags are many, and the enum is only as large as its largest variant.
    Replay(Box<kairos_host::cmd::replay::Args>),
    /// Seed 004's exhaustive (alpha, beta, gamma) knapsack sweep and its Pareto fronts.
    SweepKnapsack(kairos_host::cmd::sweep_knapsack::Args),
    /// Join the shard files of a sharded experiment or knapsack sweep into its reports.
    Merge(kairos_host::cmd::merge::Args),
    /// Write (and with --submit, submit) the Slurm job array of a sharded experiment.
    Slurm(kairos_host::cmd::slurm::Args),
    /// Schedule a Slurm cluster: read its queue, decide, start or cancel its held jobs.
    SlurmControl(kairos_host::cmd::slurm_control::Args),
    /// Write a synthetic SWF log from a workload model (--model lublin99).
    GenerateSwf(kairos_host::cmd::generate_swf::Args),
    /// Seed 002 Chapters 5-7: evolve Pareto fronts (NSGA-II) of a `system = "pareto"` or
    /// `"pareto-stochastic"` file, with each point's allocation; or export its instance.
    Pareto(kairos_host::cmd::pareto::Args),
    /// Write a scenario's trial, an SWF log or a Batsim workload as SWF or Batsim JSON.
    Export(kairos_host::cmd::export::Args),
    /// Evaluate every claim of the seeds on the outputs in results/ (claims/*.toml).
    Claims(kairos_host::cmd::claims::Args),
    /// Print the digest the firmware must reach for a firmware scenario (ph, upe, overcap or
    /// an encoded .bin; a scenario TOML runs with `kairos run`).
    Digest(kairos_host::cmd::digest::Args),
    /// Regenerate the firmware's embedded reference scenario.
    FirmwareScenario(kairos_host::cmd::firmware::Args),
}

fn main() -> ExitCode {
    // Progress stays quiet for the command's first seconds, counted from here.
    kairos_host::progress::command_started();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => kairos_host::cmd::run::main(a),
        Command::Experiment(a) => kairos_host::cmd::experiment::main(a),
        Command::Replay(a) => kairos_host::cmd::replay::main(*a),
        Command::SweepKnapsack(a) => kairos_host::cmd::sweep_knapsack::main(a),
        Command::Merge(a) => kairos_host::cmd::merge::main(a),
        Command::Slurm(a) => kairos_host::cmd::slurm::main(a),
        Command::SlurmControl(a) => kairos_host::cmd::slurm_control::main(a),
        Command::GenerateSwf(a) => kairos_host::cmd::generate_swf::main(a),
        Command::Pareto(a) => kairos_host::cmd::pareto::main(a),
        Command::Export(a) => kairos_host::cmd::export::main(a),
        Command::Claims(a) => kairos_host::cmd::claims::main(a),
        Command::Digest(a) => kairos_host::cmd::digest::main(a),
        Command::FirmwareScenario(a) => kairos_host::cmd::firmware::main(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout has gone (`kairos replay log.swf | head`): it wanted no more.
        Err(e) if kairos_host::cmd::pipe::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            kairos_host::diag!("error: {e:#}");
            // 2 for a command line that parsed but cannot be run, as for one clap rejects.
            if e.downcast_ref::<kairos_host::cmd::UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

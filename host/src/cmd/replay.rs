//! `kairos replay`: replays a Standard Workload Format log on a homogeneous machine under
//! strict FCFS, EASY or Conservative backfilling, seed 004's knapsack, or a utility-aware
//! heuristic over seed 001's value functions (the library is [`crate::trace`]).

use std::fs::File;
use std::path::PathBuf;

use anyhow::Context;

use kairos_core::knapsack::KnapsackParams;
use kairos_core::Reservations;

use crate::trace::{self, Allocation, LoadOptions, Policy, ReplayOptions, SummaryFile};

/// Cleaning presets of `--clean`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CleanPreset {
    /// Every step of `swf::CleanOptions::strong`: drop jobs with an unknown submit time, a
    /// run time <= 0, no processors, no request, or more processors than the machine; fill
    /// processors; clamp run times to the request.
    Strong,
}

/// Flags of `kairos replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The SWF file.
    pub swf: PathBuf,
    /// The scheduling policy.
    #[arg(long, value_enum)]
    pub policy: Policy,
    /// permanent or place-holder (utility-aware policies; default place-holder). The others
    /// only reserve permanently.
    #[arg(long, value_parser = super::parse_reservations)]
    pub reservations: Option<Reservations>,
    /// Attach seed 001 value functions drawn from this seed (default 1 under the
    /// utility-aware policies; with the others, only to report the value they earn).
    #[arg(long, value_name = "N")]
    pub value_seed: Option<u64>,
    /// nodes: the core's planner books named nodes (default); pool: textbook backfilling over
    /// a count of free processors, as pyss, with the log streamed (fcfs, easy and
    /// conservative only).
    #[arg(long, value_enum, default_value_t = Allocation::Nodes)]
    pub allocation: Allocation,
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes).
    #[arg(long)]
    pub procs: Option<u32>,
    /// Clean the log before replaying it.
    #[arg(long, value_enum)]
    pub clean: Option<CleanPreset>,
    /// Skip and count unreadable lines instead of failing on the first one.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Write one line per job: job_id,submit,start,end,procs (seconds).
    #[arg(long, value_name = "FILE.csv")]
    pub jobs_out: Option<PathBuf>,
    /// Write the summary as JSON (it is printed in any case).
    #[arg(long, value_name = "FILE.json")]
    pub summary_out: Option<PathBuf>,
    /// Knapsack: exponent of the size term (tasks / average tasks) [default: 0.9].
    #[arg(long, value_parser = super::finite, allow_hyphen_values = true)]
    pub alpha: Option<f64>,
    /// Knapsack: exponent of the wait term [default: 0.1].
    #[arg(long, value_parser = super::finite, allow_hyphen_values = true)]
    pub beta: Option<f64>,
    /// Knapsack: exponent of the runtime term (runtime / average runtime) [default: 0.1].
    #[arg(long, value_parser = super::finite, allow_hyphen_values = true)]
    pub gamma: Option<f64>,
}

impl Args {
    /// The knapsack parameters: the flags given, the defaults for the others.
    pub fn knapsack(&self) -> KnapsackParams {
        let d = KnapsackParams::default();
        KnapsackParams {
            alpha: self.alpha.unwrap_or(d.alpha),
            beta: self.beta.unwrap_or(d.beta),
            gamma: self.gamma.unwrap_or(d.gamma),
            share: 1.0,
        }
    }
}

/// The replay options of `args`: the policy's defaults, then the flags.
pub fn replay_options(args: &Args) -> anyhow::Result<ReplayOptions> {
    let mut o = ReplayOptions::new(args.policy);
    if let Some(r) = args.reservations {
        if !args.policy.is_utility_aware() && r == Reservations::PlaceHolder {
            anyhow::bail!(
                "--reservations place-holder: {} only reserves permanently (place-holders are \
                 for max-util, max-value, max-upt, max-upr and max-upe)",
                args.policy
            );
        }
        o.reservations = r;
    }
    if args.value_seed.is_some() {
        o.value_seed = args.value_seed;
    }
    if args.policy != Policy::Knapsack
        && (args.alpha.is_some() || args.beta.is_some() || args.gamma.is_some())
    {
        anyhow::bail!("--alpha, --beta and --gamma apply only to --policy knapsack");
    }
    o.knapsack = args.knapsack();
    Ok(o)
}

/// Runs `kairos replay`: load, replay, write the outputs, print the summary.
pub fn main(args: Args) -> anyhow::Result<()> {
    let replay = replay_options(&args)?;
    let options = LoadOptions {
        procs: args.procs,
        clean_strong: args.clean == Some(CleanPreset::Strong),
        skip_bad_lines: args.skip_bad_lines,
    };
    if args.allocation == Allocation::Pool {
        return main_pool(&args, &options);
    }
    let loaded = trace::load(&args.swf, &options)?;
    if let Some(report) = &loaded.clean {
        eprintln!("cleaning: {report}");
    }
    if loaded.skipped_bad_lines > 0 {
        eprintln!("skipped {} bad lines", loaded.skipped_bad_lines);
    }
    let result = trace::replay_trace_with(&loaded.jobs, loaded.procs, &replay)
        .with_context(|| format!("{}: replay under {} failed", loaded.file, args.policy))?;
    if let Some(path) = &args.jobs_out {
        let mut f =
            File::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        trace::write_jobs_csv(&mut f, &result.jobs)
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    let mut summary = SummaryFile::new(&loaded, &result);
    if args.policy == Policy::Knapsack {
        let k = args.knapsack();
        summary.knapsack = Some(trace::KnapsackSummary {
            alpha: k.alpha,
            beta: k.beta,
            gamma: k.gamma,
        });
    }
    let json = serde_json::to_string_pretty(&summary)?;
    if let Some(path) = &args.summary_out {
        std::fs::write(path, format!("{json}\n"))
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    println!("{json}");
    Ok(())
}

/// `kairos replay --allocation pool`: the log streamed through the processor pool.
fn main_pool(args: &Args, options: &LoadOptions) -> anyhow::Result<()> {
    if !Policy::ALL.contains(&args.policy) {
        anyhow::bail!(
            "--allocation pool schedules fcfs, easy and conservative, not {} (use \
             --allocation nodes)",
            args.policy
        );
    }
    if args.reservations.is_some() || args.value_seed.is_some() {
        anyhow::bail!("--reservations and --value-seed need --allocation nodes");
    }
    let mut file = match &args.jobs_out {
        Some(path) => {
            Some(File::create(path).with_context(|| format!("{}: cannot create", path.display()))?)
        }
        None => None,
    };
    let result = trace::replay_file_pool(
        &args.swf,
        options,
        args.policy,
        file.as_mut().map(|f| f as &mut dyn std::io::Write),
    )
    .with_context(|| format!("replay under {} failed", args.policy))?;
    if let Some(report) = &result.clean {
        eprintln!("cleaning: {report}");
    }
    if result.skipped_bad_lines > 0 {
        eprintln!("skipped {} bad lines", result.skipped_bad_lines);
    }
    let json = serde_json::to_string_pretty(&result.summary_file())?;
    if let Some(path) = &args.summary_out {
        std::fs::write(path, format!("{json}\n"))
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    println!("{json}");
    Ok(())
}

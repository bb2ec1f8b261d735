//! `kairos replay`: replays a Standard Workload Format log on a homogeneous machine under
//! strict FCFS, EASY or Conservative backfilling, seed 004's knapsack, or a utility-aware
//! heuristic over seed 001's value functions (the library is [`crate::trace`]).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use kairos_core::knapsack::KnapsackParams;
use kairos_core::Reservations;

use crate::batsim::InputKind;
use crate::trace::{self, Allocation, LoadOptions, Policy, ReplayOptions, SummaryFile};

/// Cleaning presets of `--clean`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CleanPreset {
    /// Every cleaning step: drop jobs with an unknown submit time, a
    /// run time <= 0, no processors, no request, or more processors than the machine; fill
    /// processors; clamp run times to the request.
    Strong,
}

/// Flags of `kairos replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The log: an SWF file (plain or gzip-compressed) or a Batsim workload (JSON), told
    /// apart by content.
    pub swf: PathBuf,
    /// The scheduling policy (or --controller).
    #[arg(long, value_enum, required_unless_present = "controller")]
    pub policy: Option<Policy>,
    /// Take every decision from a policy in another process: exec:COMMAND (run by sh),
    /// speaking JSON lines on its stdin and stdout (docs/protocol.md); each decision is
    /// checked before it is applied. Not with --policy.
    #[arg(long, value_name = "exec:COMMAND", conflicts_with = "policy")]
    pub controller: Option<crate::live::ControllerSpec>,
    /// Seconds to wait for each answer of the --controller before giving up.
    #[arg(long, value_name = "S", default_value = "10", value_parser = super::run::parse_timeout)]
    pub controller_timeout: std::time::Duration,
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
    /// With --allocation nodes: read the log as the replay reaches each job's submit time
    /// (plain or gzip), so that memory is bounded by the jobs in the system, not the log's
    /// length. Prints the summary without the analysis (which needs every job's wait), as
    /// --allocation pool does; not with value functions, a power model, --batsim-out,
    /// --first or --window.
    #[arg(long)]
    pub stream: bool,
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes).
    #[arg(long)]
    pub procs: Option<u32>,
    /// The machine from a platform file: kairos TOML or SimGrid/Batsim XML (partitions of
    /// different speeds, P-states and watts, and which jobs each runs; docs/your-cluster.md).
    /// Replaces --procs and the --busy-watts power model; energy is always reported.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["procs", "busy_watts", "idle_watts", "pstate"])]
    pub platform: Option<PathBuf>,
    /// Clean the log before replaying it.
    #[arg(long, value_enum)]
    pub clean: Option<CleanPreset>,
    /// Skip and count unreadable lines instead of failing on the first one.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Write one line per job: job_id,submit,start,end,procs (seconds).
    #[arg(long, value_name = "FILE.csv")]
    pub jobs_out: Option<PathBuf>,
    /// Write Batsim's jobs file and schedule file as PREFIX_jobs.csv and
    /// PREFIX_schedule.csv (evalys reads the jobs file; --allocation nodes only).
    #[arg(long, value_name = "PREFIX")]
    pub batsim_out: Option<PathBuf>,
    /// Replay only the first N jobs of the log (by submit time; after --window).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub first: Option<u64>,
    /// Replay only the jobs submitted in [START, END), seconds of the log.
    #[arg(long, num_args = 2, value_names = ["START", "END"], value_parser = seconds)]
    pub window: Option<Vec<u64>>,
    /// Leave the jobs submitted in the first S seconds out of the analysis's metrics.
    #[arg(long, value_name = "S", value_parser = seconds, default_value = "0")]
    pub warmup: u64,
    /// Leave the jobs submitted in the last S seconds out of the analysis's metrics.
    #[arg(long, value_name = "S", value_parser = seconds, default_value = "0")]
    pub cooldown: u64,
    /// The bounded slowdown's bound on the run time in the analysis, seconds.
    #[arg(long, value_name = "S", value_parser = seconds, default_value = "10")]
    pub bsld_bound: u64,
    /// Write the summary as JSON (it is printed in any case), and the utilisation and
    /// queue-length plots beside it (STEM-utilisation.svg, STEM-queue.svg).
    #[arg(long, value_name = "FILE.json")]
    pub summary_out: Option<PathBuf>,
    /// Overwrite an existing --jobs-out, --summary-out (and its plots) or --batsim-out file.
    #[arg(long)]
    pub force: bool,
    /// Print the summary as JSON (it always is: accepted so that every command that prints a
    /// summary takes `--json`).
    #[arg(long)]
    pub json: bool,
    /// Refuse a log with duplicated job numbers or submit times out of order, or a Batsim
    /// workload with repeated ids or submit times out of order (by default each is counted
    /// in a warning and the replay goes on, as docs/reliability.md says).
    #[arg(long)]
    pub strict: bool,
    /// Knapsack: exponent of the size term (tasks / average tasks) [default: 0.9].
    #[arg(long, value_parser = super::finite, allow_hyphen_values = true)]
    pub alpha: Option<f64>,
    /// Knapsack: exponent of the wait term [default: 0.1].
    #[arg(long, value_parser = super::finite, allow_hyphen_values = true)]
    pub beta: Option<f64>,
    /// Knapsack: exponent of the runtime term (runtime / average runtime) [default: 0.1].
    #[arg(long, value_parser = super::finite, allow_hyphen_values = true)]
    pub gamma: Option<f64>,
    /// Power model: watts a busy processor draws at the nominal P-state. With it the replay
    /// reports the energy of the jobs and of the idle processors, and Batsim's
    /// consumed_energy column is filled (docs/traces.md, "Energy").
    #[arg(long, value_name = "W", value_parser = watts)]
    pub busy_watts: Option<f64>,
    /// Power model: watts an idle processor draws [default: 0].
    #[arg(long, value_name = "W", value_parser = watts)]
    pub idle_watts: Option<f64>,
    /// Power model: a P-state beside the nominal one, as its time and power factors (e.g.
    /// 1.25:0.6: 25% longer at 60% of the busy power). Repeat for more (at most 3).
    #[arg(long, value_name = "TIME:POWER")]
    pub pstate: Vec<crate::trace::PStateFactors>,
    /// The jobs' energy budget in joules over the day [0, --horizon) (needs --busy-watts).
    /// Jobs not started by the day's end are reported as unfinished.
    #[arg(long, value_name = "J", value_parser = watts)]
    pub budget_joules: Option<f64>,
    /// Energy filter pacing the budget: none, per-task, per-resource or adaptive (seed 000;
    /// needs --budget-joules).
    #[arg(long, value_parser = super::run::parse_filter, default_value = "none")]
    pub filter: kairos_core::energy::FilterKind,
    /// Leniency factor of the filter, 0 to 1000 (default: the filter's, as in seed 000).
    #[arg(long, value_parser = super::run::parse_leniency, allow_hyphen_values = true)]
    pub leniency: Option<f64>,
    /// The day's end with a budget, seconds of the log [default: the last submit plus the
    /// longest request].
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub horizon: Option<u64>,
}

/// Watts or joules: finite, at least 0.
fn watts(s: &str) -> Result<f64, String> {
    let x = super::finite(s)?;
    if x >= 0.0 {
        Ok(x)
    } else {
        Err(format!("{s:?} is negative"))
    }
}

/// Seconds (finite, at least 0) as microseconds.
fn seconds(s: &str) -> Result<u64, String> {
    let x = super::finite(s)?;
    if (0.0..1e12).contains(&x) {
        Ok(libm::round(x * 1e6) as u64)
    } else {
        Err(format!("{s:?} is not a number of seconds at least 0"))
    }
}

/// What `kairos replay` prints: the summary and its analysis (and the energy, with a power
/// model).
#[derive(serde::Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    summary: &'a SummaryFile,
    analysis: crate::analysis::Analysis,
    #[serde(skip_serializing_if = "Option::is_none")]
    energy: Option<&'a trace::EnergyOutcome>,
    /// What the exec controller served, with --controller.
    #[serde(skip_serializing_if = "Option::is_none")]
    controller: Option<&'a crate::live::exec::ExecStats>,
}

/// The power model, budget and filter the flags ask for (`None` without --busy-watts or
/// --platform); `machine` is the --platform's.
fn energy_options(
    args: &Args,
    machine: Option<std::sync::Arc<trace::TraceMachine>>,
) -> anyhow::Result<Option<trace::TraceEnergy>> {
    use kairos_core::energy::{EnergyFilter, FilterKind};
    let busy = match (&machine, args.busy_watts) {
        (Some(_), _) => Some(0.0),
        (None, b) => b,
    };
    let Some(busy) = busy else {
        if args.idle_watts.is_some()
            || !args.pstate.is_empty()
            || args.budget_joules.is_some()
            || args.filter != FilterKind::None
            || args.horizon.is_some()
        {
            return Err(super::usage(
                "--idle-watts, --pstate, --budget-joules, --filter and --horizon need a power \
                 model: give --busy-watts or --platform",
            ));
        }
        return Ok(None);
    };
    let model = trace::PowerModel::new(busy, args.idle_watts.unwrap_or(0.0), &args.pstate)
        .map_err(super::usage)?;
    if args.leniency.is_some() && args.filter == FilterKind::None {
        return Err(super::usage(
            "--leniency applies to an energy filter: add --filter per-task, per-resource or \
             adaptive",
        ));
    }
    if args.horizon.is_some() && args.budget_joules.is_none() {
        return Err(super::usage(
            "--horizon ends the day of an energy budget: give --budget-joules",
        ));
    }
    let mut filter = EnergyFilter::with_default_leniency(args.filter);
    if let Some(l) = args.leniency {
        filter.leniency = l;
    }
    let e = trace::TraceEnergy {
        model,
        budget_joules: args.budget_joules,
        filter,
        horizon: args.horizon,
        machine,
    };
    e.check().map_err(super::usage)?;
    Ok(Some(e))
}

impl Args {
    /// The policy: `--policy`'s, or [`Policy::Exec`] with `--controller`.
    pub fn policy(&self) -> Policy {
        self.policy.unwrap_or(Policy::Exec)
    }

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
    let mut o = ReplayOptions::new(args.policy());
    if let Some(r) = args.reservations {
        if !args.policy().is_utility_aware() && r == Reservations::PlaceHolder {
            return Err(super::usage(format!(
                "--reservations place-holder: {} only reserves permanently (place-holders are \
                 for max-util, max-value, max-upt, max-upr and max-upe)",
                args.policy()
            )));
        }
        o.reservations = r;
    }
    if args.value_seed.is_some() {
        o.value_seed = args.value_seed;
    }
    if args.policy() != Policy::Knapsack
        && (args.alpha.is_some() || args.beta.is_some() || args.gamma.is_some())
    {
        return Err(super::usage(
            "--alpha, --beta and --gamma apply only to --policy knapsack",
        ));
    }
    o.knapsack = args.knapsack();
    Ok(o)
}

/// Checks every output file before any work (`crate::output::Outputs`): not the log, not
/// each other, not existing files unless `--force`; their folders are made.
fn check_outputs(args: &Args) -> anyhow::Result<()> {
    let mut outputs = crate::output::Outputs::new(args.force, &[args.swf.as_path()]);
    if let Some(p) = &args.jobs_out {
        outputs.file("--jobs-out", p)?;
    }
    if let Some(p) = &args.summary_out {
        outputs.file("--summary-out", p)?;
        for (_, plot) in summary_plots(p) {
            outputs.file("--summary-out", &plot)?;
        }
    }
    if let Some(prefix) = &args.batsim_out {
        crate::batsim::check_outputs(prefix, &mut outputs)?;
        if args.platform.is_some() {
            crate::batsim::check_platform_outputs(prefix, &mut outputs)?;
        }
    }
    Ok(())
}

/// The plots `--summary-out S.json` writes beside the summary: `S-utilisation.svg` and
/// `S-queue.svg`.
fn summary_plots(summary: &std::path::Path) -> [(&'static str, PathBuf); 2] {
    let stem = summary.with_extension("");
    ["utilisation", "queue"].map(|name| {
        (
            name,
            PathBuf::from(format!("{}-{name}.svg", stem.display())),
        )
    })
}

/// The machine of `platform` for the log of `args`, with the job fields its rules read.
fn platform_machine(
    args: &Args,
    platform: crate::platform_file::PlatformFile,
) -> anyhow::Result<trace::TraceMachine> {
    let json = crate::batsim::sniff(&args.swf)? == InputKind::Json;
    let tags =
        crate::platform_file::JobTags::for_log(&platform, &args.swf, json, args.skip_bad_lines)?;
    Ok(trace::TraceMachine::new(platform, tags))
}

/// Runs `kairos replay`: load, replay, write the outputs, print the summary.
pub fn main(args: Args) -> anyhow::Result<()> {
    if args.procs == Some(0) {
        return Err(super::usage("--procs must be at least 1"));
    }
    let replay = replay_options(&args)?;
    if args.controller.is_some()
        && (args.stream
            || args.allocation != Allocation::Nodes
            || args.busy_watts.is_some()
            || args.value_seed.is_some()
            || args.reservations.is_some())
    {
        return Err(super::usage(
            "--controller replays the whole log through the node allocation without value \
             functions or a power model: drop --stream, --allocation pool, --busy-watts, \
             --value-seed and --reservations",
        ));
    }
    if args.leniency.is_some() && args.busy_watts.is_none() && args.platform.is_none() {
        return Err(super::usage(
            "--leniency applies to an energy filter, which needs a power model (--busy-watts \
             or --platform)",
        ));
    }
    let platform = match &args.platform {
        Some(p) => {
            if args.stream || args.allocation != Allocation::Nodes || args.controller.is_some() {
                return Err(super::usage(
                    "--platform replays the whole log through the node allocation: drop \
                     --stream, --allocation pool and --controller",
                ));
            }
            Some(crate::platform_file::load(p)?)
        }
        None => None,
    };
    let machine = match platform {
        Some(p) => Some(std::sync::Arc::new(platform_machine(&args, p)?)),
        None => None,
    };
    let energy = energy_options(&args, machine.clone())?;
    check_outputs(&args)?;
    let options = LoadOptions {
        procs: machine.as_ref().map(|m| m.procs()).or(args.procs),
        clean_strong: args.clean == Some(CleanPreset::Strong),
        skip_bad_lines: args.skip_bad_lines,
        strict: args.strict,
    };
    let workload = match crate::batsim::sniff(&args.swf)? {
        InputKind::Swf => None,
        InputKind::Json => {
            // Reading a large workload takes seconds: its jobs are counted as they are read
            // (the total once the JSON is parsed, `crate::progress::expect`).
            let _reading = crate::progress::show(
                crate::progress::Steps::new("replay", "jobs of the workload read", 0, 0)
                    .quiet_for(crate::progress::QUIET),
            );
            Some(crate::batsim::read_workload(&args.swf)?)
        }
        InputKind::Toml => {
            // A scenario or an experiment file is named as such, with the command that
            // takes it (the "file kinds" rule of `run`, `experiment` and `export`).
            use crate::batsim::FileKind;
            crate::batsim::check_kind(&args.swf, "replay", &[FileKind::Swf, FileKind::Json])?;
            anyhow::bail!(
                "{}: this is a TOML file of no kind kairos knows; kairos replay reads an SWF \
                 log or a Batsim workload (JSON)",
                args.swf.display()
            )
        }
    };
    if workload.is_some() && (args.clean.is_some() || args.skip_bad_lines) {
        return Err(super::usage(format!(
            "{}: --clean and --skip-bad-lines apply to SWF logs, not Batsim workloads",
            args.swf.display()
        )));
    }
    let selects = args.first.is_some() || args.window.is_some();
    if let Some(w) = args.window.as_ref().filter(|w| w[0] >= w[1]) {
        return Err(super::usage(format!(
            "--window {} {}: the start must be before the end",
            w[0] as f64 / 1e6,
            w[1] as f64 / 1e6
        )));
    }
    if args.allocation == Allocation::Pool {
        if args.stream {
            return Err(super::usage(
                "--stream is for --allocation nodes: the pool always streams the log",
            ));
        }
        if selects {
            return Err(super::usage("--first and --window need --allocation nodes"));
        }
        if args.batsim_out.is_some() {
            return Err(super::usage(
                "--batsim-out reads node identities: it needs --allocation nodes",
            ));
        }
        if energy.is_some() {
            return Err(super::usage(
                "a power model (--busy-watts) needs --allocation nodes: the pool counts \
                 processors, not P-states",
            ));
        }
        if workload.is_some() {
            anyhow::bail!(
                "{}: --allocation pool streams SWF logs; a Batsim workload replays with \
                 --allocation nodes",
                args.swf.display()
            );
        }
        return main_pool(&args, &options);
    }
    if args.stream {
        if workload.is_some() {
            anyhow::bail!(
                "{}: --stream reads SWF logs; a Batsim workload replays without it",
                args.swf.display()
            );
        }
        return main_stream(&args, &options, &replay, energy.is_some(), selects);
    }
    let workload_order = workload.as_ref().map(crate::batsim::WorkloadOrder::of);
    if let (Some(w), Some(o)) = (&workload, &workload_order) {
        if args.strict {
            o.strict(&w.file)?;
        }
    }
    let mut loaded = match &workload {
        Some(w) => w.loaded(options.procs)?,
        None => trace::load(&args.swf, &options)?,
    };
    if selects {
        let window = args.window.as_ref().map(|w| (w[0], w[1]));
        let first = args.first.map(|n| n as usize);
        loaded.jobs = crate::analysis::select(std::mem::take(&mut loaded.jobs), first, window)
            .map_err(|e| anyhow::anyhow!("{}: {e}", loaded.file))?;
    }
    if let Some(report) = &loaded.clean {
        crate::diag!("cleaning: {report}");
    }
    if loaded.skipped_bad_lines > 0 {
        crate::diag!("skipped {} bad lines", loaded.skipped_bad_lines);
    }
    match &workload_order {
        Some(o) if !o.is_clean() => crate::diag!("warning: {}: {o}", loaded.file),
        Some(_) => {}
        None if !loaded.order.is_clean() => {
            crate::diag!("warning: {}: {}", loaded.file, loaded.order)
        }
        None => {}
    }
    let mut energy_outcome = None;
    let mut served = None;
    // Progress in jobs completed, for a large workload (a short replay prints none).
    let progress = crate::progress::show(
        crate::progress::Steps::new("replay", "jobs completed", loaded.jobs.len() as u64, 0)
            .quiet_for(crate::progress::QUIET),
    );
    let (result, placed) = if let Some(spec) = &args.controller {
        let (r, p, stats) = replay_exec(&args, &loaded, &replay, spec)?;
        served = Some(stats);
        (r, p)
    } else if let Some(e) = &energy {
        let (r, p, o) = trace::replay_trace_energy(
            &loaded.jobs,
            loaded.procs,
            &replay,
            e,
            args.batsim_out.is_some(),
        )
        .with_context(|| format!("{}: replay under {} failed", loaded.file, args.policy()))?;
        if o.unfinished > 0 {
            crate::diag!(
                "note: {}: {} jobs not started by the day's end at {} s (an energy budget \
                 spent), reported as unfinished",
                loaded.file,
                o.unfinished,
                o.horizon_s.unwrap_or(0.0)
            );
        }
        energy_outcome = Some(o);
        (r, p)
    } else if args.batsim_out.is_some() {
        let (r, p) = trace::replay_trace_placed(&loaded.jobs, loaded.procs, &replay)
            .with_context(|| format!("{}: replay under {} failed", loaded.file, args.policy()))?;
        (r, Some(p))
    } else {
        let r = trace::replay_trace_with(&loaded.jobs, loaded.procs, &replay)
            .with_context(|| format!("{}: replay under {} failed", loaded.file, args.policy()))?;
        (r, None)
    };
    drop(progress);
    if let (Some(prefix), Some(placed)) = (&args.batsim_out, &placed) {
        let name = args
            .swf
            .file_stem()
            .map_or("w0".to_string(), |s| s.to_string_lossy().into_owned());
        let mut rows =
            crate::batsim::replay_rows(&loaded.jobs, &result, placed, workload.as_ref(), &name);
        if let Some(o) = &energy_outcome {
            // The rows that ran are the records, in the same order.
            let several = o.pstate_count() > 1;
            for (((row, j), p), c) in rows
                .iter_mut()
                .filter(|r| r.state.ran())
                .zip(&o.per_job_joules)
                .zip(&o.pstates)
                .zip(&o.clusters)
            {
                row.energy_j = Some(*j);
                match &machine {
                    Some(m) => {
                        row.metadata = format!(
                            "partition={} pstate={p}",
                            m.platform.partitions[*c as usize].name
                        )
                    }
                    None if several => row.metadata = format!("pstate={p}"),
                    None => {}
                }
            }
        }
        let machines = machine.as_ref().map_or(loaded.procs, |m| m.nodes());
        let platform = energy_outcome
            .as_ref()
            .and_then(|o| o.platform.as_ref())
            .map(|e| {
                (
                    e.total_joules,
                    crate::batsim::MachineTimes {
                        computing_s: e.time_computing_s,
                        idle_s: e.time_idle_s,
                        sleeping_s: e.time_sleeping_s,
                    },
                )
            });
        crate::batsim::write_outputs_with(
            prefix,
            &rows,
            machines,
            result.summary.wall_time_s,
            platform,
        )?;
        if let (Some(m), Some(o)) = (&machine, &energy_outcome) {
            crate::batsim::write_platform_outputs(prefix, &rows, m, o)?;
        }
    }
    if let Some(path) = &args.jobs_out {
        let mut f = crate::output::AtomicFile::create(path)?;
        trace::write_jobs_csv(&mut f, &result.jobs)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        f.finish()?;
    }
    let mut summary = SummaryFile::new(&loaded, &result);
    if args.policy() == Policy::Knapsack {
        let k = args.knapsack();
        summary.knapsack = Some(trace::KnapsackSummary {
            alpha: k.alpha,
            beta: k.beta,
            gamma: k.gamma,
        });
    }
    let analysis = crate::analysis::analyse(
        &result.jobs,
        result.procs,
        &crate::analysis::AnalysisOptions {
            bsld_bound: args.bsld_bound,
            warmup: args.warmup,
            cooldown: args.cooldown,
        },
    );
    let json = serde_json::to_string_pretty(&Printed {
        summary: &summary,
        analysis,
        energy: energy_outcome.as_ref(),
        controller: served.as_ref(),
    })?;
    if let Some(path) = &args.summary_out {
        crate::output::write_atomic(path, format!("{json}\n"))?;
        let labels = plot_labels(&args, &loaded.file, &result);
        for (name, p) in summary_plots(path) {
            let svg = match name {
                "utilisation" => {
                    crate::analysis::plots::utilisation_svg(&result.jobs, result.procs, &labels)
                }
                _ => crate::analysis::plots::queue_svg(&result.jobs, &labels),
            };
            crate::output::write_atomic(&p, svg)?;
        }
    }
    writeln!(super::pipe::stdout(), "{json}")?;
    Ok(())
}

/// The replay with every decision from the exec controller `spec` (`--controller`).
fn replay_exec(
    args: &Args,
    loaded: &trace::LoadedTrace,
    replay: &ReplayOptions,
    spec: &crate::live::ControllerSpec,
) -> anyhow::Result<(
    trace::TraceResult,
    Option<trace::Placed>,
    crate::live::exec::ExecStats,
)> {
    let crate::live::ControllerSpec::Exec(command) = spec else {
        return Err(super::usage(
            "kairos replay takes --controller exec:COMMAND (the serial controllers run \
             scenarios: kairos run --controller)",
        ));
    };
    let mut exec = crate::live::exec::Exec::spawn(command, args.controller_timeout)?;
    let placed = args.batsim_out.is_some();
    let run = trace::replay_trace_exec(&loaded.jobs, loaded.procs, replay, placed, &mut exec);
    let (r, p) = match run {
        Ok(x) => x,
        Err(e) => match exec.failure() {
            Some(f) => anyhow::bail!("{}: replay under --controller failed: {f}", loaded.file),
            None => {
                return Err(anyhow::Error::new(e).context(format!(
                    "{}: replay under --controller exec:{command} failed",
                    loaded.file
                )))
            }
        },
    };
    let stats = exec
        .finish()
        .with_context(|| format!("{}: ending the controller's session", loaded.file))?;
    crate::diag!(
        "controller: {} requests served, {} decisions applied, {:.3} s waiting for answers",
        stats.requests,
        stats.decisions,
        stats.wait_s
    );
    Ok((r, p, stats))
}

/// The plots' title (the log's name, not the path it was given by), subtitle and measured
/// window (`--warmup`, `--cooldown`).
fn plot_labels(
    args: &Args,
    file: &str,
    result: &trace::TraceResult,
) -> crate::analysis::plots::Labels {
    let name = std::path::Path::new(file)
        .file_name()
        .map_or(file.to_string(), |n| n.to_string_lossy().into_owned());
    let first = result.jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = result.jobs.iter().map(|j| j.submit).max().unwrap_or(0);
    let cut = args.warmup > 0 || args.cooldown > 0;
    crate::analysis::plots::Labels {
        title: format!("{name} under {}", args.policy()),
        subtitle: format!(
            "{} jobs, {} processors, allocation {}{}",
            result.jobs.len(),
            result.procs,
            match args.allocation {
                Allocation::Nodes => "nodes",
                Allocation::Pool => "pool",
            },
            if cut {
                "; grey: left out of the analysis"
            } else {
                ""
            }
        ),
        measured: cut.then(|| {
            (
                first.saturating_add(args.warmup),
                if args.cooldown > 0 {
                    last.saturating_sub(args.cooldown)
                } else {
                    u64::MAX
                },
            )
        }),
    }
}

/// `kairos replay --allocation nodes --stream`: the log streamed through the node
/// allocation, the summary printed without the analysis.
fn main_stream(
    args: &Args,
    options: &LoadOptions,
    replay: &ReplayOptions,
    energy: bool,
    selects: bool,
) -> anyhow::Result<()> {
    if selects {
        return Err(super::usage(
            "--first and --window sort the whole log: they cannot go with --stream",
        ));
    }
    if args.batsim_out.is_some() || energy {
        return Err(super::usage(
            "--batsim-out and a power model (--busy-watts) read the whole replay: they \
             cannot go with --stream",
        ));
    }
    if args.policy().is_utility_aware() || args.value_seed.is_some() {
        return Err(super::usage(
            "value functions are drawn against the whole log: --stream replays fcfs, easy, \
             conservative and knapsack without --value-seed",
        ));
    }
    if args.warmup != 0 || args.cooldown != 0 || args.bsld_bound != 10_000_000 {
        return Err(super::usage(
            "--warmup, --cooldown and --bsld-bound shape the analysis, which --stream does \
             not print",
        ));
    }
    let mut file = match &args.jobs_out {
        Some(path) => Some(crate::output::AtomicFile::create(path)?),
        None => None,
    };
    let progress = read_progress(&args.swf);
    let result = trace::replay_file_nodes(
        &args.swf,
        options,
        replay,
        file.as_mut().map(|f| f as &mut dyn std::io::Write),
    )
    .with_context(|| format!("replay under {} failed", args.policy()))?;
    drop(progress);
    if let Some(f) = file {
        f.finish()?;
    }
    print_streamed(args, &result)
}

/// The progress of a streamed replay of the log at `path`, in KiB of the file read (of a
/// gzip log, its compressed bytes): its job count is known only at its end
/// ([`crate::progress::Reading`]). None for a log of no known size (a pipe).
fn read_progress(path: &std::path::Path) -> Option<crate::progress::Shown> {
    let kib = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| crate::progress::kib_of(m.len()))
        .filter(|k| *k > 0)?;
    Some(crate::progress::show(
        crate::progress::Steps::new("replay", "KiB of the log read", kib, 0)
            .quiet_for(crate::progress::QUIET),
    ))
}

/// The diagnostics and the summary of a streamed replay.
fn print_streamed(args: &Args, result: &trace::StreamedReplay) -> anyhow::Result<()> {
    if let Some(report) = &result.clean {
        crate::diag!("cleaning: {report}");
    }
    if result.skipped_bad_lines > 0 {
        crate::diag!("skipped {} bad lines", result.skipped_bad_lines);
    }
    if !result.order.is_clean() {
        crate::diag!("warning: {}: {}", result.file, result.order);
    }
    let json = serde_json::to_string_pretty(&result.summary_file())?;
    if let Some(path) = &args.summary_out {
        crate::output::write_atomic(path, format!("{json}\n"))?;
    }
    writeln!(super::pipe::stdout(), "{json}")?;
    Ok(())
}

/// `kairos replay --allocation pool`: the log streamed through the processor pool.
fn main_pool(args: &Args, options: &LoadOptions) -> anyhow::Result<()> {
    if !Policy::ALL.contains(&args.policy()) {
        anyhow::bail!(
            "--allocation pool schedules fcfs, easy and conservative, not {} (use \
             --allocation nodes)",
            args.policy()
        );
    }
    if args.reservations.is_some() || args.value_seed.is_some() {
        return Err(super::usage(
            "--reservations and --value-seed need --allocation nodes",
        ));
    }
    let mut file = match &args.jobs_out {
        Some(path) => Some(crate::output::AtomicFile::create(path)?),
        None => None,
    };
    let progress = read_progress(&args.swf);
    let result = trace::replay_file_pool(
        &args.swf,
        options,
        args.policy(),
        file.as_mut().map(|f| f as &mut dyn std::io::Write),
    )
    .with_context(|| format!("replay under {} failed", args.policy()))?;
    drop(progress);
    if let Some(f) = file {
        f.finish()?;
    }
    print_streamed(args, &result)
}

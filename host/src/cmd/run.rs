//! `kairos run`: simulates one trial of a scenario under one heuristic and prints a summary
//! (text, or one JSON object with `--json`), and writes the `--trace-out` CSV. The run itself
//! is [`crate::run`]; this file turns the flags into its [`RunOptions`].

use crate::run::{self, RunOptions};
use crate::scenario::Scenario;
use kairos_core::energy::FilterKind;
use kairos_core::{Heuristic, Reservations};
use std::io::Write;
use std::path::PathBuf;

/// Flags of `kairos run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The scenario file (TOML), e.g. scenarios/essc-5k.toml.
    pub scenario: PathBuf,
    /// random, conservative, easy, multi-queue, max-util, max-upt, max-upr, max-upe, fcfs,
    /// knapsack or max-value.
    #[arg(long, value_parser = parse_heuristic, required_unless_present = "controller")]
    pub heuristic: Option<Heuristic>,
    /// permanent or place-holder (default: place-holder for the utility-aware heuristics;
    /// the others always reserve permanently).
    #[arg(long, value_parser = super::parse_reservations)]
    pub reservations: Option<Reservations>,
    /// Energy filter: none, per-task, per-resource or adaptive.
    #[arg(long, value_parser = parse_filter, default_value = "none")]
    pub filter: FilterKind,
    /// Leniency factor of the filter, 0 to 1000 as in a scenario file (default: the
    /// scenario's for that filter).
    #[arg(long, value_parser = parse_leniency, allow_hyphen_values = true)]
    pub leniency: Option<f64>,
    /// Which trial of the scenario to generate and run.
    #[arg(long, default_value_t = 0)]
    pub trial: u32,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Write the cumulative utility and energy every 20 simulated minutes to this CSV.
    #[arg(long, value_name = "FILE.csv")]
    pub trace_out: Option<PathBuf>,
    /// Overwrite an existing --trace-out or --batsim-out file.
    #[arg(long)]
    pub force: bool,
    /// Write Batsim's jobs file and schedule file of the run as PREFIX_jobs.csv and
    /// PREFIX_schedule.csv: node ids global across clusters; cluster, P-state, utility and
    /// fate in the metadata column (in-process runs only).
    #[arg(long, value_name = "PREFIX")]
    pub batsim_out: Option<PathBuf>,
    /// The day's energy budget in joules, overriding the scenario's (above 0, at most 1e16).
    #[arg(long, value_parser = parse_budget)]
    pub budget_joules: Option<f64>,
    /// Place-hold every task as seed 000's Algorithm 1 does, rather than end the pass once
    /// nothing more can start (same decisions and digest; only slower).
    #[arg(long)]
    pub full_plan: bool,
    /// Take every decision from a live controller over a serial link: inline (the core's
    /// serve loop in a thread), qemu (the firmware's live image under QEMU) or
    /// serial:/dev/ttyACM0 (a real board at 115200 baud); or exec:COMMAND, a policy in
    /// another process over JSON lines (docs/protocol.md), instead of --heuristic. Default:
    /// in process.
    #[arg(long, value_name = "WHERE")]
    pub controller: Option<crate::live::ControllerSpec>,
    /// Seconds to wait for each answer of an exec controller before giving up.
    #[arg(long, value_name = "S", default_value = "10", value_parser = parse_timeout)]
    pub controller_timeout: std::time::Duration,
    /// The live firmware image for --controller qemu (default: what firmware/live.sh builds).
    #[arg(long, value_name = "ELF")]
    pub image: Option<PathBuf>,
}

fn parse_heuristic(s: &str) -> Result<Heuristic, String> {
    s.parse().map_err(|_| {
        let names: Vec<&str> = Heuristic::ALL
            .iter()
            .chain(Heuristic::EXTRA.iter())
            .map(|h| h.name())
            .collect();
        format!(
            "unknown heuristic {s:?} (expected one of {})",
            names.join(", ")
        )
    })
}

/// A timeout in seconds (above 0, at most a day).
pub(crate) fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    let x = super::finite(s)?;
    if x > 0.0 && x <= 86_400.0 {
        Ok(std::time::Duration::from_secs_f64(x))
    } else {
        Err(format!("{s:?} must be above 0 and at most 86400 seconds"))
    }
}

/// A leniency in the range a scenario file allows (`simulation.leniency.*`).
pub(crate) fn parse_leniency(s: &str) -> Result<f64, String> {
    let x = super::finite(s)?;
    if (0.0..=1000.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s:?} must be between 0 and 1000"))
    }
}

/// An energy budget in joules, as a scenario file allows one (above 0, at most 1e16).
fn parse_budget(s: &str) -> Result<f64, String> {
    let x = super::finite(s)?;
    if x > 0.0 && x <= 1e16 {
        Ok(x)
    } else {
        Err(format!("{s:?} must be above 0 and at most 1e16 joules"))
    }
}

pub(crate) fn parse_filter(s: &str) -> Result<FilterKind, String> {
    s.parse().map_err(|e| format!("{s:?}: {e}"))
}

impl Args {
    /// The run the flags ask for (everything but the scenario).
    pub fn options(&self) -> RunOptions {
        RunOptions {
            // An exec controller makes the decisions: the heuristic is never run.
            heuristic: self.heuristic.unwrap_or(Heuristic::Fcfs),
            reservations: self.reservations,
            filter: self.filter,
            leniency: self.leniency,
            trial: self.trial,
            budget_joules: self.budget_joules,
            full_plan: self.full_plan,
        }
    }
}

/// Runs `kairos run`.
pub fn main(args: Args) -> anyhow::Result<()> {
    let mut outputs = crate::output::Outputs::new(args.force, &[&args.scenario]);
    if let Some(path) = &args.trace_out {
        outputs.file("--trace-out", path)?;
    }
    if let Some(prefix) = &args.batsim_out {
        crate::batsim::check_outputs(prefix, &mut outputs)?;
    }
    crate::batsim::check_kind(&args.scenario, "run", &[crate::batsim::FileKind::Scenario])?;
    let scenario = Scenario::load(&args.scenario)?;
    let exec = matches!(args.controller, Some(crate::live::ControllerSpec::Exec(_)));
    if exec == args.heuristic.is_some() {
        return Err(super::usage(if exec {
            "--controller exec:COMMAND makes the decisions: drop --heuristic"
        } else {
            "--heuristic is needed (but with --controller exec:COMMAND)"
        }));
    }
    if exec && (args.reservations.is_some() || args.filter != FilterKind::None || args.full_plan) {
        return Err(super::usage(
            "--reservations, --filter and --full-plan shape a built-in heuristic, not an exec \
             controller",
        ));
    }
    if args.batsim_out.is_some() && args.controller.is_some() {
        return Err(super::usage(
            "--batsim-out reads the nodes off the in-process controller: drop --controller",
        ));
    }
    if args.leniency.is_some() && args.filter == FilterKind::None {
        return Err(super::usage(
            "--leniency applies to an energy filter: add --filter per-task, per-resource or \
             adaptive",
        ));
    }
    if args.reservations == Some(Reservations::PlaceHolder)
        && !args.options().heuristic.is_utility_aware()
    {
        return Err(super::usage(format!(
            "--reservations place-holder: {} only reserves permanently (place-holders are for \
             the utility-aware heuristics)",
            args.options().heuristic
        )));
    }
    // Progress in simulated hours, for a long horizon (a short run prints none).
    let progress = crate::progress::show(
        crate::progress::Steps::new(
            "run",
            "simulated hours",
            u64::from(scenario.simulation.horizon_hours),
            0,
        )
        .quiet_for(crate::progress::QUIET),
    );
    let summary = match &args.controller {
        None if args.batsim_out.is_some() => {
            let (summary, jobs) = crate::batsim::run_trial_jobs(&scenario, &args.options())?;
            if let Some(prefix) = &args.batsim_out {
                crate::batsim::write_outputs(
                    prefix,
                    &jobs.rows,
                    jobs.machines,
                    summary.wall_time_s,
                )?;
            }
            summary
        }
        None => run::run_trial(&scenario, &args.options())?,
        Some(spec) => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .to_path_buf();
            let image = args
                .image
                .clone()
                .unwrap_or_else(|| crate::live::default_image(&root));
            let (summary, link) = crate::live::run_trial(
                &scenario,
                &args.options(),
                spec,
                &image,
                args.controller_timeout,
            )?;
            crate::diag!(
                "link: {} requests, {} retries, {} bytes sent, {} received",
                link.requests,
                link.retries,
                link.bytes_sent,
                link.bytes_received
            );
            summary
        }
    };
    drop(progress);
    if let Some(path) = &args.trace_out {
        run::write_trace(path, &summary.trace)?;
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", serde_json::to_string(&summary)?)?;
    } else {
        write!(stdout, "{}", run::text(&summary))?;
    }
    Ok(())
}

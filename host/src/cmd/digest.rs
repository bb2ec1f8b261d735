//! `kairos digest <scenario> [--events] [--json]`: replays an encoded firmware scenario on the
//! host and prints what the firmware must log for it: its totals and its digest, in the
//! firmware's line shapes (`totals completed .. dropped .. unfinished .. utility ..
//! energy_mj ..`, then `digest <16 hex>`), with every mapping event's line first under
//! `--events`.
//!
//! The scenario is a name (`ph`, `upe`, `overcap`: generated in memory, encoded, and run from
//! those bytes, exactly what `kairos firmware-scenario` writes) or the path of an encoded file
//! (`firmware/scenarios/ph.bin`). The heuristic settings are the scenario's own (its header),
//! so the host and the firmware run the same configuration. The replay is
//! [`crate::firmware_scenarios::run`]; this file prints what it gives.

use std::io::Write;

use crate::firmware_scenarios;
use anyhow::Context;

/// Flags of `kairos digest`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A firmware scenario name (ph, upe, overcap) or the path of an encoded scenario file
    /// (firmware/scenarios/*.bin). Not a scenario TOML: `kairos run` takes those.
    #[arg(value_name = "ph|upe|overcap|FILE.bin")]
    pub scenario: String,
    /// Print every mapping event's line before the totals, as the firmware logs them.
    #[arg(long)]
    pub events: bool,
    /// Print one JSON object instead of the log lines.
    #[arg(long)]
    pub json: bool,
}

/// Runs `kairos digest`.
pub fn main(args: Args) -> anyhow::Result<()> {
    if crate::batsim::toml_table(std::path::Path::new(&args.scenario)).is_some() {
        anyhow::bail!(
            "{}: this is a TOML file; kairos digest takes a firmware scenario's name (ph, upe, \
             overcap) or an encoded scenario file (firmware/scenarios/*.bin, written by `kairos \
             firmware-scenario`). A TOML scenario runs with `kairos run`",
            args.scenario
        );
    }
    let bytes = firmware_scenarios::load(&args.scenario)?;
    let run = firmware_scenarios::run(&bytes)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("replaying scenario {}", args.scenario))?;
    let (h, r) = (&run.header, &run.report);
    if args.json {
        let mut v = serde_json::json!({
            "scenario": args.scenario,
            "tasks": h.tasks,
            "heuristic": h.config.heuristic.name(),
            "reservations": h.config.reservations.name(),
            "filter": h.config.filter.kind.name(),
            "budget_mj": h.config.budget.0,
            "arrived": r.arrived,
            "completed": r.completed,
            "dropped": r.dropped,
            "unfinished": r.unfinished,
            "utility": r.utility.0,
            "max_utility": r.max_utility.0,
            "energy_mj": r.energy.0,
            "mapping_events": r.mapping_events,
            "commitments": r.commitments,
            "digest": format!("{:016x}", r.digest),
        });
        if args.events {
            v["events"] = serde_json::to_value(&run.events)?;
        }
        writeln!(
            std::io::stdout().lock(),
            "{}",
            serde_json::to_string_pretty(&v)?
        )?;
        return Ok(());
    }
    crate::diag!(
        "scenario {}: {} tasks, {} with {} reservations, {} filter, budget {} mJ",
        args.scenario,
        h.tasks,
        h.config.heuristic,
        h.config.reservations.name(),
        h.config.filter.kind,
        h.config.budget.0
    );
    let mut out = std::io::stdout().lock();
    if args.events {
        for e in &run.events {
            writeln!(out, "{e}")?;
        }
    }
    writeln!(out, "{}", firmware_scenarios::totals_line(r))?;
    writeln!(out, "{}", firmware_scenarios::digest_line(r))?;
    Ok(())
}

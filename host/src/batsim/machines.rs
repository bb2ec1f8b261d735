//! The files Batsim writes about its machines, for a replay on a platform file
//! (`--platform` with `--batsim-out PREFIX`): `PREFIX_machine_states.csv`, the count of
//! machines in each state at every instant it changes (Batsim's `--trace-machine-state`),
//! and `PREFIX_pstate_changes.csv`, each change of the machines' P-states (Batsim's
//! `--trace-pstate-changes`), written where the platform has more than one computation
//! P-state.
//!
//! kairos puts no machine to sleep, so `nb_sleeping`, `nb_switching_on` and
//! `nb_switching_off` are 0. A job's machines switch to its P-state when it starts and back
//! to their partition's initial P-state when it ends; a change to the P-state a machine is
//! already in is not written. P-states are numbered as the platform file numbers them (for
//! SimGrid, the index in the host's `speed` list).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::jobs::{interval_set, BatsimJob};
use crate::trace::{secs, EnergyOutcome, TraceMachine};

/// `PREFIX_machine_states.csv` and `PREFIX_pstate_changes.csv`.
pub fn platform_paths(prefix: &Path) -> (PathBuf, PathBuf) {
    let p = prefix.as_os_str().to_string_lossy();
    (
        PathBuf::from(format!("{p}_machine_states.csv")),
        PathBuf::from(format!("{p}_pstate_changes.csv")),
    )
}

/// Adds the two files of [`platform_paths`] to `outputs` before any work.
pub fn check_platform_outputs(
    prefix: &Path,
    outputs: &mut crate::output::Outputs,
) -> anyhow::Result<()> {
    let (states, pstates) = platform_paths(prefix);
    outputs.file("--batsim-out", &states)?;
    outputs.file("--batsim-out", &pstates)?;
    Ok(())
}

/// Seconds as Batsim's `%g` would mostly print them: no trailing zeros.
fn time(us: u64) -> String {
    let s = secs(us);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The machine-state file of `rows` on `machines` machines: a row at time 0 and at every
/// instant the counts change, after every start and end of that instant.
pub fn machine_states(rows: &[BatsimJob], machines: u32) -> String {
    let mut delta: BTreeMap<u64, i64> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.state.ran()) {
        if let (Some(s), Some(f)) = (r.start, r.finish) {
            if f > s {
                *delta.entry(s).or_default() += r.nodes.len() as i64;
                *delta.entry(f).or_default() -= r.nodes.len() as i64;
            }
        }
    }
    let mut out =
        String::from("time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n");
    if delta.first_key_value().is_none_or(|(&t, _)| t > 0) {
        out.push_str(&format!("0,0,0,0,{machines},0\n"));
    }
    let mut computing = 0i64;
    for (t, d) in delta {
        if d == 0 {
            continue;
        }
        computing += d;
        out.push_str(&format!(
            "{},0,0,0,{},{computing}\n",
            time(t),
            machines as i64 - computing
        ));
    }
    out
}

/// The P-state changes of the jobs that ran (`rows` that ran, in order, with `outcome`'s
/// partitions and P-states): the initial P-states at time 0, then each job's machines to
/// its P-state at its start and back at its end, where that changes them.
pub fn pstate_changes(
    rows: &[BatsimJob],
    machine: &TraceMachine,
    outcome: &EnergyOutcome,
) -> String {
    let parts = &machine.platform.partitions;
    let mut out = String::from("time,machine_id,new_pstate\n");
    let mut base = 0u32;
    let mut initial: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for p in parts {
        initial
            .entry(p.initial_pstate)
            .or_default()
            .extend(base..base + p.nodes);
        base += p.nodes;
    }
    for (ps, ids) in &initial {
        out.push_str(&format!("0,{},{ps}\n", interval_set(ids)));
    }
    // (time, order: ends before starts, pstate) -> machines.
    let mut changes: BTreeMap<(u64, u8, u32), Vec<u32>> = BTreeMap::new();
    for ((r, &c), &p) in rows
        .iter()
        .filter(|r| r.state.ran())
        .zip(&outcome.clusters)
        .zip(&outcome.pstates)
    {
        let part = &parts[c as usize];
        let id = part.pstate_ids[p as usize];
        if id == part.initial_pstate {
            continue;
        }
        if let (Some(s), Some(f)) = (r.start, r.finish) {
            changes.entry((s, 1, id)).or_default().extend(&r.nodes);
            changes
                .entry((f, 0, part.initial_pstate))
                .or_default()
                .extend(&r.nodes);
        }
    }
    for ((t, _, ps), ids) in changes {
        out.push_str(&format!("{},{},{ps}\n", time(t), interval_set(&ids)));
    }
    out
}

/// Writes `PREFIX_machine_states.csv` and, where the platform has more than one computation
/// P-state, `PREFIX_pstate_changes.csv`.
pub fn write_platform_outputs(
    prefix: &Path,
    rows: &[BatsimJob],
    machine: &TraceMachine,
    outcome: &EnergyOutcome,
) -> anyhow::Result<()> {
    let (states, pstates) = platform_paths(prefix);
    crate::output::write_atomic(&states, machine_states(rows, machine.nodes()))?;
    if machine.platform.pstate_count() > 1 {
        crate::output::write_atomic(&pstates, pstate_changes(rows, machine, outcome))?;
    }
    Ok(())
}

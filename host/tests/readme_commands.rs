//! The README's commands, run from the checkout as a new user would: every `kairos ...` line
//! of the README (and the main job's `cargo run` line) is listed here with a short version
//! of it (fewer trials or jobs, a checked-in file for a placeholder, outputs in a temporary
//! folder), and each short version must succeed. A README line with no entry here fails the
//! test, so the list and the README cannot drift apart.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The README's command lines: lines of its `sh` blocks that start with `kairos ` or `cargo
/// run`, continuation lines joined, comments cut.
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        let l = line.trim();
        if pending.is_empty() && !(l.starts_with("kairos ") || l.starts_with("cargo run ")) {
            continue;
        }
        let code = l.split(" #").next().unwrap().trim();
        if let Some(head) = code.strip_suffix('\\') {
            pending.push_str(head.trim());
            pending.push(' ');
            continue;
        }
        pending.push_str(code);
        out.push(std::mem::take(&mut pending));
    }
    out
}

/// What a README line is run as: the short version's arguments (`{T}` is the temporary
/// folder), or why it is not run here and which test runs it.
enum Short {
    Run(&'static str),
    Elsewhere(&'static str, &'static str),
}

fn table() -> Vec<(&'static str, Short)> {
    use Short::*;
    vec![
        (
            "cargo run --release -p kairos-host -- experiment experiments/fig9-5k.toml",
            Run("experiment experiments/fig9-5k.toml --trials 1 --out {T}/fig9"),
        ),
        (
            "kairos run <scenario.toml> --heuristic max-upe [--reservations place-holder] [--filter per-resource] [--json]",
            Run("run host/tests/data/essc_small.toml --heuristic max-upe --reservations place-holder --filter per-resource --json"),
        ),
        (
            "kairos run <scenario.toml> --heuristic max-upe --controller qemu",
            Elsewhere(
                "needs the live firmware image (firmware/live.sh, minutes to build) and QEMU",
                "host/tests/live_qemu.rs",
            ),
        ),
        (
            "kairos run <scenario.toml> --controller \"exec:python3 clients/python/examples/utility_energy.py\"",
            Elsewhere(
                "a command with a quoted argument; the exec controller's runs are its own tests",
                "host/tests/exec_controller.rs",
            ),
        ),
        (
            "kairos replay <trace.swf> --clean strong --controller \"exec:python3 clients/python/examples/fcfs.py\"",
            Elsewhere(
                "a command with a quoted argument; the exec controller's runs are its own tests",
                "host/tests/exec_controller.rs",
            ),
        ),
        (
            "kairos experiment <experiment.toml> [--trials N] [--out DIR]",
            Run("experiment host/tests/data/experiment_small.toml --trials 3 --out {T}/exp"),
        ),
        (
            "kairos replay <trace.swf> --policy easy [--clean strong] [--jobs-out jobs.csv]",
            Run("replay host/tests/data/swf/easy_backfills.swf --policy easy --clean strong --jobs-out {T}/jobs.csv"),
        ),
        (
            "kairos replay <trace.swf> --policy knapsack --alpha 0.9 --beta 0.1 --gamma 0.1",
            Run("replay host/tests/data/swf/knapsack_order.swf --policy knapsack --alpha 0.9 --beta 0.1 --gamma 0.1"),
        ),
        (
            "kairos sweep-knapsack <trace.swf|--synthetic> [--jobs 50] [--step 0.1] [--batch] [--mode malleable|rigid] [--out DIR]",
            Run("sweep-knapsack --synthetic --jobs 10 --step 1 --mode rigid --out {T}/sweep"),
        ),
        (
            "kairos replay <trace.swf> --policy max-upr [--reservations place-holder] [--value-seed 1]",
            Run("replay host/tests/data/swf/value_place_holder.swf --policy max-upr --reservations place-holder --value-seed 1"),
        ),
        (
            "kairos replay <trace.swf[.gz]> --policy easy --allocation pool",
            Run("replay host/tests/data/swf/easy_backfills.swf --policy easy --allocation pool"),
        ),
        (
            "kairos replay <trace.swf[.gz]> --policy easy --allocation nodes --stream",
            Run("replay host/tests/data/swf/easy_backfills.swf --policy easy --allocation nodes --stream"),
        ),
        (
            "kairos generate-swf --model lublin99 --procs 163840 --jobs 1000000 --load 0.8 -o log.swf",
            Run("generate-swf --model lublin99 --procs 163840 --jobs 2000 --load 0.8 -o {T}/log.swf"),
        ),
        (
            "kairos experiment experiments/curie-value.toml",
            Elsewhere(
                "reads the Curie log from ../shared/traces, outside the checkout",
                "host/tests/value_experiment.rs",
            ),
        ),
        (
            "kairos experiment experiments/seed003-rates.toml",
            Run("experiment experiments/seed003-rates.toml --trials 1 --out {T}/s3"),
        ),
        (
            "kairos claims [--json] [--check]",
            Run("claims --json --check"),
        ),
        (
            "kairos digest ph|upe|overcap|FILE.bin",
            Run("digest ph"),
        ),
        (
            "kairos experiment <experiment.toml> --shard K/N [--out DIR]",
            Run("experiment host/tests/data/experiment_small.toml --shard 1/2 --out {T}/shards"),
        ),
        (
            "kairos merge <dir>... [--out DIR]",
            // After the shard above and its sibling below.
            Run("experiment host/tests/data/experiment_small.toml --shard 2/2 --out {T}/shards && merge {T}/shards --out {T}/merged"),
        ),
        (
            "kairos slurm <experiment.toml> --shards N [--partition P] [--time T] [--submit]",
            Run("slurm host/tests/data/experiment_small.toml --shards 2 --dir {T}/slurm --out {T}/slurm-out"),
        ),
        (
            "kairos slurm-control <policy.toml> [--ledger FILE] [--controller exec:CMD] [--hand-back]",
            Elsewhere(
                "needs a running Slurm cluster of several nodes (scripts/setup-slurm.sh)",
                "scripts/test-slurm-control.sh",
            ),
        ),
        (
            "kairos firmware-scenario",
            Run("firmware-scenario --check"),
        ),
        (
            "kairos replay <trace.swf|workload.json> --policy easy --batsim-out out/kth",
            Run("replay host/tests/data/swf/easy_backfills.swf --policy easy --batsim-out {T}/out/kth"),
        ),
        (
            "kairos replay <trace.swf> --policy easy --window 0 864000 --warmup 86400 --bsld-bound 10 --summary-out out/s.json",
            Run("replay host/tests/data/swf/conservative_vs_easy.swf --policy easy --window 0 864000 --warmup 1 --bsld-bound 10 --summary-out {T}/out/s.json"),
        ),
        (
            "kairos run <scenario.toml> --heuristic max-upe --batsim-out out/essc",
            Run("run host/tests/data/essc_small.toml --heuristic max-upe --batsim-out {T}/out/essc"),
        ),
        (
            "kairos export <scenario.toml|trace.swf|workload.json> --format swf|batsim -o FILE",
            Run("export host/tests/data/essc_small.toml --format swf -o {T}/essc.swf"),
        ),
        (
            "kairos replay <trace.swf> --policy max-upe --busy-watts 200 --idle-watts 60 --pstate 1.25:0.6 --budget-joules 5e11 --filter per-resource --batsim-out out/kth",
            Run("replay host/tests/data/swf/easy_backfills.swf --policy max-upe --busy-watts 200 --idle-watts 60 --pstate 1.25:0.6 --budget-joules 5e11 --filter per-resource --batsim-out {T}/out/kth-energy"),
        ),
        (
            "kairos replay <trace.swf|workload.json> --platform scenarios/platforms/kth-two-speeds.toml --policy easy --batsim-out out/kth",
            Run("replay host/tests/data/swf/easy_backfills.swf --platform scenarios/platforms/kth-two-speeds.toml --policy easy --batsim-out {T}/out/kth-platform"),
        ),
        (
            "kairos run scenarios/essc-board.toml --heuristic max-upe",
            Run("run scenarios/essc-board.toml --heuristic max-upe --json"),
        ),
    ]
}

#[test]
fn every_readme_command_runs_in_a_short_version() {
    let readme = readme_commands();
    let table = table();
    for line in &readme {
        assert!(
            table.iter().any(|(l, _)| l == line),
            "README command without a short version in host/tests/readme_commands.rs: {line:?}"
        );
    }
    for (line, _) in &table {
        assert!(
            readme.iter().any(|l| l == line),
            "no longer in the README: {line:?} (README has {readme:#?})"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().display().to_string();
    for (line, short) in &table {
        match short {
            Short::Elsewhere(why, test) => {
                assert!(root().join(test).is_file(), "{line}: {test} is missing");
                eprintln!("not run here ({why}; see {test}): {line}");
            }
            Short::Run(cmds) => {
                for cmd in cmds.split(" && ") {
                    let cmd = cmd.replace("{T}", &t);
                    let o = Command::new(env!("CARGO_BIN_EXE_kairos"))
                        .args(cmd.split_whitespace())
                        .current_dir(root())
                        .output()
                        .unwrap();
                    assert!(
                        o.status.success(),
                        "README {line:?} as `kairos {cmd}`: {}",
                        String::from_utf8_lossy(&o.stderr)
                    );
                }
            }
        }
    }
}

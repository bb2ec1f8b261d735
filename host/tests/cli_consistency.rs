//! One way of doing things across `kairos`'s commands (issue 19), through the binary:
//! `merge` refuses to overwrite without `--force`; values checked after parsing exit 2;
//! diagnostics never panic on a closed or broken stderr; `--json` on every command that
//! prints a summary; outputs default to `out/<name>/`; a Batsim workload's repeated ids and
//! unsorted submits are counted as an SWF log's are; energy on traces (a power model, a
//! budget, P-states) in the summary and in Batsim's jobs file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{kairos, swf};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(args: &[&str]) -> Output {
    let out = kairos(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn code(args: &[&str], want: i32) -> String {
    let out = kairos(args);
    assert_eq!(
        out.status.code(),
        Some(want),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// `kairos args` run in `dir`.
fn in_dir(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// The rows of a CSV file as header-keyed maps.
fn csv(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let keys: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            // The metadata column (last) is quoted; the others hold no commas.
            let cells: Vec<String> = l
                .split(',')
                .map(|c| c.trim_matches('"').to_string())
                .collect();
            keys.iter().cloned().zip(cells).collect()
        })
        .collect()
}

#[test]
fn merge_refuses_an_existing_output_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let file = data("experiment_small.toml");
    let shards = tmp.path().join("shards");
    for k in 1..=2 {
        ok(&[
            "experiment",
            s(&file),
            "--shard",
            &format!("{k}/2"),
            "--out",
            s(&shards),
            "--threads",
            "1",
        ]);
    }
    let out = tmp.path().join("merged");
    ok(&["merge", s(&shards), "--out", s(&out)]);
    let before = std::fs::read(out.join("summary.json")).unwrap();
    let e = code(&["merge", s(&shards), "--out", s(&out)], 1);
    assert!(e.contains("pass --force"), "{e}");
    assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), before);
    // With --force it writes again, the same reports, leaving no temporary file.
    let v = json(&ok(&[
        "merge",
        s(&shards),
        "--out",
        s(&out),
        "--force",
        "--json",
    ]));
    assert_eq!(v["reports"], s(&out));
    assert!(v["summary"].is_object(), "{v}");
    assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), before);
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

#[test]
fn values_checked_after_parsing_exit_2() {
    let exp = data("experiment_small.toml");
    let log = swf("conservative_vs_easy.swf");
    for (args, says) in [
        (vec!["slurm", s(&exp), "--shards", "0"], "--shards 0"),
        (
            vec!["slurm", s(&exp), "--shards", "2", "--cpus-per-task", "0"],
            "--cpus-per-task 0",
        ),
        (
            vec!["slurm", s(&exp), "--shards", "2", "--only", "3"],
            "--only 3",
        ),
        (
            vec!["slurm", s(&exp), "--shards", "2", "--time", "1h"],
            "--time",
        ),
        (
            vec!["replay", s(&log), "--policy", "easy", "--idle-watts", "5"],
            "--busy-watts",
        ),
        (
            vec![
                "replay",
                s(&log),
                "--policy",
                "easy",
                "--busy-watts",
                "100",
                "--filter",
                "per-task",
            ],
            "--budget-joules",
        ),
        (
            vec!["replay", s(&log), "--policy", "easy", "--leniency", "2"],
            "--leniency",
        ),
        (
            vec![
                "replay",
                s(&log),
                "--policy",
                "easy",
                "--busy-watts",
                "100",
                "--horizon",
                "50",
            ],
            "--horizon",
        ),
        (
            vec![
                "replay",
                s(&log),
                "--policy",
                "easy",
                "--busy-watts",
                "100",
                "--pstate",
                "2:0.5",
                "--pstate",
                "3:0.4",
                "--pstate",
                "4:0.3",
                "--pstate",
                "5:0.2",
            ],
            "P-states",
        ),
        (
            vec![
                "replay",
                s(&log),
                "--policy",
                "easy",
                "--busy-watts",
                "100",
                "--allocation",
                "pool",
            ],
            "--allocation nodes",
        ),
    ] {
        let e = code(&args, 2);
        assert!(e.contains(says), "{args:?}: {e}");
    }
    // Values clap itself refuses.
    let scenario = data("essc_small.toml");
    for args in [
        vec![
            "run",
            s(&scenario),
            "--heuristic",
            "easy",
            "--budget-joules",
            "nan",
        ],
        vec![
            "run",
            s(&scenario),
            "--heuristic",
            "easy",
            "--budget-joules",
            "0",
        ],
        vec!["replay", s(&log), "--policy", "easy", "--busy-watts", "-1"],
        vec!["replay", s(&log), "--policy", "easy", "--busy-watts", "nan"],
        vec![
            "replay",
            s(&log),
            "--policy",
            "easy",
            "--busy-watts",
            "1",
            "--pstate",
            "1:0",
        ],
        vec![
            "replay",
            s(&log),
            "--policy",
            "easy",
            "--busy-watts",
            "1",
            "--budget-joules",
            "1",
            "--filter",
            "per-task",
            "--leniency",
            "nan",
        ],
    ] {
        code(&args, 2);
    }
}

/// A command whose stderr is a pipe nobody reads any more (`2>` into a closed pipe).
fn with_broken_stderr(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(writer)
        .output()
        .unwrap()
}

#[test]
fn diagnostics_never_panic_on_a_broken_or_closed_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let log = swf("conservative_vs_easy.swf");
    // `export` reports what it wrote on stderr; the write fails, the command does not.
    let out_file = tmp.path().join("w.json");
    let out = with_broken_stderr(&["export", s(&log), "--format", "batsim", "-o", s(&out_file)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out_file.is_file());
    // A failing command still exits 1 (not 101, a panic) when its error cannot be printed.
    let out = with_broken_stderr(&["replay", "/no/such/log.swf", "--policy", "easy"]);
    assert_eq!(out.status.code(), Some(1));
    // A usage error exits 2.
    let out = with_broken_stderr(&["slurm", s(&data("experiment_small.toml")), "--shards", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // Closed outright (`2>&-`).
    let again = tmp.path().join("again.json");
    let status = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" export \"$1\" --format batsim -o \"$2\" 2>&-")
        .arg(env!("CARGO_BIN_EXE_kairos"))
        .arg(s(&log))
        .arg(s(&again))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&out_file).unwrap()
    );
}

#[test]
fn json_summaries_and_out_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let log = swf("conservative_vs_easy.swf");
    // export: out/<stem>/<stem>.json by default; --json says what it wrote.
    let v = json(&in_dir(
        dir,
        &["export", s(&log), "--format", "batsim", "--json"],
    ));
    assert_eq!(
        v["output"],
        "out/conservative_vs_easy/conservative_vs_easy.json"
    );
    assert_eq!(v["jobs"], 4);
    assert!(dir
        .join("out/conservative_vs_easy/conservative_vs_easy.json")
        .is_file());
    // ... and refuses to overwrite it without --force.
    let again = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["export", s(&log), "--format", "batsim"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    // generate-swf: out/lublin99/...
    let v = json(&in_dir(
        dir,
        &[
            "generate-swf",
            "--model",
            "lublin99",
            "--procs",
            "64",
            "--jobs",
            "20",
            "--json",
        ],
    ));
    assert_eq!(v["output"], "out/lublin99/lublin99-64p-20j-s1.swf");
    assert_eq!(v["jobs"], 20);
    assert!(dir.join("out/lublin99/lublin99-64p-20j-s1.swf").is_file());
    // sweep-knapsack: out/<stem>-knapsack/ (a 27-point grid).
    let v = json(&in_dir(
        dir,
        &[
            "sweep-knapsack",
            s(&log),
            "--jobs",
            "4",
            "--step",
            "2",
            "--threads",
            "1",
            "--json",
        ],
    ));
    assert!(v.is_object(), "{v}");
    assert!(dir
        .join("out/conservative_vs_easy-knapsack/summary.json")
        .is_file());
    // experiment: out/<name>/, --json prints summary.json.
    let exp = data("experiment_small.toml");
    let out = in_dir(dir, &["experiment", s(&exp), "--threads", "1", "--json"]);
    let v = json(&out);
    assert_eq!(v["reports"], "out/experiment-small");
    let written: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("out/experiment-small/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(v["summary"], written);
    // replay takes --json (its summary is JSON in any case).
    let a = json(&ok(&["replay", s(&log), "--policy", "easy", "--json"]));
    assert_eq!(a["jobs"], 4);
}

#[test]
fn batsim_workload_repeated_ids_and_unsorted_submits_are_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path().join("w.json");
    std::fs::write(
        &w,
        r#"{"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 10}},
            "jobs": [
              {"id": "a", "subtime": 5, "walltime": 20, "res": 1, "profile": "d"},
              {"id": "b", "subtime": 9, "walltime": 20, "res": 2, "profile": "d"},
              {"id": "a", "subtime": 2, "walltime": 20, "res": 1, "profile": "d"},
              {"id": "c", "subtime": 9, "walltime": 20, "res": 4, "profile": "d"}
            ]}"#,
    )
    .unwrap();
    let out = ok(&["replay", s(&w), "--policy", "fcfs"]);
    let e = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(
        e.contains("1 jobs repeat an earlier job's id (first: jobs[2], id a, as jobs[0])"),
        "{e}"
    );
    assert!(
        e.contains("1 jobs are submitted before an earlier entry's job (first: jobs[2], id a"),
        "{e}"
    );
    assert_eq!(json(&out)["jobs"], 4);
    let e = code(&["replay", s(&w), "--policy", "fcfs", "--strict"], 1);
    assert!(
        e.contains("jobs[2] (id a): `id`: repeats the id of jobs[0]"),
        "{e}"
    );
}

/// conservative_vs_easy.swf: 4 jobs on 4 processors, (procs, run) = (3, 10), (3, 10),
/// (4, 10), (1, 30): 130 processor-seconds of work.
#[test]
fn replay_energy_lands_in_the_summary_and_the_jobs_file() {
    let tmp = tempfile::tempdir().unwrap();
    let log = swf("conservative_vs_easy.swf");
    let prefix = tmp.path().join("e");
    let out = ok(&[
        "replay",
        s(&log),
        "--policy",
        "easy",
        "--busy-watts",
        "100",
        "--idle-watts",
        "10",
        "--batsim-out",
        s(&prefix),
    ]);
    let v = json(&out);
    let e = &v["energy"];
    assert_eq!(e["jobs_joules"], 13000.0, "{e}");
    let makespan = v["makespan_s"].as_f64().unwrap();
    let idle = 10.0 * (4.0 * makespan - 130.0);
    assert!(
        (e["idle_joules"].as_f64().unwrap() - idle).abs() < 1e-6,
        "{e}"
    );
    assert_eq!(e["unfinished"], 0);
    let rows = csv(&PathBuf::from(format!("{}_jobs.csv", s(&prefix))));
    for r in &rows {
        let procs: f64 = r["requested_number_of_resources"].parse().unwrap();
        let exec: f64 = r["execution_time"].parse().unwrap();
        let j: f64 = r["consumed_energy"].parse().unwrap();
        assert!((j - 100.0 * procs * exec).abs() < 1e-6, "{r:?}");
    }
    // Without a model, the same replay prints no energy and the column is -1.
    let plain = tmp.path().join("p");
    let v = json(&ok(&[
        "replay",
        s(&log),
        "--policy",
        "easy",
        "--batsim-out",
        s(&plain),
    ]));
    assert!(v.get("energy").is_none());
    let rows = csv(&PathBuf::from(format!("{}_jobs.csv", s(&plain))));
    assert!(rows.iter().all(|r| r["consumed_energy"] == "-1"));
}

#[test]
fn replay_energy_budget_leaves_jobs_unfinished_and_pstates_stretch_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let log = swf("conservative_vs_easy.swf");
    // 5 kJ: job 1 (3 x 10 s x 100 W = 3 kJ) runs; no other job fits the 2 kJ left.
    let prefix = tmp.path().join("b");
    let v = json(&ok(&[
        "replay",
        s(&log),
        "--policy",
        "fcfs",
        "--busy-watts",
        "100",
        "--budget-joules",
        "5000",
        "--batsim-out",
        s(&prefix),
    ]));
    assert_eq!(v["jobs"], 1, "{v}");
    assert_eq!(v["energy"]["unfinished"], 3, "{v}");
    assert_eq!(v["energy"]["jobs_joules"], 3000.0);
    assert_eq!(v["energy"]["horizon_s"], 33.0);
    let rows = csv(&PathBuf::from(format!("{}_jobs.csv", s(&prefix))));
    let unfinished: Vec<_> = rows
        .iter()
        .filter(|r| r["final_state"] == "SUBMITTED")
        .collect();
    assert_eq!(unfinished.len(), 3);
    assert!(unfinished
        .iter()
        .all(|r| r["metadata"] == "unfinished" && r["consumed_energy"] == "-1"));
    // A P-state 10% slower at half the power: Max UPE takes it (0.55 of the energy of a
    // run for little value), and its runs take 1.1 x their run time.
    let prefix = tmp.path().join("p");
    let v = json(&ok(&[
        "replay",
        s(&log),
        "--policy",
        "max-upe",
        "--busy-watts",
        "100",
        "--pstate",
        "1.1:0.5",
        "--batsim-out",
        s(&prefix),
    ]));
    let per: Vec<u64> = v["energy"]["jobs_per_pstate"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(per.iter().sum::<u64>(), v["jobs"].as_u64().unwrap());
    let rows = csv(&PathBuf::from(format!("{}_jobs.csv", s(&prefix))));
    let runtime = |id: &str| match id {
        "4" => 30.0,
        _ => 10.0,
    };
    let mut slow = 0;
    for r in rows
        .iter()
        .filter(|r| r["final_state"].starts_with("COMPLETED"))
    {
        let exec: f64 = r["execution_time"].parse().unwrap();
        let procs: f64 = r["requested_number_of_resources"].parse().unwrap();
        let j: f64 = r["consumed_energy"].parse().unwrap();
        let (factor, power) = match r["metadata"].as_str() {
            "pstate=0" => (1.0, 100.0),
            "pstate=1" => {
                slow += 1;
                (1.1, 50.0)
            }
            m => panic!("metadata {m:?}"),
        };
        assert!(
            (exec - runtime(&r["job_id"]) * factor).abs() < 1e-6,
            "{r:?}"
        );
        assert!((j - power * procs * exec).abs() < 1e-6, "{r:?}");
    }
    assert!(per[1] > 0, "{per:?}");
    assert_eq!(slow as u64, per[1]);
}

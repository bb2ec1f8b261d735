//! Batsim's files through the real binary and the library: `kairos replay --batsim-out` and
//! `kairos run --batsim-out` (the jobs file agrees with the replay's own outputs, the nodes
//! are a valid placement, an ESSC run's metadata adds up to its summary and its digest does
//! not move), Batsim workloads in (told apart by content), and `kairos export`'s round trip
//! (ESSC -> SWF -> `kairos replay`; SWF -> Batsim -> SWF).

mod common;
use common::{kairos, swf};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use kairos_host::swf::ReplayJob;
use kairos_host::trace::{self, Policy, ReplayOptions};
use proptest::prelude::*;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn ok(args: &[&str]) -> String {
    let out = kairos(args);
    assert!(
        out.status.success(),
        "kairos {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fails(args: &[&str]) -> String {
    let out = kairos(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "kairos {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// The rows of a jobs file, as maps from column to value (a quoted last field kept whole).
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    assert_eq!(header.len(), 17);
    lines
        .map(|l| {
            let (head, meta) = l.split_at(l.find(",\"").expect("a quoted metadata field"));
            let mut f: Vec<String> = head.split(',').map(str::to_string).collect();
            f.push(meta[1..].trim_matches('"').to_string());
            assert_eq!(f.len(), 17, "{l}");
            header.iter().cloned().zip(f).collect()
        })
        .collect()
}

/// Node ids of an interval set.
fn ids(set: &str) -> Vec<u32> {
    let mut v = Vec::new();
    for part in set.split_whitespace() {
        match part.split_once('-') {
            Some((a, b)) => v.extend(a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap()),
            None => v.push(part.parse().unwrap()),
        }
    }
    v
}

fn micros(s: &str) -> u64 {
    let (a, b) = s.split_once('.').unwrap();
    a.parse::<u64>().unwrap() * 1_000_000 + b.parse::<u64>().unwrap()
}

/// Every row that ran holds as many distinct nodes as it asked for, below `machines`, and
/// no two rows hold a node at the same time.
fn check_placement(rows: &[HashMap<String, String>], machines: u32) {
    let mut by_node: HashMap<u32, Vec<(u64, u64, String)>> = HashMap::new();
    for r in rows
        .iter()
        .filter(|r| r["final_state"].starts_with("COMPLETED"))
    {
        let n = ids(&r["allocated_resources"]);
        let mut d = n.clone();
        d.dedup();
        assert_eq!(d.len(), n.len());
        assert_eq!(
            n.len(),
            r["requested_number_of_resources"].parse::<usize>().unwrap(),
            "{r:?}"
        );
        let (s, e) = (micros(&r["starting_time"]), micros(&r["finish_time"]));
        for id in n {
            assert!(id < machines, "{r:?}");
            by_node
                .entry(id)
                .or_default()
                .push((s, e, r["job_id"].clone()));
        }
    }
    for (node, mut spans) in by_node {
        spans.sort();
        for w in spans.windows(2) {
            assert!(
                w[0].1 <= w[1].0 || w[0].0 == w[0].1,
                "node {node}: jobs {} and {} overlap",
                w[0].2,
                w[1].2
            );
        }
    }
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn replay_batsim_jobs_file_agrees_with_jobs_out_which_keeps_its_bytes() {
    let dir = tempdir();
    let log = swf("conservative_vs_easy.swf");
    let plain = dir.path().join("plain.csv");
    let both = dir.path().join("both.csv");
    let prefix = dir.path().join("b");
    let base = ["replay", log.to_str().unwrap(), "--policy", "easy"];
    ok(&[&base[..], &["--jobs-out", plain.to_str().unwrap()]].concat());
    ok(&[
        &base[..],
        &[
            "--jobs-out",
            both.to_str().unwrap(),
            "--batsim-out",
            prefix.to_str().unwrap(),
        ],
    ]
    .concat());
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&both).unwrap()
    );
    let jobs_out = std::fs::read_to_string(&plain).unwrap();
    let batsim = rows(&dir.path().join("b_jobs.csv"));
    let ours: Vec<&str> = jobs_out.lines().skip(1).collect();
    assert_eq!(ours.len(), batsim.len());
    for (line, r) in ours.iter().zip(&batsim) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[0], r["job_id"]);
        assert_eq!(f[1], r["submission_time"]);
        assert_eq!(f[2], r["starting_time"]);
        assert_eq!(f[3], r["finish_time"]);
        assert_eq!(f[4], r["requested_number_of_resources"]);
        assert_eq!(r["workload_name"], "conservative_vs_easy");
        assert_eq!(r["success"], "1");
    }
    check_placement(&batsim, 4);
    let schedule = std::fs::read_to_string(dir.path().join("b_schedule.csv")).unwrap();
    let lines: Vec<&str> = schedule.lines().collect();
    assert_eq!(lines.len(), 2);
    let kv: HashMap<&str, &str> = lines[0].split(',').zip(lines[1].split(',')).collect();
    assert_eq!(kv["nb_jobs"], batsim.len().to_string());
    assert_eq!(kv["nb_computing_machines"], "4");
    assert_eq!(kv["consumed_joules"], "-1.000000");
}

#[test]
fn replay_dropped_jobs_are_rejected_rows() {
    let dir = tempdir();
    let log = swf("value_place_holder.swf");
    let prefix = dir.path().join("v");
    let summary = ok(&[
        "replay",
        log.to_str().unwrap(),
        "--policy",
        "max-value",
        "--batsim-out",
        prefix.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let dropped = v["value"]["dropped"].as_u64().unwrap() as usize;
    assert!(dropped > 0, "the log should make max-value drop jobs");
    let r = rows(&dir.path().join("v_jobs.csv"));
    let rejected: Vec<_> = r
        .iter()
        .filter(|r| r["final_state"] == "REJECTED")
        .collect();
    assert_eq!(rejected.len(), dropped);
    for x in rejected {
        assert_eq!(x["allocated_resources"], "");
        assert_eq!(x["starting_time"], "-1");
        assert_eq!(x["metadata"], "dropped");
    }
    assert_eq!(r.len(), v["jobs"].as_u64().unwrap() as usize + dropped);
}

#[test]
fn replay_refuses_batsim_out_with_the_pool() {
    let log = swf("easy_backfills.swf");
    let e = usage(&[
        "replay",
        log.to_str().unwrap(),
        "--policy",
        "easy",
        "--allocation",
        "pool",
        "--batsim-out",
        "/tmp/never",
    ]);
    assert!(e.contains("--allocation nodes"), "{e}");
}

#[test]
fn replay_names_a_toml_file_as_one() {
    let scenario = root().join("scenarios/essc-5k.toml");
    let e = fails(&["replay", scenario.to_str().unwrap(), "--policy", "easy"]);
    assert!(e.contains("this is a scenario"), "{e}");
    assert!(e.contains("kairos run"), "{e}");
}

/// The summary without what differs between two inputs of the same jobs.
fn comparable(summary: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(summary).unwrap();
    for k in ["file", "wall_time_s", "jobs_per_second"] {
        v.as_object_mut().unwrap().remove(k);
    }
    v
}

#[test]
fn a_batsim_workload_replays_as_its_swf_log_does() {
    let dir = tempdir();
    let log = swf("conservative_vs_easy.swf");
    // A Batsim workload with a .txt name: the content, not the extension, says JSON.
    let json = dir.path().join("workload.txt");
    ok(&[
        "export",
        log.to_str().unwrap(),
        "--format",
        "batsim",
        "-o",
        json.to_str().unwrap(),
    ]);
    for policy in ["fcfs", "easy", "conservative"] {
        let a = ok(&["replay", log.to_str().unwrap(), "--policy", policy]);
        let b = ok(&["replay", json.to_str().unwrap(), "--policy", policy]);
        assert_eq!(comparable(&a), comparable(&b), "{policy}");
    }
    let e = usage(&[
        "replay",
        json.to_str().unwrap(),
        "--policy",
        "easy",
        "--clean",
        "strong",
    ]);
    assert!(e.contains("apply to SWF logs"), "{e}");
}

#[test]
fn export_round_trip_essc_to_swf_to_replay() {
    let dir = tempdir();
    let scenario = root().join("host/tests/data/essc_small.toml");
    let log = dir.path().join("essc.swf");
    ok(&[
        "export",
        scenario.to_str().unwrap(),
        "--format",
        "swf",
        "-o",
        log.to_str().unwrap(),
    ]);
    let s = kairos_host::scenario::Scenario::load(&scenario).unwrap();
    let projected = kairos_host::export::trial_jobs(&s, 0).unwrap();
    let trial = kairos_host::generate::generate(&s, 0).unwrap();
    assert_eq!(projected.jobs.len(), trial.tasks.len());
    let jobs_out = dir.path().join("jobs.csv");
    let summary = ok(&[
        "replay",
        log.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--jobs-out",
        jobs_out.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["jobs"].as_u64().unwrap() as usize, trial.tasks.len());
    assert_eq!(v["procs"].as_u64().unwrap(), trial.platform.total_nodes());
    let text = std::fs::read_to_string(&jobs_out).unwrap();
    let mut replayed: Vec<(u64, u64, u64, u32)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let (s, e) = (micros(f[2]), micros(f[3]));
            (
                f[0].parse().unwrap(),
                micros(f[1]),
                e - s,
                f[4].parse().unwrap(),
            )
        })
        .collect();
    replayed.sort();
    for (k, j) in projected.jobs.iter().enumerate() {
        let r = replayed[k];
        assert_eq!(r.0, k as u64 + 1);
        // Whole seconds: submit rounded down, run time up.
        assert_eq!(r.1, j.subtime / 1_000_000 * 1_000_000, "job {}", k + 1);
        assert_eq!(
            r.2,
            j.delay.div_ceil(1_000_000) * 1_000_000,
            "job {}",
            k + 1
        );
        assert_eq!(r.3, j.res);
        // The task on its fastest cluster at P-state 0.
        let t = &trial.tasks[k];
        let table = t.table(&trial.platform).unwrap();
        let best = table
            .placements
            .iter()
            .flatten()
            .map(|p| p.etc[0])
            .min()
            .unwrap();
        assert_eq!(j.delay, best.0);
        assert_eq!(j.subtime, t.arrival.0);
    }
}

#[test]
fn export_round_trip_swf_to_batsim_to_swf_keeps_the_jobs() {
    let dir = tempdir();
    let log = swf("conservative_vs_easy.swf");
    let json = dir.path().join("w.json");
    let back = dir.path().join("back.swf");
    let again = dir.path().join("again.json");
    ok(&[
        "export",
        log.to_str().unwrap(),
        "--format",
        "batsim",
        "-o",
        json.to_str().unwrap(),
    ]);
    ok(&[
        "export",
        json.to_str().unwrap(),
        "--format",
        "swf",
        "-o",
        back.to_str().unwrap(),
    ]);
    ok(&[
        "export",
        back.to_str().unwrap(),
        "--format",
        "batsim",
        "-o",
        again.to_str().unwrap(),
    ]);
    let a: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&std::fs::read(&again).unwrap()).unwrap();
    assert_eq!(a["jobs"], b["jobs"]);
    assert_eq!(a["profiles"], b["profiles"]);
    assert_eq!(a["nb_res"], b["nb_res"]);
}

#[test]
fn essc_run_jobs_file_adds_up_to_its_summary_and_keeps_its_digest() {
    let dir = tempdir();
    let scenario = root().join("host/tests/data/essc_small.toml");
    let prefix = dir.path().join("e");
    let sc = scenario.to_str().unwrap();
    let plain = ok(&["run", sc, "--heuristic", "max-upe", "--json"]);
    let with = ok(&[
        "run",
        sc,
        "--heuristic",
        "max-upe",
        "--json",
        "--batsim-out",
        prefix.to_str().unwrap(),
    ]);
    let a: serde_json::Value = serde_json::from_str(&plain).unwrap();
    let b: serde_json::Value = serde_json::from_str(&with).unwrap();
    assert_eq!(a["digest"], b["digest"]);
    assert_eq!(a["utility"], b["utility"]);
    let r = rows(&dir.path().join("e_jobs.csv"));
    // The summary counts the tasks that arrived in the measured day: the rows not marked
    // `warmup` (issue 47: the warm-up's arrivals were counted).
    let day: Vec<_> = r
        .iter()
        .filter(|x| !x["metadata"].split(' ').any(|m| m == "warmup"))
        .collect();
    assert!(
        day.len() < r.len(),
        "the scenario has a warm-up with arrivals"
    );
    assert_eq!(day.len() as u64, b["arrived"].as_u64().unwrap());
    let count = |s: &str| {
        day.iter()
            .filter(|x| x["metadata"].split(' ').any(|m| m == s))
            .count() as u64
    };
    assert_eq!(count("state=completed"), b["completed"].as_u64().unwrap());
    assert_eq!(count("state=dropped"), b["dropped"].as_u64().unwrap());
    assert_eq!(count("state=unfinished"), b["unfinished"].as_u64().unwrap());
    // Batsim's states say what happened by the horizon: completed is success, dropped is
    // rejected, a task running at the horizon is killed there (it was written as a success).
    let horizon = r
        .iter()
        .filter_map(|x| x["finish_time"].parse::<f64>().ok())
        .fold(0.0, f64::max);
    for x in &r {
        let fate = x["metadata"]
            .split(' ')
            .find_map(|m| m.strip_prefix("state="))
            .unwrap();
        let state = x["final_state"].as_str();
        match fate {
            "completed" => assert_eq!(state, "COMPLETED_SUCCESSFULLY", "{x:?}"),
            "dropped" => assert_eq!(state, "REJECTED", "{x:?}"),
            _ => assert!(state == "SUBMITTED" || state == "COMPLETED_KILLED", "{x:?}"),
        }
        if state == "COMPLETED_KILLED" {
            assert_eq!(x["finish_time"].parse::<f64>().unwrap(), horizon, "{x:?}");
        }
    }
    assert!(
        r.iter().any(|x| x["final_state"] == "COMPLETED_KILLED"),
        "a task runs past the horizon"
    );
    // Utility: the prorated utility of each completed task adds up to the run's (to the
    // printed six decimals).
    let utility: f64 = r
        .iter()
        .filter_map(|x| {
            x["metadata"]
                .split(' ')
                .find_map(|kv| kv.strip_prefix("utility="))
                .map(|u| u.parse::<f64>().unwrap())
        })
        .sum();
    let want = b["utility"].as_f64().unwrap();
    assert!(
        (utility - want).abs() < 1e-6 * r.len() as f64,
        "{utility} vs {want}"
    );
    let energy: f64 = r
        .iter()
        .map(|x| x["consumed_energy"].parse::<f64>().unwrap())
        .sum();
    let want = b["energy_joules"].as_f64().unwrap();
    assert!(
        (energy - want).abs() < 1e-3 * r.len() as f64,
        "{energy} vs {want}"
    );
    // Global node ids: the platform's nodes, every cluster.
    let s = kairos_host::scenario::Scenario::load(&scenario).unwrap();
    let machines: u32 = s.platform.clusters.iter().map(|c| c.nodes).sum();
    check_placement(&r, machines);
    // Each task's nodes lie in its cluster's range of global ids.
    let sizes: Vec<u32> = s.platform.clusters.iter().map(|c| c.nodes).collect();
    let mut clusters_used = std::collections::BTreeSet::new();
    for x in r
        .iter()
        .filter(|x| x["final_state"].starts_with("COMPLETED"))
    {
        let c: usize = x["metadata"]
            .split(' ')
            .find_map(|kv| kv.strip_prefix("cluster="))
            .unwrap()
            .parse()
            .unwrap();
        let lo: u32 = sizes[..c].iter().sum();
        let hi = lo + sizes[c];
        let n = ids(&x["allocated_resources"]);
        assert!(n.iter().all(|&i| lo <= i && i < hi), "{x:?}");
        clusters_used.insert(c);
    }
    assert!(clusters_used.len() > 1, "{clusters_used:?}");
}

/// Jobs of a small random log: submit, run time, request, processors, on 8 processors.
fn jobs_strategy() -> impl Strategy<Value = Vec<ReplayJob>> {
    prop::collection::vec((0u64..200, 1u64..60, 0u64..40, 1u32..=8), 1..40).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (submit, run, extra, procs))| ReplayJob {
                id: i as u64 + 1,
                submit: submit * 1_000_000,
                runtime: run * 1_000_000,
                // Some requests below the run time: those jobs end at their request.
                request: (run + extra).saturating_sub(10).max(1) * 1_000_000,
                procs,
                line: i + 1,
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The nodes read off the timeline are a valid placement of the replay's schedule, and
    /// reading them changes nothing of the schedule.
    #[test]
    fn placed_replays_are_valid_placements(jobs in jobs_strategy(), p in 0usize..4) {
        let policy = [Policy::Fcfs, Policy::Easy, Policy::Conservative, Policy::MaxUtil][p];
        let opts = ReplayOptions::new(policy);
        let plain = trace::replay_trace_with(&jobs, 8, &opts).unwrap();
        let (placed, nodes) = trace::replay_trace_placed(&jobs, 8, &opts).unwrap();
        prop_assert_eq!(&plain.jobs, &placed.jobs);
        prop_assert_eq!(nodes.nodes.len(), placed.jobs.len());
        let dropped = plain.value.as_ref().map_or(0, |v| v.dropped);
        prop_assert_eq!(nodes.dropped.len(), dropped);
        for (a, na) in placed.jobs.iter().zip(&nodes.nodes) {
            prop_assert_eq!(na.len(), a.procs as usize);
            prop_assert!(na.windows(2).all(|w| w[0] < w[1]) && na.iter().all(|&n| n < 8));
            for (b, nb) in placed.jobs.iter().zip(&nodes.nodes) {
                let overlap = a.start < b.end && b.start < a.end && a.id != b.id;
                if overlap && a.end > a.start && b.end > b.start {
                    prop_assert!(na.iter().all(|n| !nb.contains(n)),
                        "jobs {} and {} share a node", a.id, b.id);
                }
            }
        }
    }
}

/// Runs `kairos` expecting the exit code of a bad command line; returns stderr.
fn usage(args: &[&str]) -> String {
    let out = kairos(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "kairos {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn command_lines_that_cannot_run_exit_with_2() {
    let log = swf("easy_backfills.swf");
    let l = log.to_str().unwrap();
    let sc = root().join("host/tests/data/essc_small.toml");
    let s = sc.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["replay", l, "--policy", "easy", "--window", "5", "3"],
            "the start must be before the end",
        ),
        (
            vec!["replay", l, "--policy", "easy", "--first", "0"],
            "--first",
        ),
        (
            vec!["replay", l, "--policy", "easy", "--alpha", "1"],
            "apply only to --policy knapsack",
        ),
        (
            vec![
                "replay",
                l,
                "--policy",
                "easy",
                "--reservations",
                "place-holder",
            ],
            "only reserves permanently",
        ),
        (
            vec![
                "replay",
                l,
                "--policy",
                "easy",
                "--allocation",
                "pool",
                "--first",
                "2",
            ],
            "need --allocation nodes",
        ),
        (
            vec![
                "run",
                s,
                "--heuristic",
                "max-upe",
                "--filter",
                "per-task",
                "--leniency",
                "nan",
            ],
            "--leniency",
        ),
        (
            vec![
                "run",
                s,
                "--heuristic",
                "max-upe",
                "--filter",
                "per-task",
                "--leniency",
                "-1",
            ],
            "must be between 0 and 1000",
        ),
        (
            vec!["run", s, "--heuristic", "max-upe", "--leniency", "2"],
            "--leniency applies to an energy filter",
        ),
        (
            vec![
                "run",
                s,
                "--heuristic",
                "easy",
                "--reservations",
                "place-holder",
            ],
            "easy only reserves permanently",
        ),
    ] {
        let e = usage(&args);
        assert!(e.contains(needle), "{args:?}: {e}");
    }
}

#[test]
fn replay_selects_jobs_and_writes_the_analysis_and_plots() {
    let dir = tempdir();
    let log = swf("conservative_vs_easy.swf");
    let l = log.to_str().unwrap();
    let summary = dir.path().join("s.json");
    let all = ok(&["replay", l, "--policy", "easy"]);
    let all: serde_json::Value = serde_json::from_str(&all).unwrap();
    let n = all["jobs"].as_u64().unwrap();
    assert!(n >= 3);
    let first = ok(&[
        "replay",
        l,
        "--policy",
        "easy",
        "--first",
        "2",
        "--bsld-bound",
        "1",
        "--summary-out",
        summary.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["jobs"], 2);
    let a = &v["analysis"];
    assert_eq!(a["jobs"], 2);
    assert_eq!(a["bsld_bound_s"], 1.0);
    for k in ["mean", "p50", "p90", "p99", "max"] {
        assert!(
            a["wait_s"][k].is_number() && a["bsld"][k].is_number(),
            "{k}"
        );
    }
    assert!(a["by_size"].as_array().is_some_and(|c| !c.is_empty()));
    assert!(a["by_length"].as_array().is_some_and(|c| !c.is_empty()));
    assert!(a["utilization"]
        .as_f64()
        .is_some_and(|u| (0.0..=1.0).contains(&u)));
    // The summary file is what was printed; the plots sit beside it.
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(file, v);
    for p in ["s-utilisation.svg", "s-queue.svg"] {
        let svg = std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("<polyline"), "{p}");
    }
    // A window of submit times in seconds of the log.
    let w = ok(&["replay", l, "--policy", "easy", "--window", "0", "1"]);
    let w: serde_json::Value = serde_json::from_str(&w).unwrap();
    assert!(w["jobs"].as_u64().unwrap() < n);
}

#[test]
fn formats_doc_lists_every_column() {
    let doc = std::fs::read_to_string(root().join("docs/formats.md")).unwrap();
    let named = |k: &str| doc.contains(&format!("`{k}`"));
    for c in kairos_host::batsim::JOBS_COLUMNS
        .iter()
        .chain(kairos_host::batsim::SCHEDULE_COLUMNS.iter())
    {
        assert!(named(c), "docs/formats.md does not name the column {c}");
    }
    // Every key of the replay's analysis, from a real one.
    let a =
        kairos_host::analysis::analyse(&[], 1, &kairos_host::analysis::AnalysisOptions::default());
    let v = serde_json::to_value(&a).unwrap();
    for k in v.as_object().unwrap().keys() {
        assert!(
            named(k),
            "docs/formats.md does not name the analysis key {k}"
        );
    }
    for k in ["nb_res", "subtime", "walltime", "res", "profile", "delay"] {
        assert!(
            doc.contains(k),
            "docs/formats.md does not name the workload key {k}"
        );
    }
}

#[test]
fn a_file_of_the_wrong_kind_says_what_was_expected() {
    let dir = tempdir();
    // An experiment file given to `run` points at `kairos experiment`.
    let exp = root().join("experiments/fig9-5k.toml");
    let e = fails(&["run", exp.to_str().unwrap(), "--heuristic", "easy"]);
    assert!(e.contains("this is an experiment file"), "{e}");
    assert!(e.contains("kairos experiment"), "{e}");
    // A scenario given to `digest` says what digest takes.
    let sc = root().join("scenarios/essc-5k.toml");
    let e = fails(&["digest", sc.to_str().unwrap()]);
    assert!(
        e.contains("firmware scenario's name (ph, upe, overcap)"),
        "{e}"
    );
    // A horizon shorter than the default warm-up names the horizon the file sets.
    let text = std::fs::read_to_string(root().join("host/tests/data/essc_small.toml")).unwrap();
    let short: String = text
        .lines()
        .filter(|l| !l.starts_with("warmup_hours"))
        .map(|l| {
            if l.starts_with("horizon_hours") {
                "horizon_hours = 2\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let p = dir.path().join("short.toml");
    std::fs::write(&p, short).unwrap();
    let e = fails(&["run", p.to_str().unwrap(), "--heuristic", "easy"]);
    assert!(
        e.contains("simulation.horizon_hours = 2: must be greater than simulation.warmup_hours, 4 by default"),
        "{e}"
    );
    assert!(!e.contains("warmup_hours = 4"), "{e}");
    // `run` lists every heuristic that works.
    let e = usage(&["run", sc.to_str().unwrap(), "--heuristic", "nope"]);
    for h in ["fcfs", "max-value", "knapsack", "max-upe"] {
        assert!(e.contains(h), "{h}: {e}");
    }
    // No Rust paths or rustdoc links in replay's help.
    let help = ok(&["replay", "--help"]);
    assert!(!help.contains("[`") && !help.contains("::"), "{help}");
}

#[test]
fn experiment_worker_threads_are_threads() {
    let file = root().join("host/tests/data/experiment_small.toml");
    let f = file.to_str().unwrap();
    for flag in ["--threads", "--jobs"] {
        let out = kairos(&["experiment", f, flag, "0"]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(e.contains("--threads 0"), "{flag}: {e}");
    }
    for command in ["experiment", "pareto"] {
        let help = ok(&[command, "--help"]);
        assert!(
            help.contains("--threads <N>") && help.contains("[alias: --jobs]"),
            "{command}: {help}"
        );
    }
}

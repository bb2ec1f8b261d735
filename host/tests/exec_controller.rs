//! `--controller exec:CMD` through the real binary and python3: the Python client's
//! examples give the built-in policies' schedules, and every fault of a controller (a
//! decision on busy nodes, for a task that has not arrived, on a partition it cannot use,
//! of the wrong shape, over the energy budget; a controller that dies, hangs, writes
//! garbage, lies about an id or a request number) ends the run with a clear error, never a
//! panic. CI has python3: these tests run there, none is skipped.

mod common;
use common::{kairos, swf};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `exec:python3 PATH ARGS`, PATH under the repository.
fn exec(path: &str, args: &str) -> String {
    format!("exec:python3 {} {args}", root().join(path).display())
}

fn faulty(mode: &str) -> String {
    exec("host/tests/data/exec/faulty.py", mode)
}

/// Runs kairos with `args`, expecting exit 1 with no summary and no panic; returns stderr.
fn fails(args: &[&str]) -> String {
    let out = kairos(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty(), "{args:?}: printed a summary");
    stderr
}

/// `kairos replay` of the hand-made easy_backfills.swf (4 processors: job 1 on 3 from 0 s,
/// job 2 on 4 from 1 s) under `controller`, expected to fail. Each answer may take 60 s: on
/// a loaded machine (a load average of 20 on 2 cores) python3 alone can take seconds to
/// start, and a short timeout would fail these tests with a message about the timeout
/// instead of the fault each is about.
fn replay_fails(controller: &str) -> String {
    replay_fails_within(controller, 60)
}

/// As [`replay_fails`], each answer given `timeout_s` seconds.
fn replay_fails_within(controller: &str, timeout_s: u64) -> String {
    let log = swf("easy_backfills.swf");
    let timeout = timeout_s.to_string();
    fails(&[
        "replay",
        log.to_str().unwrap(),
        "--controller",
        controller,
        "--controller-timeout",
        &timeout,
    ])
}

#[test]
fn exec_refuses_a_start_on_busy_nodes_and_tells_the_controller() {
    let e = replay_fails(&faulty("busy"));
    assert!(
        e.contains(
            "made decision 0 of the mapping event at 1000000 us (start task 1 on cluster 0, 4 \
             nodes, P-state 0, from 1000000 us to 11000000 us), refused: nodes busy: 1 free \
             over the run"
        ),
        "{e}"
    );
    // The controller heard the fault (its client logs it to stderr, which is kairos's).
    assert!(
        e.contains(r#"kairos refused: {"Core": {"Refused": {"Busy": {"free": 1}}}}"#),
        "{e}"
    );
}

#[test]
fn exec_refuses_a_task_before_its_arrival() {
    let e = replay_fails(&faulty("unarrived"));
    assert!(
        e.contains("(start task 1000000 on cluster 0, 1 nodes, P-state 0, from 0 us to 1 us), refused: the task has not arrived"),
        "{e}"
    );
}

#[test]
fn exec_refuses_a_partition_the_task_cannot_use() {
    let e = replay_fails(&faulty("partition"));
    assert!(
        e.contains("(start task 0 on cluster 1, 3 nodes, P-state 0, from 0 us to 10000000 us), refused: the task cannot run on that cluster"),
        "{e}"
    );
}

#[test]
fn exec_refuses_a_decision_of_the_wrong_shape() {
    let e = replay_fails(&faulty("shape"));
    assert!(
        e.contains("refused: the task needs 3 nodes there and would end at 10000000 us"),
        "{e}"
    );
}

#[test]
fn exec_refuses_a_start_over_the_energy_budget() {
    let scenario = root().join("host/tests/data/essc_small.toml");
    let e = fails(&[
        "run",
        scenario.to_str().unwrap(),
        "--budget-joules",
        "1",
        "--controller",
        &faulty("budget"),
    ]);
    assert!(
        e.contains("refused: over the energy budget: it needs 184247473 mJ inside the day, 1000 mJ are left"),
        "{e}"
    );
}

#[test]
fn exec_controller_that_dies() {
    let e = replay_fails(&faulty("dies"));
    assert!(
        e.contains("exited (exit status: 3) after answering 1 requests, while kairos waited for its answer to the arrival of task 0"),
        "{e}"
    );
}

#[test]
fn exec_controller_that_hangs() {
    // The hello answered (python3 started, however slowly), then the arrival never is: kairos
    // gives up after the timeout instead of waiting for ever.
    let t0 = std::time::Instant::now();
    let e = replay_fails_within(&faulty("hangs"), 10);
    assert!(
        e.contains("did not answer the arrival of task 0 (request 2) within 10 s (it answered 1 requests before)"),
        "{e}"
    );
    // The timeout, the moment given to exit, and the start of two processes on a loaded
    // machine; not the hour the controller sleeps.
    assert!(t0.elapsed().as_secs() < 120, "{:?}", t0.elapsed());
}

#[test]
fn exec_controller_that_writes_garbage() {
    let e = replay_fails(&faulty("garbage"));
    assert!(
        e.contains(r#"answered the arrival of task 0 (request 2) with a line that is not a response: expected ident at line 1 column 2: "this is not a response" (its stdout is the protocol: write logs to stderr)"#),
        "{e}"
    );
}

#[test]
fn exec_controller_that_lies_about_an_id_or_a_request() {
    let e = replay_fails(&faulty("wrong-id"));
    assert!(
        e.contains(r#"answered the arrival of task 0 with {"Arrived":1}"#),
        "{e}"
    );
    let e = replay_fails(&faulty("wrong-seq"));
    assert!(
        e.contains("answered request 7 while kairos asked request 2 (the arrival of task 0)"),
        "{e}"
    );
}

#[test]
fn exec_controller_that_cannot_start() {
    let e = replay_fails("exec:/nonexistent/controller");
    assert!(e.contains("the controller `/nonexistent/controller` exited (exit status: 127) after answering 0 requests, while kairos waited for its answer to the hello"), "{e}");
}

#[test]
fn exec_flags_that_do_not_go_together() {
    let log = swf("easy_backfills.swf");
    let out = kairos(&[
        "replay",
        log.to_str().unwrap(),
        "--controller",
        &faulty("busy"),
        "--policy",
        "fcfs",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = kairos(&[
        "replay",
        log.to_str().unwrap(),
        "--controller",
        &faulty("busy"),
        "--stream",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("--controller replays the whole log"), "{e}");
}

/// A log of `n` one-processor jobs all submitted at 0 s, on 64 processors: one mapping
/// event starts more decisions than a page holds.
fn burst(dir: &std::path::Path, n: usize) -> PathBuf {
    let mut s = String::from("; MaxProcs: 64\n");
    for i in 1..=n {
        s += &format!(
            "{i} 0 -1 {} 1 -1 -1 1 {} -1 1 1 1 -1 -1 -1 -1 -1\n",
            10 + i,
            20 + i
        );
    }
    let p = dir.join("burst.swf");
    std::fs::write(&p, s).unwrap();
    p
}

/// The Batsim jobs file (and the --jobs-out file) of `kairos replay LOG --controller`
/// against the built-in's, with `policy_flags` for the built-in.
fn same_files(log: &std::path::Path, extra: &[&str], policy_flags: &[&str], controller: &str) {
    let dir = tempfile::tempdir().unwrap();
    let run = |flags: &[&str], name: &str| {
        let prefix = dir.path().join(name);
        let jobs = dir.path().join(format!("{name}.csv"));
        let mut args = vec![
            "replay",
            log.to_str().unwrap(),
            "--jobs-out",
            jobs.to_str().unwrap(),
        ];
        let batsim = !flags.contains(&"pool");
        if batsim {
            args.extend(["--batsim-out", prefix.to_str().unwrap()]);
        }
        args.extend_from_slice(extra);
        args.extend_from_slice(flags);
        let out = kairos(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let batsim = batsim
            .then(|| std::fs::read_to_string(dir.path().join(format!("{name}_jobs.csv"))).unwrap());
        (std::fs::read_to_string(jobs).unwrap(), batsim, out.stdout)
    };
    let (want_jobs, want_batsim, _) = run(policy_flags, "builtin");
    let (got_jobs, got_batsim, stdout) = run(&["--controller", controller], "exec");
    assert_eq!(got_jobs, want_jobs);
    if want_batsim.is_some() {
        assert_eq!(got_batsim, want_batsim);
    }
    let summary: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(summary["policy"], "exec");
    assert!(summary["controller"]["requests"].as_u64().unwrap() > 0);
}

#[test]
fn python_fcfs_gives_the_builtin_fcfs_schedule() {
    let fcfs = exec("clients/python/examples/fcfs.py", "");
    for log in [
        "easy_backfills.swf",
        "easy_node_choice.swf",
        "early_completion.swf",
    ] {
        same_files(&swf(log), &["--procs", "4"], &["--policy", "fcfs"], &fcfs);
    }
    let dir = tempfile::tempdir().unwrap();
    same_files(&burst(dir.path(), 150), &[], &["--policy", "fcfs"], &fcfs);
}

/// easy.py takes its reservation back at every event and learns which nodes kairos gives
/// its decisions (docs/protocol.md, "Nodes"), so it gives the node allocation's EASY,
/// where a reservation holds named nodes: on easy_node_choice.swf that is not the
/// processor-count EASY's schedule (docs/traces.md, "Reservations hold nodes").
#[test]
fn python_easy_gives_the_builtin_easy_schedule() {
    let easy = exec("clients/python/examples/easy.py", "");
    for log in [
        "easy_backfills.swf",
        "easy_node_choice.swf",
        "early_completion.swf",
        "conservative_vs_easy.swf",
    ] {
        same_files(&swf(log), &["--procs", "4"], &["--policy", "easy"], &easy);
    }
    let dir = tempfile::tempdir().unwrap();
    same_files(&burst(dir.path(), 150), &[], &["--policy", "easy"], &easy);
}

/// The whole of KTH-SP2 (`--clean strong`, 28,481 jobs): fcfs.py and easy.py write the
/// built-ins' Batsim jobs files and `--jobs-out` files byte for byte.
#[test]
fn python_fcfs_and_easy_give_the_builtin_schedules_on_kth() {
    let kth = root().join("../shared/traces/KTH-SP2-1996-2.1.swf");
    for policy in ["fcfs", "easy"] {
        same_files(
            &kth,
            &["--clean", "strong"],
            &["--policy", policy],
            &exec(&format!("clients/python/examples/{policy}.py"), ""),
        );
    }
}

#[test]
fn python_fcfs_on_a_scenario_gives_the_builtin_digest() {
    let scenario = root().join("host/tests/data/essc_small.toml");
    let run = |flags: &[&str]| {
        let mut args = vec!["run", scenario.to_str().unwrap(), "--json"];
        args.extend_from_slice(flags);
        let out = kairos(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let want = run(&["--heuristic", "fcfs"]);
    let got = run(&["--controller", &exec("clients/python/examples/fcfs.py", "")]);
    assert_eq!(got["digest"], want["digest"]);
    assert_eq!(got["completed"], want["completed"]);
    assert_eq!(got["heuristic"], "exec");
}

/// docs/protocol.schema.json against every message of real runs, both ways: a replay whose
/// one mapping event pages its 60 decisions, a scenario run (typed tasks, P-states, a
/// budget), and a refused decision's fault; each kind of message at least once, and a
/// message the schema must reject.
#[test]
fn the_protocol_schema_holds_for_real_messages() {
    let text = std::fs::read_to_string(root().join("docs/protocol.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let direction = |to: &str| {
        let mut s = schema.clone();
        s.as_object_mut().unwrap().remove("anyOf");
        s["$ref"] = serde_json::Value::String(format!("#/$defs/to_{to}"));
        jsonschema::validator_for(&s).unwrap()
    };
    let (to_controller, to_kairos) = (direction("controller"), direction("kairos"));
    let dir = tempfile::tempdir().unwrap();
    let record = |name: &str, busy: bool| {
        let log = dir.path().join(name);
        let flag = if busy { "--busy" } else { "" };
        (
            exec(
                "host/tests/data/exec/record.py",
                &format!("{} {flag}", log.display()),
            ),
            log,
        )
    };
    let burst_log = burst(dir.path(), 60);
    let (c1, l1) = record("replay.jsonl", false);
    assert!(
        kairos(&["replay", burst_log.to_str().unwrap(), "--controller", &c1])
            .status
            .success()
    );
    let scenario = root().join("host/tests/data/essc_small.toml");
    let (c2, l2) = record("run.jsonl", false);
    let out = kairos(&[
        "run",
        scenario.to_str().unwrap(),
        "--budget-joules",
        "1e9",
        "--controller",
        &c2,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (c3, l3) = record("refused.jsonl", true);
    let log = swf("easy_backfills.swf");
    assert_eq!(
        kairos(&["replay", log.to_str().unwrap(), "--controller", &c3])
            .status
            .code(),
        Some(1)
    );
    let mut kinds = std::collections::BTreeSet::new();
    for path in [l1, l2, l3] {
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let m: serde_json::Value = serde_json::from_str(line).unwrap();
            let (to, msg) = (m["to"].as_str().unwrap(), &m["message"]);
            let v = if to == "controller" {
                &to_controller
            } else {
                &to_kairos
            };
            let errors: Vec<String> = v.iter_errors(msg).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{to}: {msg}: {errors:?}");
            let body = &msg["body"];
            let kind = match body.as_str() {
                Some(s) => s.to_string(),
                None => body.as_object().unwrap().keys().next().unwrap().clone(),
            };
            kinds.insert(format!("{to}:{kind}"));
        }
    }
    let want = [
        "controller:Arrival",
        "controller:Completion",
        "controller:Fault",
        "controller:Hello",
        "controller:Map",
        "controller:Page",
        "controller:Reset",
        "kairos:Arrived",
        "kairos:Completed",
        "kairos:Hello",
        "kairos:Mapped",
        "kairos:Reset",
    ];
    assert_eq!(kinds.iter().map(String::as_str).collect::<Vec<_>>(), want);
    // And it can fail: a decision with a kind the protocol does not have, a page too long.
    let bad = serde_json::json!({"seq": 3, "body": {"Mapped": {"total": 1, "from": 0,
        "utility": 0, "consumed": 0, "decisions": [{"decision": {"task": 0, "kind": "Launch",
        "cluster": 0, "nodes": 1, "pstate": 0, "start": 0, "end": 1}, "fate": "None"}]}}});
    assert!(!to_kairos.is_valid(&bad));
    let long = serde_json::json!({"seq": 3, "body": {"Mapped": {"total": 49, "from": 0,
        "utility": 0, "consumed": 0, "decisions": vec![serde_json::json!({"decision": {"task": 0,
        "kind": "Start", "cluster": 0, "nodes": 1, "pstate": 0, "start": 0, "end": 1},
        "fate": "None"}); 49]}}});
    assert!(!to_kairos.is_valid(&long));
}

/// The one-page utility-and-energy-aware example runs a budgeted scenario with none of its
/// decisions refused (its energy sums are kairos's), and earns more than FCFS does there.
#[test]
fn python_utility_per_joule_keeps_to_the_budget() {
    let scenario = root().join("host/tests/data/essc_small.toml");
    let run = |flags: &[&str]| {
        let mut args = vec![
            "run",
            scenario.to_str().unwrap(),
            "--json",
            "--budget-joules",
            "30e6",
        ];
        args.extend_from_slice(flags);
        let out = kairos(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let upj = run(&[
        "--controller",
        &exec("clients/python/examples/utility_energy.py", ""),
    ]);
    let fcfs = run(&["--heuristic", "fcfs"]);
    assert!(upj["energy_joules"].as_f64().unwrap() <= 30e6);
    assert!(
        upj["utility"].as_f64().unwrap() > fcfs["utility"].as_f64().unwrap(),
        "{upj} {fcfs}"
    );
}

/// The tutorial's policy (docs/tutorial.md) runs: on easy_backfills.swf the 1-processor job 3
/// starts at its arrival, 2.5 s, beside job 1, and the 4-processor job 2 waits for job 1.
#[test]
fn the_tutorial_policy_runs() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("sjf.csv");
    let log = swf("easy_backfills.swf");
    let out = kairos(&[
        "replay",
        log.to_str().unwrap(),
        "--controller",
        &exec("clients/python/examples/sjf.py", ""),
        "--jobs-out",
        jobs.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(jobs).unwrap(),
        "job_id,submit,start,end,procs\n1,0.000000,0.000000,10.000000,3\n\
         2,1.000000,10.000000,20.000000,4\n3,2.500000,2.500000,6.750000,1\n"
    );
}

/// An experiment file names exec controllers beside built-ins: the Python FCFS's runs have
/// the built-in FCFS's digests trial by trial, the reports call them `exec`, and the
/// controllers' paths are relative to the experiment file.
#[test]
fn an_experiment_runs_exec_controllers_beside_the_builtins() {
    let dir = tempfile::tempdir().unwrap();
    let file = root().join("host/tests/data/exec/experiment.toml");
    let out = kairos(&[
        "experiment",
        file.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trials = std::fs::read_to_string(dir.path().join("trials.csv")).unwrap();
    let rows: Vec<Vec<&str>> = trials
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let digests = |label: &str| -> Vec<&str> {
        rows.iter()
            .filter(|r| r[0] == label)
            .map(|r| *r.last().unwrap())
            .collect()
    };
    assert_eq!(digests("FCFS").len(), 2, "{trials}");
    assert_eq!(digests("fcfs.py"), digests("FCFS"), "{trials}");
    assert_eq!(digests("utility per joule (Python)").len(), 2, "{trials}");
    let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
    assert!(summary.contains("\nfcfs.py,exec,"), "{summary}");
    let svg = std::fs::read_to_string(dir.path().join("utility.svg")).unwrap();
    assert!(svg.contains("exec controller"), "{svg}");
}

/// A controller run takes none of the built-ins' keys and needs a label; a trace
/// experiment's runs take no controller: each said with the file, line and key.
#[test]
fn an_experiment_controller_run_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = root().join("host/tests/data/essc_small.toml");
    let file = dir.path().join("bad.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"bad\"\nscenario = {:?}\n\n[[runs]]\ncontroller = \"exec:python3 x.py\"\n\
             heuristic = \"fcfs\"\n\n[[runs]]\nlabel = \"y\"\ncontroller = \"python3 y.py\"\n",
            scenario.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = kairos(&[
        "experiment",
        file.to_str().unwrap(),
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.toml:6: runs[0].heuristic"), "{err}");
    assert!(err.contains("runs[0].label"), "{err}");
    assert!(err.contains("bad.toml:10: runs[1].controller"), "{err}");
    assert!(err.contains("expected \"exec:COMMAND\""), "{err}");
}

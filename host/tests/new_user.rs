//! What a new user tripped over (issue 47), each checked through the `kairos` binary: the
//! experiment's wall time, file kinds, the run's day counts and Batsim states, slowdowns of
//! zero-time jobs, a live controller's event times, sweep-knapsack's folders, the replay
//! summary's allocation, the docs of `--trace-out`, plots' titles and warm-up, help texts,
//! the README's install line, and Ctrl-C.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

fn kairos_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the kairos binary runs")
}

fn ok(args: &[&str]) -> (String, String) {
    let o = common::kairos(args);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "kairos {args:?}: {err}");
    (out, err)
}

fn fails(args: &[&str]) -> String {
    let o = common::kairos(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "kairos {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// `wall_s` is the whole experiment's: with one thread the trials run one after another, so
/// it is at least the sum of the runs' own times (it was the largest per-trial share).
#[test]
fn wall_time_is_the_whole_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e");
    let clock = std::time::Instant::now();
    ok(&[
        "experiment",
        &data("experiment_small.toml"),
        "--trials",
        "6",
        "--jobs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let elapsed = clock.elapsed().as_secs_f64();
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("timing.json")).unwrap()).unwrap();
    let wall = t["wall_s"].as_f64().unwrap();
    let runs: f64 = t["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["run_s"]["total"].as_f64().unwrap())
        .sum();
    assert!(wall >= runs, "wall_s {wall} < the runs' {runs} s");
    assert!(wall <= elapsed, "wall_s {wall} > the command's {elapsed} s");
}

/// A file of the wrong kind says what it is and which command takes it.
#[test]
fn wrong_file_kinds_name_the_command_that_takes_them() {
    let swf = common::swf("easy_backfills.swf");
    let swf = swf.to_str().unwrap();
    let scenario = data("essc_small.toml");
    let experiment = data("experiment_small.toml");
    let e = fails(&["run", swf, "--heuristic", "max-upe"]);
    assert!(
        e.contains("an SWF log") && e.contains("kairos replay"),
        "{e}"
    );
    let e = fails(&["experiment", swf]);
    assert!(
        e.contains("an SWF log") && e.contains("kairos replay"),
        "{e}"
    );
    let e = fails(&["experiment", &scenario]);
    assert!(e.contains("a scenario") && e.contains("kairos run"), "{e}");
    assert!(!e.contains("unknown field"), "{e}");
    let e = fails(&["export", &experiment, "--format", "swf"]);
    assert!(
        e.contains("an experiment file") && e.contains("kairos experiment"),
        "{e}"
    );
    assert!(!e.contains("unknown field"), "{e}");
    let e = fails(&["run", &experiment, "--heuristic", "max-upe"]);
    assert!(e.contains("kairos experiment"), "{e}");
    let e = fails(&["replay", &scenario, "--policy", "easy"]);
    assert!(
        e.contains("this is a scenario, and `kairos replay` reads an SWF log")
            && e.contains("kairos run"),
        "{e}"
    );
    let e = fails(&["replay", &experiment, "--policy", "easy"]);
    assert!(
        e.contains("this is an experiment file") && e.contains("kairos experiment"),
        "{e}"
    );
    // What they take still works.
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("x.json");
    ok(&[
        "export",
        swf,
        "--format",
        "batsim",
        "-o",
        o.to_str().unwrap(),
    ]);
}

/// The run's counts are the measured day's (the warm-up's arrivals are simulated, not
/// counted), and they add up.
#[test]
fn run_counts_the_day_not_the_warm_up() {
    let (out, _) = ok(&[
        "run",
        &data("essc_small.toml"),
        "--heuristic",
        "max-upe",
        "--json",
    ]);
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    let n = |k: &str| s[k].as_u64().unwrap();
    assert_eq!(
        n("completed") + n("dropped") + n("unfinished"),
        n("arrived")
    );
    let scenario =
        kairos_host::scenario::Scenario::load(Path::new(&data("essc_small.toml"))).unwrap();
    let trial = kairos_host::generate::generate(&scenario, 0).unwrap();
    let warm = scenario.simulation.warmup_hours as u64 * 3_600_000_000;
    let end = scenario.simulation.horizon_hours as u64 * 3_600_000_000;
    let in_day = trial
        .tasks
        .iter()
        .filter(|t| t.arrival.0 >= warm && t.arrival.0 < end)
        .count() as u64;
    assert!(
        in_day < trial.tasks.len() as u64,
        "tasks arrive in the warm-up"
    );
    assert_eq!(n("arrived"), in_day);
}

/// A job of zero run time has no stretch: the schedule's slowdowns stay finite, and the
/// command says it left the job out.
#[test]
fn zero_time_jobs_leave_the_slowdowns_finite_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("zero.swf");
    std::fs::write(
        &log,
        "; MaxProcs: 4\n\
         1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
         2 1 -1 0 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let prefix = dir.path().join("b");
    let (_, err) = ok(&[
        "replay",
        log.to_str().unwrap(),
        "--policy",
        "easy",
        "--batsim-out",
        prefix.to_str().unwrap(),
    ]);
    assert!(err.contains("1 job ran for no time"), "{err}");
    let sched = std::fs::read_to_string(dir.path().join("b_schedule.csv")).unwrap();
    assert!(!sched.contains("inf"), "{sched}");
}

/// Over a live controller the mapping events are timed (the round trip), not printed as 0.
#[test]
fn inline_controller_times_its_mapping_events() {
    let (out, _) = ok(&[
        "run",
        &data("essc_small.toml"),
        "--heuristic",
        "max-upe",
        "--controller",
        "inline",
        "--json",
    ]);
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(s["mapping_event_us"]["max"].as_u64().unwrap() > 0, "{out}");
    assert!(
        s["mapping_event_us"]["mean"].as_f64().unwrap() > 0.0,
        "{out}"
    );
    // And the day's counts are the in-process run's.
    let (plain, _) = ok(&[
        "run",
        &data("essc_small.toml"),
        "--heuristic",
        "max-upe",
        "--json",
    ]);
    let p: serde_json::Value = serde_json::from_str(&plain).unwrap();
    for k in ["arrived", "completed", "dropped", "unfinished", "digest"] {
        assert_eq!(s[k], p[k], "{k}");
    }
}

/// Rigid and malleable sweeps of one workload write to their own default folders, and the
/// synthetic workload sweeps rigid by default.
#[test]
fn sweep_knapsack_modes_have_their_own_folders() {
    let dir = tempfile::tempdir().unwrap();
    for mode in ["malleable", "rigid"] {
        let o = kairos_in(
            dir.path(),
            &[
                "sweep-knapsack",
                "--synthetic",
                "--mode",
                mode,
                "--jobs",
                "10",
                "--step",
                "2",
            ],
        );
        assert!(
            o.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(dir
        .path()
        .join("out/synthetic-knapsack/summary.json")
        .is_file());
    assert!(dir
        .path()
        .join("out/synthetic-knapsack-rigid/summary.json")
        .is_file());
}

/// The replay summary names the allocation that produced it.
#[test]
fn replay_summary_names_its_allocation() {
    let swf = common::swf("easy_backfills.swf");
    for a in ["nodes", "pool"] {
        let (out, _) = ok(&[
            "replay",
            swf.to_str().unwrap(),
            "--policy",
            "easy",
            "--allocation",
            a,
        ]);
        let s: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(s["allocation"], a, "{out}");
    }
}

/// docs/formats.md names every column `--trace-out` writes, and the summary's `allocation`.
#[test]
fn trace_out_columns_are_documented() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.csv");
    ok(&[
        "run",
        &data("essc_small.toml"),
        "--heuristic",
        "max-upe",
        "--trace-out",
        p.to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(&p).unwrap();
    let doc = std::fs::read_to_string(root().join("docs/formats.md")).unwrap();
    let section = &doc[doc
        .find("`kairos run --trace-out FILE.csv`")
        .expect("a section")..];
    for c in csv.lines().next().unwrap().split(',') {
        assert!(section.contains(&format!("| `{c}` |")), "{c}");
    }
    assert!(doc.contains("`allocation` (`nodes` or `pool`"));
}

/// The replay's plots are titled with the log's name (not the path given), say what a point
/// is, and shade the warm-up.
#[test]
fn replay_plots_name_the_log_and_mark_the_warm_up() {
    let dir = tempfile::tempdir().unwrap();
    let swf = common::swf("conservative_vs_easy.swf");
    let summary = dir.path().join("s.json");
    ok(&[
        "replay",
        swf.to_str().unwrap(),
        "--policy",
        "easy",
        "--warmup",
        "2",
        "--summary-out",
        summary.to_str().unwrap(),
    ]);
    for name in ["s-utilisation.svg", "s-queue.svg"] {
        let svg = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(
            svg.contains(">conservative_vs_easy.swf under easy<"),
            "{svg}"
        );
        assert!(!svg.contains("tests/data"), "{svg}");
        assert!(svg.contains("allocation nodes") && svg.contains("a mean over"));
        assert!(
            svg.contains("fill=\"#d9d9d9\""),
            "the warm-up is shaded: {svg}"
        );
    }
}

/// Help texts: one spelling of `--clean strong`, no rustdoc links, `--force` names
/// `--batsim-out`, `digest` says what it takes.
#[test]
fn help_texts_say_what_the_commands_take() {
    let (h, _) = ok(&["export", "--help"]);
    assert!(
        h.contains("--clean <CLEAN>") && !h.contains("--clean-strong"),
        "{h}"
    );
    let (h, _) = ok(&["sweep-knapsack", "--help"]);
    assert!(!h.contains("[`") && !h.contains("`]"), "{h}");
    for cmd in ["run", "replay"] {
        let (h, _) = ok(&[cmd, "--help"]);
        let force = &h[h.find("--force").unwrap()..];
        let force = &force[..force.find("\n  -").unwrap_or(force.len())];
        assert!(force.contains("--batsim-out"), "{cmd}: {force}");
    }
    let (h, _) = ok(&["digest", "--help"]);
    assert!(h.contains("ph|upe|overcap|FILE.bin"), "{h}");
    let e = fails(&["digest", &data("essc_small.toml")]);
    assert!(e.contains("kairos run"), "{e}");
    // The old spelling still works, and so does the new one.
    let swf = common::swf("easy_backfills.swf");
    let dir = tempfile::tempdir().unwrap();
    for (flag, name) in [
        (&["--clean", "strong"][..], "a.swf"),
        (&["--clean-strong"][..], "b.swf"),
    ] {
        let o = dir.path().join(name);
        let mut args = vec!["export", swf.to_str().unwrap(), "--format", "swf", "-o"];
        args.push(o.to_str().unwrap());
        args.extend_from_slice(flag);
        ok(&args);
    }
}

/// The README installs with the lock file's versions.
#[test]
fn readme_installs_locked() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("cargo install --locked --path host"));
    assert!(!readme.contains("cargo install --path host"));
}

/// The first Ctrl-C says what happens (the running trials finish; a second Ctrl-C stops at
/// once); after `--resume` the progress counts the saved trials.
#[cfg(unix)]
#[test]
fn ctrl_c_says_what_it_does_and_resume_counts_saved_trials() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e");
    let args = [
        "experiment".to_string(),
        data("experiment_small.toml"),
        "--trials".into(),
        "400".into(),
        "--jobs".into(),
        "1".into(),
        "--out".into(),
        out.display().to_string(),
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut err = String::new();
    // Interrupt once the first trial is saved.
    for l in lines.by_ref() {
        let l = l.unwrap();
        err.push_str(&l);
        err.push('\n');
        if l.starts_with("trial ") {
            break;
        }
    }
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    for l in lines {
        err.push_str(&l.unwrap());
        err.push('\n');
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("Ctrl-C: finishing 1 running trial")
            && err.contains("Ctrl-C again stops at once"),
        "{err}"
    );
    let saved = std::fs::read_dir(out.join("runs")).unwrap().count();
    assert!((1..400).contains(&saved), "{saved}");
    // Resume the same run, stopped again at its first progress line, which must count the
    // saved trials.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(&args)
        .arg("--resume")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut first = None;
    for l in lines {
        let l = l.unwrap();
        if first.is_none() && l.starts_with("trial ") {
            first = Some(l);
            // SAFETY: as above.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        }
    }
    child.wait().unwrap();
    let first = first.expect("a progress line");
    assert!(
        first.contains(&format!(" {}/400 trials", saved + 1)),
        "{first} (saved {saved})"
    );
}

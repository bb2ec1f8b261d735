//! Issue 27's failures, each pinned: sizes from input checked before allocation, nonsense
//! refused, outputs that never destroy an input or earlier results, and an experiment that
//! survives Ctrl-C and SIGKILL and resumes to byte-identical reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::kairos;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `kairos args`, expects exit 1 and a message holding `want`, and no panic.
fn fails_with(args: &[&str], want: &str) {
    fails_with_code(args, want, 1);
}

/// As [`fails_with`], for a flag's value the command cannot take: a usage error, exit 2.
fn usage_fails_with(args: &[&str], want: &str) {
    fails_with_code(args, want, 2);
}

fn fails_with_code(args: &[&str], want: &str, code: i32) {
    let out = kairos(args);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {e}");
    assert!(e.contains(want), "{args:?}: {e}");
    assert!(!e.contains("panicked"), "{args:?}: {e}");
}

#[test]
fn robust_sweep_knapsack_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("o");
    let base = ["sweep-knapsack", "--synthetic", "--out", s(&o)];
    let with = |extra: &[&'static str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    // Was "capacity overflow" in raw_vec.
    usage_fails_with(
        &with(&["--jobs", "18446744073709551615"]),
        "--jobs 18446744073709551615: at most 1000000 jobs",
    );
    // Was "a grid has points": the count wrapped to 0.
    usage_fails_with(
        &with(&["--step", "1e-300"]),
        "--step 1e-300 gives 4.000e300 values per axis: at most 401",
    );
    usage_fails_with(
        &with(&["--threads", "4294967295"]),
        "--threads 4294967295: the thread count must be between 1 and 1024",
    );
    // A sweep prints its estimate before it starts.
    let out = kairos(&with(&["--jobs", "12", "--step", "1"]));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{e}");
    assert!(e.contains("sweep-knapsack: estimate "), "{e}");
    assert!(
        e.find("estimate").unwrap() < e.find("points (").unwrap(),
        "{e}"
    );
    // Its results are not overwritten without --force.
    fails_with(&with(&["--jobs", "12", "--step", "1"]), "pass --force");
    let out = kairos(&with(&["--jobs", "12", "--step", "1", "--force"]));
    assert!(out.status.success());
}

#[test]
fn robust_bad_out_fails_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let bad = file.join("out");
    let started = Instant::now();
    let out = kairos(&[
        "experiment",
        s(&data("experiment_small.toml")),
        "--trials",
        "1000",
        "--out",
        s(&bad),
    ]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("cannot create the output directory"), "{e}");
    // No run started: nothing counted, and far quicker than 1,000 trials.
    assert!(!e.contains("runs,") && !e.contains("trial 0 done"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(20));
    fails_with(
        &[
            "sweep-knapsack",
            "--synthetic",
            "--jobs",
            "1000000",
            "--out",
            s(&bad),
        ],
        "cannot create the output directory",
    );
}

#[test]
fn robust_experiment_label_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("e.toml");
    std::fs::write(
        &f,
        format!(
            "name = \"x\"\nscenario = {:?}\ntrials = 1\n\n[[runs]]\nheuristic = \"easy\"\n\
             label = \"{}\"\n",
            data("experiment_scenario.toml"),
            "L".repeat(65_536)
        ),
    )
    .unwrap();
    fails_with(
        &["experiment", s(&f), "--out", s(&dir.path().join("o"))],
        "runs[0].label",
    );
    fails_with(
        &["experiment", s(&f), "--out", s(&dir.path().join("o"))],
        "must be at most 200 characters",
    );
    assert!(!dir.path().join("o").join("summary.json").exists());
}

/// The scenario of the experiment tests with `edit` applied to its text.
fn scenario_with(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(data("experiment_scenario.toml")).unwrap();
    let p = dir.join("s.toml");
    std::fs::write(&p, edit(text)).unwrap();
    p
}

#[test]
fn robust_scenario_sizes_and_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(data("experiment_scenario.toml")).unwrap();
    let nodes_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("nodes"))
        .unwrap()
        .to_string();
    // Was an abort: "memory allocation of 24643917760 bytes failed".
    let p = scenario_with(dir.path(), |t| {
        t.replacen(&nodes_line, "nodes = 1000000", 1)
    });
    fails_with(
        &["run", s(&p), "--heuristic", "easy"],
        "platform.clusters[0].nodes",
    );
    fails_with(
        &["run", s(&p), "--heuristic", "easy"],
        "GB of scheduler storage, over the limit of",
    );
    // Extra elements of a two-element array were dropped silently.
    let p = scenario_with(dir.path(), |t| {
        t.replacen(
            "base_time_hours = [0.5, 4.0]",
            "base_time_hours = [0.2, 2.0, -5, nan, \"x\"]",
            1,
        )
    });
    let out = kairos(&["run", s(&p), "--heuristic", "easy"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("line 47"), "{e}");
    assert!(
        e.contains("invalid length 5, expected an array of exactly two elements"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn robust_run_flags() {
    let sc = data("experiment_scenario.toml");
    let out = kairos(&["run", s(&sc), "--heuristic", "easy", "--leniency", "1e308"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("must be between 0 and 1000"), "{e}");
    // An output that is the input is refused, and the input kept.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("s.toml");
    std::fs::copy(&sc, &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    fails_with(
        &[
            "run",
            s(&copy),
            "--heuristic",
            "easy",
            "--trace-out",
            s(&copy),
        ],
        "would destroy the input",
    );
    assert_eq!(std::fs::read(&copy).unwrap(), before);
}

/// Every report file of `dir` but timing.json (wall times), by name.
fn reports(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().unwrap() != "timing.json")
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

const TRIALS: &str = "12";

/// Starts an experiment of [`TRIALS`] trials on one thread into `out`.
fn start(out: &Path, extra: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "experiment",
            s(&data("experiment_small.toml")),
            "--trials",
            TRIALS,
            "--jobs",
            "1",
            "--out",
            s(out),
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the first trial of the run into `out` is saved.
fn wait_first_saved(out: &Path) {
    let t0 = Instant::now();
    while !out.join("runs/shard-1-of-12.shard").exists() {
        assert!(t0.elapsed() < Duration::from_secs(120), "no trial saved");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn robust_experiment_killed_and_resumed_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let child = start(&whole, &[]);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = reports(&whole);
    assert_eq!(want.len(), 7);

    for (signal, name) in [("-INT", "int"), ("-KILL", "kill")] {
        let d = dir.path().join(name);
        let child = start(&d, &[]);
        wait_first_saved(&d);
        let ok = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        let out = child.wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{name}: ran to the end before the signal: {e}"
        );
        if signal == "-INT" {
            assert_eq!(out.status.code(), Some(1), "{e}");
            assert!(e.contains("interrupted: "), "{e}");
            assert!(e.contains("--resume`"), "{e}");
        }
        assert!(!d.join("summary.json").exists(), "{name}");
        // A rerun without --resume or --force is refused, and says why.
        let again = start(&d, &[]).wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(1), "{e}");
        assert!(e.contains("pass --resume"), "{e}");
        let resumed = start(&d, &["--resume"]).wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&resumed.stderr);
        assert!(resumed.status.success(), "{name}: {e}");
        assert!(e.contains("trials saved"), "{name}: {e}");
        assert_eq!(reports(&d), want, "{name}: resumed reports differ");
    }
}

/// The firmware's `upe.bin` with one byte of a class's share changed (0.2 becomes 13,107.2)
/// ran to 16,318% of the maximum utility; now it is the constructor's error. And a task
/// count of 4,294,967,295 in the header is refused before storage is sized from it.
#[test]
fn robust_encoded_scenario_is_validated() {
    use kairos_core::error::{Error, InputError};
    use kairos_core::packed::{encode_header, PackedScenario, PREFIX_LEN};
    use kairos_host::firmware_scenarios;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../firmware/scenarios/upe.bin");
    let bytes = std::fs::read(&path).unwrap();
    assert!(firmware_scenarios::run(&bytes).is_ok());
    let psi = 0.2f64.to_le_bytes();
    let at = bytes.windows(8).position(|w| w == psi).unwrap();
    let mut flipped = bytes.clone();
    flipped[at + 7] = 0x40;
    assert_eq!(
        firmware_scenarios::run(&flipped).err(),
        Some(Error::Input(InputError::BadNumber).into())
    );
    // Through the binary: a clean error, exit 1.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("upe-flipped.bin");
    std::fs::write(&bad, &flipped).unwrap();
    let out = kairos(&["digest", s(&bad)]);
    assert_eq!(out.status.code(), Some(1));

    let dec = PackedScenario::decode(&bytes).unwrap();
    let mut header = dec.header().clone();
    header.tasks = u32::MAX;
    let mut buf = vec![0u8; 1 << 20];
    let n = encode_header(&header, &mut buf).unwrap();
    assert!(n > PREFIX_LEN);
    assert_eq!(
        firmware_scenarios::run(&buf[..n]).err(),
        Some(Error::Input(InputError::Undecodable(0)).into())
    );
}

/// `--force` leaves no report of the earlier experiment: a leniency plot the new one does
/// not draw is gone.
#[test]
fn robust_force_removes_earlier_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let first = start(&out, &[]).wait_with_output().unwrap();
    assert!(first.status.success());
    assert!(out.join("leniency.svg").exists());
    let f = dir.path().join("e.toml");
    std::fs::write(
        &f,
        format!(
            "name = \"x\"\nscenario = {:?}\ntrials = 1\n\n[[runs]]\nheuristic = \"easy\"\n",
            data("experiment_scenario.toml")
        ),
    )
    .unwrap();
    fails_with(&["experiment", s(&f), "--out", s(&out)], "pass --force");
    let again = kairos(&["experiment", s(&f), "--out", s(&out), "--force"]);
    assert!(again.status.success());
    assert!(!out.join("leniency.svg").exists());
    assert!(out.join("summary.json").exists());
}

/// Found by the `packed_scenario` fuzz target: a decoded task whose priority is enormous
/// overflowed the engine's sum of the day's maximum utility (a panic in a debug build, a
/// wrapped ledger in a release one). Its curve now fails `UtilityCurve::check` as it is
/// decoded: a clean error, exit 1.
#[test]
fn robust_decoded_priority_over_the_limit() {
    use kairos_core::error::{Error, InputError};
    use kairos_core::packed::PackedScenario;
    use kairos_host::firmware_scenarios;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus/packed_scenario/fuzz_utility_overflow.bin");
    let bytes = std::fs::read(&path).unwrap();
    let dec = PackedScenario::decode(&bytes).unwrap();
    assert!(
        dec.tasks()
            .any(|t| t == Err(Error::Input(InputError::UtilityTooLarge))),
        "the corpus input holds a task over the limit"
    );
    assert_eq!(
        firmware_scenarios::run(&bytes).err(),
        Some(Error::Input(InputError::UtilityTooLarge).into())
    );
    let out = kairos(&["digest", s(&path)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("worth more than 1000000"), "{err}");
}

/// Found by the `packed_scenario` fuzz target: a 4 KB encoded scenario whose schedule asks
/// for a mapping event every few microseconds ran for minutes and recorded over 2 GB of
/// events. The schedule now fails `Schedule::check` as it is decoded: a clean error, exit 1.
#[test]
fn robust_decoded_schedule_over_the_limit() {
    use kairos_core::error::{Error, InputError};
    use kairos_core::packed::PackedScenario;
    use kairos_host::firmware_scenarios;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus/packed_scenario/fuzz_mapping_every_microseconds.bin");
    let bytes = std::fs::read(&path).unwrap();
    let bad = Some(Error::Input(InputError::BadSchedule));
    assert_eq!(PackedScenario::decode(&bytes).err(), bad);
    assert_eq!(firmware_scenarios::run(&bytes).err(), bad.map(Into::into));
    let out = kairos(&["digest", s(&path)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mapping interval under 1 s"), "{err}");
}

/// A 61-byte encoded scenario (a find of the `packed_scenario` fuzz campaign) whose header
/// gives a cluster of 50 million nodes: the decoder accepts the header, and the run refuses
/// it before sizing its storage (it asked the allocator for 413 GB), with exit 1 and the
/// storage it would need.
#[test]
fn robust_decoded_platform_over_the_storage_limit() {
    use kairos_host::firmware_scenarios::{self, RunError};
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus/packed_scenario/fuzz_fifty_million_nodes.bin");
    let bytes = std::fs::read(&path).unwrap();
    match firmware_scenarios::run(&bytes) {
        Err(RunError::Storage { nodes, need, .. }) => {
            assert_eq!(nodes, 50_432_099);
            assert!(need > kairos_host::limits::MAX_STORAGE_BYTES);
        }
        other => panic!("expected a storage refusal, got {:?}", other.err()),
    }
    let out = kairos(&["digest", s(&path)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("50432099 nodes"), "{err}");
    assert!(err.contains("over the limit of"), "{err}");
}

/// A seed 003 experiment whose lists make a grid of 40^6 points is refused before the grid
/// is built, naming the key, the size and the limit; a bad `--out` fails before any work
/// (`--resume`: resume_long_runs.rs).
#[test]
fn robust_seed003_grid_and_out() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus/seed003_toml/issue27_grid_too_large.toml");
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/seed003.toml");
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("huge.toml");
    let text = std::fs::read_to_string(&corpus)
        .unwrap()
        .replace("../scenarios/seed003.toml", scenario.to_str().unwrap());
    std::fs::write(&exp, text).unwrap();
    fails_with(
        &["experiment", s(&exp), "--out", s(&dir.path().join("o"))],
        "4096000000 points",
    );
    let small = dir.path().join("small.toml");
    std::fs::write(
        &small,
        format!(
            "name = \"small\"\nscenario = {:?}\n[seed003]\naxis = \"nodes\"\nnodes = [2]\n",
            scenario.to_str().unwrap()
        ),
    )
    .unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    fails_with(
        &["experiment", s(&small), "--out", s(&file.join("sub"))],
        "cannot create the output directory",
    );
}

//! Ctrl-C and `--resume` for every long command besides seed 000's experiments (which
//! robustness.rs covers): seed 002's serial and energy experiments, a seed 003 experiment
//! and `sweep-knapsack`. Each is interrupted by a real SIGINT once its first step is saved,
//! keeps that step, refuses a rerun without `--resume`, and resumes to reports byte-identical
//! to an uninterrupted run's, with no saved steps left behind.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn kairos(args: &[String]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kairos"));
    c.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

/// Every file of `dir` (not its folders), by name.
fn reports(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
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

/// Runs `args` + `--out <dir>/whole` to the end; then `args` + `--out <dir>/cut`,
/// interrupted with SIGINT once `runs/<first>` exists, and resumed. `steps` is the run's
/// step count.
fn interrupt_and_resume(dir: &Path, args: &[String], first: &str, steps: usize) {
    let with_out = |o: &Path, extra: &[&str]| {
        let mut a = args.to_vec();
        a.extend(["--out".to_string(), s(o).to_string()]);
        a.extend(extra.iter().map(|x| x.to_string()));
        a
    };
    let whole = dir.join("whole");
    let out = kairos(&with_out(&whole, &[])).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{e}");
    assert!(!whole.join("runs").exists(), "{e}");
    let want = reports(&whole);
    assert!(want.len() >= 2, "{want:?}");

    let cut = dir.join("cut");
    let child = kairos(&with_out(&cut, &[])).spawn().unwrap();
    let t0 = Instant::now();
    while !cut.join("runs").join(first).exists() {
        assert!(t0.elapsed() < Duration::from_secs(300), "no step saved");
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "ran to the end before the signal? {e}"
    );
    assert!(e.contains("Ctrl-C: finishing"), "{e}");
    assert!(e.contains("interrupted: "), "{e}");
    assert!(e.contains("--resume`"), "{e}");
    let saved = std::fs::read_dir(cut.join("runs")).unwrap().count();
    assert!((1..steps).contains(&saved), "{saved} of {steps} saved: {e}");
    // A rerun without --resume is refused and says why; nothing saved is lost.
    let again = kairos(&with_out(&cut, &[])).output().unwrap();
    let e = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{e}");
    assert!(e.contains("pass --resume"), "{e}");
    assert_eq!(std::fs::read_dir(cut.join("runs")).unwrap().count(), saved);
    let resumed = kairos(&with_out(&cut, &["--resume"])).output().unwrap();
    let e = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{e}");
    assert!(e.contains("saved"), "{e}");
    assert_eq!(reports(&cut), want, "resumed reports differ: {e}");
    assert!(!cut.join("runs").exists());
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn seed002_serial_resumes_after_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "serial.toml",
        "name = \"s\"\nsystem = \"serial\"\nseed = 7\ntasks_per_day = 1500\n\
         heuristics = [\"max-util\", \"min-min-comp\", \"sufferage\", \"max-max-upt\"]\n\
         thetas = [0, 0.5]\n",
    );
    let args: Vec<String> = ["experiment", s(&f), "--trials", "6", "--threads", "1"]
        .map(String::from)
        .to_vec();
    interrupt_and_resume(d.path(), &args, "shard-1-of-6.shard", 6);
}

#[test]
fn seed002_energy_resumes_after_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "energy.toml",
        "name = \"e\"\nsystem = \"serial-energy\"\nchapter = 4\nseed = 7\n\
         tasks_per_day = 100\nbudget_gj = 0.03\nheuristics = [\"max-upe\", \"random\"]\n\
         trace_minutes = 120\n",
    );
    let args: Vec<String> = ["experiment", s(&f), "--trials", "6", "--threads", "1"]
        .map(String::from)
        .to_vec();
    interrupt_and_resume(d.path(), &args, "shard-1-of-6.shard", 6);
}

#[test]
fn seed003_resumes_after_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/seed003.toml");
    let f = write(
        d.path(),
        "s3.toml",
        &format!(
            "name = \"s3\"\nscenario = {:?}\n[seed003]\naxis = \"nodes\"\nnodes = [2]\n\
             approaches = [\"valopt\", \"nba-fcps\"]\n",
            s(&scenario)
        ),
    );
    let args: Vec<String> = ["experiment", s(&f), "--trials", "12", "--threads", "1"]
        .map(String::from)
        .to_vec();
    interrupt_and_resume(d.path(), &args, "shard-1-of-12.shard", 12);
}

#[test]
fn sweep_knapsack_resumes_after_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    // 9^3 = 729 points, a slice each.
    let args: Vec<String> = [
        "sweep-knapsack",
        "--synthetic",
        "--jobs",
        "20",
        "--step",
        "0.5",
        "--threads",
        "1",
    ]
    .map(String::from)
    .to_vec();
    interrupt_and_resume(d.path(), &args, "shard-1-of-729.shard", 729);
}

/// Ctrl-C while `sweep-knapsack` times its first point (before the sweep proper): the point
/// finishes and is kept (on a grid of 8 points it is a slice of its own), the run stops
/// saying how to resume, and `--resume` sweeps only the rest, to the reports of an
/// uninterrupted run.
#[test]
fn sweep_knapsack_keeps_the_timed_point_after_ctrl_c() {
    use std::io::BufRead;
    let d = tempfile::tempdir().unwrap();
    // 2^3 = 8 points; a point of 2,500 jobs takes long enough to be interrupted in.
    let args = |out: &Path, extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "sweep-knapsack",
            "--synthetic",
            "--jobs",
            "2500",
            "--step",
            "4",
            "--threads",
            "1",
            "--out",
            s(out),
        ]
        .map(String::from)
        .to_vec();
        a.extend(extra.iter().map(|x| x.to_string()));
        a
    };
    let whole = d.path().join("whole");
    let out = kairos(&args(&whole, &[])).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = reports(&whole);

    let cut = d.path().join("cut");
    let mut child = kairos(&args(&cut, &[]))
        .env("KAIROS_PROGRESS_QUIET_MS", "0")
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let mut line = String::new();
    // The timed point's first progress line: the point is under way.
    loop {
        line.clear();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "no timing line: {seen}"
        );
        seen.push_str(&line);
        if line.contains("timing one point") {
            break;
        }
    }
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    seen.push_str(&rest);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "killed, or ran to the end? {seen}");
    assert!(seen.contains("interrupted: 1 of 8"), "{seen}");
    assert!(seen.contains("--resume`"), "{seen}");
    let saved: Vec<String> = std::fs::read_dir(cut.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(saved, ["shard-1-of-8.shard"], "{seen}");
    let resumed = kairos(&args(&cut, &["--resume"])).output().unwrap();
    let e = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{e}");
    assert!(e.contains("(1 saved)"), "{e}");
    assert_eq!(reports(&cut), want, "resumed reports differ: {e}");
    assert!(!cut.join("runs").exists());
}

//! A command whose reader goes away (`kairos replay log.swf | head -1`) ends quietly with 0,
//! as `cat` does, instead of panicking with "failed printing to stdout: Broken pipe".

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Runs `kairos args` with stdout a pipe whose reading end is closed before the command
/// writes (it is closed as soon as the process starts; the command first loads its input);
/// returns the exit code and stderr.
fn into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kairos binary runs");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), stderr)
}

fn assert_quiet(args: &[&str]) {
    let (code, stderr) = into_closed_pipe(args);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(!stderr.contains("error:"), "{args:?}: {stderr}");
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
}

#[test]
fn replay_into_a_closed_pipe_exits_quietly() {
    let log = common::swf("easy_backfills.swf");
    assert_quiet(&["replay", log.to_str().unwrap(), "--policy", "easy"]);
}

#[test]
fn run_into_a_closed_pipe_exits_quietly() {
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/essc_small.toml");
    let s = scenario.to_str().unwrap();
    assert_quiet(&["run", s, "--heuristic", "max-upe"]);
    assert_quiet(&["run", s, "--heuristic", "max-upe", "--json"]);
}

/// A failure is still reported when stdout is closed: only the broken pipe is quiet.
#[test]
fn a_failure_into_a_closed_pipe_is_still_reported() {
    let (code, stderr) = into_closed_pipe(&["replay", "/nonexistent/x.swf", "--policy", "easy"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("/nonexistent/x.swf"), "{stderr}");
}

//! Issue 27's SWF and trace-output failures, each pinned through the binary: a machine size
//! from a header or `--procs` checked before the replay allocates from it, a BOM read,
//! repeated job numbers and submit times out of order counted (or refused under
//! `--strict`), and `replay`, `run` and `generate-swf` outputs that never destroy an input
//! or an existing file without `--force`, written whole or not at all.

use std::path::{Path, PathBuf};

mod common;
use common::kairos;

/// Issue 27's SWF inputs, checked in as the `swf` fuzz target's corpus.
fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus/swf")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `kairos args`: its exit code and its standard error.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = kairos(args);
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!e.contains("panicked"), "{args:?}: {e}");
    (out.status.code(), e)
}

/// Expects exit 1 and a message holding every one of `want`.
fn fails_with(args: &[&str], want: &[&str]) {
    let (code, e) = run(args);
    assert_eq!(code, Some(1), "{args:?}: {e}");
    for w in want {
        assert!(e.contains(w), "{args:?}: wanted {w:?} in {e}");
    }
}

const JOB: &str = "1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n";

/// `; MaxProcs: 4294967295` aborted Conservative ("memory allocation of 105827994148800
/// bytes failed"), and so did `--procs 4294967295`: now an error naming the size, the
/// memory and the limit, before anything is allocated. The processor pool, which only
/// counts processors, replays it.
#[test]
fn robust_swf_machine_size_checked_before_allocation() {
    let log = corpus("issue27_maxprocs_4294967295.swf");
    for policy in ["fcfs", "easy", "conservative"] {
        fails_with(
            &["replay", s(&log), "--policy", policy],
            &[
                "4294967295 processors",
                "over the limit of 17.2 GB",
                "--allocation pool",
            ],
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.swf");
    std::fs::write(&small, JOB).unwrap();
    fails_with(
        &[
            "replay",
            s(&small),
            "--policy",
            "easy",
            "--procs",
            "4294967295",
        ],
        &["4294967295 processors", "1 jobs"],
    );
    let (code, e) = run(&[
        "replay",
        s(&log),
        "--policy",
        "conservative",
        "--allocation",
        "pool",
    ]);
    assert_eq!(code, Some(0), "{e}");
    // A job larger than the machine: an error naming the file, the line and the sizes.
    fails_with(
        &["replay", s(&small), "--policy", "easy", "--procs", "2"],
        &["small.swf", "line 1", "4"],
    );
}

/// A log starting with a UTF-8 byte-order mark was rejected ("truncated line: 3 of 18
/// fields"): the mark is now skipped, by the batch reader and the stream alike.
#[test]
fn robust_swf_bom_is_read() {
    let log = corpus("issue27_bom.swf");
    for allocation in ["nodes", "pool"] {
        let out = kairos(&[
            "replay",
            s(&log),
            "--policy",
            "easy",
            "--allocation",
            allocation,
        ]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{allocation}: {e}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["procs"], 4,
            "{allocation}: the header's MaxProcs is read: {v}"
        );
    }
}

/// Two rows with job number 1 went into `jobs.csv` without a word. Now a warning counts
/// them (each line is replayed as its own job), and `--strict` refuses the log naming the
/// line and the field.
#[test]
fn robust_swf_duplicate_job_numbers() {
    let log = corpus("issue27_duplicate_id.swf");
    let dir = tempfile::tempdir().unwrap();
    for allocation in ["nodes", "pool"] {
        let csv = dir.path().join(format!("{allocation}.csv"));
        let (code, e) = run(&[
            "replay",
            s(&log),
            "--policy",
            "easy",
            "--allocation",
            allocation,
            "--jobs-out",
            s(&csv),
        ]);
        assert_eq!(code, Some(0), "{e}");
        assert!(
            e.contains("warning:")
                && e.contains("1 job lines repeat an earlier job number (first: line 3, job 1"),
            "{allocation}: {e}"
        );
        let rows = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(rows.lines().count(), 3, "both jobs replayed: {rows}");
        fails_with(
            &[
                "replay",
                s(&log),
                "--policy",
                "easy",
                "--allocation",
                allocation,
                "--strict",
            ],
            &[
                "issue27_duplicate_id.swf:3: field 1 (job number): job 1 repeats the number of line 2",
            ],
        );
    }
}

/// Submit times out of order: counted in a warning and replayed in submit-time order;
/// `--strict` refuses them naming the line and field 2. (A streamed replay cannot reorder:
/// there it is always an error.)
#[test]
fn robust_swf_unsorted_submit_times() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("unsorted.swf");
    std::fs::write(
        &log,
        "; MaxProcs: 4\n\
         1 50 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n\
         2 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n\
         3 60 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n",
    )
    .unwrap();
    let (code, e) = run(&["replay", s(&log), "--policy", "fcfs"]);
    assert_eq!(code, Some(0), "{e}");
    assert!(
        e.contains("1 jobs are submitted before an earlier line's job (first: line 3, job 2"),
        "{e}"
    );
    fails_with(
        &["replay", s(&log), "--policy", "fcfs", "--strict"],
        &["unsorted.swf:3: field 2 (submit time): job 2 is submitted before the job of line 2"],
    );
    fails_with(
        &[
            "replay",
            s(&log),
            "--policy",
            "fcfs",
            "--allocation",
            "pool",
        ],
        &["unsorted.swf:3:", "must be sorted by submit time"],
    );
}

/// A corrupt field: the file, the line and the field, exit 1.
#[test]
fn robust_swf_corrupt_field_names_file_line_field() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("corrupt.swf");
    std::fs::write(
        &log,
        format!("; MaxProcs: 4\n{JOB}2 0 0 1x 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"),
    )
    .unwrap();
    for allocation in ["nodes", "pool"] {
        fails_with(
            &[
                "replay",
                s(&log),
                "--policy",
                "easy",
                "--allocation",
                allocation,
            ],
            &["corrupt.swf:3: field 4 (run time): \"1x\" is not a number"],
        );
    }
}

/// `kairos replay a.swf --jobs-out a.swf` replaced the log with CSV and exited 0; so did
/// `--summary-out`. Now each is refused before any work, as is an existing file without
/// `--force`; with it, the file is replaced whole.
#[test]
fn robust_replay_outputs_never_destroy_the_log_or_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.swf");
    let text = format!("; MaxProcs: 4\n{JOB}");
    std::fs::write(&log, &text).unwrap();
    for flag in ["--jobs-out", "--summary-out"] {
        for allocation in ["nodes", "pool"] {
            fails_with(
                &[
                    "replay",
                    s(&log),
                    "--policy",
                    "easy",
                    "--allocation",
                    allocation,
                    flag,
                    s(&log),
                    "--force",
                ],
                &["would destroy the input"],
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&log).unwrap(), text);
    let csv = dir.path().join("jobs.csv");
    std::fs::write(&csv, "precious").unwrap();
    fails_with(
        &["replay", s(&log), "--policy", "easy", "--jobs-out", s(&csv)],
        &["jobs.csv: exists; pass --force"],
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "precious");
    fails_with(
        &[
            "replay",
            s(&log),
            "--policy",
            "easy",
            "--jobs-out",
            s(&csv),
            "--summary-out",
            s(&csv),
            "--force",
        ],
        &["--summary-out", "is also the file --jobs-out writes"],
    );
    let (code, e) = run(&[
        "replay",
        s(&log),
        "--policy",
        "easy",
        "--jobs-out",
        s(&csv),
        "--force",
    ]);
    assert_eq!(code, Some(0), "{e}");
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .starts_with("job_id,submit"));
    // A replay that fails leaves neither its file nor a temporary behind.
    let bad = dir.path().join("bad.csv");
    fails_with(
        &[
            "replay",
            s(&log),
            "--policy",
            "easy",
            "--procs",
            "2",
            "--jobs-out",
            s(&bad),
        ],
        &["line 2"],
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.swf", "jobs.csv"]);
}

/// `kairos generate-swf -o` over an existing file needs `--force`; `kairos run
/// --trace-out` over the scenario file, or an existing file, is refused.
#[test]
fn robust_generate_and_run_outputs_need_force() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("g.swf");
    let gen = |extra: &[&str]| {
        let mut a = vec![
            "generate-swf",
            "--model",
            "lublin99",
            "--procs",
            "64",
            "--jobs",
            "20",
            "-o",
            s(&log),
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    assert_eq!(gen(&[]).0, Some(0));
    let first = std::fs::read(&log).unwrap();
    let (code, e) = gen(&[]);
    assert_eq!(code, Some(1));
    assert!(e.contains("exists; pass --force"), "{e}");
    assert_eq!(gen(&["--force"]).0, Some(0));
    assert_eq!(std::fs::read(&log).unwrap(), first, "same seed, same log");

    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/essc_small.toml");
    let copy = dir.path().join("s.toml");
    std::fs::copy(&scenario, &copy).unwrap();
    fails_with(
        &[
            "run",
            s(&copy),
            "--heuristic",
            "easy",
            "--trace-out",
            s(&copy),
            "--force",
        ],
        &["would destroy the input"],
    );
    let existing = dir.path().join("t.csv");
    std::fs::write(&existing, "keep").unwrap();
    fails_with(
        &[
            "run",
            s(&copy),
            "--heuristic",
            "easy",
            "--trace-out",
            s(&existing),
        ],
        &["t.csv: exists; pass --force"],
    );
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep");
}

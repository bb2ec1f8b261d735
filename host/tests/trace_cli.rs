//! `kairos replay` through the real binary: its outputs, and a clear message with a non-zero
//! exit (never a panic) for every bad input.

mod common;
use common::{kairos, swf as data};

/// Runs `kairos replay` on `file` with `extra` flags, expecting a failed run (exit 1);
/// returns stderr.
fn fails(file: &str, extra: &[&str]) -> String {
    fails_with(file, extra, 1)
}

/// Runs `kairos replay` on `file` with `extra` flags, expecting exit `code` (2: a bad command
/// line); returns stderr.
fn fails_with(file: &str, extra: &[&str], code: i32) -> String {
    let path = data(file);
    let mut args = vec!["replay", path.to_str().unwrap(), "--policy", "easy"];
    args.extend_from_slice(extra);
    let out = kairos(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{file}: {stderr}");
    assert!(!stderr.contains("panicked"), "{file}: {stderr}");
    assert!(out.stdout.is_empty(), "{file}: printed a summary");
    stderr
}

#[test]
fn trace_truncated_line() {
    let e = fails("truncated.swf", &[]);
    assert!(
        e.contains("truncated.swf:3: truncated line: 9 of 18 fields, field 10 (requested memory) is missing"),
        "{e}"
    );
}

#[test]
fn trace_letter_in_a_numeric_field() {
    let e = fails("letter.swf", &[]);
    assert!(
        e.contains(r#"letter.swf:3: field 4 (run time): "1O" is not a number"#),
        "{e}"
    );
}

#[test]
fn trace_empty_file() {
    let e = fails("empty.swf", &[]);
    assert!(e.contains("empty.swf: no jobs"), "{e}");
}

#[test]
fn trace_no_machine_size() {
    let e = fails("no_max_procs.swf", &[]);
    assert!(
        e.contains("has no MaxProcs or MaxNodes header; pass --procs N"),
        "{e}"
    );
    // With --procs it replays.
    let path = data("no_max_procs.swf");
    let out = kairos(&[
        "replay",
        path.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--procs",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = fails_with("no_max_procs.swf", &["--procs", "0"], 2);
    assert!(e.contains("--procs must be at least 1"), "{e}");
}

#[test]
fn trace_job_larger_than_the_machine() {
    let e = fails("too_large.swf", &[]);
    assert!(
        e.contains(
            "line 5 (job 2): needs 8 processors but the machine has 4; \
             pass --clean strong to drop such jobs"
        ),
        "{e}"
    );
    // --procs 2 makes job 2 too large too; job 1 (2 procs) fits.
    let e = fails("too_large.swf", &["--procs", "1"]);
    assert!(
        e.contains("line 4 (job 1): needs 2 processors but the machine has 1"),
        "{e}"
    );
}

#[test]
fn trace_bad_command_lines_exit_2() {
    let path = data("easy_backfills.swf");
    let p = path.to_str().unwrap();
    for args in [
        vec!["replay", p],
        vec!["replay", p, "--policy", "sjf"],
        vec!["replay", p, "--policy", "easy", "--clean", "weak"],
        vec!["replay", p, "--policy", "easy", "--procs", "x"],
    ] {
        let out = kairos(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn trace_a_missing_file_is_an_error() {
    let e = fails("no_such_file.swf", &[]);
    assert!(e.contains("no_such_file.swf: cannot read"), "{e}");
}

/// --clean strong drops the job larger than the machine, and the summary says so.
#[test]
fn trace_clean_strong_drops_it_and_writes_both_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    let json = dir.path().join("summary.json");
    let path = data("too_large.swf");
    let out = kairos(&[
        "replay",
        path.to_str().unwrap(),
        "--policy",
        "conservative",
        "--clean",
        "strong",
        "--jobs-out",
        csv.to_str().unwrap(),
        "--summary-out",
        json.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("larger than machine 1"), "{stderr}");
    // Jobs 1 and 3 (2 procs each, 10 s) run side by side on the 4 processors.
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "job_id,submit,start,end,procs\n\
         1,0.000000,0.000000,10.000000,2\n\
         3,2.000000,2.000000,12.000000,2\n"
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(file, printed);
    assert_eq!(file["policy"], "conservative");
    assert_eq!(file["procs"], 4);
    assert_eq!(file["jobs"], 2);
    assert_eq!(file["mean_wait_s"], 0.0);
    assert_eq!(file["max_wait_s"], 0.0);
    assert_eq!(file["mean_bsld"], 1.0);
    // 2 x 10 x 2 processor-seconds over 4 x 12.
    assert_eq!(file["utilization"], 40.0 / 48.0);
    assert_eq!(file["makespan_s"], 12.0);
    assert_eq!(file["skipped_bad_lines"], 0);
    assert_eq!(file["clean"]["input"], 3);
    assert_eq!(file["clean"]["kept"], 2);
    assert_eq!(file["clean"]["dropped_larger_than_machine"], 1);
    for key in ["wall_time_s", "jobs_per_second", "passes"] {
        assert!(file[key].as_f64().unwrap() > 0.0, "{key}");
    }
}

/// --skip-bad-lines replays the good lines and counts the bad ones.
#[test]
fn trace_skip_bad_lines() {
    for file in ["truncated.swf", "letter.swf"] {
        let path = data(file);
        let out = kairos(&[
            "replay",
            path.to_str().unwrap(),
            "--policy",
            "fcfs",
            "--skip-bad-lines",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (s["jobs"].as_u64(), s["skipped_bad_lines"].as_u64()),
            (Some(1), Some(1))
        );
        assert!(s.get("clean").is_none());
    }
}

/// The per-job CSV of easy_backfills.swf under each policy (see trace_schedules.rs).
#[test]
fn trace_jobs_csv_per_policy() {
    let dir = tempfile::tempdir().unwrap();
    let path = data("easy_backfills.swf");
    let expected = [
        ("fcfs", "3,2.500000,20.000000,24.250000,1"),
        ("easy", "3,2.500000,2.500000,6.750000,1"),
        ("conservative", "3,2.500000,2.500000,6.750000,1"),
    ];
    for (policy, job3) in expected {
        let csv = dir.path().join(format!("{policy}.csv"));
        let out = kairos(&[
            "replay",
            path.to_str().unwrap(),
            "--policy",
            policy,
            "--jobs-out",
            csv.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&csv).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "job_id,submit,start,end,procs",
                "1,0.000000,0.000000,10.000000,3",
                "2,1.000000,10.000000,20.000000,4",
                job3
            ],
            "{policy}"
        );
    }
}

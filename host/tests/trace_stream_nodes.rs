//! The node allocation with the log streamed (`kairos replay --allocation nodes --stream`,
//! `trace::replay_file_nodes`): the loaded log's jobs file and summary on the three shared
//! logs, plain and gzip; the same again when the first ring of task slots is far too short
//! and the replay starts over; and the errors through the binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use kairos_host::trace::{self, JobRecord, LoadOptions, Policy, ReplayOptions};

fn log(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/traces")
        .join(name)
}

const STRONG: LoadOptions = LoadOptions {
    procs: None,
    clean_strong: true,
    skip_bad_lines: false,
    strict: false,
};

fn csv(records: &[JobRecord]) -> Vec<u8> {
    let mut out = Vec::new();
    trace::write_jobs_csv(&mut out, records).unwrap();
    out
}

/// The streamed replay of `path` against the loaded one of `name`: the jobs file, the
/// summary but its wall time, the counts and the cleaning report.
fn same_as_loaded(name: &str, path: &Path, policy: Policy, first_slots: usize) {
    let loaded = trace::load(&log(name), &STRONG).unwrap();
    let options = ReplayOptions::new(policy);
    let mem = trace::replay_trace_with(&loaded.jobs, loaded.procs, &options).unwrap();
    let mut out = Vec::new();
    let s = trace::replay_file_nodes_from(path, &STRONG, &options, Some(&mut out), first_slots)
        .unwrap();
    assert!(out == csv(&mem.jobs), "{} under {policy}", path.display());
    let (a, b) = (s.summary, mem.summary);
    assert_eq!(
        (a.jobs, a.mean_wait_s, a.max_wait_s, a.mean_bsld),
        (b.jobs, b.mean_wait_s, b.max_wait_s, b.mean_bsld)
    );
    assert_eq!((a.utilization, a.makespan_s), (b.utilization, b.makespan_s));
    assert_eq!(s.counts, mem.counts);
    assert_eq!(s.clean, loaded.clean);
}

#[test]
fn the_stream_replays_as_the_loaded_log_plain_and_gzip() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "KTH-SP2-1996-2.1.swf",
        "CEA-Curie-2011-2.1-sample.swf",
        "UniLu-Gaia-2014-2.swf",
    ] {
        same_as_loaded(name, &log(name), Policy::Easy, trace::STREAM_RING_SLOTS);
        let gz = dir.path().join(format!("{name}.gz"));
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::fast(),
        );
        enc.write_all(&std::fs::read(log(name)).unwrap()).unwrap();
        enc.finish().unwrap();
        same_as_loaded(name, &gz, Policy::Fcfs, trace::STREAM_RING_SLOTS);
    }
}

/// A first ring of 8 slots is too short for KTH-SP2 (hundreds of jobs wait at once): the
/// replay starts over with longer ones, and the file still holds every job once, in order.
#[test]
fn a_ring_too_short_starts_over_and_writes_each_job_once() {
    let name = "KTH-SP2-1996-2.1.swf";
    for policy in [Policy::Easy, Policy::Conservative] {
        same_as_loaded(name, &log(name), policy, 8);
    }
}

fn kairos(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .output()
        .unwrap()
}

const LINE: &str = "-1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1";

#[test]
fn stream_errors_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let big = write(
        "big.swf",
        &format!("; MaxProcs: 4\n1 0 {LINE}\n2 5 -1 10 8 -1 -1 8 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"),
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["replay", &big, "--policy", "easy", "--stream"];
        args.extend_from_slice(extra);
        let out = kairos(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&[]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("big.swf: cannot replay") && err.contains("line 3 (job 2): needs 8"),
        "{err}"
    );
    for (extra, says) in [
        (&["--allocation", "pool"][..], "the pool always streams"),
        (&["--first", "1"][..], "--first and --window"),
        (
            &["--busy-watts", "10"][..],
            "--batsim-out and a power model",
        ),
        (&["--value-seed", "1"][..], "value functions"),
        (&["--warmup", "5"][..], "shape the analysis"),
    ] {
        let (code, err) = run(extra);
        assert_eq!(code, Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    let bad = write(
        "bad.swf",
        &format!("; MaxProcs: 4\n1 0 {LINE}\n2 5 -1 1x 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"),
    );
    let out = kairos(&["replay", &bad, "--policy", "fcfs", "--stream"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.swf:3: field 4 (run time)"), "{err}");
    let unsorted = write(
        "unsorted.swf",
        &format!("; MaxProcs: 4\n1 50 {LINE}\n2 20 {LINE}\n"),
    );
    let out = kairos(&["replay", &unsorted, "--policy", "easy", "--stream"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unsorted.swf:3: job 2") && err.contains("sorted by submit time"),
        "{err}"
    );
}

//! The three real logs of `../shared/traces/`: each loads whole and cleans without error;
//! KTH-SP2 replays completely under EASY through the binary, and its schedule never uses more
//! than the machine's 100 processors.
//!
//! CEA-Curie (MaxProcs 93,312) is not replayed here: the core keeps one timeline per node
//! and every pass and every earliest-start query walks all of them, so a replay takes
//! minutes even in release (see docs/traces.md for the measurements).
//!
//! The tables of docs/traces.md come from the ignored test at the end:
//! `cargo test -p kairos-host --release --test trace_logs -- --ignored --nocapture`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use kairos_host::trace::{self, LoadOptions, Policy};

fn log(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/traces")
        .join(name)
}

const KTH: &str = "KTH-SP2-1996-2.1.swf";
const CURIE: &str = "CEA-Curie-2011-2.1-sample.swf";
const GAIA: &str = "UniLu-Gaia-2014-2.swf";

const STRONG: LoadOptions = LoadOptions {
    procs: None,
    clean_strong: true,
    skip_bad_lines: false,
    strict: false,
};

#[test]
fn trace_every_log_loads_and_cleans_whole() {
    // (file, machine processors, jobs kept by strong cleaning: see swf's own tests).
    for (name, procs, kept) in [
        (KTH, 100, 28_481),
        (CURIE, 93_312, 29_998),
        (GAIA, 2004, 51_859),
    ] {
        let t = trace::load(&log(name), &STRONG).unwrap();
        assert_eq!(
            (t.procs, t.jobs.len(), t.skipped_bad_lines),
            (procs, kept, 0),
            "{name}"
        );
        assert_eq!(t.clean.unwrap().kept, kept);
        assert!(t.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        assert!(t
            .jobs
            .iter()
            .all(|j| j.procs <= procs && j.runtime <= j.request));
    }
}

/// Parses a time of the jobs CSV (`12.500000`) into microseconds.
fn micros(s: &str) -> u64 {
    let (whole, frac) = s.split_once('.').expect("six decimals");
    assert_eq!(frac.len(), 6, "{s}");
    whole.parse::<u64>().unwrap() * 1_000_000 + frac.parse::<u64>().unwrap()
}

#[test]
fn trace_kth_under_easy_completes_and_never_oversubscribes() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("kth-easy.csv");
    let path = log(KTH);
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["replay", path.to_str().unwrap(), "--policy", "easy"])
        .args(["--clean", "strong", "--jobs-out", csv.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["jobs"], 28_481);

    // Every cleaned job appears once, runs its (clamped) run time, never before its submit.
    let loaded = trace::load(&path, &STRONG).unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("job_id,submit,start,end,procs"));
    let mut rows = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 5, "{line}");
        let id: u64 = f[0].parse().unwrap();
        let (submit, start, end) = (micros(f[1]), micros(f[2]), micros(f[3]));
        let procs: u64 = f[4].parse().unwrap();
        rows.push((id, submit, start, end, procs));
    }
    assert_eq!(rows.len(), loaded.jobs.len());
    let ids: HashSet<u64> = rows.iter().map(|r| r.0).collect();
    assert_eq!(ids.len(), rows.len(), "a job appears twice");
    for (row, job) in rows.iter().zip(&loaded.jobs) {
        let &(id, submit, start, end, procs) = row;
        assert_eq!((id, submit, procs), (job.id, job.submit, job.procs as u64));
        assert!(start >= submit, "job {id} starts before its submit");
        assert_eq!(end - start, job.runtime, "job {id}");
    }

    // Sweep over start (+procs) and end (-procs) events, ends first at equal times.
    let mut events: Vec<(u64, i64)> = Vec::with_capacity(2 * rows.len());
    for &(_, _, start, end, procs) in &rows {
        events.push((start, procs as i64));
        events.push((end, -(procs as i64)));
    }
    events.sort_unstable();
    let mut used = 0i64;
    let mut peak = 0i64;
    for (t, delta) in events {
        used += delta;
        assert!(used <= 100, "{used} processors in use at {t} us");
        peak = peak.max(used);
    }
    assert_eq!(used, 0);
    assert_eq!(peak, 100, "the log fills the machine at some point");
}

/// Strict FCFS needs no node identities: a processor count gives the same schedule. This
/// independent count-based FCFS must agree with the core's on every KTH-SP2 job.
#[test]
fn trace_kth_fcfs_matches_a_processor_count_reference() {
    let t = trace::load(&log(KTH), &STRONG).unwrap();
    let core = trace::replay_trace(&t.jobs, t.procs, Policy::Fcfs).unwrap();
    // The reference: at each instant, completions free processors, arrivals queue up, then
    // jobs start from the head of the queue while they fit.
    let mut free = t.procs as u64;
    let mut running: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u64)>> =
        Default::default();
    let mut queue = std::collections::VecDeque::new();
    let mut starts = vec![u64::MAX; t.jobs.len()];
    let mut next = 0;
    while next < t.jobs.len() || !running.is_empty() {
        let t_arrival = t.jobs.get(next).map(|j| j.submit);
        let t_done = running.peek().map(|r| r.0 .0);
        let now = t_arrival.into_iter().chain(t_done).min().unwrap();
        while let Some(&std::cmp::Reverse((end, procs))) = running.peek() {
            if end != now {
                break;
            }
            running.pop();
            free += procs;
        }
        while next < t.jobs.len() && t.jobs[next].submit == now {
            queue.push_back(next);
            next += 1;
        }
        while let Some(&k) = queue.front() {
            let j = &t.jobs[k];
            if j.procs as u64 > free {
                break;
            }
            queue.pop_front();
            free -= j.procs as u64;
            starts[k] = now;
            running.push(std::cmp::Reverse((now + j.runtime, j.procs as u64)));
        }
    }
    let core_starts: Vec<u64> = core.jobs.iter().map(|j| j.start).collect();
    assert_eq!(core_starts, starts);
}

/// One line of a markdown table per policy, for docs/traces.md.
fn table(path: &Path, name: &str) {
    let t = trace::load(path, &STRONG).unwrap();
    println!(
        "\n{name}: {} processors, {} jobs after --clean strong\n",
        t.procs,
        t.jobs.len()
    );
    println!("| policy | jobs | mean wait (s) | max wait (s) | mean bsld | utilization | makespan (s) | wall time (s) | jobs/s | passes |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for policy in Policy::ALL {
        match trace::replay_trace(&t.jobs, t.procs, policy) {
            Ok(r) => {
                let s = r.summary;
                println!(
                    "| {policy} | {} | {:.1} | {:.0} | {:.2} | {:.4} | {:.0} | {:.3} | {:.0} | {} |",
                    s.jobs,
                    s.mean_wait_s,
                    s.max_wait_s,
                    s.mean_bsld,
                    s.utilization,
                    s.makespan_s,
                    s.wall_time_s,
                    s.jobs_per_second,
                    r.counts.passes
                );
            }
            Err(e) => println!("| {policy} | failed: {e} |"),
        }
    }
}

/// Replays KTH-SP2 and Gaia under every policy and prints the tables of docs/traces.md
/// (Curie is measured with the binary: it takes minutes).
#[test]
#[ignore]
fn trace_summaries_for_the_docs() {
    for name in [KTH, GAIA] {
        table(&log(name), name);
    }
}

//! Exact schedules of small hand-made SWF logs (tests/data/swf/) under strict FCFS, EASY and
//! Conservative backfilling, each derived by hand below.
//!
//! Conventions of the derivations: all machines have 4 one-processor nodes, numbered 0-3.
//! Times are seconds. A job runs `[start, start + run)`; it is planned with its request. A
//! pass (scheduling decision) runs at every instant where a job completes or arrives, after
//! the completions and arrivals of that instant. When several sets of nodes are free, the
//! core picks those that leave the fewest new idle gaps, then the lowest indices, which is
//! what decides which node stays free in `conservative_vs_easy`.

use std::path::PathBuf;

use kairos_host::swf::ReplayJob;
use kairos_host::trace::{self, JobRecord, LoadOptions, Policy, TraceResult};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/swf")
        .join(name)
}

fn replay(name: &str, policy: Policy) -> TraceResult {
    let loaded = trace::load(&data(name), &LoadOptions::default()).unwrap();
    assert_eq!(loaded.procs, 4);
    let result = trace::replay_trace(&loaded.jobs, loaded.procs, policy).unwrap();
    assert_eq!(result.jobs.len(), loaded.jobs.len());
    assert!(trace::peak_procs(&result.jobs) <= 4);
    result
}

/// Start times in seconds, in job-number order.
fn starts(name: &str, policy: Policy) -> Vec<f64> {
    let mut jobs: Vec<JobRecord> = replay(name, policy).jobs;
    jobs.sort_by_key(|j| j.id);
    jobs.iter().map(|j| j.start as f64 / 1e6).collect()
}

/// easy_backfills.swf (id: submit, procs, run / request):
/// 1: 0, 3 procs, 10/10; 2: 1, 4 procs, 10/10; 3: 2.5, 1 proc, 4.25/5.
///
/// - t=0: job 1 starts on nodes 0-2 until 10; node 3 is free.
/// - t=1: job 2 needs 4 nodes; only node 3 is free, so it waits. EASY and Conservative
///   reserve it at 10 (when job 1 ends).
/// - t=2.5: job 3 needs 1 node for 5 s (its request). FCFS: job 2 is ahead and blocked,
///   so job 3 waits. EASY / Conservative: node 3 is free over [2.5, 7.5), which ends before
///   job 2's reservation at 10, so job 3 starts now and ends at 2.5 + 4.25 = 6.75.
/// - t=10: job 1 ends; job 2 starts (all 4 nodes) until 20.
/// - FCFS only: t=20, job 2 ends and job 3 starts, until 24.25.
#[test]
fn trace_easy_backfills_a_job_that_fcfs_keeps_waiting() {
    let f = "easy_backfills.swf";
    assert_eq!(starts(f, Policy::Fcfs), [0.0, 10.0, 20.0]);
    assert_eq!(starts(f, Policy::Easy), [0.0, 10.0, 2.5]);
    assert_eq!(starts(f, Policy::Conservative), [0.0, 10.0, 2.5]);
}

/// The summary of easy_backfills.swf under EASY, by hand:
/// waits 0, 9, 0: mean 3 s, max 9 s; runs 10, 10, 4.25;
/// bounded slowdowns max(1, (w + r) / max(r, 10)): 1, 1.9, max(1, 4.25 / 10) = 1: mean 1.3;
/// area 3 x 10 + 4 x 10 + 1 x 4.25 = 74.25 processor-seconds over 4 x 20 (makespan 20 - 0):
/// utilization 0.928125.
#[test]
fn trace_summary_metrics_by_hand() {
    let r = replay("easy_backfills.swf", Policy::Easy);
    let s = r.summary;
    assert_eq!(s.jobs, 3);
    assert_eq!(s.mean_wait_s, 3.0);
    assert_eq!(s.max_wait_s, 9.0);
    assert!((s.mean_bsld - 1.3).abs() < 1e-12, "{}", s.mean_bsld);
    assert_eq!(s.utilization, 0.928125);
    assert_eq!(s.makespan_s, 20.0);
    assert!(s.wall_time_s > 0.0 && s.jobs_per_second > 0.0);
    // One pass per instant with an arrival or a completion: 0, 1, 2.5, 6.75, 10, 20.
    assert_eq!(r.counts.passes, 6);
    assert_eq!(r.counts.completions, 3);
}

/// conservative_vs_easy.swf: 1: 0, 3 procs, 10/10; 2: 1, 3 procs, 10/10;
/// 3: 2, 4 procs, 10/10; 4: 3, 1 proc, 30/30.
///
/// - t=0: job 1 starts on nodes 0-2 until 10; node 3 is free.
/// - t=1: job 2 waits; it is reserved at 10 on nodes 0-2 (taking node 3 would leave an idle
///   gap before 10 on it, nodes 0-2 are busy until exactly 10).
/// - t=2: job 3 (4 nodes) can start at 20 at the earliest. Conservative reserves it over
///   [20, 30) on all 4 nodes; EASY has already given its one reservation to job 2.
/// - t=3: job 4 needs 1 node for 30 s. EASY: node 3 is free from now on and job 2's
///   reservation does not use it, so job 4 starts at 3 and holds node 3 until 33.
///   Conservative: node 3 is free only until job 3's reservation at 20, too short, so job 4
///   is reserved after job 3, at 30. FCFS: job 2 is blocked, so job 4 waits.
/// - t=10: job 2 starts. t=20: job 2 ends. FCFS and Conservative: job 3 starts at 20.
///   EASY: node 3 is busy until 33, so job 3 (all 4 nodes) starts at 33: the backfill did not
///   delay job 2 (the reservation) but delayed job 3 by 13 s.
/// - FCFS: job 4 starts at 30 when job 3 ends, as in Conservative.
#[test]
fn trace_easy_backfill_delays_the_second_waiting_job_conservative_does_not() {
    let f = "conservative_vs_easy.swf";
    assert_eq!(starts(f, Policy::Fcfs), [0.0, 10.0, 20.0, 30.0]);
    assert_eq!(starts(f, Policy::Easy), [0.0, 10.0, 33.0, 3.0]);
    assert_eq!(starts(f, Policy::Conservative), [0.0, 10.0, 20.0, 30.0]);
}

/// early_completion.swf: 1: 0, 2 procs, 30/30; 2: 0, 2 procs, runs 5 of a 20 s request;
/// 3: 1, 4 procs, 10/10; 4: 2, 2 procs, 10/10.
///
/// - t=0: jobs 1 (nodes 0-1, until 30) and 2 (nodes 2-3, planned until 20) start.
/// - t=1: job 3 needs all 4 nodes: reserved at 30 (EASY, Conservative); FCFS: waits.
/// - t=2: job 4 needs 2 nodes for 10 s. No 2 nodes are free now. Conservative reserves
///   [20, 30) on nodes 2-3 (after job 2's planned end, before job 3). EASY: it cannot
///   start now and the one reservation is taken, so it waits. FCFS: waits behind job 3.
/// - t=5: job 2 ends early. EASY: job 3 still cannot start before 30, and job 4 fits on
///   nodes 2-3 over [5, 15), before 30: it backfills at 5. Conservative compresses: job 3
///   stays at 30, job 4 moves from 20 to 5. FCFS: job 3 is still blocked, job 4 waits.
/// - t=30: job 1 ends, job 3 starts until 40. FCFS: job 4 starts at 40.
#[test]
fn trace_an_early_completion_lets_a_backfill_start_sooner() {
    let f = "early_completion.swf";
    assert_eq!(starts(f, Policy::Fcfs), [0.0, 0.0, 30.0, 40.0]);
    assert_eq!(starts(f, Policy::Easy), [0.0, 0.0, 30.0, 5.0]);
    assert_eq!(starts(f, Policy::Conservative), [0.0, 0.0, 30.0, 5.0]);
}

/// on_time_completion.swf: as early_completion.swf, but job 2 runs its whole 20 s.
///
/// Conservative reserved job 4 at 20 and keeps it. EASY: at t=20 job 2 ends exactly as
/// planned, and the pass then starts job 4 over [20, 30), before job 3's reservation at
/// 30 (without a pass at on-time completions, job 4 would wait for the next arrival).
/// FCFS as before.
#[test]
fn trace_an_on_time_completion_also_triggers_a_pass() {
    let f = "on_time_completion.swf";
    assert_eq!(starts(f, Policy::Fcfs), [0.0, 0.0, 30.0, 40.0]);
    assert_eq!(starts(f, Policy::Easy), [0.0, 0.0, 30.0, 20.0]);
    assert_eq!(starts(f, Policy::Conservative), [0.0, 0.0, 30.0, 20.0]);
}

/// Ends are start + run time; a run time above the request ends at the request.
#[test]
fn trace_ends_are_start_plus_run_time() {
    let job = |id, submit, runtime, request, procs| ReplayJob {
        id,
        submit,
        runtime,
        request,
        procs,
        line: id as usize,
    };
    // Job 1 runs 7 s of a 5 s request (not cleaned): killed at 5 s. Job 2 (2 procs) waits.
    let jobs = [job(1, 0, 7_000_000, 5_000_000, 1), job(2, 1, 1, 3, 2)];
    let r = trace::replay_trace(&jobs, 2, Policy::Fcfs).unwrap();
    assert_eq!((r.jobs[0].start, r.jobs[0].end), (0, 5_000_000));
    assert_eq!((r.jobs[1].start, r.jobs[1].end), (5_000_000, 5_000_001));
}

/// Jobs need not be sorted; records come back in the order given.
#[test]
fn trace_unsorted_input_keeps_its_order() {
    let job = |id, submit| ReplayJob {
        id,
        submit,
        runtime: 10,
        request: 10,
        procs: 1,
        line: id as usize,
    };
    let r = trace::replay_trace(&[job(2, 5), job(1, 0)], 1, Policy::Easy).unwrap();
    let got: Vec<(u64, u64)> = r.jobs.iter().map(|j| (j.id, j.start)).collect();
    assert_eq!(got, [(2, 10), (1, 0)]);
}

/// A job larger than the machine is an error naming its line, not a panic.
#[test]
fn trace_a_job_larger_than_the_machine_is_an_error() {
    let jobs = [ReplayJob {
        id: 7,
        submit: 0,
        runtime: 1,
        request: 1,
        procs: 5,
        line: 12,
    }];
    let e = trace::replay_trace(&jobs, 4, Policy::Easy).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 12 (job 7): needs 5 processors but the machine has 4; \
         pass --clean strong to drop such jobs"
    );
}

#[test]
fn trace_seconds_to_the_microsecond() {
    assert_eq!(trace::secs(12_500_000), "12.500000");
    assert_eq!(trace::secs(0), "0.000000");
    assert_eq!(trace::secs(43_603_464_000_001), "43603464.000001");
}

/// easy_node_choice.swf: 1: 0, 2 procs, 100/100; 2: 1, 3 procs, 10/10; 3: 2, 1 proc, 10/10;
/// 4: 3, 1 proc, 200/200. Where the core's reservations, which hold specific nodes from the
/// moment they are made, differ from textbook EASY and Conservative, which count processors
/// and pick nodes only when a job starts.
///
/// - t=0: job 1 starts on nodes 0-1 until 100; nodes 2-3 are free.
/// - t=1: job 2 (3 nodes) is reserved at 100 on nodes 0, 1 and one of nodes 2-3: both would
///   idle from now to 100, so the lower index, node 2, is taken. Node 3 stays free for good.
/// - t=2: job 3 (1 node, until 12) fits on node 2 (free until 100) or node 3. The core takes
///   the node that leaves the fewest new idle gaps: node 3 (node 2 would idle 12-100).
/// - t=3: job 4 needs 1 node for 200 s: node 2 is free only until 100 (job 2's reservation),
///   node 3 is busy until 12. EASY and Conservative: it waits.
/// - t=12: job 3 ends; job 4 starts on node 3 until 212. t=100: job 2 starts.
///
/// Textbook EASY counts processors: at t=3, 1 is free and 1 is spare at job 2's start
/// (4 free at 100, minus 3), so job 4 starts at 3 (on node 2; job 2 takes node 3 at 100).
/// Textbook Conservative agrees (1 processor is free over all of [3, 203)). FCFS: job 3
/// starts with job 2 at 100, job 4 at 110.
#[test]
fn trace_reservations_hold_nodes_unlike_textbook_backfilling() {
    let f = "easy_node_choice.swf";
    assert_eq!(starts(f, Policy::Fcfs), [0.0, 100.0, 100.0, 110.0]);
    // Textbook EASY and Conservative: [0.0, 100.0, 2.0, 3.0].
    assert_eq!(starts(f, Policy::Easy), [0.0, 100.0, 2.0, 12.0]);
    assert_eq!(starts(f, Policy::Conservative), [0.0, 100.0, 2.0, 12.0]);
}

/// No jobs: an empty result, not an error or a panic.
#[test]
fn trace_no_jobs() {
    let r = trace::replay_trace(&[], 4, Policy::Conservative).unwrap();
    assert!(r.jobs.is_empty());
    assert_eq!(
        (r.summary.jobs, r.summary.mean_wait_s, r.summary.utilization),
        (0, 0.0, 0.0)
    );
    assert_eq!(r.counts.passes, 0);
    assert!(trace::replay_trace(&[], 0, Policy::Easy).is_err());
}

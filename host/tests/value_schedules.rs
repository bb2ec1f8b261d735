//! Seed 001 on traces: a hand-worked schedule of a utility-aware policy with place-holders
//! and with permanent reservations, the value generator and its edge cases, the platform
//! draw, the 48 scenarios of the Curie sample, and `kairos replay --policy max-*` through
//! the binary (outputs and errors).

use std::path::PathBuf;

mod common;
use common::{kairos, swf as data};

use kairos_core::units::Micros;
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use kairos_core::Reservations;
use kairos_host::generate::rng::Stream;
use kairos_host::seed001::{self, ValueParams, Window};
use kairos_host::swf::ReplayJob;
use kairos_host::trace::{self, LoadOptions, Policy, ReplayOptions, TraceResult};

fn curie() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/traces/CEA-Curie-2011-2.1-sample.swf")
}

fn secs(s: u64) -> Micros {
    Micros::from_secs(s)
}

fn linear(start: f64, soft: u64, hard: u64, final_value: f64) -> UtilityCurve {
    UtilityCurve::Linear {
        start,
        soft: secs(soft),
        hard: secs(hard),
        final_value,
    }
}

/// The value functions of value_place_holder.swf, by job:
/// 1: 1 until 1000 s (never decays here);
/// 2: 2 until 19 s after arrival, then down to 1 at 100 s;
/// 3: 10 until 18 s after arrival, then down to 1 at 28 s;
/// 4: 3 until 1 s, 0 after 2 s: it needs 5 s, so it can only earn 0.
fn curves() -> Vec<UtilityCurve> {
    vec![
        linear(1.0, 1000, 1000, 1.0),
        linear(2.0, 19, 100, 1.0),
        linear(10.0, 18, 28, 1.0),
        linear(3.0, 1, 2, 0.5),
    ]
}

fn replay(policy: Policy, r: Reservations) -> TraceResult {
    let loaded = trace::load(&data("value_place_holder.swf"), &LoadOptions::default()).unwrap();
    let mut o = ReplayOptions::new(policy);
    o.reservations = r;
    let res = trace::replay_trace_curves(&loaded.jobs, loaded.procs, &o, &curves()).unwrap();
    assert!(trace::peak_procs(&res.jobs) <= 4);
    res
}

/// Start times in seconds, in job-number order.
fn starts(r: &TraceResult) -> Vec<(u64, f64)> {
    let mut jobs = r.jobs.clone();
    jobs.sort_by_key(|j| j.id);
    jobs.iter().map(|j| (j.id, j.start as f64 / 1e6)).collect()
}

/// value_place_holder.swf on 4 one-processor nodes (id: submit, procs, run = request):
/// 1: 0, 4, 10; 2: 1, 4, 10; 3: 2, 4, 10; 4: 3, 1, 5. Passes at every arrival and completion.
///
/// Max Value with permanent reservations:
/// - t=0: job 1 starts on all nodes, [0, 10).
/// - t=1: job 2's earliest start is 10 (ends 20, 19 s after arrival: value 2): reserved.
/// - t=2: job 3's earliest start is 20, behind job 2's reservation (ends 30, 28 s after
///   arrival = its hard deadline: value 1): reserved.
/// - t=3: job 4 could end at 8 at best, 5 s after arrival, past its hard deadline (2 s):
///   value 0, dropped before the heuristic runs.
/// - Runs: 1 [0, 10), 2 [10, 20), 3 [20, 30). Value 1 + 2 + 1 = 4 of a bound 1 + 2 + 10 + 3
///   = 16: 25%.
///
/// With place-holders:
/// - t=1: job 2 is place-held at 10.
/// - t=2: the place-holder vanishes; jobs 2 and 3 are mappable. At 10, job 3 would earn 10
///   (ends 20, 18 s after arrival), job 2 would earn 2: job 3 takes [10, 20) (place-held);
///   job 2 then gets 20 (ends 30, 29 s after arrival: 2 - (29 - 19) / (100 - 19) = 2 - 10/81).
/// - t=3: job 4 dropped, as above.
/// - t=10: job 1 ends; job 3 starts, job 2 is place-held at 20. t=20: job 3 ends, job 2
///   starts.
/// - Runs: 1 [0, 10), 3 [10, 20), 2 [20, 30). Value 1 + 10 + (2 - 10/81) = 12.876543 (the
///   ledger rounds each task to the micro-unit): 80.48% of 16.
///
/// Max VPR ranks the same here (every job takes 4 x 10 processor-seconds); EASY keeps
/// arrival order (job 2 at 10, job 3 at 20, and job 4, which it never drops, at 30: value 4).
#[test]
fn value_place_holders_let_a_later_job_take_the_slot_by_hand() {
    let pr = replay(Policy::MaxValue, Reservations::Permanent);
    assert_eq!(starts(&pr), [(1, 0.0), (2, 10.0), (3, 20.0)]);
    let v = pr.value.as_ref().unwrap();
    assert_eq!((v.earned, v.bound, v.dropped), (4.0, 16.0, 1));
    assert_eq!(v.dropped_ids, [4]);
    assert_eq!(v.percent, 25.0);

    let ph = replay(Policy::MaxValue, Reservations::PlaceHolder);
    assert_eq!(starts(&ph), [(1, 0.0), (2, 20.0), (3, 10.0)]);
    let v = ph.value.as_ref().unwrap();
    assert!((v.earned - 12.876_543).abs() < 1e-9, "{}", v.earned);
    assert_eq!((v.bound, v.dropped), (16.0, 1));
    assert!((v.percent - 80.478_393_75).abs() < 1e-6, "{}", v.percent);

    for p in [Policy::MaxUtil, Policy::MaxUpr] {
        assert_eq!(
            starts(&replay(p, Reservations::PlaceHolder)),
            starts(&ph),
            "{p}"
        );
        assert_eq!(
            starts(&replay(p, Reservations::Permanent)),
            starts(&pr),
            "{p}"
        );
    }
    let easy = replay(Policy::Easy, Reservations::Permanent);
    assert_eq!(starts(&easy), [(1, 0.0), (2, 10.0), (3, 20.0), (4, 30.0)]);
    let v = easy.value.as_ref().unwrap();
    assert_eq!((v.earned, v.dropped), (4.0, 0));
}

#[test]
fn value_curve_edge_cases() {
    let cs = UtilityClasses::new();
    // soft == hard == 0: the final value at 0 (a task that completes at its arrival), 0 after.
    let c = linear(5.0, 0, 0, 1.0);
    assert_eq!(c.value_at(Micros::ZERO, &cs).unwrap(), 1.0);
    assert_eq!(c.value_at(Micros(1), &cs).unwrap(), 0.0);
    // The soft deadline itself still earns the start; the hard deadline the final value;
    // one microsecond later nothing.
    let c = linear(8.0, 10, 20, 2.0);
    assert_eq!(c.value_at(secs(10), &cs).unwrap(), 8.0);
    assert!(c.value_at(secs(10) + Micros(1), &cs).unwrap() < 8.0);
    assert_eq!(c.value_at(secs(20), &cs).unwrap(), 2.0);
    assert_eq!(c.value_at(secs(20) + Micros(1), &cs).unwrap(), 0.0);
    assert_eq!(c.value_at(Micros::MAX, &cs).unwrap(), 0.0);
    // A final value above the start, or a hard deadline before the soft one, is refused.
    assert!(linear(1.0, 10, 20, 2.0)
        .value_at(Micros::ZERO, &cs)
        .is_err());
    assert!(linear(1.0, 20, 10, 0.5)
        .value_at(Micros::ZERO, &cs)
        .is_err());
}

#[test]
fn value_generator_follows_seed_001() {
    let p = ValueParams::default();
    let max = secs(86_400);
    // The mean: 5 at 1 s, 50 at the longest run time, linear between, clamped.
    assert_eq!(seed001::mean_start_value(secs(1), max, &p), 5.0);
    assert_eq!(seed001::mean_start_value(Micros::ZERO, max, &p), 5.0);
    assert_eq!(seed001::mean_start_value(max, max, &p), 50.0);
    assert_eq!(seed001::mean_start_value(secs(200_000), max, &p), 50.0);
    let mid = seed001::mean_start_value(secs(43_200), max, &p);
    assert!((mid - (5.0 + 45.0 * 43_199.0 / 86_399.0)).abs() < 1e-9);
    // A trace whose longest run is 1 s: every mean is 5.
    assert_eq!(seed001::mean_start_value(secs(1), secs(1), &p), 5.0);
    // Draws: start in [1, 100], final in [0.01, 0.8] x start, soft in [0.9, 1.2] x avg,
    // hard - soft in [0, 1.5] x avg; COV 2.5 clamps many starts to 1.
    let mut s = Stream::new(3, 0, "test", 0);
    let avg = secs(3_600);
    let mut ones = 0;
    let mut sum = 0.0;
    let n = 20_000;
    for _ in 0..n {
        let UtilityCurve::Linear {
            start,
            soft,
            hard,
            final_value,
        } = seed001::value_curve(&mut s, avg, max, &p)
        else {
            panic!("a linear curve");
        };
        assert!((1.0..=100.0).contains(&start), "{start}");
        assert!(final_value >= 0.01 * start - 1e-12 && final_value <= 0.8 * start + 1e-12);
        assert!(
            soft >= Micros(3_240_000_000) && soft <= Micros(4_320_000_000),
            "{soft:?}"
        );
        assert!(hard >= soft && hard - soft <= Micros(5_400_000_000));
        ones += usize::from(start == 1.0);
        sum += start;
    }
    // Gamma(mean ~6.9, COV 2.5) has most of its mass below 1.
    assert!(ones > n / 2, "{ones}");
    let mean = sum / n as f64;
    assert!((3.0..12.0).contains(&mean), "{mean}");
    // A zero average execution time gives zero deadlines: the value is earned only at 0.
    let c = seed001::value_curve(&mut s, Micros::ZERO, max, &p);
    assert!(matches!(
        c,
        UtilityCurve::Linear {
            soft: Micros(0),
            hard: Micros(0),
            ..
        }
    ));
}

#[test]
fn value_platform_draw_follows_seed_001() {
    for k in 0..200 {
        let mut s = Stream::new(9, k, "seed001-platform", 0);
        let cl = seed001::draw_platform(&mut s, 18_432.0);
        assert!((2..=4).contains(&cl.len()));
        let cores: u64 = cl.iter().map(|c| c.cores().0).sum();
        // Gamma with COV 0.05: within 25% of the mean, less whatever rounding down to whole
        // nodes loses (under 32 cores a cluster).
        assert!((13_800..=23_100).contains(&cores), "{cores}");
        for c in &cl {
            assert!(seed001::CORES_PER_NODE.contains(&c.cores_per_node));
            assert!(c.nodes.0 >= 1);
        }
        // Every level of the sweep shares the draws: only the scale differs.
        let mut s15 = Stream::new(9, k, "seed001-platform", 0);
        let c15 = seed001::draw_platform(&mut s15, 13_824.0);
        assert_eq!(c15.len(), cl.len());
        for (a, b) in c15.iter().zip(&cl) {
            assert_eq!(a.cores_per_node, b.cores_per_node);
        }
    }
    // The ETC row: the run time first, then the COV method around it.
    let mut s = Stream::new(9, 0, "seed001-etc", 0);
    let row = seed001::etc_row(&mut s, secs(100), 4);
    assert_eq!(row[0], secs(100));
    assert!(row[1..].iter().all(|&m| m > Micros::ZERO && m != secs(100)));
    assert_eq!(seed001::etc_row(&mut s, Micros::ZERO, 2)[0], Micros(1));
    assert_eq!(seed001::average(&[secs(1), secs(2)]), Micros(1_500_000));
}

fn job(id: u64, submit_s: u64, procs: u32, run_s: u64) -> ReplayJob {
    ReplayJob {
        id,
        submit: submit_s * 1_000_000,
        runtime: run_s * 1_000_000,
        request: run_s * 1_000_000,
        procs,
        line: id as usize,
    }
}

#[test]
fn value_windows_and_scenarios_are_formed_as_documented() {
    // Submits from 10 h to 3 days + 5 h: the first measured day starts at the first
    // midnight at least 4 h after 10 h, i.e. day 1 (24 h); with a step of 11 h, the last
    // window must end by the last submit (77 h): days at 24, 35, 46 h fit (46 + 24 = 70),
    // 57 h does not (81 > 77).
    let jobs: Vec<ReplayJob> = (0..68).map(|h| job(h, (10 + h) * 3600, 8, 600)).collect();
    let w = seed001::windows(&jobs, 3, seed001::SCENARIO_STEP).unwrap();
    let starts: Vec<u64> = w.iter().map(|w| w.day_start.0 / 3_600_000_000).collect();
    assert_eq!(starts, [24, 35, 46]);
    let e = seed001::windows(&jobs, 4, seed001::SCENARIO_STEP).unwrap_err();
    assert!(
        format!("{e:#}").contains("only 3 28 h windows fit"),
        "{e:#}"
    );
    // A scenario holds the jobs submitted in [day - 4 h, day + 24 h), shifted to 0, minus
    // those of more than 4,096 cores; the bound counts the day's arrivals only.
    let mut jobs = jobs;
    jobs.push(job(1000, 30 * 3600, 4097, 60));
    jobs.sort_by_key(|j| (j.submit, j.line));
    let win = Window {
        index: 0,
        day_start: Micros::from_hours(24),
    };
    let sc = seed001::build(&jobs, secs(600), &win, 0.2, 1).unwrap();
    // Window [20 h, 48 h): submits at 20, 21, ..., 47 h: 28 jobs, 24 of them (24 h to
    // 47 h) in the day; the 4,097-core job at 30 h is removed.
    assert_eq!(
        (sc.tasks.len(), sc.day_tasks, sc.removed_large),
        (28, 24, 1)
    );
    assert_eq!(sc.tasks[0].arrival, Micros::ZERO);
    assert_eq!(sc.tasks[4].arrival, Micros::from_hours(4));
    assert_eq!(sc.job_ids[0], 10);
    let bound: f64 = sc.tasks[4..].iter().map(|t| t.curve.max_value()).sum();
    assert!((sc.bound - bound).abs() < 1e-9);
    // Reproducible alone: the same (seed, index) gives the same scenario.
    let again = seed001::build(&jobs, secs(600), &win, 0.2, 1).unwrap();
    assert_eq!(again.tasks, sc.tasks);
    assert_eq!(again.platform, sc.platform);
}

/// The 48 scenarios of the Curie sample: measured days 11 h apart from the first log
/// midnight 4 h after the first submit (day 505 of the log's clock), all inside the sample.
#[test]
fn value_curie_forms_48_scenarios() {
    let t = trace::load(&curie(), &LoadOptions::default()).unwrap();
    let w = seed001::windows(&t.jobs, seed001::SCENARIOS, seed001::SCENARIO_STEP).unwrap();
    assert_eq!(w.len(), 48);
    assert_eq!(w[0].day_start, Micros::from_hours(505 * 24));
    assert_eq!(w[47].day_start, Micros::from_hours(505 * 24 + 47 * 11));
    assert!(w[0].start().0 >= t.jobs[0].submit);
    assert!(w[47].end().0 <= t.jobs.last().unwrap().submit);
    // 49 do not fit.
    assert!(seed001::windows(&t.jobs, 49, seed001::SCENARIO_STEP).is_err());
    let max = Micros(t.jobs.iter().map(|j| j.runtime).max().unwrap());
    assert_eq!(max, secs(86_400));
    let sc = seed001::build(&t.jobs, max, &w[0], 0.2, 1).unwrap();
    assert!(sc.day_tasks > 800 && sc.tasks.iter().all(|t| t.arrival < Micros::from_hours(28)));
}

#[test]
fn value_replay_cli_reports_value_and_bound() {
    let f = data("easy_backfills.swf");
    let out = kairos(&[
        "replay",
        f.to_str().unwrap(),
        "--policy",
        "max-upr",
        "--reservations",
        "permanent",
        "--value-seed",
        "7",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["policy"], "max-upr");
    assert_eq!(v["value"]["seed"], 7);
    assert_eq!(v["value"]["reservations"], "permanent");
    let (earned, bound) = (
        v["value"]["earned"].as_f64().unwrap(),
        v["value"]["bound"].as_f64().unwrap(),
    );
    assert!(earned > 0.0 && earned <= bound, "{earned} {bound}");
    // Without --value-seed the baselines print no value (their summary is unchanged).
    let out = kairos(&["replay", f.to_str().unwrap(), "--policy", "easy"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("value").is_none());
}

#[test]
fn value_replay_cli_errors() {
    let f = data("easy_backfills.swf");
    let f = f.to_str().unwrap();
    for (args, needle, code) in [
        (
            vec!["--policy", "easy", "--reservations", "place-holder"],
            "easy only reserves permanently",
            // A command line that parses but cannot be run: 2 (issue 19), as the README says.
            2,
        ),
        (
            vec!["--policy", "max-util", "--reservations", "sometimes"],
            "unknown reservations",
            2,
        ),
        (
            vec!["--policy", "max-util", "--value-seed", "x"],
            "invalid value 'x'",
            2,
        ),
        (
            vec!["--policy", "max-everything"],
            "invalid value 'max-everything'",
            2,
        ),
    ] {
        let mut a = vec!["replay", f];
        a.extend(args.iter());
        let out = kairos(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A bad line still names the file and the line under a value policy.
    let t = data("truncated.swf");
    let out = kairos(&["replay", t.to_str().unwrap(), "--policy", "max-value"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("truncated.swf") && err.contains("line"),
        "{err}"
    );
}

/// Seed 001's tie-break: equal values go to the earliest completion (Max Value), where Max
/// Util takes the lower cluster. Two clusters of one one-core node; task A (arrives at 0,
/// cluster 0 only, 100 s) holds cluster 0 until 100; task B (arrives at 1 s, 10 s on either)
/// is worth 5 until 1000 s wherever it runs. At t = 1 its options tie at 5: cluster 0 from
/// 100 (ends 110), cluster 1 from 1 (ends 11). Max Value starts it now on cluster 1; Max
/// Util reserves cluster 0 at 100.
#[test]
fn value_max_value_breaks_ties_by_earliest_completion() {
    use kairos_core::engine::Observer;
    use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskType};
    use kairos_core::task::{Demand, Task, TaskId};
    use kairos_core::units::{MilliWatts, NodeCount};
    use kairos_core::Heuristic;
    use kairos_core::{Decision, DecisionKind};

    struct Log(Vec<Decision>);
    impl Observer for Log {
        fn on_decision(&mut self, d: &Decision) {
            self.0.push(*d);
        }
    }
    let cl = Cluster {
        nodes: NodeCount(1),
        cores_per_node: 1,
        kind: ClusterKind::General,
    };
    let platform = Platform::new(&[cl, cl], 1).unwrap();
    let place = |s: u64| {
        let mut etc = [Micros::ZERO; 4];
        etc[0] = secs(s);
        Some(Placement {
            nodes: NodeCount(1),
            etc,
            apc: [MilliWatts(0); 4],
        })
    };
    let task = |id: u32, at: u64, p: Vec<Option<Placement>>, v: f64| Task {
        id: TaskId(id),
        arrival: secs(at),
        demand: Demand::Own(TaskType {
            placements: p.into_iter().collect(),
        }),
        curve: linear(v, 1000, 1000, v),
        actual: None,
    };
    let tasks = vec![
        task(0, 0, vec![place(100), None], 1.0),
        task(1, 1, vec![place(10), place(10)], 5.0),
    ];
    let classes = UtilityClasses::new();
    for (h, cluster, start, kind) in [
        (Heuristic::MaxValue, 1, 1, DecisionKind::Start),
        (Heuristic::MaxUtil, 0, 100, DecisionKind::Reserve),
    ] {
        let mut log = Log(Vec::new());
        let cfg = seed001::config(h, Reservations::Permanent);
        kairos_host::storage::simulate(
            &platform,
            &classes,
            cfg,
            seed001::schedule(),
            &tasks,
            &mut log,
        )
        .unwrap();
        let d = log.0.iter().find(|d| d.task == TaskId(1)).unwrap();
        assert_eq!(
            (d.cluster.0, d.start, d.kind),
            (cluster, secs(start), kind),
            "{h}"
        );
    }
}

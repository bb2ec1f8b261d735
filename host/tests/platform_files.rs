//! Platform files (`kairos replay --platform`, a scenario's `[platform] file`): the seed 000
//! platform as a file gives the same scenarios and digests; a SimGrid platform with P-states
//! and sleep states replays a Batsim workload under EASY with Batsim's energy, checked by
//! hand; a heterogeneous kairos TOML platform scales run times and keeps jobs where its rules
//! say; bad platform files are errors naming the file, the line and the field.

mod common;

use std::path::{Path, PathBuf};

use common::kairos;
use kairos_host::run::{run_trial, RunOptions};
use kairos_host::scenario::Scenario;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kairos-platform-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The scenario text with its `[platform]` tables replaced by `file = platform`.
fn with_platform_file(text: &str, platform: &Path) -> String {
    let start = text.find("[platform]").unwrap();
    let end = text.find("[workload]").unwrap();
    format!(
        "{}[platform]\nfile = {:?}\n\n{}",
        &text[..start],
        platform.display().to_string(),
        &text[end..]
    )
}

#[test]
fn the_seed_000_platform_file_gives_the_same_scenarios_and_digests() {
    let platform = root().join("scenarios/platforms/essc.toml");
    let dir = tmp("essc");
    for name in ["essc-5k", "essc-10k"] {
        let inline_path = root().join(format!("scenarios/{name}.toml"));
        let inline = Scenario::load(&inline_path).unwrap();
        let text = std::fs::read_to_string(&inline_path).unwrap();
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, with_platform_file(&text, &platform)).unwrap();
        let from_file = Scenario::load(&path).unwrap();
        assert_eq!(from_file, inline, "{name}");
        // A short day of each, under a utility-aware heuristic with a filter and a budget,
        // and under a baseline: the digests agree.
        let short = |mut s: Scenario| {
            s.workload.tasks_per_day = 300;
            s.simulation.horizon_hours = 3;
            s.simulation.warmup_hours = 1;
            s
        };
        for (h, filter) in [
            (
                kairos_core::Heuristic::MaxUpe,
                kairos_core::energy::FilterKind::PerResource,
            ),
            (
                kairos_core::Heuristic::Easy,
                kairos_core::energy::FilterKind::None,
            ),
        ] {
            let mut o = RunOptions::new(h);
            o.filter = filter;
            let a = run_trial(&short(inline.clone()), &o).unwrap();
            let b = run_trial(&short(from_file.clone()), &o).unwrap();
            assert_eq!(a.digest, b.digest, "{name} {h:?}");
            assert!(a.completed > 0, "{name} {h:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_scenario_refuses_a_platform_file_it_cannot_take() {
    let dir = tmp("scenario-refuses");
    let platform = dir.join("fast.toml");
    std::fs::write(
        &platform,
        "name = \"p\"\n[[partitions]]\nname = \"a\"\nnodes = 4\nspeed = 2.0\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(root().join("scenarios/essc-5k.toml")).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(&path, with_platform_file(&text, &platform)).unwrap();
    let e = Scenario::load(&path).unwrap_err().to_string();
    assert!(e.contains("s.toml:") && e.contains("platform.file"), "{e}");
    assert!(e.contains("partitions[0] (a): speed"), "{e}");
    // Clusters beside a file.
    let both = with_platform_file(&text, &root().join("scenarios/platforms/essc.toml"))
        .replace("[workload]", "[[platform.clusters]]\nname = \"x\"\nkind = \"general\"\nnodes = 1\ncores_per_node = 1\n\n[workload]");
    std::fs::write(&path, both).unwrap();
    let e = Scenario::load(&path).unwrap_err().to_string();
    assert!(e.contains("leave out platform.clusters"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_seed_001_platform_file_is_the_first_windows_draw() {
    use kairos_host::generate::rng::Stream;
    let p = kairos_host::platform_file::load(
        root().join("scenarios/platforms/seed001-curie-0.2-w0.toml"),
    )
    .unwrap();
    // experiments/curie-value.toml: seed 1, 20% of Curie's cores, window 0.
    let drawn = kairos_host::seed001::draw_platform(
        &mut Stream::new(1, 0, "seed001-platform", 0),
        0.2 * kairos_host::seed001::CURIE_CORES,
    );
    let mut want = String::new();
    for c in &drawn {
        want.push_str(&format!("{} x {}\n", c.nodes.0, c.cores_per_node));
    }
    let mut got = String::new();
    for c in &p.partitions {
        got.push_str(&format!("{} x {}\n", c.nodes, c.cores_per_node));
    }
    assert_eq!(got, want);
}

/// A SimGrid platform: a master host, four compute hosts named out of order (machine ids
/// follow Batsim's name order: host0, host1, host2, host10), two computation P-states (100
/// and 50 Mflops; idle 100 W and 60 W), a sleep P-state 2 with its switching P-states 3 and 4.
const SIMGRID: &str = r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<zone id="AS0" routing="Full">
  <host id="master_host" speed="100Mf">
    <prop id="wattage_per_state" value="100:200" />
  </host>
  <host id="host10" speed="100Mf, 50Mf, 1e-9Mf, 0.5f, 0.05f" pstate="0">
    <prop id="wattage_per_state" value="100:100:200, 60:60:120, 10:10:10, 150:150:150, 160:160:160" />
    <prop id="wattage_off" value="5" />
    <prop id="sleep_pstates" value="2:3:4" />
  </host>
  <host id="host2" speed="100Mf, 50Mf, 1e-9Mf, 0.5f, 0.05f" pstate="0">
    <prop id="wattage_per_state" value="100:100:200, 60:60:120, 10:10:10, 150:150:150, 160:160:160" />
    <prop id="wattage_off" value="5" />
    <prop id="sleep_pstates" value="2:3:4" />
  </host>
  <host id="host0" speed="100Mf, 50Mf, 1e-9Mf, 0.5f, 0.05f" pstate="0">
    <prop id="wattage_per_state" value="100:100:200, 60:60:120, 10:10:10, 150:150:150, 160:160:160" />
    <prop id="wattage_off" value="5" />
    <prop id="sleep_pstates" value="2:3:4" />
  </host>
  <host id="host1" speed="100Mf, 50Mf, 1e-9Mf, 0.5f, 0.05f" pstate="0">
    <prop id="wattage_per_state" value="100:100:200, 60:60:120, 10:10:10, 150:150:150, 160:160:160" />
    <prop id="wattage_off" value="5" />
    <prop id="sleep_pstates" value="2:3:4" />
  </host>
</zone>
</platform>
"#;

/// Three delay jobs on the four hosts: j1 (2 hosts, 50 s of a 100 s walltime) at 0; j2 (all
/// 4, 100 s) at 0, reserved for j1's planned end; j3 (2 hosts, 20 s of 30 s) at 10, backfilled
/// beside j1. j1 ends at 50 and j2 starts then.
const WORKLOAD: &str = r#"{
  "nb_res": 4,
  "jobs": [
    {"id": 1, "subtime": 0, "walltime": 100, "res": 2, "profile": "d50"},
    {"id": 2, "subtime": 0, "walltime": 100, "res": 4, "profile": "d100"},
    {"id": 3, "subtime": 10, "walltime": 30, "res": 2, "profile": "d20"}
  ],
  "profiles": {
    "d50": {"type": "delay", "delay": 50},
    "d100": {"type": "delay", "delay": 100},
    "d20": {"type": "delay", "delay": 20}
  }
}
"#;

fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn a_simgrid_platform_replays_a_batsim_workload_with_batsims_energy() {
    let dir = tmp("simgrid");
    let platform = dir.join("platform.xml");
    let workload = dir.join("workload.json");
    std::fs::write(&platform, SIMGRID).unwrap();
    std::fs::write(&workload, WORKLOAD).unwrap();
    let prefix = dir.join("out");
    let out = kairos(&[
        "replay",
        workload.to_str().unwrap(),
        "--platform",
        platform.to_str().unwrap(),
        "--policy",
        "easy",
        "--batsim-out",
        prefix.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let jobs = csv_rows(&dir.join("out_jobs.csv"));
    let by_id = |id: &str| jobs.iter().find(|r| r["job_id"] == id).unwrap().clone();
    // Starts and ends: j1 0-50, j3 10-30 (backfilled), j2 50-150.
    for (id, start, finish) in [("1", 0.0, 50.0), ("2", 50.0, 150.0), ("3", 10.0, 30.0)] {
        let r = by_id(id);
        assert_eq!(r["starting_time"].parse::<f64>().unwrap(), start, "{id}");
        assert_eq!(r["finish_time"].parse::<f64>().unwrap(), finish, "{id}");
    }
    // A delay profile sleeps on its hosts: they draw the idle watts of P-state 0, 100 W.
    // j1: 2 hosts x 100 W x 50 s; j2: 4 x 100 x 100; j3: 2 x 100 x 20.
    for (id, joules) in [("1", 10_000.0), ("2", 40_000.0), ("3", 4_000.0)] {
        let e: f64 = by_id(id)["consumed_energy"].parse().unwrap();
        assert!((e - joules).abs() < 1e-6, "job {id}: {e} J, want {joules}");
    }
    // The platform from the first submission (0) to the last end (150): 4 hosts x 100 W
    // (idle or holding a delay job) x 150 s = 60 kJ: 54 kJ of jobs, 6 kJ idle
    // (600 - 540 node-seconds held).
    let schedule = csv_rows(&dir.join("out_schedule.csv"));
    let s = &schedule[0];
    let num = |k: &str| s[k].parse::<f64>().unwrap();
    assert!((num("consumed_joules") - 60_000.0).abs() < 1e-6, "{s:?}");
    assert_eq!(num("time_computing"), 540.0);
    assert_eq!(num("time_idle"), 60.0);
    assert_eq!(num("time_sleeping"), 0.0);
    assert_eq!(num("nb_computing_machines"), 4.0);
    let e = &summary["energy"];
    assert_eq!(e["jobs_joules"].as_f64().unwrap(), 54_000.0);
    assert_eq!(e["idle_joules"].as_f64().unwrap(), 6_000.0);
    assert_eq!(e["total_joules"].as_f64().unwrap(), 60_000.0);
    // The machine states at every change: 2 computing at 0, 4 at 10, 2 at 30, 4 at 50 (j1's
    // 2 out, j2's 4 in), none at 150.
    let states = std::fs::read_to_string(dir.join("out_machine_states.csv")).unwrap();
    assert_eq!(
        states,
        "time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n\
         0,0,0,0,2,2\n10,0,0,0,0,4\n30,0,0,0,2,2\n50,0,0,0,0,4\n150,0,0,0,4,0\n"
    );
    // Two computation P-states: the P-state file is written; every job ran at P-state 0,
    // the hosts' initial one, so it holds the initial states alone.
    let pstates = std::fs::read_to_string(dir.join("out_pstate_changes.csv")).unwrap();
    assert_eq!(pstates, "time,machine_id,new_pstate\n0,0-3,0\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two partitions: `fast` (2 nodes, speed 2, 200 W busy, 50 W idle) takes only jobs of at
/// most 2 processors; `slow` (4 nodes, speed 1, 100 W busy, 20 W idle) takes any.
const HETERO: &str = r#"name = "two-speeds"

[[partitions]]
name = "fast"
nodes = 2
speed = 2.0
busy_watts = 200.0
idle_watts = 50.0
[partitions.jobs]
procs = [1, 2]

[[partitions]]
name = "slow"
nodes = 4
speed = 1.0
busy_watts = 100.0
idle_watts = 20.0
"#;

#[test]
fn a_heterogeneous_platform_scales_run_times_and_keeps_jobs_where_its_rules_say() {
    let dir = tmp("hetero");
    let platform = dir.join("two.toml");
    std::fs::write(&platform, HETERO).unwrap();
    // SWF: job 1 (2 procs, 100 s run of 200 s requested) at 0; job 2 (4 procs, 50 s of 100 s)
    // at 0; job 3 (1 proc, 40 s of 80 s) at 0.
    let swf = dir.join("log.swf");
    std::fs::write(
        &swf,
        "; MaxProcs: 6\n\
         1 0 -1 100 2 -1 -1 2 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
         2 0 -1 50 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
         3 0 -1 40 1 -1 -1 1 80 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let prefix = dir.join("out");
    let out = kairos(&[
        "replay",
        swf.to_str().unwrap(),
        "--platform",
        platform.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--batsim-out",
        prefix.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let jobs = csv_rows(&dir.join("out_jobs.csv"));
    let by_id = |id: &str| jobs.iter().find(|r| r["job_id"] == id).unwrap().clone();
    // Job 1 on the fast nodes (0-1): 100 s at speed 2 is 50 s, at 200 W a node: 20 kJ.
    // Job 2 (4 procs) may not go there: slow nodes 2-5, 50 s at 100 W: 20 kJ.
    // Job 3 waits for neither: the fast nodes are busy until 50, the slow ones until 50;
    // FCFS starts it at 50 on the fast partition (earliest completion: 20 s there).
    let j1 = by_id("1");
    assert_eq!(j1["allocated_resources"], "0-1");
    assert_eq!(j1["finish_time"].parse::<f64>().unwrap(), 50.0);
    assert!(j1["metadata"].contains("partition=fast"), "{j1:?}");
    assert_eq!(j1["consumed_energy"].parse::<f64>().unwrap(), 20_000.0);
    let j2 = by_id("2");
    assert_eq!(j2["allocated_resources"], "2-5");
    assert_eq!(j2["finish_time"].parse::<f64>().unwrap(), 50.0);
    assert_eq!(j2["consumed_energy"].parse::<f64>().unwrap(), 20_000.0);
    let j3 = by_id("3");
    let start: f64 = j3["starting_time"].parse().unwrap();
    let finish: f64 = j3["finish_time"].parse().unwrap();
    assert_eq!(start, 50.0, "{j3:?}");
    // 40 s at speed 2 on the fast partition, or 40 s on the slow one.
    let fast = j3["metadata"].contains("partition=fast");
    assert_eq!(finish - start, if fast { 20.0 } else { 40.0 }, "{j3:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `kairos replay` of a one-job log on platform `text` and returns its stderr.
fn platform_error(name: &str, ext: &str, text: &str) -> String {
    let dir = tmp(name);
    let platform = dir.join(format!("p.{ext}"));
    std::fs::write(&platform, text).unwrap();
    let swf = dir.join("log.swf");
    std::fs::write(&swf, "1 0 -1 10 8 -1 -1 8 20 -1 1 -1 -1 -1 3 -1 -1 -1\n").unwrap();
    let out = kairos(&[
        "replay",
        swf.to_str().unwrap(),
        "--platform",
        platform.to_str().unwrap(),
        "--policy",
        "easy",
    ]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!e.contains("panicked"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    e
}

#[test]
fn bad_platform_files_name_the_file_the_line_and_the_field() {
    // An unknown key.
    let e = platform_error(
        "unknown",
        "toml",
        "name = \"p\"\n[[partitions]]\nname = \"a\"\nnodes = 8\nnode_watts = 3.0\n",
    );
    assert!(
        e.contains("p.toml") && e.contains("line 5") && e.contains("node_watts"),
        "{e}"
    );
    // P-state lists of different lengths.
    let e = platform_error(
        "length",
        "toml",
        "name = \"p\"\n[[partitions]]\nname = \"a\"\nnodes = 8\n\
         pstates = [{ time = 1.0 }, { time = 1.5, power = 0.5 }]\n\
         [[partitions]]\nname = \"b\"\nnodes = 8\npstates = [{ time = 1.0 }]\n",
    );
    assert!(e.contains("p.toml:9: partitions[1].pstates"), "{e}");
    // Negative watts.
    let e = platform_error(
        "negative",
        "toml",
        "name = \"p\"\n[[partitions]]\nname = \"a\"\nnodes = 8\nidle_watts = -5.0\n",
    );
    assert!(e.contains("p.toml:5: partitions[0].idle_watts = -5"), "{e}");
    // A job no partition takes: its queue (3) is not the partition's.
    let e = platform_error(
        "fits-none",
        "toml",
        "name = \"p\"\n[[partitions]]\nname = \"a\"\nnodes = 8\n[partitions.jobs]\nswf_queues = [1]\n",
    );
    assert!(
        e.contains("log.swf") && e.contains("line 1 (job 1)") && e.contains("p.toml"),
        "{e}"
    );
    assert!(e.contains("swf_queues = [1]"), "{e}");
    // SimGrid: watts for 2 P-states, 3 speeds.
    let e = platform_error(
        "xml-length",
        "xml",
        "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n\
         <host id=\"h0\" speed=\"1Gf, 0.5Gf, 0.2Gf\">\n\
         <prop id=\"wattage_per_state\" value=\"100:200, 80:150\" />\n</host>\n</zone>\n</platform>\n",
    );
    assert!(e.contains("p.xml:5: host h0: wattage_per_state"), "{e}");
    // SimGrid: negative watts.
    let e = platform_error(
        "xml-negative",
        "xml",
        "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n\
         <host id=\"h0\" speed=\"1Gf\">\n<prop id=\"wattage_off\" value=\"-3\" />\n</host>\n</zone>\n</platform>\n",
    );
    assert!(e.contains("p.xml:5: host h0: wattage_off"), "{e}");
}

/// `HETERO` with a second, slower and cheaper P-state on both partitions.
const HETERO_PSTATES: &str = r#"name = "two-speeds-pstates"
pstates = [{ time = 1.0, power = 1.0 }, { time = 1.25, power = 0.6 }]

[[partitions]]
name = "fast"
nodes = 2
speed = 2.0
busy_watts = 200.0
idle_watts = 50.0
[partitions.jobs]
procs = [1, 2]

[[partitions]]
name = "slow"
nodes = 4
speed = 1.0
busy_watts = 100.0
idle_watts = 20.0
"#;

#[test]
fn every_policy_keeps_jobs_where_they_may_run_and_scales_their_run_times() {
    let dir = tmp("every-policy");
    let platform = dir.join("two.toml");
    std::fs::write(&platform, HETERO_PSTATES).unwrap();
    // 40 jobs, one every 5 s, of 1 to 4 processors and even run times of 10 to 200 s, each
    // requesting twice its run time plus 20 s.
    let mut log = String::from("; MaxProcs: 6\n");
    let mut x: u64 = 7;
    let mut runtimes = std::collections::HashMap::new();
    for id in 1..=40u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let procs = 1 + (x >> 33) % 4;
        let run = 10 + 2 * ((x >> 40) % 96);
        runtimes.insert(id.to_string(), run as f64);
        log.push_str(&format!(
            "{id} {} -1 {run} {procs} -1 -1 {procs} {} -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            5 * (id - 1),
            2 * run + 20
        ));
    }
    let swf = dir.join("log.swf");
    std::fs::write(&swf, log).unwrap();
    let policies: [&[&str]; 9] = [
        &["--policy", "fcfs"],
        &["--policy", "easy"],
        &["--policy", "conservative"],
        &["--policy", "knapsack"],
        &["--policy", "max-util"],
        &["--policy", "max-value"],
        &["--policy", "max-upt"],
        &["--policy", "max-upr"],
        &[
            "--policy",
            "max-upe",
            "--budget-joules",
            "2e6",
            "--filter",
            "per-resource",
        ],
    ];
    for flags in policies {
        let prefix = dir.join(flags[1]);
        let mut args = vec![
            "replay",
            swf.to_str().unwrap(),
            "--platform",
            platform.to_str().unwrap(),
            "--batsim-out",
            prefix.to_str().unwrap(),
        ];
        args.extend_from_slice(flags);
        let out = kairos(&args);
        assert!(
            out.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let jobs = csv_rows(&dir.join(format!("{}_jobs.csv", flags[1])));
        let mut ran = 0;
        for r in &jobs {
            if r["final_state"] != "COMPLETED_SUCCESSFULLY" {
                continue;
            }
            ran += 1;
            let fast = r["metadata"].contains("partition=fast");
            let nodes = &r["allocated_resources"];
            let procs: u32 = r["requested_number_of_resources"].parse().unwrap();
            // The fast partition holds nodes 0-1 and takes at most 2 processors.
            assert_eq!(
                fast,
                nodes.starts_with('0') || nodes.starts_with('1'),
                "{flags:?} {r:?}"
            );
            assert!(!fast || procs <= 2, "{flags:?}: {r:?}");
            let slow_pstate = r["metadata"].contains("pstate=1");
            let want = runtimes[&r["job_id"]] * if slow_pstate { 1.25 } else { 1.0 }
                / if fast { 2.0 } else { 1.0 };
            let got: f64 = r["execution_time"].parse().unwrap();
            assert!(
                (got - want).abs() < 1e-6,
                "{flags:?}: {got} s, want {want}: {r:?}"
            );
        }
        assert!(ran > 0, "{flags:?}");
        // The baselines and the knapsack drop nothing and have no budget: every job runs.
        if ["fcfs", "easy", "conservative", "knapsack"].contains(&flags[1]) {
            assert_eq!(ran, 40, "{flags:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

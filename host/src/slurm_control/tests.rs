//! Tests of the Slurm controller against a scripted cluster: a fake Slurm whose jobs run
//! for set times on a fake clock, so that a kill (the loop stopped after some cycles and
//! started again on its ledger), a Slurm that refuses commands and a job cancelled while
//! held are each checked against an uninterrupted run.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use super::control::{serve, Clock, Options};
use super::policy::SitePolicy;
use super::queue::{parse_jobs, parse_nodes, JobState, SlurmJob, SlurmNode};
use super::slurm_cli::Slurm;
use crate::live::ControllerSpec;
use std::path::PathBuf;

/// The time, Unix seconds, shared by the fake clock and the fake Slurm.
type Now = Rc<Cell<u64>>;

struct FakeClock(Now);

impl Clock for FakeClock {
    fn now_us(&mut self) -> u64 {
        self.0.get() * 1_000_000
    }
    fn sleep(&mut self, d: Duration) {
        self.0.set(self.0.get() + d.as_secs().max(1));
    }
}

/// A job of the script: submitted at `submit`, runs `run` seconds once started.
#[derive(Clone, Copy)]
struct Script {
    id: u64,
    submit: u64,
    run: u64,
    nodes: u32,
    estimate: u64,
}

#[derive(Default)]
struct Cluster {
    jobs: BTreeMap<u64, SlurmJob>,
    runs: BTreeMap<u64, u64>,
    /// Every start command: (job, time, nodes).
    starts: Vec<(u64, u64, Vec<String>)>,
    cancels: Vec<(u64, String)>,
    /// Refuse every command (slurmctld down).
    down: bool,
    /// Nodes drained.
    drained: Vec<String>,
    /// A node drained from one time to another (Unix seconds).
    drain: Option<(String, u64, u64)>,
    /// Ledger compactions the loop reported.
    compactions: usize,
}

struct FakeSlurm {
    now: Now,
    script: Vec<Script>,
    c: Rc<RefCell<Cluster>>,
}

impl FakeSlurm {
    /// Submits the jobs whose time has come; ends the runs that are over.
    fn advance(&mut self) {
        let now = self.now.get();
        let mut c = self.c.borrow_mut();
        for s in &self.script {
            if s.submit <= now && !c.jobs.contains_key(&s.id) {
                c.runs.insert(s.id, s.run);
                c.jobs.insert(
                    s.id,
                    SlurmJob {
                        id: s.id,
                        state: JobState::Pending,
                        state_name: "PENDING".into(),
                        reason: "JobHeldAdmin".into(),
                        priority: 0,
                        nodes: s.nodes,
                        limit_s: Some(3600),
                        submit: s.submit,
                        start: 0,
                        end: 0,
                        comment: format!("kairos: estimate={}", s.estimate),
                        partition: "kairos".into(),
                        qos: String::new(),
                        node_list: Vec::new(),
                        array: false,
                    },
                );
            }
        }
        let runs = c.runs.clone();
        for j in c.jobs.values_mut() {
            if j.state == JobState::Running && now >= j.start + runs[&j.id] {
                j.state = JobState::Finished;
                j.state_name = "COMPLETED".into();
                j.end = j.start + runs[&j.id];
            }
        }
    }
}

impl Slurm for FakeSlurm {
    fn jobs(&mut self) -> Result<Vec<SlurmJob>, String> {
        if self.c.borrow().down {
            return Err(
                "squeue --json: slurm_load_jobs error: Unable to contact slurm controller".into(),
            );
        }
        self.advance();
        Ok(self.c.borrow().jobs.values().cloned().collect())
    }
    fn nodes(&mut self) -> Result<Vec<SlurmNode>, String> {
        let mut drained = self.c.borrow().drained.clone();
        if let Some((node, from, to)) = self.c.borrow().drain.clone() {
            if (from..to).contains(&self.now.get()) {
                drained.push(node);
            }
        }
        Ok((1..=4)
            .map(|k| SlurmNode {
                name: format!("n{k}"),
                state: if drained.contains(&format!("n{k}")) {
                    "idle+drain".into()
                } else {
                    "idle".into()
                },
                partitions: vec!["kairos".into()],
            })
            .collect())
    }
    fn start(&mut self, job: u64, nodes: &[&str]) -> Result<(), String> {
        let now = self.now.get();
        let mut c = self.c.borrow_mut();
        if c.down {
            return Err("scontrol update: Unable to contact slurm controller".into());
        }
        let j = c.jobs.get_mut(&job).ok_or("Invalid job id specified")?;
        if !j.held() {
            return Err(format!("job {job} is not held: started twice?"));
        }
        j.state = JobState::Running;
        j.state_name = "RUNNING".into();
        j.priority = 1;
        j.reason = "None".into();
        j.start = now;
        j.node_list = nodes.iter().map(|s| s.to_string()).collect();
        c.starts
            .push((job, now, nodes.iter().map(|s| s.to_string()).collect()));
        Ok(())
    }
    fn cancel(&mut self, job: u64, reason: &str) -> Result<(), String> {
        let mut c = self.c.borrow_mut();
        let j = c.jobs.get_mut(&job).ok_or("Invalid job id specified")?;
        j.state = JobState::Finished;
        j.state_name = "CANCELLED".into();
        j.end = self.now.get();
        c.cancels.push((job, reason.to_string()));
        Ok(())
    }
    fn release(&mut self, _jobs: &[u64]) -> Result<(), String> {
        Ok(())
    }
}

const POLICY: &str = "policy = \"easy\"\npartitions = [\"kairos\"]\npoll_ms = 1000\n\
                      [power]\nbusy_watts = 200\nidle_watts = 60\n";

fn script() -> Vec<Script> {
    // Sizes and times that make EASY reserve and backfill on 4 nodes.
    let raw = [
        (1, 0, 20, 2, 25),
        (2, 1, 30, 3, 40),
        (3, 2, 5, 1, 10),
        (4, 3, 12, 2, 15),
        (5, 4, 8, 1, 30),
        (6, 6, 25, 4, 30),
        (7, 7, 3, 1, 5),
        (8, 9, 14, 2, 20),
        (9, 12, 6, 1, 8),
        (10, 15, 18, 3, 20),
        (11, 16, 4, 1, 6),
        (12, 20, 9, 2, 12),
        // After a quiet stretch (every job above done): a second wave, and a third.
        (13, 150, 10, 2, 15),
        (14, 151, 12, 4, 15),
        (15, 152, 5, 1, 8),
        (16, 175, 6, 3, 8),
        (17, 176, 4, 1, 6),
    ];
    raw.iter()
        .map(|&(id, submit, run, nodes, estimate)| Script {
            id,
            submit: 1_000_000 + submit,
            run,
            nodes,
            estimate,
        })
        .collect()
}

/// Runs the script with kills after the given cycle counts (each run of the loop stops
/// there, and the next starts on the ledger), and `down` cycles of a Slurm refusing every
/// command from cycle `down.0`; returns the starts and the cancels.
fn run(kills: &[u64], down: Option<(u64, u64)>) -> Cluster {
    run_policy(POLICY, None, kills, down)
}

/// As [`run`], under the policy file `text`, with the decisions from `exec` if given.
fn run_policy(text: &str, exec: Option<&str>, kills: &[u64], down: Option<(u64, u64)>) -> Cluster {
    let via = exec.map(|c| ControllerSpec::Exec(c.into()));
    run_via(text, via, kills, down, u64::MAX)
}

/// The `--controller` of a run: an exec policy, or the core's serve loop over the wire
/// protocol (`inline`: the firmware's code in a thread, as `--controller qemu` runs it).
fn options_via(via: &Option<ControllerSpec>) -> (Option<(String, Duration)>, Remote) {
    match via {
        None => (None, None),
        Some(ControllerSpec::Exec(c)) => (Some((c.clone(), Duration::from_secs(20))), None),
        Some(spec) => (
            None,
            Some((spec.clone(), PathBuf::from("none"), Duration::from_secs(20))),
        ),
    }
}

type Remote = Option<(ControllerSpec, PathBuf, Duration)>;

/// As [`run_policy`], the decisions from `via` if given.
fn run_via(
    text: &str,
    via: Option<ControllerSpec>,
    kills: &[u64],
    down: Option<(u64, u64)>,
    compact_bytes: u64,
) -> Cluster {
    run_drained(text, via, kills, down, compact_bytes, None)
}

/// As [`run_via`], with node `drain.0` drained from `drain.1` to `drain.2` (Unix seconds).
fn run_drained(
    text: &str,
    via: Option<ControllerSpec>,
    kills: &[u64],
    down: Option<(u64, u64)>,
    compact_bytes: u64,
    drain: Option<(String, u64, u64)>,
) -> Cluster {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger.json");
    let now: Now = Rc::new(Cell::new(1_000_000));
    let c = Rc::new(RefCell::new(Cluster {
        drain,
        ..Cluster::default()
    }));
    let mut slurm = FakeSlurm {
        now: now.clone(),
        script: script(),
        c: c.clone(),
    };
    let policy = SitePolicy::parse(text, "policy.toml").unwrap();
    let (exec, remote) = options_via(&via);
    let mut segments: Vec<u64> = kills.to_vec();
    segments.push(200);
    let mut compactions = 0;
    let mut log = |m: &str| {
        if m.contains("compacted") {
            compactions += 1;
        }
    };
    let mut done = 0;
    for seg in segments {
        let mut clock = FakeClock(now.clone());
        if let Some((from, len)) = down {
            // Slurm down for `len` cycles from cycle `from`: run up to it, then through it.
            if done < from && done + seg > from {
                let options = Options {
                    policy: policy.clone(),
                    policy_text: text.into(),
                    ledger: ledger.clone(),
                    max_tasks: 64,
                    cycles: Some(from - done),
                    exec: exec.clone(),
                    remote: remote.clone(),
                    compact_bytes,
                };
                serve(&options, &mut slurm, &mut clock, &|| false, &mut log).unwrap();
                c.borrow_mut().down = true;
                let options = Options {
                    cycles: Some(len),
                    ..options
                };
                serve(&options, &mut slurm, &mut clock, &|| false, &mut log).unwrap();
                c.borrow_mut().down = false;
                let options = Options {
                    cycles: Some(seg - (from - done)),
                    ..options
                };
                serve(&options, &mut slurm, &mut clock, &|| false, &mut log).unwrap();
                done += seg + len;
                continue;
            }
        }
        let options = Options {
            policy: policy.clone(),
            policy_text: text.into(),
            ledger: ledger.clone(),
            max_tasks: 64,
            cycles: Some(seg),
            exec: exec.clone(),
            remote: remote.clone(),
            compact_bytes,
        };
        serve(&options, &mut slurm, &mut clock, &|| false, &mut log).unwrap();
        done += seg;
    }
    let mut out = std::mem::take(&mut *c.borrow_mut());
    out.compactions = compactions;
    for s in script() {
        assert_eq!(
            out.jobs[&s.id].state,
            JobState::Finished,
            "job {} did not run to its end",
            s.id
        );
    }
    out
}

#[test]
fn every_job_starts_once_and_kills_change_nothing() {
    let whole = run(&[], None);
    assert_eq!(whole.starts.len(), script().len(), "each job started once");
    // Some job waited (the script exercises the queue).
    assert!(whole
        .starts
        .iter()
        .any(|(j, t, _)| *t > script().iter().find(|s| s.id == *j).unwrap().submit + 1));
    for kills in [&[1u64][..], &[3, 4, 9], &[10, 1, 1, 1, 7], &[25]] {
        let killed = run(kills, None);
        assert_eq!(killed.starts, whole.starts, "kills after cycles {kills:?}");
    }
}

#[test]
fn a_slurm_down_for_a_while_delays_and_loses_nothing() {
    let whole = run(&[], None);
    let down = run(&[], Some((17, 6)));
    assert_eq!(
        down.starts.len(),
        whole.starts.len(),
        "each job started once"
    );
    // The outage delayed something: the schedules differ from its start on.
    assert_ne!(down.starts, whole.starts);
    // Before it, they are the same.
    let before = |c: &Cluster| -> Vec<(u64, u64, Vec<String>)> {
        c.starts
            .iter()
            .filter(|s| s.1 < 1_000_000 + 17)
            .cloned()
            .collect()
    };
    assert_eq!(before(&down), before(&whole));
}

#[test]
fn a_job_cancelled_while_held_is_withdrawn_and_the_rest_run() {
    let inproc = cancelled_while_held(None);
    // The firmware's code over the wire protocol (told the withdrawal) decides the same.
    let wire = cancelled_while_held(Some(ControllerSpec::Inline));
    assert_eq!(wire.starts, inproc.starts);
    assert_eq!(wire.cancels, inproc.cancels);
}

/// One run of a_job_cancelled_while_held_is_withdrawn_and_the_rest_run.
fn cancelled_while_held(via: Option<ControllerSpec>) -> Cluster {
    let (exec, remote) = options_via(&via);
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger.json");
    let now: Now = Rc::new(Cell::new(1_000_000));
    let c = Rc::new(RefCell::new(Cluster::default()));
    let mut slurm = FakeSlurm {
        now: now.clone(),
        script: script(),
        c: c.clone(),
    };
    let policy = SitePolicy::parse(POLICY, "policy.toml").unwrap();
    let mut options = Options {
        policy,
        policy_text: POLICY.into(),
        ledger: ledger.clone(),
        max_tasks: 64,
        cycles: Some(8),
        exec,
        remote,
        compact_bytes: u64::MAX,
    };
    let mut log = |_: &str| {};
    let mut clock = FakeClock(now.clone());
    serve(&options, &mut slurm, &mut clock, &|| false, &mut log).unwrap();
    // A job still held is cancelled by its user.
    let victim = {
        let mut c = c.borrow_mut();
        let j = c.jobs.values_mut().find(|j| j.held()).expect("a held job");
        j.state = JobState::Finished;
        j.state_name = "CANCELLED".into();
        j.id
    };
    options.cycles = Some(200);
    serve(&options, &mut slurm, &mut clock, &|| false, &mut log).unwrap();
    let c = std::mem::take(&mut *c.borrow_mut());
    assert!(
        c.starts.iter().all(|s| s.0 != victim),
        "the cancelled job never starts"
    );
    assert_eq!(c.starts.len(), script().len() - 1);
    c
}

#[test]
fn a_job_that_cannot_be_a_task_is_cancelled_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let now: Now = Rc::new(Cell::new(1_000_000));
    let c = Rc::new(RefCell::new(Cluster::default()));
    let mut s = script();
    s.truncate(2);
    s[1].nodes = 9;
    let mut slurm = FakeSlurm {
        now: now.clone(),
        script: s,
        c: c.clone(),
    };
    let options = Options {
        policy: SitePolicy::parse(POLICY, "p").unwrap(),
        policy_text: POLICY.into(),
        ledger: dir.path().join("l.json"),
        max_tasks: 8,
        cycles: Some(5),
        exec: None,
        remote: None,
        compact_bytes: u64::MAX,
    };
    serve(
        &options,
        &mut slurm,
        &mut FakeClock(now),
        &|| false,
        &mut |_| {},
    )
    .unwrap();
    let c = c.borrow();
    assert_eq!(c.cancels.len(), 1);
    assert_eq!(c.cancels[0].0, 2);
    assert!(
        c.cancels[0].1.contains("asks for 9 nodes"),
        "{}",
        c.cancels[0].1
    );
}

#[test]
fn a_ledger_under_another_policy_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let now: Now = Rc::new(Cell::new(1_000_000));
    let c = Rc::new(RefCell::new(Cluster::default()));
    let mut slurm = FakeSlurm {
        now: now.clone(),
        script: script(),
        c,
    };
    let mut options = Options {
        policy: SitePolicy::parse(POLICY, "p").unwrap(),
        policy_text: POLICY.into(),
        ledger: dir.path().join("l.json"),
        max_tasks: 64,
        cycles: Some(5),
        exec: None,
        remote: None,
        compact_bytes: u64::MAX,
    };
    let mut clock = FakeClock(now);
    serve(&options, &mut slurm, &mut clock, &|| false, &mut |_| {}).unwrap();
    options.policy_text = POLICY.replace("easy", "fcfs");
    let e = serve(&options, &mut slurm, &mut clock, &|| false, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("another policy file"), "{e}");
}

#[test]
fn bad_slurm_json_names_the_command_the_job_and_the_field() {
    let e = parse_jobs(
        "{\"jobs\": [{\"job_id\": 7, \"job_state\": \"PENDING\"}]}",
        "squeue --json",
    )
    .unwrap_err();
    assert!(e.starts_with("squeue --json: job 7: field"), "{e}");
    let e = parse_jobs("[1]", "squeue --json").unwrap_err();
    assert!(e.contains("no \"jobs\" list"), "{e}");
    let e = parse_jobs("{", "squeue --json").unwrap_err();
    assert!(e.contains("not JSON"), "{e}");
    let e = parse_nodes("{\"nodes\": [{\"name\": \"n1\"}]}", "sinfo --json").unwrap_err();
    assert_eq!(e, "sinfo --json: node n1: field \"state\" is missing");
}

#[test]
fn slurm_json_of_22_05_and_of_later_versions_both_read() {
    let old = r#"{"jobs": [{"job_id": 3, "job_state": "PENDING", "state_reason": "JobHeldUser",
        "priority": 0, "node_count": 2, "time_limit": 5, "submit_time": 100, "start_time": 0,
        "end_time": 0, "comment": "kairos: estimate=60", "partition": "kairos", "qos": "",
        "nodes": ""}]}"#;
    let new = r#"{"jobs": [{"job_id": 3, "job_state": ["PENDING"], "state_reason": "JobHeldUser",
        "priority": {"set": true, "infinite": false, "number": 0},
        "node_count": {"set": true, "infinite": false, "number": 2},
        "time_limit": {"set": true, "infinite": false, "number": 5},
        "submit_time": {"set": true, "infinite": false, "number": 100},
        "start_time": {"set": true, "infinite": false, "number": 0},
        "end_time": {"set": true, "infinite": false, "number": 0},
        "comment": "kairos: estimate=60", "partition": "kairos", "qos": "", "nodes": ""}]}"#;
    let a = parse_jobs(old, "squeue").unwrap();
    let b = parse_jobs(new, "squeue").unwrap();
    assert_eq!(a, b);
    assert!(a[0].held());
    assert_eq!(a[0].limit_s, Some(300));
    assert_eq!(a[0].nodes, 2);
}

#[test]
fn policy_errors_name_the_file_and_key() {
    let e = SitePolicy::parse("policy = \"nope\"\npartitions = [\"a\"]\n", "site.toml")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("site.toml: policy = \"nope\""), "{e}");
    let e = SitePolicy::parse(
        "policy = \"easy\"\npartitions = [\"a\"]\nbogus = 1\n",
        "site.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("site.toml") && e.contains("bogus"), "{e}");
    let e = SitePolicy::parse(
        "policy = \"max-upe\"\npartitions = [\"a\"]\ndefault_class = \"x\"\n",
        "site.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no such class"), "{e}");
}

#[test]
fn hints_are_read_and_bad_ones_refused() {
    use super::job_task::hints;
    let h = hints("run 3; kairos: class=urgent watts=250 estimate=600").unwrap();
    assert_eq!(h.class.as_deref(), Some("urgent"));
    assert_eq!(h.watts, Some(250.0));
    assert_eq!(h.estimate_s, Some(600));
    assert_eq!(hints("no hints here").unwrap(), Default::default());
    assert!(hints("kairos: colour=blue")
        .unwrap_err()
        .contains("unknown hint"));
    assert!(hints("kairos: estimate=-3").is_err());
}

#[test]
fn an_exec_controller_decides_as_the_same_policy_in_process() {
    let fcfs = POLICY.replace("easy", "fcfs");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../clients/python/examples/fcfs.py"
    );
    let inline = run_policy(&fcfs, None, &[], None);
    // Killed twice: each restart starts the process afresh and replays the ledger to it.
    let exec = run_policy(&fcfs, Some(&format!("python3 {script}")), &[6, 9], None);
    assert_eq!(exec.starts, inline.starts);
}

#[test]
fn the_firmware_over_the_wire_decides_as_the_controller_in_process() {
    // EASY (reservations taken back and re-placed), and Max UPE with place-holders (which
    // the host does not book): killed twice, each restart greets a fresh controller and
    // replays the ledger to it.
    let upe = "policy = \"max-upe\"\nreservations = \"place-holder\"\npartitions = \
               [\"kairos\"]\npoll_ms = 1000\ndefault_class = \"u\"\n[power]\nbusy_watts = \
               200\nidle_watts = 60\n[classes.u]\nvalue = 10.0\nsoft_s = 30\nhard_s = 90\n\
               final_value = 1.0\n"
        .to_string();
    for text in [POLICY.to_string(), upe] {
        let inproc = run_policy(&text, None, &[], None);
        let wire = run_via(&text, Some(ControllerSpec::Inline), &[6, 9], None, u64::MAX);
        assert_eq!(wire.starts, inproc.starts, "{text}");
        // The same jobs cancelled with the same reasons (the order of one cycle's cancels
        // is the reconciliation's).
        let sorted = |c: &Cluster| {
            let mut v = c.cancels.clone();
            v.sort();
            v
        };
        assert_eq!(sorted(&wire), sorted(&inproc), "{text}");
    }
}

#[test]
fn a_compacted_ledger_replays_to_the_same_schedule() {
    let whole = run(&[], None);
    // Compacted at every chance (any size is past 1 byte), killed before and after some.
    for kills in [&[][..], &[12, 7, 30], &[25, 1, 1]] {
        let compacted = run_via(POLICY, None, kills, None, 1);
        assert!(compacted.compactions > 0, "the script has quiet points");
        assert_eq!(
            compacted.starts, whole.starts,
            "kills after cycles {kills:?}"
        );
    }
}

#[test]
fn a_quiet_point_is_where_no_job_is_held_nor_tracked() {
    use super::ledger::{Applied, Entry, JobFacts, Ledger};
    let facts = JobFacts {
        nodes: 1,
        limit_s: Some(60),
        comment: String::new(),
        partition: "kairos".into(),
        qos: String::new(),
    };
    let arrive = |job, at| Entry::Arrive {
        job,
        at,
        facts: facts.clone(),
    };
    let map = |now, job, kind: &str| Entry::Map {
        now,
        decisions: vec![Applied {
            job,
            kind: kind.into(),
            start: now,
            nodes: vec![],
        }],
    };
    let day = 86_400_000_000u64;
    let ledger = Ledger {
        version: super::ledger::VERSION,
        epoch: 0,
        nodes: vec!["n1".into()],
        policy: String::new(),
        energy_mj: 0,
        entries: vec![
            arrive(1, 0),
            map(0, 1, "start"),
            Entry::Complete { job: 1, at: 10 },
            // Quiet after 3 entries.
            arrive(2, day + 5),
            arrive(3, day + 6),
            map(day + 6, 2, "start"),
            map(day + 6, 3, "drop"),
            Entry::Complete {
                job: 2,
                at: day + 9,
            },
            // Quiet after 8 entries (3 dropped).
            arrive(4, day + 20),
        ],
    };
    let none = |_: u64| false;
    assert_eq!(ledger.quiet_point(&none, false), Some(8));
    // Under a budget, only where the next entry is in a later day.
    assert_eq!(ledger.quiet_point(&none, true), Some(3));
    // Job 3 still tracked (its cancel not yet done): not past its entries.
    assert_eq!(ledger.quiet_point(&|j| j == 3, false), Some(3));
    assert_eq!(ledger.quiet_point(&|j| j == 1, false), None);
    let mut c = ledger.clone();
    c.compact(8);
    assert_eq!(c.entries, ledger.entries[8..].to_vec());
}

/// A node drained midway (n2, from the 5th second to the 60th of the script): no job is
/// started on it while it is drained, the jobs that wait for it run elsewhere or later,
/// and once it is resumed it is used again. In process, over the wire protocol (the
/// firmware's code), and killed and restarted on the ledger: the same starts.
#[test]
fn a_drained_node_is_routed_around_and_used_again_once_resumed() {
    let (from, to) = (1_000_005, 1_000_060);
    let drain = Some(("n2".to_string(), from, to));
    let inproc = run_drained(POLICY, None, &[], None, u64::MAX, drain.clone());
    assert_eq!(inproc.starts.len(), script().len(), "each job started once");
    for (job, t, nodes) in &inproc.starts {
        assert!(
            !((from..to).contains(t) && nodes.contains(&"n2".to_string())),
            "job {job} started on the drained n2 at {t}"
        );
    }
    assert!(
        inproc
            .starts
            .iter()
            .any(|(_, t, nodes)| *t >= to && nodes.contains(&"n2".to_string())),
        "n2 is used again once resumed: {:?}",
        inproc.starts
    );
    // The schedule is not the one without the drain (the drain changed something).
    let plain = run(&[], None);
    assert_ne!(plain.starts, inproc.starts);
    let wire = run_drained(
        POLICY,
        Some(ControllerSpec::Inline),
        &[],
        None,
        u64::MAX,
        drain.clone(),
    );
    assert_eq!(wire.starts, inproc.starts, "over the wire");
    let killed = run_drained(POLICY, None, &[4, 7, 20], None, u64::MAX, drain);
    assert_eq!(killed.starts, inproc.starts, "killed and restarted");
}

/// Slurm 22.05's `sinfo --json` keeps a drain apart from the state; later versions list it
/// in the state: both read as out of service.
#[test]
fn a_drain_flag_reads_as_out_of_service_in_either_form() {
    let old = r#"{"nodes": [{"name": "n1", "state": "idle", "state_flags": ["DRAIN"], "partitions": ["kairos"]},
        {"name": "n2", "state": "idle", "state_flags": [], "partitions": ["kairos"]}]}"#;
    let new = r#"{"nodes": [{"name": "n1", "state": ["IDLE", "DRAIN"], "partitions": ["kairos"]},
        {"name": "n2", "state": ["IDLE"], "partitions": ["kairos"]}]}"#;
    for text in [old, new] {
        let nodes = parse_nodes(text, "sinfo --json").unwrap();
        assert_eq!(nodes[0].state, "idle+drain");
        assert!(nodes[0].unavailable());
        assert!(!nodes[1].unavailable());
    }
}

//! The live controller over a link against the in-process run: the core's serve loop in a
//! thread (the firmware's code, on the host), driven through the wire protocol, gives the
//! same digest, totals and event lines as the engine over the same controller in process;
//! and it still does over a link that corrupts, truncates, drops and duplicates frames.
//! The same through QEMU is `live_qemu.rs`.

use kairos_core::engine::{Observer, Report};
use kairos_core::units::Micros;
use kairos_core::Controller;
use kairos_host::firmware_scenarios::{self, FirmwareScenario};
use kairos_host::live::{self, Client, Driven, EventLine, FaultRates, Faults};
use std::time::Duration;

/// The in-process event lines.
#[derive(Default)]
struct Lines(Vec<EventLine>);

impl Observer for Lines {
    fn after_mapping(&mut self, now: Micros, ctl: &Controller<'_>, decisions: u32) {
        self.0.push(EventLine {
            at: now,
            decisions,
            utility: ctl.utility(),
            consumed: ctl.ledger().consumed(),
        });
    }
}

fn in_process(s: &FirmwareScenario) -> (Report, Vec<EventLine>) {
    let mut lines = Lines::default();
    let report = kairos_host::storage::simulate(
        &s.header.platform,
        &s.header.classes,
        s.header.config,
        s.header.schedule,
        &s.tasks,
        &mut lines,
    )
    .unwrap();
    (report, lines.0)
}

fn over_link(s: &FirmwareScenario, faults: Option<FaultRates>) -> (Driven, live::LinkStats) {
    let link = live::inline(&s.header, live::INLINE_TASKS);
    let mut client = Client::new(link, 1);
    if let Some(rates) = faults {
        client = client.with_faults(Faults::new(rates));
        client.timeout = Duration::from_millis(30);
        // 30 s a request: a mapping event of the debug build on a loaded machine can outlast
        // many 30 ms timeouts (each retry is answered from the cache once it is done).
        client.max_tries = 1000;
    }
    let driven = live::drive(&mut client, &s.header, s.header.schedule, &s.tasks).unwrap();
    (driven, client.stats())
}

fn check(name: &str) {
    let s = firmware_scenarios::scenario(name).unwrap();
    let (want, lines) = in_process(&s);
    let (got, stats) = over_link(&s, None);
    assert_eq!(got.report, want, "{name}: report and digest");
    assert_eq!(got.events, lines, "{name}: event lines");
    assert_eq!(stats.retries, 0);
    assert!(want.completed > 0 && want.mapping_events > 0);
}

#[test]
fn ph_over_the_link_equals_in_process() {
    check("ph");
}

#[test]
fn upe_over_the_link_equals_in_process() {
    check("upe");
}

#[test]
fn a_faulty_link_reaches_the_same_digest_with_retries() {
    let s = firmware_scenarios::scenario("upe").unwrap();
    let (want, lines) = in_process(&s);
    let rates = FaultRates {
        corrupt: 0.02,
        truncate: 0.01,
        drop: 0.02,
        duplicate: 0.02,
        seed: 24,
    };
    let (got, stats) = over_link(&s, Some(rates));
    assert_eq!(got.report, want);
    assert_eq!(got.events, lines);
    let inj = stats.injected;
    assert!(inj.corrupted > 0 && inj.truncated > 0 && inj.dropped > 0 && inj.duplicated > 0);
    assert!(stats.retries > 0, "{stats:?}");
    eprintln!("faulty link: {stats:?}");
}

#[test]
fn a_request_over_capacity_is_refused_and_the_controller_keeps_serving() {
    use kairos_core::wire::message::{Request, Response};
    let s = firmware_scenarios::scenario("ph").unwrap();
    // Four task slots: the fifth arrival is refused with a capacity fault.
    let link = live::inline(&s.header, 4);
    let mut client = Client::new(link, 1);
    let err = live::drive(&mut client, &s.header, s.header.schedule, &s.tasks).unwrap_err();
    assert!(
        format!("{err:#}").contains("capacity exceeded: Tasks"),
        "{err:#}"
    );
    // The session goes on: the status still counts the four that arrived.
    match client.call(&Request::Status).unwrap() {
        Response::Status(st) => assert_eq!(st.counts.arrived, 4),
        r => panic!("{r:?}"),
    }
}

#[test]
fn more_tasks_than_slots_run_through_recycled_slots() {
    // 600 tasks over the day through a controller of 512 slots (a firmware image's).
    let s = firmware_scenarios::scenario("overcap").unwrap();
    assert!(s.tasks.len() > live::INLINE_TASKS);
    let (want, lines) = in_process(&s);
    let link = live::inline(&s.header, live::INLINE_TASKS);
    let mut client = Client::new(link, 1);
    let got = live::drive(&mut client, &s.header, s.header.schedule, &s.tasks).unwrap();
    assert_eq!(got.report, want);
    assert_eq!(got.events, lines);
    assert_eq!(got.capacities.tasks as usize, live::INLINE_TASKS);
}

/// Encoded frame bytes of `body` as request or answer `seq`.
fn frame_len<T: serde::Serialize>(seq: u32, body: T) -> usize {
    use kairos_core::wire::message::{self, Envelope, MAX_PAYLOAD};
    let (mut scratch, mut out) = (vec![0u8; MAX_PAYLOAD], vec![0u8; 2 * MAX_PAYLOAD]);
    message::encode(&Envelope { seq, body }, &mut scratch, &mut out).unwrap()
}

#[test]
fn bytes_on_the_wire_per_task_and_per_decision() {
    use kairos_core::task::TaskId;
    use kairos_core::wire::message::{Decided, Decisions, Fate, Page, Request, Response, PAGE};
    let s = firmware_scenarios::scenario("ph").unwrap();
    let (driven, stats) = over_link(&s, None);
    // A typical sequence number: the middle of the run's.
    let seq = (stats.requests / 2) as u32;
    let n = s.tasks.len();
    let arrivals: usize = s
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            frame_len(seq, Request::Arrival(t.clone()))
                + frame_len(seq, Response::Arrived(TaskId(i as u32)))
        })
        .sum();
    let completion = frame_len(
        seq,
        Request::Completion {
            task: TaskId(200),
            at: s.header.config.day_end,
            seq: 300,
        },
    ) + frame_len(
        seq,
        Response::Completed(kairos_core::units::Utility(3_000_000)),
    );
    let page = |decisions: &[Decided]| {
        frame_len(
            seq,
            Response::Mapped(Page {
                total: decisions.len() as u32,
                from: 0,
                utility: kairos_core::units::Utility(1_000_000_000),
                consumed: kairos_core::units::MilliJoules(80_000_000_000),
                decisions: Decisions::from_slice(decisions).unwrap(),
            }),
        )
    };
    let decided: Vec<Decided> = driven
        .decisions
        .iter()
        .map(|d| Decided {
            decision: *d,
            fate: if matches!(
                d.kind,
                kairos_core::DecisionKind::Start | kairos_core::DecisionKind::Reserve
            ) {
                Fate::Same { seq: 300 }
            } else {
                Fate::None
            },
        })
        .collect();
    let empty_event = frame_len(
        seq,
        Request::Map {
            now: s.header.config.day_end,
        },
    ) + page(&[]);
    let mut decision_bytes = 0;
    for chunk in decided.chunks(PAGE) {
        decision_bytes += page(chunk) - page(&[]);
    }
    let per_task = arrivals as f64 / n as f64;
    let per_decision = decision_bytes as f64 / decided.len() as f64;
    eprintln!(
        "ph on the wire: arrival {per_task:.1} B a task (request and answer), completion \
         {completion} B, an event with no decision {empty_event} B, {per_decision:.1} B a \
         decision ({} decisions)",
        decided.len()
    );
    // The bounds docs/firmware.md and message.rs state.
    assert!(per_task < 120.0);
    assert!(per_decision < 60.0);
    assert!(completion < 40 && empty_event < 40);
}

/// `kairos run --controller inline` on the small ESSC scenario, every heuristic: the summary
/// (digest, totals, trace) is the in-process run's, all but the timings.
#[test]
fn kairos_run_with_an_inline_controller_equals_in_process() {
    use kairos_core::Heuristic;
    use kairos_host::run::{run_trial, RunOptions};
    use kairos_host::scenario::Scenario;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/essc_small.toml");
    let scenario = Scenario::load(&path).unwrap();
    for h in Heuristic::ALL {
        let opts = RunOptions::new(h);
        let want = run_trial(&scenario, &opts).unwrap();
        let (got, stats) = live::run_trial(
            &scenario,
            &opts,
            &live::ControllerSpec::Inline,
            std::path::Path::new("unused"),
            live::exec::DEFAULT_TIMEOUT,
        )
        .unwrap();
        assert_eq!(got.digest, want.digest, "{h}");
        assert_eq!(
            (
                got.arrived,
                got.completed,
                got.dropped,
                got.unfinished,
                got.mapping_events
            ),
            (
                want.arrived,
                want.completed,
                want.dropped,
                want.unfinished,
                want.mapping_events
            ),
            "{h}"
        );
        assert_eq!(got.utility, want.utility, "{h}");
        assert_eq!(got.energy_joules, want.energy_joules, "{h}");
        assert_eq!(got.trace, want.trace, "{h}: the trace's lines");
        assert!(stats.requests > 0 && stats.retries == 0);
    }
}

#[test]
fn bad_controller_flags_are_clear_errors() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(args)
            .output()
            .unwrap()
    };
    let small = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/essc_small.toml");
    let out = run(&[
        "run",
        small,
        "--heuristic",
        "max-upe",
        "--controller",
        "usb",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected inline, qemu, serial:/dev/PATH or exec:COMMAND"),
        "{err}"
    );
    let out = run(&[
        "run",
        small,
        "--heuristic",
        "max-upe",
        "--controller",
        "qemu",
        "--image",
        "/nonexistent/kairos-firmware",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/nonexistent/kairos-firmware: no live firmware image"),
        "{err}"
    );
}

/// A controller that runs for ever: three days of `ph`'s tasks (a day is its 7 hours)
/// through a table of 16 slots, each started task's completion reported at its end. Slots
/// are recycled and the energy day rolls over: the controller keeps starting tasks on the
/// second and third days, and never runs out of slots.
#[test]
fn three_days_through_sixteen_slots() {
    use kairos_core::wire::message::{Fate, Request, Response};
    use kairos_core::DecisionKind;
    let s = firmware_scenarios::scenario("ph").unwrap();
    let mut header = s.header.clone();
    header.config.budget = kairos_core::units::MilliJoules::MAX;
    let cfg = header.config;
    let day = cfg.day_end - cfg.day_start;
    let mut client = Client::new(live::inline(&header, 16), 1);
    let mut hello = vec![0u8; kairos_core::wire::message::MAX_PAYLOAD];
    let n = kairos_core::packed::encode_header(&header, &mut hello).unwrap();
    let r = client
        .call(&Request::Hello {
            version: kairos_core::wire::message::VERSION,
            header: &hello[..n],
        })
        .unwrap();
    assert!(matches!(r, Response::Hello(c) if c.tasks == 16));
    // One task every 12 minutes from the first day's start, for three days.
    let count = (3 * day.0 / Micros::from_mins(12).0) as usize;
    let mut pending: Vec<(Micros, u32, u32)> = Vec::new();
    let mut started_per_day = [0u32; 3];
    for i in 0..count {
        let at = cfg.day_start + Micros(i as u64 * Micros::from_mins(12).0);
        // Completions due by now, in time order.
        pending.sort();
        while pending.first().is_some_and(|p| p.0 <= at) {
            let (end, task, seq) = pending.remove(0);
            let r = client
                .call(&Request::Completion {
                    task: kairos_core::task::TaskId(task),
                    at: end,
                    seq,
                })
                .unwrap();
            assert!(
                matches!(r, Response::Completed(_) | Response::Stale),
                "{r:?}"
            );
        }
        let mut t = s.tasks[i % s.tasks.len()].clone();
        t.arrival = at;
        t.actual = None;
        let r = client.call(&Request::Arrival(t)).unwrap();
        assert!(matches!(r, Response::Arrived(_)), "arrival {i}: {r:?}");
        let Response::Mapped(page) = client.call(&Request::Map { now: at }).unwrap() else {
            panic!("no page");
        };
        assert!(
            page.total as usize <= page.decisions.len(),
            "one page is enough here"
        );
        for d in &page.decisions {
            let (end, seq) = match (d.decision.kind, d.fate) {
                (DecisionKind::Start | DecisionKind::Reserve, Fate::Same { seq }) => {
                    (d.decision.end, seq)
                }
                (DecisionKind::Start | DecisionKind::Reserve, Fate::Moved { end, seq, .. }) => {
                    (end, seq)
                }
                _ => continue,
            };
            if d.decision.kind == DecisionKind::Start {
                let k = ((at - cfg.day_start).0 / day.0) as usize;
                started_per_day[k.min(2)] += 1;
            }
            pending.push((end, d.decision.task.0, seq));
        }
    }
    let Response::Status(st) = client.call(&Request::Status).unwrap() else {
        panic!("no status");
    };
    assert_eq!(st.counts.arrived as usize, count);
    assert!(count > 6 * 16, "{count} tasks, six times the slots");
    assert!(st.slots_used <= 16);
    assert_eq!(st.day_end, cfg.day_end + day + day);
    assert!(
        started_per_day.iter().all(|&n| n > 10),
        "{started_per_day:?}"
    );
}

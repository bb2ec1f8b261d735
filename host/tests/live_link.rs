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
        client.max_tries = 200;
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

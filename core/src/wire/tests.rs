//! The wire protocol's tests: messages round-trip, random bytes never panic, and a scripted
//! session through [`serve`] answers as the controller would, retries included.
extern crate std;

use super::frame::{self, FrameError, Reader};
use super::message::{self, *};
use super::serve::{serve, Buffers, NoWatch, Port};
use crate::config::{Config, Heuristic};
use crate::engine::Schedule;
use crate::packed::{encode_header, PackedHeader};
use crate::plan::{Decision, DecisionKind, MemoEntry, Storage, StorageSizes, TaskSlot, Work};
use crate::platform::{Cluster, ClusterId, ClusterKind, PState, Placement, Platform, TaskTypeId};
use crate::task::{Demand, Task, TaskId};
use crate::timeline::{Booking, Logged};
use crate::units::{Micros, MilliJoules, MilliWatts, NodeCount, Utility};
use crate::utility::{Urgency, UtilityClasses, UtilityCurve};
use core::mem::MaybeUninit;
use proptest::prelude::*;
use std::boxed::Box;
use std::string::ToString;
use std::vec;
use std::vec::Vec;

fn header() -> PackedHeader {
    let cl = Cluster {
        nodes: NodeCount(8),
        cores_per_node: 16,
        kind: ClusterKind::General,
    };
    let mut platform = Platform::new(&[cl, cl], 3).unwrap();
    let p = Placement {
        nodes: NodeCount(2),
        etc: [
            Micros::from_mins(10),
            Micros::from_mins(12),
            Micros::from_mins(15),
            Micros::ZERO,
        ],
        apc: [
            MilliWatts(133_000),
            MilliWatts(100_000),
            MilliWatts(66_000),
            MilliWatts(0),
        ],
    };
    platform.add_resolved_type(&[Some(p), None]).unwrap();
    platform.add_resolved_type(&[Some(p), Some(p)]).unwrap();
    PackedHeader {
        platform,
        classes: UtilityClasses::essc20(),
        config: Config::new(Heuristic::MaxUpr, Micros::ZERO, Micros::from_hours(2)),
        schedule: Schedule::every(Micros::MINUTE),
        tasks: 0,
    }
}

fn task(i: u32) -> Task {
    Task {
        id: TaskId(0),
        arrival: Micros::from_secs(7 * i as u64),
        demand: Demand::Typed(TaskTypeId((i % 2) as u16)),
        curve: UtilityCurve::essc(
            1.0 + i as f64 / 3.0,
            Urgency::ALL[i as usize % 4],
            Micros::from_mins(11),
            (i % 20) as u8,
        ),
        actual: None,
    }
}

fn header_bytes() -> Vec<u8> {
    bytes_of(&header())
}

fn bytes_of(h: &PackedHeader) -> Vec<u8> {
    let mut buf = vec![0u8; MAX_PAYLOAD];
    let n = encode_header(h, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

fn frame_of<T: serde::Serialize>(seq: u32, body: T) -> Vec<u8> {
    let (mut scratch, mut out) = (vec![0u8; MAX_PAYLOAD], vec![0u8; 2 * MAX_PAYLOAD]);
    let n = message::encode(&Envelope { seq, body }, &mut scratch, &mut out).unwrap();
    out.truncate(n);
    out
}

/// A port that reads a script and records what is written.
struct Script {
    input: Vec<u8>,
    at: usize,
    output: Vec<u8>,
}

impl Port for Script {
    fn read(&mut self) -> Option<u8> {
        let b = self.input.get(self.at).copied();
        self.at += 1;
        b
    }
    fn write(&mut self, bytes: &[u8]) {
        self.output.extend_from_slice(bytes);
    }
}

/// Serves `input` over fresh buffers of `tasks` slots; returns the answers in order.
fn run(input: Vec<u8>, tasks: usize, decisions: usize) -> Vec<Envelope<Response>> {
    let h = header();
    let s = StorageSizes::of(&h.platform, tasks);
    let mut slot = Box::new(MaybeUninit::<PackedHeader>::uninit());
    let mut t = vec![TaskSlot::EMPTY; s.tasks];
    let mut bookings = vec![Booking::EMPTY; s.bookings];
    let mut members = vec![0; s.members];
    let (mut a, mut b) = (vec![0; s.scratch], vec![0; s.scratch]);
    let mut work = vec![Work::default(); s.work];
    let mut open = vec![0; s.open];
    let mut memo = vec![MemoEntry::default(); 64];
    let mut log = vec![Logged::EMPTY; s.booking_log];
    let blank = Decided {
        decision: Decision {
            task: TaskId(0),
            kind: DecisionKind::Drop,
            cluster: ClusterId(0),
            nodes: NodeCount(0),
            pstate: PState(0),
            start: Micros::ZERO,
            end: Micros::ZERO,
        },
        fate: Fate::None,
    };
    let mut dec = vec![blank; decisions];
    let frame = frame::max_encoded_len(MAX_PAYLOAD);
    let (mut rx, mut tx, mut scratch) = (vec![0; frame], vec![0; frame], vec![0; MAX_PAYLOAD]);
    let mut port = Script {
        input,
        at: 0,
        output: Vec::new(),
    };
    serve(
        &mut port,
        Buffers {
            header: &mut slot,
            storage: Storage {
                tasks: &mut t,
                bookings: &mut bookings,
                members: &mut members,
                scratch_a: &mut a,
                scratch_b: &mut b,
                work: &mut work,
                open: &mut open,
                memo: &mut memo,
                voids: &mut [],
                booking_log: &mut log,
            },
            decisions: &mut dec,
            rx: &mut rx,
            tx: &mut tx,
            scratch: &mut scratch,
        },
        &mut NoWatch,
    );
    let mut reader = Reader::new(vec![0u8; frame]);
    let mut out = Vec::new();
    for &byte in &port.output {
        if let Some(p) = reader.push(byte) {
            out.push(message::decode::<Response>(p.unwrap()).unwrap());
        }
    }
    out
}

fn hello(header: &[u8]) -> Request<'_> {
    Request::Hello {
        version: VERSION,
        header,
    }
}

#[test]
fn a_session_answers_every_request() {
    let hb = header_bytes();
    let mut input = frame_of(1, hello(&hb));
    for i in 0..6 {
        input.extend(frame_of(2 + i, Request::Arrival(task(i))));
    }
    input.extend(frame_of(
        8,
        Request::Map {
            now: Micros::MINUTE,
        },
    ));
    input.extend(frame_of(9, Request::Status));
    let out = run(input, 16, 64);
    assert_eq!(out.len(), 9);
    assert!(matches!(out[0].body, Response::Hello(c) if c.version == VERSION && c.tasks == 16));
    for i in 0..6 {
        assert_eq!(out[1 + i].seq, 2 + i as u32);
        assert_eq!(out[1 + i].body, Response::Arrived(TaskId(i as u32)));
    }
    let Response::Mapped(page) = &out[7].body else {
        panic!("{:?}", out[7]);
    };
    assert!(page.total > 0);
    assert_eq!(page.decisions.len(), page.total as usize);
    for d in &page.decisions {
        match d.decision.kind {
            DecisionKind::Start | DecisionKind::Reserve => {
                assert!(matches!(d.fate, Fate::Same { .. }))
            }
            _ => assert_eq!(d.fate, Fate::None),
        }
    }
    let Response::Status(st) = out[8].body else {
        panic!();
    };
    assert_eq!(st.counts.arrived, 6);
    assert_eq!(st.counts.mapping_events, 1);
    assert_eq!(st.now, Micros::MINUTE);
}

#[test]
fn a_retry_is_answered_from_the_cache_and_not_served_again() {
    let hb = header_bytes();
    let mut input = frame_of(1, hello(&hb));
    input.extend(frame_of(2, Request::Arrival(task(0))));
    // The same arrival again (its answer was lost), then garbage, then once more.
    input.extend(frame_of(2, Request::Arrival(task(0))));
    input.extend([0x55, 0x13, 0x00]);
    input.extend(frame_of(2, Request::Arrival(task(0))));
    input.extend(frame_of(3, Request::Status));
    let out = run(input, 16, 64);
    let bodies: Vec<_> = out.iter().map(|e| (e.seq, e.body.clone())).collect();
    assert_eq!(bodies[1], (2, Response::Arrived(TaskId(0))));
    assert_eq!(bodies[2], (2, Response::Arrived(TaskId(0))));
    assert!(matches!(bodies[3], (0, Response::Fault(Fault::Garbled(_)))));
    assert_eq!(bodies[4], (2, Response::Arrived(TaskId(0))));
    let Response::Status(st) = bodies[5].1 else {
        panic!();
    };
    assert_eq!(st.counts.arrived, 1, "the retries made no second arrival");
}

#[test]
fn faults_name_what_is_wrong_and_the_controller_keeps_serving() {
    let hb = header_bytes();
    let mut input = frame_of(1, Request::Status);
    input.extend(frame_of(
        2,
        Request::Hello {
            version: VERSION + 1,
            header: &hb,
        },
    ));
    input.extend(frame_of(3, hello(&hb[..hb.len() / 2])));
    input.extend(frame_of(4, hello(&hb)));
    // Two tasks fill a table of two; the third is refused; the session goes on.
    for i in 0..3 {
        input.extend(frame_of(5 + i, Request::Arrival(task(i))));
    }
    input.extend(frame_of(
        8,
        Request::Completion {
            task: TaskId(0),
            at: Micros::from_secs(30),
            seq: 1,
        },
    ));
    input.extend(frame_of(9, Request::Page { from: 5 }));
    input.extend(frame_of(10, Request::Reset));
    input.extend(frame_of(11, Request::Status));
    let out = run(input, 2, 64);
    let b: Vec<_> = out.iter().map(|e| e.body.clone()).collect();
    assert_eq!(b[0], Response::Fault(Fault::NoSession));
    assert_eq!(b[1], Response::Fault(Fault::Version(VERSION)));
    assert!(matches!(b[2], Response::Fault(Fault::Core(_))));
    assert!(matches!(b[3], Response::Hello(_)));
    assert_eq!(b[4], Response::Arrived(TaskId(0)));
    assert_eq!(b[5], Response::Arrived(TaskId(1)));
    assert!(matches!(
        b[6],
        Response::Fault(Fault::Core(crate::error::Error::Capacity(_)))
    ));
    assert_eq!(b[7], Response::Stale, "task 0 never started");
    assert_eq!(b[8], Response::Fault(Fault::NoSuchPage(5)));
    assert_eq!(b[9], Response::Reset);
    assert_eq!(b[10], Response::Fault(Fault::NoSession));
}

#[test]
fn an_event_with_more_decisions_than_kept_ends_the_session() {
    let hb = header_bytes();
    let mut input = frame_of(1, hello(&hb));
    for i in 0..6 {
        input.extend(frame_of(2 + i, Request::Arrival(task(i))));
    }
    input.extend(frame_of(
        8,
        Request::Map {
            now: Micros::MINUTE,
        },
    ));
    input.extend(frame_of(9, Request::Status));
    let out = run(input, 16, 2);
    assert_eq!(out[7].body, Response::Fault(Fault::Lost(2)));
    assert_eq!(out[8].body, Response::Fault(Fault::NoSession));
}

#[test]
fn pages_split_a_large_event() {
    // Conservative reserves every task: a decision each.
    let mut h = header();
    h.config = Config::new(Heuristic::Conservative, Micros::ZERO, Micros::from_hours(2));
    let hb = bytes_of(&h);
    let mut input = frame_of(1, hello(&hb));
    let n = 2 * PAGE as u32 + 5;
    for i in 0..n {
        let mut t = task(i);
        t.arrival = Micros::from_secs(i as u64 / 4);
        input.extend(frame_of(2 + i, Request::Arrival(t)));
    }
    input.extend(frame_of(
        2 + n,
        Request::Map {
            now: Micros::MINUTE,
        },
    ));
    input.extend(frame_of(3 + n, Request::Page { from: PAGE as u32 }));
    let out = run(input, 256, 512);
    let Response::Mapped(first) = &out[1 + n as usize].body else {
        panic!("{:?}", out[1 + n as usize]);
    };
    let Response::Mapped(second) = &out[2 + n as usize].body else {
        panic!("{} {:?}", first.total, out[2 + n as usize]);
    };
    assert!(first.total as usize > PAGE, "{}", first.total);
    assert_eq!(first.decisions.len(), PAGE);
    assert_eq!(second.from, PAGE as u32);
    assert_eq!(
        second.decisions.len(),
        (first.total as usize - PAGE).min(PAGE)
    );
}

#[test]
fn messages_round_trip_within_the_payload_limit() {
    let hb = header_bytes();
    let reqs = [
        hello(&hb),
        Request::Arrival(task(3)),
        Request::Completion {
            task: TaskId(7),
            at: Micros::from_secs(99),
            seq: 12,
        },
        Request::Map {
            now: Micros::from_hours(3),
        },
        Request::Page { from: 48 },
        Request::Status,
        Request::Reset,
    ];
    for (i, r) in reqs.iter().enumerate() {
        let f = frame_of(i as u32, r.clone());
        let mut reader = Reader::new(vec![0u8; f.len()]);
        let got = f
            .iter()
            .find_map(|&b| reader.push(b).map(|p| p.unwrap().to_vec()));
        let env: Envelope<Request<'_>> = message::decode(got.as_ref().unwrap()).unwrap();
        assert_eq!(&env.body, r);
        assert_eq!(env.seq, i as u32);
    }
    let d = Decided {
        decision: Decision {
            task: TaskId(u32::MAX),
            kind: DecisionKind::Reserve,
            cluster: ClusterId(u8::MAX),
            nodes: NodeCount(u32::MAX),
            pstate: PState(u8::MAX),
            start: Micros::MAX,
            end: Micros::MAX,
        },
        fate: Fate::Moved {
            start: Micros::MAX,
            end: Micros::MAX,
            seq: u32::MAX,
        },
    };
    let page = Page {
        total: u32::MAX,
        from: u32::MAX,
        utility: Utility(u64::MAX),
        consumed: MilliJoules(u64::MAX),
        decisions: heapless::Vec::from_slice(&[d; PAGE]).unwrap(),
    };
    // The largest page fits the payload limit.
    let f = frame_of(u32::MAX, Response::Mapped(page.clone()));
    assert!(f.len() <= frame::max_encoded_len(MAX_PAYLOAD));
    let mut copy = f[..f.len() - 1].to_vec();
    let env: Envelope<Response> = message::decode(frame::decode(&mut copy).unwrap()).unwrap();
    assert_eq!(env.body, Response::Mapped(page));
}

#[test]
fn trailing_bytes_and_oversize_are_errors() {
    let mut scratch = vec![0u8; 16];
    let mut out = vec![0u8; 64];
    let big = Request::Arrival(task(1));
    assert_eq!(
        message::encode(&Envelope { seq: 1, body: big }, &mut scratch, &mut out),
        Err(MessageError::TooLarge)
    );
    let payload = with_trailing_byte(1, Request::Status);
    assert_eq!(
        message::decode::<Request<'_>>(&payload).map(|e| e.seq),
        Err(MessageError::Undecodable)
    );
    assert_eq!(frame::decode(&mut [1, 1]), Err(FrameError::TooShort));
}

/// A payload of `body` with one byte too many.
fn with_trailing_byte(seq: u32, body: Request<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; 64];
    let n = ::postcard::to_slice(&Envelope { seq, body }, &mut buf)
        .unwrap()
        .len();
    buf.truncate(n + 1);
    buf
}

proptest! {
    #[test]
    fn random_payloads_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = message::decode::<Request<'_>>(&bytes);
        let _ = message::decode::<Response>(&bytes);
        let _ = message::peek_seq(&bytes);
    }

    #[test]
    fn random_bytes_into_the_server_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let hb = header_bytes();
        let mut input = frame_of(1, hello(&hb));
        input.extend(bytes);
        input.push(0);
        input.extend(frame_of(u32::MAX, Request::Status));
        let out = run(input, 8, 32);
        prop_assert!(matches!(out.last().unwrap().body, Response::Status(_)));
    }

    #[test]
    fn arrivals_round_trip(i in 0u32..10_000, seq in any::<u32>()) {
        let f = frame_of(seq, Request::Arrival(task(i)));
        let mut copy = f[..f.len() - 1].to_vec();
        let env: Envelope<Request<'_>> = message::decode(frame::decode(&mut copy).unwrap()).unwrap();
        prop_assert_eq!(env.seq, seq);
        prop_assert_eq!(env.body, Request::Arrival(task(i)));
    }
}

/// Storage of `tasks` slots for `h`'s platform, leaked (a test's controller lives to its end).
fn leaked_storage(h: &PackedHeader, tasks: usize) -> Storage<'static> {
    let s = StorageSizes::of(&h.platform, tasks);
    Storage {
        tasks: vec![TaskSlot::EMPTY; s.tasks].leak(),
        bookings: vec![Booking::EMPTY; s.bookings].leak(),
        members: vec![0; s.members].leak(),
        scratch_a: vec![0; s.scratch].leak(),
        scratch_b: vec![0; s.scratch].leak(),
        work: vec![Work::default(); s.work].leak(),
        open: vec![0; s.open].leak(),
        memo: vec![MemoEntry::default(); 64].leak(),
        voids: &mut [],
        booking_log: vec![Logged::EMPTY; s.booking_log].leak(),
    }
}

#[test]
fn without_recycling_a_full_table_refuses_arrivals() {
    use crate::controller::Controller;
    let h = Box::leak(Box::new(header()));
    h.config = Config::new(
        Heuristic::Conservative,
        Micros::ZERO,
        Micros::from_hours(48),
    );
    let mut ctl = Controller::new(&h.platform, &h.classes, h.config, leaked_storage(h, 2)).unwrap();
    for i in 0..3u32 {
        let t = Micros::from_hours(i as u64);
        let mut task = task(i);
        task.arrival = t;
        let got = ctl.on_arrival(task);
        if i < 2 {
            assert_eq!(got.unwrap(), TaskId(i));
            let mut started = Vec::new();
            ctl.on_mapping_event(t, &mut |d| started.push(*d)).unwrap();
            ctl.on_completion(started[0].task, started[0].end).unwrap();
        } else {
            assert!(matches!(got, Err(crate::error::Error::Capacity(_))));
        }
    }
}

#[test]
fn slots_are_recycled_once_their_tasks_are_done() {
    use crate::controller::Controller;
    let h = Box::leak(Box::new(header()));
    h.config = Config::new(
        Heuristic::Conservative,
        Micros::ZERO,
        Micros::from_hours(48),
    );
    let mut ctl = Controller::new(&h.platform, &h.classes, h.config, leaked_storage(h, 4)).unwrap();
    ctl.recycle_slots();
    // One task an hour for 40 hours through a table of 4: each runs and ends within its hour.
    for i in 0..40u32 {
        let t = Micros::from_hours(i as u64);
        let mut task = task(i);
        task.arrival = t;
        assert_eq!(ctl.on_arrival(task).unwrap(), TaskId(i));
        let mut started = Vec::new();
        ctl.on_mapping_event(t, &mut |d| {
            if d.kind == DecisionKind::Start {
                started.push(*d)
            }
        })
        .unwrap();
        assert_eq!(started.len(), 1, "task {i} starts at once");
        let d = started[0];
        ctl.on_completion(d.task, d.end).unwrap();
        assert_eq!(ctl.slots_used(), 0);
        assert!(ctl.task(TaskId(i)).is_some());
        if i >= 4 {
            assert!(
                ctl.task(TaskId(i - 4)).is_none(),
                "slot of {} recycled",
                i - 4
            );
            assert_eq!(
                ctl.on_completion(TaskId(i - 4), d.end),
                Err(crate::error::InputError::UnknownTask(i - 4).into())
            );
        }
    }
    assert_eq!(ctl.counts().completed, 40);
    // A task done but still on the open list keeps its slot until the next event clears it.
    let t = Micros::from_hours(41);
    ctl.on_mapping_event(t, &mut |_| {}).unwrap();
    // Four tasks waiting fill the table: a fifth is a capacity error, and the slots stay.
    for i in 40..44 {
        let mut task = task(i);
        task.arrival = t;
        ctl.on_arrival(task).unwrap();
    }
    let mut task = task(44);
    task.arrival = t;
    let full = ctl.on_arrival(task).unwrap_err();
    assert!(matches!(full, crate::error::Error::Capacity(_)));
    assert!(
        full.to_string()
            .starts_with("capacity exceeded: Tasks holds at most 4, this run needs 5 ("),
        "{full}"
    );
    assert_eq!(ctl.slots_used(), 4);
}

#[test]
fn a_long_task_does_not_hold_up_the_slots_after_it() {
    use crate::controller::Controller;
    let h = Box::leak(Box::new(header()));
    h.config = Config::new(
        Heuristic::Conservative,
        Micros::ZERO,
        Micros::from_hours(48),
    );
    let mut ctl = Controller::new(&h.platform, &h.classes, h.config, leaked_storage(h, 4)).unwrap();
    ctl.recycle_slots();
    // Task 0 runs for its whole 10 minutes while tasks 1 to 15 arrive every 30 s, start and
    // end a second later, through a table of 4: task 4's home slot is task 0's, so a ring
    // (slot `id % 4`, or a capacity error) would refuse it; the table finds it another.
    let mut ends = Vec::new();
    for i in 0..16u32 {
        let t = Micros::from_secs(30 * i as u64);
        let mut task = task(i);
        task.arrival = t;
        assert_eq!(ctl.on_arrival(task).unwrap(), TaskId(i), "task {i}");
        let mut started = Vec::new();
        ctl.on_mapping_event(t, &mut |d| {
            if d.kind == DecisionKind::Start {
                started.push(*d)
            }
        })
        .unwrap();
        assert_eq!(started.len(), 1, "task {i} starts at once");
        let d = started[0];
        assert_eq!(d.task, TaskId(i));
        if i == 0 {
            ends.push(d.end);
        } else {
            ctl.on_completion(d.task, t + Micros::from_secs(1)).unwrap();
        }
        assert!(ctl.task(TaskId(0)).is_some(), "task 0 keeps its slot");
        assert!(ctl.task(TaskId(i)).is_some());
    }
    assert!(ends[0] > Micros::from_secs(30 * 15));
    ctl.on_completion(TaskId(0), ends[0]).unwrap();
    assert_eq!(ctl.counts().completed, 16);
    assert_eq!(ctl.slots_used(), 0);
}

#[test]
fn the_energy_day_rolls_over_at_a_mapping_event_past_its_end() {
    use crate::controller::Controller;
    let h = Box::leak(Box::new(header()));
    let day = Micros::from_hours(2);
    h.config = Config::new(Heuristic::Conservative, Micros::ZERO, day);
    let mut ctl = Controller::new(&h.platform, &h.classes, h.config, leaked_storage(h, 8)).unwrap();
    ctl.recycle_slots();
    // A task starts 3 minutes before the day's end and runs on into the next day.
    let t0 = day - Micros::from_mins(3);
    let mut first = task(0);
    first.arrival = t0;
    ctl.on_arrival(first).unwrap();
    let mut started = Vec::new();
    ctl.on_mapping_event(t0, &mut |d| started.push(*d)).unwrap();
    let d = started[0];
    assert_eq!(d.kind, DecisionKind::Start);
    assert!(d.end > day);
    let committed_before = ctl.ledger().committed();
    assert!(committed_before > MilliJoules::ZERO);
    // Past the end, a task that arrives cannot start without a new day.
    let mut second = task(1);
    second.arrival = day + Micros::from_mins(1);
    ctl.on_arrival(second).unwrap();
    assert!(!ctl.roll_day(day - Micros(1)));
    assert!(ctl.roll_day(day + Micros::from_mins(1)));
    assert_eq!(ctl.config().day_start, day);
    assert_eq!(ctl.config().day_end, day + day);
    assert_eq!(ctl.ledger().consumed(), MilliJoules::ZERO);
    assert_eq!(ctl.utility(), Utility::ZERO);
    // The running task's commitment is now its share of the new day, its run after `day`:
    // committed before, 3 minutes' worth; now the rest.
    let c = ctl.ledger().committed();
    let run = (d.end - d.start).0 as u128;
    let total = committed_before.0 as u128 * run / (day - d.start).0 as u128;
    assert_eq!(c.0 as u128, total * (d.end - day).0 as u128 / run);
    let mut again = Vec::new();
    ctl.on_mapping_event(day + Micros::from_mins(1), &mut |d| again.push(*d))
        .unwrap();
    assert!(
        again
            .iter()
            .any(|d| d.task == TaskId(1) && d.kind == DecisionKind::Start),
        "the new day's task starts: {again:?}"
    );
    // The first task completes: it consumes its new-day share, at most what it committed.
    ctl.on_completion(TaskId(0), d.end).unwrap();
    assert!(ctl.ledger().consumed() > MilliJoules::ZERO);
    assert!(ctl.ledger().consumed() <= c);
}

#[test]
fn a_mapping_event_past_the_day_rolls_it_over_in_a_session() {
    let mut h = header();
    h.config = Config::new(Heuristic::Conservative, Micros::ZERO, Micros::from_hours(2));
    let hb = bytes_of(&h);
    let mut input = frame_of(1, hello(&hb));
    input.extend(frame_of(2, Request::Status));
    input.extend(frame_of(
        3,
        Request::Map {
            now: Micros::from_hours(5),
        },
    ));
    input.extend(frame_of(4, Request::Status));
    let out = run(input, 2, 64);
    let day_end = |r: &Response| match r {
        Response::Status(st) => st.day_end,
        r => panic!("{r:?}"),
    };
    assert_eq!(day_end(&out[1].body), Micros::from_hours(2));
    assert_eq!(day_end(&out[3].body), Micros::from_hours(6));
}

/// A waiting task withdrawn over the wire is dropped (counted so) and never decided; a
/// task withdrawn twice, or one never arrived, is a fault and changes nothing.
#[test]
fn a_withdrawn_task_is_never_decided() {
    let hb = header_bytes();
    let mut input = frame_of(1, hello(&hb));
    for i in 0..3 {
        input.extend(frame_of(2 + i, Request::Arrival(task(i))));
    }
    let at = Micros::from_secs(20);
    input.extend(frame_of(
        5,
        Request::Withdraw {
            task: TaskId(1),
            at,
        },
    ));
    input.extend(frame_of(
        6,
        Request::Withdraw {
            task: TaskId(1),
            at,
        },
    ));
    input.extend(frame_of(
        7,
        Request::Withdraw {
            task: TaskId(9),
            at,
        },
    ));
    input.extend(frame_of(
        8,
        Request::Map {
            now: Micros::MINUTE,
        },
    ));
    input.extend(frame_of(9, Request::Status));
    let out = run(input, 16, 64);
    assert_eq!(out.len(), 9);
    assert_eq!(out[4].body, Response::Withdrawn);
    assert!(matches!(out[5].body, Response::Fault(Fault::Core(_))));
    assert!(matches!(out[6].body, Response::Fault(Fault::Core(_))));
    let Response::Mapped(page) = &out[7].body else {
        panic!("{:?}", out[7]);
    };
    assert!(page.total > 0);
    assert!(page.decisions.iter().all(|d| d.decision.task != TaskId(1)));
    let Response::Status(st) = out[8].body else {
        panic!("{:?}", out[8]);
    };
    assert_eq!(st.counts.arrived, 3);
    assert!(st.counts.dropped >= 1);
}

/// A node's change of service round-trips, and the messages before it keep their encoding:
/// a withdrawal is still variant 7 of the requests and its answer variant 8 of the answers
/// (postcard writes the variant's index first, after the sequence number), the new ones
/// come after them.
#[test]
fn a_change_of_service_round_trips_and_the_older_messages_keep_their_bytes() {
    let r = Request::NodeService {
        cluster: ClusterId(1),
        node: 7,
        in_service: false,
        at: Micros::from_secs(42),
    };
    let f = frame_of(5, r.clone());
    let mut copy = f[..f.len() - 1].to_vec();
    let env: Envelope<Request<'_>> = message::decode(frame::decode(&mut copy).unwrap()).unwrap();
    assert_eq!(env.body, r);
    let payload = |body: &Request<'_>| {
        let mut buf = [0u8; 64];
        let env = Envelope {
            seq: 5,
            body: body.clone(),
        };
        postcard::to_slice(&env, &mut buf).unwrap().to_vec()
    };
    let withdraw = Request::Withdraw {
        task: TaskId(3),
        at: Micros(9),
    };
    assert_eq!(payload(&withdraw), [5, 7, 3, 9]);
    assert_eq!(payload(&r)[..5], [5, 8, 1, 7, 0]);
    let answer = |body: Response| {
        let mut buf = [0u8; 64];
        postcard::to_slice(&Envelope { seq: 5, body }, &mut buf)
            .unwrap()
            .to_vec()
    };
    assert_eq!(answer(Response::Withdrawn), [5, 8]);
    assert_eq!(answer(Response::NodeService), [5, 9]);
    assert_eq!(answer(Response::Stale), [5, 3]);
}

/// Cluster 0 of the test platform (8 nodes; type 0 runs there only, on 2 nodes) with all
/// but one node out of service: no type-0 task starts until a node is back. The session
/// over the wire decides as a controller in process told the same, and a node that does
/// not exist is a fault that changes nothing.
#[test]
fn nodes_out_of_service_are_never_booked_over_the_wire_as_in_process() {
    use crate::controller::Controller;
    let hb = header_bytes();
    let mut input = frame_of(1, hello(&hb));
    let mut seq = 2;
    let mut push = |input: &mut Vec<u8>, r: Request<'_>| {
        input.extend(frame_of(seq, r));
        seq += 1;
    };
    let out_at = Micros::ZERO;
    for node in 1..8 {
        push(
            &mut input,
            Request::NodeService {
                cluster: ClusterId(0),
                node,
                in_service: false,
                at: out_at,
            },
        );
    }
    push(
        &mut input,
        Request::NodeService {
            cluster: ClusterId(0),
            node: 8,
            in_service: false,
            at: out_at,
        },
    );
    for i in 0..4 {
        push(&mut input, Request::Arrival(task(i)));
    }
    let first = Micros::MINUTE;
    push(&mut input, Request::Map { now: first });
    let back = Micros::from_mins(2);
    push(
        &mut input,
        Request::NodeService {
            cluster: ClusterId(0),
            node: 3,
            in_service: true,
            at: back,
        },
    );
    push(&mut input, Request::Map { now: back });
    let out = run(input, 16, 64);
    assert_eq!(out.len(), 1 + 7 + 1 + 4 + 1 + 1 + 1);
    assert!(out[1..8].iter().all(|e| e.body == Response::NodeService));
    assert!(
        matches!(out[8].body, Response::Fault(Fault::Core(_))),
        "{:?}",
        out[8]
    );
    let decided = |e: &Envelope<Response>| match &e.body {
        Response::Mapped(p) => p.decisions.iter().map(|d| d.decision).collect::<Vec<_>>(),
        r => panic!("{r:?}"),
    };
    let (wire_first, wire_back) = (decided(&out[13]), decided(&out[15]));

    // The same in process.
    let h = Box::leak(Box::new(header()));
    let mut ctl =
        Controller::new(&h.platform, &h.classes, h.config, leaked_storage(h, 16)).unwrap();
    ctl.recycle_slots();
    for node in 1..8 {
        ctl.node_out(ClusterId(0), node, out_at).unwrap();
        assert!(!ctl.in_service(ClusterId(0), node));
    }
    assert!(ctl.node_out(ClusterId(0), 8, out_at).is_err());
    for i in 0..4 {
        ctl.on_arrival(task(i)).unwrap();
    }
    let mut first_here = Vec::new();
    ctl.on_roll_and_map(first, &mut first_here);
    ctl.node_in(ClusterId(0), 3, back).unwrap();
    let mut back_here = Vec::new();
    ctl.on_roll_and_map(back, &mut back_here);
    assert_eq!(wire_first, first_here);
    assert_eq!(wire_back, back_here);
    // Type 0 (even tasks) waited for a second node of cluster 0; type 1 ran on cluster 1.
    let starts = |v: &[Decision], c: u8| {
        v.iter()
            .filter(|d| d.kind == DecisionKind::Start && d.cluster == ClusterId(c))
            .count()
    };
    assert_eq!(starts(&first_here, 0), 0, "{first_here:?}");
    assert!(starts(&first_here, 1) > 0, "{first_here:?}");
    assert!(starts(&back_here, 0) > 0, "{back_here:?}");
}

trait RollAndMap {
    fn on_roll_and_map(&mut self, now: Micros, out: &mut Vec<Decision>);
}

impl RollAndMap for crate::controller::Controller<'_> {
    /// What the serve loop does for a mapping event.
    fn on_roll_and_map(&mut self, now: Micros, out: &mut Vec<Decision>) {
        self.roll_day(now);
        self.on_mapping_event(now, &mut |d| out.push(*d)).unwrap();
    }
}

//! Round trips of the packed form, and every way a corrupt one fails.

use super::*;
use crate::config::Config;
use crate::config::Heuristic;
use crate::platform::{Cluster, ClusterKind, Placement, TaskTypeId};
use crate::task::{Demand, TaskId};
use crate::units::{Micros, MilliWatts, NodeCount};
use crate::utility::{Urgency, UtilityCurve};

fn header(tasks: u32) -> PackedHeader {
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
        tasks,
    }
}

fn task(i: u32) -> Task {
    Task {
        id: TaskId(0),
        arrival: Micros::from_secs(37 * i as u64),
        demand: Demand::Typed(TaskTypeId((i % 2) as u16)),
        curve: UtilityCurve::essc(
            1.0 + i as f64 / 3.0,
            Urgency::ALL[i as usize % 4],
            Micros::from_mins(11),
            (i % 20) as u8,
        ),
        actual: i.is_multiple_of(3).then_some(Micros::from_mins(5)),
    }
}

/// Header then `n` tasks; returns the buffer and its used length.
fn encode(n: u32) -> ([u8; 8192], usize) {
    let mut buf = [0u8; 8192];
    let mut len = encode_header(&header(n), &mut buf).unwrap();
    for i in 0..n {
        len += encode_task(&task(i), &mut buf[len..]).unwrap();
    }
    (buf, len)
}

#[test]
fn round_trip() {
    let (buf, len) = encode(7);
    let enc = PackedScenario::decode(&buf[..len]).unwrap();
    assert_eq!(enc.header(), &header(7));
    let mut n = 0;
    for (i, t) in enc.tasks().enumerate() {
        assert_eq!(t.unwrap(), task(i as u32));
        n += 1;
    }
    assert_eq!(n, 7);
    // A second pass starts again from the first task.
    assert_eq!(enc.tasks().count(), 7);
    let (h, mut tasks) = enc.into_parts();
    assert_eq!(h.tasks, 7);
    assert_eq!(tasks.remaining(), 7);
    assert_eq!(tasks.next().unwrap().unwrap(), task(0));
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let (buf, len) = encode(5);
    for cut in 0..len {
        let bytes = &buf[..cut];
        let failed = match PackedScenario::decode(bytes) {
            Err(e) => matches!(e, Error::Input(InputError::Undecodable(_))),
            Ok(enc) => {
                let results: heapless::Vec<Result<Task, Error>, 8> = enc.tasks().collect();
                // Whatever decoded is a prefix of the tasks; then one error, then the end.
                let (last, ok) = results.split_last().unwrap();
                ok.iter().enumerate().all(|(i, t)| t == &Ok(task(i as u32)))
                    && matches!(last, Err(Error::Input(InputError::Undecodable(at))) if (*at as usize) <= cut)
            }
        };
        assert!(failed, "cut at {cut} of {len}");
    }
}

#[test]
fn trailing_bytes_wrong_magic_and_version_are_errors() {
    let (mut buf, len) = encode(2);
    buf[len] = 0;
    let enc = PackedScenario::decode(&buf[..len + 1]).unwrap();
    let mut it = enc.tasks();
    assert!(it.next().unwrap().is_ok());
    assert!(it.next().unwrap().is_ok());
    assert_eq!(
        it.next(),
        Some(Err(InputError::Undecodable(len as u32).into()))
    );
    assert_eq!(it.next(), None);

    let mut bad = buf;
    bad[0] = b'X';
    assert_eq!(
        PackedScenario::decode(&bad[..len]).unwrap_err(),
        InputError::Undecodable(0).into()
    );
    let mut bad = buf;
    bad[4] = VERSION + 1;
    assert_eq!(
        PackedScenario::decode(&bad[..len]).unwrap_err(),
        InputError::Undecodable(4).into()
    );
}

#[test]
fn corrupt_bytes_never_panic() {
    let (buf, len) = encode(4);
    // Flip each byte of the encoding in turn: decoding may succeed (a different value) or
    // fail, but must not panic, and the iterator always ends.
    for i in 0..len {
        for x in [0x00u8, 0x7f, 0x80, 0xff] {
            let mut b = buf;
            b[i] = x;
            if let Ok(enc) = PackedScenario::decode(&b[..len]) {
                // `take` bounds a corrupt count; the iterator itself is fused after an error.
                let _ = enc.tasks().take(1000).count();
            }
        }
    }
}

#[test]
fn an_invalid_platform_is_its_constructors_error() {
    // What a derived Deserialize would accept: nine P-states (the core allows four).
    let h = header(0);
    let mut buf = [0u8; 8192];
    buf[..MAGIC.len()].copy_from_slice(&MAGIC);
    buf[MAGIC.len()] = VERSION;
    let mut len = PREFIX_LEN;
    let mut clusters = heapless::Vec::new();
    clusters.extend_from_slice(h.platform.clusters()).unwrap();
    let head = PlatformHead {
        clusters,
        pstates: 9,
        types: 0,
    };
    len += postcard::to_slice(&head, &mut buf[len..]).unwrap().len();
    let tail = TailRef {
        classes: &h.classes,
        config: &h.config,
        schedule: &h.schedule,
        tasks: 0,
    };
    len += postcard::to_slice(&tail, &mut buf[len..]).unwrap().len();
    assert!(matches!(
        PackedScenario::decode(&buf[..len]),
        Err(Error::Capacity(crate::error::CapacityError {
            what: crate::error::Capacity::PStates,
            ..
        }))
    ));
}

#[test]
fn decode_into_a_slot_gives_the_same_header() {
    let (buf, len) = encode(3);
    let mut slot = MaybeUninit::uninit();
    let (h, tasks) = PackedScenario::decode_into(&buf[..len], &mut slot).unwrap();
    assert_eq!(*h, header(3));
    assert_eq!(tasks.count(), 3);
}

#[test]
fn small_buffers_are_refused() {
    let mut small = [0u8; 16];
    assert_eq!(
        encode_header(&header(1), &mut small),
        Err(EncodeError::BufferFull)
    );
    assert_eq!(
        encode_header(&header(1), &mut small[..3]),
        Err(EncodeError::BufferFull)
    );
    assert_eq!(
        encode_task(&task(1), &mut small[..4]),
        Err(EncodeError::BufferFull)
    );
}

/// Regression (issue 27): a class's share (psi) corrupted in the bytes, 0.2 made 13,107.2 by
/// one flipped byte, or infinity, decoded and ran to 16,318% of the maximum utility. The
/// decoder now builds every class through `UtilityClass::new`, which rejects both.
#[test]
fn corrupt_class_share_bytes_are_rejected() {
    let (buf, len) = encode(2);
    let psi = 0.2f64.to_le_bytes();
    let at = buf[..len]
        .windows(8)
        .position(|w| w == psi)
        .expect("a class with psi 0.2 is encoded");
    let mut flipped = buf;
    flipped[at + 7] = 0x40;
    assert_eq!(
        f64::from_le_bytes(flipped[at..at + 8].try_into().unwrap()),
        13_107.2
    );
    let mut inf = buf;
    inf[at..at + 8].copy_from_slice(&f64::INFINITY.to_le_bytes());
    for bytes in [&flipped, &inf] {
        assert_eq!(
            PackedScenario::decode(&bytes[..len]).err(),
            Some(InputError::BadNumber.into())
        );
    }
    assert!(PackedScenario::decode(&buf[..len]).is_ok());
}

/// Found by the `packed_scenario` fuzz target: a schedule of a mapping event every few
/// microseconds over the day ran for minutes and recorded gigabytes of events on the host.
/// A periodic schedule under a second, or of more events than the limit, is refused as it
/// is decoded; the limits themselves, a zero interval (the default minute) and a
/// non-periodic schedule pass.
#[test]
fn schedules_past_the_limits_are_rejected() {
    let with = |schedule: Schedule, day_end: Micros| {
        let mut h = header(0);
        h.schedule = schedule;
        h.config.day_end = day_end;
        let mut buf = [0u8; 8192];
        let len = encode_header(&h, &mut buf).unwrap();
        PackedScenario::decode(&buf[..len]).map(|_| ()).err()
    };
    let bad = Some(InputError::BadSchedule.into());
    let day = Micros::from_hours(26);
    let second = Micros::from_secs(1);
    assert_eq!(with(Schedule::every(Micros(3)), day), bad);
    assert_eq!(with(Schedule::every(Micros(999_999)), day), bad);
    assert_eq!(with(Schedule::every(second), day), None);
    assert_eq!(with(Schedule::every(Micros::ZERO), day), None);
    let most = Micros::from_hours(10_000);
    assert_eq!(with(Schedule::every(second), most), None);
    assert_eq!(
        with(Schedule::every(second), Micros(most.0 + 1_000_000)),
        bad
    );
    assert_eq!(with(Schedule::every(Micros::MINUTE), Micros(u64::MAX)), bad);
    assert_eq!(
        Schedule::on_events().check(Micros(u64::MAX)),
        Ok(()),
        "trace replay's schedule has no periodic events"
    );
}

//! The firmware's embedded scenarios (firmware/scenarios/*.bin) against the generator, and the
//! host replay `kairos digest` uses against storage of the firmware's sizes.

use kairos_core::engine::{self, NoObserver};
use kairos_core::packed::PackedScenario;
use kairos_core::timeline::{Booking, ClusterTimeline, Logged};
use kairos_core::{Controller, MemoEntry, Storage, StorageSizes, TaskSlot, Work};
use kairos_host::firmware_scenarios::{self, NAMES};

#[test]
fn embedded_scenarios_are_up_to_date() {
    let dir = firmware_scenarios::scenario_dir();
    let mut stale = Vec::new();
    for name in NAMES {
        let path = dir.join(format!("{name}.bin"));
        let want = firmware_scenarios::encoded(name).unwrap();
        match std::fs::read(&path) {
            Ok(got) if got == want => {}
            Ok(got) => stale.push(format!(
                "{} is stale ({} bytes, the generator gives {})",
                path.display(),
                got.len(),
                want.len()
            )),
            Err(e) => stale.push(format!("{} cannot be read: {e}", path.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nThe firmware embeds these files: regenerate them with \
         `cargo run -p kairos-host -- firmware-scenario` (from the project root) and commit them.",
        stale.join("\n")
    );
}

#[test]
fn reference_scenarios_exercise_what_the_firmware_must() {
    for name in ["ph", "upe"] {
        let run = firmware_scenarios::run(&firmware_scenarios::encoded(name).unwrap()).unwrap();
        let (h, r) = (&run.header, &run.report);
        assert_eq!(h.platform.clusters().len(), 3, "{name}");
        assert_eq!(h.platform.pstates(), 3, "{name}");
        assert_eq!(r.arrived, firmware_scenarios::TASKS, "{name}");
        assert!(r.completed > 100 && r.dropped > 0, "{name}: {r:?}");
        assert_eq!(r.mapping_events as usize, run.events.len());
        // The budget binds: the run spends most of it, and without it the run differs.
        assert!(
            r.energy.0 > h.config.budget.0 / 2,
            "{name}: {r:?} budget {}",
            h.config.budget.0
        );
        let mut s = firmware_scenarios::scenario(name).unwrap();
        s.header.config.budget = kairos_core::units::MilliJoules::MAX;
        let free = firmware_scenarios::run(&firmware_scenarios::encode(&s))
            .unwrap()
            .report;
        assert!(free.energy > h.config.budget, "{name}: {free:?}");
        assert_eq!(
            firmware_scenarios::digest_line(r).len(),
            "digest ".len() + 16
        );
    }
    let ph = firmware_scenarios::scenario("ph").unwrap();
    assert_eq!(
        ph.header.config.reservations,
        kairos_core::Reservations::PlaceHolder
    );
    let upe = firmware_scenarios::scenario("upe").unwrap();
    assert_eq!(upe.header.config.heuristic, kairos_core::Heuristic::MaxUpe);
}

/// The firmware gives the controller storage of its own sizes (a task table with headroom,
/// room for more nodes, a smaller fit memo, a larger completion buffer); the host sizes it to
/// the scenario. The result must not depend on that, or the digests could not agree.
#[test]
fn digest_does_not_depend_on_storage_sizes() {
    for name in NAMES {
        let bytes = firmware_scenarios::encoded(name).unwrap();
        let host = firmware_scenarios::run(&bytes).unwrap().report;
        let enc = PackedScenario::decode(&bytes).unwrap();
        let h = enc.header();
        // (task headroom, nodes, largest cluster, memo entries): firmware-like and extremes.
        for (extra, nodes, largest, memo) in [(152, 96, 48, 1024), (0, 72, 32, 0), (7, 80, 40, 61)]
        {
            let n = h.tasks as usize + extra;
            let mut tasks = vec![TaskSlot::EMPTY; n];
            let mut pool = vec![Booking::EMPTY; ClusterTimeline::bookings_len(nodes)];
            let mut members = vec![0u32; ClusterTimeline::members_len(nodes)];
            let len = ClusterTimeline::scratch_len(largest);
            let (mut a, mut b) = (vec![0u64; len], vec![0u64; len]);
            let mut work = vec![Work::default(); n];
            let mut open = vec![0u32; n];
            let mut memo_v = vec![MemoEntry::default(); memo];
            let mut log = vec![Logged::EMPTY; StorageSizes::of(&h.platform, n).booking_log];
            let mut pending = vec![Default::default(); 2 * n + 16];
            let storage = Storage {
                tasks: &mut tasks,
                bookings: &mut pool,
                members: &mut members,
                scratch_a: &mut a,
                scratch_b: &mut b,
                work: &mut work,
                open: &mut open,
                memo: &mut memo_v,
                voids: &mut [],
                booking_log: &mut log,
            };
            let mut ctl = Controller::new(&h.platform, &h.classes, h.config, storage).unwrap();
            let r = engine::run(
                &mut ctl,
                enc.tasks(),
                h.schedule,
                &mut pending,
                &mut NoObserver,
            )
            .unwrap();
            assert_eq!(
                r, host,
                "{name} with {extra} spare slots, {memo} memo entries"
            );
        }
    }
}

#[test]
fn a_truncated_scenario_fails_cleanly_on_the_host() {
    let bytes = firmware_scenarios::encoded("ph").unwrap();
    for cut in [0, 3, 5, 100, bytes.len() / 2, bytes.len() - 1] {
        let err = firmware_scenarios::run(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(
                err,
                firmware_scenarios::RunError::Core(kairos_core::error::Error::Input(
                    kairos_core::error::InputError::Undecodable(_)
                ))
            ),
            "cut {cut}: {err:?}"
        );
    }
}

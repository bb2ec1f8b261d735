//! The live firmware image's storage sizes (firmware/src/storage.rs, `--features live`) hold
//! seed 000's whole platform: ESSC 5k and 10k under Max UPE, replayed in process over storage
//! of exactly those sizes with the live serve loop's slot recycling, reach the digest of the
//! run sized by need, and the booking pool's high-water marks say how much of the pool the
//! day needs (docs/firmware.md, "Seed 000's platform"; `-- --nocapture` prints them). The
//! same day through QEMU is host/tests/live_qemu.rs.

use kairos_core::engine::{Engine, NoObserver, Pending};
use kairos_core::platform::ClusterId;
use kairos_core::timeline::{Booking, Logged};
use kairos_core::units::Micros;
use kairos_core::{Controller, Heuristic, MemoEntry, Storage, StorageSizes, TaskSlot, Work};
use kairos_host::run::RunOptions;
use kairos_host::scenario::Scenario;
use std::path::Path;

/// The live image's capacities, as firmware/src/storage.rs sets them (checked below).
const TASKS: usize = 1536;
const NODES: usize = 2304;
const BOOKINGS: usize = 72_000;
const SCRATCH: usize = 16384;
const MEMO: usize = 1024;
/// The firmware's `BOOKING_LOG` (the host's is larger), a cluster.
const LOG: usize = 16;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn these_are_the_live_images_sizes() {
    let src = std::fs::read_to_string(root().join("firmware/src/storage.rs")).unwrap();
    for want in [
        "None if LIVE => 1536,",
        "if LIVE { 2304 }",
        "    72_000\n",
        "    16384\n",
        "pub const MEMO: usize = 1024;",
    ] {
        assert!(
            src.contains(want),
            "firmware/src/storage.rs no longer has {want:?}"
        );
    }
}

/// Runs trial 0 of `scenario` under Max UPE over storage of the live image's sizes; returns
/// its digest and the least pool the run needed, in the image's proportional split: each
/// cluster's peak scaled by the platform's nodes over the cluster's.
fn live_sized(scenario: &str) -> (u64, usize) {
    let s = Scenario::load(root().join(scenario)).unwrap();
    let trial = kairos_host::generate::generate(&s, 0).unwrap();
    let opts = RunOptions::new(Heuristic::MaxUpe);
    let cfg = kairos_host::run::config(&s, &opts, &trial).unwrap();
    let every = Micros::from_secs(s.simulation.mapping_interval_s as u64);
    let schedule = kairos_core::engine::Schedule::every(every);
    let p = &trial.platform;
    assert!(p.total_nodes() as usize <= NODES);
    let sizes = StorageSizes::of(p, TASKS);
    let mut tasks = vec![TaskSlot::EMPTY; TASKS];
    let mut pool = vec![Booking::EMPTY; BOOKINGS];
    let mut members = vec![0u32; sizes.members];
    let (mut a, mut b) = (vec![0u64; SCRATCH], vec![0u64; SCRATCH]);
    let mut work = vec![Work::default(); TASKS];
    let mut open = vec![0u32; TASKS];
    let mut memo = vec![MemoEntry::default(); MEMO];
    let mut log = vec![Logged::EMPTY; LOG * p.clusters().len()];
    let mut pending = vec![Pending::default(); 2 * TASKS + 16];
    let mut ends = vec![Micros::MAX; trial.tasks.len()];
    let storage = Storage {
        tasks: &mut tasks,
        bookings: &mut pool,
        members: &mut members,
        scratch_a: &mut a,
        scratch_b: &mut b,
        work: &mut work,
        open: &mut open,
        memo: &mut memo,
        voids: &mut [],
        booking_log: &mut log,
    };
    let mut ctl = Controller::new(p, &trial.classes, cfg, storage).unwrap();
    ctl.recycle_slots();
    let report = Engine::new(schedule, &mut pending)
        .with_pending_ends(&mut ends)
        .run(
            &mut ctl,
            trial.tasks.iter().cloned().map(Ok),
            &mut NoObserver,
        )
        .unwrap_or_else(|e| panic!("{scenario} over the live image's sizes: {e}"));
    let total = p.total_nodes() as usize;
    let mut need = 0;
    for (i, c) in p.clusters().iter().enumerate() {
        let t = ctl.timeline(ClusterId(i as u8)).unwrap();
        let n = c.nodes.0 as usize;
        eprintln!(
            "{scenario}: cluster {i}, {n} nodes: {} groups at the end, pool share {}, peak {}",
            t.groups(),
            t.bookings_capacity(),
            t.bookings_peak()
        );
        need = need.max((t.bookings_peak() * total).div_ceil(n));
    }
    eprintln!("{scenario}: the day needs a pool of {need} ({BOOKINGS} in the image)");
    assert!(TASKS < trial.tasks.len(), "the slots are recycled");
    (report.digest, need)
}

fn by_need(scenario: &str) -> u64 {
    let s = Scenario::load(root().join(scenario)).unwrap();
    let summary = kairos_host::run::run_trial(&s, &RunOptions::new(Heuristic::MaxUpe)).unwrap();
    u64::from_str_radix(&summary.digest, 16).unwrap()
}

#[test]
fn essc_5k_fits_the_live_image() {
    let (digest, need) = live_sized("scenarios/essc-5k.toml");
    assert_eq!(digest, by_need("scenarios/essc-5k.toml"));
    assert!(need <= BOOKINGS);
}

#[test]
fn essc_10k_fits_the_live_image() {
    let (digest, need) = live_sized("scenarios/essc-10k.toml");
    assert_eq!(digest, by_need("scenarios/essc-10k.toml"));
    assert!(need <= BOOKINGS);
}

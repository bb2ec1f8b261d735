//! Every heuristic on one small day, against golden digests.
mod common;
use common::*;
use kairos_core::platform::Platform;
use kairos_core::utility::UtilityClasses;
use kairos_core::Config;
use kairos_core::{Heuristic, Reservations};

/// Golden digests: a change here is a change in some decision; if it is intended, update
/// the table and say why in the commit.
const GOLDEN: [(&str, Reservations, u64); 16] = [
    ("random", Reservations::Permanent, 0xf26fe5cb504d0f2c),
    ("random", Reservations::PlaceHolder, 0xf26fe5cb504d0f2c),
    ("conservative", Reservations::Permanent, 0x26e6b5bd6edcd4e6),
    (
        "conservative",
        Reservations::PlaceHolder,
        0x26e6b5bd6edcd4e6,
    ),
    ("easy", Reservations::Permanent, 0x24c20b7468f96f32),
    ("easy", Reservations::PlaceHolder, 0x24c20b7468f96f32),
    ("multi-queue", Reservations::Permanent, 0x26e6b5bd6edcd4e6),
    ("multi-queue", Reservations::PlaceHolder, 0x26e6b5bd6edcd4e6),
    ("max-util", Reservations::Permanent, 0x6d65adc1817c0d87),
    ("max-util", Reservations::PlaceHolder, 0x8652cf73dc6e45f4),
    ("max-upt", Reservations::Permanent, 0x6cd128bfa68d7447),
    ("max-upt", Reservations::PlaceHolder, 0x8a69882de4ec7f16),
    ("max-upr", Reservations::Permanent, 0x6d65adc1817c0d87),
    ("max-upr", Reservations::PlaceHolder, 0x421d65e6aa6945ce),
    ("max-upe", Reservations::Permanent, 0x36df85747220469d),
    ("max-upe", Reservations::PlaceHolder, 0x031679b8a0d87b59),
];

#[test]
fn every_heuristic_runs_a_small_day() {
    let mut p = Platform::new(&[cluster(4), cluster(6)], 3).unwrap();
    p.add_resolved_type(&[
        Some(pl(2, [30, 40, 60], [100, 70, 40])),
        Some(pl(3, [20, 30, 40], [120, 80, 50])),
    ])
    .unwrap();
    p.add_resolved_type(&[None, Some(pl(6, [50, 60, 80], [100, 70, 40]))])
        .unwrap();
    let classes = UtilityClasses::essc20();
    let tasks: Vec<_> = (0..40)
        .map(|i| task(i * 7, (i % 2) as u16, linear(1.0 + (i % 5) as f64, 60, 300)))
        .collect();
    for h in Heuristic::ALL {
        for r in [Reservations::Permanent, Reservations::PlaceHolder] {
            let mut cfg = Config::new(h, mins(0), mins(600));
            cfg.reservations = r;
            let run = replay(&p, &classes, cfg, mins(1), &tasks).unwrap();
            let rep = run.report;
            assert_eq!(rep.arrived, 40);
            assert_eq!(
                rep.completed + rep.dropped + rep.unfinished,
                40,
                "{h} {r:?}"
            );
            assert!(rep.completed > 0, "{h} {r:?}: {rep:?}");
            let golden = GOLDEN
                .iter()
                .find(|g| g.0 == h.name() && g.1 == r)
                .unwrap()
                .2;
            assert_eq!(rep.digest, golden, "{h} {r:?}: decisions changed");
            eprintln!(
                "{h:>12} {:?} util {:.2}/{:.2} done {} drop {} unf {} digest {:016x}",
                r,
                rep.utility.as_f64(),
                rep.max_utility.as_f64(),
                rep.completed,
                rep.dropped,
                rep.unfinished,
                rep.digest
            );
        }
    }
}

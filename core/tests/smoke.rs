mod common;
use common::*;
use kairos_core::controller::Config;
use kairos_core::platform::Platform;
use kairos_core::policy::{Heuristic, Reservations};
use kairos_core::utility::UtilityClasses;

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

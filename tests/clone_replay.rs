//! `Controller::clone_into` and `Engine::clone_into` at ESSC scale: a run copied in the
//! middle of the day and continued on the copy gives the digest of the uninterrupted run,
//! and the benchmarks' driver (`kairos_suite::Driver`) gives `engine::run`'s digest.

use kairos_core::engine::{NoObserver, Schedule};
use kairos_core::units::Micros;
use kairos_host::storage::simulate;
use kairos_suite::{backlog, cases, copy_run, essc, Setup};

/// Every benchmarked configuration on trial 0 of ESSC 5k, cut to a 9-hour horizon (4 h of
/// warm-up) to keep the test short, copied at 7 h.
#[test]
fn a_run_continued_from_a_copy_gives_the_same_digest() {
    for case in cases() {
        let mut scenario = essc(5000);
        scenario.simulation.horizon_hours = 9;
        let setup = Setup::new(scenario, &case.opts);
        let schedule = Schedule::every(setup.interval);
        let reference = simulate(
            &setup.trial.platform,
            &setup.trial.classes,
            setup.config,
            schedule,
            &setup.trial.tasks,
            &mut NoObserver,
        )
        .expect("the reference run")
        .digest;

        let mut storage = setup.storage();
        let (mut ctl, mut driver) = setup.start(&mut storage);
        let at = driver
            .run_until(&mut ctl, Micros::from_hours(7))
            .expect("the run to 7 h");
        assert_eq!(at, Some(Micros::from_hours(7)), "{}", case.label);
        let b = backlog(&ctl);
        assert!(
            b.running > 0 && b.waiting + b.reserved > 0,
            "{}: {b:?}",
            case.label
        );

        let mut copy_storage = setup.storage();
        let (mut copy, copy_driver) = copy_run(&ctl, &driver, &mut copy_storage);
        assert_eq!(backlog(&copy), b, "{}", case.label);
        let continued = copy_driver.finish(&mut copy).expect("the copy's run");
        let original = driver.finish(&mut ctl).expect("the original's run");
        assert_eq!(
            original, reference,
            "{}: driver and engine::run",
            case.label
        );
        assert_eq!(continued, reference, "{}: the copy", case.label);
    }
}

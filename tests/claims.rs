//! Seed 000 §V's claims that hold robustly, on a reduced ESSC experiment: the platform at a
//! tenth of its nodes, a 6 h horizon, three trials, under an energy budget of 0.3 GJ (about
//! 75% of what Max Util with place-holders draws unconstrained there). The full-size figures
//! and the claims that do not hold here are in docs/results.md.

use kairos_core::energy::FilterKind;
use kairos_core::{Heuristic, Reservations};
use kairos_host::run::{run_trial, RunOptions};
use kairos_host::scenario::Scenario;

const TRIALS: u32 = 3;
const BUDGET_J: f64 = 0.3e9;

fn scenario() -> Scenario {
    Scenario::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/host/tests/data/experiment_scenario.toml"
    ))
    .unwrap()
}

/// Mean utility percentage and mean energy (joules) over the trials; checks every run keeps
/// its budget and accounts for every task.
fn mean(s: &Scenario, h: Heuristic, r: Option<Reservations>, f: FilterKind) -> (f64, f64) {
    let (mut u, mut e) = (0.0, 0.0);
    for trial in 0..TRIALS {
        let opts = RunOptions {
            reservations: r,
            filter: f,
            trial,
            budget_joules: Some(BUDGET_J),
            ..RunOptions::new(h)
        };
        let run = run_trial(s, &opts).unwrap();
        assert!(
            run.energy_joules <= BUDGET_J,
            "{h}: {} J over the budget",
            run.energy_joules
        );
        assert_eq!(
            run.completed + run.dropped + run.unfinished,
            run.arrived,
            "{h}"
        );
        assert!(run.utility <= run.max_utility, "{h}");
        u += run.utility_percent;
        e += run.energy_joules;
    }
    (u / TRIALS as f64, e / TRIALS as f64)
}

#[test]
fn utility_aware_heuristics_with_place_holders_beat_the_fcfs_ones() {
    let s = scenario();
    let upr = mean(
        &s,
        Heuristic::MaxUpr,
        Some(Reservations::PlaceHolder),
        FilterKind::PerResource,
    )
    .0;
    let util = mean(
        &s,
        Heuristic::MaxUtil,
        Some(Reservations::PlaceHolder),
        FilterKind::PerResource,
    )
    .0;
    for h in [
        Heuristic::Conservative,
        Heuristic::Easy,
        Heuristic::MultiQueue,
        Heuristic::Random,
    ] {
        let fcfs = mean(&s, h, None, FilterKind::None).0;
        assert!(upr > fcfs + 5.0, "Max UPR PH {upr:.1}% vs {h} {fcfs:.1}%");
        assert!(
            util > fcfs + 5.0,
            "Max Util PH {util:.1}% vs {h} {fcfs:.1}%"
        );
    }
}

#[test]
fn place_holders_earn_more_than_permanent_reservations() {
    let s = scenario();
    for h in [Heuristic::MaxUtil, Heuristic::MaxUpr] {
        let ph = mean(
            &s,
            h,
            Some(Reservations::PlaceHolder),
            FilterKind::PerResource,
        )
        .0;
        let perm = mean(
            &s,
            h,
            Some(Reservations::Permanent),
            FilterKind::PerResource,
        )
        .0;
        assert!(
            ph > perm + 3.0,
            "{h}: place-holders {ph:.1}% vs permanent {perm:.1}%"
        );
    }
}

#[test]
fn max_upe_uses_less_energy_than_max_upr() {
    let s = scenario();
    let upe = mean(
        &s,
        Heuristic::MaxUpe,
        Some(Reservations::PlaceHolder),
        FilterKind::None,
    )
    .1;
    let upr = mean(
        &s,
        Heuristic::MaxUpr,
        Some(Reservations::PlaceHolder),
        FilterKind::PerResource,
    )
    .1;
    assert!(
        upe < 0.8 * upr,
        "Max UPE {upe:.3e} J vs Max UPR PH + EPR {upr:.3e} J"
    );
}

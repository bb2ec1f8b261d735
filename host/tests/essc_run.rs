//! `kairos run` end to end on a reduced ESSC scenario: every heuristic, the accounting of
//! tasks, the utility bound, the JSON summary, the trace, and repeatability.

mod common;

/// Named so that `cargo test -p kairos-host essc` selects these tests.
mod essc {
    use super::common::kairos;

    use kairos_core::energy::FilterKind;
    use kairos_core::units::{Micros, Utility};
    use kairos_core::utility::prorate;
    use kairos_core::{Heuristic, Reservations};
    use kairos_host::generate::generate;
    use kairos_host::run::{run_trial, RunOptions, RunSummary};
    use kairos_host::scenario::Scenario;
    use std::path::PathBuf;

    fn small_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/essc_small.toml")
    }

    fn small() -> Scenario {
        Scenario::load(small_path()).unwrap()
    }

    /// The day's share of every task's best case (started at arrival on its fastest option),
    /// whenever it arrived: an upper bound on the utility earned in the day. The core's
    /// max_utility counts only the tasks arriving in the day, so a run can exceed it by the
    /// share of warm-up arrivals that run into the day.
    fn bound_over_all_arrivals(s: &Scenario, trial: u32) -> f64 {
        let t = generate(s, trial).unwrap();
        let w0 = Micros::from_hours(s.simulation.warmup_hours as u64);
        let w1 = Micros::from_hours(s.simulation.horizon_hours as u64);
        let mut sum = Utility::ZERO;
        for task in &t.tasks {
            let (_, d) = task.fastest(&t.platform).unwrap();
            let v = task.curve.value_at(d, &t.classes).unwrap();
            sum += prorate(Utility::from_f64(v), task.arrival, task.arrival + d, w0, w1);
        }
        sum.as_f64()
    }

    fn check_accounting(s: &RunSummary) {
        assert!(s.arrived > 0, "{s:?}");
        assert_eq!(s.completed + s.dropped + s.unfinished, s.arrived, "{s:?}");
        assert!(s.utility >= 0.0 && s.max_utility > 0.0, "{s:?}");
        assert!(s.energy_joules > 0.0, "{s:?}");
        assert_eq!(s.mapping_events, 8 * 60, "{s:?}");
        assert_eq!(s.digest.len(), 16);
        if let Some(b) = s.energy_budget_joules {
            assert!(s.energy_joules <= b + 1e-3, "{s:?}");
        }
    }

    #[test]
    fn every_heuristic_accounts_for_every_task() {
        let s = small();
        let bound = bound_over_all_arrivals(&s, 0);
        let mut no_warmup = s.clone();
        no_warmup.simulation.warmup_hours = 0;
        for h in Heuristic::ALL {
            let mut runs = vec![RunOptions::new(h)];
            if h.is_utility_aware() {
                runs.push(RunOptions {
                    reservations: Some(Reservations::Permanent),
                    ..RunOptions::new(h)
                });
            }
            for opts in runs {
                let r = run_trial(&s, &opts).unwrap();
                check_accounting(&r);
                assert!(r.utility <= bound + 1e-6, "{r:?} above {bound}");
                if !h.is_utility_aware() {
                    assert_eq!(r.dropped, 0, "{r:?}");
                    assert_eq!(r.reservations, "permanent");
                }
                // Without warm-up, every arrival is in the day and max_utility bounds utility.
                let r = run_trial(&no_warmup, &opts).unwrap();
                check_accounting(&r);
                assert!(r.utility <= r.max_utility, "{r:?}");
                assert!(r.utility_percent <= 100.0, "{r:?}");
            }
        }
    }

    #[test]
    fn filters_under_a_budget_keep_within_it() {
        let s = small();
        let free = run_trial(&s, &RunOptions::new(Heuristic::MaxUpr)).unwrap();
        let budget = 0.5 * free.energy_joules;
        for filter in FilterKind::ALL {
            let opts = RunOptions {
                filter,
                budget_joules: Some(budget),
                ..RunOptions::new(Heuristic::MaxUpr)
            };
            let r = run_trial(&s, &opts).unwrap();
            check_accounting(&r);
            assert_eq!(r.filter, filter.name());
            assert_eq!(r.leniency, filter.default_leniency());
            // The ledger keeps whole millijoules.
            assert!(
                (r.energy_budget_joules.unwrap() - budget).abs() <= 1e-3,
                "{r:?}"
            );
        }
    }

    #[test]
    fn comparison_heuristics_refuse_place_holders() {
        let opts = RunOptions {
            reservations: Some(Reservations::PlaceHolder),
            ..RunOptions::new(Heuristic::Easy)
        };
        let e = run_trial(&small(), &opts).unwrap_err().to_string();
        assert!(e.contains("easy only reserves permanently"), "{e}");
    }

    /// `--full-plan` (every task place-held, as seed 000's Algorithm 1 does) decides what
    /// the default pass, which stops once nothing more can start, decides: same digest, same
    /// ledgers and counts, for every utility-aware heuristic, with and without a filter.
    #[test]
    fn the_full_plan_decides_the_same() {
        let s = small();
        for h in Heuristic::ALL.into_iter().filter(|h| h.is_utility_aware()) {
            for filter in [FilterKind::None, FilterKind::PerResource] {
                let runs: Vec<RunSummary> = [false, true]
                    .into_iter()
                    .map(|full_plan| {
                        let opts = RunOptions {
                            filter,
                            full_plan,
                            ..RunOptions::new(h)
                        };
                        run_trial(&s, &opts).unwrap()
                    })
                    .collect();
                let (a, b) = (&runs[0], &runs[1]);
                assert_eq!(a.digest, b.digest, "{h} {filter:?}");
                assert_eq!(
                    (
                        a.utility,
                        a.energy_joules,
                        a.completed,
                        a.dropped,
                        a.unfinished
                    ),
                    (
                        b.utility,
                        b.energy_joules,
                        b.completed,
                        b.dropped,
                        b.unfinished
                    ),
                    "{h} {filter:?}"
                );
            }
        }
        // And the binary takes the flag.
        let path = small_path();
        let digest = |extra: &[&str]| {
            let mut args = vec![
                "run",
                path.to_str().unwrap(),
                "--heuristic",
                "max-upt",
                "--json",
            ];
            args.extend_from_slice(extra);
            kairos_json(&args)["digest"].as_str().unwrap().to_owned()
        };
        assert_eq!(digest(&["--full-plan"]), digest(&[]));
    }

    /// Runs the binary, which must succeed, and parses what it prints as JSON.
    fn kairos_json(args: &[&str]) -> serde_json::Value {
        let out = kairos(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    #[test]
    fn the_binary_prints_every_key_and_repeats_its_digest() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("trace.csv");
        let path = small_path();
        let args = [
            "run",
            path.to_str().unwrap(),
            "--heuristic",
            "max-upe",
            "--trial",
            "1",
            "--json",
            "--trace-out",
            trace.to_str().unwrap(),
            // The runs below write the trace again (issue 27: an existing file needs it).
            "--force",
        ];
        let v = kairos_json(&args);
        for key in [
            "scenario",
            "heuristic",
            "reservations",
            "filter",
            "leniency",
            "trial",
            "utility_percent",
            "utility",
            "max_utility",
            "energy_joules",
            "energy_budget_joules",
            "completed",
            "dropped",
            "unfinished",
            "mapping_events",
            "mapping_event_us",
            "wall_time_s",
            "digest",
        ] {
            assert!(v.get(key).is_some(), "no {key} in {v}");
        }
        for key in ["p50", "p99", "max"] {
            assert!(v["mapping_event_us"][key].is_u64(), "no {key} in {v}");
        }
        assert_eq!(v["scenario"], "essc-small");
        assert_eq!(v["heuristic"], "max-upe");
        assert_eq!(v["reservations"], "place-holder");
        assert_eq!(v["trial"], 1);
        assert!(v["energy_budget_joules"].is_null());
        let digest = v["digest"].as_str().unwrap().to_string();
        assert!(digest.len() == 16 && digest.chars().all(|c| c.is_ascii_hexdigit()));

        let csv = std::fs::read_to_string(&trace).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("time_s,utility,energy_j"));
        let rows: Vec<Vec<f64>> = lines
            .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
            .collect();
        // Every 20 minutes of 8 hours, and the final ledgers at the horizon.
        assert_eq!(rows.len(), 8 * 3 + 1);
        assert!(rows
            .windows(2)
            .all(|w| w[0][0] < w[1][0] && w[0][1] <= w[1][1]));
        assert_eq!(rows.last().unwrap()[1], v["utility"].as_f64().unwrap());

        // The same trial again gives the same digest; another trial, another.
        let again: serde_json::Value = serde_json::from_slice(&kairos(&args).stdout).unwrap();
        assert_eq!(again["digest"], digest);
        let mut other = args.to_vec();
        other[5] = "2";
        let other: serde_json::Value = serde_json::from_slice(&kairos(&other).stdout).unwrap();
        assert_ne!(other["digest"], digest);

        // Text output by default.
        let text = kairos(&args[..4]);
        assert!(text.status.success());
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains("digest:") && text.contains("utility:"),
            "{text}"
        );
    }

    #[test]
    fn the_binary_fails_clearly() {
        let out = kairos(&["run", "no/such.toml", "--heuristic", "max-upr"]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no/such.toml: cannot read"), "{err}");
        let out = kairos(&["run", "x.toml", "--heuristic", "max-everything"]);
        assert_eq!(out.status.code(), Some(2));
    }
}

//! Trace experiments (seed 001 on the Curie log): the checked-in files load as documented,
//! bad `[trace]` files name the file and the key, and a reduced run (2 scenarios) shows the
//! claims that hold on every scenario we measured, each row reproducible alone.

use std::path::PathBuf;

use kairos_core::{Heuristic, Reservations};
use kairos_host::experiment::runner::{self, Quiet};
use kairos_host::experiment::Experiment;
use kairos_host::seed001;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn parse(body: &str) -> Result<Experiment, String> {
    let dir = root().join("experiments");
    Experiment::parse(body, &dir.join("test.toml")).map_err(|e| e.to_string())
}

const TRACE: &str =
    "[trace]\nswf = \"../../shared/traces/CEA-Curie-2011-2.1-sample.swf\"\nseed = 1\n";

#[test]
fn value_experiment_files_load() {
    for (file, fraction) in [
        ("curie-value.toml", 0.2),
        ("curie-value-15.toml", 0.15),
        ("curie-value-25.toml", 0.25),
    ] {
        let e = Experiment::load(root().join("experiments").join(file)).unwrap();
        assert_eq!(e.trials, 48, "{file}");
        let labels: Vec<&str> = e.configs.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "EASY",
                "Conservative",
                "Multiple Queues",
                "Max Value PR",
                "Max Value PH",
                "Max VPR PR",
                "Max VPR PH"
            ],
            "{file}"
        );
        assert!(e.configs.iter().all(|c| c.cores_fraction == Some(fraction)));
        assert_eq!(e.configs[4].heuristic, Heuristic::MaxValue);
        assert_eq!(e.configs[4].reservations, Reservations::PlaceHolder);
        assert_eq!(e.configs[5].reservations, Reservations::Permanent);
        let t = e.trace.as_ref().unwrap();
        assert_eq!((t.seed, t.step), (1, seed001::SCENARIO_STEP));
        assert_eq!(e.scenario.name, "CEA-Curie-2011-2.1-sample");
        assert_eq!(
            e.scenario_key,
            "../../shared/traces/CEA-Curie-2011-2.1-sample.swf"
        );
        assert_eq!(e.budget_joules(), None);
    }
}

/// Seed 001 Fig. 5's environment files: the same scenarios and heuristics as
/// curie-value.toml, one variation each.
#[test]
fn value_fig5_environment_files_load() {
    use seed001::ValueCorrelation as C;
    let base = Experiment::load(root().join("experiments/curie-value.toml")).unwrap();
    assert_eq!(
        base.trace.as_ref().unwrap().variation,
        seed001::Variation::default()
    );
    for (file, corr, cov) in [
        ("curie-value-exact.toml", C::Exact, seed001::ETC_COV),
        ("curie-value-uncorrelated.toml", C::None, seed001::ETC_COV),
        ("curie-value-etc-low.toml", C::Weak, 0.01),
        ("curie-value-etc-high.toml", C::Weak, 1.0),
    ] {
        let e = Experiment::load(root().join("experiments").join(file)).unwrap();
        let v = e.trace.as_ref().unwrap().variation;
        assert_eq!((v.correlation, v.etc_cov), (corr, cov), "{file}");
        assert_eq!(e.trials, base.trials, "{file}");
        assert_eq!(e.configs.len(), base.configs.len(), "{file}");
        for (a, b) in e.configs.iter().zip(&base.configs) {
            assert_eq!((&a.label, a.heuristic), (&b.label, b.heuristic), "{file}");
        }
    }
}

/// Exactly correlated starting values are the mean itself; uncorrelated ones lie in
/// [1, 100] whatever the execution time; a smaller ETC COV keeps the columns nearer the
/// run time.
#[test]
fn value_fig5_variations_draw_as_documented() {
    use kairos_core::units::Micros;
    use kairos_core::utility::UtilityCurve;
    use kairos_host::generate::rng::Stream;
    let max = Micros::from_hours(10);
    let start = |c: seed001::ValueCorrelation, avg: Micros, k: u32| {
        let p = seed001::ValueParams {
            correlation: c,
            ..Default::default()
        };
        let mut s = Stream::new(1, k, "t", 0);
        match seed001::value_curve(&mut s, avg, max, &p) {
            UtilityCurve::Linear { start, .. } => start,
            other => panic!("{other:?}"),
        }
    };
    let p = seed001::ValueParams::default();
    for k in 0..50 {
        let avg = Micros::from_secs(60 + 600 * k as u64);
        let m = seed001::mean_start_value(avg, max, &p);
        assert_eq!(start(seed001::ValueCorrelation::Exact, avg, k), m);
        let u = start(seed001::ValueCorrelation::None, avg, k);
        assert!((1.0..=100.0).contains(&u), "{u}");
    }
    // Uncorrelated: a short and a long task draw from the same distribution.
    let short: f64 = (0..400)
        .map(|k| start(seed001::ValueCorrelation::None, Micros::from_secs(2), k))
        .sum::<f64>()
        / 400.0;
    let long: f64 = (0..400)
        .map(|k| start(seed001::ValueCorrelation::None, max, k))
        .sum::<f64>()
        / 400.0;
    assert!((short - long).abs() < 8.0, "{short} vs {long}");
    let spread = |cov: f64| {
        let mut s = Stream::new(1, 0, "etc", 0);
        let row = seed001::etc_row_cov(&mut s, Micros::from_secs(1000), 4, cov);
        row.iter()
            .map(|m| (m.0 as f64 / 1e9 - 1.0).abs())
            .fold(0.0, f64::max)
    };
    assert!(spread(0.01) < 0.05, "{}", spread(0.01));
    assert!(spread(0.01) < spread(1.0));
}

#[test]
fn value_bad_trace_experiments_name_the_key() {
    let run = "[[runs]]\nheuristic = \"easy\"\n";
    let cases: [(String, &str); 8] = [
        (
            format!("name = \"t\"\nscenario = \"../scenarios/essc-5k.toml\"\n{TRACE}{run}"),
            "give either scenario or a [trace] table",
        ),
        (format!("name = \"t\"\n{run}"), "scenario = (absent)"),
        (
            format!(
                "name = \"t\"\nscenario = \"../scenarios/essc-5k.toml\"\n{run}cores_fraction = 0.2\n"
            ),
            "runs[0].cores_fraction = 0.2: only a trace experiment",
        ),
        (
            format!("name = \"t\"\n{TRACE}{run}cores_fraction = 0\n"),
            "runs[0].cores_fraction = 0: must be greater than 0",
        ),
        (
            format!("name = \"t\"\n{TRACE}{run}filter = \"per-task\"\n"),
            "a trace experiment takes no filter",
        ),
        (
            format!("name = \"t\"\n[trace]\nswf = \"nowhere.swf\"\nseed = 1\n{run}"),
            "trace.swf = \"nowhere.swf\"",
        ),
        (
            format!("name = \"t\"\n{TRACE}value_correlation = \"strong\"\n{run}"),
            "trace.value_correlation = \"strong\": must be \"weak\", \"exact\" or \"none\"",
        ),
        (
            format!("name = \"t\"\n{TRACE}etc_cov = 0\n{run}"),
            "trace.etc_cov = 0: must be greater than 0",
        ),
    ];
    for (body, needle) in cases {
        let e = parse(&body).unwrap_err();
        assert!(e.contains("test.toml"), "{e}");
        assert!(e.contains(needle), "{needle:?} not in {e}");
    }
    // An unknown key of [trace] is the toml crate's error, with the line.
    let e = parse(&format!("name = \"t\"\n{TRACE}seeds = 2\n{run}")).unwrap_err();
    assert!(
        e.contains("unknown field `seeds`") && e.contains("line"),
        "{e}"
    );
}

/// Two scenarios (windows 0 and 1 of the Curie sample at 20% of the cores): Max VPR with
/// place-holders earns more than with permanent reservations, more than EASY and more than
/// Conservative on each; each row equals the scenario built and run alone.
#[test]
fn value_reduced_experiment_shows_the_robust_claims() {
    let body = format!(
        "name = \"t\"\ntrials = 2\n{TRACE}\
         [[runs]]\nheuristic = \"easy\"\n\
         [[runs]]\nheuristic = \"conservative\"\n\
         [[runs]]\nlabel = \"Max VPR PR\"\nheuristic = \"max-upr\"\nreservations = \"permanent\"\n\
         [[runs]]\nlabel = \"Max VPR PH\"\nheuristic = \"max-upr\"\nreservations = \"place-holder\"\n"
    );
    let e = parse(&body).unwrap();
    let out = runner::run(&e, Some(2), &Quiet).unwrap();
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.rows.len(), 8);
    let pct = |config: usize, trial: u32| {
        out.rows
            .iter()
            .find(|r| r.config == config && r.summary.trial == trial)
            .unwrap()
            .summary
            .utility_percent
    };
    for t in 0..2 {
        let (easy, cons, pr, ph) = (pct(0, t), pct(1, t), pct(2, t), pct(3, t));
        assert!(
            ph > pr && ph > easy && ph > cons,
            "scenario {t}: {easy} {cons} {pr} {ph}"
        );
        assert!((0.0..=100.0).contains(&ph));
    }
    // Scenario 1 alone, as `seed001::build` and `seed001::run` give it.
    let tr = e.trace.as_ref().unwrap();
    let w = seed001::windows(&tr.jobs, 2, tr.step).unwrap();
    let sc = seed001::build(&tr.jobs, tr.max_runtime, &w[1], 0.2, tr.seed).unwrap();
    let alone = seed001::run(&sc, Heuristic::MaxUpr, Reservations::PlaceHolder, "x").unwrap();
    let row = &out
        .rows
        .iter()
        .find(|r| r.config == 3 && r.summary.trial == 1)
        .unwrap()
        .summary;
    assert_eq!(alone.digest, row.digest);
    assert_eq!(alone.utility, row.utility);
    assert_eq!(alone.max_utility, row.max_utility);
    // The counts are the measured day's [4 h, 28 h), as docs/formats.md says: the
    // warm-up's arrivals are simulated, not counted, and the fates add up.
    let (day_start, day_end) = (
        seed001::WARMUP,
        seed001::WARMUP.saturating_add(seed001::DAY),
    );
    let in_day = sc
        .tasks
        .iter()
        .filter(|t| t.arrival >= day_start && t.arrival < day_end)
        .count() as u32;
    assert!(
        in_day < sc.tasks.len() as u32,
        "tasks arrive in the warm-up"
    );
    assert_eq!(alone.arrived, in_day);
    assert_eq!(
        alone.completed + alone.dropped + alone.unfinished,
        alone.arrived
    );
}

//! Experiment files: errors that name the file and line, and reruns that write the same bytes.

use super::energy::experiment::{is_energy, EnergyExperiment};
use super::pareto::experiment::{is_pareto, ParetoExperiment};
use super::pareto::stochastic_run::{is_stochastic, StochasticExperiment};
use super::serial::experiment::{is_serial, SerialExperiment};
use std::path::PathBuf;

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-s002-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("exp.toml");
    std::fs::write(&p, text).unwrap();
    p
}

const SMALL: &str = r#"
name = "s002-small"
system = "serial"
seed = 7
tasks_per_day = 1500
trials = 2
heuristics = ["max-util", "min-min-comp", "sufferage", "max-max-upt"]
thetas = [0, 0.5]
"#;

#[test]
fn bad_values_name_the_file_line_and_key() {
    let p = write(
        "bad",
        "name = \"x\"\nsystem = \"serial\"\nseed = 1\ntasks_per_day = 100\nheuristics = [\"max-util\", \"fastest\"]\nthetas = [-1]\n",
    );
    assert!(is_serial(&p));
    let e = SerialExperiment::load(&p).unwrap_err().to_string();
    assert!(
        e.contains("exp.toml:5: heuristics[1] = fastest: unknown heuristic"),
        "{e}"
    );
    assert!(
        e.contains("exp.toml:6: thetas[0] = -1: must be between 0"),
        "{e}"
    );
}

#[test]
fn a_rerun_writes_the_same_bytes() {
    let p = write("small", SMALL);
    let out1 = p.parent().unwrap().join("out1");
    let out2 = p.parent().unwrap().join("out2");
    let whole = &super::Resume::WHOLE;
    super::run_file(&p, None, dir_at(&out1), Some(2), whole).unwrap();
    super::run_file(&p, None, dir_at(&out2), Some(1), whole).unwrap();
    for f in [
        "trials.csv",
        "summary.csv",
        "summary.json",
        "utility.svg",
        "events.svg",
    ] {
        let a = std::fs::read(out1.join(f)).unwrap();
        let b = std::fs::read(out2.join(f)).unwrap();
        assert!(!a.is_empty() && a == b, "{f} differs between reruns");
    }
    // A folder holding a run's reports is refused before any trial runs, unless forced.
    let trials = std::sync::atomic::AtomicU32::new(0);
    let count = || {
        trials.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        false
    };
    let count = super::Resume {
        resume: false,
        stop: &count,
    };
    let e = super::run_file(&p, None, dir_at(&out1), Some(1), &count)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pass --force"), "{e}");
    assert_eq!(trials.load(std::sync::atomic::Ordering::Relaxed), 0);
    let forced = super::ReportsDir {
        dir: Some(out1.clone()),
        force: true,
    };
    super::run_file(&p, None, forced, Some(1), &count).unwrap();
    let csv = std::fs::read_to_string(out1.join("trials.csv")).unwrap();
    // 4 heuristics x 2 thresholds x 2 trials, and a header.
    assert_eq!(csv.lines().count(), 17);
}

/// The reports of `dir`, by name.
fn reports(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// Stopped after its first trial (as Ctrl-C stops it), a run keeps that trial, refuses a
/// rerun without `--resume`, and `--resume` runs the other trials only, to the bytes of an
/// uninterrupted run; the saved trials are gone once the reports are written.
#[test]
fn a_stopped_run_resumes_to_the_same_bytes() {
    let p = write("small-resumed", SMALL);
    let whole = p.parent().unwrap().join("whole");
    let cut = p.parent().unwrap().join("cut");
    super::run_file(&p, Some(3), dir_at(&whole), Some(1), &super::Resume::WHOLE).unwrap();
    let asked = std::sync::atomic::AtomicU32::new(0);
    let stop_after_one = || asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 1;
    let stopping = super::Resume {
        resume: false,
        stop: &stop_after_one,
    };
    let e = super::run_file(&p, Some(3), dir_at(&cut), Some(1), &stopping)
        .unwrap_err()
        .to_string();
    assert!(e.contains("interrupted: 1 of 3 trials saved"), "{e}");
    assert!(e.contains("--trials 3 --resume`"), "{e}");
    assert!(!cut.join("summary.json").exists());
    let e = super::run_file(&p, Some(3), dir_at(&cut), Some(1), &super::Resume::WHOLE)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pass --resume"), "{e}");
    // Another trial count is refused, and keeps the saved trial.
    let resume = super::Resume {
        resume: true,
        stop: &|| false,
    };
    let e = super::run_file(&p, Some(4), dir_at(&cut), Some(1), &resume)
        .unwrap_err()
        .to_string();
    assert!(e.contains("a run of 3 steps, not 4"), "{e}");
    assert!(cut.join("runs/shard-1-of-3.shard").exists());
    let ran = std::sync::atomic::AtomicU32::new(0);
    let counting = || {
        ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        false
    };
    let resume = super::Resume {
        resume: true,
        stop: &counting,
    };
    super::run_file(&p, Some(3), dir_at(&cut), Some(2), &resume).unwrap();
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(reports(&cut), reports(&whole));
    assert!(!cut.join("runs").exists());
}

#[test]
fn every_seed002_experiment_file_loads() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        // Chapters 3-4's files (`s002-energy-*`) are checked by energy_experiment's tests,
        // Chapters 5-7's (`s002-pareto-*`) by pareto_experiment's; the rest (Chapter 2's,
        // the K-Best sweep, the `s002-why-*` diagnostics) are serial, energy or (a
        // diagnostic of a Pareto claim) Pareto or Chapter 7 (stochastic) files.
        if name.starts_with("s002-")
            && !name.starts_with("s002-energy-")
            && !name.starts_with("s002-pareto-")
            && name.ends_with(".toml")
        {
            if is_pareto(&p) {
                let exp = ParetoExperiment::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(!exp.populations.is_empty(), "{name}");
            } else if is_stochastic(&p) {
                let exp = StochasticExperiment::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(!exp.scores.is_empty(), "{name}");
            } else if is_energy(&p) {
                let exp = EnergyExperiment::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(!exp.configs.is_empty(), "{name}");
            } else {
                assert!(is_serial(&p), "{name}");
                let exp = SerialExperiment::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(!exp.configs.is_empty(), "{name}");
            }
            n += 1;
        }
    }
    assert!(n >= 20, "{n} files");
}

/// The utility split by priority level adds up to the core's own total on every
/// configuration and trial.
#[test]
fn the_priority_split_adds_up_to_the_reported_utility() {
    let p = write("split", SMALL);
    let exp = SerialExperiment::load(&p).unwrap();
    let rows = super::serial::experiment::run(&exp, Some(1), &|_| {}).unwrap();
    for r in &rows {
        let sum: u64 = r.by_priority.iter().map(|u| u.0).sum();
        assert_eq!(
            sum, r.report.utility.0,
            "config {} trial {}",
            r.config, r.trial
        );
    }
    assert!(rows
        .iter()
        .any(|r| r.by_priority.iter().filter(|u| u.0 > 0).count() == 4));
    let csv = super::serial::report::trials_csv(&exp, &rows);
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with("utility_medium,utility_low"));
}

/// A reports folder at `dir`, not forced.
fn dir_at(dir: &std::path::Path) -> super::ReportsDir {
    super::ReportsDir {
        dir: Some(dir.to_owned()),
        force: false,
    }
}

#[test]
fn a_heuristic_or_theta_listed_twice_is_refused() {
    let p = write(
        "twice",
        "name = \"x\"\nsystem = \"serial\"\nseed = 1\ntasks_per_day = 100\nheuristics = [\"max-util\", \"max-util\"]\nthetas = [0.5, 0.5]\n",
    );
    let e = SerialExperiment::load(&p).unwrap_err().to_string();
    assert!(
        e.contains("exp.toml:5: heuristics[1] = max-util: listed twice"),
        "{e}"
    );
    assert!(
        e.contains("exp.toml:6: thetas[1] = 0.5: listed twice"),
        "{e}"
    );
}

/// A value listed twice would run one configuration twice under one label (the
/// `seed002_toml` fuzzer's find: `permute = [0, 5, 3, 5]`,
/// `fuzz/corpus/seed002_toml/fuzz_permute_twice.toml`); so would two triggers with one
/// label, and in an energy file a machine model, a filter or a weight given twice.
#[test]
fn a_value_listed_twice_is_refused() {
    let p = write(
        "twice",
        "name = \"x\"\nsystem = \"serial\"\nseed = 1\ntasks_per_day = 100\n\
         heuristics = [\"sufferage\"]\npermute = [0, 5, 3, 5]\n\
         [[triggers]]\nlabel = \"t\"\ntasks = 5\n[[triggers]]\nlabel = \"t\"\ntasks = 6\n",
    );
    let e = SerialExperiment::load(&p).unwrap_err().to_string();
    assert!(e.contains("permute[3] = 5: listed twice"), "{e}");
    assert!(
        e.contains("triggers[1].label = t: two triggers with one label"),
        "{e}"
    );
    let p = write(
        "twice-energy",
        "name = \"x\"\nsystem = \"serial-energy\"\nchapter = 4\nseed = 1\nbudget_gj = 1\n\
         heuristics = [\"weighted-util\"]\nmachines = [\"queued\", \"queued\"]\n\
         filters = [\"adaptive\", \"adaptive:1\"]\nweights = [0.5, 0.5]\n",
    );
    let e = super::energy::experiment::EnergyExperiment::load(&p)
        .unwrap_err()
        .to_string();
    for want in [
        "machines[1] = queued: listed twice",
        "filters[1] = adaptive:1: listed twice",
        "weights[1] = 0.5: listed twice",
    ] {
        assert!(e.contains(want), "{want}: {e}");
    }
}

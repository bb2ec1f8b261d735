//! Experiment files: errors that name the file and line, and reruns that write the same bytes.

use super::experiment::{is_serial, SerialExperiment};
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
    super::run_file(&p, None, dir_at(&out1), Some(2), &|_| {}).unwrap();
    super::run_file(&p, None, dir_at(&out2), Some(1), &|_| {}).unwrap();
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
    let count = |_| {
        trials.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

#[test]
fn every_seed002_experiment_file_loads() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        // Chapters 3-4's files (`s002-energy-*`) are checked by energy_experiment's tests,
        // Chapters 5-7's (`s002-pareto-*`) by pareto_experiment's.
        if name.starts_with("s002-")
            && !name.starts_with("s002-energy-")
            && !name.starts_with("s002-pareto-")
            && name.ends_with(".toml")
        {
            assert!(is_serial(&p), "{name}");
            let exp = SerialExperiment::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!exp.configs.is_empty(), "{name}");
            n += 1;
        }
    }
    assert_eq!(n, 15);
}

/// The utility split by priority level adds up to the core's own total on every
/// configuration and trial.
#[test]
fn the_priority_split_adds_up_to_the_reported_utility() {
    let p = write("split", SMALL);
    let exp = SerialExperiment::load(&p).unwrap();
    let rows = super::experiment::run(&exp, Some(1), &|_| {}).unwrap();
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
    let csv = super::report::trials_csv(&exp, &rows);
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

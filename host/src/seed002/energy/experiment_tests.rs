//! Energy experiment files: errors that name the file, line and key; a small run whose
//! reports are byte-identical on a rerun and on another thread count.

use super::*;
use std::path::PathBuf;

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-s002e-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("exp.toml");
    std::fs::write(&p, text).unwrap();
    p
}

const SMALL: &str = r#"
name = "s002-energy-small"
system = "serial-energy"
chapter = 4
seed = 7
tasks_per_day = 800
trials = 2
budget_gj = 0.03
machines = ["queued", "polled"]
filters = ["adaptive"]
heuristics = ["max-upe", "prio-lcfs-all", "random", "weighted-util"]
weights = [0.5]
trace_minutes = 120
"#;

#[test]
fn bad_values_name_the_file_line_and_key() {
    let p = write(
        "bad",
        "name = \"x\"\nsystem = \"serial-energy\"\nchapter = 5\nseed = 1\nbudget_gj = -1\nfilters = [\"tuned\"]\nheuristics = [\"max-upe\", \"fastest\"]\n",
    );
    assert!(is_energy(&p));
    let e = EnergyExperiment::load(&p).unwrap_err().to_string();
    for want in [
        "exp.toml:3: chapter = 5: must be 3 or 4",
        "exp.toml:5: budget_gj = -1",
        "exp.toml:6: filters[0] = tuned: must be none, tuned:L",
        "exp.toml:7: heuristics[1] = fastest: unknown heuristic",
    ] {
        assert!(e.contains(want), "{want} not in {e}");
    }
}

#[test]
fn a_small_run_is_within_budget_and_reruns_byte_identically() {
    let p = write("small", SMALL);
    let exp = EnergyExperiment::load(&p).unwrap();
    assert_eq!(exp.configs.len(), 8);
    let rows = run(&exp, Some(2), &|_| {}).unwrap();
    for r in &rows {
        assert!(r.report.max_day_energy <= r.report.max_day_budget, "{r:?}");
        assert!(r.report.completed > 0);
        assert_eq!(r.trace.len(), 12);
        // 800 tasks a day leave the 100 machines idle most of the time, never all of it.
        assert!(r.idle_pct > 50.0 && r.idle_pct < 100.0, "{r:?}");
    }
    let again = run(&exp, Some(1), &|_| {}).unwrap();
    assert_eq!(reports(&exp, &rows), reports(&exp, &again));
}

#[test]
fn every_energy_experiment_file_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("s002-energy-") && name.ends_with(".toml") {
            assert!(is_energy(&p), "{name}");
            let exp = EnergyExperiment::load(&p).unwrap_or_else(|e| panic!("{e}"));
            assert!(!exp.configs.is_empty(), "{name}");
            n += 1;
        }
    }
    assert!(n >= 11, "{n} files");
}

#[test]
fn plots_draw_a_line_per_configuration_family() {
    let p = write("plots", SMALL);
    let exp = EnergyExperiment::load(&p).unwrap();
    let rows = run(&exp, Some(2), &|_| {}).unwrap();
    let svgs = plots::plots(&exp, &rows);
    let names: Vec<&str> = svgs.iter().map(|s| s.0).collect();
    assert_eq!(
        names,
        [
            "utility.svg",
            "energy.svg",
            "trace-utility.svg",
            "trace-energy.svg"
        ]
    );
    for (name, text) in &svgs {
        assert!(
            text.starts_with("<svg") && text.ends_with("</svg>\n"),
            "{name}"
        );
    }
    // One weight and one filter: configurations on x, a line per machine model.
    assert!(svgs[0].1.contains("adaptive, queued") && svgs[0].1.contains("adaptive, polled"));
    // Two trials: each mean has its interval's error bar, and the subtitle says so.
    for (name, text) in &svgs[..2] {
        assert!(
            text.contains("2 trials: the mean and its 95% confidence interval"),
            "{name}"
        );
        assert_eq!(
            text.matches("stroke-width=\"1.2\"").count(),
            exp.configs.len(),
            "{name}: an error bar per configuration"
        );
    }
    // Traces: a line per configuration.
    for c in &exp.configs {
        assert!(svgs[2].1.contains(&c.label), "{}", c.label);
    }
    assert_eq!(svgs, plots::plots(&exp, &rows));
    // A weight sweep puts the weight on x and drops it from the line's name.
    let sweep = SMALL
        .replace("weights = [0.5]", "weights = [0.2, 0.5]")
        .replace("\"max-upe\", \"prio-lcfs-all\", \"random\", ", "");
    let exp = EnergyExperiment::load(&write("sweep", &sweep)).unwrap();
    let rows = run(&exp, Some(1), &|_| {}).unwrap();
    let u = &plots::plots(&exp, &rows)[0].1;
    assert!(
        u.contains("U-E weighting factor") && u.contains("Weighted Util queued"),
        "{u}"
    );
    assert!(!u.contains("w=0.2"));
}

#[test]
fn a_heuristic_twice_or_a_rate_below_one_task_a_day_is_refused() {
    let p = write(
        "twice",
        "name = \"x\"\nsystem = \"serial-energy\"\nchapter = 4\nseed = 1\ntasks_per_day = 1e-300\nheuristics = [\"max-upe\", \"max-upe\"]\n",
    );
    let e = EnergyExperiment::load(&p).unwrap_err().to_string();
    assert!(e.contains("exp.toml:5: tasks_per_day = 0.000"), "{e}");
    assert!(e.contains("must be between 1 and"), "{e}");
    assert!(
        e.contains("exp.toml:6: heuristics[1] = max-upe: listed twice"),
        "{e}"
    );
}

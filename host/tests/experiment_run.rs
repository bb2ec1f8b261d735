//! `kairos experiment` end to end on a reduced experiment (2 trials of a small scenario, three
//! [[runs]] entries, four configurations): every file, byte-identical re-runs, the same
//! results as `kairos run`, the calibration, and command-line errors.

/// Named so that `cargo test -p kairos-host experiment` selects these tests.
mod experiment {
    use kairos_host::experiment::runner::{self, Failure, Quiet};
    use kairos_host::experiment::Experiment;
    use kairos_host::report;
    use kairos_host::run::run_trial;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    fn data(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name)
    }

    fn kairos(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(args)
            .output()
            .expect("the kairos binary runs")
    }

    fn run_ok(args: &[&str]) -> (String, String) {
        let out = kairos(args);
        let (stdout, stderr) = (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        );
        assert!(out.status.success(), "{args:?}: {stderr}");
        (stdout, stderr)
    }

    const FILES: [&str; 8] = [
        "trials.csv",
        "summary.csv",
        "summary.json",
        "timing.json",
        "utility.svg",
        "energy.svg",
        "leniency.svg",
        "leniency-energy.svg",
    ];

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    #[test]
    fn writes_every_file_and_reruns_byte_identically() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        let file = data("experiment_small.toml");
        let file = file.to_str().unwrap();
        // Different thread counts: results must not depend on them.
        let (stdout, stderr) = run_ok(&["experiment", file, "--out", a.to_str().unwrap()]);
        run_ok(&[
            "experiment",
            file,
            "--out",
            b.to_str().unwrap(),
            "--jobs",
            "1",
        ]);
        for f in FILES {
            let (x, y) = (read(&a, f), read(&b, f));
            assert!(!x.is_empty(), "{f} is empty");
            if f != "timing.json" {
                assert_eq!(x, y, "{f} differs between re-runs");
            }
        }
        // Not a terminal: plain progress lines, one per trial.
        assert_eq!(stderr.matches(" done: ").count(), 2, "{stderr}");
        assert!(
            stderr.contains("2/2 trials, 8/8 runs") && stderr.contains("eta"),
            "{stderr}"
        );
        assert!(stdout.contains("Max UPR PH + EPT L=4"), "{stdout}");
        assert!(stdout.contains("energy budget: 0.300 GJ"), "{stdout}");

        // trials.csv: a header and one row per configuration and trial, sorted.
        let csv = read(&a, "trials.csv");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + 4 * 2, "{csv}");
        assert!(lines[0].starts_with("label,heuristic,reservations,filter,leniency,trial,"));
        assert!(lines[3].starts_with("\"Max UPR PH, no filter\",max-upr,place-holder,none,"));
        assert!(
            lines[5].starts_with("Max UPR PH + EPT L=1,max-upr,place-holder,per-task,1.000000,0,")
        );
        assert!(
            lines[8].starts_with("Max UPR PH + EPT L=4,max-upr,place-holder,per-task,4.000000,1,")
        );
        for l in &lines[1..] {
            assert!(l.contains(",300000000.000000,"), "budget column: {l}");
        }

        // summary.json: parses, n = 2, CIs present, budget and sweep recorded.
        let j: serde_json::Value = serde_json::from_str(&read(&a, "summary.json")).unwrap();
        assert_eq!(j["experiment"], "experiment-small");
        assert_eq!(j["trials"], 2);
        assert_eq!(j["energy_budget_joules"].as_f64(), Some(3e8));
        let configs = j["configs"].as_array().unwrap();
        assert_eq!(configs.len(), 4);
        for c in configs {
            assert_eq!(c["n"], 2);
            assert!(c["utility_percent"]["ci95"].as_f64().unwrap() >= 0.0);
            let e = c["energy_joules"]["mean"].as_f64().unwrap();
            assert!(e > 0.0 && e <= 3e8 + 1e-3, "{c}");
        }
        assert_eq!(j["series"][0]["label"], "Max UPR PH + EPT");
        assert!(j.get("calibration").is_none());
        let summary = read(&a, "summary.csv");
        assert_eq!(summary.lines().count(), 5, "{summary}");

        let t: serde_json::Value = serde_json::from_str(&read(&a, "timing.json")).unwrap();
        assert_eq!(t["runs"], 8);
        assert_eq!(t["configs"].as_array().unwrap().len(), 4);

        // The plots: SVG with the labels, the budget line, the sweep.
        let u = read(&a, "utility.svg");
        assert!(u.starts_with("<svg") && u.trim_end().ends_with("</svg>"));
        assert!(u.contains("% of maximum utility") && u.contains("Max UPR PH + EPT L=1"));
        assert!(read(&a, "energy.svg").contains("stroke-dasharray"));
        assert!(read(&a, "leniency.svg").contains("energy leniency factor"));
    }

    #[test]
    fn rows_are_what_kairos_run_gives() {
        let exp = Experiment::load(data("experiment_small.toml")).unwrap();
        let out = runner::run(&exp, Some(2), &Quiet).unwrap();
        assert_eq!(out.rows.len(), exp.configs.len() * exp.trials as usize);
        assert_eq!(out.generate_s.len(), exp.trials as usize);
        for (i, row) in out.rows.iter().enumerate() {
            let (c, t) = (i / exp.trials as usize, (i % exp.trials as usize) as u32);
            assert_eq!((row.config, row.summary.trial), (c, t));
            let alone = run_trial(&exp.scenario, &exp.run_options(c, t)).unwrap();
            assert_eq!(row.summary.digest, alone.digest, "{}", exp.configs[c].label);
            assert_eq!(row.summary.utility, alone.utility);
            assert_eq!(row.summary.energy_budget_joules, Some(3e8));
            assert!(row.summary.trace.is_empty());
        }
        assert!(out.failures.is_empty());
        let s = report::summarize(&exp, &out);
        // The energy-per-task filter at leniency 1 holds back more than at 4.
        assert!(s[2].energy_joules.mean <= s[3].energy_joules.mean, "{s:?}");
        assert!(report::calibration(&exp, &s).is_none());

        // A failed run: left out of the rows and the summaries, listed in summary.json.
        let mut failed = out.clone();
        let i = failed.rows.iter().position(|r| r.config == 1).unwrap();
        let row = failed.rows.remove(i);
        failed.failures.push(Failure {
            config: 1,
            trial: row.summary.trial,
            error: "capacity exceeded".to_string(),
        });
        let s = report::summarize(&exp, &failed);
        assert_eq!(s[1].utility_percent.n, 1);
        assert_eq!(s[0].utility_percent.n, 2);
        let j: serde_json::Value =
            serde_json::from_str(&report::summary_json(&exp, &s, None, &failed.failures)).unwrap();
        assert_eq!(j["failures"][0]["label"], "Max UPR PH, no filter");
        assert_eq!(j["failures"][0]["error"], "capacity exceeded");
        assert!(!report::summary_json(&exp, &s, None, &[]).contains("failures"));
    }

    #[test]
    fn calibration_reports_seventy_percent_of_the_reference() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("cal.toml");
        std::fs::write(
            &file,
            format!(
                "name = \"cal\"\nscenario = {:?}\nbudget = \"none\"\n\
                 [calibrate]\nreference = \"Max Util PH\"\n\
                 [[runs]]\nheuristic = \"max-util\"\n\
                 [[runs]]\nheuristic = \"easy\"\n",
                data("experiment_scenario.toml")
            ),
        )
        .unwrap();
        let out = tmp.path().join("out");
        let (stdout, _) = run_ok(&[
            "experiment",
            file.to_str().unwrap(),
            "--trials",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(stdout.contains("calibrated energy budget: "), "{stdout}");
        assert!(
            stdout.contains("simulation.energy_budget_joules"),
            "{stdout}"
        );
        let j: serde_json::Value = serde_json::from_str(&read(&out, "summary.json")).unwrap();
        assert_eq!(j["trials"], 1);
        assert!(j["energy_budget_joules"].is_null());
        let cal = &j["calibration"];
        assert_eq!(cal["reference"], "Max Util PH");
        assert_eq!(cal["fraction"].as_f64(), Some(0.7));
        let mean = cal["reference_energy_joules"]["mean"].as_f64().unwrap();
        assert_eq!(
            mean,
            j["configs"][0]["energy_joules"]["mean"].as_f64().unwrap()
        );
        let budget = cal["energy_budget_joules"].as_f64().unwrap();
        assert!(
            (budget - (0.7 * mean).round()).abs() < 1e-6,
            "{budget} vs 0.7 x {mean}"
        );
        assert!(stdout.contains(&format!("{budget:.0} J")), "{stdout}");
        // One trial: a mean, no confidence interval.
        assert!(cal["reference_energy_joules"]["ci95"].is_null());
        let summary = read(&out, "summary.csv");
        let row: Vec<&str> = summary.lines().nth(1).unwrap().split(',').collect();
        assert_eq!((row[5], row[7]), ("1", ""), "{summary}");
        // No sweep, no leniency plot.
        assert!(!out.join("leniency.svg").exists());
    }

    #[test]
    fn command_line_errors() {
        let file = data("experiment_small.toml");
        let file = file.to_str().unwrap();
        // A value out of range is a bad command line (2); a missing file, a failed run (1).
        for (args, needle, code) in [
            (vec!["experiment", file, "--trials", "0"], "--trials 0", 2),
            (vec!["experiment", file, "--jobs", "0"], "--jobs 0", 2),
            (vec!["experiment", file, "--threads", "0"], "--threads 0", 2),
            (
                vec!["experiment", "/nonexistent/x.toml"],
                "/nonexistent/x.toml: cannot read",
                1,
            ),
        ] {
            let out = kairos(&args);
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
            assert!(stderr.contains(needle), "{args:?}: {stderr}");
        }
    }
}

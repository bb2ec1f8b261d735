//! Experiment files: expansion of the runs, defaults, and errors that name the file and the
//! key.

/// Named so that `cargo test -p kairos-host experiment` selects these tests.
mod experiment {
    use kairos_core::energy::FilterKind;
    use kairos_core::{Heuristic, Reservations};
    use kairos_host::experiment::{BudgetSpec, Experiment, DEFAULT_TRIALS};
    use std::path::{Path, PathBuf};

    fn data(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name)
    }

    /// An experiment file `bad.toml` in a temporary directory, its scenario the test one
    /// (absolute), then `body`.
    fn parse(body: &str) -> (Result<Experiment, String>, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        let text = format!(
            "name = \"t\"\nscenario = {:?}\n{body}",
            data("experiment_scenario.toml").display().to_string()
        );
        std::fs::write(&path, &text).unwrap();
        let r = Experiment::load(&path).map_err(|e| e.to_string());
        (r, path.display().to_string())
    }

    /// The error of `body`, checked to name the file and every one of `keys`.
    fn error(body: &str, keys: &[&str]) -> String {
        let (r, file) = parse(body);
        let e = r.expect_err(body);
        assert!(e.contains(&file), "{e:?} does not name {file}");
        for k in keys {
            assert!(e.contains(k), "{e:?} does not name {k:?}");
        }
        e
    }

    const RUN: &str = "[[runs]]\nheuristic = \"max-upr\"\n";

    #[test]
    fn the_test_experiment_expands_as_written() {
        let e = Experiment::load(data("experiment_small.toml")).unwrap();
        assert_eq!(e.name, "experiment-small");
        assert_eq!(e.title, "experiment-small");
        assert_eq!(e.trials, 2);
        assert_eq!(e.scenario.name, "experiment-small");
        // The scenario path is relative to the experiment file's directory.
        assert_eq!(e.scenario_path, data("experiment_scenario.toml"));
        assert_eq!(e.budget, BudgetSpec::Joules(3e8));
        assert_eq!(e.budget_joules(), Some(3e8));
        let labels: Vec<&str> = e.configs.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "EASY",
                "Max UPR PH, no filter",
                "Max UPR PH + EPT L=1",
                "Max UPR PH + EPT L=4"
            ]
        );
        assert_eq!(e.configs[0].heuristic, Heuristic::Easy);
        assert_eq!(e.configs[0].reservations, Reservations::Permanent);
        assert_eq!(e.configs[0].filter, FilterKind::None);
        assert_eq!(e.configs[0].leniency, 1.0);
        assert_eq!(e.configs[1].reservations, Reservations::PlaceHolder);
        assert_eq!(e.configs[2].filter, FilterKind::PerTask);
        assert_eq!((e.configs[2].leniency, e.configs[3].leniency), (1.0, 4.0));
        assert_eq!(e.series.len(), 1);
        assert_eq!(e.series[0].label, "Max UPR PH + EPT");
        assert_eq!(e.series[0].configs, [2, 3]);
        assert_eq!(e.configs[2].series, Some(0));
        assert_eq!(e.configs[0].series, None);
        assert!(e.calibrate.is_none());
        let o = e.run_options(3, 1);
        assert_eq!(o.trial, 1);
        assert_eq!(o.leniency, Some(4.0));
        assert_eq!(o.reservations, Some(Reservations::PlaceHolder));
    }

    #[test]
    fn defaults_come_from_the_scenario() {
        let (r, _) = parse(
            "[[runs]]\nheuristic = \"max-util\"\nfilter = \"per-resource\"\n\
             [[runs]]\nheuristic = \"max-util\"\nfilter = \"per-task\"\nreservations = \"permanent\"\n\
             [[runs]]\nheuristic = \"multi-queue\"\n",
        );
        let e = r.unwrap();
        assert_eq!(e.trials, DEFAULT_TRIALS);
        assert_eq!(e.budget, BudgetSpec::Scenario);
        assert_eq!(e.budget_joules(), None);
        let got: Vec<(&str, f64)> = e
            .configs
            .iter()
            .map(|c| (c.label.as_str(), c.leniency))
            .collect();
        assert_eq!(
            got,
            [
                ("Max Util PH + EPR", 4.0),
                ("Max Util PR + EPT", 2.0),
                ("Multi-Queue", 1.0)
            ]
        );
        // "none" removes the scenario's budget; a calibration runs unconstrained.
        let (r, _) = parse(&format!("budget = \"none\"\n{RUN}"));
        assert_eq!(r.unwrap().budget_joules(), None);
        let (r, _) = parse(&format!("budget = 5000\n{RUN}"));
        assert_eq!(r.unwrap().budget_joules(), Some(5000.0));
        let (r, _) = parse(&format!("[calibrate]\n{RUN}"));
        let e = r.unwrap();
        let c = e.calibrate.unwrap();
        assert_eq!((c.fraction, c.reference), (0.7, 0));
    }

    #[test]
    fn bad_files_name_the_file_and_the_key() {
        // Syntax, unknown keys and wrong types: the toml crate's message, with the line.
        error(&format!("colour = 3\n{RUN}"), &["colour", "line 3"]);
        error(&format!("{RUN}lenency = 2.0\n"), &["lenency"]);
        error(&format!("trials = \"many\"\n{RUN}"), &["trials"]);
        error(&format!("budget = \"nil\"\n{RUN}"), &["budget", "\"none\""]);
        error("name = \"u\"\n", &["duplicate key", "name"]);
        error("", &["runs"]);
        // Values.
        error(&format!("trials = 0\n{RUN}"), &["trials = 0"]);
        error(&format!("budget = -1.0\n{RUN}"), &["budget = -1"]);
        error(
            "[[runs]]\nheuristic = \"max-foo\"\n",
            &["runs[0].heuristic", "max-foo"],
        );
        error(
            &format!("{RUN}[[runs]]\nheuristic = \"easy\"\nreservations = \"place-holder\"\n"),
            &["runs[1].reservations", "only reserves permanently"],
        );
        error(
            &format!("{RUN}reservations = \"sometimes\"\n"),
            &["runs[0].reservations"],
        );
        error(
            &format!("{RUN}filter = \"per-node\"\n"),
            &["runs[0].filter", "per-node"],
        );
        error(
            &format!("{RUN}leniency = 2.0\n"),
            &["runs[0].leniency", "needs a filter"],
        );
        error(
            &format!("{RUN}filter = \"per-task\"\nleniency = 2.0\nleniencies = [1.0]\n"),
            &["runs[0].leniencies", "not both"],
        );
        error(
            &format!("{RUN}filter = \"per-task\"\nleniencies = [1.0, -2.0]\n"),
            &["runs[0].leniencies[1] = -2"],
        );
        error(
            &format!("{RUN}filter = \"per-task\"\nleniencies = []\n"),
            &["runs[0].leniencies"],
        );
        error(
            &format!("{RUN}{RUN}"),
            &["runs[1].label", "Max UPR PH", "unique"],
        );
        error(
            &format!("[calibrate]\nreference = \"Nope\"\n{RUN}"),
            &["calibrate.reference", "Nope"],
        );
        error(
            &format!("[calibrate]\n{RUN}[[runs]]\nheuristic = \"easy\"\n"),
            &["calibrate.reference"],
        );
        error(
            &format!("budget = 1e9\n[calibrate]\n{RUN}"),
            &["budget", "unconstrained"],
        );
        error(
            &format!("[calibrate]\nfraction = 0.0\n{RUN}"),
            &["calibrate.fraction"],
        );
        error(&format!("name = \"a/b\"\n{RUN}"), &["duplicate key"]);
        // Several errors at once, one line each.
        let e = error(
            "trials = 0\n[[runs]]\nheuristic = \"x\"\n",
            &["trials = 0", "runs[0].heuristic"],
        );
        assert_eq!(e.lines().count(), 2, "{e}");
    }

    #[test]
    fn bad_names_and_scenarios_name_the_file_and_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.toml");
        let file = path.display().to_string();
        std::fs::write(
            &path,
            format!(
                "name = \"a/b\"\nscenario = {:?}\n{RUN}",
                data("experiment_scenario.toml")
            ),
        )
        .unwrap();
        let e = Experiment::load(&path).unwrap_err().to_string();
        assert!(e.contains(&file) && e.contains("name = \"a/b\""), "{e}");
        // A missing scenario: relative to the experiment's directory, named as written.
        std::fs::write(
            &path,
            format!("name = \"a\"\nscenario = \"nowhere.toml\"\n{RUN}"),
        )
        .unwrap();
        let e = Experiment::load(&path).unwrap_err().to_string();
        assert!(
            e.contains(&file) && e.contains("scenario = \"nowhere.toml\""),
            "{e}"
        );
        assert!(
            e.contains(&dir.path().join("nowhere.toml").display().to_string()),
            "{e}"
        );
        // A missing experiment file.
        let e = Experiment::load(Path::new("/nonexistent/e.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/nonexistent/e.toml") && e.contains("cannot read"),
            "{e}"
        );
    }
}

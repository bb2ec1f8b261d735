//! Scenario files: the checked-in ones load, and bad ones fail naming the file, the key and
//! the line or the allowed range.

/// Named so that `cargo test -p kairos-host essc` selects these tests.
mod essc {

    use kairos_host::scenario::{Scenario, ScenarioError};
    use std::path::PathBuf;

    fn repo(path: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(path)
    }

    const MINIMAL: &str = r#"
name = "tiny"
seed = 1

[[platform.clusters]]
name = "a"
kind = "general"
nodes = 4
cores_per_node = 8

[workload]
tasks_per_day = 10
task_types = { general = 3, special_per_cluster = 0 }
"#;

    fn err(text: &str) -> String {
        Scenario::parse(text, "scenarios/x.toml")
            .expect_err("should not parse")
            .to_string()
    }

    #[test]
    fn checked_in_scenarios_load_with_model_md_values() {
        for (file, tasks, budget) in [
            ("scenarios/essc-5k.toml", 5000, 11_371_503_248.0),
            ("scenarios/essc-10k.toml", 10_000, 14_593_870_328.0),
        ] {
            let s = Scenario::load(repo(file)).unwrap();
            assert_eq!(s.workload.tasks_per_day, tasks);
            assert_eq!(s.platform.clusters.len(), 6);
            assert_eq!(s.task_type_count(), 100);
            assert_eq!(s.platform.pstates, [1.0, 0.75, 0.5]);
            assert_eq!(s.simulation.horizon_hours, 28);
            assert_eq!(s.simulation.warmup_hours, 4);
            assert_eq!(s.simulation.mapping_interval_s, 60);
            // The 70% calibration (docs/results.md), in the scenario beside its command.
            assert_eq!(s.simulation.energy_budget_joules, Some(budget));
            // Every key spelt out equals its default.
            let mut d = Scenario::parse(MINIMAL, "minimal").unwrap();
            d.name = s.name.clone();
            d.seed = s.seed;
            d.platform.clusters = s.platform.clusters.clone();
            d.workload.tasks_per_day = tasks;
            d.workload.task_types = Default::default();
            d.simulation.energy_budget_joules = s.simulation.energy_budget_joules;
            assert_eq!(d, s, "{file}");
        }
    }

    #[test]
    fn unknown_key_names_the_file_and_the_line() {
        let text = MINIMAL.replace("[workload]\n", "[workload]\ntasks_per_dya = 3\n");
        let e = err(&text);
        assert!(e.starts_with("scenarios/x.toml: "), "{e}");
        assert!(e.contains("line 12"), "{e}");
        assert!(e.contains("unknown field `tasks_per_dya`"), "{e}");
        assert!(e.contains("tasks_per_dya = 3"), "{e}");
    }

    #[test]
    fn wrong_type_names_the_file_and_the_line() {
        let text = MINIMAL.replace("nodes = 4", "nodes = \"four\"");
        let e = err(&text);
        assert!(e.starts_with("scenarios/x.toml: "), "{e}");
        assert!(e.contains("line 8"), "{e}");
        assert!(e.contains("invalid type"), "{e}");
        let e = err(&MINIMAL.replace("kind = \"general\"", "kind = \"gpu\""));
        assert!(
            e.contains("line 7") && e.contains("unknown variant `gpu`"),
            "{e}"
        );
    }

    #[test]
    fn out_of_range_values_name_the_line_the_key_and_the_range() {
        let text = format!("{MINIMAL}\n[simulation]\nmapping_interval_s = 0\n");
        assert_eq!(
            err(&text),
            "scenarios/x.toml:16: simulation.mapping_interval_s = 0: must be between 1 and 86400"
        );
        let text = format!(
        "{MINIMAL}\n[simulation]\nhorizon_hours = 10\nwarmup_hours = 10\ndropping_threshold = -1\n\
         energy_budget_joules = 0\n\n[simulation.leniency]\nper_task = 2.0\nper_resource = nan\n\
         adaptive = 1.0\n"
    );
        let e = err(&text);
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(
        lines,
        [
            "scenarios/x.toml:17: simulation.warmup_hours = 10: must be between 0 and 9",
            "scenarios/x.toml:18: simulation.dropping_threshold = -1: must be between 0 and 1000",
            "scenarios/x.toml:23: simulation.leniency.per_resource = NaN: must be between 0 and 1000",
            "scenarios/x.toml:19: simulation.energy_budget_joules = 0: must be greater than 0 and \
             at most 10000000000000000",
        ]
    );
        let e = err(&MINIMAL.replace("cores_per_node = 8", "cores_per_node = 0"));
        assert_eq!(
        e,
        "scenarios/x.toml:9: platform.clusters[0].cores_per_node = 0: must be between 1 and 65536"
    );
        let e = err(&format!("{MINIMAL}downey_sigma = [10.0, 4.0]\n"));
        assert_eq!(
            e,
            "scenarios/x.toml:14: workload.downey_sigma = [10, 4]: the first bound must not exceed \
         the second"
        );
        // Special types per special cluster: none on a platform without one, which is fine.
        let s = Scenario::parse(&MINIMAL.replace("cluster = 0", "cluster = 5"), "x").unwrap();
        assert_eq!(s.task_type_count(), 3);
        let e = err(&MINIMAL.replace("general = 3", "general = 0"));
        assert_eq!(
        e,
        "scenarios/x.toml:13: workload.task_types = 0 types in all: general + special_per_cluster \
         x 0 special clusters must be between 1 and 128"
    );
    }

    #[test]
    fn a_missing_file_is_named() {
        let e = Scenario::load("no/such/scenario.toml").unwrap_err();
        assert!(matches!(e, ScenarioError::Io { .. }));
        assert!(
            e.to_string()
                .starts_with("no/such/scenario.toml: cannot read"),
            "{e}"
        );
    }
}

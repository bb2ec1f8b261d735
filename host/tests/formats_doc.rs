//! docs/formats.md against the code: every key of the scenario and experiment TOML files and
//! every column and key of `kairos experiment`'s outputs is named there, so the page cannot
//! drift. The keys come from the code itself: the parsers reject an unknown key by listing the
//! keys they take (every table is `deny_unknown_fields`), and the reports are rendered from an
//! experiment with its configurations, a leniency series, a failure and a calibration.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kairos_host::experiment::runner::{Failure, Outcome};
use kairos_host::experiment::Experiment;
use kairos_host::report::{self, stats::MeanCi, Calibration};
use kairos_host::scenario::Scenario;

const UNKNOWN: &str = "zz_not_a_key";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The section of docs/formats.md under the heading that starts with `heading`, up to the
/// next `## ` heading.
fn section(heading: &str) -> String {
    let doc = std::fs::read_to_string(root().join("docs/formats.md")).unwrap();
    let start = doc
        .find(heading)
        .unwrap_or_else(|| panic!("docs/formats.md has no heading {heading:?}"));
    let rest = &doc[start + heading.len()..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
}

/// The keys a parser takes in a table, from its error on an unknown key: serde's "unknown
/// field `x`, expected one of `a`, `b`" (or "expected `a`").
fn keys_from_error(msg: &str) -> Vec<String> {
    let after = msg
        .split(&format!("unknown field `{UNKNOWN}`, expected"))
        .nth(1)
        .unwrap_or_else(|| panic!("not an unknown-key error: {msg}"));
    let line = after.lines().next().unwrap();
    let keys: Vec<String> = line
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert!(!keys.is_empty(), "{msg}");
    keys
}

/// Checks that `doc` names `prefix` + every key of the table `header` opens, in backticks.
fn check_table(doc: &str, what: &str, prefix: &str, header: &str, error: impl Fn(&str) -> String) {
    let text = format!("{header}\n{UNKNOWN} = 1\n");
    for k in keys_from_error(&error(&text)) {
        let name = format!("`{prefix}{k}`");
        assert!(
            doc.contains(&name),
            "docs/formats.md ({what}) does not name {name}"
        );
    }
}

#[test]
fn formats_doc_lists_every_scenario_key() {
    let doc = section("## Scenario files");
    let err = |text: &str| Scenario::parse(text, "x.toml").unwrap_err().to_string();
    for (prefix, header) in [
        ("", ""),
        ("platform.", "[platform]"),
        ("platform.clusters[].", "[[platform.clusters]]"),
        ("workload.", "[workload]"),
        ("workload.task_types.", "[workload.task_types]"),
        ("workload.cov.", "[workload.cov]"),
        ("workload.arrivals.", "[workload.arrivals]"),
        ("simulation.", "[simulation]"),
        ("simulation.leniency.", "[simulation.leniency]"),
    ] {
        check_table(&doc, "scenario", prefix, header, err);
    }
}

#[test]
fn formats_doc_lists_every_experiment_key() {
    let doc = section("## Experiment files");
    let err = |text: &str| {
        Experiment::parse(text, Path::new("x.toml"))
            .unwrap_err()
            .to_string()
    };
    for (prefix, header) in [
        ("", ""),
        ("runs[].", "[[runs]]"),
        ("trace.", "[trace]"),
        ("calibrate.", "[calibrate]"),
    ] {
        check_table(&doc, "experiment", prefix, header, err);
    }
}

/// Every object key of a JSON value, at any depth.
fn json_keys(v: &serde_json::Value, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                out.insert(k.clone());
                json_keys(v, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| json_keys(v, out)),
        _ => {}
    }
}

#[test]
fn formats_doc_lists_every_experiment_output_column() {
    let doc = section("## Experiment outputs");
    let exp = Experiment::load(root().join("host/tests/data/experiment_small.toml")).unwrap();
    assert!(!exp.series.is_empty(), "the file has a leniency sweep");
    let out = Outcome {
        rows: vec![],
        failures: vec![Failure {
            config: 0,
            trial: 0,
            error: "e".into(),
        }],
        generate_s: vec![0.0],
        wall_s: 0.0,
        jobs: 1,
    };
    let summaries = report::summarize(&exp, &out);
    let cal = Calibration {
        reference: "r".into(),
        fraction: 0.7,
        reference_energy: MeanCi {
            n: 1,
            mean: 1.0,
            ci95: None,
        },
        energy_budget_joules: 1.0,
    };
    let named = |what: &str, k: &str| {
        assert!(
            doc.contains(&format!("`{k}`")),
            "docs/formats.md does not name the {what} {k}"
        );
    };
    for (file, csv) in [
        ("trials.csv", report::trials_csv(&exp, &out)),
        ("summary.csv", report::summary_csv(&summaries)),
    ] {
        assert!(doc.contains(&format!("`{file}`")), "{file}");
        for c in csv.lines().next().unwrap().split(',') {
            named(&format!("{file} column"), c);
        }
    }
    for (file, json) in [
        (
            "summary.json",
            report::summary_json(&exp, &summaries, Some(&cal), &out.failures),
        ),
        ("timing.json", report::timing_json(&exp, &out)),
    ] {
        assert!(doc.contains(&format!("`{file}`")), "{file}");
        let mut keys = BTreeSet::new();
        json_keys(&serde_json::from_str(&json).unwrap(), &mut keys);
        for k in keys {
            named(&format!("{file} key"), &k);
        }
    }
}

//! Tests of the claims files, their evaluation and their rendering, on outputs written here.

use super::*;
use std::fs;

const CLAIMS: &str = r#"
seed = "000"
title = "Test"

[[claim]]
id = "000-a-beats-b"
source = "Fig. 1"
statement = "A beats B"
paper = "A > B"
paper_trials = 4
experiment = "experiments/x.toml"
results = "seed000/x"
ours = "a - b"
unit = "points"
test = "a > b"
values.a = { file = "trials.csv", where = { label = "A" }, column = "u" }
values.b = { file = "trials.csv", where = { label = "B" }, column = "u" }

[[claim]]
id = "000-a-value"
source = "Fig. 1"
statement = "A near 10"
paper = "10"
experiment = "experiments/x.toml"
results = "seed000/x"
ours = "a"
unit = "%"
test = "abs(ours - 10) <= 1"
explanation = "because"
tested_by = "experiments/y.toml"
values.a = { file = "trials.csv", where = { label = "A" }, column = "u" }

[[claim]]
id = "000-wins"
source = "Fig. 1"
statement = "A wins on most trials"
paper = "most"
experiment = "experiments/x.toml"
results = "seed000/x"
ours = "w"
test = "w >= 3"
values.w = { file = "trials.csv", where = { label = "A" }, column = "u", stat = "wins", than = { label = "B" } }

[[claim]]
id = "000-json"
source = "Table 2"
statement = "Energy under 5"
paper = "< 5"
experiment = "experiments/z.toml"
results = "seed000/z"
ours = "e"
test = "e < 5"
values.e = { file = "summary.json", pointer = "/energy/mean" }
"#;

const TRIALS: &str =
    "label,trial,u\nA,0,12\nA,1,11\nA,2,9\nA,3,12\nB,0,10\nB,1,10\nB,2,10\nB,3,10\n";

struct Fixture {
    _tmp: tempfile::TempDir,
    claims: PathBuf,
    results: PathBuf,
}

fn fixture(claims: &str) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let cdir = tmp.path().join("claims");
    let rdir = tmp.path().join("results");
    fs::create_dir_all(&cdir).unwrap();
    fs::create_dir_all(rdir.join("seed000/x")).unwrap();
    fs::write(cdir.join("seed000.toml"), claims).unwrap();
    fs::write(rdir.join("seed000/x/trials.csv"), TRIALS).unwrap();
    Fixture {
        claims: cdir,
        results: rdir,
        _tmp: tmp,
    }
}

fn run(f: &Fixture) -> Vec<Evaluated> {
    let files = load_dir(&f.claims).unwrap();
    evaluate(&files, std::slice::from_ref(&f.results)).unwrap()
}

#[test]
fn statuses_numbers_and_intervals() {
    let f = fixture(CLAIMS);
    let e = run(&f);
    assert_eq!(e[0].status, Status::Holds);
    let o = e[0].ours.unwrap();
    assert!((o.value - 1.0).abs() < 1e-12);
    assert_eq!(o.ci95, None, "a difference has no interval of its own");
    assert_eq!(e[0].trials, Some(4));
    assert_eq!(e[1].status, Status::Holds);
    let o = e[1].ours.unwrap();
    assert!((o.value - 11.0).abs() < 1e-12);
    assert!(
        o.ci95.unwrap() > 0.0,
        "one value over trials has its interval"
    );
    assert_eq!(e[2].status, Status::Holds, "A > B on 3 of 4 trials");
    assert_eq!(e[2].ours.unwrap().value, 3.0);
    assert_eq!(
        e[3].status,
        Status::NotRun,
        "the folder seed000/z was not run"
    );
    assert!(e[3].ours.is_none());
}

#[test]
fn json_outputs_are_read_by_pointer() {
    let f = fixture(CLAIMS);
    fs::create_dir_all(f.results.join("seed000/z")).unwrap();
    fs::write(
        f.results.join("seed000/z/summary.json"),
        r#"{"energy": {"mean": 6.5}}"#,
    )
    .unwrap();
    let e = run(&f);
    assert_eq!(e[3].status, Status::Fails);
    assert_eq!(e[3].ours.unwrap().value, 6.5);
}

#[test]
fn an_inverted_test_inverts_the_status() {
    let f = fixture(CLAIMS);
    let before = run(&f);
    let inverted = CLAIMS.replace("test = \"a > b\"", "test = \"not (a > b)\"");
    fs::write(f.claims.join("seed000.toml"), inverted).unwrap();
    let after = run(&f);
    assert_eq!(before[0].status, Status::Holds);
    assert_eq!(after[0].status, Status::Fails);
}

#[test]
fn a_missing_column_is_an_error_naming_claim_and_value() {
    let f = fixture(&CLAIMS.replace("column = \"u\" }\nvalues.b", "column = \"v\" }\nvalues.b"));
    let files = load_dir(&f.claims).unwrap();
    let err = format!(
        "{:#}",
        evaluate(&files, std::slice::from_ref(&f.results)).unwrap_err()
    );
    assert!(err.contains("000-a-beats-b"), "{err}");
    assert!(err.contains("value \"a\""), "{err}");
    assert!(err.contains("no column \"v\""), "{err}");
}

#[test]
fn a_row_that_matches_nothing_is_an_error() {
    let f = fixture(&CLAIMS.replacen("label = \"B\" }", "label = \"C\" }", 1));
    let files = load_dir(&f.claims).unwrap();
    let err = format!(
        "{:#}",
        evaluate(&files, std::slice::from_ref(&f.results)).unwrap_err()
    );
    assert!(err.contains("no row where label = \"C\""), "{err}");
}

#[test]
fn bad_claims_files_name_the_line_and_key() {
    let f = fixture(CLAIMS);
    let bad = CLAIMS
        .replace("test = \"a > b\"", "test = \"a > c\"")
        .replace("id = \"000-wins\"", "id = \"001-wins\"");
    fs::write(f.claims.join("seed000.toml"), &bad).unwrap();
    let err = load_dir(&f.claims).unwrap_err().to_string();
    assert!(err.contains("claim[0].test"), "{err}");
    assert!(err.contains("names \"c\""), "{err}");
    assert!(err.contains("claim[2].id"), "{err}");
    assert!(err.contains("seed000.toml:"), "{err}");
    let unknown = CLAIMS.replace("unit = \"points\"", "unit = \"points\"\ncolour = 1");
    fs::write(f.claims.join("seed000.toml"), unknown).unwrap();
    let err = load_dir(&f.claims).unwrap_err().to_string();
    assert!(err.contains("unknown field `colour`"), "{err}");
}

#[test]
fn the_document_block_round_trips_and_goes_stale() {
    let f = fixture(CLAIMS);
    let files = load_dir(&f.claims).unwrap();
    let e = evaluate(&files, std::slice::from_ref(&f.results)).unwrap();
    let doc = render::update_doc("# Results\n\nintro\n", &files, &e);
    assert!(render::stale_blocks(&doc, &files, &e).is_empty());
    // Rewriting an up-to-date document changes nothing.
    assert_eq!(render::update_doc(&doc, &files, &e), doc);
    let st = render::statuses_in(&doc);
    assert_eq!(st["000-a-beats-b"], Status::Holds);
    assert_eq!(st["000-json"], Status::NotRun);
    assert!(check(&e, &doc).is_empty());
    // A status edited by hand is found by check and the block goes stale.
    let edited = doc.replacen("**holds**", "**fails**", 1);
    assert_eq!(render::stale_blocks(&edited, &files, &e), vec!["seed000"]);
    assert!(check(&e, &edited)[0].contains("the document says fails"));
}

#[test]
fn a_failing_claim_without_explanation_is_reported() {
    let f = fixture(&CLAIMS.replace("test = \"a > b\"", "test = \"a < b\""));
    let files = load_dir(&f.claims).unwrap();
    let e = evaluate(&files, std::slice::from_ref(&f.results)).unwrap();
    let doc = render::update_doc("", &files, &e);
    let problems = check(&e, &doc);
    assert_eq!(
        problems,
        vec!["000-a-beats-b: fails without an explanation"]
    );
}

#[test]
fn numbers_print_to_four_significant_digits() {
    assert_eq!(render::num(79.4123), "79.41");
    assert_eq!(render::num(0.371234), "0.3712");
    assert_eq!(render::num(11369.7), "11370");
    assert_eq!(render::num(-0.00001), "-0.00001");
    assert_eq!(render::num(0.0), "0");
    let o = Ours {
        value: 79.4123,
        ci95: Some(1.0234),
    };
    assert_eq!(render::ours(Some(o), "%"), "79.4 ± 1.0 %");
    assert_eq!(render::ours(None, "%"), "-");
}

#[test]
fn a_summary_row_counts_the_trials_its_trials_column_says() {
    let claims = r#"
seed = "000"
title = "Test"

[[claim]]
id = "000-summary"
source = "Fig. 1"
statement = "A's mean over 48 trials near 12"
paper = "12"
paper_trials = 48
experiment = "experiments/x.toml"
results = "seed000/x"
ours = "a"
test = "abs(a - 12) <= 1"
values.a = { file = "summary.csv", where = { label = "A" }, column = "u" }
"#;
    let f = fixture(claims);
    fs::write(
        f.results.join("seed000/x/summary.csv"),
        "label,trials,u\nA,48,12.5\nB,48,10\n",
    )
    .unwrap();
    let e = run(&f);
    assert_eq!(e[0].status, Status::Holds);
    assert_eq!(e[0].trials, Some(48), "not the one row it read");
}

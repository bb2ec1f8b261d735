//! The claims files (`claims/*.toml`) against the committed outputs (`results/`) and the
//! document that prints them (`docs/results.md`): the tables there are what `kairos claims`
//! gives, every failing claim is explained, and no claim's test could be inverted unnoticed.

use kairos_host::claims::{self, render, Status};
use kairos_suite::repo_path;
use std::path::PathBuf;

fn evaluated() -> (Vec<claims::ClaimsFile>, Vec<claims::Evaluated>) {
    let files = claims::load_dir(&repo_path("claims")).unwrap_or_else(|e| panic!("{e:#}"));
    let e = claims::evaluate(&files, &[repo_path("results")]).unwrap_or_else(|e| panic!("{e:#}"));
    (files, e)
}

fn doc() -> String {
    std::fs::read_to_string(repo_path("docs/results.md")).unwrap()
}

#[test]
fn the_documents_tables_are_what_kairos_claims_prints() {
    let (files, e) = evaluated();
    let stale = render::stale_blocks(&doc(), &files, &e);
    assert!(
        stale.is_empty(),
        "docs/results.md's tables of {stale:?} are stale: run `kairos claims --update-docs`"
    );
    let problems = claims::check(&e, &doc());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn there_are_a_hundred_claims_each_with_a_status() {
    let (_, e) = evaluated();
    assert!(e.len() >= 100, "{} claims", e.len());
    let seeds: std::collections::BTreeSet<&str> = e.iter().map(|c| c.seed.as_str()).collect();
    assert_eq!(seeds.len(), 5, "claims of every seed: {seeds:?}");
    let run = e.iter().filter(|c| c.status != Status::NotRun).count();
    assert!(run > 0);
    for c in &e {
        if c.status == Status::Fails {
            assert!(c.explanation.is_some(), "{} fails unexplained", c.id);
        }
    }
}

/// Inverting any claim's test on a copy of the claims files is caught by the check against
/// the document: every test can fail.
#[test]
fn an_inverted_test_is_caught() {
    let (files, e) = evaluated();
    let doc = doc();
    let tmp = tempfile::tempdir().unwrap();
    let mut inverted = 0;
    for f in &files {
        let text = std::fs::read_to_string(&f.path).unwrap();
        for c in &f.claims {
            let status = e.iter().find(|x| x.id == c.id).unwrap().status;
            if status == Status::NotRun {
                continue;
            }
            // The claim's own test line: the first after its id (tests repeat across claims).
            let line = format!("test = {:?}", c.test);
            let at = text
                .find(&format!("id = {:?}", c.id))
                .unwrap_or_else(|| panic!("{}: its id is not written as id = \"..\"", c.id));
            let rel = text[at..]
                .find(&line)
                .unwrap_or_else(|| panic!("{}: its test is not written as {line}", c.id));
            let mut copy = text.clone();
            copy.replace_range(
                at + rel..at + rel + line.len(),
                &format!("test = {:?}", format!("not ({})", c.test)),
            );
            let path: PathBuf = tmp.path().join(f.path.file_name().unwrap());
            std::fs::write(&path, copy).unwrap();
            let one = claims::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let again = claims::evaluate(&[one], &[repo_path("results")]).unwrap();
            let problems = claims::check(&again, &doc);
            assert!(
                problems
                    .iter()
                    .any(|p| p.starts_with(&format!("{}:", c.id))),
                "{}: inverting its test went unnoticed (problems: {problems:?})",
                c.id
            );
            inverted += 1;
        }
    }
    assert!(inverted > 0);
}

//! The docs are references, not diaries (the developers' brief): no doc under `docs/` and no
//! README names a branch of the project's history, an optimisation round or pass, or "this
//! session"; and `docs/performance.md` stays a reference of at most 400 lines.
//!
//! The branch names are written out here rather than read from `git log`, since CI may clone
//! shallowly: they are the names in the merge commits' messages ("Merge scale11a", "merge
//! energy3 (issue 21)", "Merge branch 'pareto4'") and in the docs' own mentions ("branch
//! `scale8b`"), plus the branches open when this test was written. Add a new branch's name
//! when it is merged.

use std::path::{Path, PathBuf};

/// Names that are words of their own in the docs ("the energy ledger", "the host", "a
/// multiset"): a doc names one of these as a branch only beside "branch" or "merge".
const BRANCHES_PLAIN: &[&str] = &[
    "docs", "energy", "engine", "formats", "groups", "host", "int", "live", "main", "multiset",
    "pareto", "plan", "robust", "scale", "seed001", "seed004", "serial", "timeline",
];

/// Names that mean nothing but a branch: any mention of one fails.
const BRANCHES_DISTINCT: &[&str] = &[
    "energy2",
    "energy3",
    "energy4",
    "energy5",
    "energy6",
    "energy7",
    "filter-verdicts",
    "formats2",
    "groups-perf",
    "kth-easy",
    "pareto2",
    "pareto3",
    "pareto4",
    "pareto5",
    "pareto6",
    "pareto7",
    "pareto8a",
    "pareto8b",
    "pareto9a",
    "pareto9b",
    "pareto10a",
    "pareto10b",
    "scale2",
    "scale3",
    "scale4",
    "scale5",
    "scale6",
    "scale7",
    "scale7b",
    "scale8",
    "scale8b",
    "scale8c",
    "scale9a",
    "scale9b",
    "scale10a",
    "scale10b",
    "scale11a",
    "scale11b",
    "serial2",
    "serial3",
    "serial4",
    "serial5",
    "serial6",
    "serial7",
    "perfdoc",
    "claims002",
    "claims003",
    "data-safety",
    "policy-exec",
    "user-trips",
];

/// The most lines `docs/performance.md` may have.
const PERFORMANCE_MAX_LINES: usize = 400;

const ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth", "earlier", "later", "last", "next", "speed",
];

const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A line's words, lower case: runs of letters, digits, hyphens and `%` (so `scale7b`,
/// `round-trip` and `kth-easy` are one word each), each with whether it runs on into the
/// next: only spaces, backticks and quotes between them ("branch `energy`" runs on;
/// "`merge`, `pareto`" and "round; §7" do not).
fn words(line: &str) -> Vec<(String, bool)> {
    // A percent sign belongs to its number: "the pass 62%" is a share, not a pass.
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '%';
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut word = String::new();
    let mut joined = true;
    for c in line.to_lowercase().chars().chain([' ']) {
        if is_word(c) {
            if word.is_empty() {
                if let Some(last) = out.last_mut() {
                    last.1 = joined;
                }
                joined = true;
            }
            word.push(c);
        } else {
            let w = word.trim_matches('-');
            if !w.is_empty() {
                out.push((w.to_string(), false));
            }
            word.clear();
            joined &= matches!(c, ' ' | '`' | '\'' | '"');
        }
    }
    out
}

fn is_number(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_digit()) || NUMBER_WORDS.contains(&w)
}

/// What is wrong with one line of a doc, if anything: each finding names the words.
fn findings(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    if line.to_lowercase().contains("this session") {
        out.push("\"this session\"".to_string());
    }
    let w = words(line);
    for (i, (word, runs_on)) in w.iter().enumerate() {
        // The next word and the one after it, where the text runs on to them.
        let next = w.get(i + 1).filter(|_| *runs_on);
        let after = w.get(i + 2).filter(|_| next.is_some_and(|n| n.1));
        let (next, after) = (next.map(|n| n.0.as_str()), after.map(|a| a.0.as_str()));
        if BRANCHES_DISTINCT.contains(&word.as_str()) {
            out.push(format!("the branch name `{word}`"));
        }
        // "branch `energy`", "the `serial` branch", "merge of pareto", "Merge scale".
        if word == "branch" || word == "branches" {
            if let Some(n) = next.filter(|n| BRANCHES_PLAIN.contains(n)) {
                out.push(format!("\"{word} {n}\""));
            }
        }
        if BRANCHES_PLAIN.contains(&word.as_str()) && matches!(next, Some("branch" | "binary")) {
            out.push(format!("\"{word} {}\"", next.unwrap_or_default()));
        }
        // "main's binary": the branch, since no doc's subject is a function called main.
        if word == "main" && next == Some("s") {
            out.push("\"main's\"".to_string());
        }
        if matches!(word.as_str(), "merge" | "merges" | "merged") {
            let name = match next {
                Some("of" | "branch") => after,
                n => n,
            };
            if let Some(n) = name.filter(|n| BRANCHES_PLAIN.contains(n)) {
                out.push(format!("\"{word} ... {n}\""));
            }
        }
        // "round 4", "pass 2", "passes one to four".
        if matches!(word.as_str(), "round" | "rounds" | "pass" | "passes") {
            if let Some(n) = next.filter(|n| is_number(n)) {
                out.push(format!("\"{word} {n}\""));
            }
        }
        // "the seventh round", "an earlier round", "the eighth speed round".
        if ORDINALS.contains(&word.as_str()) {
            let noun = if next == Some("speed") { after } else { next };
            if matches!(noun, Some("round" | "rounds")) {
                out.push(format!("\"{word} {}\"", noun.unwrap_or_default()));
            }
        }
        if matches!(word.as_str(), "optimisation" | "optimization")
            && matches!(next, Some("round" | "rounds" | "pass" | "passes"))
        {
            out.push(format!("\"{word} {}\"", next.unwrap_or_default()));
        }
    }
    out
}

/// Every doc the rules cover: `docs/*.md` and every README.md of the project (not under
/// `target/` or a hidden folder), as paths relative to the root.
fn docs() -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            out.push(format!(
                "docs/{}",
                path.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    readmes(&root(), "", &mut out);
    out.sort();
    out
}

fn readmes(dir: &Path, rel: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && rel.matches('/').count() < 3 {
                readmes(&path, &format!("{rel}{name}/"), out);
            }
        } else if name == "README.md" {
            out.push(format!("{rel}{name}"));
        }
    }
}

#[test]
fn no_doc_names_a_branch_a_round_or_this_session() {
    let docs = docs();
    assert!(docs.iter().any(|d| d == "README.md"), "{docs:?}");
    assert!(docs.iter().any(|d| d == "docs/performance.md"), "{docs:?}");
    let mut bad = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for (n, line) in text.lines().enumerate() {
            for f in findings(line) {
                bad.push(format!("{doc}:{}: {f}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "docs are references (say what is true now, with a commit hash where history \
         matters), not diaries:\n{}",
        bad.join("\n")
    );
}

#[test]
fn performance_doc_is_at_most_400_lines() {
    let text = std::fs::read_to_string(root().join("docs/performance.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= PERFORMANCE_MAX_LINES,
        "docs/performance.md has {lines} lines, more than {PERFORMANCE_MAX_LINES}"
    );
}

#[test]
fn the_checks_catch_what_they_are_for() {
    for line in [
        "## Seed 002's Pareto fronts, tenth round (issue 22, branch `pareto10b`)",
        "measured on the `serial` branch",
        "After the merges of scale11a and pareto10b",
        "Merge energy: P-states",
        "This session's figures",
        "History, round 8",
        "passes one to four of the same chapter",
        "The eighth speed round added 11,064 B",
        "in an earlier round",
        "an optimisation pass",
        "before kth-easy landed",
        "checked against the `main` binary",
        "main's binary, then this one",
    ] {
        assert!(!findings(line).is_empty(), "not caught: {line}");
    }
    for line in [
        "A task's best is worked out by branch and bound over its options",
        "rounded to the nearest micro-unit; a round-trip form",
        "per round, each unfixed task at each level",
        "the merge job of a submission; the merge of their lists",
        "the energy ledger and the host's serial system; a multiset of voids",
        "`seed001::value_curve`, `host/src/seed002/pareto/problem.rs`",
        "one pass in arrival order",
        "EASY's passes 56% (the head's reservation)",
        "--cache-sim=yes --branch-sim=yes",
    ] {
        assert!(findings(line).is_empty(), "{line}: {:?}", findings(line));
    }
}

//! The papers' claims as data, and their evaluation on the outputs of full-scale runs
//! (`kairos claims`).
//!
//! A claims file (`claims/seed000.toml`, ...) holds one `[[claim]]` per claim of a paper:
//! where the paper makes it, its words, its number, the experiment that tests it, the
//! results folder the outputs are read from, the named values read off those outputs
//! ([`source`]), and two expressions over them ([`expr`]): `ours`, the number we print
//! beside the paper's, and `test`, true when the claim holds. Beside each value `x` the
//! expressions see `x_ci` (the half-width of its 95% interval, 0 without one) and `x_n`
//! (the trials it rests on). A claim that fails carries an
//! explanation and the experiment that tested it.
//!
//! ```toml
//! seed = "000"
//! title = "Seed 000 §V: parallel tasks, P-states and energy filters"
//!
//! [[claim]]
//! id = "000-fig9-ph-beats-pr"
//! source = "§V, Fig. 9"
//! statement = "Place-holders earn more than permanent reservations"
//! paper = "PH > PR"
//! paper_trials = 48
//! experiment = "experiments/fig9-5k.toml"
//! results = "seed000/fig9-5k"
//! ours = "ph - pr"
//! unit = "points"
//! test = "ph > pr"
//! values.ph = { file = "trials.csv", where = { label = "Max UPR PH" }, column = "utility_percent" }
//! values.pr = { file = "trials.csv", where = { label = "Max UPR PR" }, column = "utility_percent" }
//! ```
//!
//! Evaluation ([`evaluate`]) needs only the committed outputs under `results/` (or the
//! folders given): a claim whose outputs are not there is `not-run`, never an error; a claim
//! whose outputs are there but lack a row or a column it names is an error naming the
//! claims file, the claim and the value, since the claim, not the run, is then wrong.
//! [`render`] prints the table, the JSON and the generated blocks of `docs/results.md`.

pub mod expr;
pub mod render;
pub mod source;

use crate::toml_file::{self, Checker, TomlFileError};
use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One claims file: the claims of one paper, or of a part of one.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsFile {
    /// The seed's number, `"000"` to `"004"`.
    pub seed: String,
    /// A title for the file's table in `docs/results.md`.
    pub title: String,
    /// The claims, in the paper's order.
    #[serde(rename = "claim")]
    pub claims: Vec<Claim>,
    /// The file's stem (`seed000`), which names its block in `docs/results.md`.
    #[serde(skip)]
    pub name: String,
    /// The file, for messages.
    #[serde(skip)]
    pub path: PathBuf,
}

/// One claim of a paper and how it is tested.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Stable identifier, `<seed>-<where>-<what>` (`002-ch3-weighted-util`).
    pub id: String,
    /// Where the paper makes the claim (figure, table, section).
    pub source: String,
    /// The claim, in the paper's words, short.
    pub statement: String,
    /// The paper's number or ordering, as the paper gives it.
    pub paper: String,
    /// The paper's trials (or generations), where it says.
    pub paper_trials: Option<u64>,
    /// The experiment file (or command) whose outputs the claim reads.
    pub experiment: String,
    /// The folder, under a results directory, holding those outputs.
    pub results: String,
    /// The values read off the outputs, by the names the expressions use.
    pub values: BTreeMap<String, source::ValueSpec>,
    /// The number printed as ours: an expression over the values.
    pub ours: String,
    /// The unit of `ours` (`%`, `GJ`, `points`, `x`), printed after it.
    #[serde(default)]
    pub unit: String,
    /// The test: an expression over the values (and `ours`) that is true when the claim
    /// holds.
    pub test: String,
    /// Why the claim fails, when it does.
    pub explanation: Option<String>,
    /// The experiment file that tested the explanation.
    pub tested_by: Option<String>,
}

/// Whether a claim holds on the outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The test is true.
    Holds,
    /// The test is false.
    Fails,
    /// The outputs the claim reads are not in any results folder given.
    NotRun,
}

impl Status {
    /// The word printed in tables: `holds`, `fails`, `not-run`.
    pub fn word(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Fails => "fails",
            Status::NotRun => "not-run",
        }
    }

    /// The status a table word names.
    pub fn from_word(w: &str) -> Option<Status> {
        match w {
            "holds" => Some(Status::Holds),
            "fails" => Some(Status::Fails),
            "not-run" => Some(Status::NotRun),
            _ => None,
        }
    }
}

/// Our number for a claim: the `ours` expression on the values' means, with the 95%
/// interval when `ours` is one value read over several trials.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ours {
    /// The value.
    pub value: f64,
    /// Half-width of the 95% confidence interval (Student t), when there is one.
    pub ci95: Option<f64>,
}

/// A claim and its evaluation.
#[derive(Clone, Debug, Serialize)]
pub struct Evaluated {
    /// The claim's id.
    pub id: String,
    /// The seed.
    pub seed: String,
    /// The claims file's stem.
    pub file: String,
    /// Where the paper makes it.
    pub source: String,
    /// The paper's words.
    pub statement: String,
    /// The paper's number or ordering.
    pub paper: String,
    /// Our number, unless not run.
    pub ours: Option<Ours>,
    /// The unit of `ours`.
    pub unit: String,
    /// The trials (or generations) our number rests on: the most over the values.
    pub trials: Option<u64>,
    /// The paper's trials, where it says.
    pub paper_trials: Option<u64>,
    /// The experiment the outputs come from.
    pub experiment: String,
    /// The results folder read (as found), or the one looked for when not run.
    pub results: String,
    /// The status.
    pub status: Status,
    /// Why it fails, when it does.
    pub explanation: Option<String>,
    /// The experiment that tested the explanation.
    pub tested_by: Option<String>,
    /// The test, as written.
    pub test: String,
    /// For `not-run`: the output that was missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

/// Reads and checks one claims file.
pub fn load(path: &Path) -> Result<ClaimsFile, TomlFileError> {
    let (text, file) = toml_file::read(path)?;
    let mut f: ClaimsFile = toml_file::parse(&text, &file)?;
    f.path = path.to_path_buf();
    f.name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut c = Checker::new(&file, &text);
    if !matches!(f.seed.as_str(), "000" | "001" | "002" | "003" | "004") {
        c.fail("seed", &f.seed, "must be one of 000, 001, 002, 003, 004");
    }
    let mut seen = BTreeMap::new();
    for (i, claim) in f.claims.iter().enumerate() {
        let key = |k: &str| format!("claim[{i}].{k}");
        if !claim.id.starts_with(&format!("{}-", f.seed)) {
            c.fail(
                &key("id"),
                &claim.id,
                format_args!("must start with the seed, \"{}-\"", f.seed),
            );
        }
        if let Some(j) = seen.insert(claim.id.clone(), i) {
            c.fail(
                &key("id"),
                &claim.id,
                format_args!("already the id of claim[{j}]"),
            );
        }
        for (k, v) in [
            ("source", &claim.source),
            ("statement", &claim.statement),
            ("paper", &claim.paper),
            ("experiment", &claim.experiment),
            ("results", &claim.results),
        ] {
            if v.trim().is_empty() {
                c.fail(&key(k), "\"\"", "must not be empty");
            }
        }
        if claim.values.is_empty() {
            c.fail(&key("values"), "{}", "a claim reads at least one value");
        }
        for (name, spec) in &claim.values {
            if let Err(e) = spec.check() {
                c.fail(&key(&format!("values.{name}")), "..", e);
            }
            if matches!(
                name.as_str(),
                "ours" | "and" | "or" | "not" | "min" | "max" | "abs"
            ) {
                c.fail(&key(&format!("values.{name}")), name, "is a reserved name");
            }
        }
        for (k, text, ours_allowed) in [("ours", &claim.ours, false), ("test", &claim.test, true)] {
            match expr::parse(text) {
                Err(e) => c.fail(&key(k), format_args!("{text:?}"), e),
                Ok(e) => {
                    for v in e.vars() {
                        let base = v
                            .strip_suffix("_ci")
                            .or_else(|| v.strip_suffix("_n"))
                            .filter(|b| claim.values.contains_key(*b))
                            .unwrap_or(v);
                        let known =
                            claim.values.contains_key(base) || (ours_allowed && v == "ours");
                        if !known {
                            c.fail(
                                &key(k),
                                format_args!("{text:?}"),
                                format_args!("names {v:?}, which is not one of its values"),
                            );
                        }
                    }
                }
            }
        }
        if claim.tested_by.is_some() && claim.explanation.is_none() {
            c.fail(&key("tested_by"), "..", "is given without an explanation");
        }
    }
    c.finish()?;
    Ok(f)
}

/// Every `*.toml` file of `dir`, loaded and checked, in name order.
pub fn load_dir(dir: &Path) -> anyhow::Result<Vec<ClaimsFile>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read the claims folder", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        bail!("{}: no claims file (*.toml) in the folder", dir.display());
    }
    let files = paths
        .iter()
        .map(|p| load(p).map_err(anyhow::Error::from))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut ids: BTreeMap<&str, &Path> = BTreeMap::new();
    for f in &files {
        for c in &f.claims {
            if let Some(other) = ids.insert(&c.id, &f.path) {
                bail!(
                    "{}: claim id {:?} is also used in {}",
                    f.path.display(),
                    c.id,
                    other.display()
                );
            }
        }
    }
    Ok(files)
}

/// Evaluates every claim of `files` on the first of `dirs` that holds each claim's results
/// folder.
pub fn evaluate(files: &[ClaimsFile], dirs: &[PathBuf]) -> anyhow::Result<Vec<Evaluated>> {
    let mut cache = source::Cache::default();
    let mut out = Vec::new();
    for f in files {
        for claim in &f.claims {
            let e = evaluate_one(f, claim, dirs, &mut cache)
                .with_context(|| format!("{}: claim {:?}", f.path.display(), claim.id))?;
            out.push(e);
        }
    }
    Ok(out)
}

fn evaluate_one(
    f: &ClaimsFile,
    claim: &Claim,
    dirs: &[PathBuf],
    cache: &mut source::Cache,
) -> anyhow::Result<Evaluated> {
    let found = dirs.iter().find(|d| d.join(&claim.results).is_dir());
    let mut e = Evaluated {
        id: claim.id.clone(),
        seed: f.seed.clone(),
        file: f.name.clone(),
        source: claim.source.clone(),
        statement: claim.statement.clone(),
        paper: claim.paper.clone(),
        ours: None,
        unit: claim.unit.clone(),
        trials: None,
        paper_trials: claim.paper_trials,
        experiment: claim.experiment.clone(),
        results: claim.results.clone(),
        status: Status::NotRun,
        explanation: claim.explanation.clone(),
        tested_by: claim.tested_by.clone(),
        test: claim.test.clone(),
        missing: None,
    };
    let Some(root) = found else {
        e.missing = Some(claim.results.clone());
        return Ok(e);
    };
    let dir = root.join(&claim.results);
    let mut env = BTreeMap::new();
    let mut samples = BTreeMap::new();
    for (name, spec) in &claim.values {
        match spec
            .read(root, &dir, cache)
            .with_context(|| format!("value {name:?}"))?
        {
            source::Read::Missing(file) => {
                e.missing = Some(file);
                return Ok(e);
            }
            source::Read::Sample(s) => {
                env.insert(name.clone(), s.mean);
                env.insert(format!("{name}_ci"), s.ci95.unwrap_or(0.0));
                env.insert(format!("{name}_n"), s.n as f64);
                // A sum's rows are not trials (e.g. the (cores, level) rows of a choices file).
                if spec.stat != source::Stat::Sum {
                    e.trials = e.trials.max(Some(s.n));
                }
                samples.insert(name.as_str(), s);
            }
        }
    }
    let ours = expr::parse(&claim.ours).map_err(anyhow::Error::msg)?;
    let value = match ours.eval(&env).map_err(anyhow::Error::msg)? {
        expr::Value::Num(x) => x,
        expr::Value::Bool(_) => bail!("ours = {:?} gives a truth value, not a number", claim.ours),
    };
    // The interval is the sample's own when `ours` is one value read over trials; a
    // derived number gets none (a ratio of means has no interval from these alone).
    let ci95 = match ours {
        expr::Expr::Var(ref v) => samples.get(v.as_str()).and_then(|s| s.ci95),
        _ => None,
    };
    if !value.is_finite() {
        bail!("ours = {:?} is {value} on {}", claim.ours, dir.display());
    }
    e.ours = Some(Ours { value, ci95 });
    env.insert("ours".to_string(), value);
    let test = expr::parse(&claim.test).map_err(anyhow::Error::msg)?;
    e.status = match test.eval(&env).map_err(anyhow::Error::msg)? {
        expr::Value::Bool(true) => Status::Holds,
        expr::Value::Bool(false) => Status::Fails,
        expr::Value::Num(_) => bail!("test = {:?} gives a number, not a truth value", claim.test),
    };
    e.results = dir.display().to_string();
    Ok(e)
}

/// The claims whose status the command found different from the one `doc` prints, and
/// the failing claims without an explanation: the problems `kairos claims --check` reports.
pub fn check(evaluated: &[Evaluated], doc: &str) -> Vec<String> {
    let printed = render::statuses_in(doc);
    let mut problems = Vec::new();
    for e in evaluated {
        match printed.get(e.id.as_str()) {
            None => problems.push(format!("{}: not in the document's tables", e.id)),
            Some(s) if *s != e.status => problems.push(format!(
                "{}: the document says {}, the outputs say {}",
                e.id,
                s.word(),
                e.status.word()
            )),
            Some(_) => {}
        }
        if e.status == Status::Fails && e.explanation.is_none() {
            problems.push(format!("{}: fails without an explanation", e.id));
        }
    }
    for id in printed.keys() {
        if !evaluated.iter().any(|e| e.id == *id) {
            problems.push(format!("{id}: in the document but in no claims file"));
        }
    }
    problems
}

#[cfg(test)]
mod tests;

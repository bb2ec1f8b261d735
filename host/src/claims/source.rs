//! A claim's values, read off a run's outputs: a column of the CSV rows that match, or a
//! number at a JSON pointer (in a JSON file, or in a TOML file such as a folder's
//! `run.toml`, read as the JSON value of its table).
//!
//! ```toml
//! values.ph = { file = "trials.csv", where = { label = "Max UPR PH" }, column = "utility_percent" }
//! values.e  = { file = "summary.json", pointer = "/configs/0/energy_joules/mean" }
//! values.w  = { file = "trials.csv", where = { label = "A" }, column = "utility_percent", stat = "wins", than = { label = "B" } }
//! values.x  = { dir = "seed000/leniency-5k", file = "summary.csv", where = { label = "..." }, column = "..." }
//! ```
//!
//! Rows match when every `where` column equals the given text, or the given number when
//! both parse as numbers (`leniency = 2` matches `2.000000`). The matched column's values
//! are one per trial; `stat` reduces them (`mean`, the default, with its 95% interval;
//! `min`, `max`, `sum`, `count`, `sd`), and `wins` counts the trials, row by row in the
//! file's order, where this value exceeds the one the `than` rows give. A row that matches
//! but holds no number there is an error: the claim names something the run did not write.

use crate::report::stats;
use anyhow::{anyhow, bail, Context};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Where a value is read.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueSpec {
    /// Another results folder than the claim's (relative to the same results directory).
    pub dir: Option<String>,
    /// The output file, relative to the folder.
    pub file: String,
    /// The rows of a CSV file: column name -> text or number.
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, toml::Value>,
    /// The CSV column.
    pub column: Option<String>,
    /// A JSON pointer (RFC 6901) into a JSON file.
    pub pointer: Option<String>,
    /// How the matched rows reduce to one number.
    #[serde(default)]
    pub stat: Stat,
    /// For `stat = "wins"`: the rows compared against.
    pub than: Option<BTreeMap<String, toml::Value>>,
}

/// How the matched rows of a CSV reduce to one number.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Stat {
    /// The mean, with its 95% interval over the rows.
    #[default]
    Mean,
    /// The least.
    Min,
    /// The largest.
    Max,
    /// The sum.
    Sum,
    /// How many rows matched.
    Count,
    /// The sample standard deviation.
    Sd,
    /// How many rows exceed the `than` rows, pairwise in file order.
    Wins,
}

/// A value read: its mean (or reduced number), the rows behind it and its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The number the expressions see.
    pub mean: f64,
    /// The rows (trials) it rests on; a summary row's own `n` (or `trials`) column when
    /// there is one.
    pub n: u64,
    /// Half-width of the 95% interval, for a mean over 2 or more rows.
    pub ci95: Option<f64>,
}

/// The outcome of reading a value.
pub enum Read {
    /// The value.
    Sample(Sample),
    /// The file is not there (the run was not made): the claim is not run.
    Missing(String),
}

impl ValueSpec {
    /// Checks the spec's shape (a CSV value has a column, a JSON one a pointer).
    pub fn check(&self) -> Result<(), String> {
        let json = self.file.ends_with(".json") || self.file.ends_with(".toml");
        match (json, &self.column, &self.pointer) {
            (true, None, Some(p)) if p.is_empty() || p.starts_with('/') => {}
            (true, None, Some(_)) => return Err("pointer must start with '/'".into()),
            (true, _, _) => {
                return Err("a JSON or TOML file is read with `pointer` (and no column)".into())
            }
            (false, Some(_), None) => {}
            (false, _, _) => return Err("a CSV file is read with `column` (and no pointer)".into()),
        }
        if json && (!self.filter.is_empty() || self.stat != Stat::Mean || self.than.is_some()) {
            return Err("`where`, `stat` and `than` apply to CSV files only".into());
        }
        if (self.stat == Stat::Wins) != self.than.is_some() {
            return Err("`than` goes with stat = \"wins\", and only with it".into());
        }
        Ok(())
    }

    /// Reads the value: from the claim's folder `dir` under the results directory `root`,
    /// or from the folder its own `dir` names under the same root.
    pub fn read(&self, root: &Path, dir: &Path, cache: &mut Cache) -> anyhow::Result<Read> {
        let folder = match &self.dir {
            Some(d) => root.join(d),
            None => dir.to_path_buf(),
        };
        let path = folder.join(&self.file);
        if !path.is_file() {
            return Ok(Read::Missing(path.display().to_string()));
        }
        if let Some(pointer) = &self.pointer {
            let doc = cache.json(&path)?;
            let v = doc
                .pointer(pointer)
                .ok_or_else(|| anyhow!("{}: no value at {pointer}", path.display()))?;
            let x = v
                .as_f64()
                .ok_or_else(|| anyhow!("{}: {pointer} is {v}, not a number", path.display()))?;
            return Ok(Read::Sample(Sample {
                mean: x,
                n: 1,
                ci95: None,
            }));
        }
        let column = self
            .column
            .as_deref()
            .expect("checked: a CSV value has a column");
        let table = cache.csv(&path)?;
        let xs = table.select(&self.filter, column, &path)?;
        if xs.is_empty() {
            bail!(
                "{}: no row where {}",
                path.display(),
                describe(&self.filter)
            );
        }
        // A summary row says how many trials it averages: `n`, or seed 002's `trials`.
        let n_col = if xs.len() == 1 {
            ["n", "trials"].iter().find_map(|c| {
                table
                    .select(&self.filter, c, &path)
                    .ok()
                    .and_then(|v| v.first().copied())
            })
        } else {
            None
        };
        let n = n_col.map(|x| x as u64).unwrap_or(xs.len() as u64);
        let sample = match self.stat {
            Stat::Mean => {
                let m = stats::mean_ci(&xs);
                Sample {
                    mean: m.mean,
                    n,
                    ci95: m.ci95,
                }
            }
            Stat::Min => one(xs.iter().copied().fold(f64::INFINITY, f64::min), n),
            Stat::Max => one(xs.iter().copied().fold(f64::NEG_INFINITY, f64::max), n),
            Stat::Sum => one(xs.iter().sum(), n),
            Stat::Count => one(xs.len() as f64, n),
            Stat::Sd => {
                let m = stats::mean_ci(&xs).mean;
                let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
                one(libm::sqrt(ss / (xs.len().max(2) - 1) as f64), n)
            }
            Stat::Wins => {
                let than = self.than.as_ref().expect("checked: wins has than");
                let ys = table.select(than, column, &path)?;
                if ys.len() != xs.len() {
                    bail!(
                        "{}: {} rows where {} but {} where {}: wins compares row by row",
                        path.display(),
                        xs.len(),
                        describe(&self.filter),
                        ys.len(),
                        describe(than)
                    );
                }
                one(xs.iter().zip(&ys).filter(|(x, y)| x > y).count() as f64, n)
            }
        };
        Ok(Read::Sample(sample))
    }
}

fn one(x: f64, n: u64) -> Sample {
    Sample {
        mean: x,
        n,
        ci95: None,
    }
}

fn describe(filter: &BTreeMap<String, toml::Value>) -> String {
    if filter.is_empty() {
        return "(every row)".into();
    }
    filter
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// A CSV file read once: its header and rows.
pub struct Table {
    header: Vec<String>,
    rows: Vec<csv::StringRecord>,
}

impl Table {
    fn col(&self, name: &str, path: &Path) -> anyhow::Result<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            anyhow!(
                "{}: no column {name:?} (the columns: {})",
                path.display(),
                self.header.join(", ")
            )
        })
    }

    /// The numbers in `column` of the rows matching `filter`, in file order.
    pub fn select(
        &self,
        filter: &BTreeMap<String, toml::Value>,
        column: &str,
        path: &Path,
    ) -> anyhow::Result<Vec<f64>> {
        let want = self.col(column, path)?;
        let conds = filter
            .iter()
            .map(|(k, v)| Ok((self.col(k, path)?, v)))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut out = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            if conds
                .iter()
                .all(|(c, v)| matches(row.get(*c).unwrap_or(""), v))
            {
                let cell = row.get(want).unwrap_or("");
                let x: f64 = cell.trim().parse().map_err(|_| {
                    anyhow!(
                        "{}:{}: column {column:?} holds {cell:?}, not a number",
                        path.display(),
                        i + 2
                    )
                })?;
                out.push(x);
            }
        }
        Ok(out)
    }
}

fn matches(cell: &str, want: &toml::Value) -> bool {
    let num = match want {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        toml::Value::String(s) => return cell == s,
        toml::Value::Boolean(b) => return cell == if *b { "true" } else { "false" },
        _ => None,
    };
    match (num, cell.trim().parse::<f64>()) {
        (Some(a), Ok(b)) => (a - b).abs() <= 1e-9 * a.abs().max(1.0),
        _ => false,
    }
}

/// The outputs read so far, each parsed once however many claims read it.
#[derive(Default)]
pub struct Cache {
    csv: HashMap<PathBuf, Table>,
    json: HashMap<PathBuf, serde_json::Value>,
}

/// The largest output file a claim reads (a results folder keeps small outputs only).
const MAX_OUTPUT_BYTES: u64 = 64 << 20;

fn read_bounded(path: &Path) -> anyhow::Result<Vec<u8>> {
    crate::bounded::read(path, MAX_OUTPUT_BYTES, "claim output")
        .with_context(|| format!("{}: cannot read", path.display()))
}

impl Cache {
    fn csv(&mut self, path: &Path) -> anyhow::Result<&Table> {
        if !self.csv.contains_key(path) {
            let bytes = read_bounded(path)?;
            let mut r = csv::Reader::from_reader(bytes.as_slice());
            let header = r
                .headers()
                .with_context(|| format!("{}: not CSV", path.display()))?
                .iter()
                .map(str::to_string)
                .collect();
            let rows = r
                .records()
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("{}: not CSV", path.display()))?;
            self.csv.insert(path.to_path_buf(), Table { header, rows });
        }
        Ok(&self.csv[path])
    }

    fn json(&mut self, path: &Path) -> anyhow::Result<&serde_json::Value> {
        if !self.json.contains_key(path) {
            let bytes = read_bounded(path)?;
            // A TOML file (a folder's run.toml) is read as the JSON value of its table.
            let v = if path.extension().is_some_and(|e| e == "toml") {
                let text = String::from_utf8(bytes)
                    .with_context(|| format!("{}: not UTF-8", path.display()))?;
                let t: toml::Table = text
                    .parse()
                    .with_context(|| format!("{}: not TOML", path.display()))?;
                serde_json::to_value(t)?
            } else {
                serde_json::from_slice(&bytes)
                    .with_context(|| format!("{}: not JSON", path.display()))?
            };
            self.json.insert(path.to_path_buf(), v);
        }
        Ok(&self.json[path])
    }
}

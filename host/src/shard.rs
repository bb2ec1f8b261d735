//! Shards: one machine's part of a sweep too large for one machine, and the file it leaves.
//!
//! A sweep (an experiment's runs, [`experiment`]; a knapsack grid's points, [`knapsack`]) is a
//! list of numbered items. `--shard K/N` takes the K-th of N contiguous slices of that list
//! ([`Slice`]): disjoint, covering every item once, the same on every machine (it depends on
//! nothing but K, N and the item count). Each shard writes a *shard file* with its items'
//! results, and `kairos merge` reads the shard files back and writes the reports a one-machine
//! run writes, byte for byte.
//!
//! This file owns what every kind of shard shares: the slice, the content hash that says which
//! sweep a shard belongs to, and the text format of a shard file. The format is line-based,
//! tab-separated, written and read here only:
//!
//! ```text
//! kairos-shard 1              the magic line and format version
//! kind<TAB>experiment         header lines: a key, a tab, a value (kind first)
//! hash<TAB>fnv1a64:...        ... the sweep's identity, the slice, its items ...
//! columns<TAB>run<TAB>...     the fields of each row, in order
//! row<TAB>0<TAB>...           one line per item result (or `failure` lines)
//! end<TAB>12                  the trailer: the count of row and failure lines
//! ```
//!
//! Choices:
//! - Floats are written with Rust's shortest round-trip form (`{:?}`) and read with
//!   `str::parse`, which is exact: a merged report is computed from the very bits the shard
//!   computed, so it matches the one-machine report to the byte.
//! - The trailer makes a shard killed while writing an error, not a silently short shard; the
//!   file is also written to a temporary name and renamed into place.
//! - The identity is an FNV-1a 64 hash ([`kairos_core::digest::Digest`], the run digest's
//!   hash) over the sweep's input files and settings: enough to tell two sweeps apart, and
//!   no new dependency. It is not a defence against a forged file.
//! - Slices are contiguous (not round-robin): an experiment's runs are numbered trial-major,
//!   so a contiguous slice generates each trial it touches once.

pub mod experiment;
pub mod knapsack;

use anyhow::{bail, Context};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The first line of every shard file.
pub const MAGIC: &str = "kairos-shard 1";
/// The extension of shard files (`kairos merge` reads the `*.shard` files of a directory).
pub const EXTENSION: &str = "shard";

/// The K-th of N slices (K counts from 1, as Slurm's `--array=1-N` does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Which slice, 1..=n.
    pub k: u32,
    /// How many slices.
    pub n: u32,
}

impl Slice {
    /// The whole sweep, as one slice.
    pub const WHOLE: Slice = Slice { k: 1, n: 1 };

    /// The items of this slice among `total`: `[(k-1) x total / n, k x total / n)`. The
    /// slices of one `n` are disjoint and cover `0..total`; their sizes differ by at most one.
    pub fn range(&self, total: u64) -> Range<u64> {
        let at = |k: u64| (k as u128 * total as u128 / self.n as u128) as u64;
        at(self.k as u64 - 1)..at(self.k as u64)
    }

    /// The slice of `n` that holds item `index` of `total`.
    pub fn holding(index: u64, total: u64, n: u32) -> Slice {
        // Slice k starts at floor((k-1) total / n), so the holder is near index x n / total;
        // step to it from there (at most a step or two) rather than scanning all n.
        let n = n.max(1);
        let guess = if total == 0 {
            1
        } else {
            ((index as u128 * n as u128 / total as u128) as u32 + 1).min(n)
        };
        let mut s = Slice { k: guess, n };
        while s.k > 1 && index < s.range(total).start {
            s.k -= 1;
        }
        while s.k < n && index >= s.range(total).end {
            s.k += 1;
        }
        s
    }

    /// The file name of this slice's shard: `shard-K-of-N.shard`.
    pub fn file_name(&self) -> String {
        format!("shard-{}-of-{}.{EXTENSION}", self.k, self.n)
    }
}

impl std::fmt::Display for Slice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl std::str::FromStr for Slice {
    type Err = String;

    /// `K/N` with 1 <= K <= N.
    fn from_str(s: &str) -> Result<Slice, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?}: expected K/N, e.g. 2/8"))?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| format!("{s:?}: K is not a whole number"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("{s:?}: N is not a whole number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!(
                "{s:?}: K must be between 1 and N, and N at least 1"
            ));
        }
        Ok(Slice { k, n })
    }
}

/// The identity of a sweep: an FNV-1a 64 hash over labelled parts (file contents, settings).
#[derive(Clone, Debug, Default)]
pub struct Identity(kairos_core::digest::Digest);

impl Identity {
    /// A fresh identity.
    pub fn new() -> Identity {
        Identity::default()
    }

    /// Adds a labelled part (its label and length go in too, so parts cannot run together).
    pub fn part(&mut self, label: &str, bytes: &[u8]) {
        self.0.u64(label.len() as u64);
        self.0.bytes(label.as_bytes());
        self.0.u64(bytes.len() as u64);
        self.0.bytes(bytes);
    }

    /// Adds the contents of a file, read whole.
    pub fn file(&mut self, label: &str, path: &Path) -> anyhow::Result<()> {
        let bytes = crate::bounded::read(path, crate::swf::text_limit(), "input")
            .with_context(|| format!("{}: cannot read", path.display()))?;
        self.part(label, &bytes);
        Ok(())
    }

    /// `fnv1a64:` and 16 hex digits.
    pub fn text(&self) -> String {
        format!("fnv1a64:{:016x}", self.0.value())
    }
}

/// Escapes a free-text field (an error message) for one tab-separated field.
pub(crate) fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\t' => o.push_str("\\t"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            c => o.push(c),
        }
    }
    o
}

/// The inverse of [`escape`].
pub(crate) fn unescape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            o.push(c);
            continue;
        }
        match it.next() {
            Some('t') => o.push('\t'),
            Some('n') => o.push('\n'),
            Some('r') => o.push('\r'),
            Some(x) => o.push(x),
            None => o.push('\\'),
        }
    }
    o
}

/// A shard file being written: the header, then the rows, then the trailer.
pub(crate) struct Writer {
    text: String,
    rows: usize,
}

impl Writer {
    /// A file of kind `kind`.
    pub(crate) fn new(kind: &str) -> Writer {
        let mut w = Writer {
            text: format!("{MAGIC}\n"),
            rows: 0,
        };
        w.header("kind", kind);
        w
    }

    /// A header line.
    pub(crate) fn header(&mut self, key: &str, value: impl std::fmt::Display) {
        let _ = writeln!(self.text, "{key}\t{value}");
    }

    /// A row or failure line: `tag` and its fields.
    pub(crate) fn row(&mut self, tag: &str, fields: &[String]) {
        self.text.push_str(tag);
        for f in fields {
            self.text.push('\t');
            self.text.push_str(f);
        }
        self.text.push('\n');
        self.rows += 1;
    }

    /// Writes the file at `path` (through a temporary name, then a rename), creating its
    /// directory.
    pub(crate) fn finish(mut self, path: &Path) -> anyhow::Result<()> {
        let _ = writeln!(self.text, "end\t{}", self.rows);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
        }
        crate::output::write_atomic(path, &self.text)
    }
}

/// A line of a shard file, with its number for error messages.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// 1-based.
    pub(crate) number: usize,
    /// The tag (a header key, `row`, `failure`).
    pub(crate) tag: String,
    /// The fields after the tag.
    pub(crate) fields: Vec<String>,
}

/// A shard file as read: its header and its row lines, trailer checked.
#[derive(Clone, Debug)]
pub(crate) struct Text {
    /// The file.
    pub(crate) path: PathBuf,
    /// Header lines, in order (each with one value).
    pub(crate) header: Vec<Line>,
    /// `row` and `failure` lines, in order.
    pub(crate) rows: Vec<Line>,
}

impl Text {
    /// Reads and splits `path`.
    pub(crate) fn read(path: &Path) -> anyhow::Result<Text> {
        let text = crate::bounded::read_to_string(path, crate::bounded::SHARD_BYTES, "shard file")
            .with_context(|| format!("{}: cannot read the shard file", path.display()))?;
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, MAGIC)) => {}
            Some((_, other)) => bail!(
                "{}:1: not a kairos shard file (the first line is {other:?}, expected {MAGIC:?})",
                path.display()
            ),
            None => bail!("{}: empty, not a kairos shard file", path.display()),
        }
        let mut t = Text {
            path: path.to_path_buf(),
            header: Vec::new(),
            rows: Vec::new(),
        };
        let mut end = None;
        for (i, l) in lines {
            let number = i + 1;
            if end.is_some() {
                bail!("{}:{number}: a line after the end line", path.display());
            }
            let mut parts = l.split('\t').map(str::to_string);
            let tag = parts.next().unwrap_or_default();
            let fields: Vec<String> = parts.collect();
            let line = Line {
                number,
                tag,
                fields,
            };
            match line.tag.as_str() {
                "row" | "failure" => t.rows.push(line),
                "end" => end = Some(line),
                _ => {
                    if line.fields.len() != 1 && line.tag != "columns" {
                        bail!(
                            "{}:{number}: {}: expected one value after a tab",
                            path.display(),
                            line.tag
                        );
                    }
                    if !t.rows.is_empty() {
                        bail!(
                            "{}:{number}: {}: a header line after the rows",
                            path.display(),
                            line.tag
                        );
                    }
                    t.header.push(line);
                }
            }
        }
        let Some(end) = end else {
            bail!(
                "{}: no end line: the shard was cut short (its job killed while writing?); \
                 run the shard again",
                path.display()
            );
        };
        let n: usize = t.parse(&end, "end", end.fields.first().map_or("", |s| s))?;
        if n != t.rows.len() {
            bail!(
                "{}:{}: end: {n} rows announced, {} found",
                path.display(),
                end.number,
                t.rows.len()
            );
        }
        Ok(t)
    }

    /// The header line `key`.
    pub(crate) fn line(&self, key: &str) -> anyhow::Result<&Line> {
        self.header
            .iter()
            .find(|l| l.tag == key)
            .with_context(|| format!("{}: no {key} line", self.path.display()))
    }

    /// The value of header `key`.
    pub(crate) fn get(&self, key: &str) -> anyhow::Result<&str> {
        let l = self.line(key)?;
        Ok(&l.fields[0])
    }

    /// The value of header `key`, parsed.
    pub(crate) fn value<T: std::str::FromStr>(&self, key: &str) -> anyhow::Result<T> {
        let l = self.line(key)?;
        self.parse(l, key, &l.fields[0])
    }

    /// Parses `text`, field `field` of line `line`, with an error naming the file, the line
    /// and the field.
    pub(crate) fn parse<T: std::str::FromStr>(
        &self,
        line: &Line,
        field: &str,
        text: &str,
    ) -> anyhow::Result<T> {
        text.parse().map_err(|_| {
            anyhow::anyhow!(
                "{}:{}: {field} = {text:?}: not a valid {}",
                self.path.display(),
                line.number,
                std::any::type_name::<T>()
                    .rsplit("::")
                    .next()
                    .unwrap_or("value")
            )
        })
    }

    /// As [`Text::parse`], for a result that is a finite number: NaN or an infinity cannot
    /// be a run's result (a corrupted or hand-edited row), and would reach the reports and
    /// their plots unremarked.
    pub(crate) fn parse_finite(&self, line: &Line, field: &str, text: &str) -> anyhow::Result<f64> {
        let x: f64 = self.parse(line, field, text)?;
        if !x.is_finite() {
            bail!(
                "{}:{}: {field} = {text:?}: not a finite number (no result is NaN or infinite)",
                self.path.display(),
                line.number
            );
        }
        Ok(x)
    }

    /// The slice (`shard` header).
    pub(crate) fn slice(&self) -> anyhow::Result<Slice> {
        let l = self.line("shard")?;
        l.fields[0]
            .parse()
            .map_err(|e| anyhow::anyhow!("{}:{}: shard: {e}", self.path.display(), l.number))
    }

    /// The item range (`items` header, `start..end`).
    pub(crate) fn items(&self) -> anyhow::Result<Range<u64>> {
        let l = self.line("items")?;
        let bad = || {
            anyhow::anyhow!(
                "{}:{}: items = {:?}: expected start..end",
                self.path.display(),
                l.number,
                l.fields[0]
            )
        };
        let (a, b) = l.fields[0].split_once("..").ok_or_else(bad)?;
        let (a, b): (u64, u64) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if a > b {
            return Err(bad());
        }
        Ok(a..b)
    }

    /// Checks the `kind` header is `want` (every shard reader's first check).
    pub(crate) fn expect_kind(&self, want: &str) -> anyhow::Result<()> {
        let kind = self.get("kind")?;
        if kind != want {
            let article = if want.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            bail!(
                "{}: a {kind} shard, not {article} {want} shard",
                self.path.display()
            );
        }
        Ok(())
    }

    /// Checks the `columns` header is `want`, the columns this kairos writes.
    pub(crate) fn expect_columns(&self, want: &[&str]) -> anyhow::Result<()> {
        let l = self.line("columns")?;
        if l.fields != want {
            bail!(
                "{}:{}: columns: not the columns this kairos writes ({})",
                self.path.display(),
                l.number,
                want.join(",")
            );
        }
        Ok(())
    }

    /// A sweep's `configs` and `trials` headers and its `items`, which must lie inside the
    /// trials x configurations the sweep has (`noun`: what an item is, for the error). A
    /// forged count cannot overflow: the product saturates.
    pub(crate) fn sweep_items(&self, noun: &str) -> anyhow::Result<(usize, u32, Range<u64>)> {
        let configs: usize = self.value("configs")?;
        let trials: u32 = self.value("trials")?;
        let items = self.items()?;
        let total = (trials as u64).saturating_mul(configs as u64);
        if items.end > total {
            let l = self.line("items")?;
            bail!(
                "{}:{}: items = {:?}: past the {total} {noun} of {trials} trials x {configs} \
                 configurations",
                self.path.display(),
                l.number,
                l.fields[0]
            );
        }
        Ok((configs, trials, items))
    }

    /// Checks that the row lines of `tag` have `n` fields, naming the line otherwise.
    pub(crate) fn check_width(&self, line: &Line, n: usize) -> anyhow::Result<()> {
        if line.fields.len() != n {
            bail!(
                "{}:{}: {}: {} fields, expected {n}",
                self.path.display(),
                line.number,
                line.tag,
                line.fields.len()
            );
        }
        Ok(())
    }
}

/// The shard files named by `paths`: a file as is, a directory's `*.shard` files (sorted by
/// name). An error if there are none.
pub fn find(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut here: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("{}: cannot list the directory", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == EXTENSION) && f.is_file())
                .collect();
            if here.is_empty() {
                bail!("{}: no *.{EXTENSION} files in the directory", p.display());
            }
            here.sort();
            out.extend(here);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            bail!("{}: no such file or directory", p.display());
        }
    }
    Ok(out)
}

/// The kind of the shard file at `path` (`experiment`, `knapsack`): its `kind` line.
pub fn kind(path: &Path) -> anyhow::Result<String> {
    Ok(Text::read(path)?.get("kind")?.to_string())
}

/// Coverage of `0..total` by the shards' item ranges: the items no shard holds, and the items
/// two shards hold (with the indices of both shards in `ranges`).
pub(crate) struct Coverage {
    /// Items no shard holds, ascending.
    pub(crate) missing: Vec<u64>,
    /// (item, first shard, second shard), ascending by item.
    pub(crate) duplicated: Vec<(u64, usize, usize)>,
}

impl Coverage {
    /// Checks `ranges` (one per shard) against `0..total`; items past `total` are ignored
    /// here (each shard's range is checked against the sweep when it is read).
    pub(crate) fn of(ranges: &[Range<u64>], total: u64) -> Coverage {
        let mut owner: Vec<Option<usize>> = vec![None; total as usize];
        let mut duplicated = Vec::new();
        for (i, r) in ranges.iter().enumerate() {
            for x in r.start..r.end.min(total) {
                match owner[x as usize] {
                    Some(j) => duplicated.push((x, j, i)),
                    None => owner[x as usize] = Some(i),
                }
            }
        }
        duplicated.sort();
        let missing = (0..total)
            .filter(|&x| owner[x as usize].is_none())
            .collect();
        Coverage {
            missing,
            duplicated,
        }
    }
}

/// `0-3, 7, 9-12`: ascending indices as ranges.
pub(crate) fn ranges_text(v: &[u64]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests;

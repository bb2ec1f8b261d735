//! Shards of seed 002's serial and energy experiments (Chapters 2-4): `kairos experiment FILE
//! --shard K/N` runs a slice of the experiment's (configuration, trial) units and writes it
//! as a shard file; `kairos merge` joins the shard files into the reports an unsharded run
//! writes, byte for byte.
//!
//! - Units are numbered trial-major (unit `trial x configs + config`, as seed 000 numbers its
//!   runs, `grid::trials_of`); shard K of N holds the contiguous
//!   [`Slice::range`] of them, so it draws each trial it touches once and the slicing
//!   depends on nothing but K, N, the trials and the configurations.
//! - A shard saves each trial's rows as it finishes, in `shard-K-of-N.runs/` beside its
//!   file ([`crate::experiment::saved`]), so `--resume` continues an interrupted shard;
//!   the folder goes once the shard file is written (whole, under a temporary name, then
//!   renamed: a shard file that exists is complete).
//! - A shard file's rows are the saved rows' fields ([`crate::seed002::saved_rows`]: floats
//!   in their shortest round-trip form), so the merge computes the reports from the very
//!   bits the shards computed. Its header names the experiment, the file (as given on the
//!   command line), the identity of the sweep (the file's content and the trial count), the
//!   slice and its units; the merge refuses shards of different sweeps, a file changed
//!   since, and names the units no shard or two shards hold.

use super::energy::experiment::{EnergyExperiment, Row as EnergyRow};
use super::grid::RowCodec;
use super::saved_rows;
use super::serial::experiment::{Row as SerialRow, SerialExperiment};
use super::{Resume, Resumed};
use crate::experiment::saved::{self, Flags, Rows, Steps};
use crate::shard::{Coverage, Identity, Slice, Text, Writer};
use anyhow::{bail, Context};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The `kind` of a serial experiment's shard files.
pub const SERIAL_KIND: &str = "seed002-serial-experiment";
/// The `kind` of an energy experiment's shard files.
pub const ENERGY_KIND: &str = "seed002-energy-experiment";

/// A seed 002 experiment as a grid of (configuration, trial) units: what its shards and
/// its merge need of it.
pub(crate) trait Sharded: Sized {
    /// A unit's result.
    type Row: Send + 'static;
    /// The `kind` of its shard files.
    const KIND: &'static str;
    /// The `kind` of its saved trials.
    const STEPS: &'static str;
    /// The report written last (its presence marks a folder of whole reports).
    const MARKER: &'static str;
    /// Reads and checks the file at `path`.
    fn load(path: &Path) -> anyhow::Result<Self>;
    /// Its name (`out/<name>/`).
    fn name(&self) -> &str;
    /// Its trial count.
    fn trials(&self) -> u32;
    /// Its trial count, to override.
    fn trials_mut(&mut self) -> &mut u32;
    /// Its configurations' labels.
    fn labels(&self) -> Vec<&str>;
    /// How its rows are saved.
    fn codec() -> &'static RowCodec<Self::Row>;
    /// Runs the units of `units`, saving each trial ([`saved_rows`]).
    fn run_saved(
        &self,
        units: Range<u64>,
        jobs: Option<usize>,
        r: &Resumed<'_>,
    ) -> anyhow::Result<Option<Vec<Self::Row>>>;
    /// Writes every report of `rows` (by (configuration, trial)) into `dir`; returns the
    /// text table.
    fn write_reports(&self, dir: &Path, rows: &[Self::Row]) -> anyhow::Result<String>;
}

impl Sharded for SerialExperiment {
    type Row = SerialRow;
    const KIND: &'static str = SERIAL_KIND;
    const STEPS: &'static str = "seed002-serial";
    const MARKER: &'static str = "summary.json";
    fn load(path: &Path) -> anyhow::Result<Self> {
        Ok(SerialExperiment::load(path)?)
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn trials(&self) -> u32 {
        self.trials
    }
    fn trials_mut(&mut self) -> &mut u32 {
        &mut self.trials
    }
    fn labels(&self) -> Vec<&str> {
        self.configs.iter().map(|c| c.label.as_str()).collect()
    }
    fn codec() -> &'static RowCodec<SerialRow> {
        &saved_rows::SERIAL_CODEC
    }
    fn run_saved(
        &self,
        units: Range<u64>,
        jobs: Option<usize>,
        r: &Resumed<'_>,
    ) -> anyhow::Result<Option<Vec<SerialRow>>> {
        saved_rows::serial_run_saved(self, units, jobs, r)
    }
    fn write_reports(&self, dir: &Path, rows: &[SerialRow]) -> anyhow::Result<String> {
        super::serial::report::write_all(dir, self, rows)?;
        Ok(super::serial::report::text_table(self, rows))
    }
}

impl Sharded for EnergyExperiment {
    type Row = EnergyRow;
    const KIND: &'static str = ENERGY_KIND;
    const STEPS: &'static str = "seed002-energy";
    const MARKER: &'static str = "summary.csv";
    fn load(path: &Path) -> anyhow::Result<Self> {
        Ok(EnergyExperiment::load(path)?)
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn trials(&self) -> u32 {
        self.trials
    }
    fn trials_mut(&mut self) -> &mut u32 {
        &mut self.trials
    }
    fn labels(&self) -> Vec<&str> {
        self.configs.iter().map(|c| c.label.as_str()).collect()
    }
    fn codec() -> &'static RowCodec<EnergyRow> {
        &saved_rows::ENERGY_CODEC
    }
    fn run_saved(
        &self,
        units: Range<u64>,
        jobs: Option<usize>,
        r: &Resumed<'_>,
    ) -> anyhow::Result<Option<Vec<EnergyRow>>> {
        saved_rows::energy_run_saved(self, units, jobs, r)
    }
    fn write_reports(&self, dir: &Path, rows: &[EnergyRow]) -> anyhow::Result<String> {
        use super::energy::experiment as e;
        let (summary, trials_csv, traces, table) = e::reports(self, rows);
        let svgs = e::plots::plots(self, rows);
        // summary.csv last: its presence marks the folder as holding a whole run's reports.
        let files = [("trials.csv", trials_csv), ("traces.csv", traces)]
            .into_iter()
            .chain(svgs)
            .chain([("summary.csv", summary)]);
        for (name, text) in files {
            crate::output::write_atomic(&dir.join(name), text)?;
        }
        Ok(table)
    }
}

/// Every unit of `exp`: `0..trials x configs`.
pub(crate) fn all_units<E: Sharded>(exp: &E) -> Range<u64> {
    0..exp.trials() as u64 * exp.labels().len() as u64
}

/// The identity of a run of the file at `path` over `trials` trials (the saved trials' and
/// the shard files' `hash`): the file's content and the trial count.
fn sweep_identity(path: &Path, trials: u32) -> anyhow::Result<String> {
    saved_rows::identity(path, trials)
}

/// The identity of shard `slice`'s saved trials: the sweep's, and the slice.
fn steps_identity(path: &Path, trials: u32, slice: Slice) -> anyhow::Result<String> {
    let mut id = Identity::new();
    id.file("experiment", path)?;
    id.part("trials", &trials.to_le_bytes());
    id.part("shard", slice.to_string().as_bytes());
    Ok(id.text())
}

/// `(label, trial K)` of unit `u`.
fn unit_text(labels: &[&str], u: u64) -> String {
    let c = labels.len().max(1) as u64;
    format!(
        "unit {u} ({:?}, trial {})",
        labels.get((u % c) as usize).copied().unwrap_or("?"),
        u / c
    )
}

/// Where a shard goes and how: `kairos experiment --shard K/N`'s flags.
pub struct ShardRun<'a> {
    /// The slice.
    pub slice: Slice,
    /// `--out` (default `out/<name>/shards/`): the folder of the shard file.
    pub dir: Option<PathBuf>,
    /// `--trials`.
    pub trials: Option<u32>,
    /// `--force`: run the shard again over an earlier one's file or saved trials.
    pub force: bool,
    /// `--resume` and Ctrl-C.
    pub resume: &'a Resume<'a>,
    /// `--threads`.
    pub jobs: Option<usize>,
}

/// Runs slice `run.slice` of the seed 002 file at `path` (serial or energy) and writes its
/// shard file; returns a line saying what it ran and the file.
pub fn run_shard_file(path: &Path, run: &ShardRun<'_>) -> anyhow::Result<String> {
    if super::energy::experiment::is_energy(path) {
        run_shard::<EnergyExperiment>(path, run)
    } else {
        run_shard::<SerialExperiment>(path, run)
    }
}

fn run_shard<E: Sharded>(path: &Path, run: &ShardRun<'_>) -> anyhow::Result<String> {
    let mut exp = E::load(path)?;
    super::override_trials(run.trials, exp.trials_mut())?;
    let trials = exp.trials();
    let slice = run.slice;
    let units = slice.range(all_units(&exp).end);
    let dir = run
        .dir
        .clone()
        .unwrap_or_else(|| Path::new("out").join(exp.name()).join("shards"));
    let file = dir.join(slice.file_name());
    crate::output::refuse_input("--out", &file, &[path])?;
    let hash = sweep_identity(path, trials)?;
    if file.exists() {
        let held = read::<E>(&file)?;
        if run.resume.resume && !run.force && held.hash == hash {
            return Ok(format!(
                "shard {slice} of {}: already complete in {} (nothing to run)",
                exp.name(),
                file.display()
            ));
        }
        if !run.force {
            bail!(
                "{}: holds a complete shard {} of {} ({} trials); pass --force to run it \
                 again, or choose another --out",
                file.display(),
                held.slice,
                held.name,
                held.trials
            );
        }
        std::fs::remove_file(&file)
            .with_context(|| format!("{}: cannot remove the earlier shard", file.display()))?;
    }
    let steps = Steps {
        dir: dir.join(format!("shard-{}-of-{}.runs", slice.k, slice.n)),
        kind: E::STEPS,
        hash: steps_identity(path, trials, slice)?,
        steps: trials,
    };
    let flags = Flags {
        resume: run.resume.resume,
        force: run.force,
    };
    let saved = flags.prepare(&dir, &slice.file_name(), &steps)?;
    let configs = exp.labels().len();
    let touched = super::grid::trials_of(&units, configs);
    let before = touched
        .iter()
        .filter(|(t, _)| saved.get(*t as usize).copied().unwrap_or(false))
        .count() as u64;
    crate::diag!(
        "{}: shard {slice}: units {}..{} of {} ({} configurations x {trials} trials): {} \
         trials{}",
        exp.name(),
        units.start,
        units.end,
        configs as u64 * trials as u64,
        configs,
        touched.len(),
        if before > 0 {
            format!(", {before} saved")
        } else {
            String::new()
        }
    );
    let progress = crate::progress::Steps::new(
        &format!("{} {slice}", exp.name()),
        "trials",
        touched.len() as u64,
        before,
    );
    let r = Resumed {
        steps: &steps,
        saved: &saved,
        stop: run.resume.stop,
        progress: &progress,
    };
    let rows = exp.run_saved(units.clone(), run.jobs, &r)?;
    progress.finish();
    let Some(rows) = rows else {
        let n = steps.saved()?.iter().filter(|s| **s).count();
        return Err(saved::stopped(
            n,
            &steps,
            "trials",
            &format!(
                "kairos experiment {} --shard {slice} --out {}{}",
                path.display(),
                dir.display(),
                run.trials
                    .map_or(String::new(), |n| format!(" --trials {n}"))
            ),
        ));
    };
    let codec = E::codec();
    let mut w = Writer::new(E::KIND);
    w.header("experiment", exp.name());
    w.header("file", path.display());
    w.header("hash", &hash);
    w.header("trials", trials);
    w.header("configs", configs);
    w.header("shard", slice);
    w.header("items", format!("{}..{}", units.start, units.end));
    w.header("columns", codec.columns.join("\t"));
    let mut lines: Vec<(u64, Vec<String>)> = rows
        .iter()
        .map(|r| {
            let (c, t) = (codec.key)(r);
            (t as u64 * configs as u64 + c as u64, (codec.fields)(r))
        })
        .collect();
    lines.sort_by_key(|l| l.0);
    for (_, fields) in &lines {
        w.row("row", fields);
    }
    w.finish(&file)?;
    steps.remove()?;
    Ok(format!(
        "shard {slice} of {}: {} units ({} trials); wrote {}",
        exp.name(),
        lines.len(),
        touched.len(),
        file.display()
    ))
}

/// A seed 002 shard file, read.
pub(crate) struct Shard<R> {
    /// The shard file.
    pub path: PathBuf,
    /// The experiment's name.
    pub name: String,
    /// The experiment file, as the shard's command line gave it.
    pub file: PathBuf,
    /// The sweep's identity.
    pub hash: String,
    /// The sweep's trials.
    pub trials: u32,
    /// The experiment's configurations.
    pub configs: usize,
    /// Which slice.
    pub slice: Slice,
    /// The units it holds.
    pub units: Range<u64>,
    /// Its rows, by unit.
    pub rows: Vec<R>,
}

/// Reads the shard file at `path`; errors name the file, the line and the field.
pub(crate) fn read<E: Sharded>(path: &Path) -> anyhow::Result<Shard<E::Row>> {
    let t = Text::read(path)?;
    t.expect_kind(E::KIND)?;
    let (configs, trials, units) = t.sweep_items("units")?;
    let codec = E::codec();
    t.expect_columns(codec.columns)?;
    let head = Shard {
        path: path.to_path_buf(),
        name: t.get("experiment")?.to_string(),
        file: PathBuf::from(t.get("file")?),
        hash: t.get("hash")?.to_string(),
        trials,
        configs,
        slice: t.slice()?,
        units: units.clone(),
        rows: Vec::new(),
    };
    let rows = Rows::of(t, codec.columns)?;
    let mut out = Vec::with_capacity(rows.len());
    let mut next = units.start;
    for i in 0..rows.len() {
        let r = (codec.parse)(&rows, i)?;
        let (c, tr) = (codec.key)(&r);
        // c < configs and tr < trials: u < total, no overflow.
        let u = (c < configs && tr < trials).then(|| tr as u64 * configs as u64 + c as u64);
        if u != Some(next) || !units.contains(&next) {
            return Err(rows.error(
                i,
                format!(
                    "configuration {c} of trial {tr}: expected unit {next} (configuration {} \
                     of trial {}) of the shard's units {}..{}",
                    next % configs.max(1) as u64,
                    next / configs.max(1) as u64,
                    units.start,
                    units.end
                ),
            ));
        }
        next += 1;
        out.push(r);
    }
    if next != units.end {
        bail!(
            "{}: {} of the {} units {}..{} it should hold",
            path.display(),
            out.len(),
            units.end - units.start,
            units.start,
            units.end
        );
    }
    Ok(Shard { rows: out, ..head })
}

/// Reads the seed 002 shard file at `path`, serial or energy as its `kind` says (as `kairos
/// merge` reads it); returns its unit count, or the error naming the file, line and field.
pub fn read_any(path: &Path) -> anyhow::Result<usize> {
    match crate::shard::kind(path)?.as_str() {
        SERIAL_KIND => Ok(read::<SerialExperiment>(path)?.rows.len()),
        ENERGY_KIND => Ok(read::<EnergyExperiment>(path)?.rows.len()),
        other => bail!(
            "{}: a {other} shard, not a seed 002 experiment shard",
            path.display()
        ),
    }
}

/// Whether shard files of `kind` are seed 002's.
pub fn is_kind(kind: &str) -> bool {
    kind == SERIAL_KIND || kind == ENERGY_KIND
}

/// What `kairos merge` was asked: where to write, the experiment file if it moved, whether
/// to overwrite.
pub struct MergeTo {
    /// `--out` (default `out/<name>/`).
    pub out: Option<PathBuf>,
    /// `--experiment`: the file, when it is no longer where the shards ran it.
    pub experiment: Option<PathBuf>,
    /// `--force`.
    pub force: bool,
}

/// Merges the seed 002 shard files `files` (of `kind`) into the reports an unsharded run
/// writes; returns the text table and the folder written.
pub fn merge_files(
    kind: &str,
    files: &[PathBuf],
    to: &MergeTo,
) -> anyhow::Result<(String, PathBuf)> {
    if kind == ENERGY_KIND {
        merge::<EnergyExperiment>(files, to)
    } else {
        merge::<SerialExperiment>(files, to)
    }
}

fn merge<E: Sharded>(files: &[PathBuf], to: &MergeTo) -> anyhow::Result<(String, PathBuf)> {
    for f in files {
        let kind = crate::shard::kind(f)?;
        if kind != E::KIND {
            bail!(
                "refusing to merge shards of different experiments: {} is a {} shard and {} a \
                 {kind} shard; merge the shards of one experiment at a time",
                files[0].display(),
                E::KIND,
                f.display()
            );
        }
    }
    let shards = files
        .iter()
        .map(|p| read::<E>(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let Some(first) = shards.first() else {
        bail!("no shard files to merge");
    };
    for s in &shards[1..] {
        let what = |x: &Shard<E::Row>| {
            format!(
                "{} is shard {} of {} ({}, {} trials)",
                x.path.display(),
                x.slice,
                x.name,
                x.file.display(),
                x.trials
            )
        };
        if s.name != first.name || s.file != first.file {
            bail!(
                "refusing to merge shards of different experiments: {} and {}; merge the \
                 shards of one experiment at a time",
                what(first),
                what(s)
            );
        }
        if s.trials != first.trials {
            bail!(
                "refusing to merge shards of different trial counts: {} and {}; run every \
                 shard with one --trials",
                what(first),
                what(s)
            );
        }
        if s.hash != first.hash || s.configs != first.configs {
            bail!(
                "refusing to merge shards of different contents of {}: {} ran it as {} and \
                 {} as {} (the file changed between them); run the shards again",
                first.file.display(),
                first.path.display(),
                first.hash,
                s.path.display(),
                s.hash
            );
        }
    }
    let file = to.experiment.clone().unwrap_or_else(|| first.file.clone());
    let mut exp = E::load(&file)
        .with_context(|| format!("loading the experiment the shards name, {}", file.display()))?;
    *exp.trials_mut() = first.trials;
    let now = sweep_identity(&file, first.trials)?;
    let labels = exp.labels();
    if now != first.hash || labels.len() != first.configs {
        bail!(
            "{}: the experiment changed since the shards ran: its hash is now {now}, the \
             shards' {} ({} configurations then, {} now); run the shards again",
            file.display(),
            first.hash,
            first.configs,
            labels.len()
        );
    }
    let total = all_units(&exp).end;
    let cov = Coverage::of(
        &shards.iter().map(|s| s.units.clone()).collect::<Vec<_>>(),
        total,
    );
    let mut problems = Vec::new();
    if !cov.duplicated.is_empty() {
        let mut s = format!(
            "{} of the {total} units are in two shards:",
            cov.duplicated.len()
        );
        for (u, a, b) in cov.duplicated.iter().take(12) {
            s.push_str(&format!(
                "\n  {} is in {} and in {}",
                unit_text(&labels, *u),
                shards[*a].path.display(),
                shards[*b].path.display()
            ));
        }
        if cov.duplicated.len() > 12 {
            s.push_str(&format!("\n  and {} more", cov.duplicated.len() - 12));
        }
        problems.push(s);
    }
    if !cov.missing.is_empty() {
        let named: Vec<String> = cov
            .missing
            .iter()
            .take(12)
            .map(|&u| unit_text(&labels, u))
            .collect();
        let mut s = format!(
            "{} of the {total} units are missing (units {}): {}{}",
            cov.missing.len(),
            crate::shard::ranges_text(&cov.missing),
            named.join(", "),
            if cov.missing.len() > 12 {
                format!(", and {} more", cov.missing.len() - 12)
            } else {
                String::new()
            }
        );
        let n = first.slice.n;
        if shards.iter().all(|s| s.slice.n == n) {
            let mut ks: Vec<u32> = cov
                .missing
                .iter()
                .map(|&u| Slice::holding(u, total, n).k)
                .collect();
            ks.dedup();
            s.push_str(&format!(
                "\n  they belong to shard{} {} of {n}: run `kairos experiment {} --shard K/{n} \
                 --trials {}` for each",
                if ks.len() == 1 { "" } else { "s" },
                ks.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
                file.display(),
                first.trials
            ));
        }
        problems.push(s);
    }
    if !problems.is_empty() {
        bail!(
            "cannot merge {} shard files: {}",
            shards.len(),
            problems.join("\n")
        );
    }
    let key = E::codec().key;
    let mut rows: Vec<E::Row> = shards.into_iter().flat_map(|s| s.rows).collect();
    rows.sort_by_key(key);
    let name = exp.name().to_string();
    let dir = super::ReportsDir {
        dir: to.out.clone(),
        force: to.force,
    }
    .prepare(&name, E::MARKER, &file)?;
    let table = exp.write_reports(&dir, &rows)?;
    Ok((table, dir))
}

/// A seed 002 file's name, trial count (the file's or `trials`) and configurations, for
/// `kairos slurm`; `None` if the file is not a seed 002 serial or energy file.
pub fn describe(path: &Path, trials: Option<u32>) -> Option<anyhow::Result<(String, u32, usize)>> {
    fn of<E: Sharded>(path: &Path, trials: Option<u32>) -> anyhow::Result<(String, u32, usize)> {
        let mut e = E::load(path)?;
        super::override_trials(trials, e.trials_mut())?;
        Ok((e.name().to_string(), e.trials(), e.labels().len()))
    }
    if super::serial::experiment::is_serial(path) {
        Some(of::<SerialExperiment>(path, trials))
    } else if super::energy::experiment::is_energy(path) {
        Some(of::<EnergyExperiment>(path, trials))
    } else {
        None
    }
}

#[cfg(test)]
#[path = "shard_tests.rs"]
mod tests;

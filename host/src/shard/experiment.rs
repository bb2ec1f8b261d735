//! Experiment shards: `kairos experiment --shard K/N` writes one, `kairos merge` joins them.
//!
//! The items are the experiment's runs, numbered trial-major
//! ([`crate::experiment::runner::run_at`]). A shard file holds, for each run of its slice,
//! every field of the run's [`RunSummary`] (the per-run row), or the run's error; its header
//! names the experiment file (absolute path), the identity of the sweep (a hash of the
//! experiment file, its scenario or log, and the trial count), the slice and the runs held.
//! The merge loads the experiment again from that file, refuses if it changed, checks that
//! the shards hold every run exactly once, and rebuilds the [`Outcome`] the one-machine run
//! would have had: rows and failures sorted by (configuration, trial), so [`crate::report`]
//! writes the same bytes. Only `timing.json` differs (wall times: the generation times of all
//! shards, and the experiment's wall time as [`Walls`] says: the longest shard's for shards
//! that ran side by side, the sum for the per-trial files of one resumable run).

use super::{Coverage, Identity, Line, Slice, Text, Writer};
use crate::experiment::runner::{run_at, run_count, Failure, Outcome, Row};
use crate::experiment::Experiment;
use crate::run::{EventTimes, RunSummary};
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

/// The `kind` of experiment shard files.
pub const KIND: &str = "experiment";

/// The fields of a `row` line, in order.
const COLUMNS: [&str; 26] = [
    "run",
    "config",
    "trial",
    "scenario",
    "heuristic",
    "reservations",
    "filter",
    "leniency",
    "utility_percent",
    "utility",
    "max_utility",
    "energy_joules",
    "energy_budget_joules",
    "arrived",
    "completed",
    "dropped",
    "unfinished",
    "mapping_events",
    "mapping_event_us_p50",
    "mapping_event_us_p99",
    "mapping_event_us_max",
    "mapping_event_us_mean",
    "offered_load_percent",
    "wall_time_s",
    "generate_s",
    "digest",
];

/// The identity of `exp`'s sweep: its file, its scenario (or log) file, its trial count.
pub fn identity(exp: &Experiment) -> anyhow::Result<String> {
    let mut id = Identity::new();
    id.file("experiment", &exp.file)?;
    match &exp.trace {
        Some(tr) => id.file("trace", &tr.path)?,
        None => id.file("scenario", &exp.scenario_path)?,
    }
    id.part("trials", &exp.trials.to_le_bytes());
    Ok(id.text())
}

/// The absolute path of `exp`'s file, as the shard records it.
fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::fs::canonicalize(path).with_context(|| format!("{}: cannot resolve", path.display()))
}

/// Writes the shard file of slice `slice` of `exp` (whose runs gave `out`) at `path`.
pub fn write(path: &Path, exp: &Experiment, slice: Slice, out: &Outcome) -> anyhow::Result<()> {
    let runs = slice.range(run_count(exp));
    let mut w = Writer::new(KIND);
    w.header("experiment", &exp.name);
    w.header("file", absolute(&exp.file)?.display());
    w.header("hash", identity(exp)?);
    w.header("trials", exp.trials);
    w.header("configs", exp.configs.len());
    w.header("shard", slice);
    w.header("items", format!("{}..{}", runs.start, runs.end));
    w.header("jobs", out.jobs);
    w.header("wall_s", format!("{:?}", out.wall_s));
    w.header(
        "generate_s",
        out.generate_s
            .iter()
            .map(|g| format!("{g:?}"))
            .collect::<Vec<_>>()
            .join(","),
    );
    w.header("columns", COLUMNS.join("\t"));
    let index =
        |config: usize, trial: u32| crate::experiment::runner::run_index(exp, config, trial);
    let mut lines: Vec<(u64, &str, Vec<String>)> = Vec::new();
    for r in &out.rows {
        let m = &r.summary;
        let run = index(r.config, m.trial);
        let f = |x: f64| format!("{x:?}");
        lines.push((
            run,
            "row",
            vec![
                run.to_string(),
                r.config.to_string(),
                m.trial.to_string(),
                super::escape(&m.scenario),
                super::escape(&m.heuristic),
                super::escape(&m.reservations),
                super::escape(&m.filter),
                f(m.leniency),
                f(m.utility_percent),
                f(m.utility),
                f(m.max_utility),
                f(m.energy_joules),
                m.energy_budget_joules.map_or("none".to_string(), f),
                m.arrived.to_string(),
                m.completed.to_string(),
                m.dropped.to_string(),
                m.unfinished.to_string(),
                m.mapping_events.to_string(),
                m.mapping_event_us.p50.to_string(),
                m.mapping_event_us.p99.to_string(),
                m.mapping_event_us.max.to_string(),
                f(m.mapping_event_us.mean),
                f(m.offered_load_percent),
                f(m.wall_time_s),
                f(m.generate_s),
                super::escape(&m.digest),
            ],
        ));
    }
    for x in &out.failures {
        let run = index(x.config, x.trial);
        lines.push((
            run,
            "failure",
            vec![
                run.to_string(),
                x.config.to_string(),
                x.trial.to_string(),
                super::escape(&x.error),
            ],
        ));
    }
    lines.sort_by_key(|l| l.0);
    for (_, tag, fields) in lines {
        w.row(tag, &fields);
    }
    w.finish(path)
}

/// An experiment shard file, read.
#[derive(Clone, Debug)]
pub struct Shard {
    /// The shard file.
    pub path: PathBuf,
    /// The experiment's name.
    pub name: String,
    /// The experiment file (absolute).
    pub file: PathBuf,
    /// The identity of the sweep ([`identity`]).
    pub hash: String,
    /// Trials of the sweep.
    pub trials: u32,
    /// Configurations of the experiment.
    pub configs: usize,
    /// Which slice.
    pub slice: Slice,
    /// The runs it holds.
    pub runs: std::ops::Range<u64>,
    /// Threads the shard used.
    pub jobs: usize,
    /// The shard's wall time, in seconds.
    pub wall_s: f64,
    /// Generation times of the trials it touched.
    pub generate_s: Vec<f64>,
    /// Its rows, by run.
    pub rows: Vec<Row>,
    /// Its failed runs.
    pub failures: Vec<Failure>,
}

/// Reads the experiment shard file at `path`; errors name the file, the line and the field.
pub fn read(path: &Path) -> anyhow::Result<Shard> {
    let t = Text::read(path)?;
    t.expect_kind(KIND)?;
    let (configs, trials, runs) = t.sweep_items("runs")?;
    let gl = t.line("generate_s")?;
    let generate_s = if gl.fields[0].is_empty() {
        Vec::new()
    } else {
        gl.fields[0]
            .split(',')
            .map(|x| t.parse_finite(gl, "generate_s", x))
            .collect::<anyhow::Result<_>>()?
    };
    t.expect_columns(&COLUMNS)?;
    let mut shard = Shard {
        path: path.to_path_buf(),
        name: t.get("experiment")?.to_string(),
        file: PathBuf::from(t.get("file")?),
        hash: t.get("hash")?.to_string(),
        trials,
        configs,
        slice: t.slice()?,
        runs,
        jobs: t.value("jobs")?,
        wall_s: t.value("wall_s")?,
        generate_s,
        rows: Vec::new(),
        failures: Vec::new(),
    };
    let mut seen = Vec::new();
    for l in &t.rows {
        let width = if l.tag == "row" { COLUMNS.len() } else { 4 };
        t.check_width(l, width)?;
        let run: u64 = t.parse(l, "run", &l.fields[0])?;
        let config: usize = t.parse(l, "config", &l.fields[1])?;
        let trial: u32 = t.parse(l, "trial", &l.fields[2])?;
        if !shard.runs.contains(&run) || config >= configs || trial >= trials {
            bail!(
                "{}:{}: run {run} (configuration {config}, trial {trial}) is not one of the \
                 shard's runs {}..{}",
                path.display(),
                l.number,
                shard.runs.start,
                shard.runs.end
            );
        }
        if run != trial as u64 * configs as u64 + config as u64 {
            bail!(
                "{}:{}: run {run} is not configuration {config} on trial {trial}",
                path.display(),
                l.number
            );
        }
        seen.push((run, l.number));
        if l.tag == "failure" {
            shard.failures.push(Failure {
                config,
                trial,
                error: super::unescape(&l.fields[3]),
            });
        } else {
            shard.rows.push(Row {
                config,
                summary: summary_of(&t, l, trial)?,
            });
        }
    }
    seen.sort();
    for w in seen.windows(2) {
        if w[0].0 == w[1].0 {
            bail!(
                "{}:{}: run {} twice (also line {})",
                path.display(),
                w[1].1,
                w[0].0,
                w[0].1
            );
        }
    }
    if seen.len() as u64 != shard.runs.end - shard.runs.start {
        bail!(
            "{}: {} of the {} runs {}..{} it should hold",
            path.display(),
            seen.len(),
            shard.runs.end - shard.runs.start,
            shard.runs.start,
            shard.runs.end
        );
    }
    Ok(shard)
}

/// The [`RunSummary`] of a `row` line (its trace empty, as the runner leaves it).
fn summary_of(t: &Text, l: &Line, trial: u32) -> anyhow::Result<RunSummary> {
    let x = &l.fields;
    let f = |i: usize| t.parse_finite(l, COLUMNS[i], &x[i]);
    let u = |i: usize| t.parse::<u32>(l, COLUMNS[i], &x[i]);
    let w = |i: usize| t.parse::<u64>(l, COLUMNS[i], &x[i]);
    Ok(RunSummary {
        scenario: super::unescape(&x[3]),
        heuristic: super::unescape(&x[4]),
        reservations: super::unescape(&x[5]),
        filter: super::unescape(&x[6]),
        leniency: f(7)?,
        trial,
        utility_percent: f(8)?,
        utility: f(9)?,
        max_utility: f(10)?,
        energy_joules: f(11)?,
        energy_budget_joules: if x[12] == "none" { None } else { Some(f(12)?) },
        arrived: u(13)?,
        completed: u(14)?,
        dropped: u(15)?,
        unfinished: u(16)?,
        mapping_events: u(17)?,
        mapping_event_us: EventTimes {
            p50: w(18)?,
            p99: w(19)?,
            max: w(20)?,
            mean: f(21)?,
        },
        offered_load_percent: f(22)?,
        wall_time_s: f(23)?,
        generate_s: f(24)?,
        digest: super::unescape(&x[25]),
        trace: Vec::new(),
    })
}

/// `run 5 ("EASY", trial 1)`.
fn run_text(exp: &Experiment, run: u64) -> String {
    let (c, t) = run_at(exp, run);
    format!("run {run} ({:?}, trial {t})", exp.configs[c].label)
}

/// The runs of `v` as text, the first 12 named.
fn runs_text(exp: &Experiment, v: &[u64]) -> String {
    let mut s = v
        .iter()
        .take(12)
        .map(|&r| run_text(exp, r))
        .collect::<Vec<_>>()
        .join(", ");
    if v.len() > 12 {
        s.push_str(&format!(", and {} more", v.len() - 12));
    }
    s
}

/// Reads the experiment shard files `paths` and joins them into the experiment and the
/// outcome a one-machine run of it would have had. `experiment` overrides the experiment
/// file the shards name (when it moved); it must still have the same content.
///
/// Refuses shards of different sweeps (different files, contents or trial counts), an
/// experiment file changed since the shards ran, and names the runs no shard holds or two
/// shards hold.
pub fn merge(
    paths: &[PathBuf],
    experiment: Option<&Path>,
) -> anyhow::Result<(Experiment, Outcome)> {
    merge_with(paths, experiment, Walls::SideBySide)
}

/// How the shards' wall times make the experiment's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walls {
    /// Shards that ran at the same time (`--shard K/N` on a cluster): the longest.
    SideBySide,
    /// Files written one after another by one run (a resumable experiment's per-trial files,
    /// each holding its share of its group's time): the sum.
    OneAfterAnother,
}

/// [`merge`], the wall time combined as `walls` says.
pub fn merge_with(
    paths: &[PathBuf],
    experiment: Option<&Path>,
    walls: Walls,
) -> anyhow::Result<(Experiment, Outcome)> {
    let shards = paths
        .iter()
        .map(|p| read(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let Some(first) = shards.first() else {
        bail!("no shard files to merge");
    };
    for s in &shards[1..] {
        if s.hash != first.hash {
            bail!(
                "refusing to merge shards of different experiments: {} is {} ({} trials, {}) \
                 and {} is {} ({} trials, {}); merge the shards of one experiment at a time",
                first.path.display(),
                first.file.display(),
                first.trials,
                first.hash,
                s.path.display(),
                s.file.display(),
                s.trials,
                s.hash
            );
        }
    }
    let file = experiment.map_or_else(|| first.file.clone(), Path::to_path_buf);
    let mut exp = Experiment::load(&file)
        .with_context(|| format!("loading the experiment the shards name, {}", file.display()))?;
    exp.trials = first.trials;
    let now = identity(&exp)?;
    if now != first.hash || exp.configs.len() != first.configs {
        bail!(
            "{}: the experiment (or its scenario) changed since the shards ran: its hash is now \
             {now}, the shards' {} ({} configurations then, {} now); run the shards again",
            file.display(),
            first.hash,
            first.configs,
            exp.configs.len()
        );
    }
    let total = run_count(&exp);
    let cov = Coverage::of(
        &shards.iter().map(|s| s.runs.clone()).collect::<Vec<_>>(),
        total,
    );
    let mut problems = Vec::new();
    if !cov.duplicated.is_empty() {
        let mut s = format!(
            "{} of the {total} runs are in two shards:",
            cov.duplicated.len()
        );
        for (run, a, b) in cov.duplicated.iter().take(12) {
            s.push_str(&format!(
                "\n  {} is in {} and in {}",
                run_text(&exp, *run),
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
        let mut s = format!(
            "{} of the {total} runs are missing (runs {}): {}",
            cov.missing.len(),
            super::ranges_text(&cov.missing),
            runs_text(&exp, &cov.missing)
        );
        // With one slicing, say which shards to run again.
        let n = first.slice.n;
        if shards.iter().all(|s| s.slice.n == n) {
            let mut ks: Vec<u32> = cov
                .missing
                .iter()
                .map(|&r| Slice::holding(r, total, n).k)
                .collect();
            ks.dedup();
            s.push_str(&format!(
                "\n  they belong to shard{} {} of {n}: run `kairos experiment {} --shard K/{n}` \
                 for each (or `kairos slurm ... --only {}`)",
                if ks.len() == 1 { "" } else { "s" },
                ks.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
                file.display(),
                ks.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
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
    let mut order: Vec<&Shard> = shards.iter().collect();
    order.sort_by_key(|s| s.runs.start);
    let mut rows = Vec::with_capacity(total as usize);
    let mut failures = Vec::new();
    let mut generate_s = Vec::new();
    for s in &order {
        rows.extend(s.rows.iter().cloned());
        failures.extend(s.failures.iter().cloned());
        generate_s.extend(s.generate_s.iter().copied());
    }
    rows.sort_by_key(|r| (r.config, r.summary.trial));
    failures.sort_by_key(|f| (f.config, f.trial));
    let outcome = Outcome {
        rows,
        failures,
        generate_s,
        wall_s: match walls {
            Walls::SideBySide => shards.iter().map(|s| s.wall_s).fold(0.0, f64::max),
            Walls::OneAfterAnother => shards.iter().map(|s| s.wall_s).sum(),
        },
        jobs: shards.iter().map(|s| s.jobs).max().unwrap_or(1),
    };
    Ok((exp, outcome))
}

//! Knapsack-sweep shards: `kairos sweep-knapsack --shard K/N` writes one (a slice of the
//! grid's points), `kairos merge` joins them into the sweep's `points.csv`, `pareto.csv`,
//! `pareto.svg` and `summary.json`.
//!
//! The items are the grid's points by index ([`Grid::params`]). A row holds a point's cost
//! (the workload response time and the four classes' mean expansion factors); the point's
//! exponents follow from its index. The header records the sweep's settings (the flags of
//! `kairos sweep-knapsack`) and its identity (a hash of the log's contents and the
//! settings), so the merge rebuilds the workload and the grid exactly as one machine would
//! and refuses shards of different sweeps.

use super::{Coverage, Identity, Slice, Text, Writer};
use crate::knapsack::{self, Cost, Grid, Mode, Point, Workload};
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

/// The `kind` of knapsack shard files.
pub const KIND: &str = "knapsack";

/// The fields of a `row` line, in order.
const COLUMNS: [&str; 6] = ["point", "wrt_us", "ef_a", "ef_b", "ef_c", "ef_d"];

/// What is swept: the settings of `kairos sweep-knapsack` that decide the points.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The SWF log (`None`: the synthetic workload).
    pub swf: Option<PathBuf>,
    /// All of the log's jobs submitted at 0.
    pub batch: bool,
    /// Malleable or rigid jobs.
    pub mode: Mode,
    /// Jobs to schedule.
    pub jobs: usize,
    /// Machine size for a log (`None`: its header's).
    pub procs: Option<u32>,
    /// The grid's step.
    pub step: f64,
    /// Per-job share of the knapsack.
    pub share: f64,
    /// Seed of the synthetic workload.
    pub seed: u64,
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Malleable => "malleable",
        Mode::Rigid => "rigid",
    }
}

impl Sweep {
    /// The workload and the grid.
    pub fn load(&self) -> anyhow::Result<(Workload, Grid)> {
        if self.jobs == 0 {
            bail!("--jobs must be at least 1");
        }
        if self.jobs > crate::limits::MAX_SWEEP_JOBS {
            bail!(
                "--jobs {}: at most {} jobs",
                self.jobs,
                crate::limits::MAX_SWEEP_JOBS
            );
        }
        let grid = Grid::new(self.step)?;
        let w = match &self.swf {
            Some(path) => knapsack::load_swf(path, self.jobs, self.procs, self.batch)?,
            None => match self.mode {
                Mode::Malleable => knapsack::synthetic(self.jobs, self.seed)?,
                Mode::Rigid => knapsack::synthetic_rigid(self.jobs, self.seed)?,
            },
        };
        Ok((w, grid))
    }

    /// The settings as one line (what the identity hashes besides the log).
    fn settings(&self) -> String {
        format!(
            "batch={} mode={} jobs={} procs={} step={:?} share={:?} seed={}",
            self.batch,
            mode_name(self.mode),
            self.jobs,
            self.procs.map_or("log".to_string(), |p| p.to_string()),
            self.step,
            self.share,
            self.seed
        )
    }

    /// The sweep's identity: the log's contents and the settings.
    pub fn identity(&self) -> anyhow::Result<String> {
        let mut id = Identity::new();
        match &self.swf {
            Some(p) => id.file("swf", p)?,
            None => id.part("synthetic", b""),
        }
        id.part("settings", self.settings().as_bytes());
        Ok(id.text())
    }
}

/// Writes every output of a sweep of `w` over `grid` into `dir` (`points.csv`, `pareto.csv`,
/// `pareto.svg`, `summary.json`) and returns the summary's JSON; the one writer of both the
/// one-machine sweep and the merge, so their files are the same bytes.
pub fn write_reports(
    dir: &Path,
    sweep: &Sweep,
    w: &Workload,
    grid: &Grid,
    points: &[Point],
) -> anyhow::Result<String> {
    let fronts = knapsack::fronts(points);
    knapsack::write_outputs(dir, w, grid, points, &fronts)?;
    let summary = knapsack::summarize(
        w,
        grid,
        sweep.mode,
        sweep.share,
        sweep.batch,
        points,
        &fronts,
    );
    let json = serde_json::to_string_pretty(&summary)?;
    let path = dir.join("summary.json");
    crate::output::write_atomic(&path, format!("{json}\n"))?;
    Ok(json)
}

/// Writes the shard file of slice `slice` of `sweep` (whose points are `points`) at `path`.
pub fn write(
    path: &Path,
    sweep: &Sweep,
    grid: &Grid,
    slice: Slice,
    points: &[Point],
) -> anyhow::Result<()> {
    let items = slice.range(grid.points() as u64);
    let mut w = Writer::new(KIND);
    w.header("hash", sweep.identity()?);
    match &sweep.swf {
        Some(p) => w.header(
            "swf",
            std::fs::canonicalize(p)
                .with_context(|| format!("{}: cannot resolve", p.display()))?
                .display(),
        ),
        None => w.header("swf", "synthetic"),
    }
    w.header("batch", sweep.batch);
    w.header("mode", mode_name(sweep.mode));
    w.header("jobs", sweep.jobs);
    w.header(
        "procs",
        sweep.procs.map_or("log".to_string(), |p| p.to_string()),
    );
    w.header("step", format!("{:?}", sweep.step));
    w.header("share", format!("{:?}", sweep.share));
    w.header("seed", sweep.seed);
    w.header("points", grid.points());
    w.header("shard", slice);
    w.header("items", format!("{}..{}", items.start, items.end));
    w.header("columns", COLUMNS.join("\t"));
    for p in points {
        let mut fields = vec![p.index.to_string(), p.cost.wrt.to_string()];
        fields.extend(
            p.cost
                .ef
                .iter()
                .map(|e| e.map_or("none".to_string(), |x| format!("{x:?}"))),
        );
        w.row("row", &fields);
    }
    w.finish(path)
}

/// A knapsack shard file, read.
#[derive(Clone, Debug)]
pub struct Shard {
    /// The shard file.
    pub path: PathBuf,
    /// The sweep's settings.
    pub sweep: Sweep,
    /// Its identity, as the shard recorded it.
    pub hash: String,
    /// The grid's points.
    pub points_total: u64,
    /// Which slice.
    pub slice: Slice,
    /// The points it holds.
    pub items: std::ops::Range<u64>,
    /// (index, cost) of its points, in grid order.
    pub costs: Vec<(usize, Cost)>,
}

/// Reads the knapsack shard file at `path`; errors name the file, the line and the field.
pub fn read(path: &Path) -> anyhow::Result<Shard> {
    let t = Text::read(path)?;
    t.expect_kind(KIND)?;
    let mode_line = t.line("mode")?;
    let mode = match mode_line.fields[0].as_str() {
        "malleable" => Mode::Malleable,
        "rigid" => Mode::Rigid,
        other => bail!(
            "{}:{}: mode = {other:?}: expected malleable or rigid",
            path.display(),
            mode_line.number
        ),
    };
    let procs = match t.get("procs")? {
        "log" => None,
        _ => Some(t.value::<u32>("procs")?),
    };
    let swf = match t.get("swf")? {
        "synthetic" => None,
        p => Some(PathBuf::from(p)),
    };
    let sweep = Sweep {
        swf,
        batch: t.value("batch")?,
        mode,
        jobs: t.value("jobs")?,
        procs,
        step: t.value("step")?,
        share: t.value("share")?,
        seed: t.value("seed")?,
    };
    let points_total: u64 = t.value("points")?;
    let items = t.items()?;
    if items.end > points_total {
        bail!(
            "{}:{}: items: past the grid's {points_total} points",
            path.display(),
            t.line("items")?.number
        );
    }
    t.expect_columns(&COLUMNS)?;
    let mut costs = Vec::with_capacity(t.rows.len());
    for l in &t.rows {
        if l.tag != "row" {
            bail!(
                "{}:{}: {}: a knapsack shard has only rows",
                path.display(),
                l.number,
                l.tag
            );
        }
        t.check_width(l, COLUMNS.len())?;
        let index: u64 = t.parse(l, "point", &l.fields[0])?;
        let expected = items.start + costs.len() as u64;
        if index != expected {
            bail!(
                "{}:{}: point {index}: expected point {expected} (the shard holds points \
                 {}..{} in order)",
                path.display(),
                l.number,
                items.start,
                items.end
            );
        }
        let wrt: u64 = t.parse(l, "wrt_us", &l.fields[1])?;
        let mut ef = [None; 4];
        for (k, e) in ef.iter_mut().enumerate() {
            let x = &l.fields[2 + k];
            if x != "none" {
                *e = Some(t.parse_finite(l, COLUMNS[2 + k], x)?);
            }
        }
        costs.push((index as usize, Cost { wrt, ef }));
    }
    if costs.len() as u64 != items.end - items.start {
        bail!(
            "{}: {} of the {} points {}..{} it should hold",
            path.display(),
            costs.len(),
            items.end - items.start,
            items.start,
            items.end
        );
    }
    Ok(Shard {
        path: path.to_path_buf(),
        hash: t.get("hash")?.to_string(),
        sweep,
        points_total,
        slice: t.slice()?,
        items,
        costs,
    })
}

/// Reads the knapsack shard files `paths` and joins them: the sweep, its workload and grid
/// (loaded again, and refused if the log changed), and every point in grid order. Refuses
/// shards of different sweeps, and names the points no shard holds or two shards hold.
pub fn merge(paths: &[PathBuf]) -> anyhow::Result<(Sweep, Workload, Grid, Vec<Point>)> {
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
                "refusing to merge shards of different sweeps: {} is {} and {} is {}; merge \
                 the shards of one sweep at a time",
                first.path.display(),
                first.sweep.settings(),
                s.path.display(),
                s.sweep.settings()
            );
        }
    }
    let sweep = first.sweep.clone();
    let now = sweep.identity()?;
    if now != first.hash {
        bail!(
            "{}: the log changed since the shards ran (its hash is now {now}, the shards' {}); \
             run the shards again",
            sweep
                .swf
                .as_deref()
                .unwrap_or(Path::new("synthetic"))
                .display(),
            first.hash
        );
    }
    let (w, grid) = sweep.load()?;
    let total = grid.points() as u64;
    let cov = Coverage::of(
        &shards.iter().map(|s| s.items.clone()).collect::<Vec<_>>(),
        total,
    );
    let mut problems = Vec::new();
    for (x, a, b) in cov.duplicated.iter().take(12) {
        problems.push(format!(
            "point {x} is in {} and in {}",
            shards[*a].path.display(),
            shards[*b].path.display()
        ));
    }
    if !cov.missing.is_empty() {
        let n = first.slice.n;
        let mut s = format!(
            "{} of the {total} points are missing (points {})",
            cov.missing.len(),
            super::ranges_text(&cov.missing)
        );
        if shards.iter().all(|s| s.slice.n == n) {
            let mut ks: Vec<u32> = cov
                .missing
                .iter()
                .map(|&x| Slice::holding(x, total, n).k)
                .collect();
            ks.dedup();
            s.push_str(&format!(
                "; they belong to shard(s) {} of {n}",
                ks.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
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
    let mut costs: Vec<(usize, Cost)> = shards.iter().flat_map(|s| s.costs.clone()).collect();
    costs.sort_by_key(|c| c.0);
    let points = costs
        .into_iter()
        .map(|(index, cost)| {
            let (alpha, beta, gamma) = grid.params(index);
            Point {
                index,
                alpha,
                beta,
                gamma,
                cost,
            }
        })
        .collect();
    Ok((sweep, w, grid, points))
}

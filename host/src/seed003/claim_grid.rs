//! Seed 003's claims over a sensitivity grid: every claim of the claims file that reads the
//! rates experiment (3 nodes x 8 cores at the three rates, `results = "seed003/rates"`) is
//! evaluated again at each (tightness s_d, static power) cell of a grid experiment's own
//! outputs, with the claim's own `ours` and `test` ([`crate::claims`]); the cells go to
//! `claims_grid.csv` and one figure per claim, `claims/<id>.svg`, coloured where the claim
//! holds and where it fails.
//!
//! A claim is re-pointed at a cell by narrowing each of its values' rows: `summary.csv` rows
//! by the cell's `s_d` and `p_static_w` columns, `trials.csv` and `pba_choices.csv` rows by
//! the cell's point label (`point = "high"` becomes the label of the high rate at that cell).
//! A claim whose values read another folder (`dir`) or name nodes or cores is not mapped.
//! A cell whose rows are not in the outputs, or whose numbers the claim cannot take (a ratio
//! to zero), is written as `undefined` with the reason, not dropped.

use super::experiment::Seed003Experiment;
use crate::claims::{self, Claim, ClaimsFile, Status};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The claims a grid re-evaluates: those of this results folder.
pub const MAPPED_RESULTS: &str = "seed003/rates";

/// One claim at one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct GridCell {
    /// The value curves' tightness.
    pub s_d: f64,
    /// Static power of a used core, watts.
    pub p_static_w: f64,
    /// The claim's number there, when defined.
    pub ours: Option<f64>,
    /// Whether it holds; `None`: undefined (see `reason`).
    pub status: Option<Status>,
    /// Why the cell is undefined.
    pub reason: String,
}

/// One claim over the grid.
#[derive(Clone, Debug)]
pub struct GridClaim {
    /// The claim as the claims file has it.
    pub claim: Claim,
    /// Its cells, in (p_static_w, s_d) order of the grid.
    pub cells: Vec<GridCell>,
}

/// The distinct values of the grid's s_d and static power, in the experiment's order.
pub fn axes(exp: &Seed003Experiment) -> (Vec<f64>, Vec<f64>) {
    let (mut sds, mut ps) = (Vec::new(), Vec::new());
    for p in &exp.points {
        if !sds.contains(&p.s_d) {
            sds.push(p.s_d);
        }
        if !ps.contains(&p.p_static_w) {
            ps.push(p.p_static_w);
        }
    }
    (sds, ps)
}

/// `claim` narrowed to the cell (s_d, p) of `exp`'s outputs, read from the folder itself
/// (`results = "."`); `Err`: why it cannot be.
fn at_cell(exp: &Seed003Experiment, claim: &Claim, s_d: f64, p: f64) -> Result<Claim, String> {
    let label = |rate: &str| -> Result<String, String> {
        exp.points
            .iter()
            .position(|q| q.rate.name() == rate && q.s_d == s_d && q.p_static_w == p)
            .map(|i| exp.point_label(i))
            .ok_or_else(|| format!("no point of rate {rate:?} at s_d = {s_d}, {p} W"))
    };
    let narrow = |file: &str,
                  filter: &BTreeMap<String, toml::Value>|
     -> Result<BTreeMap<String, toml::Value>, String> {
        let mut f = filter.clone();
        for k in filter.keys() {
            if !matches!(k.as_str(), "rate" | "approach" | "point") {
                return Err(format!("reads rows by {k:?}, which the grid does not vary"));
            }
        }
        if file == "summary.csv" {
            f.insert("s_d".into(), toml::Value::Float(s_d));
            f.insert("p_static_w".into(), toml::Value::Float(p));
        } else if let Some(v) = filter.get("point") {
            let rate = v.as_str().ok_or("a point that is not text")?;
            f.insert("point".into(), toml::Value::String(label(rate)?));
        } else {
            return Err(format!("{file}: rows not chosen by point"));
        }
        Ok(f)
    };
    let mut c = claim.clone();
    c.results = ".".into();
    for spec in c.values.values_mut() {
        if spec.dir.is_some() {
            return Err("reads another folder".into());
        }
        spec.filter = narrow(&spec.file, &spec.filter)?;
        if let Some(than) = &spec.than {
            spec.than = Some(narrow(&spec.file, than)?);
        }
    }
    Ok(c)
}

/// Every claim of `file` with `results = `[`MAPPED_RESULTS`], evaluated at every cell of the
/// outputs in `out` (an output folder of `exp`).
pub fn evaluate(exp: &Seed003Experiment, file: &ClaimsFile, out: &Path) -> Vec<GridClaim> {
    let (sds, ps) = axes(exp);
    let root = [out.to_path_buf()];
    file.claims
        .iter()
        .filter(|c| c.results == MAPPED_RESULTS)
        .map(|claim| {
            let mut cells = Vec::new();
            for &p in &ps {
                for &s_d in &sds {
                    let mut cell = GridCell {
                        s_d,
                        p_static_w: p,
                        ours: None,
                        status: None,
                        reason: String::new(),
                    };
                    let one = at_cell(exp, claim, s_d, p).and_then(|c| {
                        let f = ClaimsFile {
                            claims: vec![c],
                            ..file.clone()
                        };
                        claims::evaluate(&[f], &root).map_err(|e| format!("{e:#}"))
                    });
                    match one.as_deref() {
                        Ok([e]) if e.status != Status::NotRun => {
                            cell.ours = e.ours.map(|o| o.value);
                            cell.status = Some(e.status);
                        }
                        Ok([e]) => {
                            cell.reason = format!("not in the outputs: {:?}", e.missing);
                        }
                        Ok(_) => cell.reason = "no evaluation".into(),
                        Err(m) => cell.reason = m.clone(),
                    }
                    cells.push(cell);
                }
            }
            GridClaim {
                claim: claim.clone(),
                cells,
            }
        })
        .collect()
}

/// `claims_grid.csv`: a row per claim and cell.
pub fn csv(grid: &[GridClaim]) -> String {
    let mut s = String::from("claim,s_d,p_static_w,status,ours,unit,reason\n");
    for g in grid {
        for c in &g.cells {
            let status = c.status.map_or("undefined", |st| st.word());
            let ours = c.ours.map_or(String::new(), |x| format!("{x:.6}"));
            let _ = writeln!(
                s,
                "{},{},{},{status},{ours},{},{}",
                g.claim.id,
                c.s_d,
                c.p_static_w,
                quote(&g.claim.unit),
                quote(&c.reason)
            );
        }
    }
    s
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The figure of one claim: a cell per (static power, tightness), green where the claim
/// holds, red where it fails, grey where undefined, each with our number; the scenario's
/// default inputs (`default`: s_d, static power) outlined.
pub fn svg(exp: &Seed003Experiment, g: &GridClaim, default: (f64, f64)) -> String {
    let (sds, ps) = axes(exp);
    let (cw, ch) = (120.0, 56.0);
    let (left, top) = (110.0, 100.0);
    let width = (left + cw * sds.len() as f64 + 40.0).max(760.0);
    let height = top + ch * ps.len() as f64 + 110.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans, Helvetica, Arial, \
         sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>"
    );
    let holds = g
        .cells
        .iter()
        .filter(|c| c.status == Some(Status::Holds))
        .count();
    let lines = [
        (
            24.0,
            15.0_f64,
            "bold",
            format!("{}: {}", g.claim.id, g.claim.statement),
        ),
        (
            44.0,
            12.0,
            "normal",
            format!(
                "{}, {} paired trials a cell; holds in {holds} of {} cells",
                exp.title,
                exp.trials,
                g.cells.len()
            ),
        ),
        (62.0, 11.0, "normal", format!("test: {}", g.claim.test)),
        (
            78.0,
            11.0,
            "normal",
            format!("a cell's number (ours): {}", g.claim.unit),
        ),
    ];
    for (y, size, weight, text) in lines {
        // ~0.64 em a character (bold at most): shrink a long line to fit.
        let fit = size.min((width - 20.0) / (0.64 * text.chars().count().max(1) as f64));
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{y:.1}\" font-size=\"{fit:.1}\" font-weight=\"{weight}\" \
             text-anchor=\"middle\">{}</text>",
            width / 2.0,
            esc(&text)
        );
    }
    for (ri, &p) in ps.iter().enumerate() {
        for (ci, &sd) in sds.iter().enumerate() {
            let x = left + cw * ci as f64;
            let y = top + ch * ri as f64;
            let cell = g.cells.iter().find(|c| c.s_d == sd && c.p_static_w == p);
            let (fill, word) = match cell.and_then(|c| c.status) {
                Some(Status::Holds) => ("#9fd89f", "holds"),
                Some(Status::Fails) => ("#f2a3a3", "fails"),
                _ => ("#d9d9d9", "undefined"),
            };
            let is_default = sd == default.0 && p == default.1;
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cw:.1}\" height=\"{ch:.1}\" \
                 fill=\"{fill}\" stroke=\"{}\" stroke-width=\"{}\"><title>{}</title></rect>",
                if is_default { "black" } else { "white" },
                if is_default { 3 } else { 2 },
                esc(&cell.map_or(String::new(), |c| c.reason.clone()))
            );
            let number = cell
                .and_then(|c| c.ours)
                .map_or(String::from("-"), claims::render::num);
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" font-weight=\"bold\" \
                 text-anchor=\"middle\">{word}</text>\n<text x=\"{:.1}\" y=\"{:.1}\" \
                 font-size=\"11\" text-anchor=\"middle\">{}</text>",
                x + cw / 2.0,
                y + 22.0,
                x + cw / 2.0,
                y + 40.0,
                esc(&number)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"end\">{p} W</text>",
            left - 8.0,
            top + ch * (ri as f64 + 0.5) + 4.0
        );
    }
    for (ci, sd) in sds.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">{sd}</text>",
            left + cw * (ci as f64 + 0.5),
            top + ch * ps.len() as f64 + 18.0
        );
    }
    let bottom = top + ch * ps.len() as f64;
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\">value-curve \
         tightness s_d (smaller is tighter)</text>\n<text x=\"18\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\" \
         transform=\"rotate(-90 18 {:.1})\">static power of a used core</text>\n<text \
         x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#444\" text-anchor=\"middle\">outlined: \
         the scenario's inputs; s_d scales the hard deadline's distance past the soft one (R5)\
         </text>",
        left + cw * sds.len() as f64 / 2.0,
        bottom + 42.0,
        top + ch * ps.len() as f64 / 2.0,
        top + ch * ps.len() as f64 / 2.0,
        width / 2.0,
        bottom + 66.0
    );
    s.push_str("</svg>\n");
    s
}

/// Evaluates `exp`'s claims file (if it names one) on its outputs in `out` and writes
/// `claims_grid.csv` and `claims/<id>.svg` there; returns the files written.
pub fn write(exp: &Seed003Experiment, out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let Some(path) = &exp.claims else {
        return Ok(Vec::new());
    };
    let file = claims::load(path)?;
    let grid = evaluate(exp, &file, out);
    let mut written = Vec::new();
    let p = out.join("claims_grid.csv");
    crate::output::write_atomic(&p, csv(&grid))?;
    written.push(p);
    let dir = out.join("claims");
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", dir.display()))?;
    let default = (exp.model.workload.s_d, exp.model.platform.p_static_w);
    for g in &grid {
        let p = dir.join(format!("{}.svg", g.claim.id));
        crate::output::write_atomic(&p, svg(exp, g, default))?;
        written.push(p);
    }
    Ok(written)
}

//! A resumable sweep: the grid cut into contiguous slices ([`step_count`]), each swept in
//! parallel and saved as it finishes ([`crate::experiment::saved`]), Ctrl-C asked between
//! slices, so an interrupted `kairos sweep-knapsack` loses at most the slice in progress and
//! `--resume` sweeps only the slices not saved. The points are then read back from every
//! slice's file (floats round-trip exactly), so a resumed sweep writes the reports of an
//! uninterrupted one to the byte.

use super::{sweep_points, Cost, Grid, Mode, Point, Workload};
use crate::experiment::saved::{Rows, Steps};
use crate::shard::Slice;

/// Slices of a sweep of `points` points: about a thousandth of the grid each (at most 1,000
/// files, and a Ctrl-C loses a thousandth of the work), one point each for a small grid.
pub fn step_count(points: usize) -> u32 {
    points.clamp(1, 1000) as u32
}

/// The columns of a saved point.
const COLUMNS: [&str; 6] = ["point", "wrt_us", "ef_a", "ef_b", "ef_c", "ef_d"];

/// What the sweep is, and how it saves, stops and tells its progress.
pub struct Saving<'a> {
    /// The slices' files ([`Steps::steps`] from [`step_count`]).
    pub steps: &'a Steps,
    /// Which slices are saved already.
    pub saved: &'a [bool],
    /// Asked before each slice: whether to stop (Ctrl-C).
    pub stop: &'a dyn Fn() -> bool,
}

/// Sweeps `grid` over `w` as [`super::sweep`] does, slice by slice, saving each; `None`:
/// stopped before every slice was swept (the slices swept are saved).
pub fn sweep_saved(
    w: &Workload,
    grid: &Grid,
    mode: Mode,
    share: f64,
    threads: Option<usize>,
    s: &Saving<'_>,
) -> anyhow::Result<Option<Vec<Point>>> {
    let total = grid.points() as u64;
    let n = s.steps.steps;
    for k in 0..n {
        if s.saved.get(k as usize).copied().unwrap_or(false) {
            continue;
        }
        if (s.stop)() {
            return Ok(None);
        }
        let range = Slice { k: k + 1, n }.range(total);
        let range = range.start as usize..range.end as usize;
        // The jobs of each point tell the command's progress ([`crate::progress::tick`]).
        let points = sweep_points(w, grid, mode, share, range, threads, &mut |_, _| {})?;
        save_slice(s.steps, k, &points)?;
    }
    let mut out = Vec::with_capacity(total as usize);
    for k in 0..n {
        let range = Slice { k: k + 1, n }.range(total);
        let rows = s.steps.read(k, &COLUMNS)?;
        if rows.len() as u64 != range.end - range.start {
            anyhow::bail!(
                "{}: {} points, expected {} (points {}..{})",
                s.steps.file(k).display(),
                rows.len(),
                range.end - range.start,
                range.start,
                range.end
            );
        }
        for (i, index) in (range.start as usize..range.end as usize).enumerate() {
            out.push(read_point(&rows, i, index, grid)?);
        }
    }
    Ok(Some(out))
}

/// Saves `points`, the whole of slice `k` (0-based) of the grid, in `steps`: as
/// [`sweep_saved`] does each slice it sweeps, and `kairos sweep-knapsack` the point it times
/// for its estimate when that point is a slice.
pub fn save_slice(steps: &Steps, k: u32, points: &[Point]) -> anyhow::Result<()> {
    let rows: Vec<Vec<String>> = points
        .iter()
        .map(|p| {
            let mut f = vec![p.index.to_string(), p.cost.wrt.to_string()];
            f.extend(
                p.cost
                    .ef
                    .iter()
                    .map(|e| e.map_or("none".to_string(), |x| format!("{x:?}"))),
            );
            f
        })
        .collect();
    steps.write(k, &COLUMNS, &rows)
}

/// Row `i` of a saved slice, which must be grid point `index`.
fn read_point(rows: &Rows, i: usize, index: usize, grid: &Grid) -> anyhow::Result<Point> {
    let got: usize = rows.get(i, 0)?;
    if got != index {
        return Err(rows.error(i, format!("point {got}, expected point {index}")));
    }
    let mut ef = [None; 4];
    for (c, e) in ef.iter_mut().enumerate() {
        if rows.text(i, 2 + c) != "none" {
            *e = Some(rows.finite(i, 2 + c)?);
        }
    }
    let (alpha, beta, gamma) = grid.params(index);
    Ok(Point {
        index,
        alpha,
        beta,
        gamma,
        cost: Cost {
            wrt: rows.get(i, 1)?,
            ef,
        },
    })
}

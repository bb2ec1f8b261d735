//! The allocation behind each front point, written beside `fronts.csv` as
//! `allocations.csv`: for every point of the last checkpoint's fronts, one row per task with
//! its machine, its place in that machine's run order and (Chapter 7) its P-state, so a
//! front point can be acted on or checked by another tool against the exported instance
//! (`docs/formats.md`, "Pareto allocations").
//!
//! A chromosome orders a machine's tasks by key, ties by task index (`problem`'s module
//! notes); the file gives that order as a position (0 runs first), so a reader needs
//! no tie rule. Only the last checkpoint is written: a front of 100 points over thousands of
//! tasks is already hundreds of thousands of rows per population, and the earlier
//! checkpoints' points are superseded (a run with `--checkpoints` stopping there writes
//! theirs). Rows follow `fronts.csv`'s order (population, then point), then task: the same
//! bytes for the same file and seed, whatever the thread count.

use crate::seed002::pareto::stochastic::SGene;
use crate::seed002::pareto::Gene;
use anyhow::Context;
use std::fmt::Write;
use std::path::Path;

/// A gene as the file gives it: its machine, order key and P-state (None: the chapter has
/// none).
pub trait Placed {
    /// Whether the chapter's genes carry a P-state.
    const PSTATES: bool;
    /// The machine.
    fn machine(&self) -> u16;
    /// The order key (lower runs first on the machine, ties by task).
    fn key(&self) -> u32;
    /// The P-state, where the chapter has them.
    fn pstate(&self) -> Option<u8>;
}

impl Placed for Gene {
    const PSTATES: bool = false;
    fn machine(&self) -> u16 {
        self.machine
    }
    fn key(&self) -> u32 {
        self.key
    }
    fn pstate(&self) -> Option<u8> {
        None
    }
}

impl Placed for SGene {
    const PSTATES: bool = true;
    fn machine(&self) -> u16 {
        self.machine
    }
    fn key(&self) -> u32 {
        self.key
    }
    fn pstate(&self) -> Option<u8> {
        Some(self.pstate)
    }
}

/// Each task's position in its machine's run order (0 first) for tasks on `machines[t]`
/// with order keys `keys[t]`: by key, ties by task index.
pub fn run_order(machines: &[u16], keys: &[u32]) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..machines.len() as u32).collect();
    idx.sort_unstable_by_key(|&t| (machines[t as usize], keys[t as usize], t));
    let mut order = vec![0u32; machines.len()];
    let mut at = 0u32;
    for (i, &t) in idx.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| machines[idx[j] as usize]);
        at = if prev == Some(machines[t as usize]) {
            at + 1
        } else {
            0
        };
        order[t as usize] = at;
    }
    order
}

/// One front's chromosomes for [`allocations_csv`]: its label as a CSV field (population or
/// score, quoted as `fronts.csv` quotes it), its checkpoint and its points' chromosomes.
pub struct FrontGenes<'a, G> {
    /// The population or score, as a CSV field.
    pub label: String,
    /// The checkpoint.
    pub generation: u64,
    /// A chromosome per point, in `fronts.csv`'s order.
    pub chromosomes: &'a [Vec<G>],
}

/// `allocations.csv` of `fronts` (the last checkpoint's, in `fronts.csv`'s order):
/// `LABEL,generation,point,task,machine,order` with `label_column` (`population` or `score`)
/// as LABEL, and `pstate` before `order` where the genes have P-states.
pub fn allocations_csv<'a, G: Placed + 'a>(
    label_column: &str,
    fronts: impl IntoIterator<Item = FrontGenes<'a, G>>,
) -> String {
    let p = if G::PSTATES { "pstate," } else { "" };
    let mut s = format!("{label_column},generation,point,task,machine,{p}order\n");
    for f in fronts {
        for (p, c) in f.chromosomes.iter().enumerate() {
            let (machines, keys): (Vec<u16>, Vec<u32>) =
                c.iter().map(|g| (g.machine(), g.key())).unzip();
            let order = run_order(&machines, &keys);
            for (t, (g, o)) in c.iter().zip(&order).enumerate() {
                let _ = write!(s, "{},{},{p},{t},{},", f.label, f.generation, g.machine());
                if let Some(k) = g.pstate() {
                    let _ = write!(s, "{k},");
                }
                let _ = writeln!(s, "{o}");
            }
        }
    }
    s
}

/// One task's place in an allocation: its machine, P-state (0 where there are none) and
/// place in the machine's run order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The machine.
    pub machine: usize,
    /// The P-state.
    pub pstate: usize,
    /// Its place in the machine's order (0 first).
    pub order: u32,
}

/// One front point's allocation read back from `allocations.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct PointAllocation {
    /// Its population (Chapters 5-6) or score (Chapter 7), as `fronts.csv` names it.
    pub label: String,
    /// Its checkpoint.
    pub generation: u64,
    /// Its index in its front.
    pub point: usize,
    /// Each task's placement, by task.
    pub placements: Vec<Placement>,
}

/// Reads `allocations.csv` (either form) at `path`: its points in the file's order, each
/// with every task placed once, in task order. Errors name the line and the column.
pub fn read_allocations(path: &Path) -> anyhow::Result<Vec<PointAllocation>> {
    let shown = path.display();
    let mut r = csv::Reader::from_path(path).with_context(|| format!("{shown}: cannot read"))?;
    let header: Vec<String> = r
        .headers()
        .with_context(|| format!("{shown}: line 1"))?
        .iter()
        .map(str::to_owned)
        .collect();
    let stochastic = match header.join(",").as_str() {
        "population,generation,point,task,machine,order" => false,
        "score,generation,point,task,machine,pstate,order" => true,
        h => anyhow::bail!(
            "{shown}: line 1: header {h:?} is not allocations.csv's (docs/formats.md)"
        ),
    };
    let mut out: Vec<PointAllocation> = Vec::new();
    for (n, rec) in r.records().enumerate() {
        let line = n + 2;
        let rec = rec.with_context(|| format!("{shown}: line {line}"))?;
        let num = |col: usize| -> anyhow::Result<u64> {
            let v = rec.get(col).unwrap_or("");
            v.parse().map_err(|_| {
                anyhow::anyhow!(
                    "{shown}: line {line}, {}: {v:?} is not a whole number",
                    header[col]
                )
            })
        };
        let (generation, point, task, machine) = (num(1)?, num(2)? as usize, num(3)?, num(4)?);
        let (pstate, order) = if stochastic {
            (num(5)?, num(6)?)
        } else {
            (0, num(5)?)
        };
        let label = rec.get(0).unwrap_or("").to_owned();
        let same = |a: &PointAllocation| {
            a.label == label && a.generation == generation && a.point == point
        };
        if !out.last().is_some_and(same) {
            anyhow::ensure!(
                !out.iter().any(same),
                "{shown}: line {line}: point ({label}, {generation}, {point}) appears twice, \
                 apart"
            );
            out.push(PointAllocation {
                label,
                generation,
                point,
                placements: Vec::new(),
            });
        }
        let a = out.last_mut().expect("pushed");
        anyhow::ensure!(
            task == a.placements.len() as u64,
            "{shown}: line {line}, task: {task} where task {} comes next",
            a.placements.len()
        );
        let too_big =
            |col: usize| anyhow::anyhow!("{shown}: line {line}, {}: too large", header[col]);
        a.placements.push(Placement {
            machine: usize::try_from(machine).map_err(|_| too_big(4))?,
            pstate: usize::try_from(pstate).map_err(|_| too_big(5))?,
            order: u32::try_from(order).map_err(|_| too_big(if stochastic { 6 } else { 5 }))?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_order_is_by_key_then_task_on_each_machine() {
        // Machine 0: tasks 0 (key 5), 2 (key 1), 3 (key 5); machine 1: task 1, task 4.
        let machines = [0, 1, 0, 0, 1];
        let keys = [5, 9, 1, 5, 0];
        assert_eq!(run_order(&machines, &keys), vec![1, 1, 0, 2, 0]);
        assert!(run_order(&[], &[]).is_empty());
    }
}

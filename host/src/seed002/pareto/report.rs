//! What a Pareto experiment writes: every checkpoint's fronts as CSV, the dominance checks
//! between populations (coverage: the share of one front's points that a point of another
//! strictly dominates), the most utility per energy on each front (Fig. 5.5), per-machine
//! finish times and energies of five allocations along a makespan-energy front (Figs.
//! 6.4-6.8), each last-checkpoint point's allocation (`allocations.csv`,
//! [`crate::seed002::pareto::allocation`]), and SVG plots in the dissertation's form (one
//! chart per checkpoint with every population, one per population with every checkpoint).
//!
//! `fronts.csv` holds only what the seed decides, so it is byte-identical between runs and
//! thread counts; wall times go to `timings.csv`.

use crate::nsga2::{dominates, Point};
use crate::report::svg::{scatter, scatter_zoomed, ScatterSeries};
use crate::seed002::pareto::allocation::{allocations_csv, FrontGenes};
use crate::seed002::pareto::experiment::{Front, ParetoExperiment};
use crate::seed002::pareto::{Instance, Objective};
use std::fmt::Write;
use std::path::Path;

/// The share of `b`'s points strictly dominated by some point of `a` (Zitzler's C metric
/// with strict dominance): 1 means `a` dominates all of `b`.
pub fn coverage(a: &[Point], b: &[Point]) -> f64 {
    if b.is_empty() {
        return 0.0;
    }
    let n = b
        .iter()
        .filter(|q| a.iter().any(|p| dominates(p, q)))
        .count();
    n as f64 / b.len() as f64
}

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The fronts: one row per point.
pub fn fronts_csv(exp: &ParetoExperiment, inst: &Instance, fronts: &[Front]) -> String {
    let mut s = String::new();
    let (x, y) = match inst.objective {
        Objective::UtilityEnergy => ("utility", "energy_j"),
        Objective::MakespanEnergy => ("makespan_s", "energy_j"),
    };
    let _ = writeln!(s, "population,generation,point,{x},{y}");
    for f in fronts {
        for (i, p) in f.points.iter().enumerate() {
            let first = match inst.objective {
                Objective::UtilityEnergy => -p[0],
                Objective::MakespanEnergy => p[0],
            };
            let _ = writeln!(
                s,
                "{},{},{i},{first:.6},{:.3}",
                field(&exp.populations[f.population].name),
                f.generation,
                p[1]
            );
        }
    }
    s
}

/// Coverage of every ordered pair of populations at every checkpoint.
pub fn coverage_csv(exp: &ParetoExperiment, fronts: &[Front]) -> String {
    let mut s = String::from("generation,a,b,coverage_a_over_b\n");
    for &g in &exp.checkpoints {
        let at: Vec<&Front> = fronts.iter().filter(|f| f.generation == g).collect();
        for a in &at {
            for b in &at {
                if a.population != b.population {
                    let _ = writeln!(
                        s,
                        "{g},{},{},{:.4}",
                        field(&exp.populations[a.population].name),
                        field(&exp.populations[b.population].name),
                        coverage(&a.points, &b.points)
                    );
                }
            }
        }
    }
    s
}

/// The point of most utility per joule of `front` (utility-energy fronts), as (utility,
/// energy J).
pub fn max_upe(front: &Front) -> Option<(f64, f64)> {
    front
        .points
        .iter()
        .map(|p| (-p[0], p[1]))
        .filter(|&(_, e)| e > 0.0)
        .max_by(|a, b| (a.0 / a.1).total_cmp(&(b.0 / b.1)))
}

/// Fig. 5.5 B (`by_energy` false) or C (true): utility per joule against utility (or
/// energy, MJ) along the last front of the "max UPE" population (the first population when
/// none has that name), its peak drawn apart: the utility or energy at which the front
/// earns the most per joule. None for a makespan-energy run.
pub fn upe_svg(
    exp: &ParetoExperiment,
    inst: &Instance,
    fronts: &[Front],
    by_energy: bool,
) -> Option<String> {
    if inst.objective != Objective::UtilityEnergy {
        return None;
    }
    let p = exp
        .populations
        .iter()
        .position(|q| q.name == "max UPE")
        .unwrap_or(0);
    let f = fronts
        .iter()
        .filter(|f| f.population == p)
        .max_by_key(|f| f.generation)?;
    let (peak_u, peak_e) = max_upe(f)?;
    let at = |u: f64, e: f64| {
        if by_energy {
            (e / 1e6, u / e)
        } else {
            (u, u / e)
        }
    };
    let line: Vec<(f64, f64)> = f
        .points
        .iter()
        .map(|q| (-q[0], q[1]))
        .filter(|&(_, e)| e > 0.0)
        .map(|(u, e)| at(u, e))
        .collect();
    let series = [
        ScatterSeries {
            label: format!("{}, generation {}", exp.populations[p].name, f.generation),
            points: Vec::new(),
            front: line,
        },
        ScatterSeries {
            label: if by_energy {
                format!("peak: {:.3} MJ", peak_e / 1e6)
            } else {
                format!("peak: utility {peak_u:.1}")
            },
            points: vec![at(peak_u, peak_e)],
            front: Vec::new(),
        },
    ];
    let (fig, x) = if by_energy {
        ("Fig. 5.5 C", "energy consumed (MJ)")
    } else {
        ("Fig. 5.5 B", "utility earned")
    };
    Some(scatter_zoomed(
        &format!("{}: {fig}, utility per joule along the front", exp.title),
        &inst.tables.source,
        x,
        "utility per joule",
        &series,
    ))
}

/// Five allocations along a makespan-energy front, A (min energy) to E (min makespan):
/// the two ends, the middle and the quarter points by position on the front.
pub fn allocations(front: &Front) -> Vec<(char, usize)> {
    let n = front.points.len();
    if n == 0 {
        return Vec::new();
    }
    // Points are sorted by makespan ascending: E is first, A last.
    ['E', 'D', 'C', 'B', 'A']
        .into_iter()
        .enumerate()
        .map(|(q, name)| (name, (q * (n - 1) + 2) / 4))
        .collect()
}

/// Per machine type (1-based, as `machines.csv`): the share of the run's tasks for which
/// it is the least-energy type (least EEC over the instance's machine types, ties to the
/// lower type): the energy the minimum-energy allocation would put on each type if every
/// task ran where it costs least, read off the tables alone (the test of investigation 2's
/// type shares, which follow the tables).
pub fn least_energy_csv(inst: &Instance) -> String {
    let types = inst
        .machine_type
        .iter()
        .map(|&t| t as usize + 1)
        .max()
        .unwrap_or(0);
    let mut count = vec![0usize; types];
    for t in 0..inst.tasks.len() {
        let best = inst
            .eligible(t)
            .iter()
            .map(|&m| (inst.eec(t, m), inst.machine_type[m as usize]))
            .min();
        if let Some((_, ty)) = best {
            count[ty as usize] += 1;
        }
    }
    let n = inst.tasks.len().max(1) as f64;
    let mut s = String::from("type,tasks_least_energy,share_least_energy\n");
    for (ty, &c) in count.iter().enumerate() {
        let _ = writeln!(s, "{},{c},{:.4}", ty + 1, c as f64 / n);
    }
    s
}

/// Per machine of each allocation of each population's last front: type, finish time and
/// energy, and the same sorted (the dissertation's Figs. 6.4 / 6.5 plot them sorted).
pub fn machines_csv(exp: &ParetoExperiment, inst: &Instance, fronts: &[Front]) -> String {
    let mut s = String::from(
        "population,allocation,makespan_s,energy_j,machine,type,finish_s,machine_energy_j\n",
    );
    let last = *exp.checkpoints.last().expect("checked");
    for f in fronts.iter().filter(|f| f.generation == last) {
        for (name, i) in allocations(f) {
            let m = inst.measure(&f.chromosomes[i]);
            for k in 0..inst.machines() {
                let _ = writeln!(
                    s,
                    "{},{name},{:.3},{:.3},{k},{},{:.3},{:.3}",
                    field(&exp.populations[f.population].name),
                    m.makespan_s,
                    m.energy_j,
                    inst.machine_type[k] + 1,
                    m.machine_busy_s[k],
                    m.machine_energy_j[k]
                );
            }
        }
    }
    s
}

fn xy(inst: &Instance, p: &Point) -> (f64, f64) {
    match inst.objective {
        // Energy (MJ) across, utility up: the dissertation's Chapter 5 form.
        Objective::UtilityEnergy => (p[1] / 1e6, -p[0]),
        // Makespan (s) across, energy (MJ) up: Chapter 6's form.
        Objective::MakespanEnergy => (p[0], p[1] / 1e6),
    }
}

fn labels(inst: &Instance) -> (&'static str, &'static str) {
    match inst.objective {
        Objective::UtilityEnergy => ("energy consumed (MJ)", "utility earned"),
        Objective::MakespanEnergy => ("makespan (s)", "energy consumed (MJ)"),
    }
}

/// One chart per checkpoint: every population's front.
pub fn checkpoint_svg(exp: &ParetoExperiment, inst: &Instance, fronts: &[Front], g: u64) -> String {
    let series: Vec<ScatterSeries> = fronts
        .iter()
        .filter(|f| f.generation == g)
        .map(|f| ScatterSeries {
            label: exp.populations[f.population].name.clone(),
            points: Vec::new(),
            front: f.points.iter().map(|p| xy(inst, p)).collect(),
        })
        .collect();
    let (x, y) = labels(inst);
    scatter_zoomed(
        &format!("{}: generation {g}", exp.title),
        &inst.tables.source,
        x,
        y,
        &series,
    )
}

/// One chart per population: its front at every checkpoint.
pub fn population_svg(
    exp: &ParetoExperiment,
    inst: &Instance,
    fronts: &[Front],
    p: usize,
) -> String {
    let series: Vec<ScatterSeries> = fronts
        .iter()
        .filter(|f| f.population == p)
        .map(|f| ScatterSeries {
            label: format!("generation {}", f.generation),
            points: Vec::new(),
            front: f.points.iter().map(|p| xy(inst, p)).collect(),
        })
        .collect();
    let (x, y) = labels(inst);
    scatter_zoomed(
        &format!("{}: {}", exp.title, exp.populations[p].name),
        &inst.tables.source,
        x,
        y,
        &series,
    )
}

/// Figs. 6.4 / 6.5: each allocation's per-machine finish times (or energies), sorted, of
/// the last population's last front.
pub fn machines_svg(
    exp: &ParetoExperiment,
    inst: &Instance,
    fronts: &[Front],
    energy: bool,
) -> String {
    let last = *exp.checkpoints.last().expect("checked");
    let Some(f) = fronts.iter().rev().find(|f| f.generation == last) else {
        return String::new();
    };
    let series: Vec<ScatterSeries> = allocations(f)
        .into_iter()
        .map(|(name, i)| {
            let m = inst.measure(&f.chromosomes[i]);
            let mut v = if energy {
                m.machine_energy_j
                    .iter()
                    .map(|e| e / 1e3)
                    .collect::<Vec<_>>()
            } else {
                m.machine_busy_s.clone()
            };
            v.sort_by(f64::total_cmp);
            ScatterSeries {
                label: format!("{name}: {:.0} s, {:.3} MJ", m.makespan_s, m.energy_j / 1e6),
                points: Vec::new(),
                front: v
                    .into_iter()
                    .enumerate()
                    .map(|(k, y)| (k as f64, y))
                    .collect(),
            }
        })
        .collect();
    scatter(
        &format!(
            "{}: per-machine {} ({})",
            exp.title,
            if energy { "energy" } else { "finish time" },
            exp.populations[f.population].name
        ),
        "machines sorted by the value",
        "machine (sorted)",
        if energy {
            "energy (kJ)"
        } else {
            "finish time (s)"
        },
        &series,
    )
}

/// A short text summary: per population and checkpoint, the front's size and extremes,
/// and the most utility per energy.
pub fn text_table(exp: &ParetoExperiment, inst: &Instance, fronts: &[Front]) -> String {
    let mut s = String::new();
    let ue = inst.objective == Objective::UtilityEnergy;
    let _ = writeln!(
        s,
        "{:<24} {:>10} {:>6} {:>14} {:>14} {:>14} {:>14}{}",
        "population",
        "generation",
        "points",
        if ue { "max utility" } else { "min makespan" },
        "(its energy J)",
        "min energy J",
        if ue {
            "(its utility)"
        } else {
            "(its makespan)"
        },
        if ue { "      max U/E (U, E J)" } else { "" }
    );
    for f in fronts {
        let (Some(first), Some(last)) = (f.points.first(), f.points.last()) else {
            continue;
        };
        let sign = if ue { -1.0 } else { 1.0 };
        let _ = write!(
            s,
            "{:<24} {:>10} {:>6} {:>14.3} {:>14.1} {:>14.1} {:>14.3}",
            exp.populations[f.population].name,
            f.generation,
            f.points.len(),
            sign * first[0],
            first[1],
            last[1],
            sign * last[0]
        );
        if let Some((u, e)) = max_upe(f).filter(|_| ue) {
            let _ = write!(s, "      {:.3e} ({u:.2}, {e:.0})", u / e);
        }
        s.push('\n');
    }
    s
}

/// Each front's wall time since its population started (not part of any digest).
fn timings_csv(exp: &ParetoExperiment, fronts: &[Front]) -> String {
    let mut t = String::from("population,generation,elapsed_s\n");
    for f in fronts {
        let _ = writeln!(
            t,
            "{},{},{:.3}",
            field(&exp.populations[f.population].name),
            f.generation,
            f.elapsed.as_secs_f64()
        );
    }
    t
}

/// Writes the fronts reached so far to `dir` during a run, each file whole: the chart of
/// each checkpoint some population has reached and of each population that has reached
/// one, `timings.csv`, and last `fronts.csv`, so the charts and timings on disk are at
/// least as new as the fronts. The final [`write_all`] writes the same files over them
/// (with every population on each checkpoint's chart).
pub fn write_reached(
    dir: &Path,
    exp: &ParetoExperiment,
    inst: &Instance,
    fronts: &[Front],
) -> anyhow::Result<()> {
    let write = |name: &str, text: &str| crate::output::write_atomic(&dir.join(name), text);
    for &g in &exp.checkpoints {
        if fronts.iter().any(|f| f.generation == g) {
            write(
                &format!("fronts-gen{g}.svg"),
                &checkpoint_svg(exp, inst, fronts, g),
            )?;
        }
    }
    for p in 0..exp.populations.len() {
        if fronts.iter().any(|f| f.population == p) {
            write(
                &format!("fronts-pop{p}.svg"),
                &population_svg(exp, inst, fronts, p),
            )?;
        }
    }
    write("timings.csv", &timings_csv(exp, fronts))?;
    write("fronts.csv", &fronts_csv(exp, inst, fronts))
}

/// Writes every report of `fronts` to `dir`, each file whole (written beside and renamed),
/// `coverage.csv` last.
pub fn write_all(
    dir: &Path,
    exp: &ParetoExperiment,
    inst: &Instance,
    fronts: &[Front],
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let write = |name: &str, text: &str| crate::output::write_atomic(&dir.join(name), text);
    write("fronts.csv", &fronts_csv(exp, inst, fronts))?;
    write("timings.csv", &timings_csv(exp, fronts))?;
    for &g in &exp.checkpoints {
        write(
            &format!("fronts-gen{g}.svg"),
            &checkpoint_svg(exp, inst, fronts, g),
        )?;
    }
    for p in 0..exp.populations.len() {
        write(
            &format!("fronts-pop{p}.svg"),
            &population_svg(exp, inst, fronts, p),
        )?;
    }
    for (name, by_energy) in [("upe-by-utility.svg", false), ("upe-by-energy.svg", true)] {
        if let Some(svg) = upe_svg(exp, inst, fronts, by_energy) {
            write(name, &svg)?;
        }
    }
    if inst.objective == Objective::MakespanEnergy {
        write("machines.csv", &machines_csv(exp, inst, fronts))?;
        write("least-energy.csv", &least_energy_csv(inst))?;
        write(
            "machines-finish.svg",
            &machines_svg(exp, inst, fronts, false),
        )?;
        write(
            "machines-energy.svg",
            &machines_svg(exp, inst, fronts, true),
        )?;
    }
    write("summary.txt", &text_table(exp, inst, fronts))?;
    let last = *exp.checkpoints.last().expect("checked");
    write(
        "allocations.csv",
        &allocations_csv(
            "population",
            fronts
                .iter()
                .filter(|f| f.generation == last)
                .map(|f| FrontGenes {
                    label: field(&exp.populations[f.population].name),
                    generation: f.generation,
                    chromosomes: &f.chromosomes,
                }),
        ),
    )?;
    // Last: its presence marks the folder as holding a whole run's reports.
    write("coverage.csv", &coverage_csv(exp, fronts))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn front(points: Vec<Point>) -> Front {
        Front {
            population: 0,
            generation: 0,
            chromosomes: vec![Vec::new(); points.len()],
            points,
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn coverage_by_hand() {
        let a = [[1.0, 1.0], [3.0, 0.0]];
        let b = [[2.0, 2.0], [1.0, 1.0], [0.0, 5.0], [4.0, 0.0]];
        // (2, 2) and (4, 0) are strictly dominated; (1, 1) only equalled; (0, 5) not.
        assert_eq!(coverage(&a, &b), 0.5);
        assert_eq!(coverage(&b, &a), 0.0);
        assert_eq!(coverage(&a, &[]), 0.0);
    }

    #[test]
    fn allocations_run_from_min_makespan_to_min_energy() {
        let f = front((0..9).map(|i| [i as f64, 9.0 - i as f64]).collect());
        let a = allocations(&f);
        assert_eq!(a, vec![('E', 0), ('D', 2), ('C', 4), ('B', 6), ('A', 8)]);
        assert_eq!(allocations(&front(vec![[1.0, 1.0]])).len(), 5);
        assert!(allocations(&front(Vec::new())).is_empty());
    }

    #[test]
    fn max_upe_picks_the_best_ratio() {
        // Utility is stored negated: (10 / 5) beats (12 / 8) and (3 / 1) beats both.
        let f = front(vec![[-12.0, 8.0], [-10.0, 5.0], [-3.0, 1.0]]);
        assert_eq!(max_upe(&f), Some((3.0, 1.0)));
    }
}

//! The generated instance of a Pareto experiment as a file another tool can read
//! (`kairos pareto FILE --export-instance PATH`): JSON with a format name and version, the
//! machines, the ETC/EPC tables and the integer times and energies every evaluation uses,
//! the utility classes and each task's type, arrival and utility curve, and for Chapter 7
//! the P-states' times, powers, execution-time distributions and common random numbers.
//! `docs/formats.md` ("Pareto instances") lists every key.
//!
//! It also owns reading such a file back and [`evaluate`]: the objectives of an allocation
//! (`allocations.csv`'s rows for one point) computed from the file alone, the paper's
//! equations written out plainly (Eq. 12-14 for a trace, Eq. 16-18 for a bag, §7.3's
//! dropping and percentiles for Chapter 7) with none of the search's memo or fast paths, so
//! that it checks them. `scripts/pareto_evaluate.py` does the same in Python.
//!
//! JSON through `serde_json` (a dependency already): numbers are written in their shortest
//! round-trip form, so a reader gets the very `f64`s; "cannot run" is `null` (JSON has no
//! infinity).

use crate::seed002::generate::{etc_table, SPECIAL_MACHINE_TYPES};
use crate::seed002::pareto::allocation::Placement;
use crate::seed002::pareto::experiment::ParetoExperiment;
use crate::seed002::pareto::stochastic::{Score, Stochastic, BINS, PSTATES, THETA};
use crate::seed002::pareto::stochastic_run::StochasticExperiment;
use crate::seed002::pareto::{Instance, Objective};
use anyhow::Context;
use kairos_core::units::{Micros, Utility};
use kairos_core::utility::{ClassInterval, UtilityClass, UtilityClasses, UtilityCurve};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format's name, the file's `format`.
pub const FORMAT: &str = "kairos-pareto-instance";
/// The version this code writes and reads.
pub const VERSION: u32 = 1;

/// An exported instance (`docs/formats.md`, "Pareto instances").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceFile {
    /// [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The experiment's name.
    pub experiment: String,
    /// `utility-energy` (Chapter 5), `makespan-energy` (Chapter 6) or
    /// `stochastic-utility-energy` (Chapter 7).
    pub objective: String,
    /// The instance seed.
    pub seed: u64,
    /// Where the tables' numbers came from.
    pub source: String,
    /// Task types (the tables' rows).
    pub task_types: usize,
    /// Machine types (the tables' columns).
    pub machine_types: usize,
    /// How many of the first machine types are special-purpose.
    pub special_types: usize,
    /// Each machine's type (0-based column).
    pub machines: Vec<usize>,
    /// ETC per task type and machine type, seconds, as the data set gives it (Chapter 7:
    /// P-state 0's); `null`: cannot run.
    pub etc_s: Vec<Vec<Option<f64>>>,
    /// EPC, watts (Chapter 7: `null`, see `stochastic`).
    pub epc_w: Vec<Vec<Option<f64>>>,
    /// Chapters 5-6: ETC in integer microseconds (`etc_s` x 1e6 rounded, at least 1), the
    /// times every evaluation adds; `null`: cannot run.
    pub etc_us: Option<Vec<Vec<Option<u64>>>>,
    /// Chapters 5-6: EEC = ETC x EPC in integer millijoules (`etc_us` x `epc_w` / 1000
    /// rounded half away from zero).
    pub eec_mj: Option<Vec<Vec<Option<u64>>>>,
    /// The utility classes the curves index: each a list of intervals.
    pub utility_classes: Vec<Vec<IntervalFile>>,
    /// The tasks, in arrival order (the allocations' task numbers).
    pub tasks: Vec<TaskFile>,
    /// Chapter 7's P-states and distributions.
    pub stochastic: Option<StochasticFile>,
}

/// One interval of a utility class (seed 002 Eq. 1, Table C.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntervalFile {
    /// Its start after the first, flat interval, microseconds.
    pub offset_us: u64,
    /// Psi(k): the share of the priority at its start.
    pub psi: f64,
    /// delta(k): its decay factor.
    pub delta: f64,
}

/// One task.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskFile {
    /// Its task type (a row of the tables).
    #[serde(rename = "type")]
    pub ty: usize,
    /// Arrival, microseconds.
    pub arrival_us: u64,
    /// Its utility function (Eq. 1): priority pi(p), urgency rho(r) per minute, the first
    /// interval F (µs) and the class.
    pub priority: f64,
    /// rho(r), per minute.
    pub urgency_per_min: f64,
    /// F, microseconds.
    pub first_us: u64,
    /// Index into `utility_classes`.
    pub class: usize,
}

/// Chapter 7: per (task type, machine type, P-state) the time and energy distributions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StochasticFile {
    /// P-states (0 the fastest).
    pub pstates: usize,
    /// The dropping threshold: a task whose utility at its start plus its mean time is below
    /// it is dropped and costs nothing.
    pub theta: f64,
    /// Equal-probability bins of each distribution.
    pub bins: usize,
    /// The experiment's scores (`expected`, `pX`).
    pub scores: Vec<String>,
    /// Samples per probabilistic evaluation (N).
    pub samples: usize,
    /// `[type][machine type][P-state]`: APC, watts (`null`: cannot run).
    pub apc_w: Vec<Vec<Vec<Option<f64>>>>,
    /// Mean time, µs (the mean of the bins, rounded down).
    pub mean_us: Vec<Vec<Vec<Option<u64>>>>,
    /// Mean energy, mJ (the mean of the bins' energies, rounded down).
    pub mean_mj: Vec<Vec<Vec<Option<u64>>>>,
    /// The bins' times, µs.
    pub bins_us: Vec<Vec<Vec<Option<Vec<u64>>>>>,
    /// The bins' energies, mJ (time x APC / 1000, rounded half away from zero).
    pub bins_mj: Vec<Vec<Vec<Option<Vec<u64>>>>>,
    /// `[sample][task]`: the bin each task's time comes from in each sample (the common
    /// random numbers of the `pX` scores).
    pub crn: Vec<Vec<u8>>,
}

/// Builds the instance of the Pareto experiment file at `experiment` (Chapters 5-7) and
/// writes it to `out`; returns what it wrote.
pub fn export(experiment: &Path, out: &Path) -> anyhow::Result<InstanceFile> {
    let f = if crate::seed002::pareto::stochastic_run::is_stochastic(experiment) {
        InstanceFile::from_stochastic(&StochasticExperiment::load(experiment)?)?
    } else {
        let exp = ParetoExperiment::load(experiment)?;
        let (_, inst) = exp.instance()?;
        InstanceFile::from_instance(&exp, &inst)?
    };
    f.write(out)?;
    Ok(f)
}

fn classes_file(classes: &UtilityClasses) -> Vec<Vec<IntervalFile>> {
    classes
        .classes
        .iter()
        .map(|c| {
            c.intervals
                .iter()
                .map(|iv| IntervalFile {
                    offset_us: iv.offset.0,
                    psi: iv.psi,
                    delta: iv.delta,
                })
                .collect()
        })
        .collect()
}

fn tasks_file(tasks: &[crate::seed002::pareto::Task]) -> anyhow::Result<Vec<TaskFile>> {
    tasks
        .iter()
        .enumerate()
        .map(|(i, t)| match t.curve {
            UtilityCurve::PiecewiseExp {
                priority,
                urgency_per_min,
                first,
                class,
            } => Ok(TaskFile {
                ty: t.ty as usize,
                arrival_us: t.arrival.0,
                priority,
                urgency_per_min,
                first_us: first.0,
                class: class as usize,
            }),
            UtilityCurve::Linear { .. } => {
                anyhow::bail!("task {i}: a linear utility curve has no place in this format")
            }
        })
        .collect()
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl InstanceFile {
    /// The instance of a Chapter 5-6 experiment.
    pub fn from_instance(exp: &ParetoExperiment, inst: &Instance) -> anyhow::Result<InstanceFile> {
        let t = &inst.tables;
        let grid = |f: &dyn Fn(usize, usize) -> f64| -> Vec<Vec<Option<f64>>> {
            (0..t.task_types)
                .map(|i| (0..t.machine_types).map(|j| finite(f(i, j))).collect())
                .collect()
        };
        let ints = |f: &dyn Fn(Micros, u64) -> u64| -> Vec<Vec<Option<u64>>> {
            (0..t.task_types)
                .map(|i| {
                    (0..t.machine_types)
                        .map(|j| {
                            let (etc, eec) = inst.type_cost(i, j);
                            (etc != Micros::MAX).then(|| f(etc, eec))
                        })
                        .collect()
                })
                .collect()
        };
        Ok(InstanceFile {
            format: FORMAT.into(),
            version: VERSION,
            experiment: exp.name.clone(),
            objective: match inst.objective {
                Objective::UtilityEnergy => "utility-energy",
                Objective::MakespanEnergy => "makespan-energy",
            }
            .into(),
            seed: exp.seed,
            source: t.source.clone(),
            task_types: t.task_types,
            machine_types: t.machine_types,
            special_types: t.special_types,
            machines: inst.machine_type.iter().map(|&m| m as usize).collect(),
            etc_s: grid(&|i, j| t.etc(i, j)),
            epc_w: grid(&|i, j| t.epc(i, j)),
            etc_us: Some(ints(&|etc, _| etc.0)),
            eec_mj: Some(ints(&|_, eec| eec)),
            utility_classes: classes_file(&inst.classes),
            tasks: tasks_file(&inst.tasks)?,
            stochastic: None,
        })
    }

    /// The instance of a Chapter 7 experiment (the platform, trace and common random numbers
    /// every score's population shares).
    pub fn from_stochastic(exp: &StochasticExperiment) -> anyhow::Result<InstanceFile> {
        let st = Stochastic::with_arrivals(exp.seed, exp.arrivals, Score::Expected, exp.samples);
        let (types, mt) = (st.task_types(), st.machine_types());
        let cube = |f: &dyn Fn(usize, usize, usize) -> Option<f64>| per_cell(types, mt, f);
        let runs = |i, j, k| st.costs(i, j, k).0 != Micros::MAX;
        let icube = |f: &dyn Fn(usize, usize, usize) -> u64| {
            per_cell(types, mt, |i, j, k| runs(i, j, k).then(|| f(i, j, k)))
        };
        let vcube = |f: &dyn Fn(usize, usize, usize) -> Vec<u64>| {
            per_cell(types, mt, |i, j, k| runs(i, j, k).then(|| f(i, j, k)))
        };
        let stochastic = StochasticFile {
            pstates: PSTATES,
            theta: THETA,
            bins: BINS,
            scores: exp.scores.iter().map(|s| s.name()).collect(),
            samples: st.samples(),
            apc_w: cube(&|i, j, k| runs(i, j, k).then(|| st.costs(i, j, k).2)),
            mean_us: icube(&|i, j, k| st.costs(i, j, k).0 .0),
            mean_mj: icube(&|i, j, k| st.costs(i, j, k).1),
            bins_us: vcube(&|i, j, k| st.costs(i, j, k).3.iter().map(|t| t.0).collect()),
            bins_mj: vcube(&|i, j, k| st.costs(i, j, k).4.to_vec()),
            crn: (0..st.samples()).map(|s| st.crn(s).to_vec()).collect(),
        };
        // The P-state 0 ETC the platform is built from (`Stochastic::new`'s).
        let etc0 = etc_table(exp.seed, 0);
        let etc_s = (0..types)
            .map(|i| {
                (0..mt)
                    .map(|j| {
                        let e = etc0[i * mt + j];
                        (e != Micros::MAX).then(|| e.as_secs_f64())
                    })
                    .collect()
            })
            .collect();
        Ok(InstanceFile {
            format: FORMAT.into(),
            version: VERSION,
            experiment: exp.name.clone(),
            objective: "stochastic-utility-energy".into(),
            seed: exp.seed,
            source: "seed 002 Chapter 2's ETC at P-state 0 and part 2's P-state model".into(),
            task_types: types,
            machine_types: mt,
            special_types: SPECIAL_MACHINE_TYPES,
            machines: st.machine_type.iter().map(|&m| m as usize).collect(),
            etc_s,
            epc_w: vec![vec![None; mt]; types],
            etc_us: None,
            eec_mj: None,
            utility_classes: classes_file(&st.classes),
            tasks: tasks_file(&st.tasks)?,
            stochastic: Some(stochastic),
        })
    }

    /// Writes the file (whole: written beside and renamed).
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let mut s = serde_json::to_string(self)?;
        s.push('\n');
        crate::output::write_atomic(path, s)
    }

    /// Reads and checks a file [`InstanceFile::write`] wrote.
    pub fn read(path: &Path) -> anyhow::Result<InstanceFile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        let f: InstanceFile = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}: line {}, column {}: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        f.check()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(f)
    }

    /// The checks a reader needs before evaluating: the format and version, and every index
    /// within its table.
    fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.format == FORMAT,
            "format: {:?} is not {FORMAT:?}",
            self.format
        );
        anyhow::ensure!(
            self.version == VERSION,
            "version: {} (this kairos reads version {VERSION})",
            self.version
        );
        if let Some(m) = self.machines.iter().position(|&m| m >= self.machine_types) {
            anyhow::bail!(
                "machines[{m}]: not a machine type (0..{})",
                self.machine_types
            );
        }
        for (i, t) in self.tasks.iter().enumerate() {
            anyhow::ensure!(
                t.ty < self.task_types,
                "tasks[{i}].type: {} is not a task type (0..{})",
                t.ty,
                self.task_types
            );
            anyhow::ensure!(
                t.class < self.utility_classes.len(),
                "tasks[{i}].class: {} is not a utility class",
                t.class
            );
        }
        match (&self.stochastic, self.objective.as_str()) {
            (None, "utility-energy" | "makespan-energy") => {
                anyhow::ensure!(
                    self.etc_us.is_some() && self.eec_mj.is_some(),
                    "etc_us, eec_mj: needed by this objective"
                );
            }
            (Some(s), "stochastic-utility-energy") => {
                anyhow::ensure!(
                    s.crn.len() == s.samples && s.crn.iter().all(|r| r.len() == self.tasks.len()),
                    "stochastic.crn: needs `samples` rows of one bin per task"
                );
            }
            (_, o) => anyhow::bail!("objective: {o:?} does not match the file's tables"),
        }
        Ok(())
    }

    fn classes(&self) -> anyhow::Result<UtilityClasses> {
        let mut out = UtilityClasses::new();
        for (c, ivs) in self.utility_classes.iter().enumerate() {
            let ivs: Vec<ClassInterval> = ivs
                .iter()
                .map(|iv| ClassInterval {
                    offset: Micros(iv.offset_us),
                    psi: iv.psi,
                    delta: iv.delta,
                })
                .collect();
            let class = UtilityClass::new(&ivs)
                .map_err(|e| anyhow::anyhow!("utility_classes[{c}]: {e:?}"))?;
            out.push(class)
                .map_err(|e| anyhow::anyhow!("utility_classes[{c}]: {e:?}"))?;
        }
        Ok(out)
    }
}

/// What [`evaluate`] finds: both objectives as `fronts.csv` writes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objectives {
    /// Utility (utility-energy) or makespan in seconds (makespan-energy).
    pub first: f64,
    /// Energy, joules.
    pub energy_j: f64,
}

/// The objectives of `alloc` (one placement per task) on `file`'s instance, scored by
/// `score` (Chapter 7: `expected` or `pX`; ignored otherwise).
pub fn evaluate(
    file: &InstanceFile,
    alloc: &[Placement],
    score: &str,
) -> anyhow::Result<Objectives> {
    anyhow::ensure!(
        alloc.len() == file.tasks.len(),
        "the allocation places {} tasks, the instance has {}",
        alloc.len(),
        file.tasks.len()
    );
    // Each machine's tasks in run order.
    let mut queues: Vec<Vec<(u32, usize)>> = vec![Vec::new(); file.machines.len()];
    for (t, p) in alloc.iter().enumerate() {
        let q = queues
            .get_mut(p.machine)
            .with_context(|| format!("task {t}: machine {} is not in the instance", p.machine))?;
        q.push((p.order, t));
    }
    for (m, q) in queues.iter_mut().enumerate() {
        q.sort_unstable();
        if let Some(w) = q.windows(2).find(|w| w[0].0 == w[1].0) {
            anyhow::bail!(
                "machine {m}: tasks {} and {} share order {}",
                w[0].1,
                w[1].1,
                w[0].0
            );
        }
    }
    let classes = file.classes()?;
    let value = |t: usize, since: Micros| -> f64 {
        let task = &file.tasks[t];
        UtilityCurve::PiecewiseExp {
            priority: task.priority,
            urgency_per_min: task.urgency_per_min,
            first: Micros(task.first_us),
            class: task.class as u8,
        }
        .value_at(since, &classes)
        .unwrap_or(0.0)
    };
    let mtype = |t: usize, p: &Placement| (file.tasks[t].ty, file.machines[p.machine]);
    match file.objective.as_str() {
        "utility-energy" | "makespan-energy" => {
            let (etc, eec) = (
                file.etc_us.as_ref().expect("checked"),
                file.eec_mj.as_ref().expect("checked"),
            );
            let (mut utility, mut energy, mut makespan) = (0u64, 0u64, 0u64);
            for q in &queues {
                // Eq. 12-14: a task starts when its machine is free and it has arrived.
                // Eq. 16-18: a bag's machine is busy for the sum of its tasks' ETC.
                let (mut free, mut busy) = (0u64, 0u64);
                for &(_, t) in q {
                    let p = &alloc[t];
                    let (i, j) = mtype(t, p);
                    let e = etc[i][j].with_context(|| {
                        format!("task {t}: type {i} cannot run on machine {}", p.machine)
                    })?;
                    let arrival = file.tasks[t].arrival_us;
                    let end = free.max(arrival) + e;
                    free = end;
                    busy += e;
                    utility += Utility::from_f64(value(t, Micros(end - arrival))).0;
                    energy += eec[i][j].expect("runs where ETC does");
                }
                makespan = makespan.max(busy);
            }
            Ok(Objectives {
                first: if file.objective == "utility-energy" {
                    utility as f64 / 1e6
                } else {
                    makespan as f64 / 1e6
                },
                energy_j: energy as f64 / 1000.0,
            })
        }
        _ => {
            let s = file.stochastic.as_ref().expect("checked");
            let run = |sample: Option<&[u8]>| -> anyhow::Result<(f64, f64)> {
                let (mut utility, mut energy) = (0u64, 0u64);
                for q in &queues {
                    let mut free = 0u64;
                    for &(_, t) in q {
                        let p = &alloc[t];
                        let (i, j) = mtype(t, p);
                        let k = p.pstate;
                        anyhow::ensure!(k < s.pstates, "task {t}: P-state {k} (0..{})", s.pstates);
                        let mean = s.mean_us[i][j][k].with_context(|| {
                            format!("task {t}: type {i} cannot run on machine {}", p.machine)
                        })?;
                        let arrival = file.tasks[t].arrival_us;
                        let start = free.max(arrival);
                        // §7.3: dropped at its start if worth less than theta at its mean end.
                        if value(t, Micros(start + mean - arrival)) < s.theta {
                            continue;
                        }
                        let (time, e) = match sample {
                            None => (mean, s.mean_mj[i][j][k].expect("runs")),
                            Some(b) => {
                                let b = b[t] as usize;
                                (
                                    s.bins_us[i][j][k].as_ref().expect("runs")[b],
                                    s.bins_mj[i][j][k].as_ref().expect("runs")[b],
                                )
                            }
                        };
                        free = start + time;
                        utility += Utility::from_f64(value(t, Micros(free - arrival))).0;
                        energy += e;
                    }
                }
                Ok((utility as f64 / 1e6, energy as f64 / 1000.0))
            };
            let (u, e) = match score {
                "expected" => run(None)?,
                _ => {
                    let x: usize = score
                        .strip_prefix('p')
                        .and_then(|x| x.parse().ok())
                        .with_context(|| format!("score {score:?}: expected or pX"))?;
                    let (mut us, mut es) = (Vec::new(), Vec::new());
                    for b in &s.crn {
                        let (u, e) = run(Some(b))?;
                        us.push(u);
                        es.push(e);
                    }
                    anyhow::ensure!(!us.is_empty(), "stochastic.samples: none");
                    // The X-th utility from the top, the X-th energy from the bottom.
                    us.sort_by(|a, b| b.total_cmp(a));
                    es.sort_by(f64::total_cmp);
                    let i = x.clamp(1, us.len()) - 1;
                    (us[i], es[i])
                }
            };
            Ok(Objectives {
                first: u,
                energy_j: e,
            })
        }
    }
}

/// `f` over every (task type, machine type, P-state) cell, nested in that order.
fn per_cell<T>(
    types: usize,
    machine_types: usize,
    f: impl Fn(usize, usize, usize) -> T,
) -> Vec<Vec<Vec<T>>> {
    (0..types)
        .map(|i| {
            (0..machine_types)
                .map(|j| (0..PSTATES).map(|k| f(i, j, k)).collect())
                .collect()
        })
        .collect()
}

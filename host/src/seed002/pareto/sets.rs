//! The instances of seed 002's bi-objective experiments: Chapter 5's data sets 1-3
//! (Table 5.3) and Chapter 6's two investigations (§6.5, §6.6).
//!
//! - Set 1: the 5 x 9 benchmark tables, one machine of each type, 250 tasks in 15 min.
//! - Sets 2 and 3: 30 task types synthesised from them (§5.3.4.2) on 13 machine types (4
//!   special, one machine each, then 2, 3, 3, 3, 2, 4, 2, 5, 2 general machines), 1,000
//!   tasks in 15 min or 4,000 in 1 h.
//! - Chapter 5's traces (arrivals unspecified; spec §6): arrival times uniform over the
//!   window (a Poisson process given its count), task types uniform, Chapter 2's utility
//!   functions (Table D.1, the four classes of Table C.1, F from the type's mean ETC over its
//!   eligible machine types).
//! - Investigation 1: 1,000 tasks of 50 types, 50 machines of 10 types (counts a uniformly
//!   random composition of 50 into 10 positive parts), COV-method tables (ETC mean 10 s,
//!   COVs 0.1 / 0.25; EPC mean 200 W, COVs 0.1 / 0.2).
//! - Investigation 2: 36 machines of the 9 general types of the synthesised 30-type tables,
//!   types 1-2 (18 each), 1-6 (6 each) or 1-9 (4 each), 1,000 tasks of the 30 types.
//!   Chapter 6 is a bag: every task arrives at time 0.

use crate::generate::rng::Stream;
use crate::seed002::generate::priority_urgency;
use crate::seed002::pareto::data::{cov_method, synthesize, Benchmarks, Tables};
use crate::seed002::pareto::{Instance, InstanceError, Objective, Task};
use kairos_core::units::Micros;
use kairos_core::utility::{UtilityClasses, UtilityCurve};

/// Which instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataSet {
    /// Chapter 5, set 1 (benchmarks, 9 machines, 250 tasks / 15 min).
    Set1,
    /// Chapter 5, set 2 (synthesised, 30 machines, 1,000 tasks / 15 min).
    Set2,
    /// Chapter 5, set 3 (synthesised, 30 machines, 4,000 tasks / 1 h).
    Set3,
    /// Chapter 6, investigation 1 (COV method, 50 machines of 10 types, 1,000 tasks).
    Investigation1,
    /// Chapter 6, investigation 2: 36 machines of the first `0` general types (2, 6 or 9).
    Investigation2(u8),
}

/// Synthesised task types beside the 5 real ones (§5.5.1: 30 in all).
pub const NEW_TYPES: usize = 25;
/// Special-purpose machine types of sets 2 and 3.
pub const SPECIAL_TYPES: usize = 4;
/// General machines of each of the 9 general types in sets 2 and 3 (Table 5.3).
pub const SET23_GENERAL: [usize; 9] = [2, 3, 3, 3, 2, 4, 2, 5, 2];

impl DataSet {
    /// The name used in experiment files.
    pub fn name(self) -> String {
        match self {
            DataSet::Set1 => "set1".into(),
            DataSet::Set2 => "set2".into(),
            DataSet::Set3 => "set3".into(),
            DataSet::Investigation1 => "investigation1".into(),
            DataSet::Investigation2(k) => format!("investigation2-{k}types"),
        }
    }

    /// The data set called `name`.
    pub fn from_name(name: &str) -> Option<DataSet> {
        Some(match name {
            "set1" => DataSet::Set1,
            "set2" => DataSet::Set2,
            "set3" => DataSet::Set3,
            "investigation1" => DataSet::Investigation1,
            "investigation2-2types" => DataSet::Investigation2(2),
            "investigation2-6types" => DataSet::Investigation2(6),
            "investigation2-9types" => DataSet::Investigation2(9),
            _ => return None,
        })
    }

    /// Its objectives.
    pub fn objective(self) -> Objective {
        match self {
            DataSet::Set1 | DataSet::Set2 | DataSet::Set3 => Objective::UtilityEnergy,
            _ => Objective::MakespanEnergy,
        }
    }

    /// Whether it is made from the benchmark file.
    pub fn needs_benchmarks(self) -> bool {
        self != DataSet::Investigation1
    }

    /// The instance, with `tasks` tasks (None: the data set's own count) from `seed`.
    pub fn instance(
        self,
        bench: Option<&Benchmarks>,
        tasks: Option<usize>,
        seed: u64,
    ) -> Result<Instance, InstanceError> {
        let synth = |b: &Benchmarks| synthesize(&b.tables, NEW_TYPES, SPECIAL_TYPES, seed);
        let bench = || bench.ok_or(InstanceError::Size);
        let (tables, machines, n, window_min) = match self {
            DataSet::Set1 => {
                let t = bench()?.tables.clone();
                let m = (0..t.machine_types as u8).collect();
                (t, m, 250, 15)
            }
            DataSet::Set2 | DataSet::Set3 => {
                let t = synth(bench()?);
                let mut m: Vec<u8> = (0..SPECIAL_TYPES as u8).collect();
                for (j, &c) in SET23_GENERAL.iter().enumerate() {
                    m.extend(std::iter::repeat_n((SPECIAL_TYPES + j) as u8, c));
                }
                let (n, w) = if self == DataSet::Set2 {
                    (1000, 15)
                } else {
                    (4000, 60)
                };
                (t, m, n, w)
            }
            DataSet::Investigation1 => {
                let t = cov_method(50, 10, (10.0, 0.1, 0.25), (200.0, 0.1, 0.2), seed);
                (t, composition(50, 10, seed), 1000, 0)
            }
            DataSet::Investigation2(k) => {
                let k = k.clamp(1, 9) as usize;
                let cols: Vec<usize> = (0..k).collect();
                let t = synth(bench()?).general_columns(&cols);
                let m = (0..k as u8)
                    .flat_map(|j| std::iter::repeat_n(j, 36 / k))
                    .collect();
                (t, m, 1000, 0)
            }
        };
        let n = tasks.unwrap_or(n);
        let classes = UtilityClasses::essc20();
        let tasks = trace(&tables, n, Micros::from_secs(window_min * 60), seed);
        Instance::new(machines, tables, tasks, classes, self.objective())
    }
}

/// A uniformly random composition of `total` machines into `types` positive counts, as a
/// machine list by type (stars and bars: `types - 1` distinct cut points).
fn composition(total: usize, types: usize, seed: u64) -> Vec<u8> {
    let mut r = Stream::new(seed, 0, "s002-pareto-machine-counts", 0);
    let mut cuts: Vec<usize> = (1..total).collect();
    for i in 0..types - 1 {
        let j = r.int(i as u64, cuts.len() as u64 - 1) as usize;
        cuts.swap(i, j);
    }
    let mut cuts: Vec<usize> = cuts[..types - 1].to_vec();
    cuts.sort_unstable();
    cuts.push(total);
    let mut out = Vec::with_capacity(total);
    let mut prev = 0;
    for (j, &c) in cuts.iter().enumerate() {
        out.extend(std::iter::repeat_n(j as u8, c - prev));
        prev = c;
    }
    out
}

/// `n` tasks of uniform type arriving uniformly over `window` (all at 0 for a zero window),
/// sorted, with Chapter 2's utility functions.
pub(crate) fn trace(tables: &Tables, n: usize, window: Micros, seed: u64) -> Vec<Task> {
    let mut r = Stream::new(seed, 0, "s002-pareto-trace", 0);
    let mut ru = Stream::new(seed, 0, "s002-pareto-utility", 0);
    let mut arrivals: Vec<Micros> = (0..n)
        .map(|_| Micros(r.int(0, window.0.saturating_sub(1))))
        .collect();
    arrivals.sort_unstable();
    arrivals
        .into_iter()
        .map(|arrival| {
            let ty = r.int(0, tables.task_types as u64 - 1) as usize;
            let row = (0..tables.machine_types)
                .map(|j| tables.etc(ty, j))
                .filter(|e| e.is_finite());
            let (sum, count) = row.fold((0.0, 0.0), |(s, c), e| (s + e, c + 1.0));
            let mean = Micros::from_secs_f64(sum / count);
            let (p, urgency) = priority_urgency(&mut ru);
            let class = ru.int(0, 3) as u8;
            Task {
                ty: ty as u16,
                arrival,
                curve: UtilityCurve::essc([8.0, 4.0, 2.0, 1.0][p], urgency, mean, class),
            }
        })
        .collect()
}

//! Pareto experiment files (`system = "pareto"`) and their runs: one instance, several
//! populations (each its seeds plus random chromosomes), each evolved by NSGA-II to every
//! checkpoint, where its rank-1 front is recorded.
//!
//! ```toml
//! system = "pareto"
//! name = "s002-pareto-fig5.4"
//! data = "set2"                  # set1..3, investigation1, investigation2-{2,6,9}types
//! benchmarks = "../data/s002-benchmarks-synthetic.toml"   # relative to this file
//! seed = 1
//! checkpoints = [1000, 10000, 100000, 1000000]
//! populations = [{ name = "min energy", seeds = ["min-energy"] }, { name = "random" }]
//! ```
//!
//! Populations run in parallel and evaluate their children in parallel; each population's
//! random stream is its own (seed, population index), so results do not depend on the
//! thread count or on which other populations run.

use crate::generate::rng::Stream;
use crate::nsga2::{Nsga2, Params, Point, Ranking};
use crate::seed002::pareto::checkpoints::{evolve_to_checkpoints, Watch};
use crate::seed002::pareto::data::{load_benchmarks, Benchmarks};
use crate::seed002::pareto::seeds::Seed;
use crate::seed002::pareto::sets::DataSet;
use crate::seed002::pareto::{Gene, Instance};
use crate::toml_file::{self, Checker, TomlFileError};
use rayon::prelude::*;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    system: String,
    name: String,
    title: Option<String>,
    data: String,
    benchmarks: Option<String>,
    seed: u64,
    tasks: Option<usize>,
    population: Option<usize>,
    mutation: Option<f64>,
    ranking: Option<String>,
    checkpoints: Vec<u64>,
    populations: Vec<PopFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PopFile {
    name: String,
    #[serde(default)]
    seeds: Vec<String>,
}

/// One population: its label and seeding heuristics.
#[derive(Clone, Debug, PartialEq)]
pub struct PopulationSpec {
    /// The label in reports.
    pub name: String,
    /// Its seeds (the rest of the population is random).
    pub seeds: Vec<Seed>,
}

/// A loaded Pareto experiment.
#[derive(Clone, Debug)]
pub struct ParetoExperiment {
    /// Output directory name.
    pub name: String,
    /// Plot title.
    pub title: String,
    /// The data set.
    pub data: DataSet,
    /// The benchmark file (for the data sets made from it).
    pub benchmarks: Option<PathBuf>,
    /// Instance seed (tables, trace) and, with the population index, the GA's streams.
    pub seed: u64,
    /// Tasks (None: the data set's own).
    pub tasks: Option<usize>,
    /// The GA's parameters.
    pub params: Params,
    /// Generations at which fronts are recorded, ascending.
    pub checkpoints: Vec<u64>,
    /// The populations.
    pub populations: Vec<PopulationSpec>,
}

/// Whether the TOML at `path` is a Pareto file (`system = "pareto"`).
pub fn is_pareto(path: &Path) -> bool {
    toml_file::declares_system(path, "pareto")
}

impl ParetoExperiment {
    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<ParetoExperiment, TomlFileError> {
        let (text, file) = toml_file::read(path)?;
        let f: File = toml_file::parse(&text, &file)?;
        let mut c = Checker::new(&file, &text);
        if f.system != "pareto" {
            c.fail("system", &f.system, "must be \"pareto\"");
        }
        let data = DataSet::from_name(&f.data);
        if data.is_none() {
            c.fail(
                "data",
                &f.data,
                "unknown data set (set1, set2, set3, investigation1, \
                 investigation2-2types, investigation2-6types, investigation2-9types)",
            );
        }
        let benchmarks = f
            .benchmarks
            .as_ref()
            .map(|b| path.parent().unwrap_or(Path::new(".")).join(b));
        if data.is_some_and(|d| d.needs_benchmarks()) && benchmarks.is_none() {
            c.fail(
                "benchmarks",
                "(absent)",
                "this data set is made from a benchmark file",
            );
        }
        if let Some(n) = f.tasks {
            c.int("tasks", n as u64, 1, 1_000_000);
        }
        let population = f.population.unwrap_or(100);
        c.int("population", population as u64, 2, 100_000);
        let mutation = f.mutation.unwrap_or(0.5);
        c.float("mutation", mutation, 0.0, 1.0);
        let ranking = match f.ranking.as_deref().unwrap_or("dominators") {
            "dominators" => Ranking::Dominators,
            "fronts" => Ranking::Fronts,
            other => {
                c.fail("ranking", other, "must be \"dominators\" or \"fronts\"");
                Ranking::Dominators
            }
        };
        if f.checkpoints.is_empty() {
            c.fail("checkpoints", "[]", "needs at least one generation");
        }
        for (i, w) in f.checkpoints.windows(2).enumerate() {
            if w[1] <= w[0] {
                c.fail(&format!("checkpoints[{}]", i + 1), w[1], "must increase");
            }
        }
        if let Some((i, g)) = f
            .checkpoints
            .iter()
            .enumerate()
            .find(|(_, g)| **g > crate::limits::MAX_GENERATIONS)
        {
            c.fail(
                &format!("checkpoints[{i}]"),
                g,
                format!("at most {} generations", crate::limits::MAX_GENERATIONS),
            );
        }
        if f.populations.is_empty() {
            c.fail("populations", "[]", "needs at least one population");
        }
        let mut pops = Vec::new();
        for (i, p) in f.populations.iter().enumerate() {
            let mut seeds = Vec::new();
            for (k, s) in p.seeds.iter().enumerate() {
                match Seed::from_name(s) {
                    Some(s) => seeds.push(s),
                    None => c.fail(
                        &format!("populations[{i}].seeds[{k}]"),
                        s,
                        "unknown seed (min-energy, max-utility, max-upe, min-min)",
                    ),
                }
            }
            if seeds.len() > population {
                c.fail(
                    &format!("populations[{i}].seeds"),
                    seeds.len(),
                    "more seeds than the population holds",
                );
            }
            if f.populations[..i].iter().any(|q| q.name == p.name) {
                c.fail(
                    &format!("populations[{i}].name"),
                    &p.name,
                    "another population has this name (their fronts would be merged)",
                );
            }
            pops.push(PopulationSpec {
                name: p.name.clone(),
                seeds,
            });
        }
        c.finish()?;
        Ok(ParetoExperiment {
            title: f.title.unwrap_or_else(|| f.name.clone()),
            name: f.name,
            data: data.expect("checked"),
            benchmarks,
            seed: f.seed,
            tasks: f.tasks,
            params: Params {
                population,
                mutation,
                ranking,
            },
            checkpoints: f.checkpoints,
            populations: pops,
        })
    }

    /// The benchmarks (if the data set needs them) and the instance.
    pub fn instance(&self) -> anyhow::Result<(Option<Benchmarks>, Instance)> {
        let bench = match (&self.benchmarks, self.data.needs_benchmarks()) {
            (Some(p), true) => Some(load_benchmarks(p)?),
            _ => None,
        };
        let inst = self.data.instance(bench.as_ref(), self.tasks, self.seed)?;
        Ok((bench, inst))
    }
}

/// One population's front at one checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Front {
    /// The population's index.
    pub population: usize,
    /// Generations run.
    pub generation: u64,
    /// The rank-1 points (minimised form), sorted by the first objective then the second,
    /// duplicates removed.
    pub points: Vec<Point>,
    /// A chromosome for each point.
    pub chromosomes: Vec<Vec<Gene>>,
    /// Wall time since the population started (not part of any digest).
    pub elapsed: Duration,
}

/// Evolves every population of `exp` over `inst` to each checkpoint; fronts by population,
/// then checkpoint. `jobs` sets the worker threads (None: one per core).
pub fn run(
    exp: &ParetoExperiment,
    inst: &Instance,
    jobs: Option<usize>,
    watch: &Watch<'_, Front>,
) -> anyhow::Result<Vec<Front>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()?;
    let fronts: Vec<Vec<Front>> = pool.install(|| {
        exp.populations
            .par_iter()
            .enumerate()
            .map(|(p, spec)| evolve(exp, inst, p, spec, watch))
            .collect::<anyhow::Result<_>>()
    })?;
    Ok(fronts.into_iter().flatten().collect())
}

/// Population `p` of `exp`, evolved to each checkpoint.
pub fn evolve(
    exp: &ParetoExperiment,
    inst: &Instance,
    p: usize,
    spec: &PopulationSpec,
    watch: &Watch<'_, Front>,
) -> anyhow::Result<Vec<Front>> {
    let start = Instant::now();
    let seeds = spec.seeds.iter().map(|s| s.chromosome(inst)).collect();
    let rng = Stream::new(exp.seed, p as u32, "s002-pareto-nsga2", 0);
    let mut ga = Nsga2::new(inst, exp.params, seeds, rng);
    evolve_to_checkpoints(&mut ga, p, &exp.checkpoints, watch, start, |ga, _| {
        front_of(ga, p, start.elapsed())
    })
}

fn front_of(ga: &Nsga2<'_, Instance>, p: usize, elapsed: Duration) -> Front {
    let obj = ga.objectives();
    let mut idx = ga.front();
    idx.sort_by(|&a, &b| {
        obj[a][0]
            .total_cmp(&obj[b][0])
            .then(obj[a][1].total_cmp(&obj[b][1]))
            .then(a.cmp(&b))
    });
    idx.dedup_by(|a, b| obj[*a] == obj[*b]);
    Front {
        population: p,
        generation: ga.generation(),
        points: idx.iter().map(|&i| obj[i]).collect(),
        chromosomes: idx.iter().map(|&i| ga.population()[i].clone()).collect(),
        elapsed,
    }
}

#[cfg(test)]
#[path = "experiment_tests.rs"]
mod tests;

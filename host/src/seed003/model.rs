//! Seed 003's scenario: what a trial's platform, workload, power model and PBA profiler are.
//!
//! A scenario file is TOML (every table `deny_unknown_fields`, every key optional, defaults
//! below; errors name the file, line and key through [`crate::toml_file`]):
//!
//! ```toml
//! name = "seed003"
//! seed = 3
//! [workload]
//! jobs = 1000            # R6: jobs a day, the same at every rate
//! tasks = [5, 10]        # §7.3: tasks a job
//! edge_probability = 0.3 # R4
//! wcet_s = [60, 600]     # R4, scaled by s_w
//! s_w = 1                # R4: execution time scale (1: the R4 draw as it is)
//! ccr = 0.1              # R4: communication to computation ratio
//! s_d = 1                # R5: value-curve tightness: seed 001's hard deadline - soft, in
//!                        # critical paths, scaled by it (1: as seed 001 draws it; swept)
//! [platform]
//! nodes = 3              # §7.3.2
//! cores = 8              # §7.3.2
//! table = "pentium-m"    # the DVFS levels: "pentium-m" (datasheet) or "r1" (withdrawn R1)
//! p_static_w = 6.125     # static power per used core (25% of the Pentium M's TDP; swept)
//! freq_bound = 1.0       # R2: share of a task's time that scales with 1/f
//! overhead_us = 10       # R10: NBA's decision delay per evaluator call
//! [ga]                   # R13
//! population = 40
//! generations = 60
//! crossover = 0.9
//! elitism = 2
//! ```

use crate::toml_file::{self, Checker, TomlFileError};
use kairos_core::dag::error::DagError;
use kairos_core::dag::power::{DvfsTable, PENTIUM_M_TDP};
use kairos_core::limits::MAX_DAG_TASKS;
use kairos_core::units::MilliWatts;
use serde::Deserialize;
use std::path::Path;

/// The workload's knobs (R4-R6).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Workload {
    /// Jobs a day (R6: 1000), the same at every rate.
    pub jobs: u32,
    /// Tasks a job, inclusive (§7.3: 5 to 10).
    pub tasks: [u32; 2],
    /// Probability of each forward edge (R4: 0.3).
    pub edge_probability: f64,
    /// Fastest execution time range, seconds, before `s_w` (R4: 60 to 600).
    pub wcet_s: [f64; 2],
    /// Execution time scale (1: the R4 draw unscaled; no longer fitted).
    pub s_w: f64,
    /// Communication to computation ratio (R4: 0.1).
    pub ccr: f64,
    /// Value-curve tightness: the hard deadline's distance past the soft one (seed 001's
    /// U(0, 1.5) execution times, [`super::generate::value_curve`]) is scaled by it (1: seed
    /// 001's draw unscaled; smaller is tighter; swept by `seed003-sensitivity`).
    pub s_d: f64,
}

impl Default for Workload {
    fn default() -> Workload {
        Workload {
            jobs: 1000,
            tasks: [5, 10],
            edge_probability: 0.3,
            wcet_s: [60.0, 600.0],
            s_w: 1.0,
            ccr: 0.1,
            s_d: 1.0,
        }
    }
}

/// The DVFS levels a core has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Table {
    /// The Intel Pentium M 1.6 GHz's six datasheet levels ([`DvfsTable::pentium_m`]).
    #[serde(rename = "pentium-m")]
    PentiumM,
    /// The reading guide's withdrawn R1 levels ([`DvfsTable::r1`]), to compare against.
    #[serde(rename = "r1")]
    R1,
}

impl Table {
    /// Its name in files.
    pub fn key(self) -> &'static str {
        match self {
            Table::PentiumM => "pentium-m",
            Table::R1 => "r1",
        }
    }
}

/// The platform (§7.1.1, §7.3.2) and the power model.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Platform {
    /// Nodes (servers).
    pub nodes: u32,
    /// Cores a node.
    pub cores: u32,
    /// The DVFS levels.
    pub table: Table,
    /// Static power of a used core, watts (6.125: 25% of the Pentium M's 24.5 W TDP; no
    /// published split, swept).
    pub p_static_w: f64,
    /// Share of a task's time that scales with 1/f (R2: 1, fully frequency-bound).
    pub freq_bound: f64,
    /// NBA's decision delay per evaluator call, microseconds (R10: 10).
    pub overhead_us: u64,
}

impl Default for Platform {
    fn default() -> Platform {
        Platform {
            nodes: 3,
            cores: 8,
            table: Table::PentiumM,
            p_static_w: 6.125,
            freq_bound: 1.0,
            overhead_us: 10,
        }
    }
}

impl Platform {
    /// The DVFS table with this static power and frequency-bound share.
    ///
    /// Errors: a static power above the Pentium M's TDP (`check` refuses it first).
    pub fn dvfs(&self) -> Result<DvfsTable, DagError> {
        let p = MilliWatts(libm::round(self.p_static_w * 1000.0) as u32);
        let t = match self.table {
            Table::PentiumM => DvfsTable::pentium_m(p)?,
            Table::R1 => DvfsTable::r1(p),
        };
        t.with_freq_bound(libm::round(self.freq_bound * 1000.0) as u16)
    }
}

/// PBA's genetic algorithm (R13).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ga {
    /// Individuals.
    pub population: u32,
    /// Generations.
    pub generations: u32,
    /// Probability of uniform crossover (else the first parent is copied).
    pub crossover: f64,
    /// The best individuals copied unchanged into the next generation.
    pub elitism: u32,
}

impl Default for Ga {
    fn default() -> Ga {
        Ga {
            population: 40,
            generations: 60,
            crossover: 0.9,
            elitism: 2,
        }
    }
}

/// A seed 003 scenario.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// Its name.
    #[serde(default = "default_name")]
    pub name: String,
    /// The seed of every stream.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The workload.
    #[serde(default)]
    pub workload: Workload,
    /// The platform.
    #[serde(default)]
    pub platform: Platform,
    /// PBA's profiler.
    #[serde(default)]
    pub ga: Ga,
}

fn default_name() -> String {
    "seed003".to_string()
}
fn default_seed() -> u64 {
    3
}

impl Default for Model {
    fn default() -> Model {
        Model {
            name: default_name(),
            seed: default_seed(),
            workload: Workload::default(),
            platform: Platform::default(),
            ga: Ga::default(),
        }
    }
}

impl Model {
    /// Reads and checks the scenario at `path`.
    pub fn load(path: &Path) -> Result<Model, TomlFileError> {
        let (text, file) = toml_file::read(path)?;
        Model::parse(&text, &file)
    }

    /// Parses and checks a scenario's text (`file` names it in messages).
    pub fn parse(text: &str, file: &str) -> Result<Model, TomlFileError> {
        let m: Model = toml_file::parse(text, file)?;
        let mut c = Checker::new(file, text);
        m.check(&mut c);
        c.finish()?;
        Ok(m)
    }

    /// Checks every value, one failure per bad key.
    pub(crate) fn check(&self, c: &mut Checker) {
        let w = &self.workload;
        c.int("workload.jobs", w.jobs as u64, 1, 1_000_000);
        c.int_range("workload.tasks", w.tasks, 1, MAX_DAG_TASKS as u64);
        c.float("workload.edge_probability", w.edge_probability, 0.0, 1.0);
        c.float_range("workload.wcet_s", w.wcet_s, 1e-3, 1e6);
        c.float_above("workload.s_w", w.s_w, 0.0, 1e3);
        c.float("workload.ccr", w.ccr, 0.0, 100.0);
        c.float("workload.s_d", w.s_d, 0.0, 1e4);
        let p = &self.platform;
        c.int("platform.nodes", p.nodes as u64, 1, 1024);
        c.int("platform.cores", p.cores as u64, 1, 1024);
        c.float("platform.p_static_w", p.p_static_w, 0.0, 100.0);
        if p.table == Table::PentiumM && p.p_static_w * 1000.0 > PENTIUM_M_TDP.0 as f64 {
            c.fail(
                "platform.p_static_w",
                p.p_static_w,
                "must be at most the Pentium M's 24.5 W TDP (its whole power at level 0)",
            );
        }
        c.float("platform.freq_bound", p.freq_bound, 0.0, 1.0);
        c.int("platform.overhead_us", p.overhead_us, 0, 1_000_000);
        let g = &self.ga;
        c.int("ga.population", g.population as u64, 2, 10_000);
        c.int("ga.generations", g.generations as u64, 0, 100_000);
        c.float("ga.crossover", g.crossover, 0.0, 1.0);
        if g.elitism >= g.population {
            c.fail("ga.elitism", g.elitism, "must be below ga.population");
        }
    }
}

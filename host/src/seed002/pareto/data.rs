//! The ETC and EPC tables of seed 002's bi-objective chapters (5 and 6): the benchmark data
//! file (§5.3.4.1), the Gram-Charlier synthesis of new task types and special-purpose
//! machine types from it (§5.3.4.2), and the COV method's tables of Chapter 6's first
//! investigation (§6.5.1).
//!
//! A table is row-major by task type, one column per machine type, special-purpose types
//! first; an infinite ETC marks a pair that cannot run (a general task on a special machine).

use crate::generate::rng::Stream;
use crate::toml_file::{self, Checker, TomlFileError};
use serde::Deserialize;
use std::path::Path;

/// ETC (s) and EPC (W) per (task type, machine type).
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    /// Task types (rows).
    pub task_types: usize,
    /// Machine types (columns), the special ones first.
    pub machine_types: usize,
    /// How many of the first machine types are special-purpose.
    pub special_types: usize,
    /// Seconds; `f64::INFINITY`: cannot run.
    pub etc_s: Vec<f64>,
    /// Watts while running.
    pub epc_w: Vec<f64>,
    /// Where the numbers came from, for the reports (says "synthetic" for a stand-in).
    pub source: String,
}

impl Tables {
    /// ETC of task type `i` on machine type `j` (s).
    pub fn etc(&self, i: usize, j: usize) -> f64 {
        self.etc_s[i * self.machine_types + j]
    }

    /// EPC of task type `i` on machine type `j` (W).
    pub fn epc(&self, i: usize, j: usize) -> f64 {
        self.epc_w[i * self.machine_types + j]
    }

    /// Only the general-purpose columns `cols` (indices among the general types), for
    /// Chapter 6's second investigation.
    pub fn general_columns(&self, cols: &[usize]) -> Tables {
        let pick = |v: &[f64]| -> Vec<f64> {
            (0..self.task_types)
                .flat_map(|i| {
                    cols.iter()
                        .map(move |&c| v[i * self.machine_types + self.special_types + c])
                })
                .collect()
        };
        Tables {
            task_types: self.task_types,
            machine_types: cols.len(),
            special_types: 0,
            etc_s: pick(&self.etc_s),
            epc_w: pick(&self.epc_w),
            source: self.source.clone(),
        }
    }
}

/// The benchmark data file: programs x machines, ETC and EPC.
#[derive(Clone, Debug, PartialEq)]
pub struct Benchmarks {
    /// Whether the numbers are an invented stand-in.
    pub synthetic: bool,
    /// Where they came from.
    pub source: String,
    /// Program names (rows).
    pub programs: Vec<String>,
    /// Machine names (columns).
    pub machines: Vec<String>,
    /// The tables (no special types).
    pub tables: Tables,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BenchFile {
    synthetic: bool,
    source: String,
    programs: Vec<String>,
    machines: Vec<String>,
    etc_s: Vec<Vec<f64>>,
    epc_w: Vec<Vec<f64>>,
}

/// Reads the benchmark file at `path` (layout: `data/s002-benchmarks-synthetic.toml`).
pub fn load_benchmarks(path: &Path) -> Result<Benchmarks, TomlFileError> {
    let (text, file) = toml_file::read(path)?;
    let f: BenchFile = toml_file::parse(&text, &file)?;
    let mut c = Checker::new(&file, &text);
    let (rows, cols) = (f.programs.len(), f.machines.len());
    c.int("programs", rows as u64, 2, 1000);
    c.int("machines", cols as u64, 1, 200);
    for (name, t) in [("etc_s", &f.etc_s), ("epc_w", &f.epc_w)] {
        if t.len() != rows {
            c.fail(
                name,
                format_args!("{} rows", t.len()),
                "needs one row per program",
            );
        }
        for (i, row) in t.iter().enumerate() {
            if row.len() != cols {
                c.fail(
                    &format!("{name}[{i}]"),
                    format_args!("{} entries", row.len()),
                    "needs one entry per machine",
                );
            }
            for (j, &x) in row.iter().enumerate() {
                c.float_above(&format!("{name}[{i}][{j}]"), x, 0.0, 1e9);
            }
        }
    }
    c.finish()?;
    let source = if f.synthetic {
        format!("synthetic stand-in: {}", f.source)
    } else {
        f.source
    };
    Ok(Benchmarks {
        synthetic: f.synthetic,
        programs: f.programs,
        machines: f.machines,
        tables: Tables {
            task_types: rows,
            machine_types: cols,
            special_types: 0,
            etc_s: f.etc_s.concat(),
            epc_w: f.epc_w.concat(),
            source: source.clone(),
        },
        source,
    })
}

/// Mean, standard deviation, skewness and excess kurtosis (population moments) of `x`.
pub fn mvsk(x: &[f64]) -> [f64; 4] {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let m = |p: i32| x.iter().map(|v| libm::pow(v - mean, p as f64)).sum::<f64>() / n;
    let var = m(2);
    let sd = libm::sqrt(var);
    if sd == 0.0 {
        return [mean, 0.0, 0.0, 0.0];
    }
    [mean, sd, m(3) / (var * sd), m(4) / (var * var) - 3.0]
}

/// The Gram-Charlier (type A) density with moments `mvsk` at `x`, clipped at zero:
/// phi(z) (1 + g1 He3(z) / 6 + g2 He4(z) / 24) / sd.
pub fn gram_charlier(mvsk: [f64; 4], x: f64) -> f64 {
    let [mean, sd, g1, g2] = mvsk;
    let z = (x - mean) / sd;
    let he3 = z * z * z - 3.0 * z;
    let he4 = z * z * z * z - 6.0 * z * z + 3.0;
    let phi = libm::exp(-0.5 * z * z) / libm::sqrt(2.0 * core::f64::consts::PI);
    (phi * (1.0 + g1 * he3 / 6.0 + g2 * he4 / 24.0) / sd).max(0.0)
}

/// One draw from the Gram-Charlier density of `mvsk` on `mean +- 4 sd`, `x > 0`, by
/// rejection under a bound of the density there (|He3| <= 52, |He4| <= 163 on |z| <= 4).
/// A zero spread gives the mean.
pub fn sample_gram_charlier(mvsk: [f64; 4], r: &mut Stream) -> f64 {
    let [mean, sd, g1, g2] = mvsk;
    if sd == 0.0 {
        return mean;
    }
    let peak = (1.0 + g1.abs() * 52.0 / 6.0 + g2.abs() * 163.0 / 24.0)
        / (sd * libm::sqrt(2.0 * core::f64::consts::PI));
    let lo = (mean - 4.0 * sd).max(0.0);
    let hi = mean + 4.0 * sd;
    loop {
        let x = r.uniform(lo, hi);
        if x > 0.0 && r.unit() * peak < gram_charlier(mvsk, x) {
            return x;
        }
    }
}

/// §5.3.4.2: the benchmark rows plus `new_types` synthetic task types, and `special`
/// special-purpose machine types (first), each running 2 or 3 task types (distinct, drawn
/// from all the types) ten times faster than their mean at their mean power.
///
/// For ETC and EPC separately: new row means from the Gram-Charlier density of the real
/// row means; per machine, new ratios (entry / row mean) from the density of the real
/// ratios on that machine; entry = ratio x row mean.
pub fn synthesize(b: &Tables, new_types: usize, special: usize, seed: u64) -> Tables {
    let (rows, cols) = (b.task_types, b.machine_types);
    let types = rows + new_types;
    let mut gp = [vec![0.0; types * cols], vec![0.0; types * cols]];
    for (k, (src, dst)) in [&b.etc_s, &b.epc_w]
        .into_iter()
        .zip(gp.iter_mut())
        .enumerate()
    {
        let means: Vec<f64> = (0..rows)
            .map(|i| src[i * cols..(i + 1) * cols].iter().sum::<f64>() / cols as f64)
            .collect();
        dst[..rows * cols].copy_from_slice(src);
        let mut r = Stream::new(seed, 0, "s002-pareto-synth-means", k as u32);
        let dist = mvsk(&means);
        let new_means: Vec<f64> = (0..new_types)
            .map(|_| sample_gram_charlier(dist, &mut r))
            .collect();
        for j in 0..cols {
            let ratios: Vec<f64> = (0..rows).map(|i| src[i * cols + j] / means[i]).collect();
            let dist = mvsk(&ratios);
            let mut r = Stream::new(seed, 0, "s002-pareto-synth-ratios", (k * 1000 + j) as u32);
            for (n, m) in new_means.iter().enumerate() {
                dst[(rows + n) * cols + j] = sample_gram_charlier(dist, &mut r) * m;
            }
        }
    }
    let all = special + cols;
    let mut etc = vec![f64::INFINITY; types * all];
    let mut epc = vec![0.0; types * all];
    for i in 0..types {
        etc[i * all + special..(i + 1) * all].copy_from_slice(&gp[0][i * cols..(i + 1) * cols]);
        epc[i * all + special..(i + 1) * all].copy_from_slice(&gp[1][i * cols..(i + 1) * cols]);
    }
    let mut r = Stream::new(seed, 0, "s002-pareto-special", 0);
    let mut order: Vec<usize> = (0..types).collect();
    for i in (1..types).rev() {
        order.swap(i, r.int(0, i as u64) as usize);
    }
    let mut next = order.into_iter();
    for j in 0..special {
        for _ in 0..r.int(2, 3) {
            let Some(i) = next.next() else { break };
            let row = i * all + special..(i + 1) * all;
            let etc_mean = etc[row.clone()].iter().sum::<f64>() / cols as f64;
            let epc_mean = epc[row].iter().sum::<f64>() / cols as f64;
            etc[i * all + j] = etc_mean / 10.0;
            epc[i * all + j] = epc_mean;
        }
    }
    Tables {
        task_types: types,
        machine_types: all,
        special_types: special,
        etc_s: etc,
        epc_w: epc,
        source: format!("{} + Gram-Charlier synthesis (seed {seed})", b.source),
    }
}

/// The COV method's tables (§6.5.1): per task type q ~ Gamma(mean, task COV), each entry
/// Gamma(q, machine COV), for ETC and EPC independently; no special types.
pub fn cov_method(
    task_types: usize,
    machine_types: usize,
    etc: (f64, f64, f64),
    epc: (f64, f64, f64),
    seed: u64,
) -> Tables {
    let table = |(mean, task_cov, mach_cov): (f64, f64, f64), name: &str| -> Vec<f64> {
        let mut out = Vec::with_capacity(task_types * machine_types);
        for i in 0..task_types {
            let mut r = Stream::new(seed, 0, name, i as u32);
            let q = r.gamma_mean_cov(mean, task_cov);
            for _ in 0..machine_types {
                out.push(r.gamma_mean_cov(q, mach_cov).max(1e-6));
            }
        }
        out
    };
    Tables {
        task_types,
        machine_types,
        special_types: 0,
        etc_s: table(etc, "s002-pareto-cov-etc"),
        epc_w: table(epc, "s002-pareto-cov-epc"),
        source: format!(
            "COV method (ETC mean {} s, COVs {}/{}; EPC mean {} W, COVs {}/{}; seed {seed})",
            etc.0, etc.1, etc.2, epc.0, epc.1, epc.2
        ),
    }
}

#[cfg(test)]
#[path = "data_tests.rs"]
mod tests;

//! Chapter 7's experiment files (`system = "pareto-stochastic"`), runs and reports: one
//! population per score (expected value, and the X-th percentile of N samples for each X),
//! each seeded with the dynamic heuristics' allocations (`dynamic_seeds`: Max Utility,
//! Max UPT, Max UPP, Max UPE from the core's event loop) and random
//! chromosomes (`seed_kind = "one-pass"`: the four one-pass stand-ins instead), its front at
//! each checkpoint, then every final allocation under fresh samples (the fuzzy front).
//!
//! ```toml
//! system = "pareto-stochastic"
//! name = "s002-pareto-fig7.4-7.7"
//! seed = 1
//! tasks = 6000                # expected over the window (§7.3.1: about 6,000 in 4 h)
//! window_min = 240
//! arrivals = "appendix-f"      # the default; "uniform": uniform times (small tests)
//! samples = 100
//! scores = ["expected", "p1", "p25", "p50", "p75", "p99"]
//! checkpoints = [0, 100, 1000]
//! fuzzy = 100
//! ```

use crate::generate::rng::Stream;
use crate::nsga2::{dominates, Nsga2, Params, Point, Ranking};
use crate::report::svg::{scatter, ScatterSeries};
use crate::seed002::pareto::allocation::{allocations_csv, FrontGenes};
use crate::seed002::pareto::checkpoints::{evolve_to_checkpoints, Watch};
use crate::seed002::pareto::dynamic_seeds::{chromosome, dynamic_allocation, DYNAMIC_SEEDS};
use crate::seed002::pareto::stochastic::{Arrivals, Outcome, SGene, Score, Stochastic, SEEDS};
use crate::toml_file::{self, Checker, TomlFileError};
use kairos_core::units::Micros;
use rayon::prelude::*;
use serde::Deserialize;
use std::fmt::Write;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    system: String,
    name: String,
    title: Option<String>,
    seed: u64,
    tasks: usize,
    window_min: u64,
    arrivals: Option<String>,
    samples: usize,
    scores: Vec<String>,
    population: Option<usize>,
    mutation: Option<f64>,
    checkpoints: Vec<u64>,
    fuzzy: usize,
    seeds: Option<bool>,
    seed_kind: Option<String>,
}

/// A loaded Chapter 7 experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct StochasticExperiment {
    /// Output directory name.
    pub name: String,
    /// Plot title.
    pub title: String,
    /// Platform, trace, CRN and GA seed.
    pub seed: u64,
    /// The trace.
    pub arrivals: Arrivals,
    /// Samples per probabilistic evaluation (N).
    pub samples: usize,
    /// One population per score.
    pub scores: Vec<Score>,
    /// GA parameters.
    pub params: Params,
    /// Checkpoints, increasing.
    pub checkpoints: Vec<u64>,
    /// Fresh samples per final allocation.
    pub fuzzy: usize,
    /// Whether the four seeds join each population.
    pub seeds: bool,
    /// Which seeds: the dynamic heuristics' allocations, or the one-pass stand-ins.
    pub seed_kind: SeedKind,
}

/// Where Chapter 7's seeds come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedKind {
    /// Max Utility, Max UPT, Max UPP and Max UPE as the core's event loop allocates.
    Dynamic,
    /// The four one-pass stand-ins.
    OnePass,
}

/// Whether the TOML at `path` is a Chapter 7 file.
pub fn is_stochastic(path: &Path) -> bool {
    toml_file::declares_system(path, "pareto-stochastic")
}

impl StochasticExperiment {
    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<StochasticExperiment, TomlFileError> {
        let (text, file) = toml_file::read(path)?;
        let f: File = toml_file::parse(&text, &file)?;
        let mut c = Checker::new(&file, &text);
        if f.system != "pareto-stochastic" {
            c.fail("system", &f.system, "must be \"pareto-stochastic\"");
        }
        c.int("tasks", f.tasks as u64, 1, 1_000_000);
        c.int("window_min", f.window_min, 1, 100_000);
        let arrivals = match f.arrivals.as_deref() {
            None | Some("appendix-f") => {
                if !f.window_min.is_multiple_of(60) {
                    c.fail(
                        "window_min",
                        f.window_min,
                        "must be whole hours (a multiple of 60) for arrivals = \"appendix-f\"",
                    );
                }
                Arrivals::AppendixF {
                    tasks: f.tasks,
                    hours: f.window_min / 60,
                }
            }
            Some("uniform") => Arrivals::Uniform {
                tasks: f.tasks,
                window: Micros::from_secs(f.window_min * 60),
            },
            Some(other) => {
                c.fail("arrivals", other, "must be \"appendix-f\" or \"uniform\"");
                Arrivals::Uniform {
                    tasks: f.tasks,
                    window: Micros::from_secs(f.window_min * 60),
                }
            }
        };
        c.int("samples", f.samples as u64, 1, 10_000);
        c.int("fuzzy", f.fuzzy as u64, 1, 100_000);
        let population = f.population.unwrap_or(100);
        c.int("population", population as u64, 2, 100_000);
        let mutation = f.mutation.unwrap_or(0.5);
        c.float("mutation", mutation, 0.0, 1.0);
        let mut scores = Vec::new();
        for (i, s) in f.scores.iter().enumerate() {
            let x = s.strip_prefix('p').and_then(|x| x.parse::<usize>().ok());
            match (s.as_str(), x) {
                ("expected", _) => scores.push(Score::Expected),
                (_, Some(x)) if (1..=f.samples).contains(&x) => scores.push(Score::Percentile(x)),
                _ => c.fail(
                    &format!("scores[{i}]"),
                    s,
                    format_args!("must be \"expected\" or pX with X in 1..={}", f.samples),
                ),
            }
        }
        if f.scores.is_empty() {
            c.fail("scores", "[]", "needs at least one score");
        }
        let seed_kind = match f.seed_kind.as_deref() {
            None | Some("dynamic") => SeedKind::Dynamic,
            Some("one-pass") => SeedKind::OnePass,
            Some(other) => {
                c.fail("seed_kind", other, "must be \"dynamic\" or \"one-pass\"");
                SeedKind::Dynamic
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
        c.finish()?;
        Ok(StochasticExperiment {
            title: f.title.unwrap_or_else(|| f.name.clone()),
            name: f.name,
            seed: f.seed,
            arrivals,
            samples: f.samples,
            scores,
            params: Params {
                population,
                mutation,
                ranking: Ranking::Dominators,
            },
            checkpoints: f.checkpoints,
            fuzzy: f.fuzzy,
            seeds: f.seeds.unwrap_or(true),
            seed_kind,
        })
    }
}

/// One score's front at one checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct SFront {
    /// Index into the experiment's scores.
    pub score: usize,
    /// Generations run.
    pub generation: u64,
    /// Rank-1 points under the score, sorted, duplicates once.
    pub points: Vec<Point>,
    /// Their chromosomes.
    pub chromosomes: Vec<Vec<SGene>>,
    /// Wall time since the population started.
    pub elapsed: Duration,
}

/// Runs every score's population; fronts by score, then checkpoint.
pub fn run(
    exp: &StochasticExperiment,
    jobs: Option<usize>,
    watch: &Watch<'_, SFront>,
) -> anyhow::Result<(Vec<Stochastic>, Vec<SFront>)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()?;
    let seeds = if exp.seeds { seeds(exp)? } else { Vec::new() };
    let out: Vec<(Stochastic, Vec<SFront>)> = pool.install(|| {
        exp.scores
            .par_iter()
            .enumerate()
            .map(|(p, &score)| {
                let inst = Stochastic::with_arrivals(exp.seed, exp.arrivals, score, exp.samples);
                let fronts = evolve(exp, &inst, seeds.clone(), p, watch)?;
                Ok((inst, fronts))
            })
            .collect::<anyhow::Result<_>>()
    })?;
    let (insts, fronts): (Vec<_>, Vec<_>) = out.into_iter().unzip();
    Ok((insts, fronts.into_iter().flatten().collect()))
}

/// The experiment's four seeds, in the dissertation's order (Max Utility, Max UPT, Max UPP,
/// Max UPE); every score's instance has the same platform and trace, so one set serves all.
pub fn seeds(exp: &StochasticExperiment) -> anyhow::Result<Vec<Vec<SGene>>> {
    let inst = Stochastic::with_arrivals(exp.seed, exp.arrivals, Score::Expected, 1);
    SEEDS
        .iter()
        .map(|&(name, by)| {
            let dynamic = DYNAMIC_SEEDS.iter().find(|d| d.0 == name);
            Ok(match (exp.seed_kind, dynamic) {
                (SeedKind::Dynamic, Some(&(_, h))) => {
                    let a = dynamic_allocation(&inst, exp.seed, h)
                        .map_err(|e| anyhow::anyhow!("{name} seed: {e}"))?;
                    chromosome(&inst, &a)
                }
                _ => inst.seed(by),
            })
        })
        .collect()
}

fn evolve(
    exp: &StochasticExperiment,
    inst: &Stochastic,
    seeds: Vec<Vec<SGene>>,
    p: usize,
    watch: &Watch<'_, SFront>,
) -> anyhow::Result<Vec<SFront>> {
    let start = Instant::now();
    let rng = Stream::new(exp.seed, p as u32, "s002-ch7-nsga2", 0);
    let mut ga = Nsga2::new(inst, exp.params, seeds, rng);
    evolve_to_checkpoints(&mut ga, p, &exp.checkpoints, watch, start, |ga, cp| {
        let obj = ga.objectives();
        let mut idx = ga.front();
        idx.sort_by(|&a, &b| {
            obj[a][0]
                .total_cmp(&obj[b][0])
                .then(obj[a][1].total_cmp(&obj[b][1]))
                .then(a.cmp(&b))
        });
        idx.dedup_by(|a, b| obj[*a] == obj[*b]);
        SFront {
            score: p,
            generation: cp,
            points: idx.iter().map(|&i| obj[i]).collect(),
            chromosomes: idx.iter().map(|&i| ga.population()[i].clone()).collect(),
            elapsed: start.elapsed(),
        }
    })
}

/// One final allocation under fresh samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Cloud {
    /// Index into the experiment's scores.
    pub score: usize,
    /// Its point on the score's front.
    pub point: usize,
    /// With mean times.
    pub expected: Outcome,
    /// Under each fresh sample.
    pub samples: Vec<Outcome>,
    /// Under the same samples, unqueued ([`Stochastic::run_unqueued`]).
    pub unqueued: Vec<Outcome>,
}

/// Every final allocation of every score under `exp.fuzzy` fresh samples (the same
/// samples for every allocation: stream index 0).
pub fn clouds(exp: &StochasticExperiment, insts: &[Stochastic], fronts: &[SFront]) -> Vec<Cloud> {
    let last = *exp.checkpoints.last().expect("checked");
    let work: Vec<(usize, usize, &Vec<SGene>)> = fronts
        .iter()
        .filter(|f| f.generation == last)
        .flat_map(|f| {
            f.chromosomes
                .iter()
                .enumerate()
                .map(move |(i, c)| (f.score, i, c))
        })
        .collect();
    work.par_iter()
        .map(|&(s, i, c)| {
            let inst = &insts[s];
            let mut sc = crate::nsga2::Problem::scratch(inst);
            let (samples, unqueued) = inst.fuzzy_both(c, exp.fuzzy, exp.seed, 0);
            Cloud {
                score: s,
                point: i,
                expected: inst.run_once(c, None, &mut sc),
                samples,
                unqueued,
            }
        })
        .collect()
}

fn mean_sd(x: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = x.clone().count() as f64;
    let m = x.clone().sum::<f64>() / n;
    let v = x.map(|v| (v - m) * (v - m)).sum::<f64>() / n;
    (m, libm::sqrt(v))
}

/// The X-th (1-based) of `v` by `desc`ending or ascending order.
fn pick(mut v: Vec<f64>, x: usize, desc: bool) -> f64 {
    v.sort_by(|a, b| if desc { b.total_cmp(a) } else { a.total_cmp(b) });
    v[x.clamp(1, v.len()) - 1]
}

/// The share of `v` earning more than `e` (utility), spending less (energy), and both.
fn shares(v: &[Outcome], e: &Outcome) -> (f64, f64, f64) {
    let n = v.len() as f64;
    let count = |f: &dyn Fn(&Outcome) -> bool| v.iter().filter(|o| f(o)).count() as f64 / n;
    (
        count(&|o| o.utility > e.utility),
        count(&|o| o.energy_j < e.energy_j),
        count(&|o| o.utility > e.utility && o.energy_j < e.energy_j),
    )
}

/// Per allocation: mean-time outcome, drops, fresh-sample mean and spread, the correlation
/// of utility with energy over the samples (with the spreads, Fig. 7.7's ellipse), the
/// share of samples earning more / spending less / both than the mean-time run (Fig. 7.4),
/// the same shares unqueued (`Stochastic::run_unqueued`, the test of Fig. 7.4's
/// explanation), and the fresh-sample median.
pub fn clouds_csv(exp: &StochasticExperiment, clouds: &[Cloud]) -> String {
    let mut s = String::from(
        "score,point,expected_utility,expected_energy_j,dropped,mean_utility,sd_utility,\
         mean_energy_j,sd_energy_j,share_utility_above_expected,share_energy_below_expected,\
         median_utility,median_energy_j,corr_utility_energy,share_both,\
         unqueued_share_utility_above_expected,unqueued_share_energy_below_expected,\
         unqueued_share_both\n",
    );
    for c in clouds {
        let (mu, su) = mean_sd(c.samples.iter().map(|o| o.utility));
        let (me, se) = mean_sd(c.samples.iter().map(|o| o.energy_j));
        let n = c.samples.len() as f64;
        let cross = c
            .samples
            .iter()
            .map(|o| (o.utility - mu) * (o.energy_j - me))
            .sum::<f64>()
            / n;
        let corr = if su > 0.0 && se > 0.0 {
            cross / (su * se)
        } else {
            0.0
        };
        let (above, below, both) = shares(&c.samples, &c.expected);
        let (ua, ub, uboth) = shares(&c.unqueued, &c.expected);
        let half = c.samples.len().div_ceil(2);
        let _ = writeln!(
            s,
            "{},{},{:.4},{:.1},{},{mu:.4},{su:.4},{me:.1},{se:.1},{above:.3},{below:.3},{:.4},{:.1},\
             {corr:.4},{both:.3},{ua:.3},{ub:.3},{uboth:.3}",
            exp.scores[c.score].name(),
            c.point,
            c.expected.utility,
            c.expected.energy_j,
            c.expected.dropped,
            pick(c.samples.iter().map(|o| o.utility).collect(), half, true),
            pick(c.samples.iter().map(|o| o.energy_j).collect(), half, false),
        );
    }
    s
}

/// Fig. 7.7: each expected-value allocation as an ellipse, centred on its fresh-sample
/// mean, energy across normalised by the least mean energy, utility up normalised by the
/// largest mean utility (one-to-one axes, as the figure), half-axes and tilt from the
/// samples' covariance (two standard deviations), coloured by dropped tasks from blue
/// (fewest) to red (most).
pub fn ellipses_svg(exp: &StochasticExperiment, clouds: &[Cloud]) -> String {
    let mine: Vec<&Cloud> = clouds
        .iter()
        .filter(|c| exp.scores[c.score] == Score::Expected)
        .collect();
    let stats: Vec<(f64, f64, f64, f64, f64, u32)> = mine
        .iter()
        .map(|c| {
            let (mu, su) = mean_sd(c.samples.iter().map(|o| o.utility));
            let (me, se) = mean_sd(c.samples.iter().map(|o| o.energy_j));
            let n = c.samples.len() as f64;
            let cov = c
                .samples
                .iter()
                .map(|o| (o.utility - mu) * (o.energy_j - me))
                .sum::<f64>()
                / n;
            (mu, su, me, se, cov, c.expected.dropped)
        })
        .collect();
    let min_e = stats.iter().map(|s| s.2).fold(f64::INFINITY, f64::min);
    let max_u = stats.iter().map(|s| s.0).fold(0.0, f64::max);
    let (w, h, pad) = (640.0, 640.0, 60.0);
    let mut body = String::new();
    if stats.is_empty() || min_e <= 0.0 || max_u <= 0.0 {
        body.push_str("<text x=\"320\" y=\"320\" text-anchor=\"middle\">no expected-value allocations</text>\n");
    } else {
        // Normalised units on both axes; one scale for both (one-to-one aspect).
        let pts: Vec<(f64, f64)> = stats.iter().map(|s| (s.2 / min_e, s.0 / max_u)).collect();
        let reach = |i: usize| 2.0 * (stats[i].3 / min_e).max(stats[i].1 / max_u);
        let x0 = (0..pts.len())
            .map(|i| pts[i].0 - reach(i))
            .fold(f64::INFINITY, f64::min);
        let x1 = (0..pts.len())
            .map(|i| pts[i].0 + reach(i))
            .fold(f64::NEG_INFINITY, f64::max);
        let y0 = (0..pts.len())
            .map(|i| pts[i].1 - reach(i))
            .fold(f64::INFINITY, f64::min);
        let y1 = (0..pts.len())
            .map(|i| pts[i].1 + reach(i))
            .fold(f64::NEG_INFINITY, f64::max);
        let span = (x1 - x0).max(y1 - y0).max(1e-12);
        let k = (w - 2.0 * pad) / span;
        let (dmin, dmax) = stats
            .iter()
            .fold((u32::MAX, 0), |(a, b), s| (a.min(s.5), b.max(s.5)));
        for (i, s) in stats.iter().enumerate() {
            // Covariance in normalised units; its eigen-decomposition gives the ellipse.
            let (sx, sy) = (s.3 / min_e, s.1 / max_u);
            let cxy = s.4 / (min_e * max_u);
            let (a, b, c) = (sx * sx, cxy, sy * sy);
            let mid = (a + c) / 2.0;
            let rad = libm::sqrt(((a - c) / 2.0).powi(2) + b * b);
            let (l1, l2) = (mid + rad, (mid - rad).max(0.0));
            let angle = 0.5 * libm::atan2(2.0 * b, a - c);
            let t = if dmax > dmin {
                (s.5 - dmin) as f64 / (dmax - dmin) as f64
            } else {
                0.0
            };
            let (r, g, bl) = ((255.0 * t) as u8, 40u8, (255.0 * (1.0 - t)) as u8);
            let cx = pad + (pts[i].0 - x0) * k;
            let cy = h - pad - (pts[i].1 - y0) * k;
            let _ = writeln!(
                body,
                "<ellipse cx=\"{cx:.2}\" cy=\"{cy:.2}\" rx=\"{:.2}\" ry=\"{:.2}\" \
                 transform=\"rotate({:.2} {cx:.2} {cy:.2})\" fill=\"none\" \
                 stroke=\"rgb({r},{g},{bl})\"><title>point {}: {} dropped</title></ellipse>",
                2.0 * libm::sqrt(l1) * k,
                2.0 * libm::sqrt(l2) * k,
                -angle.to_degrees(),
                mine[i].point,
                s.5,
            );
        }
        let _ = writeln!(
            body,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">energy / least energy ({x0:.4} to {:.4})</text>\n\
             <text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">utility / most utility ({y0:.4} to {:.4})</text>\n\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\">blue: {dmin} dropped, red: {dmax}</text>",
            w / 2.0,
            h - 16.0,
            x0 + span,
            h / 2.0,
            h / 2.0,
            y0 + span,
            w - pad,
            pad - 24.0,
        );
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">{}: Fig. 7.7, each allocation's spread (2 sd)</text>\n\
         <rect x=\"{pad}\" y=\"{pad}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n{body}</svg>\n",
        w / 2.0,
        exp.title.replace('&', "&amp;").replace('<', "&lt;"),
        w - 2.0 * pad,
        h - 2.0 * pad,
    )
}

/// Fig. 7.6, numerically: each score's final allocations at their fresh-sample medians;
/// for every ordered pair, the coverage of one over the other, overall and over the other's
/// lower and upper half by utility per energy.
pub fn coverage_csv(exp: &StochasticExperiment, clouds: &[Cloud]) -> String {
    let half = |c: &Cloud| c.samples.len().div_ceil(2);
    let med: Vec<(usize, Point)> = clouds
        .iter()
        .map(|c| {
            let u = pick(c.samples.iter().map(|o| o.utility).collect(), half(c), true);
            let e = pick(
                c.samples.iter().map(|o| o.energy_j).collect(),
                half(c),
                false,
            );
            (c.score, [-u, e])
        })
        .collect();
    let mut s = String::from("a,b,coverage_all,coverage_low_upe,coverage_high_upe\n");
    for a in 0..exp.scores.len() {
        for b in 0..exp.scores.len() {
            if a == b {
                continue;
            }
            let pa: Vec<Point> = med.iter().filter(|m| m.0 == a).map(|m| m.1).collect();
            let mut pb: Vec<Point> = med.iter().filter(|m| m.0 == b).map(|m| m.1).collect();
            pb.sort_by(|x, y| (-x[0] / x[1]).total_cmp(&(-y[0] / y[1])));
            let cov = |q: &[Point]| {
                if q.is_empty() {
                    return 0.0;
                }
                q.iter()
                    .filter(|q| pa.iter().any(|p| dominates(p, q)))
                    .count() as f64
                    / q.len() as f64
            };
            let (lo, hi) = pb.split_at(pb.len() / 2);
            let _ = writeln!(
                s,
                "{},{},{:.4},{:.4},{:.4}",
                exp.scores[a].name(),
                exp.scores[b].name(),
                cov(&pb),
                cov(lo),
                cov(hi)
            );
        }
    }
    s
}

/// `fronts.csv`, `timings.csv` and the text table of `fronts`.
fn fronts_texts(exp: &StochasticExperiment, fronts: &[SFront]) -> (String, String, String) {
    let mut f = String::from("score,generation,point,utility,energy_j\n");
    let mut t = String::from("score,generation,elapsed_s\n");
    let mut table = String::new();
    for fr in fronts {
        for (i, p) in fr.points.iter().enumerate() {
            let _ = writeln!(
                f,
                "{},{},{i},{:.6},{:.3}",
                exp.scores[fr.score].name(),
                fr.generation,
                -p[0],
                p[1]
            );
        }
        let _ = writeln!(
            t,
            "{},{},{:.3}",
            exp.scores[fr.score].name(),
            fr.generation,
            fr.elapsed.as_secs_f64()
        );
        let _ = writeln!(
            table,
            "{:<9} generation {:>7}: {:>4} points, {:.1} s",
            exp.scores[fr.score].name(),
            fr.generation,
            fr.points.len(),
            fr.elapsed.as_secs_f64()
        );
    }
    (f, t, table)
}

/// Writes the fronts reached so far (`timings.csv`, then `fronts.csv`) to `dir` during a
/// run, each file whole; the final [`write_all`] writes the same files over them.
pub fn write_reached(
    dir: &Path,
    exp: &StochasticExperiment,
    fronts: &[SFront],
) -> anyhow::Result<()> {
    let (f, t, _) = fronts_texts(exp, fronts);
    crate::output::write_atomic(&dir.join("timings.csv"), t)?;
    crate::output::write_atomic(&dir.join("fronts.csv"), f)
}

/// Writes fronts.csv, timings.csv, clouds.csv, the plots, allocations.csv and, last,
/// coverage.csv to `dir`,
/// each file whole (written beside and renamed).
pub fn write_all(
    dir: &Path,
    exp: &StochasticExperiment,
    fronts: &[SFront],
    clouds: &[Cloud],
) -> anyhow::Result<String> {
    std::fs::create_dir_all(dir)?;
    let write = |name: &str, text: &str| crate::output::write_atomic(&dir.join(name), text);
    let (f, t, table) = fronts_texts(exp, fronts);
    write("fronts.csv", &f)?;
    write("timings.csv", &t)?;
    write("clouds.csv", &clouds_csv(exp, clouds))?;
    let last = *exp.checkpoints.last().expect("checked");
    let series: Vec<ScatterSeries> = (0..exp.scores.len())
        .map(|s| ScatterSeries {
            label: format!("{} (front and fresh samples)", exp.scores[s].name()),
            points: clouds
                .iter()
                .filter(|c| c.score == s)
                .flat_map(|c| c.samples.iter().map(|o| (o.energy_j / 1e6, o.utility)))
                .collect(),
            front: fronts
                .iter()
                .filter(|f| f.score == s && f.generation == last)
                .flat_map(|f| f.points.iter().map(|p| (p[1] / 1e6, -p[0])))
                .collect(),
        })
        .collect();
    write(
        "fuzzy.svg",
        &scatter(
            &format!("{}: generation {last}", exp.title),
            "fronts under their own score; dots: each allocation under fresh samples",
            "energy consumed (MJ)",
            "utility earned",
            &series,
        ),
    )?;
    write("ellipses.svg", &ellipses_svg(exp, clouds))?;
    write(
        "allocations.csv",
        &allocations_csv(
            "score",
            fronts
                .iter()
                .filter(|f| f.generation == last)
                .map(|f| FrontGenes {
                    label: exp.scores[f.score].name(),
                    generation: f.generation,
                    chromosomes: &f.chromosomes,
                }),
        ),
    )?;
    // Last: its presence marks the folder as holding a whole run's reports.
    write("coverage.csv", &coverage_csv(exp, clouds))?;
    Ok(table)
}

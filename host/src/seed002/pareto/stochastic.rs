//! Seed 002 Chapter 7: utility-energy allocation under stochastic execution times, on the
//! §1 platform (13 machine types, 100 machines) with three P-states.
//!
//! - Trace (§7.3.1): about 6,000 tasks over 4 h, general types arriving on App. F's
//!   sinusoids and special types in its bursts (`generate::trial`, the Chapter 2-4
//!   generator, at the rate that expects that count over the window);
//!   [`Arrivals::Uniform`] (uniform arrival times) only for small test instances.
//! - Platform: Chapter 2's ETC at P0 (`generate::etc_table`) and part 2's P-state model,
//!   the very tables Chapters 3-4 run on (`energy_env::power_tables`, trial 0): APC(i, j, k)
//!   = static(j) + dynamic(i, j) x {1, 0.75, 0.5}_k, in integer milliwatts, and ETC(i, j, k)
//!   = ETC(i, j, 0) x f_k, P-state 0 the fastest.
//! - Each (i, j, k) time is a Gamma(mean ETC(i, j, k), COV ~ U[0.1, 1.5]) discretised into 64
//!   equal-probability bins (each the mean of its 1/64 of 2,048 sorted draws); its mean is
//!   the mean of the bins. APC is deterministic.
//! - A gene is (machine, P-state, key); a machine runs its tasks by key (ties by index); at
//!   its start a task whose utility at start + mean time is below 0.5 is dropped and costs
//!   nothing.
//! - Objectives: "expected" evaluates once with mean times; "pX" evaluates N samples (common
//!   random numbers: sample s draws every task's bin from the same stream for every
//!   chromosome) and takes the X-th utility (descending) and the X-th energy (ascending).
//! - The fuzzy front: every final allocation under `fuzzy` fresh samples (another stream).
//! - Seeds: the dissertation seeds with traces of its dynamic heuristics (§7.3.4): Max
//!   Utility, Max UPT, Max UPP and Max UPE run in the core's event loop and their allocation
//!   is read back (`dynamic_seeds`). [`Stochastic::seed`] is the one-pass form over
//!   (machine, P-state) with mean times: Max Utility (min completion), Max UPT (U / ETC),
//!   Max UPP (U / APC), Max UPE (U / EEC); a task whose best option earns below 0.5 is
//!   dropped and gets the last keys; they seed when an experiment asks for
//!   `seed_kind = "one-pass"`.
//!
//! Speed: machines do not interact, so a pass is the machines' shares summed (fixed-point
//! utility, integer mJ: exact in any order). Each evaluation keeps every machine's share of
//! every pass (the memo, `stochastic_memo`), and a child runs again only the machines a gene
//! that differs from its nearer parent touches; the drop test takes the curves' faster value
//! where it decides as the exact one (`Curves::below`). On the §7.3.1 file
//! (`experiments/s002-pareto-fig7.4-7.7-stochastic.toml`, `--threads 1`, user CPU of
//! `--checkpoints 0,20` less `--checkpoints 0`): 3.2 s a generation of its 6 populations,
//! 8.7 s when every child ran every machine with the exact drop test; a `p50` population
//! resumed at generation 200 (`--state`, `--resume`, generations 210 to 230): 0.47 s a
//! generation, 1.41 s without either. Fronts byte-identical (docs/performance.md).

use crate::generate::rng::Stream;
use crate::nsga2::{Cross, Point, Problem};
use crate::seed002::energy::env::power_tables;
use crate::seed002::generate::{etc_table, machines, trial, Workload, MACHINE_COUNTS};
use crate::seed002::pareto::curve::Curves;
use crate::seed002::pareto::data::Tables;
use crate::seed002::pareto::sets::trace;
use crate::seed002::pareto::Task;
use kairos_core::units::{Micros, Utility};
use kairos_core::utility::UtilityClasses;

/// P-states.
pub const PSTATES: usize = 3;
/// Equal-probability bins of each execution-time distribution.
pub const BINS: usize = 64;
/// Draws per bin when discretising.
const DRAWS_PER_BIN: usize = 32;
/// The dropping threshold at a task's start (§7.3).
pub const THETA: f64 = 0.5;

/// One gene.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SGene {
    /// The machine.
    pub machine: u16,
    /// The P-state (0 fastest).
    pub pstate: u8,
    /// The order key.
    pub key: u32,
}

/// How Chapter 7's trace arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// `tasks` arrival times uniform over `window`, types uniform (small test instances).
    Uniform {
        /// Tasks in the trace.
        tasks: usize,
        /// The window.
        window: Micros,
    },
    /// §7.3.1 and App. F: about `tasks` over `hours` (the expected count; the drawn one
    /// varies), 100 types, general types on sinusoids, special types bursty.
    AppendixF {
        /// Expected tasks over the window.
        tasks: usize,
        /// The window, in whole hours.
        hours: u64,
    },
}

/// How a chromosome is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// One evaluation with mean times.
    Expected,
    /// The X-th (1-based) of the samples: utility descending, energy ascending.
    Percentile(usize),
}

impl Score {
    /// `expected` or `pX`.
    pub fn name(self) -> String {
        match self {
            Score::Expected => "expected".into(),
            Score::Percentile(x) => format!("p{x}"),
        }
    }
}

/// The stochastic instance.
pub struct Stochastic {
    /// Each machine's type.
    pub machine_type: Vec<u8>,
    /// The tasks, by arrival.
    pub tasks: Vec<Task>,
    /// Their curves' classes.
    pub classes: UtilityClasses,
    /// How chromosomes are scored.
    pub score: Score,
    machine_types: usize,
    /// Mean time per (type, machine type, P-state) ([`Micros::MAX`]: cannot run).
    mean: Vec<Micros>,
    /// Mean energy (mJ) per (type, machine type, P-state).
    mean_mj: Vec<u64>,
    /// APC (W) per (type, machine type, P-state).
    apc: Vec<f64>,
    /// Bin times per (type, machine type, P-state, bin).
    bins: Vec<Micros>,
    /// Bin energies (mJ), same layout.
    bins_mj: Vec<u64>,
    /// The common random numbers: bin of (sample, task).
    crn: Vec<u8>,
    samples: usize,
    eligible: Vec<Vec<u16>>,
    /// The tasks' curves, prepared.
    curves: Curves,
}

/// Per-(sample) results of [`Stochastic::run_once`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Utility earned.
    pub utility: f64,
    /// Energy, joules.
    pub energy_j: f64,
    /// Tasks dropped.
    pub dropped: u32,
}

impl Stochastic {
    /// The platform of `seed` with `n` tasks arriving uniformly over `window` (Chapter 2's
    /// utilities), scored by `score` over `samples` samples.
    pub fn new(seed: u64, n: usize, window: Micros, score: Score, samples: usize) -> Stochastic {
        Stochastic::with_arrivals(seed, Arrivals::Uniform { tasks: n, window }, score, samples)
    }

    /// The platform of `seed` with the trace `arrivals` draws (Chapter 2's utilities),
    /// scored by `score` over `samples` samples.
    pub fn with_arrivals(
        seed: u64,
        arrivals: Arrivals,
        score: Score,
        samples: usize,
    ) -> Stochastic {
        let mt = MACHINE_COUNTS.len();
        let etc0 = etc_table(seed, 0);
        let types = etc0.len() / mt;
        let power = power_tables(seed, 0, &etc0);
        debug_assert_eq!(power.etc.len(), etc0.len() * PSTATES);
        let idx = |i: usize, j: usize, k: usize| (i * mt + j) * PSTATES + k;
        let mut mean = vec![Micros::MAX; types * mt * PSTATES];
        let mut mean_mj = vec![u64::MAX; mean.len()];
        let mut apc = vec![0.0; mean.len()];
        let mut bins = vec![Micros::MAX; mean.len() * BINS];
        let mut bins_mj = vec![u64::MAX; bins.len()];
        for i in 0..types {
            for j in 0..mt {
                if etc0[i * mt + j] == Micros::MAX {
                    continue;
                }
                let mut rs = Stream::new(seed, 0, "s002-ch7-stochastic", (i * mt + j) as u32);
                for k in 0..PSTATES {
                    let at = idx(i, j, k);
                    let w = power.apc_mw[at] as f64 / 1000.0;
                    let mean_s = power.etc[at].as_secs_f64();
                    let cov = rs.uniform(0.1, 1.5);
                    let mut draws: Vec<f64> = (0..BINS * DRAWS_PER_BIN)
                        .map(|_| rs.gamma_mean_cov(mean_s, cov))
                        .collect();
                    draws.sort_by(f64::total_cmp);
                    apc[at] = w;
                    let (mut sum_t, mut sum_e) = (0u64, 0u64);
                    for b in 0..BINS {
                        let chunk = &draws[b * DRAWS_PER_BIN..(b + 1) * DRAWS_PER_BIN];
                        let t =
                            Micros::from_secs_f64(chunk.iter().sum::<f64>() / DRAWS_PER_BIN as f64)
                                .max(Micros(1));
                        let e = mj(t, w);
                        bins[at * BINS + b] = t;
                        bins_mj[at * BINS + b] = e;
                        sum_t += t.0;
                        sum_e += e;
                    }
                    mean[at] = Micros(sum_t / BINS as u64);
                    mean_mj[at] = sum_e / BINS as u64;
                }
            }
        }
        let tables = Tables {
            task_types: types,
            machine_types: mt,
            special_types: 4,
            etc_s: etc0
                .iter()
                .map(|e| {
                    if *e == Micros::MAX {
                        f64::INFINITY
                    } else {
                        e.as_secs_f64()
                    }
                })
                .collect(),
            epc_w: vec![0.0; etc0.len()],
            source: String::new(),
        };
        let tasks = match arrivals {
            Arrivals::Uniform { tasks, window } => trace(&tables, tasks, window, seed),
            Arrivals::AppendixF { tasks, hours } => appendix_f(seed, tasks, hours),
        };
        let n = tasks.len();
        let machine_type = machines();
        let eligible = (0..types)
            .map(|i| {
                (0..machine_type.len() as u16)
                    .filter(|&m| etc0[i * mt + machine_type[m as usize] as usize] != Micros::MAX)
                    .collect()
            })
            .collect();
        let mut rc = Stream::new(seed, 0, "s002-ch7-crn", 0);
        let crn = (0..samples * n)
            .map(|_| rc.int(0, BINS as u64 - 1) as u8)
            .collect();
        let classes = UtilityClasses::essc20();
        Stochastic {
            curves: Curves::new(tasks.iter().map(|t| &t.curve), &classes),
            machine_type,
            tasks,
            classes,
            score,
            machine_types: mt,
            mean,
            mean_mj,
            apc,
            bins,
            bins_mj,
            crn,
            samples,
            eligible,
        }
    }

    /// Machine types (the tables' columns).
    pub fn machine_types(&self) -> usize {
        self.machine_types
    }

    /// Task types (the tables' rows).
    pub fn task_types(&self) -> usize {
        self.mean.len() / (self.machine_types * PSTATES)
    }

    /// Samples per probabilistic evaluation (N).
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Of task type `i` on machine type `j` at P-state `k`: mean time ([`Micros::MAX`]:
    /// cannot run), mean energy (mJ), APC (W), and the bins' times and energies (mJ).
    pub fn costs(&self, i: usize, j: usize, k: usize) -> (Micros, u64, f64, &[Micros], &[u64]) {
        let at = (i * self.machine_types + j) * PSTATES + k;
        (
            self.mean[at],
            self.mean_mj[at],
            self.apc[at],
            &self.bins[at * BINS..(at + 1) * BINS],
            &self.bins_mj[at * BINS..(at + 1) * BINS],
        )
    }

    /// The common random numbers: sample `s`'s bin for each task.
    pub fn crn(&self, s: usize) -> &[u8] {
        let n = self.tasks.len();
        &self.crn[s * n..(s + 1) * n]
    }

    /// The machines task `t` can run on, ascending.
    pub fn eligible_machines(&self, t: usize) -> &[u16] {
        &self.eligible[self.tasks[t].ty as usize]
    }

    fn at(&self, t: usize, g: &SGene) -> usize {
        (self.tasks[t].ty as usize * self.machine_types
            + self.machine_type[g.machine as usize] as usize)
            * PSTATES
            + g.pstate as usize
    }

    /// What task `t` is worth completing at `end` (its curve's `value_at`).
    fn utility(&self, t: usize, end: Micros) -> f64 {
        self.curves
            .value(t, end.saturating_sub(self.tasks[t].arrival))
    }

    /// One pass of `c`: with mean times (`bins` None) or with task t's time from bin
    /// `bins[t]`.
    pub fn run_once(&self, c: &[SGene], bins: Option<&[u8]>, s: &mut SScratch) -> Outcome {
        self.pass(c, bins, true, s)
    }

    /// Fig. 7.4's explanation put to the test: `c` with task t's time from bin `bins[t]`
    /// for its own completion and energy, but each machine's queue advanced by the mean
    /// time, so a long draw delays no later task (every start and drop as in the mean-time
    /// run). If the queue is what makes samples earn less than the mean-time run, samples
    /// earn more here, as the Gamma median below its mean says.
    pub fn run_unqueued(&self, c: &[SGene], bins: &[u8], s: &mut SScratch) -> Outcome {
        self.pass(c, Some(bins), false, s)
    }

    /// [`Stochastic::run_once`] (`queued`: a machine is free when its task ends) and
    /// [`Stochastic::run_unqueued`] (free at start + mean time): every machine's list
    /// ([`Stochastic::gather`]) run by [`Stochastic::run_machine`], the shares summed
    /// (integers, so in any order).
    fn pass(&self, c: &[SGene], bins: Option<&[u8]>, queued: bool, s: &mut SScratch) -> Outcome {
        self.gather(c, None, s);
        let (mut utility, mut energy, mut dropped) = (Utility::ZERO, 0u64, 0u32);
        for list in &s.lists {
            let (share, d) = self.run_machine(list, bins, queued);
            utility += share.utility;
            energy += share.energy;
            dropped += d;
        }
        Outcome {
            utility: utility.as_f64(),
            energy_j: energy as f64 / 1000.0,
            dropped,
        }
    }

    /// Writes into `s.lists[m]`, for each machine `m` that `only` selects (every machine
    /// when `None`), the tasks `c` puts on it in run order: by key, ties by index (keys are
    /// below the task count: a bucket per key, each pushed from the last task down). The
    /// other machines' lists are left empty.
    fn gather(&self, c: &[SGene], only: Option<&[bool]>, s: &mut SScratch) {
        for list in &mut s.lists {
            list.clear();
        }
        for t in (0..c.len()).rev() {
            if only.is_none_or(|d| d[c[t].machine as usize]) {
                let k = c[t].key as usize;
                s.next[t] = s.head[k];
                s.head[k] = t as u32;
            }
        }
        for k in 0..c.len() {
            let mut t = std::mem::replace(&mut s.head[k], u32::MAX);
            while t != u32::MAX {
                let i = t as usize;
                let g = &c[i];
                s.lists[g.machine as usize].push(Queued {
                    task: t,
                    at: self.at(i, g) as u32,
                    arrival: self.tasks[i].arrival,
                });
                t = s.next[i];
            }
        }
    }

    /// One machine's share of a pass over its tasks `list` in run order
    /// ([`Stochastic::gather`]), with mean times (`bins` None) or task t's time from bin
    /// `bins[t]`, and its drops. The one place a task is started, dropped or run: machines
    /// do not interact (a task starts at max(its machine's free time, its arrival)), so a
    /// pass is the machines' shares summed, and a machine whose list is a parent's keeps
    /// the parent's share ([`SMemo`]).
    #[inline]
    fn run_machine(&self, list: &[Queued], bins: Option<&[u8]>, queued: bool) -> (Share, u32) {
        let mut free = Micros::ZERO;
        let (mut utility, mut energy, mut dropped) = (Utility::ZERO, 0u64, 0u32);
        for q in list {
            let (i, at) = (q.task as usize, q.at as usize);
            let start = free.max(q.arrival);
            let mean = self.mean[at];
            if self
                .curves
                .below(i, (start + mean).saturating_sub(q.arrival), THETA)
            {
                dropped += 1;
                continue;
            }
            let (time, e) = match bins {
                None => (mean, self.mean_mj[at]),
                Some(b) => {
                    let x = at * BINS + b[i] as usize;
                    (self.bins[x], self.bins_mj[x])
                }
            };
            let end = start + time;
            free = if queued { end } else { start + mean };
            utility += self.curves.utility(i, end.saturating_sub(q.arrival));
            energy += e;
        }
        (Share { utility, energy }, dropped)
    }

    /// `c` under `n` fresh samples (stream "s002-ch7-fuzzy", `index`): the fuzzy front's
    /// cloud.
    pub fn fuzzy(&self, c: &[SGene], n: usize, seed: u64, index: u32) -> Vec<Outcome> {
        self.fuzzy_both(c, n, seed, index).0
    }

    /// [`Stochastic::fuzzy`] and, under the very same samples, [`Stochastic::run_unqueued`].
    pub fn fuzzy_both(
        &self,
        c: &[SGene],
        n: usize,
        seed: u64,
        index: u32,
    ) -> (Vec<Outcome>, Vec<Outcome>) {
        let mut r = Stream::new(seed, 0, "s002-ch7-fuzzy", index);
        let mut s = self.scratch();
        let mut b = vec![0u8; c.len()];
        (0..n)
            .map(|_| {
                for x in b.iter_mut() {
                    *x = r.int(0, BINS as u64 - 1) as u8;
                }
                (
                    self.run_once(c, Some(&b), &mut s),
                    self.run_unqueued(c, &b, &mut s),
                )
            })
            .unzip()
    }

    /// A one-pass seed (see the module's notes): `by` scores an option from its utility,
    /// time, power and energy; the highest wins, ties by earlier completion, then lower
    /// machine, then lower P-state.
    pub fn seed(&self, by: SeedScore) -> Vec<SGene> {
        let mut free = vec![Micros::ZERO; self.machine_type.len()];
        let mut out = Vec::with_capacity(self.tasks.len());
        let mut dropped = Vec::new();
        for t in 0..self.tasks.len() {
            let mut best: Option<(f64, Micros, SGene)> = None;
            for &m in &self.eligible[self.tasks[t].ty as usize] {
                for k in 0..PSTATES as u8 {
                    let g = SGene {
                        machine: m,
                        pstate: k,
                        key: 0,
                    };
                    let at = self.at(t, &g);
                    let end = free[m as usize].max(self.tasks[t].arrival) + self.mean[at];
                    let u = self.utility(t, end);
                    let v = by(
                        u,
                        self.mean[at].as_secs_f64(),
                        self.apc[at],
                        self.mean_mj[at] as f64 / 1000.0,
                    );
                    if best.is_none_or(|(bv, be, _)| v > bv || (v == bv && end < be)) {
                        best = Some((v, end, g));
                    }
                }
            }
            let (_, end, mut g) = best.expect("every task has an eligible machine");
            let start = free[g.machine as usize].max(self.tasks[t].arrival);
            let at = self.at(t, &g);
            if self.utility(t, start + self.mean[at]) < THETA {
                dropped.push(out.len());
            } else {
                free[g.machine as usize] = end;
                g.key = (out.len() - dropped.len()) as u32;
            }
            out.push(g);
        }
        let kept = out.len() - dropped.len();
        for (n, &t) in dropped.iter().enumerate() {
            out[t].key = (kept + n) as u32;
        }
        out
    }
}

/// Micros x W in millijoules, rounded.
/// §7.3.1's trace: Chapter 2's generator (`generate::trial`, trial 0, whose ETC is the
/// platform's) over `hours` from time zero (no warm-up), at the daily rate that expects
/// `tasks` in the window, priorities 8, 4, 2, 1 and Table C.1's four utility classes
/// (§7.3.1: "4 urgency levels and 4 utility classes").
fn appendix_f(seed: u64, tasks: usize, hours: u64) -> Vec<Task> {
    let w = Workload {
        tasks_per_day: tasks as f64 * 24.0 / hours as f64,
        horizon_hours: hours,
        warmup_hours: 0,
        ..Workload::chapter2(seed, 0.0)
    };
    trial(&w, 0)
        .tasks
        .into_iter()
        .map(|t| Task {
            ty: t.ty,
            arrival: t.arrival,
            curve: t.curve,
        })
        .collect()
}

fn mj(t: Micros, w: f64) -> u64 {
    libm::round(t.0 as f64 * w / 1000.0) as u64
}

/// A seed's score of an option from its utility, time (s), power (W) and energy (J).
pub type SeedScore = fn(f64, f64, f64, f64) -> f64;

/// The seeds' scores: Max Utility, Max UPT, Max UPP, Max UPE (names for reports).
pub const SEEDS: [(&str, SeedScore); 4] = [
    ("max-utility", |_, _, _, _| 0.0),
    ("max-upt", |u, t, _, _| u / t),
    ("max-upp", |u, _, p, _| u / p),
    ("max-upe", |u, _, _, e| u / e),
];

/// Working memory of one evaluation.
pub struct SScratch {
    /// First task of each key's bucket (u32::MAX: empty).
    head: Vec<u32>,
    /// Next task in the same bucket.
    next: Vec<u32>,
    /// Per machine, its tasks in run order ([`Stochastic::gather`]).
    lists: Vec<Vec<Queued>>,
    /// Per parent, the machines a differing gene touches (left all false between calls).
    dirty: [Vec<bool>; 2],
    /// The memo of an evaluation nobody keeps.
    own: SMemo,
    /// Per pass, utility and energy summed over the machines.
    totals: Vec<Share>,
    u: Vec<f64>,
    e: Vec<f64>,
}

/// A task in its machine's list, with what every pass over the list reads of it.
#[derive(Clone, Copy, Debug)]
struct Queued {
    task: u32,
    /// Its row of the (type, machine type, P-state) tables.
    at: u32,
    arrival: Micros,
}

/// One mutation's draws: task `task` gets `machine` and `pstate`, the genes `swap` swap keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SMutation {
    task: usize,
    machine: u16,
    pstate: u8,
    swap: [usize; 2],
}

impl Problem for Stochastic {
    type Gene = SGene;
    type Scratch = SScratch;
    type Memo = SMemo;
    type Mutation = SMutation;

    fn genes(&self) -> usize {
        self.tasks.len()
    }

    fn scratch(&self) -> SScratch {
        let machines = self.machine_type.len();
        SScratch {
            head: vec![u32::MAX; self.tasks.len()],
            next: vec![u32::MAX; self.tasks.len()],
            lists: vec![Vec::new(); machines],
            dirty: [vec![false; machines], vec![false; machines]],
            own: SMemo::default(),
            totals: Vec::with_capacity(self.passes()),
            u: Vec::with_capacity(self.samples),
            e: Vec::with_capacity(self.samples),
        }
    }

    fn random(&self, rng: &mut Stream) -> Vec<SGene> {
        let n = self.tasks.len();
        let mut keys: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            keys.swap(i, rng.int(0, i as u64) as usize);
        }
        (0..n)
            .map(|t| {
                let e = &self.eligible[self.tasks[t].ty as usize];
                SGene {
                    machine: e[rng.int(0, e.len() as u64 - 1) as usize],
                    pstate: rng.int(0, PSTATES as u64 - 1) as u8,
                    key: keys[t],
                }
            })
            .collect()
    }

    /// One random gene gets a random eligible machine and P-state, and two random genes swap
    /// their keys.
    fn draw_mutation(&self, rng: &mut Stream) -> SMutation {
        let n = self.tasks.len() as u64;
        let t = rng.int(0, n - 1) as usize;
        let e = &self.eligible[self.tasks[t].ty as usize];
        let machine = e[rng.int(0, e.len() as u64 - 1) as usize];
        let pstate = rng.int(0, PSTATES as u64 - 1) as u8;
        let a = rng.int(0, n - 1) as usize;
        let b = rng.int(0, n - 1) as usize;
        SMutation {
            task: t,
            machine,
            pstate,
            swap: [a, b],
        }
    }

    fn apply_mutation(&self, c: &mut [SGene], m: &SMutation) {
        c[m.task].machine = m.machine;
        c[m.task].pstate = m.pstate;
        let [a, b] = m.swap;
        let k = c[a].key;
        c[a].key = c[b].key;
        c[b].key = k;
    }

    fn evaluate(&self, c: &[SGene], s: &mut SScratch) -> Point {
        let mut own = std::mem::take(&mut s.own);
        let p = self.evaluate_memo(c, &mut own, s);
        s.own = own;
        p
    }

    fn evaluate_memo(&self, c: &[SGene], memo: &mut SMemo, s: &mut SScratch) -> Point {
        self.memo_whole(c, memo, s)
    }

    fn evaluate_child(
        &self,
        c: &[SGene],
        parents: [(&[SGene], &SMemo); 2],
        memo: &mut SMemo,
        s: &mut SScratch,
    ) -> Point {
        let n = c.len();
        self.memo_child(c, parents, [[0..n, 0..0], [0..n, 0..0]], &[], memo, s)
    }

    /// [`Problem::evaluate_child`] where only the genes the breeding could have changed are
    /// compared: the child is `parents[0]` outside the swapped range and `parents[1]` inside
    /// but for the mutation's genes, so it differs from `parents[0]` only inside the range
    /// or at a mutated gene, and from `parents[1]` only outside it or at a mutated gene.
    fn evaluate_bred(
        &self,
        c: &[SGene],
        parents: [(&[SGene], &SMemo); 2],
        cross: Cross,
        mutation: Option<&SMutation>,
        memo: &mut SMemo,
        s: &mut SScratch,
    ) -> Point {
        let n = c.len();
        if cross.lo > cross.hi || cross.hi >= n {
            return self.evaluate_child(c, parents, memo, s);
        }
        let mutated = mutation.map_or([usize::MAX; 3], |m| [m.task, m.swap[0], m.swap[1]]);
        self.memo_child(
            c,
            parents,
            [
                [cross.lo..cross.hi + 1, 0..0],
                [0..cross.lo, cross.hi + 1..n],
            ],
            &mutated,
            memo,
            s,
        )
    }
}

#[path = "stochastic_memo.rs"]
mod memo;
pub use memo::SMemo;
use memo::Share;

#[cfg(test)]
#[path = "stochastic_tests.rs"]
mod tests;

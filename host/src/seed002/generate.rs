//! Seed 002's serial environment and workload (dissertation §2.6, App. B-F), one trial at a
//! time, from named ChaCha streams (`crate::generate::rng`).
//!
//! - Machines: 13 types with counts 2, 2, 3, 3, 5, 5, 5, 10, 10, 10, 10, 15, 20; the first
//!   four are special-purpose (App. E).
//! - Task types: 100, the first 17 special (spec §1: 3-5 per special machine type, a shuffled
//!   (5, 4, 4, 4)), the other 83 general.
//! - ETC (App. E, the task-based COV method): q_i ~ Gamma(mean 10 min, COV 0.1); on each
//!   general machine type Gamma(mean q_i, COV 0.25); a special task on its own special type
//!   Gamma(mean q_i / 10, COV 0.1); every other special pair cannot run.
//! - Priority and urgency: Table D.1's joint distribution; class uniform over Table C.1's
//!   four (Ch. 2) or seed 000's twenty; F from the mean ETC over the eligible machine types
//!   (App. B).
//! - Arrivals (§2.6.4, App. F): N_i ~ Normal(total / 100, variance mean / 10) a day; general
//!   types a sinusoid, special types bursty (rescaled to their mean: [`Bursts`]); stepped
//!   along the rate curve by exponential gaps capped at 28.8 min.

use crate::generate::rng::Stream;
use kairos_core::serial::SerialTask;
use kairos_core::units::Micros;
use kairos_core::utility::{Urgency, UtilityClasses, UtilityCurve};

/// Machines of each type (App. E); the first [`SPECIAL_MACHINE_TYPES`] are special.
pub const MACHINE_COUNTS: [usize; 13] = [2, 2, 3, 3, 5, 5, 5, 10, 10, 10, 10, 15, 20];
/// Special-purpose machine types.
pub const SPECIAL_MACHINE_TYPES: usize = 4;
/// Task types.
pub const TASK_TYPES: usize = 100;
/// Special task types (the first this many).
pub const SPECIAL_TASK_TYPES: usize = 17;
/// Special task types per special machine type, before shuffling (spec §1).
const SPECIAL_SPLIT: [usize; 4] = [5, 4, 4, 4];
/// The cap on one inter-arrival step (App. F: 24 h / 50).
pub const STEP_CAP: Micros = Micros(28 * 60_000_000 + 48_000_000);

/// Table D.1 in basis points (0.01%): rows critical, high, medium, low; columns extreme,
/// high, medium, low urgency.
const TABLE_D1: [[u32; 4]; 4] = [
    [200, 200, 5, 0],
    [345, 500, 150, 300],
    [0, 1000, 1000, 1000],
    [0, 0, 2000, 3300],
];

/// How a trial is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// The scenario seed.
    pub seed: u64,
    /// Expected tasks a day (33,000 or 50,000).
    pub tasks_per_day: f64,
    /// Starting utility of critical, high, medium, low priority (8, 4, 2, 1; App. H 1000,
    /// 100, 10, 1).
    pub priorities: [f64; 4],
    /// Utility classes drawn from: 4 (Table C.1, Ch. 2) or 20 (seed 000's, Ch. 4).
    pub classes: u8,
    /// Simulated hours (26).
    pub horizon_hours: u64,
    /// Hours before the measured window (2).
    pub warmup_hours: u64,
    /// How the special types' bursty rates relate to their mean.
    pub bursts: Bursts,
}

/// How the special types' bursty pattern is scaled (App. F).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bursts {
    /// App. F's factors taken as they are: baseline mean x U[0.5, 0.75], burst mean x
    /// U[1.25, 1.5], so a special type arrives at ~0.78 of its mean rate and a "50,000 tasks
    /// a day" workload draws ~47,700 (the control of `experiments/s002-why-bursts-*.toml`).
    Literal,
    /// The default: the same drawn pattern divided by its own 24 h average, so each special
    /// type arrives at its expected daily count N_i and the day holds the stated number of
    /// tasks (`docs/model.md`).
    #[default]
    Mean,
}

impl Bursts {
    /// The experiment files' spelling: `literal` or `mean`.
    pub fn parse(s: &str) -> Option<Bursts> {
        match s {
            "literal" => Some(Bursts::Literal),
            "mean" => Some(Bursts::Mean),
            _ => None,
        }
    }
}

impl Workload {
    /// The dissertation's Chapter 2 workload at `tasks_per_day`.
    pub fn chapter2(seed: u64, tasks_per_day: f64) -> Workload {
        Workload {
            seed,
            tasks_per_day,
            priorities: [8.0, 4.0, 2.0, 1.0],
            classes: 4,
            horizon_hours: 26,
            warmup_hours: 2,
            bursts: Bursts::default(),
        }
    }

    /// The measured window.
    pub fn window(&self) -> (Micros, Micros) {
        (
            Micros::from_hours(self.warmup_hours),
            Micros::from_hours(self.horizon_hours),
        )
    }
}

/// One trial: machines, ETC, classes and tasks (sorted by arrival).
#[derive(Clone, Debug)]
pub struct Trial {
    /// Each machine's type, by type.
    pub machine_type: Vec<u8>,
    /// ETC row-major by task type ([`Micros::MAX`]: cannot run).
    pub etc: Vec<Micros>,
    /// The utility classes the curves index.
    pub classes: UtilityClasses,
    /// The tasks, by arrival.
    pub tasks: Vec<SerialTask>,
}

impl Trial {
    /// The core's view of the environment.
    pub fn env(&self) -> kairos_core::serial::SerialEnv<'_> {
        kairos_core::serial::SerialEnv {
            machine_type: &self.machine_type,
            machine_types: MACHINE_COUNTS.len() as u8,
            special_types: SPECIAL_MACHINE_TYPES as u8,
            etc: &self.etc,
            classes: &self.classes,
        }
    }
}

/// The machine list: type j repeated `MACHINE_COUNTS[j]` times.
pub fn machines() -> Vec<u8> {
    MACHINE_COUNTS
        .iter()
        .enumerate()
        .flat_map(|(j, &n)| std::iter::repeat_n(j as u8, n))
        .collect()
}

/// The ETC table of trial `trial` (App. E).
pub fn etc_table(seed: u64, trial: u32) -> Vec<Micros> {
    let mt = MACHINE_COUNTS.len();
    let mut home = [usize::MAX; TASK_TYPES];
    let mut split = SPECIAL_SPLIT;
    let mut r = Stream::new(seed, trial, "s002-special-split", 0);
    for i in (1..split.len()).rev() {
        let j = r.int(0, i as u64) as usize;
        split.swap(i, j);
    }
    let mut i = 0;
    for (j, &n) in split.iter().enumerate() {
        for _ in 0..n {
            home[i] = j;
            i += 1;
        }
    }
    let mut etc = vec![Micros::MAX; TASK_TYPES * mt];
    for (ty, &home_type) in home.iter().enumerate() {
        let mut r = Stream::new(seed, trial, "s002-etc", ty as u32);
        let q = r.gamma_mean_cov(600.0, 0.1);
        for j in SPECIAL_MACHINE_TYPES..mt {
            etc[ty * mt + j] = Micros::from_secs_f64(r.gamma_mean_cov(q, 0.25)).max(Micros(1));
        }
        if home_type != usize::MAX {
            etc[ty * mt + home_type] =
                Micros::from_secs_f64(r.gamma_mean_cov(q / 10.0, 0.1)).max(Micros(1));
        }
    }
    etc
}

/// The rate pattern of a task type: the rate (tasks per second) at time `t`.
#[derive(Clone, Debug, PartialEq)]
pub enum Rate {
    /// General types: mean x (1 + amplitude x sin(2 pi cycles t / 24 h + phase)).
    Sinusoid {
        /// Mean rate, per second.
        mean: f64,
        /// Whole cycles a day.
        cycles: u32,
        /// Phase, radians.
        phase: f64,
        /// Amplitude as a fraction of the mean.
        amplitude: f64,
    },
    /// Special types: alternating baseline and burst intervals over the measured day,
    /// repeated with a 24 h period (so the hour before hour 2 is the hour before hour 26).
    Bursty {
        /// Interval ends (from the window's start) and their rates, per second.
        steps: Vec<(Micros, f64)>,
        /// Where the measured day starts.
        day_start: Micros,
    },
}

impl Rate {
    /// The rate at `t`, per second.
    pub fn at(&self, t: Micros) -> f64 {
        match self {
            Rate::Sinusoid {
                mean,
                cycles,
                phase,
                amplitude,
            } => {
                let x = 2.0 * core::f64::consts::PI * *cycles as f64 * t.as_secs_f64() / 86_400.0
                    + phase;
                mean * (1.0 + amplitude * libm::sin(x))
            }
            Rate::Bursty { steps, day_start } => {
                let day = Micros::from_hours(24).0;
                let x = Micros((t.0 + day - day_start.0 % day) % day);
                let i = steps.partition_point(|&(end, _)| end <= x);
                steps[i.min(steps.len() - 1)].1
            }
        }
    }
}

/// Draws the pattern of task type `ty` with `per_day` expected tasks a day.
pub fn rate_pattern(
    r: &mut Stream,
    special: bool,
    per_day: f64,
    day_start: Micros,
    bursts: Bursts,
) -> Rate {
    let mean = per_day / 86_400.0;
    if !special {
        let cycles = r.int(1, 24) as u32;
        let phase = r.uniform(0.0, 2.0 * core::f64::consts::PI);
        let amplitude = r.uniform(0.25, 0.9);
        return Rate::Sinusoid {
            mean,
            cycles,
            phase,
            amplitude,
        };
    }
    // The day starts inside a baseline interval, a uniform part of it already elapsed
    // (spec §8).
    let day = Micros::from_hours(24);
    let mut steps = Vec::new();
    let mut t = Micros::ZERO;
    let mut burst = false;
    let mut first = true;
    while t < day {
        let (len_s, factor) = if burst {
            (r.uniform(1800.0, 5400.0), r.uniform(1.25, 1.5))
        } else {
            (r.uniform(3.0 * 3600.0, 5.0 * 3600.0), r.uniform(0.5, 0.75))
        };
        let len = if first {
            first = false;
            Micros::from_secs_f64(len_s * (1.0 - r.unit())).max(Micros(1))
        } else {
            Micros::from_secs_f64(len_s)
        };
        t = t.saturating_add(len);
        steps.push((t.min(day), mean * factor));
        burst = !burst;
    }
    if bursts == Bursts::Mean {
        // Same draws, rescaled: the pattern's time average over the day becomes `mean`.
        let mut prev = Micros::ZERO;
        let mut area = 0.0;
        for &(end, rate) in &steps {
            area += rate * (end.0 - prev.0) as f64;
            prev = end;
        }
        let average = area / day.0 as f64;
        if average > 0.0 {
            for s in &mut steps {
                s.1 *= mean / average;
            }
        }
    }
    Rate::Bursty { steps, day_start }
}

/// Arrival times in [0, horizon) stepped along `rate` (App. F): next = t + min(Exp(rate(t)),
/// 28.8 min).
pub fn step_arrivals(r: &mut Stream, rate: &Rate, horizon: Micros) -> Vec<Micros> {
    let mut out = Vec::new();
    let mut t = Micros::ZERO;
    loop {
        let l = rate.at(t);
        let gap = if l > 0.0 {
            Micros::from_secs_f64(r.exp(l)).min(STEP_CAP)
        } else {
            STEP_CAP
        };
        t = t.saturating_add(gap.max(Micros(1)));
        if t >= horizon {
            return out;
        }
        out.push(t);
    }
}

/// Priority index (0 critical .. 3 low) and urgency from Table D.1.
pub fn priority_urgency(r: &mut Stream) -> (usize, Urgency) {
    let x = r.int(0, 9_999) as u32;
    let mut acc = 0;
    for (p, row) in TABLE_D1.iter().enumerate() {
        for (u, &w) in row.iter().enumerate() {
            acc += w;
            if x < acc {
                return (p, Urgency::ALL[u]);
            }
        }
    }
    (3, Urgency::Low)
}

/// Trial `trial` of workload `w`.
pub fn trial(w: &Workload, trial: u32) -> Trial {
    let mt = MACHINE_COUNTS.len();
    let etc = etc_table(w.seed, trial);
    let horizon = Micros::from_hours(w.horizon_hours);
    let day_start = Micros::from_hours(w.warmup_hours);
    let mut tasks: Vec<(Micros, u16, u32, SerialTask)> = Vec::new();
    for ty in 0..TASK_TYPES {
        let special = ty < SPECIAL_TASK_TYPES;
        let row = &etc[ty * mt..(ty + 1) * mt];
        let eligible: Vec<Micros> = row.iter().copied().filter(|&e| e != Micros::MAX).collect();
        let mean_exec = Micros(eligible.iter().map(|e| e.0).sum::<u64>() / eligible.len() as u64);
        let mut rc = Stream::new(w.seed, trial, "s002-count", ty as u32);
        let mean = w.tasks_per_day / TASK_TYPES as f64;
        let per_day = (mean + libm::sqrt(mean / 10.0) * rc.normal()).max(0.0);
        let mut rp = Stream::new(w.seed, trial, "s002-arrival-pattern", ty as u32);
        let rate = rate_pattern(&mut rp, special, per_day, day_start, w.bursts);
        let mut ra = Stream::new(w.seed, trial, "s002-arrivals", ty as u32);
        let times = step_arrivals(&mut ra, &rate, horizon);
        let mut ru = Stream::new(w.seed, trial, "s002-utility", ty as u32);
        for (k, t) in times.into_iter().enumerate() {
            let (p, urgency) = priority_urgency(&mut ru);
            let class = ru.int(0, w.classes as u64 - 1) as u8;
            let curve = UtilityCurve::essc(w.priorities[p], urgency, mean_exec, class);
            tasks.push((
                t,
                ty as u16,
                k as u32,
                SerialTask {
                    ty: ty as u16,
                    arrival: t,
                    curve,
                },
            ));
        }
    }
    // Arrival order; equal arrivals by type, then by their order within the type.
    tasks.sort_by_key(|&(t, ty, k, _)| (t, ty, k));
    Trial {
        machine_type: machines(),
        etc,
        classes: UtilityClasses::essc20(),
        tasks: tasks.into_iter().map(|x| x.3).collect(),
    }
}

/// The maximum-utility bound (§2.7.1): every task starts at its arrival on its minimum-ETC
/// machine; the utility of those completing inside the window.
pub fn bound(tr: &Trial, window: (Micros, Micros)) -> f64 {
    let env = tr.env();
    let mut total = kairos_core::units::Utility::ZERO;
    for t in &tr.tasks {
        let e = env.etc(t.ty, env.met_type(t.ty));
        let c = t.arrival.saturating_add(e);
        if c >= window.0 && c < window.1 {
            total += kairos_core::units::Utility::from_f64(
                t.curve.value_at(e, &tr.classes).unwrap_or(0.0),
            );
        }
    }
    total.as_f64()
}

#[cfg(test)]
#[path = "generate_tests.rs"]
mod tests;

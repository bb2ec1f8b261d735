//! The Lublin-Feitelson workload model of rigid parallel jobs (U. Lublin and D. G.
//! Feitelson, "The workload on parallel supercomputers: modeling the characteristics of
//! rigid jobs", JPDC 63(11), 2003; the 1999 technical report's model, "lublin99"), seeded,
//! for `kairos generate-swf --model lublin99`.
//!
//! The model, with its published parameters ([`BATCH`], [`INTERACTIVE`]); each job is
//! batch or interactive, whichever type's next arrival comes first:
//! - size: serial with probability `serial_prob`; otherwise `2^x` rounded, with `x` from a
//!   two-stage uniform (`[ulow, umed]` with probability `uprob`, else `[umed, uhi]`), and
//!   `x` itself rounded first for the power-of-two share `pow2_prob`;
//! - run time: `e^g` seconds, `g` hyper-gamma: gamma(`a1`, `b1`) with probability
//!   `p = pa x size + pb` (clamped to [0, 1]), else gamma(`a2`, `b2`); draws above 12
//!   (about 2 days) are drawn again;
//! - arrivals: inter-arrival times `e^g` (`g` gamma(`aarr`, `barr`), drawn again above 13),
//!   spent as "points" over 48 half-hour buckets whose weights follow the daily cycle (the
//!   gamma(`anum`, `bnum`) density over the hours, the day starting at 11:00 in the model's
//!   own clock): time passes faster where few jobs come.
//!
//! Choices where the issue and the model leave room (one line each in docs/model.md):
//! - the machine size `P`: the model's sizes fit a 128-processor machine (`uhi = 7`); for
//!   `P` the size parameters `umed` and `uhi` of both types move by `log2(P) - 7`, keeping
//!   the shape (batch `uhi = log2 P`), and a size above `P` (a power of two rounded up) is
//!   cut to `P`;
//! - the load: arrival times are scaled by one factor so that `sum(size x run) / (P x last
//!   arrival)`, the model's own load formula, is the load asked for (the log is drawn twice
//!   with the same streams: once to measure, once to write);
//! - the request (field 9) is the run time: the model has no user estimates;
//! - gamma draws use Marsaglia and Tsang ([`crate::generate::rng::Stream::gamma`]) instead
//!   of the reference code's sum of exponentials: the same distribution, far cheaper for
//!   shape 639;
//! - times are whole seconds (truncated, as the reference code prints them).

use std::io::Write;

use crate::generate::rng::Stream;

/// The parameters of one job type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TypeParams {
    /// Probability of a serial job.
    pub serial_prob: f64,
    /// Probability of a power-of-two size (among all jobs; parallel jobs with
    /// `serial_prob < u <= serial_prob + pow2_prob`).
    pub pow2_prob: f64,
    /// log2 of the smallest parallel size (lower end of the first uniform).
    pub ulow: f64,
    /// The two uniforms' meeting point.
    pub umed: f64,
    /// log2 of the largest size.
    pub uhi: f64,
    /// Probability of the first uniform.
    pub uprob: f64,
    /// Shape and scale of the first run-time gamma (of ln seconds).
    pub a1: f64,
    /// Scale of the first run-time gamma.
    pub b1: f64,
    /// Shape of the second run-time gamma.
    pub a2: f64,
    /// Scale of the second run-time gamma.
    pub b2: f64,
    /// Slope of the first gamma's probability in the size.
    pub pa: f64,
    /// Intercept of the first gamma's probability.
    pub pb: f64,
    /// Shape of the inter-arrival gamma (of ln seconds), already times the
    /// arrive-rush-to-all ratio.
    pub aarr: f64,
    /// Scale of the inter-arrival gamma.
    pub barr: f64,
    /// Shape of the daily cycle's gamma (over hours).
    pub anum: f64,
    /// Scale of the daily cycle's gamma.
    pub bnum: f64,
}

/// Batch jobs (the model's published values, for 128 processors).
pub const BATCH: TypeParams = TypeParams {
    serial_prob: 0.2927,
    pow2_prob: 0.6686,
    ulow: 1.2,
    umed: 5.0,
    uhi: 7.0,
    uprob: 0.875,
    a1: 6.57,
    b1: 0.823,
    a2: 639.1,
    b2: 0.0156,
    pa: -0.003,
    pb: 0.6986,
    aarr: 6.0415 * 1.0519,
    barr: 0.8531,
    anum: 6.1271,
    bnum: 5.2740,
};

/// Interactive jobs (the model's published values, for 128 processors).
pub const INTERACTIVE: TypeParams = TypeParams {
    serial_prob: 0.1541,
    pow2_prob: 0.625,
    ulow: 1.0,
    umed: 3.0,
    uhi: 5.5,
    uprob: 0.705,
    a1: 3.8351,
    b1: 0.6605,
    a2: 7.073,
    b2: 0.6856,
    pa: -0.0118,
    pb: 0.9156,
    aarr: 6.5510 * 0.9797,
    barr: 0.6621,
    anum: 8.9186,
    bnum: 3.6680,
};

/// log2 of the machine the published parameters fit.
const MODEL_LOG2_PROCS: f64 = 7.0;
/// Run-time draws above this (ln seconds) are drawn again.
const TOO_MUCH_TIME: f64 = 12.0;
/// Inter-arrival draws above this (ln seconds) are drawn again.
const TOO_MUCH_ARRIVE_TIME: f64 = 13.0;
/// Half-hour buckets of the daily cycle.
const BUCKETS: usize = 48;
/// Seconds in a bucket.
const BUCKET_S: f64 = 1800.0;
/// The model's day runs from this hour (its cycle's gamma is fitted over 11..35).
const CYCLIC_DAY_START: usize = 11;

/// One generated job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LublinJob {
    /// Arrival, seconds from the start (before any load scaling).
    pub arrival_s: f64,
    /// Processors.
    pub procs: u32,
    /// Run time, whole seconds (at least 1).
    pub runtime_s: u64,
    /// 1 batch, 0 interactive (the reference code's queue number).
    pub batch: bool,
}

/// How to generate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lublin99Options {
    /// Machine size, processors (at least 1).
    pub procs: u32,
    /// Jobs to generate.
    pub jobs: u64,
    /// Offered load to scale the arrivals to (`None`: the model's own arrival rate).
    pub load: Option<f64>,
    /// The seed of the streams.
    pub seed: u64,
}

/// One type's arrival process.
struct Arrivals {
    params: TypeParams,
    weights: [f64; BUCKETS],
    bucket: usize,
    points: f64,
    reminder: f64,
    /// The next arrival of this type, seconds.
    next: f64,
    stream: Stream,
}

impl Arrivals {
    fn new(params: TypeParams, stream: Stream) -> Arrivals {
        let mut weights = [0.0; BUCKETS];
        for i in CYCLIC_DAY_START..BUCKETS + CYCLIC_DAY_START {
            let x = i as f64;
            weights[(i - 1) % BUCKETS] = gamma_cdf(x + 0.5, params.anum, params.bnum)
                - gamma_cdf(x - 0.5, params.anum, params.bnum);
        }
        let mean = weights.iter().sum::<f64>() / BUCKETS as f64;
        for w in &mut weights {
            *w /= mean;
        }
        let mut a = Arrivals {
            params,
            weights,
            bucket: 0,
            points: 0.0,
            reminder: 0.0,
            next: 0.0,
            stream,
        };
        a.advance();
        a
    }

    /// Draws the time to this type's next arrival, spending it over the daily cycle.
    fn advance(&mut self) {
        let g = loop {
            let g = self.stream.gamma(self.params.aarr, self.params.barr);
            if g <= TOO_MUCH_ARRIVE_TIME {
                break g;
            }
        };
        self.points += libm::exp(g) / BUCKET_S;
        let mut dt = 0.0;
        while self.points > self.weights[self.bucket] {
            self.points -= self.weights[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            dt += BUCKET_S;
        }
        let reminder = self.points / self.weights[self.bucket];
        dt += BUCKET_S * (reminder - self.reminder);
        self.reminder = reminder;
        self.next += dt;
    }
}

/// The model's jobs, in arrival order (an endless iterator; take as many as needed).
pub struct Lublin99 {
    procs: u32,
    batch: TypeParams,
    interactive: TypeParams,
    arrivals: [Arrivals; 2],
    jobs: Stream,
}

impl Lublin99 {
    /// The model for a machine of `procs` processors, drawn from `seed`.
    pub fn new(procs: u32, seed: u64) -> Lublin99 {
        let shift = libm::log2(f64::from(procs.max(1))) - MODEL_LOG2_PROCS;
        let scaled = |p: TypeParams| TypeParams {
            umed: p.umed + shift,
            uhi: p.uhi + shift,
            ..p
        };
        let (interactive, batch) = (scaled(INTERACTIVE), scaled(BATCH));
        Lublin99 {
            procs: procs.max(1),
            batch,
            interactive,
            arrivals: [
                Arrivals::new(interactive, Stream::new(seed, 0, "lublin99-arrivals", 0)),
                Arrivals::new(batch, Stream::new(seed, 0, "lublin99-arrivals", 1)),
            ],
            jobs: Stream::new(seed, 0, "lublin99-jobs", 0),
        }
    }

    /// The parameters in use for batch (`true`) or interactive jobs, after sizing.
    pub fn params(&self, batch: bool) -> TypeParams {
        if batch {
            self.batch
        } else {
            self.interactive
        }
    }

    fn size(&mut self, p: &TypeParams) -> u32 {
        let u = self.jobs.unit();
        if u <= p.serial_prob {
            return 1;
        }
        let mut x = if self.jobs.unit() <= p.uprob {
            self.jobs.uniform(p.ulow, p.umed)
        } else {
            self.jobs.uniform(p.umed, p.uhi)
        };
        if u <= p.serial_prob + p.pow2_prob {
            x = libm::floor(x + 0.5);
        }
        let n = libm::floor(libm::pow(2.0, x) + 0.5);
        (n as u32).clamp(1, self.procs)
    }

    fn runtime(&mut self, p: &TypeParams, size: u32) -> u64 {
        let first = (p.pa * f64::from(size) + p.pb).clamp(0.0, 1.0);
        let g = loop {
            let g = if self.jobs.unit() <= first {
                self.jobs.gamma(p.a1, p.b1)
            } else {
                self.jobs.gamma(p.a2, p.b2)
            };
            if g <= TOO_MUCH_TIME {
                break g;
            }
        };
        (libm::exp(g) as u64).max(1)
    }
}

impl Iterator for Lublin99 {
    type Item = LublinJob;

    fn next(&mut self) -> Option<LublinJob> {
        let batch = self.arrivals[1].next < self.arrivals[0].next;
        let a = &mut self.arrivals[usize::from(batch)];
        let arrival_s = a.next;
        a.advance();
        let p = self.params(batch);
        let procs = self.size(&p);
        let runtime_s = self.runtime(&p, procs);
        Some(LublinJob {
            arrival_s,
            procs,
            runtime_s,
            batch,
        })
    }
}

/// Jobs generated between two ticks of the command's progress ([`crate::progress::tick`]:
/// `kairos generate-swf` counts both passes over the jobs).
const TICK_JOBS: usize = 1 << 16;

/// The latest submit time a generated log may hold, seconds (about 31,700 years): a load so
/// low that the scaled arrivals pass it (`--load 1e-308` would put every submit time at
/// 2^64 - 1) is refused before a line is written.
pub const MAX_SUBMIT_S: f64 = 1e12;

/// The factor that scales the model's arrival times of `options.jobs` jobs to
/// `options.load` (1 without a load), the model's own load, and its last arrival (seconds,
/// before scaling).
pub fn load_scale(options: &Lublin99Options) -> (f64, f64, f64) {
    let mut area = 0.0;
    let mut last = 0.0f64;
    // Ctrl-C ends this pass early: the writer then stops at its first line (`AtomicFile`).
    let jobs = Lublin99::new(options.procs, options.seed).take(options.jobs as usize);
    for (k, j) in jobs
        .take_while(|_| !crate::interrupt::requested())
        .enumerate()
    {
        area += f64::from(j.procs) * j.runtime_s as f64;
        last = last.max(j.arrival_s);
        if k % TICK_JOBS == TICK_JOBS - 1 {
            crate::progress::tick(TICK_JOBS as u64);
        }
    }
    crate::progress::tick(options.jobs % TICK_JOBS as u64);
    let own = if last > 0.0 {
        area / (f64::from(options.procs) * last)
    } else {
        0.0
    };
    match options.load {
        Some(l) if own > 0.0 => (own / l, own, last),
        _ => (1.0, own, last),
    }
}

/// What [`write_swf`] wrote.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Generated {
    /// Jobs written.
    pub jobs: u64,
    /// The model's own load at this size, before scaling.
    pub model_load: f64,
    /// The factor arrival times were multiplied by.
    pub scale: f64,
    /// The load of the log written (`sum(size x run) / (P x last submit)`).
    pub load: f64,
}

/// Writes an SWF log of the model to `out`: the header, then one line per job (id from 1,
/// submit, run time, size as allocated and requested, request = run time, status 1, queue
/// 1 batch / 0 interactive).
pub fn write_swf(out: &mut dyn Write, options: &Lublin99Options) -> std::io::Result<Generated> {
    let (scale, model_load, last_arrival) = load_scale(options);
    // NaN (an infinite scale times 0) is refused too.
    let last_submit = last_arrival * scale;
    if last_submit.is_nan() || last_submit > MAX_SUBMIT_S {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "--load {:?}: the arrivals scaled by {scale:e} would put the last submit time \
                 at {:e} s, past the {MAX_SUBMIT_S:e} s a log may hold; give a higher load",
                options.load.unwrap_or(0.0),
                last_arrival * scale
            ),
        ));
    }
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    writeln!(w, "; Version: 2.2")?;
    writeln!(
        w,
        "; Computer: Lublin-Feitelson 1999 model (kairos generate-swf --model lublin99)"
    )?;
    writeln!(w, "; MaxJobs: {}", options.jobs)?;
    writeln!(w, "; MaxRecords: {}", options.jobs)?;
    writeln!(w, "; MaxProcs: {}", options.procs)?;
    writeln!(w, "; MaxNodes: {}", options.procs)?;
    writeln!(
        w,
        "; Note: seed {}, model load {:.4}, arrivals scaled by {:.6}{}",
        options.seed,
        model_load,
        scale,
        match options.load {
            Some(l) => format!(" for load {l}"),
            None => String::new(),
        }
    )?;
    let (mut area, mut last) = (0.0, 0u64);
    let mut n = 0;
    for j in Lublin99::new(options.procs, options.seed).take(options.jobs as usize) {
        n += 1;
        let submit = (j.arrival_s * scale) as u64;
        last = last.max(submit);
        area += f64::from(j.procs) * j.runtime_s as f64;
        writeln!(
            w,
            "{n} {submit} -1 {r} {p} -1 -1 {p} {r} -1 1 -1 -1 -1 {q} -1 -1 -1",
            r = j.runtime_s,
            p = j.procs,
            q = u8::from(j.batch)
        )?;
        if n % TICK_JOBS as u64 == 0 {
            crate::progress::tick(TICK_JOBS as u64);
        }
    }
    crate::progress::tick(n % TICK_JOBS as u64);
    w.flush()?;
    Ok(Generated {
        jobs: n,
        model_load,
        scale,
        load: if last > 0 {
            area / (f64::from(options.procs) * last as f64)
        } else {
            0.0
        },
    })
}

/// The regularized lower incomplete gamma function `P(a, x / scale)`: the gamma(`a`,
/// `scale`) distribution's CDF at `x` (series below `a + 1`, continued fraction above;
/// Numerical Recipes §6.2).
pub fn gamma_cdf(x: f64, a: f64, scale: f64) -> f64 {
    let x = x / scale;
    if x <= 0.0 {
        return 0.0;
    }
    let ln_front = -x + a * libm::log(x) - libm::lgamma(a);
    if x < a + 1.0 {
        let (mut ap, mut sum) = (a, 1.0 / a);
        let mut term = sum;
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        sum * libm::exp(ln_front)
    } else {
        // Lentz's method for the continued fraction of Q(a, x).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        1.0 - libm::exp(ln_front) * h
    }
}

#[cfg(test)]
mod tests;

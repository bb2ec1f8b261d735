//! Dynamic prioritization with a greedy fractional knapsack (seed 004, Simon, Nguyen and
//! Halem): at every scheduling cycle each waiting job gets the priority of Eq. 1,
//!
//! ```text
//! P = (tasks / avg tasks)^alpha * (wait)^beta * (runtime / avg runtime)^gamma,
//! ```
//!
//! and the free processors (the knapsack's capacity) are filled by priority per processor
//! (`P / tasks`, Algorithm 1's `priority / w`), highest first.
//!
//! Two forms of the same policy live here:
//! - [`select`], the paper's model: *malleable* jobs of independent one-processor tasks. A job
//!   may start at most its share (`ceil(share x tasks)`, at least 1) of its tasks in a cycle;
//!   the job that does not fit whole takes the fraction that fills the knapsack (Algorithm 1
//!   lines 10-11). Lower-priority jobs only get processors that no higher-priority job can use
//!   in this cycle, so they never delay one (the paper's backfilling). The host's exhaustive
//!   parameter sweep runs this (`kairos sweep-knapsack`).
//! - `run`, the [`Heuristic::Knapsack`](crate::config::Heuristic::Knapsack) of the controller, for
//!   trace replay (`kairos replay --policy knapsack`): SWF jobs are *rigid* (all their
//!   processors start together), so the fraction step cannot split a job. In priority-per-node
//!   order a job starts now if it fits; the first that does not gets the single reservation
//!   (the paper's backfilling rule: a lower-priority job may run only if it does not delay
//!   the start of the higher-priority one); later jobs start only if they fit now around it.
//!   The reservation is taken back and given again at every cycle, like EASY's, because the
//!   priorities change every cycle. P-state 0, no dropping.
//!
//! Both sort by [`log_ratio`], the logarithm of Algorithm 1's `priority / w` less the terms
//! every job of the cycle shares (the same order, at one `log` per job and cycle instead of
//! Eq. 1's three powers).
//!
//! Guards (Eq. 1 is undefined or degenerate at zero): the wait and the runtime enter in
//! seconds floored at [`FLOOR_S`] (1 s), so a job that has just arrived has a neutral wait
//! term (1) whatever beta, instead of 0 (beta > 0), infinity (beta < 0) or 0^0; the task count
//! is at least 1; a NaN priority (only reachable with extreme exponents) counts as 0. The
//! averages scale every job's priority by the same factor `avg tasks^-alpha x avg
//! runtime^-gamma` in a cycle, so they do not change the order: the key leaves them out
//! exactly (computing them would only add rounding noise where Eq. 1 ties, e.g. alpha = 1).

use super::common::earliest_anywhere;
pub use crate::config::KnapsackParams;
use crate::config::Reservations;
use crate::error::{full, Capacity, Error};
use crate::plan::{Decision, Planner};
use crate::units::Micros;
use core::cmp::Ordering;

/// The floor, in seconds, of the wait and the runtime in Eq. 1 (the zero guard).
pub const FLOOR_S: f64 = 1.0;

/// Eq. 1 with its guards: `tasks` and `avg_tasks` in tasks, the rest in seconds.
pub fn priority(
    tasks: f64,
    avg_tasks: f64,
    wait_s: f64,
    runtime_s: f64,
    avg_runtime_s: f64,
    p: &KnapsackParams,
) -> f64 {
    let size = tasks.max(1.0) / avg_tasks.max(1.0);
    let wait = wait_s.max(FLOOR_S);
    let length = runtime_s.max(FLOOR_S) / avg_runtime_s.max(FLOOR_S);
    let x = libm::pow(size, p.alpha) * libm::pow(wait, p.beta) * libm::pow(length, p.gamma);
    if x.is_nan() {
        0.0
    } else {
        x
    }
}

/// Algorithm 1's ratio: priority per processor (`priority / tasks`, tasks at least 1).
pub fn ratio(priority: f64, tasks: f64) -> f64 {
    let r = priority / tasks.max(1.0);
    if r.is_nan() {
        0.0
    } else {
        r
    }
}

/// The natural logarithm of a job's size and runtime (seconds), each floored as in
/// [`priority`]: what [`log_ratio`] needs per job, computed once.
pub fn job_logs(tasks: f64, runtime_s: f64) -> (f64, f64) {
    (libm::log(tasks.max(1.0)), libm::log(runtime_s.max(FLOOR_S)))
}

/// The knapsack's sort key: `ln(priority / tasks)` less the cycle's common term,
/// `(alpha - 1) ln t + beta ln wait + gamma ln r`, with `(ln t, ln r)` from [`job_logs`] and
/// the wait floored as in [`priority`]. `ln(P / t)` is this minus
/// `alpha ln(avg tasks) + gamma ln(avg runtime)`, the same for every job of the cycle, so it
/// orders jobs as [`ratio`] does; a NaN (only with extreme exponents) is the lowest key.
pub fn log_ratio(logs: (f64, f64), wait_s: f64, p: &KnapsackParams) -> f64 {
    let k = (p.alpha - 1.0) * logs.0 + p.beta * libm::log(wait_s.max(FLOOR_S)) + p.gamma * logs.1;
    if k.is_nan() {
        f64::NEG_INFINITY
    } else {
        k
    }
}

/// Knapsack order: the higher ratio first; ties go to the lower index (the earlier arrival).
pub fn order(a: (f64, u32), b: (f64, u32)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// Tasks a job of `tasks` tasks, `remaining` of them not started, may start in one cycle:
/// `ceil(share x tasks)`, at least 1, at most `remaining`.
pub fn allowance(tasks: u32, remaining: u32, share: f64) -> u32 {
    let s = libm::ceil(share * tasks as f64);
    let s = if s >= 1.0 { s as u32 } else { 1 };
    s.min(remaining)
}

/// A malleable job as [`select`] sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MalleableJob {
    /// Its size: tasks, one processor each.
    pub tasks: u32,
    /// Tasks not started yet.
    pub remaining: u32,
    /// When it was submitted.
    pub arrival: Micros,
    /// How long each task runs.
    pub runtime: Micros,
    /// [`job_logs`] of its size and runtime.
    pub logs: (f64, f64),
}

impl MalleableJob {
    /// A job of `tasks` tasks of `runtime` each, submitted at `arrival`, none started.
    pub fn new(tasks: u32, arrival: Micros, runtime: Micros) -> MalleableJob {
        MalleableJob {
            tasks,
            remaining: tasks,
            arrival,
            runtime,
            logs: job_logs(tasks as f64, secs(runtime)),
        }
    }
}

/// Microseconds as seconds.
fn secs(t: Micros) -> f64 {
    t.0 as f64 / 1e6
}

/// One cycle of the malleable greedy fractional knapsack (Algorithm 1) at `now` with
/// `capacity` free processors: writes into `take[j]` how many tasks of `jobs[j]` start now
/// and returns their sum and the count `n` of jobs with tasks remaining (the others take
/// nothing). `order_buf` and `keys` are scratch of at least `jobs.len()` entries; on return
/// `order_buf[..n]` holds the waiting jobs in knapsack order.
#[allow(clippy::too_many_arguments)]
pub fn select(
    jobs: &[MalleableJob],
    now: Micros,
    capacity: u32,
    p: &KnapsackParams,
    order_buf: &mut [u32],
    keys: &mut [f64],
    take: &mut [u32],
) -> Result<(u32, usize), Error> {
    p.validate()?;
    let n = jobs.len();
    if order_buf.len() < n || keys.len() < n || take.len() < n {
        return Err(full(
            Capacity::Tasks,
            order_buf.len().min(keys.len()).min(take.len()),
        )
        .into());
    }
    take[..n].fill(0);
    let mut w = 0;
    for (j, job) in jobs.iter().enumerate() {
        if job.remaining == 0 {
            continue;
        }
        let wait = secs(now.saturating_sub(job.arrival));
        keys[j] = log_ratio(job.logs, wait, p);
        order_buf[w] = j as u32;
        w += 1;
    }
    order_buf[..w].sort_unstable_by(|&a, &b| order((keys[a as usize], a), (keys[b as usize], b)));
    let mut weight = 0u32;
    for &j in order_buf[..w].iter() {
        if weight >= capacity {
            break;
        }
        let job = &jobs[j as usize];
        let want = allowance(job.tasks, job.remaining, p.share);
        // The whole allowance if it fits, else the fraction that fills the knapsack.
        let got = want.min(capacity - weight);
        take[j as usize] = got;
        weight += got;
    }
    Ok((weight, w))
}

/// Runs one cycle of the rigid form on the controller (see the module doc).
pub(super) fn run(ctl: &mut Planner<'_>, sink: &mut dyn FnMut(&Decision)) -> Result<(), Error> {
    let p = ctl.config().knapsack;
    p.validate()?;
    for k in 0..ctl.open_count() {
        let i = ctl.open_slot(k);
        if ctl.reserved_after_now(i) {
            ctl.unreserve(i as u32);
        }
    }
    let n = ctl.collect_mappable()?;
    let now = ctl.now();
    // Each waiting job's earliest option: its size and planned duration (the request).
    for w in 0..n {
        let i = ctl.work()[w].slot;
        let ch = earliest_anywhere(ctl, i)?;
        ctl.work()[w].best = ch;
    }
    for w in 0..n {
        let slot = ctl.work()[w].slot;
        let arrival = ctl.slot(slot).task.arrival;
        if let Some(c) = ctl.work()[w].best.as_mut() {
            let logs = job_logs(c.nodes.0 as f64, secs(c.duration));
            let wait = secs(now.saturating_sub(arrival));
            c.value = log_ratio(logs, wait, &p);
        }
    }
    // Jobs with no option (none in a trace replay) go last.
    ctl.work().sort_unstable_by(|a, b| {
        let ka = a.best.map_or(f64::NEG_INFINITY, |c| c.value);
        let kb = b.best.map_or(f64::NEG_INFINITY, |c| c.value);
        order((ka, a.slot), (kb, b.slot))
    });
    let mut reserved = false;
    for w in 0..n {
        let (i, cached) = {
            let e = &ctl.work()[w];
            (e.slot, e.best)
        };
        let Some(cached) = cached else { continue };
        // The cached option holds while the memo vouches for it; else ask again.
        let ch = if ctl.still_valid(&cached) {
            cached
        } else {
            match earliest_anywhere(ctl, i)? {
                Some(c) => c,
                None => continue,
            }
        };
        if ch.start <= now {
            ctl.assign(i, &ch, Reservations::Permanent, sink)?;
        } else if !reserved {
            ctl.assign(i, &ch, Reservations::Permanent, sink)?;
            reserved = true;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::InputError;

    const P0: KnapsackParams = KnapsackParams::new(0.0, 0.0, 0.0);

    #[test]
    fn knapsack_priority_zero_wait_and_runtime_are_neutral() {
        // beta > 0 or < 0: a zero wait counts as 1 s, so the wait term is 1.
        for beta in [-2.0, -0.5, 0.0, 0.5, 2.0] {
            let p = KnapsackParams::new(0.0, beta, 0.0);
            assert_eq!(priority(4.0, 4.0, 0.0, 10.0, 10.0, &p), 1.0);
            assert_eq!(priority(4.0, 4.0, 0.5, 10.0, 10.0, &p), 1.0);
        }
        // A zero runtime (and a zero average) counts as 1 s.
        let p = KnapsackParams::new(0.0, 0.0, -2.0);
        assert_eq!(priority(1.0, 1.0, 5.0, 0.0, 0.0, &p), 1.0);
        assert_eq!(priority(1.0, 1.0, 5.0, 0.0, 4.0, &p), 16.0);
        // Zero tasks count as 1.
        let p = KnapsackParams::new(-1.0, 0.0, 0.0);
        assert_eq!(priority(0.0, 2.0, 0.0, 1.0, 1.0, &p), 2.0);
        // Never NaN or negative; extreme exponents give 0 or infinity, not a panic.
        let p = KnapsackParams::new(1e300, -1e300, 1e300);
        let x = priority(2.0, 1.0, 100.0, 0.5, 4.0, &p);
        assert!(!x.is_nan() && x >= 0.0, "{x}");
    }

    #[test]
    fn knapsack_priority_is_eq_1() {
        let p = KnapsackParams::new(1.0, 2.0, -1.0);
        // (8/4)^1 * 3^2 * (20/10)^-1 = 2 * 9 / 2 = 9.
        assert_eq!(priority(8.0, 4.0, 3.0, 20.0, 10.0, &p), 9.0);
        assert_eq!(ratio(9.0, 8.0), 1.125);
        assert_eq!(P0, KnapsackParams::new(0.0, 0.0, 0.0));
        assert_eq!(priority(8.0, 4.0, 3.0, 20.0, 10.0, &P0), 1.0);
    }

    #[test]
    fn knapsack_params_validate() {
        assert!(KnapsackParams::default().validate().is_ok());
        for bad in [
            KnapsackParams::new(f64::NAN, 0.0, 0.0),
            KnapsackParams::new(0.0, f64::INFINITY, 0.0),
            KnapsackParams { share: 0.0, ..P0 },
            KnapsackParams { share: 1.5, ..P0 },
        ] {
            assert_eq!(bad.validate(), Err(Error::Input(InputError::BadNumber)));
        }
    }

    #[test]
    fn knapsack_allowance_is_the_share_rounded_up() {
        assert_eq!(allowance(10, 10, 1.0), 10);
        assert_eq!(allowance(10, 10, 0.25), 3);
        assert_eq!(allowance(10, 2, 0.25), 2);
        assert_eq!(allowance(10, 10, 0.01), 1);
        assert_eq!(allowance(1, 1, 0.1), 1);
    }

    fn job(tasks: u32, remaining: u32, arrival_s: u64, runtime_s: u64) -> MalleableJob {
        MalleableJob {
            remaining,
            ..MalleableJob::new(
                tasks,
                Micros(arrival_s * 1_000_000),
                Micros(runtime_s * 1_000_000),
            )
        }
    }

    #[test]
    fn knapsack_log_ratio_orders_as_the_ratio() {
        // A small deterministic spread of jobs, waits and exponents.
        let vals = [0.0, 0.5, 1.0, 3.0, 7.5, 40.0, 1000.0];
        let exps = [-2.0, -1.3, -0.1, 0.0, 0.7, 1.0, 2.0];
        for &a in &exps {
            for &b in &exps {
                for &g in &exps {
                    let p = KnapsackParams::new(a, b, g);
                    let (avg_t, avg_r) = (3.5, 40.0);
                    let common = a * libm::log(avg_t) + g * libm::log(avg_r);
                    for (i, &t) in vals.iter().enumerate() {
                        let w = vals[(i * 3 + 1) % vals.len()];
                        let r = vals[(i * 5 + 2) % vals.len()];
                        let direct = ratio(priority(t, avg_t, w, r, avg_r, &p), t);
                        let key = log_ratio(job_logs(t, r), w, &p) - common;
                        let rel = libm::fabs(libm::exp(key) - direct) / direct;
                        assert!(rel < 1e-12, "{a} {b} {g} {t} {w} {r}: {direct} {key}");
                    }
                }
            }
        }
        // Extreme exponents: a key, never NaN.
        let p = KnapsackParams::new(f64::MAX, -f64::MAX, f64::MAX);
        let k = log_ratio(job_logs(2.0, 0.5), 100.0, &p);
        assert!(!k.is_nan());
        // alpha = 1, gamma = 0: Eq. 1 ties every job of a cycle whatever its size; so does
        // the key, exactly, and the earlier arrival goes first.
        let p = KnapsackParams::new(1.0, 0.7, 0.0);
        let keys: [f64; 3] = [1.0, 7.0, 300.0].map(|t| log_ratio(job_logs(t, 9.0), 50.0, &p));
        assert!(keys[0] == keys[1] && keys[1] == keys[2], "{keys:?}");
    }

    #[test]
    fn knapsack_select_fills_by_ratio_with_a_fraction() {
        // alpha = 2: ratio = tasks^2 / tasks = tasks (large first): 6 then 4 then 2.
        let p = KnapsackParams::new(2.0, 0.0, 0.0);
        let jobs = [job(2, 2, 0, 5), job(6, 6, 0, 5), job(4, 4, 0, 5)];
        let (mut o, mut k, mut t) = ([0; 3], [0.0; 3], [0; 3]);
        let (used, n) = select(&jobs, Micros(0), 8, &p, &mut o, &mut k, &mut t).unwrap();
        // 6 fits whole (6 of 8), then 2 of job 2's 4 tasks fill the knapsack.
        assert_eq!((used, n), (8, 3));
        assert_eq!(&o, &[1, 2, 0]);
        assert_eq!(t, [0, 6, 2]);
        // alpha = 0: ratio = 1 / tasks (small first).
        let (used, _) = select(&jobs, Micros(0), 8, &P0, &mut o, &mut k, &mut t).unwrap();
        assert_eq!((used, t), (8, [2, 2, 4]));
    }

    #[test]
    fn knapsack_select_share_caps_each_job() {
        let p = KnapsackParams {
            share: 0.5,
            ..KnapsackParams::new(2.0, 0.0, 0.0)
        };
        let jobs = [job(2, 2, 0, 5), job(6, 6, 0, 5), job(4, 4, 0, 5)];
        let (mut o, mut k, mut t) = ([0; 3], [0.0; 3], [0; 3]);
        // Job 1 may start 3 of 6, job 2 then 2 of 4, job 0 then 1 of 2: 6 of 8 used.
        let (used, _) = select(&jobs, Micros(0), 8, &p, &mut o, &mut k, &mut t).unwrap();
        assert_eq!((used, t), (6, [1, 3, 2]));
        // Job 1 has only 1 task left: it takes 1.
        let jobs = [job(2, 2, 0, 5), job(6, 1, 0, 5), job(4, 4, 0, 5)];
        let (used, _) = select(&jobs, Micros(0), 8, &p, &mut o, &mut k, &mut t).unwrap();
        assert_eq!((used, t), (4, [1, 1, 2]));
    }

    #[test]
    fn knapsack_select_wait_and_ties() {
        // beta = 1: the longer wait first; equal ratios go to the lower index.
        let p = KnapsackParams::new(1.0, 1.0, 0.0);
        let jobs = [
            job(1, 1, 10, 5),
            job(1, 1, 0, 5),
            job(1, 1, 10, 5),
            job(1, 0, 0, 5),
        ];
        let (mut o, mut k, mut t) = ([0; 4], [0.0; 4], [0; 4]);
        let (used, n) = select(&jobs, Micros(20_000_000), 2, &p, &mut o, &mut k, &mut t).unwrap();
        assert_eq!((used, n), (2, 3));
        assert_eq!(&o[..3], &[1, 0, 2]);
        assert_eq!(t, [1, 1, 0, 0]);
        // Nothing free: nothing taken.
        let (used, _) = select(&jobs, Micros(20_000_000), 0, &p, &mut o, &mut k, &mut t).unwrap();
        assert_eq!((used, t), (0, [0; 4]));
    }

    #[test]
    fn knapsack_select_errors_instead_of_panicking() {
        let jobs = [job(1, 1, 0, 5), job(1, 1, 0, 5)];
        let (mut o, mut k, mut t) = ([0; 1], [0.0; 2], [0; 2]);
        assert!(matches!(
            select(&jobs, Micros(0), 1, &P0, &mut o, &mut k, &mut t),
            Err(Error::Capacity(_))
        ));
        let (mut o, bad) = ([0; 2], KnapsackParams::new(f64::NAN, 0.0, 0.0));
        assert_eq!(
            select(&jobs, Micros(0), 1, &bad, &mut o, &mut k, &mut t),
            Err(Error::Input(InputError::BadNumber))
        );
    }
}

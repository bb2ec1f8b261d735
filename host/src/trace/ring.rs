//! How long a ring of task slots the replay of a loaded log tries first ([`first_ring`]), and
//! how it grows when that was too short ([`next_ring`]).
//!
//! A task holds its slot (`id mod slots`) from its arrival until it is done with, so a ring
//! must be longer than the widest stretch of task ids that are in the system at once: at
//! the arrival of task `n`, every task from the oldest one not yet done to `n`. The replay
//! only learns that stretch by running, but a bound below it is cheap: a task is in the
//! system at least until its submit time plus its run time (it cannot start before its
//! submission), so the stretch is at least what it would be if no job ever waited. The
//! first ring is a few times that bound, so that the waits the schedule adds rarely make it
//! too short; when they do, the core says so with a capacity error and the replay runs again
//! with a longer ring (the same decisions at every length: a task's slot is only where the
//! table keeps it). The ring is what the replay writes whole before it starts, so a ring
//! sized for the log's load rather than its length spares most of that memory.

use super::load::run_time;
use super::Policy;
use crate::swf::ReplayJob;

/// How many times the no-wait bound the first ring holds under `policy`: waits widen the
/// stretch of tasks in the system, most under strict FCFS, whose queue stalls behind its
/// head (KTH-SP2's is 2.8 times its bound); backfilling keeps the queue moving (EASY's and
/// Conservative's stretches are within 1.4 times the bound on the shared logs), and the
/// utility-aware policies are given FCFS's room.
fn headroom(policy: Policy) -> usize {
    match policy {
        Policy::Easy | Policy::Conservative => 2,
        _ => 4,
    }
}

/// The shortest ring tried: below it the table is too small to matter.
pub const MIN_RING: usize = 1 << 10;

/// How many times longer each attempt's ring is than the last's.
const GROWTH: usize = 4;

/// Task slots of the ring a long log's replay tries first at most: half a slot a job, or
/// [`RING_SLOTS`], as before the bound was known.
pub const RING_SLOTS: usize = 1 << 13;

/// The widest stretch of task ids in the system at one arrival if no job waited: task `k`
/// (`jobs[order[k]]`; `order` sorts by submission) is in the system through every arrival
/// at or before its submit time plus its run time.
pub fn no_wait_span(jobs: &[ReplayJob], order: &[u32]) -> usize {
    let job = |k: usize| &jobs[order[k] as usize];
    // The oldest task in the system only moves on: one that has left at an arrival has
    // left at every later one, whose submit time is no earlier.
    let mut oldest = 0;
    let mut widest = 0;
    for n in 0..order.len() {
        let now = job(n).submit;
        while oldest < n && {
            let j = job(oldest);
            j.submit.saturating_add(run_time(j)) < now
        } {
            oldest += 1;
        }
        widest = widest.max(n - oldest + 1);
    }
    widest
}

/// The first attempt's ring for `jobs` (`order` sorts them by submission), or `None` for
/// a slot a task, under `policy`: a power of two (the table then finds a slot with a mask)
/// [`headroom`] times the no-wait bound, at least [`MIN_RING`], and no longer than half a
/// slot a job (or [`RING_SLOTS`]) as the replay tried before.
pub fn first_ring(jobs: &[ReplayJob], order: &[u32], policy: Policy) -> Option<usize> {
    let bound = no_wait_span(jobs, order);
    let ring = bound
        .saturating_mul(headroom(policy))
        .checked_next_power_of_two()
        .unwrap_or(usize::MAX)
        .max(MIN_RING)
        .min((jobs.len() / 2).max(RING_SLOTS));
    (ring < jobs.len()).then_some(ring)
}

/// The ring after `ring` proved too short for `jobs` jobs: [`GROWTH`] times longer, or a
/// slot a task once that would be as many.
pub fn next_ring(ring: usize, jobs: usize) -> Option<usize> {
    let next = ring.saturating_mul(GROWTH);
    (next < jobs).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(line: usize, submit: u64, runtime: u64) -> ReplayJob {
        ReplayJob {
            id: line as u64,
            submit,
            runtime,
            request: runtime,
            procs: 1,
            line,
        }
    }

    /// The bound by its definition: for each arrival, the tasks before it still running
    /// had no job waited.
    fn span_by_definition(jobs: &[ReplayJob]) -> usize {
        (0..jobs.len())
            .map(|n| {
                let oldest = (0..=n)
                    .find(|&k| jobs[k].submit + run_time(&jobs[k]) >= jobs[n].submit)
                    .unwrap_or(n);
                n - oldest + 1
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn the_bound_is_the_widest_stretch_without_waits() {
        // One long job holds the stretch open over the short ones after it.
        let mut jobs = vec![job(1, 0, 100)];
        jobs.extend((0..10).map(|i| job(i + 2, 10 * i as u64, 5)));
        let order: Vec<u32> = (0..jobs.len() as u32).collect();
        assert_eq!(no_wait_span(&jobs, &order), 11);
        assert_eq!(span_by_definition(&jobs), 11);
        // Jobs that end before the next arrives: one at a time, but an end at the very
        // instant of the next arrival still holds its slot.
        let jobs: Vec<ReplayJob> = (0..5).map(|i| job(i + 1, 10 * i as u64, 9)).collect();
        assert_eq!(no_wait_span(&jobs, &order[..5]), 1);
        let jobs: Vec<ReplayJob> = (0..5).map(|i| job(i + 1, 10 * i as u64, 10)).collect();
        assert_eq!(no_wait_span(&jobs, &order[..5]), 2);
    }

    #[test]
    fn the_bound_matches_its_definition_on_drawn_logs() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut draw = |m: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % m
        };
        for _ in 0..50 {
            let n = 1 + draw(60) as usize;
            let mut t = 0;
            let jobs: Vec<ReplayJob> = (0..n)
                .map(|i| {
                    t += draw(4);
                    job(i + 1, t, draw(12))
                })
                .collect();
            let order: Vec<u32> = (0..n as u32).collect();
            assert_eq!(no_wait_span(&jobs, &order), span_by_definition(&jobs));
        }
    }

    #[test]
    fn rings_are_powers_of_two_within_the_old_cap() {
        // 40,000 one-at-a-time jobs: the shortest ring.
        let jobs: Vec<ReplayJob> = (0..40_000).map(|i| job(i + 1, 10 * i as u64, 1)).collect();
        let order: Vec<u32> = (0..jobs.len() as u32).collect();
        assert_eq!(first_ring(&jobs, &order, Policy::Fcfs), Some(MIN_RING));
        // All at once: no ring is shorter than the log.
        let jobs: Vec<ReplayJob> = (0..40_000).map(|i| job(i + 1, 0, 1)).collect();
        assert_eq!(first_ring(&jobs, &order, Policy::Easy), Some(20_000));
        // A short log keeps a slot a task.
        assert_eq!(
            first_ring(&jobs[..1000], &order[..1000], Policy::Fcfs),
            None
        );
        // 600 jobs in the system at once without waits: strict FCFS gets four times the
        // room (2,400, to a power of two), backfilling twice.
        let jobs: Vec<ReplayJob> = (0..40_000)
            .map(|i| job(i + 1, 10 * i as u64, 5_999))
            .collect();
        assert_eq!(no_wait_span(&jobs, &order), 600);
        assert_eq!(first_ring(&jobs, &order, Policy::Fcfs), Some(4096));
        assert_eq!(first_ring(&jobs, &order, Policy::MaxValue), Some(4096));
        assert_eq!(first_ring(&jobs, &order, Policy::Easy), Some(2048));
        assert_eq!(first_ring(&jobs, &order, Policy::Conservative), Some(2048));
        assert_eq!(next_ring(1024, 40_000), Some(4096));
        assert_eq!(next_ring(16_384, 40_000), None);
    }

    /// A busy log: `n` jobs of 1 to 16 of 64 processors, submitted about as fast as the
    /// machine runs them, so that jobs wait and the stretch in the system grows past the
    /// no-wait bound.
    fn busy_log(n: usize) -> Vec<ReplayJob> {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut draw = |m: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % m
        };
        let mut t = 0;
        (0..n)
            .map(|i| {
                t += draw(30) * 1_000_000;
                let runtime = (1 + draw(200)) * 1_000_000;
                ReplayJob {
                    id: i as u64 + 1,
                    submit: t,
                    runtime,
                    request: runtime + draw(3) * 300_000_000,
                    procs: 1 + draw(16) as u32,
                    line: i + 1,
                }
            })
            .collect()
    }

    #[test]
    fn a_ring_too_short_comes_to_the_same_schedule_through_the_retries() {
        use super::super::replay::{replay_from, First, LAST_RING};
        use super::super::{Policy, ReplayOptions};
        let jobs = busy_log(3000);
        for policy in [Policy::Fcfs, Policy::Easy, Policy::Conservative] {
            let options = ReplayOptions::new(policy);
            let run = |first| {
                let (r, _, _) =
                    replay_from(&jobs, 64, &options, None, false, None, first, None).unwrap();
                (r.jobs, r.counts, LAST_RING.with(|r| r.get()))
            };
            // A slot a task: no ring at all.
            let (whole, counts, ring) = run(First::Whole);
            assert_eq!(ring, None);
            // Two slots cannot hold the jobs in the system: the replay grows the ring
            // (2, 8, 32, ...) until one can, and comes to the same records.
            let (records, c, ring) = run(First::Slots(2));
            let ring = ring.expect("a ring shorter than the log");
            assert!(ring > 2 && ring < jobs.len(), "{policy}: {ring} slots");
            assert_eq!((&records, c), (&whole, counts), "{policy}");
            // The ring fitted to the log, which the command takes.
            let (records, c, _) = run(First::Fitted);
            assert_eq!((&records, c), (&whole, counts), "{policy}");
        }
    }

    #[test]
    fn a_storage_budget_too_small_comes_to_the_same_schedule_through_the_retries() {
        use super::super::replay::{replay_from, First, FIRST_BUDGET, LAST_BUDGET};
        use super::super::{Policy, ReplayOptions};
        use kairos_core::limits::MAX_BOOKINGS_PER_NODE;
        let jobs = busy_log(3000);
        for policy in [Policy::Conservative, Policy::Easy] {
            let options = ReplayOptions::new(policy);
            let run = |budget| {
                FIRST_BUDGET.with(|b| b.set(Some(budget)));
                let (r, _, _) =
                    replay_from(&jobs, 64, &options, None, false, None, First::Whole, None)
                        .unwrap();
                FIRST_BUDGET.with(|b| b.set(None));
                (r.jobs, r.counts, LAST_BUDGET.with(|b| b.get()))
            };
            // The worst case, as the machine's size alone would reserve.
            let (whole, counts, _) = run(MAX_BOOKINGS_PER_NODE);
            // One booking a node cannot hold a busy log's reservations: the replay grows
            // the pool and scratch and comes to the same records.
            let (records, c, budget) = run(1);
            // Conservative books a reservation for every waiting job (1, 4, 16, 64 here).
            if policy == Policy::Conservative {
                assert!(budget > 1, "{policy}: no retry");
            }
            assert_eq!((&records, c), (&whole, counts), "{policy}");
        }
    }
}

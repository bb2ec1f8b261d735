//! The summary metrics kept as records come, for replays that do not hold every record
//! ([`Tally`], the running form of [`super::summarize`]), and the reorder buffer that hands
//! records on in submission order though jobs start out of it ([`InOrder`]).

use std::collections::VecDeque;

use super::metrics::{JobRecord, Summary};

/// The sums [`super::summarize`] computes, added one record at a time. Fed the records in
/// the same order, it gives the same summary to the bit (the floating-point sum of bounded
/// slowdowns is taken in that order).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    n: usize,
    first_submit: Option<u64>,
    last_end: u64,
    total_wait: u128,
    max_wait: u64,
    bsld: f64,
    area: u128,
}

impl Tally {
    /// Adds one record.
    pub(crate) fn add(&mut self, j: &JobRecord) {
        self.n += 1;
        self.first_submit = Some(self.first_submit.map_or(j.submit, |f| f.min(j.submit)));
        self.last_end = self.last_end.max(j.end);
        self.total_wait += j.wait() as u128;
        self.max_wait = self.max_wait.max(j.wait());
        self.bsld += j.bounded_slowdown();
        self.area += j.procs as u128 * j.run() as u128;
    }

    /// The summary on a machine of `procs` processors, with the replay's wall time.
    pub(crate) fn summary(&self, procs: u32, wall_time_s: f64) -> Summary {
        let n = self.n;
        let makespan = self.last_end.saturating_sub(self.first_submit.unwrap_or(0));
        let mean = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
        Summary {
            jobs: n,
            mean_wait_s: mean(self.total_wait as f64 / 1e6),
            max_wait_s: self.max_wait as f64 / 1e6,
            mean_bsld: mean(self.bsld),
            utilization: if makespan == 0 {
                0.0
            } else {
                self.area as f64 / (procs as f64 * makespan as f64)
            },
            makespan_s: makespan as f64 / 1e6,
            wall_time_s,
            jobs_per_second: if wall_time_s > 0.0 {
                n as f64 / wall_time_s
            } else {
                0.0
            },
        }
    }
}

/// Records put in by position in submission order, handed on in that order as soon as
/// every earlier one is in. Holds only the records of jobs started while an earlier one
/// still waits.
pub(crate) struct InOrder {
    /// The position of `slots[0]`.
    base: u64,
    slots: VecDeque<Option<JobRecord>>,
}

impl InOrder {
    /// An empty buffer, expecting position 0 first.
    pub(crate) fn new() -> InOrder {
        InOrder {
            base: 0,
            slots: VecDeque::new(),
        }
    }

    /// Puts in the record at position `seq`, then hands on every record now in order.
    pub(crate) fn put<E>(
        &mut self,
        seq: u64,
        record: JobRecord,
        out: &mut dyn FnMut(&JobRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        let i = (seq - self.base) as usize;
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        self.slots[i] = Some(record);
        while let Some(Some(r)) = self.slots.front() {
            out(r)?;
            self.slots.pop_front();
            self.base += 1;
        }
        Ok(())
    }

    /// Records still held (some earlier job never started).
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{InOrder, Tally};
    use crate::trace::{summarize, JobRecord};

    fn record() -> impl Strategy<Value = JobRecord> {
        (
            0u64..1_000_000_000,
            0u64..1_000_000_000,
            1u64..100_000_000,
            1u32..1000,
        )
            .prop_map(|(submit, wait, run, procs)| JobRecord {
                id: submit,
                line: 1,
                submit,
                start: submit + wait,
                end: submit + wait + run,
                procs,
                request: run,
            })
    }

    proptest! {
        #[test]
        fn the_tally_is_summarize(records in proptest::collection::vec(record(), 0..50)) {
            let mut t = Tally::default();
            records.iter().for_each(|r| t.add(r));
            prop_assert_eq!(t.summary(64, 1.5), summarize(&records, 64, 1.5));
        }

        #[test]
        fn in_order_hands_on_in_order(order in Just((0u64..30).collect::<Vec<_>>()).prop_shuffle()) {
            let mut buf = InOrder::new();
            let mut out = Vec::new();
            for &s in &order {
                let r = JobRecord { id: s, line: 1, submit: 0, start: 0, end: 1, procs: 1, request: 1 };
                buf.put(s, r, &mut |r: &JobRecord| -> Result<(), ()> { out.push(r.id); Ok(()) }).unwrap();
            }
            prop_assert_eq!(out, (0u64..30).collect::<Vec<_>>());
            prop_assert_eq!(buf.held(), 0);
        }
    }
}

//! The free-processor profile of the pool allocation's Conservative backfilling: how many
//! processors are free from each instant on, as a step function over `[now, ∞)`, with every
//! running job counted until its planned end (start + request) and every waiting job until
//! the end of its reservation. It is pyss's "CPU snapshot": processor counts, no node
//! identities, so its size is the number of distinct planned ends, not the machine's.
//!
//! Steps are kept sorted by time in a `Vec`; adjacent steps with the same free count are
//! merged, so a quiet machine is one step.

/// Free processors over time (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    /// `(from, free)`: `free` processors from `from` until the next step's `from`; the last
    /// step lasts for ever. Never empty; the first step starts at or before now.
    steps: Vec<(u64, u32)>,
}

impl Profile {
    /// A machine of `procs` processors, all free from time 0.
    pub(crate) fn new(procs: u32) -> Profile {
        Profile {
            steps: vec![(0, procs)],
        }
    }

    /// Forgets the past: the first step starts at `now`.
    pub(crate) fn advance(&mut self, now: u64) {
        let i = self.steps.partition_point(|s| s.0 <= now);
        if i > 1 {
            self.steps.drain(..i - 1);
        }
        self.steps[0].0 = now;
    }

    /// The earliest start at or after the profile's first step where `procs` processors are
    /// free for `duration`. `procs` must not exceed the machine (the last step is the whole
    /// machine free, so there is always one).
    pub(crate) fn earliest(&self, procs: u32, duration: u64) -> u64 {
        let mut i = 0;
        'candidate: loop {
            // Only a planned end at u64::MAX (a saturated request) can leave the last step
            // short: no start then, which the replay reports as jobs never completed.
            if i == self.steps.len() {
                return u64::MAX;
            }
            let start = self.steps[i].0;
            let end = start.saturating_add(duration);
            let mut j = i;
            loop {
                if self.steps[j].1 < procs {
                    i = j + 1;
                    continue 'candidate;
                }
                if j + 1 == self.steps.len() || self.steps[j + 1].0 >= end {
                    return start;
                }
                j += 1;
            }
        }
    }

    /// Takes `procs` processors over `[from, to)` (a job's run or reservation).
    pub(crate) fn take(&mut self, from: u64, to: u64, procs: u32) {
        self.apply(from, to, |f| f - procs);
    }

    /// Gives back `procs` processors over `[from, to)`.
    pub(crate) fn give(&mut self, from: u64, to: u64, procs: u32) {
        self.apply(from, to, |f| f + procs);
    }

    /// The steps (for tests).
    #[cfg(test)]
    pub(crate) fn steps(&self) -> &[(u64, u32)] {
        &self.steps
    }

    fn apply(&mut self, from: u64, to: u64, f: impl Fn(u32) -> u32) {
        if from >= to {
            return;
        }
        let a = self.split(from);
        let b = if to == u64::MAX {
            self.steps.len()
        } else {
            self.split(to)
        };
        for s in &mut self.steps[a..b] {
            s.1 = f(s.1);
        }
        // Merge at the two edges, the later first so that `a` stays valid.
        if b < self.steps.len() && self.steps[b].1 == self.steps[b - 1].1 {
            self.steps.remove(b);
        }
        if a > 0 && self.steps[a].1 == self.steps[a - 1].1 {
            self.steps.remove(a);
        }
    }

    /// The index of the step that starts at `t`, splitting the one that holds it if needed.
    fn split(&mut self, t: u64) -> usize {
        let i = self.steps.partition_point(|s| s.0 <= t);
        // `steps[i - 1]` holds t (the first step starts at or before every time asked).
        let (from, free) = self.steps[i - 1];
        if from == t {
            i - 1
        } else {
            self.steps.insert(i, (t, free));
            i
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Profile;

    #[test]
    fn take_give_and_merge() {
        let mut p = Profile::new(10);
        p.take(5, 15, 4);
        assert_eq!(p.steps(), &[(0, 10), (5, 6), (15, 10)]);
        p.take(10, 20, 6);
        assert_eq!(p.steps(), &[(0, 10), (5, 6), (10, 0), (15, 4), (20, 10)]);
        // 5 for 6 fits [0, 6); for 11 it would cross [10, 15) (0 free), and [15, 20) has 4.
        assert_eq!(p.earliest(5, 6), 0);
        assert_eq!(p.earliest(5, 11), 20);
        assert_eq!(p.earliest(4, 12), 15);
        assert_eq!(p.earliest(1, 100), 15);
        assert_eq!(p.earliest(11, 1), u64::MAX);
        p.give(10, 20, 6);
        p.give(5, 15, 4);
        assert_eq!(p.steps(), &[(0, 10)]);
    }

    #[test]
    fn advance_forgets_the_past() {
        let mut p = Profile::new(8);
        p.take(0, 10, 8);
        p.take(10, 30, 2);
        p.advance(12);
        assert_eq!(p.steps(), &[(12, 6), (30, 8)]);
        assert_eq!(p.earliest(7, 1), 30);
        p.take(12, u64::MAX, 6);
        assert_eq!(p.steps(), &[(12, 0), (30, 2)]);
    }
}

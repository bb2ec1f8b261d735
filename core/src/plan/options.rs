//! What a task could do: its options on each (cluster, P-state), each with its earliest
//! start (asked of the fit memo first, then of the cluster's timeline), the energy filter's
//! consent and the energy left; and what completing at a time would earn.
//!
//! Heuristics ask these and rank what comes back; nothing here books anything.

use super::choice::Choice;
use super::memo::MemoAnswer;
use super::planner::Planner;
use super::slots::TaskState;
use crate::energy::{option_bit, window_share};
use crate::error::{Error, InputError};
use crate::platform::{ClusterId, PState, Placement};
use crate::task::Demand;
use crate::timeline::{Fit, Scratch};
use crate::units::{Micros, MilliJoules, NodeCount};

impl Planner<'_> {
    /// The earliest start now or later for `k` nodes during `d` on cluster `c`, memoized;
    /// returns the fit (if any) and the memo slot and generation that vouch for it. A fit
    /// known to start at or after `limit` may come back as `None` (callers reject those).
    ///
    /// A memo entry for the same question from an earlier event (or one that a booking of
    /// this event overtook) still bounds the answer from below while the cluster has not been
    /// loosened since: bookings were only added, so every start only moved later. The query
    /// then starts from that bound, which gives the same answer (coverage at `s >= now` does
    /// not depend on where the sweep starts), and a bound at or past `limit` skips it: the
    /// tasks that cannot start today are not swept again at every event.
    pub(crate) fn fit(
        &mut self,
        c: ClusterId,
        k: NodeCount,
        d: Micros,
        limit: Micros,
    ) -> Result<(Option<Fit>, u32, u32), Error> {
        let idx = self.memo.index(c, k, d);
        let mut from = self.now;
        let tl = self
            .clusters
            .get_mut(c.0 as usize)
            .ok_or(InputError::UnknownCluster(c.0))?;
        match self.memo.known(idx, tl, self.now, (c, k, d)) {
            MemoAnswer::Exact(fit, i, gen) => return Ok((fit, i, gen)),
            MemoAnswer::AtLeast(bound) if bound >= limit.0 => return Ok((None, u32::MAX, 0)),
            MemoAnswer::AtLeast(bound) => from = from.max(Micros(bound)),
        }
        let mut scratch = Scratch::new(self.scratch_a, self.scratch_b);
        let fit = tl.earliest_start(from, k, d, &mut scratch)?;
        let (start, free) = fit.map_or((None, 0), |f| (Some(f.start), f.free));
        let (i, gen) = self
            .memo
            .remember(idx, Some(tl), (c, k, d), start, free, true);
        Ok((fit, i, gen))
    }

    /// Whether the memo still vouches for a cached choice: its entry holds the same answer,
    /// still exact after the bookings made since.
    pub(crate) fn still_valid(&mut self, ch: &Choice) -> bool {
        if ch.memo as usize >= self.memo.len() {
            return false;
        }
        let Some(tl) = self.clusters.get(ch.cluster.0 as usize) else {
            return false;
        };
        match self.memo.known(
            Some(ch.memo as usize),
            tl,
            self.now,
            (ch.cluster, ch.nodes, ch.duration),
        ) {
            MemoAnswer::Exact(Some(f), _, gen) => gen == ch.gen && f.start == ch.start,
            _ => false,
        }
    }

    /// Energy the ledger can still take in this event (after place-holders planned in it).
    pub(crate) fn energy_available(&self) -> MilliJoules {
        self.ledger.remaining().saturating_sub(self.planned)
    }

    /// The placement of task slot `i` on (c, p) and its duration there, if it may run on `c`
    /// and (when `filtered`) the energy filter admits it.
    pub(crate) fn admitted(
        &mut self,
        i: u32,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> Option<(Placement, Micros)> {
        let pl = self.placement(i, c)?;
        self.admits(i, &pl, c, p, filtered)
            .then_some((pl, pl.etc[p.0 as usize]))
    }

    /// Whether task slot `i`, placed as `pl` on cluster `c`, may run in P-state `p`: always,
    /// or (when `filtered`) if the event's energy filter admits it.
    pub(crate) fn admits(
        &mut self,
        i: u32,
        pl: &Placement,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> bool {
        if !filtered {
            return true;
        }
        match &self.tasks[self.at(i as usize)].task.demand {
            Demand::Typed(t) => self.verdicts.of_type(self.platform, *t) & option_bit(c, p) != 0,
            // One option of a table of its own: worked out as asked.
            Demand::Own(_) => self
                .verdicts
                .budget()
                .admits(pl.energy(p), self.platform.resources(c, pl, p)),
        }
    }

    /// The options of task slot `i` (bits [`option_bit`]) that (when `filtered`) the event's
    /// energy filter admits: every bit when not `filtered`. A bit says nothing of whether the
    /// task may run on the cluster at all; the placement does.
    pub(crate) fn admitted_options(&mut self, i: u32, filtered: bool) -> u32 {
        if !filtered {
            return u32::MAX;
        }
        match &self.tasks[self.at(i as usize)].task.demand {
            Demand::Typed(t) => self.verdicts.of_type(self.platform, *t),
            Demand::Own(table) => self.verdicts.of_table(self.platform, table),
        }
    }

    /// The option of task slot `i` on (c, p) with its earliest start; `None` if it cannot
    /// start today or its day energy does not fit what is left.
    pub(crate) fn option(
        &mut self,
        i: u32,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> Result<Option<Choice>, Error> {
        let Some((pl, d)) = self.admitted(i, c, p, filtered) else {
            return Ok(None);
        };
        let (fit, memo, gen) = self.fit(c, pl.nodes, d, self.config.day_end)?;
        let Some(fit) = fit else { return Ok(None) };
        if fit.start >= self.config.day_end {
            return Ok(None);
        }
        Ok(self.choice(&pl, c, p, fit.start, memo, gen))
    }

    /// Counts the nodes of each cluster idle now, once per epoch: bookings are only added
    /// within one, so the count stays an upper bound, and most candidates need more nodes
    /// than are idle.
    fn count_idle(&mut self) {
        if self.idle_epoch != self.epoch {
            let now = self.now;
            for (n, tl) in self.idle.iter_mut().zip(self.clusters.iter()) {
                *n = tl.free_over(now, now.saturating_add(Micros(1)), u32::MAX);
            }
            self.idle_epoch = self.epoch;
        }
    }

    /// The first position of the open list from `k` on that holds a mappable task needing
    /// no more nodes than are idle now on some cluster it may run on (`open_count()` if
    /// none). For every mappable task passed over, [`option_now`](Self::option_now) is
    /// `None` on every cluster while the epoch lasts: a backfilling pass turns most of a
    /// long queue down on their node counts alone, read in place in one tight loop.
    pub(crate) fn next_fitting_idle(&mut self, mut k: usize) -> usize {
        self.count_idle();
        let clusters = self.clusters.len();
        while k < self.open_len {
            let s = &self.tasks[self.at(self.open[k] as usize)];
            if s.state == TaskState::Mappable
                && (0..clusters).any(|c| {
                    s.task
                        .on(self.platform, ClusterId(c as u8))
                        .is_some_and(|p| p.nodes.0 != 0 && p.nodes.0 <= self.idle[c])
                })
            {
                return k;
            }
            k += 1;
        }
        k
    }

    /// The option of task slot `i` on (c, p) if it can start now (`None` otherwise, or if the
    /// filter or the energy left rejects it): what [`option`](Self::option) gives when its
    /// start is now, found by counting the nodes free over the run instead of sweeping for
    /// the earliest start (the backfilling candidates of EASY and FCFS ask only this).
    pub(crate) fn option_now(
        &mut self,
        i: u32,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> Result<Option<Choice>, Error> {
        // The node count first, read in place: most candidates of a long queue need more
        // nodes than are idle, and are turned down without copying their placement.
        let Some(k) = self.nodes_on(i, c) else {
            return Ok(None);
        };
        if self.now >= self.config.day_end {
            return Ok(None);
        }
        let now = self.now;
        self.count_idle();
        if k == 0 || k > self.idle[c.0 as usize] {
            return Ok(None);
        }
        let Some((pl, d)) = self.admitted(i, c, p, filtered) else {
            return Ok(None);
        };
        let q = (c, pl.nodes, d);
        let idx = self.memo.index(c, pl.nodes, d);
        let tl = self
            .clusters
            .get(c.0 as usize)
            .ok_or(InputError::UnknownCluster(c.0))?;
        let (slot, gen) = match self.memo.known(idx, tl, now, q) {
            MemoAnswer::Exact(Some(f), slot, gen) if f.start <= now => (slot, gen),
            MemoAnswer::Exact(..) => return Ok(None),
            MemoAnswer::AtLeast(bound) if bound > now.0 => return Ok(None),
            MemoAnswer::AtLeast(_) => {
                let free = tl.free_over(now, now.saturating_add(d), k);
                if free < k {
                    // Not now: a lower bound for the rest of this event (and later ones
                    // while nothing is freed), so the same question is not counted again.
                    self.memo
                        .remember(idx, Some(tl), q, Some(now + Micros(1)), 0, false);
                    return Ok(None);
                }
                // `free` stops at k: an under-count, which only makes the memo drop the
                // answer sooner when a later booking overlaps it.
                self.memo.remember(idx, Some(tl), q, Some(now), free, true)
            }
        };
        Ok(self.choice(&pl, c, p, now, slot, gen))
    }

    /// The choice of placement `pl` on (c, p) starting at `start`; `None` if its day energy
    /// does not fit what is left.
    fn choice(
        &mut self,
        pl: &Placement,
        c: ClusterId,
        p: PState,
        start: Micros,
        memo: u32,
        gen: u32,
    ) -> Option<Choice> {
        let d = pl.etc[p.0 as usize];
        let energy = pl.energy(p);
        let day_energy = window_share(
            energy,
            start,
            start.saturating_add(d),
            self.config.day_start,
            self.config.day_end,
        );
        if day_energy > self.energy_available() {
            self.energy_refused = true;
            return None;
        }
        Some(Choice {
            cluster: c,
            pstate: p,
            start,
            duration: d,
            nodes: pl.nodes,
            energy,
            day_energy,
            value: 0.0,
            memo,
            gen,
        })
    }

    /// The utility task slot `i` earns if it completes at `end`.
    pub(crate) fn value_at_end(&self, i: u32, end: Micros) -> Result<f64, Error> {
        let s = &self.tasks[self.at(i as usize)];
        let since = end.saturating_sub(s.task.arrival);
        if let Some(p) = s.point.filter(|p| p.since == since) {
            return Ok(p.value);
        }
        s.task.curve.value_at(since, self.classes)
    }
}

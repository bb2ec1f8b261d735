//! The earliest start of a reservation as if it were not booked: whether a task booked over
//! `[s, s + d)` could start earlier once its booking were taken back
//! ([`ClusterTimeline::fits_before_ignoring`]), without taking it back.
//!
//! EASY recomputes its single reservation at every event. When no time was freed since it
//! was booked, its earliest start cannot have moved (`in_place.rs`); after an early
//! completion it may have, and the only way to know was to take it back, sweep, and book it
//! again, most often at the same start on the same nodes. This sweep answers the same
//! question with the booking left where it is: its own nodes count as free over the time it
//! holds them, as they would be once it is taken back.
//!
//! Data flow: reads the groups and their bookings; changes nothing but the marks of the
//! latest reservation and of the last one kept ([`ClusterTimeline::reserved_anew`]).

use super::node::Booking;
use super::ClusterTimeline;
use crate::task::TaskId;
use crate::units::Micros;

/// Bits of a sweep key below its time: a group's name (a cluster has fewer than 2^20 nodes).
const SHIFT: u32 = 20;

/// The mask of a sweep key's name.
const NAME: u64 = (1 << SHIFT) - 1;

/// The most a sweep key holds of a time past the query's `t`.
const FAR: u64 = (1 << (64 - SHIFT)) - 1;

impl ClusterTimeline<'_> {
    /// Whether `k` nodes are free together for `d` from some start in `[t, before)`, with
    /// `task`'s bookings counted as free (as if taken back). `None` when it cannot tell:
    /// `before` lies too far past `t`, or the two scratch buffers are too short for the voids
    /// (one entry a group's void).
    ///
    /// The replay asks it in the walk of `comes_back_in_place` (`in_place.rs`); the tests ask
    /// it alone.
    #[cfg(test)]
    pub(crate) fn fits_before_ignoring(
        &self,
        t: Micros,
        k: u32,
        d: Micros,
        task: TaskId,
        before: Micros,
        (firsts, lasts): (&mut [u64], &mut [u64]),
    ) -> Option<bool> {
        let mut sweep = match Sweep::new(t, d, before) {
            Ok(sweep) => sweep,
            Err(answer) => return answer,
        };
        for &g in self.groups.live() {
            if sweep.full {
                break;
            }
            let (bs, size) = (self.pool.list(g), self.groups.size[g as usize]);
            let tail = self.groups.span(g).last_end();
            sweep.group(bs, tail, g, size, task, firsts, lasts);
        }
        sweep.answer(k, self.groups.size, firsts, lasts)
    }

    /// Marks `task`'s reservation as booked anew now: what booking it again at the same start
    /// on the same nodes would leave, once [`fits_before_ignoring`](Self::fits_before_ignoring)
    /// and [`rebooks_in_place`](Self::rebooks_in_place) said it would come back there.
    pub(crate) fn reserved_anew(&mut self, task: TaskId) {
        self.reserved = Some((task, self.loosened));
        self.kept = Some((task, self.version));
    }
}

/// The sweep of [`ClusterTimeline::fits_before_ignoring`] fed one group at a time, so that a
/// walk over the groups that asks something else of each (`in_place.rs`) can gather it too.
pub(super) struct Sweep {
    t: u64,
    d: u64,
    before: u64,
    /// Voids gathered with a start after `t`, and with a last start before `before`.
    v: usize,
    w: usize,
    /// Nodes of the voids open at `t`, and of those that open later.
    open: u32,
    later: u32,
    /// Whether the scratch buffers were too short.
    full: bool,
}

impl Sweep {
    /// A sweep for `d` from some start in `[t, before)`, or its answer when the times alone
    /// give it (`Some(false)` when the interval is empty, `None` when it is too long).
    #[inline]
    pub(super) fn new(t: Micros, d: Micros, before: Micros) -> Result<Sweep, Option<bool>> {
        if before <= t {
            return Err(Some(false));
        }
        if before.0 - t.0 >= FAR {
            return Err(None);
        }
        Ok(Sweep {
            t: t.0,
            d: d.0,
            before: before.0,
            v: 0,
            w: 0,
            open: 0,
            later: 0,
            full: false,
        })
    }

    /// Gathers the voids of group `g` (`size` nodes, bookings `bs` whose last ends at
    /// `tail`), `task`'s bookings counted as free.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn group(
        &mut self,
        bs: &[Booking],
        tail: u64,
        g: u32,
        size: u32,
        task: TaskId,
        firsts: &mut [u64],
        lasts: &mut [u64],
    ) {
        let (t, d, before) = (self.t, self.d, self.before);
        let cap = firsts.len().min(lasts.len());
        let key = |x: u64| ((x - t) << SHIFT) | g as u64;
        // Only voids that reach past t matter: none but the last when every booking has
        // ended by t (a group idle from t, found without a search).
        let from = match tail <= t {
            true => bs.len(),
            false => bs.partition_point(|b| b.end.0 <= t),
        };
        let mut a = if from > 0 { bs[from - 1].end.0 } else { 0 };
        for j in from..=bs.len() {
            let b = match bs.get(j) {
                Some(x) if x.task == task => continue,
                Some(x) => x.start.0,
                None => u64::MAX,
            };
            let first = a.max(t);
            if first >= before {
                break;
            }
            if b >= d && first <= b - d {
                // The voids open at t are counted at once, not sorted; and only the last
                // starts before `before` are kept, since one at or past it is past every
                // start asked about.
                if self.v >= cap || self.w >= cap {
                    self.full = true;
                    return;
                }
                if first == t {
                    self.open += size;
                } else {
                    firsts[self.v] = key(first);
                    self.v += 1;
                    self.later += size;
                }
                if b - d < before {
                    lasts[self.w] = key(b - d);
                    self.w += 1;
                }
            }
            if let Some(x) = bs.get(j) {
                a = x.end.0;
            }
        }
    }

    /// Whether `k` nodes are free together at some start, once every group was gathered
    /// (`size` the groups' sizes by id); `None` if the buffers were too short.
    pub(super) fn answer(
        &self,
        k: u32,
        size: &[u32],
        firsts: &mut [u64],
        lasts: &mut [u64],
    ) -> Option<bool> {
        if self.full {
            return None;
        }
        if self.open >= k {
            return Some(true);
        }
        // Coverage never exceeds every void counted at once: then no sort is needed.
        if self.open + self.later < k {
            return Some(false);
        }
        let (v, w) = (self.v, self.w);
        let firsts = &mut firsts[..v];
        let lasts = &mut lasts[..w];
        firsts.sort_unstable();
        lasts.sort_unstable();
        let weight = |key: u64| size[(key & NAME) as usize];
        // Coverage at s: the nodes of voids with first <= s less those with last < s; it can
        // only reach a new maximum at a first.
        let (mut i, mut ended, mut covered) = (0usize, 0usize, self.open);
        while i < v {
            let s = firsts[i] >> SHIFT;
            while i < v && firsts[i] >> SHIFT == s {
                covered += weight(firsts[i]);
                i += 1;
            }
            // Each of these was counted in: its first is at or before its last.
            while ended < w && lasts[ended] >> SHIFT < s {
                covered -= weight(lasts[ended]);
                ended += 1;
            }
            if covered >= k {
                return Some(true);
            }
        }
        Some(false)
    }
}

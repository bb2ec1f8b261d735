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
//! Data flow: reads the groups and their bookings; changes nothing but the mark of the
//! latest reservation ([`ClusterTimeline::reserved_anew`]).

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
    pub(crate) fn fits_before_ignoring(
        &self,
        t: Micros,
        k: u32,
        d: Micros,
        task: TaskId,
        before: Micros,
        (firsts, lasts): (&mut [u64], &mut [u64]),
    ) -> Option<bool> {
        if before <= t {
            return Some(false);
        }
        if before.0 - t.0 >= FAR {
            return None;
        }
        let cap = firsts.len().min(lasts.len());
        let key = |x: u64, g: u32| ((x - t.0) << SHIFT) | g as u64;
        // The voids open at t are counted at once, not sorted; and only the last starts
        // before `before` are kept, since one at or past it is past every start asked about.
        let (mut v, mut w, mut open, mut later) = (0usize, 0usize, 0u32, 0u32);
        for &g in self.groups.live() {
            let bs = self.pool.list(g);
            // Only voids that reach past t matter.
            let from = bs.partition_point(|b| b.end <= t);
            let mut a = if from > 0 { bs[from - 1].end.0 } else { 0 };
            for j in from..=bs.len() {
                let b = match bs.get(j) {
                    Some(x) if x.task == task => continue,
                    Some(x) => x.start.0,
                    None => u64::MAX,
                };
                let first = a.max(t.0);
                if first >= before.0 {
                    break;
                }
                if b >= d.0 && first <= b - d.0 {
                    if v >= cap || w >= cap {
                        return None;
                    }
                    if first == t.0 {
                        open += self.groups.size[g as usize];
                    } else {
                        firsts[v] = key(first, g);
                        v += 1;
                        later += self.groups.size[g as usize];
                    }
                    if b - d.0 < before.0 {
                        lasts[w] = key(b - d.0, g);
                        w += 1;
                    }
                }
                if let Some(x) = bs.get(j) {
                    a = x.end.0;
                }
            }
        }
        if open >= k {
            return Some(true);
        }
        // Coverage never exceeds every void counted at once: then no sort is needed.
        if open + later < k {
            return Some(false);
        }
        let firsts = &mut firsts[..v];
        let lasts = &mut lasts[..w];
        firsts.sort_unstable();
        lasts.sort_unstable();
        let weight = |key: u64| self.groups.size[(key & NAME) as usize];
        // Coverage at s: the nodes of voids with first <= s less those with last < s; it can
        // only reach a new maximum at a first.
        let (mut i, mut ended, mut covered) = (0usize, 0usize, open);
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

    /// Marks `task`'s reservation as booked anew now: what booking it again at the same start
    /// on the same nodes would leave, once [`fits_before_ignoring`](Self::fits_before_ignoring)
    /// and [`rebooks_in_place`](Self::rebooks_in_place) said it would come back there.
    pub(crate) fn reserved_anew(&mut self, task: TaskId) {
        self.reserved = Some((task, self.loosened));
    }
}

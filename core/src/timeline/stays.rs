//! Reservations that compression would give back unchanged: whether taking a reservation
//! back, asking its earliest start and booking it there again would book the same start on
//! the same nodes, decided without taking it back (Conservative's compression keeps it then).
//!
//! Compression runs after every early end and asks every reservation again; most come back
//! where they were. Taking one back and booking it again costs a removal, two sets of edits
//! of the void index and a node choice; this asks the same two questions on the timeline as
//! it is:
//!
//! - Would node choice at its start pick its nodes again? As in `in_place.rs`: its nodes,
//!   each with the void it would have once the booking is gone, must rank before every other
//!   node free over the run. Its groups are found as a removal finds them (the task
//!   filter); the other nodes free over the run are those whose void in the index holds it
//!   (its own nodes are booked then), so the least of their keys is read from the index.
//!   Only a tie on the key (node choice then goes by node index) needs a walk over the
//!   groups.
//! - Would its earliest start be its start? The void index is asked as the take-back would
//!   leave it: the counts are sums of weights, and up to the start the take-back's edits
//!   add to the index's count at an instant only the nodes whose void it opens by then, and
//!   nothing to the runs that end by the start (`Opens`). So the index's own sweep answers
//!   up to `s - d`, and a sweep with those few weights merged in answers from there to `s`:
//!   the first instant found with enough nodes is the one the index would give after the
//!   take-back.
//!
//! Either answer in doubt (a stale index, more voids opened than the list holds) says no,
//! and the caller takes the reservation back as before.
//!
//! Data flow: reads the groups, their spans and bookings, and a fresh void index; changes
//! nothing.

use super::choice::choice_key;
use super::groups::{self, task_bit, Holding, Span};
use super::in_place::last_member;
use super::void_index::{Void, VoidIndex};
use super::ClusterTimeline;
use crate::task::TaskId;
use crate::units::Micros;

/// Most voids a take-back may open (one for each group holding the booking, fewer where
/// groups share their void's start) for the check to answer.
const MAX_OPENS: usize = 128;

/// The voids a take-back would open, as what the earliest start reads of them: where each
/// opens and how many nodes get it (equal starts joined), in the order of their starts.
///
/// A take-back edits three voids a group: the void its nodes get, `[lo, hi)` around the
/// booking's `[s, e)`, comes, and its sides `[lo, s)` and `[e, hi)` go. A start `t` of a run
/// of `d` counts a void that holds `[t, t + d)`. If `t + d <= s`, `[lo, hi)` and `[lo, s)`
/// both hold the run or neither does (as `lo <= t`), and `[e, hi)` begins past it: the edits
/// count nothing. If `s - d < t <= s`, only `[lo, hi)` can hold it (`hi >= e >= t + d`), and
/// does when `lo <= t`. So up to `s`, the take-back adds the weights of the voids opened by
/// `t` to the index's count at `t`, and nothing before `s - d`.
struct Opens {
    /// A fixed-capacity list: its room is not written before use (the check runs for every
    /// reservation at every compression, and most need a few entries of the room).
    at: heapless::Vec<(u64, u32), MAX_OPENS>,
}

impl Opens {
    fn new() -> Opens {
        Opens {
            at: heapless::Vec::new(),
        }
    }

    /// Adds `weight` nodes whose void would open at `lo`; false if there is no room.
    fn add(&mut self, lo: u64, weight: u32) -> bool {
        if let Some(x) = self.at.last_mut().filter(|x| x.0 == lo) {
            x.1 += weight;
            return true;
        }
        self.at.push((lo, weight)).is_ok()
    }

    /// The voids, in the order of their starts.
    fn sorted(&mut self) -> &[(u64, u32)] {
        self.at.sort_unstable_by_key(|x| x.0);
        &self.at
    }
}

impl ClusterTimeline<'_> {
    /// Whether `task`'s reservation over `[s, e)` on `k` nodes, taken back with `now` the
    /// current instant, would have its earliest start (from `now`) at `s` and be booked there
    /// on the same nodes (see the module doc). False when the index is not fresh, and where
    /// a node of another group ties with one of the reservation's on node choice's key (only
    /// the node index would tell them apart).
    pub(crate) fn stays_when_taken_back(
        &self,
        now: Micros,
        task: TaskId,
        s: Micros,
        e: Micros,
        k: u32,
    ) -> bool {
        if !self.index_fresh() || s <= now || e <= s {
            return false;
        }
        let Some(ix) = self.index.as_ref() else {
            return false;
        };
        let gr = &self.groups;
        let (s0, d) = (s.0, e.0 - s.0);
        let mut walk = Holding::new(task_bit(task), s0);
        let mut opens = Opens::new();
        let mut found = 0u32;
        // The booking's groups, as a removal finds them; the greatest of their keys, and the
        // highest node of those that have it (for a tie, node choice's last key).
        let (mut last_mine, mut top) = (0u64, 0u32);
        while found < k {
            let Some(p) = walk.next(gr) else {
                break;
            };
            let g = gr.live[p];
            let bs = self.pool.list(g);
            let j = bs.partition_point(|b| b.start < s);
            if bs
                .get(j)
                .is_none_or(|b| b.task != task || b.start != s || b.end != e)
            {
                continue;
            }
            // The void it would leave: its neighbours' ends join.
            let lo = if j == 0 { 0 } else { bs[j - 1].end.0 };
            let hi = bs.get(j + 1).map_or(u64::MAX, |b| b.start.0);
            let w = gr.size[g as usize];
            found += w;
            let key = choice_key(now, s, e, lo, hi, 0);
            if key >= last_mine {
                let high = last_member(gr, g);
                top = if key > last_mine { high } else { top.max(high) };
                last_mine = key;
            }
            if !opens.add(lo, w) {
                return false;
            }
        }
        if found != k {
            return false;
        }
        let ranked = match least_other_key(ix, now, s, e) {
            Some(key) if key < last_mine => false,
            Some(key) if key == last_mine => !self.tied_below(now, s, e, key, top),
            _ => true,
        };
        if !ranked {
            return false;
        }
        // A start whose run ends by `s0` counts the take-back's edits as nothing (`Opens`):
        // the index alone answers there, by its own sweep; the voids opened are counted
        // only for the starts after.
        let mut t = now.0;
        if let Some(last) = s0.checked_sub(d).filter(|&last| last >= t) {
            if ix.first_fit(t, k, d, last).is_some() {
                return false;
            }
            t = last + 1;
        }
        earliest_is(ix, opens.sorted(), t, k, d, s0)
    }
}

/// The least node-choice key (without the group's id) of the nodes free over `[s, e)` in
/// the index `ix`, if any (the reservation's own nodes are not: they are booked then). The
/// voids that hold `[s, e)` are those that open by `s` and close at or after `e`: read from
/// the shorter of the index's two sides.
fn least_other_key(ix: &VoidIndex<'_>, now: Micros, s: Micros, e: Micros) -> Option<u64> {
    let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
    let opened = starts.partition_point(|x| x.start <= s.0);
    let closed = ends.partition_point(|x| x.end < e.0);
    let key = |x: &Void| choice_key(now, s, e, x.start, x.end, 0);
    if opened <= ends.len() - closed {
        starts[..opened]
            .iter()
            .filter(|x| x.end >= e.0)
            .map(key)
            .min()
    } else {
        ends[closed..]
            .iter()
            .filter(|x| x.start <= s.0)
            .map(key)
            .min()
    }
}

impl ClusterTimeline<'_> {
    /// Whether a group free over `[s, e)` whose node-choice key is `key` (a tie with the
    /// reservation's nodes, which node choice breaks by node index) has a node below `top`:
    /// a walk over the groups, as node choice's, that stops at the first.
    fn tied_below(&self, now: Micros, s: Micros, e: Micros, key: u64, top: u32) -> bool {
        let gr = &self.groups;
        let live = gr.live();
        let (s0, e0, d) = (s.0, e.0, e.0 - s.0);
        // A group free for good by `s` has one of two keys, as its void opens before `s` or
        // at it: both known before the walk, so such a group costs a comparison.
        let free_before = choice_key(now, s, e, 0, u64::MAX, 0) == key;
        let free_at = choice_key(now, s, e, s0, u64::MAX, 0) == key;
        gr.entry_chunks().enumerate().any(|(p, x)| {
            let tail = groups::tail(x);
            if s0 >= tail {
                let tied = if s0 > tail { free_before } else { free_at };
                return tied && gr.head[live[p] as usize] < top;
            }
            let head = groups::head(x);
            let void = if e0 <= head {
                Some((0, head))
            } else if groups::gap(x) < d {
                None
            } else {
                match Span::at(x).decides(s0, e0) {
                    Some(v) => v,
                    None => self.void_in_bookings(live[p], s, e),
                }
            };
            void.is_some_and(|(a, b)| {
                choice_key(now, s, e, a, b, 0) == key && gr.head[live[p] as usize] < top
            })
        })
    }
}

/// Whether the earliest start at or after `t` (with `t > s0 - d`) of `k` nodes free for `d`
/// is `s0`, as the void index `ix` would answer with the voids `opens` (by start) opened
/// (`Opens`): `VoidIndex::first_fit`'s sweep with the opened voids' weights added from
/// their starts on, which are candidate starts too. No count falls between two candidates, so a start found
/// before `s0` is found at a candidate; `s0`, where every opened void counts, has `k`.
fn earliest_is(ix: &VoidIndex<'_>, opens: &[(u64, u32)], t: u64, k: u32, d: u64, s0: u64) -> bool {
    let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
    let (mut i, mut e, mut opened, mut ended) = ix.count_over(t, t.saturating_add(d));
    let mut o = opens.partition_point(|x| x.0 <= t);
    let mut own: u32 = opens[..o].iter().map(|x| x.1).sum();
    if opened - ended + own >= k {
        return t == s0;
    }
    loop {
        let s = match (starts.get(i), opens.get(o)) {
            (Some(a), Some(b)) => a.start.min(b.0),
            (Some(a), None) => a.start,
            (None, Some(b)) => b.0,
            (None, None) => return false,
        };
        if s > s0 {
            return false;
        }
        while i < starts.len() && starts[i].start == s {
            if starts[i].end - starts[i].start >= d {
                opened += starts[i].weight;
            }
            i += 1;
        }
        while o < opens.len() && opens[o].0 == s {
            own += opens[o].1;
            o += 1;
        }
        let sd = s.saturating_add(d);
        while e < ends.len() && ends[e].end < sd {
            if ends[e].end - ends[e].start >= d {
                ended += ends[e].weight;
            }
            e += 1;
        }
        if opened - ended + own >= k {
            return s == s0;
        }
    }
}

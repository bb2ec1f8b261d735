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
//! - Would its earliest start be its start? The void index is asked with the edits the
//!   take-back would make laid over it (a few signed entries, merged into the sweep): the
//!   counts are sums of weights, so the index and the overlay together count what the index
//!   would after the take-back, at every instant, and the first instant the sweep finds
//!   enough nodes at is the same.
//!
//! Either answer in doubt (a stale index, more edits than the overlay holds) says no, and
//! the caller takes the reservation back as before.
//!
//! Data flow: reads the groups, their spans and bookings, and a fresh void index; changes
//! nothing.

use super::choice::choice_key;
use super::groups::{self, task_bit, Span};
use super::in_place::last_member;
use super::void_index::{Void, VoidIndex};
use super::ClusterTimeline;
use crate::task::TaskId;
use crate::units::Micros;

/// Most edits of the void index a take-back may make for the check to answer (three for
/// each group holding the booking, fewer where groups share their void).
const MAX_OVERLAY: usize = 24;

/// A change of the void index: `weight` nodes gain (positive) or lose (negative) the void
/// `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Delta {
    start: u64,
    end: u64,
    weight: i64,
}

/// The edits a take-back would make, as a short list (equal voids joined), in the order
/// of their starts, and the same entries' positions in the order of their ends.
struct Overlay {
    by_start: [Delta; MAX_OVERLAY],
    by_end: [u8; MAX_OVERLAY],
    len: usize,
}

impl Overlay {
    fn new() -> Overlay {
        Overlay {
            by_start: [Delta::default(); MAX_OVERLAY],
            by_end: [0; MAX_OVERLAY],
            len: 0,
        }
    }

    /// Adds `weight` nodes to void `[start, end)` (negative: takes them away), unless the
    /// void ends by `horizon` (the index leaves those out); false if there is no room.
    fn add(&mut self, horizon: u64, start: u64, end: u64, weight: i64) -> bool {
        if end <= horizon {
            return true;
        }
        let held = &mut self.by_start[..self.len];
        if let Some(x) = held
            .iter_mut()
            .rev()
            .take(3)
            .find(|x| x.start == start && x.end == end)
        {
            x.weight += weight;
            return true;
        }
        match self.by_start.get_mut(self.len) {
            Some(slot) => {
                *slot = Delta { start, end, weight };
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// Sorts the edits both ways (after the last [`add`](Self::add)).
    fn sort(&mut self) {
        let n = self.len;
        let deltas = &mut self.by_start[..n];
        deltas.sort_unstable_by_key(|x| (x.start, x.end));
        let order = &mut self.by_end[..n];
        for (j, x) in order.iter_mut().enumerate() {
            *x = j as u8;
        }
        order.sort_unstable_by_key(|&j| (deltas[j as usize].end, deltas[j as usize].start));
    }

    /// The `j`-th edit in the order of ends.
    fn by_end(&self, j: usize) -> &Delta {
        &self.by_start[self.by_end[j] as usize]
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
        let horizon = self.horizon.0;
        let gr = &self.groups;
        let (word, mask) = groups::holds_word(task_bit(task));
        let (s0, e0, d) = (s.0, e.0, e.0 - s.0);
        let mut over = Overlay::new();
        let mut found = 0u32;
        // The booking's groups, as a removal finds them; the greatest of their keys, and the
        // highest node of those that have it (for a tie, node choice's last key).
        let (mut last_mine, mut top) = (0u64, 0u32);
        let mut next = 0;
        while found < k {
            let Some(p) = gr.find_from(next, |x| {
                x[word] & mask != 0 && groups::head(x) <= s0 && s0 < groups::tail(x)
            }) else {
                break;
            };
            next = p + 1;
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
            let w = w as i64;
            let mut room = over.add(horizon, lo, hi, w);
            if lo < s0 {
                room &= over.add(horizon, lo, s0, -w);
            }
            if hi > e0 {
                room &= over.add(horizon, e0, hi, -w);
            }
            if !room {
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
        // A start whose run ends by `s0` counts the take-back's edits as nothing (the void
        // it would leave and the side before the booking it loses both hold such a run, or
        // neither does; the side after begins past it): the index alone answers there, by
        // its own sweep, and the overlay is merged in only for the starts after.
        let mut t = now.0;
        if let Some(last) = s0.checked_sub(d).filter(|&last| last >= t) {
            if fits_by(ix, t, k, d, last) {
                return false;
            }
            t = last + 1;
        }
        over.sort();
        earliest_with(ix, &over, t, k, d) == Some(s0)
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

/// Whether `k` nodes are free for `d` from some start in `[t, last]`, as the void index
/// `ix` counts them: `indexed_earliest`'s sweep (`earliest.rs`), stopped past `last`.
fn fits_by(ix: &VoidIndex<'_>, t: u64, k: u32, d: u64, last: u64) -> bool {
    let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
    let (mut i, mut e, mut opened, mut ended) = ix.count_over(t, t.saturating_add(d));
    if opened - ended >= k {
        return true;
    }
    while let Some(x) = starts.get(i) {
        let s = x.start;
        if s > last {
            return false;
        }
        while i < starts.len() && starts[i].start == s {
            if starts[i].end - starts[i].start >= d {
                opened += starts[i].weight;
            }
            i += 1;
        }
        let sd = s.saturating_add(d);
        while e < ends.len() && ends[e].end < sd {
            if ends[e].end - ends[e].start >= d {
                ended += ends[e].weight;
            }
            e += 1;
        }
        if opened - ended >= k {
            return true;
        }
    }
    false
}

/// The earliest start at or after `t` of `k` nodes free for `d`, as the void index `ix`
/// would answer with the edits `over` applied (`indexed_earliest` in `earliest.rs`, with a
/// second pair of sorted arrays merged into its sweep; the weights are counted signed).
fn earliest_with(ix: &VoidIndex<'_>, over: &Overlay, t: u64, k: u32, d: u64) -> Option<u64> {
    let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
    let os = &over.by_start[..over.len];
    let on = os.len();
    let k = k as i64;
    let e0 = t.saturating_add(d);
    let (mut i, mut e, opened, ended) = ix.count_over(t, e0);
    let (mut opened, mut ended) = (opened as i64, ended as i64);
    // The overlay's share of the same counts at t.
    let mut oi = os.partition_point(|x| x.start <= t);
    opened += os[..oi].iter().map(|x| x.weight).sum::<i64>();
    opened += os[oi..]
        .iter()
        .take_while(|x| x.start < e0)
        .filter(|x| x.end < e0)
        .map(|x| x.weight)
        .sum::<i64>();
    let mut oj = 0;
    while oj < on && over.by_end(oj).end < e0 {
        ended += over.by_end(oj).weight;
        oj += 1;
    }
    if opened - ended >= k {
        return Some(t);
    }
    let admits = |start: u64, end: u64| end - start >= d;
    loop {
        let s = match (starts.get(i), os.get(oi)) {
            (Some(a), Some(b)) => a.start.min(b.start),
            (Some(a), None) => a.start,
            (None, Some(b)) => b.start,
            (None, None) => return None,
        };
        while i < starts.len() && starts[i].start == s {
            if admits(starts[i].start, starts[i].end) {
                opened += starts[i].weight as i64;
            }
            i += 1;
        }
        while oi < os.len() && os[oi].start == s {
            if admits(os[oi].start, os[oi].end) {
                opened += os[oi].weight;
            }
            oi += 1;
        }
        let sd = s.saturating_add(d);
        while e < ends.len() && ends[e].end < sd {
            if admits(ends[e].start, ends[e].end) {
                ended += ends[e].weight as i64;
            }
            e += 1;
        }
        while oj < on && over.by_end(oj).end < sd {
            let x = over.by_end(oj);
            if admits(x.start, x.end) {
                ended += x.weight;
            }
            oj += 1;
        }
        if opened - ended >= k {
            return Some(s);
        }
    }
}

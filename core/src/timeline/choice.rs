//! Node choice and booking: which `k` nodes a booking takes, and adding it to them.
//!
//! The choice (seed 000 §III.F) keys every free node by the idle voids the booking would
//! leave, then its void's size, then its index, and takes the lowest keys. Nodes of one group
//! share all but the last key, so the groups are keyed instead ([`choice_key`]), whole groups
//! taken in key order, and where groups tie at the margin their lowest members are merged by
//! index through a heap ([`lowest_members`]). [`ClusterTimeline::book_chosen`] books the
//! choice as it is made: it marks the nodes taken only in the groups taken in part, which are
//! then split (`groups.rs`), and edits the void index (`void_index.rs`) once for each run of
//! groups sharing a void. The tests' `book` books a list of nodes the same way.
//!
//! Data flow: reads the groups' spans and bookings, writes bookings, groups, index edits and
//! the booking log and counts of `mod.rs`.

use super::groups::{Groups, NONE, TAKEN};
use super::node::{Booking, BookingKind};
use super::{ClusterTimeline, Logged};
use crate::error::{full, Capacity, Error, InputError};
use crate::heap::{sift_down, sift_up};
use crate::limits::{BOOKING_LOG, MAX_BOOKINGS_PER_NODE};
use crate::units::Micros;

impl<'a> ClusterTimeline<'a> {
    /// Chooses `out.len()` nodes free over `[s, s + d)`: fewest new idle voids, then the
    /// smallest void, then the lowest index (seed 000 §III.F), and writes them in node order.
    /// `now` is the earliest instant a void can begin (idle time before it is gone; at or
    /// after the horizon, as `s` is). Returns how many were found; fewer than asked means the
    /// nodes are not free. `keys` needs room for twice as many entries as the cluster has
    /// groups. With [`book`](Self::book), the tests' reference for
    /// [`book_chosen`](Self::book_chosen), which makes the same choice as it books.
    #[cfg(test)]
    pub(crate) fn choose_nodes(
        &self,
        now: Micros,
        s: Micros,
        d: Micros,
        out: &mut [u32],
        keys: &mut [u64],
    ) -> usize {
        let e = s.saturating_add(d);
        if keys.len() < 2 * self.groups.count {
            return 0;
        }
        let m = self.free_group_keys(now, s, e, keys);
        let (keys, heads) = keys.split_at_mut(m);
        keys.sort_unstable();
        let (gr, mut got) = (&self.groups, 0usize);
        take_chosen(
            keys,
            heads,
            gr.size,
            gr.next,
            out.len() as u32,
            |first, n| {
                for node in gr.members(first).take(n as usize) {
                    out[got] = node;
                    got += 1;
                }
            },
        );
        // In node order, as a booking's nodes are expected.
        out[..got].sort_unstable();
        got
    }

    /// Writes the node-choice key ([`choice_key`]) of every group free over `[s, e)` to
    /// `keys` (room for one per group), unsorted; returns how many. It reads every group's
    /// bookings (the void index does not say whose voids it holds).
    fn free_group_keys(&self, now: Micros, s: Micros, e: Micros, keys: &mut [u64]) -> usize {
        let mut m = 0usize;
        for &g in self.groups.live() {
            let void = match self.groups.span(g).decides(s.0, e.0) {
                Some(v) => v,
                None => self.void_of(g, s, e).map(|(a, b)| (a.0, b.0)),
            };
            if let Some((a, b)) = void {
                keys[m] = choice_key(now, s, e, a, b, g);
                m += 1;
            }
        }
        m
    }

    /// Books `nodes` for `b`; all or nothing: on an overlap or a full node, nothing changes.
    #[cfg(test)]
    pub(crate) fn book(&mut self, nodes: &[u32], b: Booking) -> Result<(), Error> {
        if b.end <= b.start {
            return Err(InputError::ZeroDuration.into());
        }
        let fresh = self.index_fresh();
        // Mark the nodes taken and count them by group; check each group once.
        self.groups.begin();
        let mut t = 0usize;
        for (j, &n) in nodes.iter().enumerate() {
            if let Err(err) = self.mark_taken(n, &b, &mut t) {
                self.unmark(&nodes[..j]);
                return Err(err);
            }
        }
        self.book_taken(t, nodes.len() as u32, b, fresh, true);
        Ok(())
    }

    /// Marks node `n` taken by `b` and counts it in its group (`groups.list[..t]` holds the
    /// groups taken so far), checking the group (free over `b`, room for it) at its first
    /// node; on an error nothing is marked.
    #[cfg(test)]
    fn mark_taken(&mut self, n: u32, b: &Booking, t: &mut usize) -> Result<(), Error> {
        let cluster_nodes = self.slots.len() as u32;
        let Some(&g) = self.groups.of.get(n as usize) else {
            return Err(InputError::BadNodeCount {
                nodes: n + 1,
                cluster_nodes,
            }
            .into());
        };
        if g & TAKEN != 0 {
            // The same node twice.
            return Err(InputError::Overlap.into());
        }
        if self.groups.mark[g as usize] != self.groups.stamp {
            let bs = &self.slots[g as usize].bookings;
            let i = bs.partition_point(|x| x.end <= b.start);
            if bs.get(i).is_some_and(|x| x.start < b.end) {
                return Err(InputError::Overlap.into());
            }
            if bs.is_full() {
                return Err(full(Capacity::NodeBookings, MAX_BOOKINGS_PER_NODE).into());
            }
        }
        self.groups.of[n as usize] = g | TAKEN;
        self.groups.touch(g, t);
        self.groups.taken[g as usize] += 1;
        Ok(())
    }

    /// Chooses `k` nodes free over `[b.start, b.end)` as `choose_nodes` would (with `now` its
    /// `now`) and books them for `b`, all or nothing. The same nodes as `choose_nodes` then
    /// `book` (the tests' reference), but whole groups are booked as they are:
    /// only the groups at the margin are walked node by node. Returns false, changing
    /// nothing, if fewer than `k` nodes are free. `keys` as for `choose_nodes`.
    pub(crate) fn book_chosen(
        &mut self,
        now: Micros,
        k: u32,
        b: Booking,
        keys: &mut [u64],
    ) -> Result<bool, Error> {
        if b.end <= b.start {
            return Err(InputError::ZeroDuration.into());
        }
        if keys.len() < 2 * self.groups.count {
            return Err(full(Capacity::Nodes, keys.len() / 2).into());
        }
        let fresh = self.index_fresh();
        let (s, e) = (b.start, b.end);
        let m = self.free_group_keys(now, s, e, keys);
        let (keys, heads) = keys.split_at_mut(m);
        keys.sort_unstable();
        // Pass 1: how many nodes each group gives (a prefix of its members, in node order).
        self.groups.begin();
        let mut t = 0usize;
        let Groups {
            of,
            next,
            size,
            mark,
            taken,
            list,
            stamp,
            ..
        } = &mut self.groups;
        // `Groups::touch`, inline: `size` and `next` are borrowed meanwhile.
        let got = take_chosen(keys, heads, size, next, k, |first, n| {
            let g = of[first as usize] as usize;
            if mark[g] != *stamp {
                mark[g] = *stamp;
                list[t] = g as u32;
                t += 1;
                taken[g] = 0;
            }
            taken[g] += n;
        });
        // Nothing is marked yet (counts of an abandoned change are reset at the next touch).
        if got < k {
            return Ok(false);
        }
        let list = &self.groups.list[..t];
        if list
            .iter()
            .any(|&g| self.slots[g as usize].bookings.is_full())
        {
            return Err(full(Capacity::NodeBookings, MAX_BOOKINGS_PER_NODE).into());
        }
        // Pass 2: mark the taken members of the groups taken in part.
        for &g in &self.groups.list[..t] {
            let take = self.groups.taken[g as usize];
            if take < self.groups.size[g as usize] {
                let mut at = g;
                for _ in 0..take {
                    self.groups.of[at as usize] |= TAKEN;
                    at = self.groups.next[at as usize];
                }
            }
        }
        self.book_taken(t, k, b, fresh, false);
        Ok(true)
    }

    /// Books `b` on the groups `groups.list[..t]`, `groups.taken[g]` nodes of each (checked
    /// free and with room), the taken members of a group taken in part carrying [`TAKEN`]
    /// (and of a whole group too if `marked_whole`); `k` nodes in all, `fresh`: the index was.
    fn book_taken(&mut self, mut t: usize, k: u32, b: Booking, fresh: bool, marked_whole: bool) {
        self.changed();
        self.begin_edits(fresh);
        let (s, e) = (b.start.0, b.end.0);
        // The nodes taken from each group lose the void the booking falls in; then the
        // groups taken in part split (the list then names every group taken from, its
        // taken part carrying the count).
        // Groups taken one after the other mostly share their void: one edit of each run.
        let touched = t;
        let mut run: Option<(u64, u64, u32)> = None;
        for x in 0..touched {
            let g = self.groups.list[x];
            let (lo, hi) = self.void_bounds(g, b.start);
            let w = self.groups.taken[g as usize];
            run = match run {
                Some((a, z, n)) if (a, z) == (lo, hi) => Some((a, z, n + w)),
                Some((a, z, n)) => {
                    self.edit_split(false, a, z, (s, e), n);
                    Some((lo, hi, w))
                }
                None => Some((lo, hi, w)),
            };
            if w < self.groups.size[g as usize] {
                self.split_taken(g, &mut t);
            } else if marked_whole {
                self.clear_taken(g);
            }
        }
        if let Some((a, z, n)) = run {
            self.edit_split(false, a, z, (s, e), n);
        }
        let held = b.kind == BookingKind::PlaceHolder;
        for x in 0..t {
            let g = self.groups.list[x];
            if self.groups.taken[g as usize] != 0 {
                let bs = &mut self.slots[g as usize].bookings;
                let i = match bs.last() {
                    Some(l) if l.end > b.start => bs.partition_point(|x| x.end <= b.start),
                    _ => bs.len(),
                };
                // Checked by the callers: the group is free there and has room.
                let _ = bs.insert(i, b);
                self.sync(g);
            }
            self.groups.taken[g as usize] = 0;
        }
        self.apply_edits();
        if held {
            self.held += k;
        }
        self.booked += k;
        if b.end < self.first_end {
            self.first_end = b.end;
        }
        self.log[self.tightened as usize % BOOKING_LOG] = Logged {
            start: b.start.0,
            end: b.end.0,
            nodes: k,
        };
        self.tightened = self.tightened.wrapping_add(1);
    }

    /// The void of group `g` that instant `at` falls in (at or after the last booking
    /// that ends by `at`), as (start, end).
    fn void_bounds(&self, g: u32, at: Micros) -> (u64, u64) {
        let bs = &self.slots[g as usize].bookings;
        let i = match bs.last() {
            Some(l) if l.end > at => bs.partition_point(|x| x.end <= at),
            _ => bs.len(),
        };
        let lo = if i == 0 { 0 } else { bs[i - 1].end.0 };
        (lo, bs.get(i).map_or(u64::MAX, |x| x.start.0))
    }

    /// Clears the taken mark of `nodes`.
    #[cfg(test)]
    fn unmark(&mut self, nodes: &[u32]) {
        for &n in nodes {
            self.groups.of[n as usize] &= !TAKEN;
        }
    }

    /// Clears the taken mark of every member of group `g` (taken whole).
    fn clear_taken(&mut self, g: u32) {
        let mut at = g;
        while at != NONE {
            self.groups.of[at as usize] = g;
            at = self.groups.next[at as usize];
        }
    }
}

/// Node choice over the free groups whose keys ([`choice_key`]) are `keys`, sorted: calls
/// `take(first, n)` for `n` members of a group from member `first` on, in the choice's order,
/// until `want` nodes are taken or the groups run out; returns how many were taken. Whole
/// groups come first; where several groups share the marginal key, their lowest nodes come
/// one by one from a heap merge in `heads` (room for one entry a group).
fn take_chosen(
    keys: &[u64],
    heads: &mut [u64],
    size: &[u32],
    next: &[u32],
    want: u32,
    mut take: impl FnMut(u32, u32),
) -> u32 {
    let mut got = 0u32;
    let mut i = 0usize;
    while i < keys.len() && got < want {
        // The run of groups whose nodes' keys differ only in the node index.
        let class = keys[i] >> 20;
        let j = i + keys[i..].iter().take_while(|&&x| x >> 20 == class).count();
        let run = &keys[i..j];
        let weight: u32 = run.iter().map(|&x| size[(x & 0xF_FFFF) as usize]).sum();
        if got + weight <= want || run.len() == 1 {
            // Whole groups, or one group's lowest nodes.
            for &x in run {
                let g = (x & 0xF_FFFF) as u32;
                let n = size[g as usize].min(want - got);
                take(g, n);
                got += n;
            }
        } else {
            let heads = &mut heads[..run.len()];
            for (h, &x) in heads.iter_mut().zip(run) {
                *h = x & 0xF_FFFF;
            }
            lowest_members(heads, next, (want - got) as usize, |node| {
                take(node, 1);
                got += 1;
            });
        }
        i = j;
    }
    got
}

/// Calls `take` on the `want` lowest nodes (fewer if there are not so many) of the groups
/// whose lowest members are `heads`, in increasing order (a list each, in node order, linked
/// by `next`), lowest first. A merge of the lists: a group's head is read in order, and only
/// the members after a head taken wait in a binary min-heap, kept in `heads[..h]` (never past
/// the heads read, `heads[p..]`). O(want log want); groups of one node never enter the heap.
fn lowest_members(heads: &mut [u64], next: &[u32], want: usize, mut take: impl FnMut(u32)) {
    let (mut h, mut p) = (0usize, 0usize);
    for _ in 0..want {
        let node = if p < heads.len() && (h == 0 || heads[p] < heads[0]) {
            // The next group's head; its next member waits in the heap (room: h < p now).
            let node = heads[p] as u32;
            p += 1;
            if let Some(&n) = next.get(node as usize).filter(|&&n| n != NONE) {
                heads[h] = n as u64;
                h += 1;
                sift_up(&mut heads[..h], h - 1, |a, b| a < b);
            }
            node
        } else if h > 0 {
            let node = heads[0] as u32;
            match next[node as usize] {
                NONE => {
                    h -= 1;
                    heads[0] = heads[h];
                }
                n => heads[0] = n as u64,
            }
            sift_down(&mut heads[..h], 0, |a, b| a < b);
            node
        } else {
            return;
        };
        take(node);
    }
}

/// Node choice's sort key of a free group whose void is `[a, b)`, for a booking over
/// `[s, e)`: new idle voids, then void size, then the group's name. Its nodes all have this
/// key but for their index, the last key, so a group's lowest nodes go first.
fn choice_key(now: Micros, s: Micros, e: Micros, a: u64, b: u64, g: u32) -> u64 {
    let a = a.max(now.0);
    let new_before = (s.0 > a) as u64;
    let new_after = (b != u64::MAX && e.0 < b) as u64;
    let size = if b == u64::MAX { u64::MAX } else { b - a };
    let size = size.min((1 << 42) - 1);
    ((new_before + new_after) << 62) | (size << 20) | (g as u64 & 0xF_FFFF)
}

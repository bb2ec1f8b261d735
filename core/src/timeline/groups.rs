//! Groups: the partition of a cluster's nodes into groups with equal bookings.
//!
//! A group is named by its lowest node, and only that node's slot holds the group's
//! bookings; its members form a list in node order, linked through `next`. All of it lives
//! in the `members` storage the caller gives the cluster ([`GROUP_ARRAYS`] `u32`s a node).
//! A booking that takes part of a group splits it in two ([`ClusterTimeline::split_taken`]);
//! groups whose bookings became equal again are merged, one sort of the groups by their
//! bookings and a heap merge of their member lists ([`ClusterTimeline::merge`]).
//!
//! Data flow: the changes in `choice.rs` and `release.rs` call in here after writing a
//! group's bookings; everything that reads a group (the queries, the index) reads the lists
//! and sizes kept here. This file reads the bookings (`node.rs`) and nothing else of its
//! siblings.

use super::node::{copy_slot, Booking};
use super::ClusterTimeline;
use crate::heap::sift_down;

/// No node: the end of a group's member list.
pub(super) const NONE: u32 = u32::MAX;

/// A node taken by the booking being made (a flag in its group entry).
pub(super) const TAKEN: u32 = 1 << 31;

/// Arrays of `u32` a cluster's groups need per node (see [`Groups`]).
pub(super) const GROUP_ARRAYS: usize = 7 + SPAN;

/// `u32`s of a group's [`Span`] in [`Groups::span`].
const SPAN: usize = 5;

/// What node choice reads of a group before its bookings: the first booking's start
/// (`u64::MAX` if none), the last one's end (0 if none) and how many there are. Most
/// groups' answer to "free over `[s, e)`?" follows from these (the run is after every
/// booking or before them all, or overlaps the only one), and they sit together in
/// [`Groups::span`], where the bookings are a node slot apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    head: u64,
    tail: u64,
    len: u32,
}

impl Span {
    /// The span of a group holding `bs`.
    pub(super) fn of(bs: &[Booking]) -> Span {
        Span {
            head: bs.first().map_or(u64::MAX, |b| b.start.0),
            tail: bs.last().map_or(0, |b| b.end.0),
            len: bs.len() as u32,
        }
    }

    /// The void of the group over `[s, e)` if the span decides it: `Some(Some(void))` free,
    /// `Some(None)` not, `None` when only the bookings can tell.
    pub(super) fn decides(&self, s: u64, e: u64) -> Option<Option<(u64, u64)>> {
        if s >= self.tail {
            Some(Some((self.tail, u64::MAX)))
        } else if e <= self.head {
            Some(Some((0, self.head)))
        } else if self.len == 1 {
            Some(None)
        } else {
            None
        }
    }
}

/// The partition of a cluster's nodes into groups with equal bookings, over the caller's
/// storage. A group is named by its lowest node; its members form a list in node order.
pub(super) struct Groups<'a> {
    /// Per node: its group (with [`TAKEN`] set while a booking is being made).
    pub(super) of: &'a mut [u32],
    /// Per node: the next member of its group, or [`NONE`].
    pub(super) next: &'a mut [u32],
    /// Per group name: its number of nodes (0: no group has that name).
    pub(super) size: &'a mut [u32],
    /// The names of the groups, `live[..count]`, in no particular order.
    pub(super) live: &'a mut [u32],
    pub(super) count: usize,
    /// Per group name: the stamp of the last change that touched it.
    pub(super) mark: &'a mut [u32],
    /// Per group name: nodes the booking being made takes from it.
    pub(super) taken: &'a mut [u32],
    /// Scratch list of group names: the groups a change touches; sorting while merging.
    pub(super) list: &'a mut [u32],
    /// Per group name, [`SPAN`] entries: its [`Span`] (kept by [`ClusterTimeline::sync`]).
    pub(super) span: &'a mut [u32],
    pub(super) stamp: u32,
}

impl<'a> Groups<'a> {
    /// One group of all `n` nodes, over `members` (at least [`GROUP_ARRAYS`] entries a node).
    pub(super) fn new(members: &'a mut [u32], n: usize) -> Groups<'a> {
        let (of, rest) = members.split_at_mut(n);
        let (next, rest) = rest.split_at_mut(n);
        let (size, rest) = rest.split_at_mut(n);
        let (live, rest) = rest.split_at_mut(n);
        let (mark, rest) = rest.split_at_mut(n);
        let (taken, rest) = rest.split_at_mut(n);
        let (list, rest) = rest.split_at_mut(n);
        let (span, _) = rest.split_at_mut(SPAN * n);
        for i in 0..n {
            of[i] = 0;
            next[i] = if i + 1 < n { i as u32 + 1 } else { NONE };
        }
        size.fill(0);
        mark.fill(0);
        taken.fill(0);
        if n > 0 {
            size[0] = n as u32;
            live[0] = 0;
        }
        Groups {
            of,
            next,
            size,
            live,
            count: (n > 0) as usize,
            mark,
            taken,
            list,
            span,
            stamp: 0,
        }
    }

    /// Makes these groups (of `n` nodes) those of `b`; the stamp, marks and counts of a
    /// change are left, as every change begins anew.
    pub(super) fn copy_from(&mut self, b: &Groups<'_>, n: usize) {
        self.of.copy_from_slice(&b.of[..n]);
        self.next.copy_from_slice(&b.next[..n]);
        self.size.copy_from_slice(&b.size[..n]);
        self.live.copy_from_slice(&b.live[..n]);
        self.span.copy_from_slice(&b.span[..SPAN * n]);
        self.count = b.count;
    }

    /// Starts a change: a new stamp (marks of earlier changes are then stale).
    pub(super) fn begin(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
    }

    /// Notes that the change touches group `g` (`list[..n]` holds the groups touched so
    /// far); at its first touch its taken count starts at 0.
    pub(super) fn touch(&mut self, g: u32, n: &mut usize) {
        if self.mark[g as usize] != self.stamp {
            self.mark[g as usize] = self.stamp;
            self.list[*n] = g;
            *n += 1;
            self.taken[g as usize] = 0;
        }
    }

    /// The names of the groups.
    #[inline]
    pub(super) fn live(&self) -> &[u32] {
        &self.live[..self.count]
    }

    /// Group `g`'s span.
    pub(super) fn span(&self, g: u32) -> Span {
        let x = &self.span[g as usize * SPAN..][..SPAN];
        Span {
            head: (x[0] as u64) << 32 | x[1] as u64,
            tail: (x[2] as u64) << 32 | x[3] as u64,
            len: x[4],
        }
    }

    /// Sets group `g`'s span.
    fn set_span(&mut self, g: u32, sp: Span) {
        let x = &mut self.span[g as usize * SPAN..][..SPAN];
        x.copy_from_slice(&[
            (sp.head >> 32) as u32,
            sp.head as u32,
            (sp.tail >> 32) as u32,
            sp.tail as u32,
            sp.len,
        ]);
    }

    /// The members of group `g` in node order (from member `g` on, if `g` is not its name).
    #[cfg(test)]
    pub(super) fn members(&self, g: u32) -> Members<'_> {
        Members {
            next: self.next,
            at: g,
        }
    }
}

/// An iterator over a group's members.
#[cfg(test)]
pub(super) struct Members<'a> {
    next: &'a [u32],
    at: u32,
}

#[cfg(test)]
impl Iterator for Members<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        (self.at != NONE).then(|| {
            let n = self.at;
            self.at = self.next[n as usize];
            n
        })
    }
}

impl<'a> ClusterTimeline<'a> {
    /// Brings group `g`'s [`Span`] up to date with its bookings (after every change to them).
    pub(super) fn sync(&mut self, g: u32) {
        let sp = Span::of(&self.slots[g as usize].bookings);
        self.groups.set_span(g, sp);
    }

    /// Splits group `g` into its taken members and the rest (both lists stay in node order;
    /// the part without `g` gets its lowest node's name and a copy of the bookings), clears
    /// the marks, and adds the new group to the change's list. The taken part keeps the
    /// count in `taken`; the other has none.
    pub(super) fn split_taken(&mut self, g: u32, t: &mut usize) {
        let gr = &mut self.groups;
        let (mut taken_head, mut taken_tail, mut rest_head, mut rest_tail) =
            (NONE, NONE, NONE, NONE);
        let (mut nt, mut nr) = (0u32, 0u32);
        let mut at = g;
        while at != NONE {
            let next = gr.next[at as usize];
            let is_taken = gr.of[at as usize] & TAKEN != 0;
            let (head, tail, count) = if is_taken {
                (&mut taken_head, &mut taken_tail, &mut nt)
            } else {
                (&mut rest_head, &mut rest_tail, &mut nr)
            };
            if *head == NONE {
                *head = at;
            } else {
                gr.next[*tail as usize] = at;
            }
            *tail = at;
            *count += 1;
            at = next;
        }
        gr.next[taken_tail as usize] = NONE;
        gr.next[rest_tail as usize] = NONE;
        let (new, new_size, kept_size) = if taken_head == g {
            (rest_head, nr, nt)
        } else {
            (taken_head, nt, nr)
        };
        for head in [taken_head, rest_head] {
            let name = head;
            let mut at = head;
            while at != NONE {
                gr.of[at as usize] = name;
                at = gr.next[at as usize];
            }
        }
        gr.size[g as usize] = kept_size;
        gr.size[new as usize] = new_size;
        gr.live[gr.count] = new;
        gr.count += 1;
        gr.touch(new, t);
        if taken_head != g {
            gr.taken[new as usize] = nt;
            gr.taken[g as usize] = 0;
        }
        copy_slot(self.slots, g as usize, new as usize);
        let sp = gr.span(g);
        gr.set_span(new, sp);
    }

    /// Merges the groups whose bookings are equal (they were told apart by bookings since
    /// removed): one sort of the groups by their bookings. No node's voids change, so a
    /// fresh void index stays fresh.
    pub(super) fn merge(&mut self) {
        let fresh = self.index_fresh();
        let n = self.groups.count;
        let (slots, gr) = (&mut *self.slots, &mut self.groups);
        gr.list[..n].copy_from_slice(&gr.live[..n]);
        gr.list[..n]
            .sort_unstable_by(|&a, &b| slots[a as usize].order(&slots[b as usize]).then(a.cmp(&b)));
        let mut kept = 0;
        let mut i = 0;
        while i < n {
            let first = gr.list[i];
            let mut j = i + 1;
            while j < n && slots[gr.list[j] as usize].same(&slots[first as usize]) {
                j += 1;
            }
            if j > i + 1 {
                for &g in &gr.list[i + 1..j] {
                    slots[g as usize].bookings.clear();
                }
                join_run(gr, i, j);
            }
            gr.live[kept] = first;
            kept += 1;
            i = j;
        }
        if kept < n {
            self.changed();
            if fresh {
                self.mark_fresh();
            }
        }
        self.groups.count = kept;
        self.merged_at = kept.max(1);
    }

    /// After a removal: merges again once the groups have doubled since the last merge (a
    /// cost per change that stays constant on average).
    pub(super) fn merge_if_grown(&mut self) {
        if self.groups.count >= 2 * self.merged_at + 8 {
            self.merge();
        }
    }
}

/// Joins the groups `list[i..j]` (equal bookings; `list[i]` the lowest name) into the
/// first: one list of their members in node order, merged through a heap of the lists'
/// heads kept in `list[i..j]` itself. Every member is read once (and the heap sifted once a
/// member), where joining them two at a time would read the first group's list once a join.
#[inline]
fn join_run(gr: &mut Groups<'_>, i: usize, j: usize) {
    let a = gr.list[i];
    let mut total = 0;
    for &g in &gr.list[i..j] {
        total += gr.size[g as usize];
        gr.size[g as usize] = 0;
    }
    gr.size[a as usize] = total;
    // The heads: each group's name is its lowest member, and equal groups are sorted by
    // name, so the run is a min-heap as it stands.
    let heap = &mut gr.list[i..j];
    let mut h = heap.len();
    let mut tail = NONE;
    while h > 0 {
        let node = heap[0];
        gr.of[node as usize] = a;
        if tail != NONE {
            gr.next[tail as usize] = node;
        }
        tail = node;
        match gr.next[node as usize] {
            NONE => {
                h -= 1;
                heap[0] = heap[h];
            }
            n => heap[0] = n,
        }
        sift_down(&mut heap[..h], 0, |a, b| a < b);
    }
    if tail != NONE {
        gr.next[tail as usize] = NONE;
    }
}

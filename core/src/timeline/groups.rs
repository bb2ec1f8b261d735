//! Groups: the partition of a cluster's nodes into groups with equal bookings, kept as runs
//! of consecutive nodes.
//!
//! A group's members are a list of *runs*, `[lo, lo + len)` intervals of node indices, in
//! node order, linked through `run_next` (a run is named by its first node, `lo`). Nodes
//! that are alike sit side by side far more often than not (a job takes the lowest nodes of
//! its groups), so a cluster of any size holds few runs, and every operation here costs its
//! runs, never its nodes: a booking that takes the lowest `c` members of a group splits the
//! run where the count falls and hands the runs before it to a new group
//! ([`ClusterTimeline::split_prefix`]); groups whose bookings became equal again are merged
//! by one sort of the groups by their bookings and a heap merge of their run lists that joins
//! runs meeting end to start ([`ClusterTimeline::merge`]).
//!
//! A group has an id (`0..nodes`), which names its list in the booking pool (`pool.rs`),
//! its size and marks; ids not in use wait in `live[count..]`. Ids are internal: which
//! group has which id changes nothing the cluster answers. A group's lowest member is the
//! first node of its first run (`head`).
//!
//! A group's span and task filter, what the walks over every group read first, are kept by
//! its *position* in `live[..count]` (`pos`), not by its id: the walks then read them in one
//! sequential pass, a few words a group, and look up the id only for the groups the span
//! does not rule out. A merge keeps the order of the groups it keeps. The filter's two
//! words sit in two arrays of their own, one word a position: a search for a task's groups
//! reads the one word its bits are in, a few bytes a group and several groups a step
//! ([`Holding`]), instead of striding over the spans.
//!
//! All of it lives in the `members` storage the caller gives the cluster ([`GROUP_ARRAYS`]
//! `u32`s a node).
//!
//! Data flow: the changes in `choice.rs` and `release.rs` call in here after writing a
//! group's bookings; everything that reads a group (the queries, the index) reads the lists
//! and sizes kept here. This file reads and copies the bookings (`node.rs`, `pool.rs`) and
//! nothing else of its siblings.

use super::node::{Booking, NodeTimeline};
use super::pool::POOL_ARRAYS;
use super::ClusterTimeline;
use crate::error::Error;
use crate::heap::sift_down;
use crate::task::TaskId;

/// No run: the end of a group's run list.
pub(super) const NONE: u32 = u32::MAX;

/// Arrays of `u32` a cluster needs per node: the groups' ([`Groups`]) and the booking
/// pool's.
pub(super) const GROUP_ARRAYS: usize = 12 + SPAN + POOL_ARRAYS;

/// `u32`s of a group's entry in [`Groups::span`]: its [`Span`], each `u64` low word first.
/// Its task filter is in [`Groups::holds`].
pub(super) const SPAN: usize = 7;

/// Positions a step of [`Holding`] tests at once (the bits of a `u32`).
const FIND_STEP: usize = 16;

/// Removals merge the groups again once they outnumber those after the last merge by this
/// fraction of them ([`ClusterTimeline::merge_if_grown`]) ...
const MERGE_GROWTH: usize = 8;

/// ... plus this many, so that a cluster of few groups is not sorted at every removal.
const MERGE_SLACK: usize = 4;

/// What node choice reads of a group before its bookings: the first booking's start
/// (`u64::MAX` if none), the last one's end (0 if none), how many there are and the longest
/// void between two of them. Most groups' answer to "free over `[s, e)`?" follows from
/// these (the run is after every booking or before them all, or overlaps one and is longer
/// than any void between them), and they sit together in [`Groups::span`], where the
/// bookings are elsewhere in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    head: u64,
    tail: u64,
    len: u32,
    /// The longest void between two bookings (0 with fewer than two).
    gap: u64,
}

/// The `u64` at `x[i..i + 2]`, low word first.
#[inline(always)]
fn word(x: &[u32], i: usize) -> u64 {
    x[i] as u64 | (x[i + 1] as u64) << 32
}

/// The first booking's start in a group's entry (`Groups::span`).
#[inline(always)]
pub(super) fn head(x: &[u32]) -> u64 {
    word(x, 0)
}

/// The last booking's end in a group's entry.
#[inline(always)]
pub(super) fn tail(x: &[u32]) -> u64 {
    word(x, 2)
}

/// The longest void between two bookings in a group's entry.
#[inline(always)]
pub(super) fn gap(x: &[u32]) -> u64 {
    word(x, 4)
}

/// Where a task's filter bits `bit` ([`task_bit`]: in one half) sit: which of
/// [`Groups::holds`]' two words (0 the low one) and their mask there.
#[inline(always)]
pub(super) fn holds_word(bit: u64) -> (usize, u32) {
    if bit as u32 != 0 {
        (0, bit as u32)
    } else {
        (1, (bit >> 32) as u32)
    }
}

impl Span {
    /// The span in a group's entry (`Groups::span`).
    #[inline]
    pub(super) fn at(x: &[u32]) -> Span {
        Span {
            head: head(x),
            tail: tail(x),
            len: x[6],
            gap: gap(x),
        }
    }

    /// The span of a group holding `bs`.
    pub(super) fn of(bs: &[Booking]) -> Span {
        Span {
            head: bs.first().map_or(u64::MAX, |b| b.start.0),
            tail: bs.last().map_or(0, |b| b.end.0),
            len: bs.len() as u32,
            gap: bs
                .windows(2)
                .map(|w| w[1].start.0 - w[0].end.0)
                .max()
                .unwrap_or(0),
        }
    }

    /// The end of the group's last booking (0 if none): it is free for good from then.
    pub(super) fn last_end(&self) -> u64 {
        self.tail
    }

    /// Whether the group may hold a booking that starts at `s` (its bookings all lie within
    /// `[head, tail)`, and none is empty).
    #[inline]
    pub(super) fn may_start(&self, s: u64) -> bool {
        self.head <= s && s < self.tail
    }

    /// The void of the group over `[s, e)` if the span decides it: `Some(Some(void))` free,
    /// `Some(None)` not, `None` when only the bookings can tell.
    pub(super) fn decides(&self, s: u64, e: u64) -> Option<Option<(u64, u64)>> {
        if s >= self.tail {
            Some(Some((self.tail, u64::MAX)))
        } else if e <= self.head {
            Some(Some((0, self.head)))
        } else if self.len == 1 || e.saturating_sub(s) > self.gap {
            // It overlaps the bookings, and no void between them is long enough.
            Some(None)
        } else {
            None
        }
    }
}

/// A walk over the positions of the groups that may hold a booking of one task that starts
/// at one instant: their filter has the task's bits ([`task_bit`], both in one word) and
/// their span [may start](Span::may_start) a booking then. The filter's word is tested
/// [`FIND_STEP`] positions a step into a mask of those with the bits (most steps find
/// none), the span only where it has them. The walk holds no borrow: a caller may change
/// the entry of a position it was given (a removal does) between two steps.
pub(super) struct Holding {
    word: usize,
    mask: u32,
    s: u64,
    /// The first position of the step whose mask is `bits`.
    base: usize,
    /// The positions of the step at `base` with the bits not yet given.
    bits: u32,
    /// The first position of the next step.
    next: usize,
}

impl Holding {
    /// The walk for a task's filter bits `bit` ([`task_bit`]) and start `s`, from the first
    /// position.
    pub(super) fn new(bit: u64, s: u64) -> Holding {
        let (word, mask) = holds_word(bit);
        Holding {
            word,
            mask,
            s,
            base: 0,
            bits: 0,
            next: 0,
        }
    }

    /// The next such position of `gr`'s groups, in position order.
    #[inline(always)]
    pub(super) fn next(&mut self, gr: &Groups<'_>) -> Option<usize> {
        let words = &gr.holds[self.word][..gr.count];
        loop {
            while self.bits != 0 {
                let p = self.base + self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                let x = &gr.span[p * SPAN..][..SPAN];
                if head(x) <= self.s && self.s < tail(x) {
                    return Some(p);
                }
            }
            let rest = words.get(self.next..)?;
            let bits = match rest.first_chunk::<FIND_STEP>() {
                Some(step) => {
                    // Most steps hold no group with the bits: one test of them all.
                    if step.iter().fold(0, |a, &x| a | x) & self.mask != self.mask {
                        self.next += FIND_STEP;
                        continue;
                    }
                    step_bits(step, self.mask)
                }
                None if rest.is_empty() => return None,
                None => step_bits(rest, self.mask),
            };
            let len = rest.len().min(FIND_STEP);
            self.base = self.next;
            self.next += len;
            self.bits = bits;
        }
    }
}

/// The positions of `step` (at most [`FIND_STEP`] words) whose word has a bit of `mask`, as
/// the bits of a mask.
#[inline(always)]
fn step_bits(step: &[u32], mask: u32) -> u32 {
    // Each position's bit from a table, not a shift by its index: the compiler then tests a
    // whole step with a few vector instructions.
    const BIT: [u32; FIND_STEP] = {
        let mut b = [0; FIND_STEP];
        let mut i = 0;
        while i < FIND_STEP {
            b[i] = 1 << i;
            i += 1;
        }
        b
    };
    step.iter().zip(BIT).fold(0, |bits, (&x, b)| {
        bits | if x & mask == mask { b } else { 0 }
    })
}

/// The partition of a cluster's nodes into groups with equal bookings, as runs of
/// consecutive nodes, over the caller's storage.
pub(super) struct Groups<'a> {
    /// Per run (by its first node): its number of nodes.
    pub(super) run_len: &'a mut [u32],
    /// Per run: the next run of its group in node order, or [`NONE`].
    pub(super) run_next: &'a mut [u32],
    /// Per run: its group's id.
    pub(super) run_group: &'a mut [u32],
    /// Per group id: its first run (its lowest node).
    pub(super) head: &'a mut [u32],
    /// Per group id: its number of nodes (0: not in use).
    pub(super) size: &'a mut [u32],
    /// The ids in use, `live[..count]`, in no particular order; the others after them.
    pub(super) live: &'a mut [u32],
    pub(super) count: usize,
    /// Per group id: the stamp of the last change that touched it.
    pub(super) mark: &'a mut [u32],
    /// Per group id: nodes the booking being made takes from it.
    pub(super) taken: &'a mut [u32],
    /// Scratch list of group ids: the groups a change touches; sorting while merging.
    pub(super) list: &'a mut [u32],
    /// Per group id in use: its position in `live`.
    pub(super) pos: &'a mut [u32],
    /// Per position in `live[..count]`, [`SPAN`] entries: the group's [`Span`] (kept by
    /// [`ClusterTimeline::sync`]).
    pub(super) span: &'a mut [u32],
    /// Per position in `live[..count]`, the low and the high word of a 64-bit filter of the
    /// tasks the group holds, the bits [`task_bit`] of each (kept by
    /// [`ClusterTimeline::sync`]). A removal looks for a task's booking only in the groups
    /// whose filter has its bits: the others cannot hold it, and a group holds a few
    /// bookings, so most have not.
    pub(super) holds: [&'a mut [u32]; 2],
    pub(super) stamp: u32,
}

impl<'a> Groups<'a> {
    /// One group (id 0) of all `n` nodes, one run, over `members` (at least
    /// [`GROUP_ARRAYS`] - [`POOL_ARRAYS`] entries a node); returns the rest of `members`.
    pub(super) fn new(members: &'a mut [u32], n: usize) -> (Groups<'a>, &'a mut [u32]) {
        let (run_len, rest) = members.split_at_mut(n);
        let (run_next, rest) = rest.split_at_mut(n);
        let (run_group, rest) = rest.split_at_mut(n);
        let (head, rest) = rest.split_at_mut(n);
        let (size, rest) = rest.split_at_mut(n);
        let (live, rest) = rest.split_at_mut(n);
        let (mark, rest) = rest.split_at_mut(n);
        let (taken, rest) = rest.split_at_mut(n);
        let (list, rest) = rest.split_at_mut(n);
        let (pos, rest) = rest.split_at_mut(n);
        // Entries and positions are written before they are read (`new_id`, `sync`): left
        // as they are, so that a caller whose storage is mapped as touched pays for the
        // groups used only.
        let (span, rest) = rest.split_at_mut(SPAN * n);
        let (holds_lo, rest) = rest.split_at_mut(n);
        let (holds_hi, rest) = rest.split_at_mut(n);
        size.fill(0);
        mark.fill(0);
        taken.fill(0);
        for (i, x) in live.iter_mut().enumerate() {
            *x = i as u32;
        }
        if n > 0 {
            run_len[0] = n as u32;
            run_next[0] = NONE;
            run_group[0] = 0;
            head[0] = 0;
            size[0] = n as u32;
            pos[0] = 0;
        }
        let groups = Groups {
            run_len,
            run_next,
            run_group,
            head,
            size,
            live,
            count: (n > 0) as usize,
            mark,
            taken,
            list,
            pos,
            span,
            holds: [holds_lo, holds_hi],
            stamp: 0,
        };
        (groups, rest)
    }

    /// Makes these groups (of `n` nodes) those of `b`; the stamp, marks and counts of a
    /// change are left, as every change begins anew.
    pub(super) fn copy_from(&mut self, b: &Groups<'_>, n: usize) {
        self.run_len.copy_from_slice(&b.run_len[..n]);
        self.run_next.copy_from_slice(&b.run_next[..n]);
        self.run_group.copy_from_slice(&b.run_group[..n]);
        self.head.copy_from_slice(&b.head[..n]);
        self.size.copy_from_slice(&b.size[..n]);
        self.live.copy_from_slice(&b.live[..n]);
        self.pos.copy_from_slice(&b.pos[..n]);
        self.span.copy_from_slice(&b.span[..SPAN * n]);
        self.holds[0].copy_from_slice(&b.holds[0][..n]);
        self.holds[1].copy_from_slice(&b.holds[1][..n]);
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

    /// The ids of the groups.
    #[inline]
    pub(super) fn live(&self) -> &[u32] {
        &self.live[..self.count]
    }

    /// Takes an id not in use for a new group (there are never more groups than nodes).
    fn new_id(&mut self) -> u32 {
        let id = self.live[self.count];
        self.pos[id as usize] = self.count as u32;
        self.count += 1;
        id
    }

    /// Group `g`'s entry in `span`.
    #[inline]
    fn entry(&self, g: u32) -> &[u32] {
        &self.span[self.pos[g as usize] as usize * SPAN..][..SPAN]
    }

    /// Group `g`'s span.
    pub(super) fn span(&self, g: u32) -> Span {
        Span::at(self.entry(g))
    }

    /// The entries in use, one [`SPAN`] chunk a position of `live[..count]`.
    #[inline]
    pub(super) fn entry_chunks(&self) -> core::slice::ChunksExact<'_, u32> {
        self.span[..self.count * SPAN].chunks_exact(SPAN)
    }

    /// The task filter of the group at position `p` of `live[..count]`.
    #[inline]
    pub(super) fn holds_at(&self, p: usize) -> u64 {
        self.holds[0][p] as u64 | (self.holds[1][p] as u64) << 32
    }

    /// Whether group `g` may hold a booking of `task`: false means it holds none (its filter
    /// lacks one of the task's bits), true only that it may.
    #[cfg(test)]
    pub(super) fn may_hold(&self, g: u32, task: TaskId) -> bool {
        let bits = task_bit(task);
        self.holds_at(self.pos[g as usize] as usize) & bits == bits
    }

    /// Sets group `g`'s span and task filter.
    #[inline(always)]
    fn set_entry(&mut self, g: u32, sp: Span, f: u64) {
        let p = self.pos[g as usize] as usize;
        let x = &mut self.span[p * SPAN..][..SPAN];
        x.copy_from_slice(&[
            sp.head as u32,
            (sp.head >> 32) as u32,
            sp.tail as u32,
            (sp.tail >> 32) as u32,
            sp.gap as u32,
            (sp.gap >> 32) as u32,
            sp.len,
        ]);
        self.holds[0][p] = f as u32;
        self.holds[1][p] = (f >> 32) as u32;
    }

    /// The group of node `i` (a walk over the runs in node order: for the tests, the
    /// node-by-node views and a node taken out of service).
    pub(super) fn group_of(&self, i: u32) -> Option<u32> {
        let n = self.run_len.len() as u32;
        if i >= n {
            return None;
        }
        let mut lo = 0u32;
        while lo + self.run_len[lo as usize] <= i {
            lo += self.run_len[lo as usize];
        }
        Some(self.run_group[lo as usize])
    }

    /// The members of a group in node order, from its run `from` on.
    #[cfg(test)]
    pub(super) fn members_from(&self, from: u32) -> Members<'_> {
        Members {
            run_len: self.run_len,
            run_next: self.run_next,
            run: from,
            at: 0,
        }
    }

    /// The members of group `g` in node order.
    #[cfg(test)]
    pub(super) fn members(&self, g: u32) -> Members<'_> {
        self.members_from(self.head[g as usize])
    }
}

/// An iterator over a group's members, run by run.
#[cfg(test)]
pub(super) struct Members<'a> {
    run_len: &'a [u32],
    run_next: &'a [u32],
    run: u32,
    at: u32,
}

#[cfg(test)]
impl Iterator for Members<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.run == NONE {
            return None;
        }
        let node = self.run + self.at;
        self.at += 1;
        if self.at == self.run_len[self.run as usize] {
            self.run = self.run_next[self.run as usize];
            self.at = 0;
        }
        Some(node)
    }
}

/// Every node's timeline in node order (see [`ClusterTimeline::nodes`]): each run's group's
/// bookings, once a node of the run.
pub struct Nodes<'c, 'a> {
    pub(super) c: &'c ClusterTimeline<'a>,
    /// The run being walked, and the nodes of it still to give.
    pub(super) run: u32,
    pub(super) left: u32,
    /// Nodes still to give.
    pub(super) remaining: usize,
}

impl<'c> Iterator for Nodes<'c, '_> {
    type Item = NodeTimeline<'c>;
    fn next(&mut self) -> Option<NodeTimeline<'c>> {
        if self.remaining == 0 {
            return None;
        }
        let gr = &self.c.groups;
        if self.left == 0 {
            self.run += gr.run_len[self.run as usize];
            self.left = gr.run_len[self.run as usize];
        }
        self.left -= 1;
        self.remaining -= 1;
        let g = gr.run_group[self.run as usize];
        Some(NodeTimeline {
            bookings: self.c.pool.list(g),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Nodes<'_, '_> {}

impl<'a> ClusterTimeline<'a> {
    /// Brings group `g`'s [`Span`] up to date with its bookings (after every change to them).
    pub(super) fn sync(&mut self, g: u32) {
        let bs = self.pool.list(g);
        let sp = Span::of(bs);
        let f = bs.iter().fold(0, |f, b| f | task_bit(b.task));
        self.groups.set_entry(g, sp, f);
    }

    /// Group `g`'s bookings, as a node's view.
    #[inline]
    pub(super) fn timeline(&self, g: u32) -> NodeTimeline<'_> {
        NodeTimeline {
            bookings: self.pool.list(g),
        }
    }

    /// Splits the lowest `c` members of group `g` (fewer than all) off as a new group, which
    /// gets a copy of the bookings with room for one more, the span, and the taken count
    /// `c`; `g` keeps the rest, and the new group joins the change's list (`groups.list[..t]`).
    /// Only the runs of the part split off are visited.
    pub(super) fn split_prefix(&mut self, g: u32, c: u32, t: &mut usize) -> Result<(), Error> {
        let gr = &mut self.groups;
        let id = gr.new_id();
        let mut r = gr.head[g as usize];
        let mut got = 0;
        let mut last = NONE;
        while got + gr.run_len[r as usize] <= c {
            gr.run_group[r as usize] = id;
            got += gr.run_len[r as usize];
            last = r;
            r = gr.run_next[r as usize];
        }
        let rest_head = if got < c {
            // Run r straddles the count: its first `cut` nodes go, the rest is a new run.
            let cut = c - got;
            let rest = r + cut;
            gr.run_len[rest as usize] = gr.run_len[r as usize] - cut;
            gr.run_next[rest as usize] = gr.run_next[r as usize];
            gr.run_group[rest as usize] = g;
            gr.run_len[r as usize] = cut;
            gr.run_next[r as usize] = NONE;
            gr.run_group[r as usize] = id;
            rest
        } else {
            gr.run_next[last as usize] = NONE;
            r
        };
        gr.head[id as usize] = gr.head[g as usize];
        gr.head[g as usize] = rest_head;
        gr.size[id as usize] = c;
        gr.size[g as usize] -= c;
        self.created(g, id, c, t)
    }

    /// Splits the members of group `g` that are in `nodes` (some, not all) off as a new
    /// group, as [`split_prefix`](Self::split_prefix) does for a prefix: the tests' `book`
    /// of any list of nodes, and a node taken out of service. It visits every member.
    pub(super) fn split_by(&mut self, g: u32, nodes: &[u32], t: &mut usize) -> Result<(), Error> {
        let gr = &mut self.groups;
        let id = gr.new_id();
        // The two run lists, built node by node in node order.
        let mut tails = [NONE, NONE];
        let mut heads = [NONE, NONE];
        let mut sizes = [0u32, 0];
        let mut r = gr.head[g as usize];
        while r != NONE {
            let (len, next) = (gr.run_len[r as usize], gr.run_next[r as usize]);
            for x in r..r + len {
                let side = nodes.contains(&x) as usize;
                sizes[side] += 1;
                let tail = tails[side];
                if tail != NONE && tail + gr.run_len[tail as usize] == x {
                    gr.run_len[tail as usize] += 1;
                    continue;
                }
                if tail == NONE {
                    heads[side] = x;
                } else {
                    gr.run_next[tail as usize] = x;
                }
                gr.run_len[x as usize] = 1;
                gr.run_next[x as usize] = NONE;
                gr.run_group[x as usize] = [g, id][side];
                tails[side] = x;
            }
            r = next;
        }
        gr.head[g as usize] = heads[0];
        gr.head[id as usize] = heads[1];
        gr.size[g as usize] = sizes[0];
        gr.size[id as usize] = sizes[1];
        self.created(g, id, sizes[1], t)
    }

    /// The bookkeeping of new group `id`, split off `g` with `c` nodes taken by the change:
    /// its bookings and span are `g`'s, and it joins the change's list.
    fn created(&mut self, g: u32, id: u32, c: u32, t: &mut usize) -> Result<(), Error> {
        let gr = &mut self.groups;
        gr.touch(id, t);
        gr.taken[id as usize] = c;
        gr.taken[g as usize] = 0;
        let (sp, f) = (gr.span(g), gr.holds_at(gr.pos[g as usize] as usize));
        gr.set_entry(id, sp, f);
        self.pool
            .copy(g, id, 1, &self.groups.live[..self.groups.count])
    }

    /// Merges the groups whose bookings are equal (they were told apart by bookings since
    /// removed): one sort of the groups by their bookings. No node's voids change, so a
    /// fresh void index stays fresh.
    pub(super) fn merge(&mut self) {
        let fresh = self.index_fresh();
        let n = self.groups.count;
        let (pool, gr) = (&mut self.pool, &mut self.groups);
        gr.list[..n].copy_from_slice(&gr.live[..n]);
        {
            let pool = &*pool;
            let tl = |g: u32| NodeTimeline {
                bookings: pool.list(g),
            };
            gr.list[..n].sort_unstable_by(|&a, &b| tl(a).order(&tl(b)).then(a.cmp(&b)));
        }
        let mut kept = 0;
        let mut i = 0;
        while i < n {
            let first = gr.list[i];
            let mut j = i + 1;
            while j < n && pool.list(gr.list[j]) == pool.list(first) {
                j += 1;
            }
            if j > i + 1 {
                for x in i + 1..j {
                    pool.clear(gr.list[x]);
                }
                // Leaves the size of every group joined into `first` at 0.
                join_run(gr, i, j);
            }
            kept += 1;
            i = j;
        }
        if kept < n {
            // The groups kept keep their order, and their entries move down with them; the
            // ids let go (size 0) go after them, through the scratch list.
            let (mut w, mut gone) = (0, 0);
            for x in 0..n {
                let g = gr.live[x];
                if gr.size[g as usize] == 0 {
                    gr.list[gone] = g;
                    gone += 1;
                    continue;
                }
                if w != x {
                    gr.live[w] = g;
                    gr.span.copy_within(x * SPAN..(x + 1) * SPAN, w * SPAN);
                    gr.holds[0][w] = gr.holds[0][x];
                    gr.holds[1][w] = gr.holds[1][x];
                    gr.pos[g as usize] = w as u32;
                }
                w += 1;
            }
            gr.live[kept..n].copy_from_slice(&gr.list[..gone]);
            self.changed();
            if fresh {
                self.mark_fresh();
            }
        }
        self.groups.count = kept;
        self.merged_at = kept.max(1);
    }

    /// After a removal: merges again once the groups have grown by an eighth (and a few)
    /// since the last merge. Every walk over the groups (node choice, the counts, the
    /// removals) costs each group left unmerged, and a merge costs one sort of the groups:
    /// waiting for the groups to double, as this once did, let a cluster whose reservations
    /// are taken back and placed again at every event (Conservative's compression, EASY's
    /// head) carry up to twice the groups it needs through all of those walks.
    pub(super) fn merge_if_grown(&mut self) {
        let m = self.merged_at;
        if self.groups.count >= m + m / MERGE_GROWTH + MERGE_SLACK {
            self.merge();
        }
    }
}

/// The bits of `task` in a group's task filter ([`Groups::holds`]), by a multiplicative
/// hash, so that tasks numbered close together (a queue's) spread: a half of the 64 and two
/// of its 32 bits (one, should they coincide). A group may hold the task only if its filter
/// has both: with a group's few bookings, a group without the task seldom has both (two
/// bits in one word keep a walk's test to that word).
#[inline]
pub(super) fn task_bit(task: TaskId) -> u64 {
    let h = task.0.wrapping_mul(0x9E37_79B9);
    let two = (1u32 << (h >> 27)) | (1u32 << ((h >> 22) & 31));
    (two as u64) << ((h >> 21 & 1) * 32)
}

/// Joins the groups `list[i..j]` (equal bookings) into the first: one run list in node
/// order, merged through a heap of the lists' current runs kept in `list[i..j]` itself,
/// runs that meet end to start joined into one. Every run is read once.
#[inline]
fn join_run(gr: &mut Groups<'_>, i: usize, j: usize) {
    let a = gr.list[i];
    let mut total = 0;
    for x in i..j {
        let g = gr.list[x] as usize;
        total += gr.size[g];
        gr.size[g] = 0;
        // The heap holds runs: each group's first.
        gr.list[x] = gr.head[g];
    }
    gr.size[a as usize] = total;
    let heap = &mut gr.list[i..j];
    let h0 = heap.len();
    for p in (0..h0 / 2).rev() {
        sift_down(heap, p, |x, y| x < y);
    }
    let mut h = h0;
    let mut tail = NONE;
    while h > 0 {
        let run = heap[0];
        let next = gr.run_next[run as usize];
        match next {
            NONE => {
                h -= 1;
                heap[0] = heap[h];
            }
            n => heap[0] = n,
        }
        sift_down(&mut heap[..h], 0, |x, y| x < y);
        if tail != NONE && tail + gr.run_len[tail as usize] == run {
            gr.run_len[tail as usize] += gr.run_len[run as usize];
            continue;
        }
        if tail == NONE {
            gr.head[a as usize] = run;
        } else {
            gr.run_next[tail as usize] = run;
        }
        gr.run_group[run as usize] = a;
        tail = run;
    }
    if tail != NONE {
        gr.run_next[tail as usize] = NONE;
    }
}

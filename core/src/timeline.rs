//! Node timelines: what each node of a cluster is doing or holding, now and later.
//!
//! A node carries a short, sorted list of [`Booking`]s: running tasks, permanent reservations
//! and place-holders (seed 000 §III.B). The free stretches between them are *voids*. The
//! cluster answers two questions for the heuristics (seed 000 §III.F, seed 001 §3.2):
//!
//! - the earliest start at or after `t` at which `k` nodes are all free for a duration `d`;
//! - which `k` nodes to take when more are free then: fewest new idle voids, then the
//!   smallest void, then the lowest node index (so the choice is deterministic).
//!
//! Nodes with the same bookings are kept as one *group*, named by its lowest node and
//! stored once, in that node's slot. A parallel task's booking takes whole groups, and at
//! most the lowest nodes of the groups at the margin of the choice (nodes with equal voids
//! differ only in their index, the last key), so a booking splits a few groups rather than
//! writing to every node it takes: at ESSC 10k a place-holder takes 140 nodes but 9 groups,
//! and a cluster of 400 nodes holds about 75 groups. Groups whose bookings become equal again
//! (place-holders cleared, tasks ended) are merged. Every answer is the node-by-node one.
//!
//! The earliest-start query turns every void `[a, b)` into the interval of starts it admits,
//! `[max(a, t), b - d]`, and looks for the first start covered by `k` nodes' voids. Voids of
//! one node are disjoint, so coverage counts distinct nodes. With the admitted intervals
//! sorted by their first and by their last start, coverage at `s` is `#{first <= s} -
//! #{last < s}`, and a single two-pointer sweep finds the answer: O(V log V) for V voids, or
//! O(log V) plus the walk to the answer with the void index (every distinct void once,
//! weighted by the nodes that have it, kept sorted both ways). Queries start at or after the
//! last prune's `now` (the horizon), so the index leaves out the voids that end by then.

use crate::error::{full, Capacity, Error, InputError};
use crate::limits::{BOOKING_LOG, MAX_BOOKINGS_PER_NODE};
use crate::task::TaskId;
use crate::units::{Micros, NodeCount};
use core::cmp::Ordering;
use serde::{Deserialize, Serialize};

/// What a booking holds a node for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BookingKind {
    /// A task executing (or committed to execute) on the node.
    Running,
    /// A permanent reservation: it will start then, and nothing may move it.
    Reserved,
    /// A place-holder: it holds the slot until the next mapping event clears it.
    PlaceHolder,
}

/// One task's hold on one node over `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Booking {
    /// First instant held.
    pub start: Micros,
    /// First instant free again.
    pub end: Micros,
    /// The task holding it.
    pub task: TaskId,
    /// Running, reserved or place-held.
    pub kind: BookingKind,
}

impl Booking {
    /// A total order over bookings (groups are merged by sorting their booking lists).
    fn order(&self, o: &Booking) -> Ordering {
        (self.start, self.end, self.task.0, self.kind as u8).cmp(&(
            o.start,
            o.end,
            o.task.0,
            o.kind as u8,
        ))
    }
}

/// The bookings of one node (or of one group of nodes with the same bookings), sorted by
/// start and never overlapping.
///
/// On the host, aligned to a cache line: a node's size is otherwise a multiple of 4 KiB plus
/// its length word, so every node's first bookings would share one set of the L1 cache (and
/// one of a few of L2). The firmware's core has no data cache.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "host-limits", repr(align(64)))]
pub struct NodeTimeline {
    bookings: heapless::Vec<Booking, MAX_BOOKINGS_PER_NODE>,
}

impl NodeTimeline {
    /// An empty node.
    pub const fn new() -> NodeTimeline {
        NodeTimeline {
            bookings: heapless::Vec::new(),
        }
    }

    /// The bookings, in time order.
    pub fn bookings(&self) -> &[Booking] {
        &self.bookings
    }

    /// The void containing `[s, e)`, as (start, end) of the free stretch, if the node is free
    /// over all of it. The void's start is the end of the booking before (or zero).
    pub fn void_around(&self, s: Micros, e: Micros) -> Option<(Micros, Micros)> {
        // Index of the first booking that ends after s.
        let i = self.bookings.partition_point(|b| b.end <= s);
        let prev_end = if i == 0 {
            Micros::ZERO
        } else {
            self.bookings[i - 1].end
        };
        match self.bookings.get(i) {
            Some(b) if b.start < e => None,
            Some(b) => Some((prev_end, b.start)),
            None => Some((prev_end, Micros::MAX)),
        }
    }

    /// Whether the node is free over `[s, e)`.
    pub fn is_free(&self, s: Micros, e: Micros) -> bool {
        self.void_around(s, e).is_some()
    }

    /// Whether both hold the same bookings.
    fn same(&self, o: &NodeTimeline) -> bool {
        self.bookings == o.bookings
    }

    /// The order of two booking lists (see [`Booking::order`]).
    fn order(&self, o: &NodeTimeline) -> Ordering {
        for (a, b) in self.bookings.iter().zip(o.bookings.iter()) {
            match a.order(b) {
                Ordering::Equal => {}
                x => return x,
            }
        }
        self.bookings.len().cmp(&o.bookings.len())
    }

    /// Its voids, `[a, b)` in time order (the last one ends at `u64::MAX`).
    fn voids(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut a = 0u64;
        self.bookings
            .iter()
            .map(|b| (b.start.0, b.end.0))
            .chain(core::iter::once((u64::MAX, u64::MAX)))
            .filter_map(move |(s, e)| {
                let v = (s > a).then_some((a, s));
                a = e;
                v
            })
    }
}

/// Where `k` nodes can start together: the start, and how many nodes are free then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Fit {
    /// The earliest common start.
    pub start: Micros,
    /// Nodes free over the whole run at that start (at least the `k` asked for).
    pub free: u32,
}

/// Scratch space for the earliest-start sweep: two buffers of at least
/// [`ClusterTimeline::scratch_len`] entries for the largest cluster.
pub struct Scratch<'a> {
    firsts: &'a mut [u64],
    lasts: &'a mut [u64],
}

impl<'a> Scratch<'a> {
    /// Scratch over the caller's two buffers (equal lengths).
    pub fn new(firsts: &'a mut [u64], lasts: &'a mut [u64]) -> Scratch<'a> {
        Scratch { firsts, lasts }
    }

    /// How many voids it can hold.
    pub fn capacity(&self) -> usize {
        self.firsts.len().min(self.lasts.len())
    }
}

/// A void that `weight` nodes have: free from `start` (the previous booking's end, or zero)
/// to `end` (the next booking's start, or the end of time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Void {
    /// First free instant.
    pub start: u64,
    /// First instant booked again.
    pub end: u64,
    /// Nodes with this void.
    pub weight: u32,
    /// Total weight of the voids before it in its sorted array (so that a binary search
    /// counts nodes, not voids).
    pub before: u32,
}

/// Every node's void as a multiset: one entry for each distinct `[start, end)`, weighted by
/// the nodes that have it, sorted by start and by end, kept current through each change.
///
/// With voids pre-sorted, a query needs no sort: the admissible starts `max(a, t)` come in the
/// order of `a`, and the last admissible starts `b - d` in the order of `b`, so the coverage
/// sweep is a merge that stops at the answer, usually after a short prefix.
///
/// The entries do not say whose voids they are: a query only counts nodes. So a booking
/// edits three entries for each group it takes nodes from (the void it falls in loses them,
/// the two it leaves gain them), however the groups split, and merging groups edits none.
struct VoidIndex<'a> {
    by_start: &'a mut [Void],
    by_end: &'a mut [Void],
    /// Room for the voids one change rewrites.
    work: &'a mut [Void],
    len: usize,
    /// Total weight of the voids.
    total: u32,
    /// Edits of the change being made, in `work[..edits]`, each a void of `weight` nodes
    /// that goes (`before` 0) or comes (1) (`None`: more than fit).
    edits: Option<usize>,
    /// The cluster version it was built for (`None`: stale, or did not fit).
    built: Option<u32>,
}

impl VoidIndex<'_> {
    /// The nodes free over `[s, e)` as two counts, `opened - ended`, with the positions
    /// after the voids that open by `s` (by start) and before those that close at or after
    /// `e` (by end): the nodes whose void opens by `s` and closes at or after `e` are
    /// `W{start <= s} - W{end < e} + W{s < start, end < e}` (`W`: the voids' total weight),
    /// two binary searches and a walk over the voids that open inside `(s, e)`.
    fn count_over(&self, s: u64, e: u64) -> (usize, usize, u32, u32) {
        let (starts, ends) = (&self.by_start[..self.len], &self.by_end[..self.len]);
        let i = starts.partition_point(|x| x.start <= s);
        let closed = ends.partition_point(|x| x.end < e);
        let inside: u32 = starts[i..]
            .iter()
            .take_while(|x| x.start < e)
            .filter(|x| x.end < e)
            .map(|x| x.weight)
            .sum();
        let opened = weight_before(starts, i, self.total) + inside;
        (i, closed, opened, weight_before(ends, closed, self.total))
    }

    /// Adds an edit of the change being made (see [`ClusterTimeline::edit`]), unless the
    /// void ends by `horizon` (the index leaves those out); more than fit make the change a
    /// rebuild.
    fn note(&mut self, horizon: u64, add: bool, start: u64, end: u64, weight: u32) {
        let Some(n) = self.edits else {
            return;
        };
        if end <= horizon {
            return;
        }
        let before = add as u32;
        // The groups a change takes from often share their void and come one after the
        // other: an edit equal to one of the previous group's (at most three) joins it, which
        // leaves a booking's edits a quarter as many to sort (essc-10k, Max UPR PH + EPR).
        let recent = self
            .work
            .get_mut(n.saturating_sub(3)..n)
            .unwrap_or_default();
        if let Some(x) = recent
            .iter_mut()
            .find(|x| x.start == start && x.end == end && x.before == before)
        {
            x.weight = x.weight.saturating_add(weight);
            return;
        }
        self.edits = match self.work.get_mut(n) {
            Some(slot) => {
                *slot = Void {
                    start,
                    end,
                    weight,
                    before,
                };
                Some(n + 1)
            }
            None => None,
        };
    }
}

/// A booking as the fit memo replays it: its span and how many nodes it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Logged {
    /// First instant held.
    pub start: u64,
    /// First instant free again.
    pub end: u64,
    /// Nodes taken.
    pub nodes: u32,
}

/// Bits of a grouped sweep's key ([`ClusterTimeline::swept_by_groups`]) below its time: a
/// group's name (a cluster has fewer than 2^20 nodes).
const SWEEP_SHIFT: u32 = 20;

/// The mask of a grouped sweep key's name.
const SWEEP_NAME: u64 = (1 << SWEEP_SHIFT) - 1;

/// The most a grouped sweep's key holds of a time past the query's `t` (2^44 - 1 µs, about
/// 203 days): later times are all packed as it.
const SWEEP_FAR: u64 = (1 << (64 - SWEEP_SHIFT)) - 1;

/// No node: the end of a group's member list.
const NONE: u32 = u32::MAX;
/// A node taken by the booking being made (a flag in its group entry).
const TAKEN: u32 = 1 << 31;
/// Arrays of `u32` a cluster's groups need per node (see [`Groups`]).
const GROUP_ARRAYS: usize = 7 + SPAN;
/// `u32`s of a group's [`Span`] in [`Groups::span`].
const SPAN: usize = 5;

/// What node choice reads of a group before its bookings: the first booking's start
/// (`u64::MAX` if none), the last one's end (0 if none) and how many there are. Most
/// groups' answer to "free over `[s, e)`?" follows from these (the run is after every
/// booking or before them all, or overlaps the only one), and they sit together in
/// [`Groups::span`], where the bookings are a node slot apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    head: u64,
    tail: u64,
    len: u32,
}

impl Span {
    /// The span of a group holding `bs`.
    fn of(bs: &[Booking]) -> Span {
        Span {
            head: bs.first().map_or(u64::MAX, |b| b.start.0),
            tail: bs.last().map_or(0, |b| b.end.0),
            len: bs.len() as u32,
        }
    }

    /// The void of the group over `[s, e)` if the span decides it: `Some(Some(void))` free,
    /// `Some(None)` not, `None` when only the bookings can tell.
    fn decides(&self, s: u64, e: u64) -> Option<Option<(u64, u64)>> {
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
struct Groups<'a> {
    /// Per node: its group (with [`TAKEN`] set while a booking is being made).
    of: &'a mut [u32],
    /// Per node: the next member of its group, or [`NONE`].
    next: &'a mut [u32],
    /// Per group name: its number of nodes (0: no group has that name).
    size: &'a mut [u32],
    /// The names of the groups, `live[..count]`, in no particular order.
    live: &'a mut [u32],
    count: usize,
    /// Per group name: the stamp of the last change that touched it.
    mark: &'a mut [u32],
    /// Per group name: nodes the booking being made takes from it.
    taken: &'a mut [u32],
    /// Scratch list of group names: the groups a change touches; sorting while merging.
    list: &'a mut [u32],
    /// Per group name, [`SPAN`] entries: its [`Span`] (kept by [`ClusterTimeline::sync`]).
    span: &'a mut [u32],
    stamp: u32,
}

impl Groups<'_> {
    /// Starts a change: a new stamp (marks of earlier changes are then stale).
    fn begin(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
    }

    /// Notes that the change touches group `g` (`list[..n]` holds the groups touched so
    /// far); at its first touch its taken count starts at 0.
    fn touch(&mut self, g: u32, n: &mut usize) {
        if self.mark[g as usize] != self.stamp {
            self.mark[g as usize] = self.stamp;
            self.list[*n] = g;
            *n += 1;
            self.taken[g as usize] = 0;
        }
    }

    fn live(&self) -> &[u32] {
        &self.live[..self.count]
    }

    /// Group `g`'s span.
    fn span(&self, g: u32) -> Span {
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
    fn members(&self, g: u32) -> Members<'_> {
        Members {
            next: self.next,
            at: g,
        }
    }
}

/// An iterator over a group's members.
struct Members<'a> {
    next: &'a [u32],
    at: u32,
}

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

/// The timelines of every node of one cluster, over storage the caller provides.
pub struct ClusterTimeline<'a> {
    /// Slot `g` holds the bookings of group `g` (see [`Groups`]); the others are unused.
    slots: &'a mut [NodeTimeline],
    groups: Groups<'a>,
    index: Option<VoidIndex<'a>>,
    /// Bumped by every change to a booking or to the groups, so the void index knows when
    /// it is stale.
    version: u32,
    /// Bumped whenever time from some instant on is freed (a place-holder cleared, a
    /// reservation taken back, a task ending before its planned end). Between two bumps
    /// bookings are only added, so an earliest start found earlier is a lower bound of the
    /// current one: the controller's memo keeps answers across events on that promise.
    loosened: u32,
    /// Bumped by every booking added; the last [`BOOKING_LOG`] of them are in `log`, at
    /// their count modulo its length.
    tightened: u32,
    log: [Logged; BOOKING_LOG],
    /// Bumped whenever time held by something other than a place-holder is freed: between
    /// two bumps, an earliest start found without place-holders on the cluster stays a lower
    /// bound through any number of place-holders booked and cleared.
    base_loosened: u32,
    /// Place-holder bookings (one per node) on the cluster now.
    held: u32,
    /// Bookings (one per node) on the cluster now.
    booked: u32,
    /// No booking ends before this (a lower bound: removals leave it), so pruning up to it
    /// has nothing to do.
    first_end: Micros,
    /// The latest `now` given to [`prune`](Self::prune): no query starts before it, so a
    /// void that ends by it adds as much to the voids opened by any query's start as to
    /// those ended before its end, and the void index leaves it out.
    horizon: Micros,
    /// `booked` when the void index last failed to fit: it is not rebuilt again until the
    /// cluster holds notably fewer bookings (the sweep answers meanwhile, and a rebuild that
    /// runs out of room half-way is pure waste).
    overflowed: Option<u32>,
    /// Groups after the last merge: removals merge again once there are twice as many.
    merged_at: usize,
}

impl<'a> ClusterTimeline<'a> {
    /// A cluster whose nodes are the given storage (cleared), with `members` (at least
    /// [`members_len`](Self::members_len)) to keep track of which nodes share bookings.
    pub fn new(
        nodes: &'a mut [NodeTimeline],
        members: &'a mut [u32],
    ) -> Result<ClusterTimeline<'a>, Error> {
        let n = nodes.len();
        if members.len() < Self::members_len(n) || n >= (1 << 20) {
            return Err(full(Capacity::Nodes, members.len() / GROUP_ARRAYS).into());
        }
        for s in nodes.iter_mut() {
            s.bookings.clear();
        }
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
        let mut c = ClusterTimeline {
            slots: nodes,
            groups: Groups {
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
            },
            index: None,
            version: 0,
            loosened: 0,
            tightened: 0,
            log: [Logged::default(); BOOKING_LOG],
            base_loosened: 0,
            held: 0,
            booked: 0,
            first_end: Micros::MAX,
            horizon: Micros::ZERO,
            overflowed: None,
            merged_at: 1,
        };
        if n > 0 {
            c.sync(0);
        }
        Ok(c)
    }

    /// Brings group `g`'s [`Span`] up to date with its bookings (after every change to them).
    fn sync(&mut self, g: u32) {
        let sp = Span::of(&self.slots[g as usize].bookings);
        self.groups.set_span(g, sp);
    }

    /// The latest `now` given to [`prune`](Self::prune): queries and node choices start at or
    /// after it (the void index leaves out the voids that end by it).
    pub fn horizon(&self) -> Micros {
        self.horizon
    }

    /// Entries of `members` a cluster of `nodes` nodes needs.
    pub const fn members_len(nodes: usize) -> usize {
        GROUP_ARRAYS * nodes
    }

    /// How many times time held by running tasks or reservations has been freed (see the
    /// field's doc).
    pub fn base_loosened(&self) -> u32 {
        self.base_loosened
    }

    /// Place-holder bookings on the cluster now (one per node).
    pub fn held(&self) -> u32 {
        self.held
    }

    /// How many times time on this cluster has been freed (see the field's doc): answers
    /// computed under the same count only move later.
    pub fn loosened(&self) -> u32 {
        self.loosened
    }

    /// How many bookings were added (see the field's doc).
    pub fn tightened(&self) -> u32 {
        self.tightened
    }

    /// The bookings added since the count was `since`, oldest first; `None` if the log no
    /// longer holds them all.
    pub fn booked_since(&self, since: u32) -> Option<impl Iterator<Item = Logged> + '_> {
        let n = self.tightened.wrapping_sub(since);
        if n as usize > BOOKING_LOG {
            return None;
        }
        Some((0..n).map(move |j| self.log[since.wrapping_add(j) as usize % BOOKING_LOG]))
    }

    /// Makes this cluster (of as many nodes) a copy of `from`: bookings, groups and the
    /// history the fit memo reads. The void index is not copied (it is rebuilt when asked).
    pub fn copy_from(&mut self, from: &ClusterTimeline<'_>) -> Result<(), Error> {
        let n = self.slots.len();
        if from.slots.len() != n {
            return Err(full(Capacity::Nodes, n).into());
        }
        for s in self.slots.iter_mut() {
            s.bookings.clear();
        }
        for &g in from.groups.live() {
            let to = &mut self.slots[g as usize].bookings;
            // Room enough: both sides have the same capacity.
            let _ = to.extend_from_slice(&from.slots[g as usize].bookings);
        }
        let (a, b) = (&mut self.groups, &from.groups);
        a.of.copy_from_slice(&b.of[..n]);
        a.next.copy_from_slice(&b.next[..n]);
        a.size.copy_from_slice(&b.size[..n]);
        a.live.copy_from_slice(&b.live[..n]);
        a.span.copy_from_slice(&b.span[..SPAN * n]);
        a.count = b.count;
        self.changed();
        self.loosened = from.loosened;
        self.base_loosened = from.base_loosened;
        self.tightened = from.tightened;
        self.log = from.log;
        self.held = from.held;
        self.booked = from.booked;
        self.first_end = from.first_end;
        self.horizon = from.horizon;
        self.merged_at = from.merged_at;
        Ok(())
    }

    /// How many nodes are free over `[s, e)` (`s` at or after the [`horizon`](Self::horizon)),
    /// counting no further than `want` (so a "can `k` nodes start now" question stops at the
    /// `k`-th free node).
    pub fn free_over(&self, s: Micros, e: Micros, want: u32) -> u32 {
        self.free_over_by(true, s, e, want)
    }

    /// [`free_over`](Self::free_over), from the void index when `indexed` and it is fresh.
    fn free_over_by(&self, indexed: bool, s: Micros, e: Micros, want: u32) -> u32 {
        let index = self
            .index
            .as_ref()
            .filter(|ix| indexed && ix.built == Some(self.version));
        if let (Some(ix), true) = (index, s < e) {
            let (_, _, opened, ended) = ix.count_over(s.0, e.0);
            return (opened - ended).min(want);
        }
        let mut n = 0;
        for &g in self.groups.live() {
            if self.void_of(g, s, e).is_some() {
                n += self.groups.size[g as usize];
                if n >= want {
                    break;
                }
            }
        }
        n.min(want)
    }

    /// [`NodeTimeline::void_around`] for group `g`. While every booking ends after `s`
    /// (always from now on, once pruned to now), the void is the one before the first
    /// booking: no search in the group's bookings.
    fn void_of(&self, g: u32, s: Micros, e: Micros) -> Option<(Micros, Micros)> {
        let node = &self.slots[g as usize];
        match node.bookings.first() {
            Some(b) if s < self.first_end => (b.start >= e).then_some((Micros::ZERO, b.start)),
            _ => node.void_around(s, e),
        }
    }

    /// Gives the cluster buffers for its void index: two sorted copies (equal lengths) and a
    /// work buffer of [`index_work_len`](Self::index_work_len) to apply a change in place.
    /// Any length works: voids that do not fit make the cluster fall back to sorting in the
    /// caller's scratch, and a short work buffer to rebuilding, with the same answers.
    pub fn set_index(
        &mut self,
        by_start: &'a mut [Void],
        by_end: &'a mut [Void],
        work: &'a mut [Void],
    ) {
        self.index = Some(VoidIndex {
            by_start,
            by_end,
            work,
            len: 0,
            total: 0,
            edits: Some(0),
            built: None,
        });
    }

    /// Work-buffer entries [`set_index`](Self::set_index) should have: a change edits three
    /// voids for each group it touches (a change with more edits is applied by a rebuild).
    pub const fn index_work_len(nodes: usize) -> usize {
        3 * nodes
    }

    fn changed(&mut self) {
        self.version = self.version.wrapping_add(1);
    }

    /// Whether the index is fresh (a change can then keep it so).
    fn index_fresh(&self) -> bool {
        self.index
            .as_ref()
            .is_some_and(|ix| ix.built == Some(self.version))
    }

    /// Rebuilds the void index if a booking changed since it was built; false if it cannot
    /// hold every void.
    fn fresh_index(&mut self) -> bool {
        let version = self.version;
        let Some(ix) = self.index.as_mut() else {
            return false;
        };
        if ix.built == Some(version) {
            return true;
        }
        if self.overflowed.is_some_and(|at| self.booked > at - at / 8) {
            return false;
        }
        let cap = ix.by_start.len().min(ix.by_end.len());
        let mut v = 0;
        for &g in self.groups.live() {
            let weight = self.groups.size[g as usize];
            for (start, end) in self.slots[g as usize].voids() {
                if end <= self.horizon.0 {
                    continue;
                }
                if v >= cap {
                    ix.built = None;
                    self.overflowed = Some(self.booked);
                    return false;
                }
                ix.by_start[v] = Void {
                    start,
                    end,
                    weight,
                    before: 0,
                };
                v += 1;
            }
        }
        ix.by_start[..v].sort_unstable_by_key(by_start_key);
        let v = join_equal(&mut ix.by_start[..v]);
        ix.by_end[..v].copy_from_slice(&ix.by_start[..v]);
        ix.by_end[..v].sort_unstable_by_key(by_end_key);
        ix.total = sum_before(&mut ix.by_start[..v], 0);
        sum_before(&mut ix.by_end[..v], 0);
        ix.len = v;
        ix.built = Some(version);
        self.overflowed = None;
        true
    }

    /// Starts collecting the edits of a change to a fresh index (`fresh`: it was fresh).
    fn begin_edits(&mut self, fresh: bool) {
        if let Some(ix) = self.index.as_mut() {
            ix.edits = fresh.then_some(0);
        }
    }

    /// Notes that `weight` nodes lose (`add` false) or gain (`add` true) void `[start, end)`.
    fn edit(&mut self, add: bool, start: u64, end: u64, weight: u32) {
        let horizon = self.horizon.0;
        if let Some(ix) = self.index.as_mut() {
            ix.note(horizon, add, start, end, weight);
        }
    }

    /// Notes that `weight` nodes with void `[lo, hi)` are booked over `[s, e)` within it
    /// (`joined` false: the void goes, its sides come), or that such a booking of theirs
    /// goes (`joined` true: the sides go, the void comes). A side is only there if it is
    /// not empty.
    fn edit_split(&mut self, joined: bool, lo: u64, hi: u64, (s, e): (u64, u64), weight: u32) {
        self.edit(joined, lo, hi, weight);
        if lo < s {
            self.edit(!joined, lo, s, weight);
        }
        if hi > e {
            self.edit(!joined, e, hi, weight);
        }
    }

    /// Applies the edits collected since [`begin_edits`](Self::begin_edits) to both sorted
    /// arrays (one pass each from the first edit on) and marks the index fresh; stale if
    /// they did not fit or do not match the voids held.
    fn apply_edits(&mut self) {
        let version = self.version;
        let Some(ix) = self.index.as_mut() else {
            return;
        };
        let Some(n) = ix.edits.take() else {
            ix.built = None;
            return;
        };
        let cap = ix.by_start.len().min(ix.by_end.len());
        let edits = &mut ix.work[..n];
        // One packed key per sort: the comparisons are most of a short sort's cost.
        edits.sort_unstable_by_key(|x| packed(by_start_key(x)));
        let l1 = edit(ix.by_start, ix.len, cap, edits, by_start_key);
        edits.sort_unstable_by_key(|x| packed(by_end_key(x)));
        let l2 = edit(ix.by_end, ix.len, cap, edits, by_end_key);
        match (l1, l2) {
            (Some((l1, total)), Some((l2, _))) if l1 == l2 => {
                ix.len = l1;
                ix.total = total;
                ix.built = Some(version);
            }
            _ => ix.built = None,
        }
    }

    /// Scratch entries the sweep needs for a cluster of `nodes` nodes in the worst case.
    pub const fn scratch_len(nodes: usize) -> usize {
        nodes * (MAX_BOOKINGS_PER_NODE + 1)
    }

    /// Number of nodes.
    pub fn len(&self) -> NodeCount {
        NodeCount(self.slots.len() as u32)
    }

    /// Whether the cluster has no node.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// One node's timeline (its group's).
    pub fn node(&self, i: u32) -> Option<&NodeTimeline> {
        let g = *self.groups.of.get(i as usize)? & !TAKEN;
        self.slots.get(g as usize)
    }

    /// Every node's timeline, in node order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = &NodeTimeline> + '_ {
        self.groups
            .of
            .iter()
            .map(|&g| &self.slots[(g & !TAKEN) as usize])
    }

    /// Number of groups of nodes with equal bookings (see the module doc).
    pub fn groups(&self) -> usize {
        self.groups.count
    }

    /// The earliest start at or after `t` (at or after the [`horizon`](Self::horizon)) at
    /// which `k` nodes are free for `d`, or `None` if the cluster has fewer than `k` nodes.
    pub fn earliest_start(
        &mut self,
        t: Micros,
        k: NodeCount,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        if k.0 == 0 || k.0 as usize > self.slots.len() {
            return Ok(None);
        }
        if self.fresh_index() {
            return Ok(self.indexed_earliest(t, k.0, d));
        }
        self.swept_earliest(t, k, d, scratch)
    }

    /// The earliest start from the void index: a merge of the admissible starts (in the order
    /// of the voids' starts) with the admissible last starts (in the order of their ends).
    ///
    /// It starts at `t` without walking the voids before it: for `s >= t`, the nodes free
    /// over `[s, s + d)` are those of the voids with `start <= s` and `end >= s + d`, counted
    /// at `s = t` by [`VoidIndex::count_over`]. No admissible void ends before `t + d`, so
    /// the merge then goes on from the two positions that count leaves.
    fn indexed_earliest(&self, t: Micros, k: u32, d: Micros) -> Option<Fit> {
        let ix = self.index.as_ref()?;
        let (t, d) = (t.0, d.0);
        let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
        let (mut i, mut e, mut opened, mut ended) = ix.count_over(t, t.saturating_add(d));
        if opened - ended >= k {
            return Some(Fit {
                start: Micros(t),
                free: opened - ended,
            });
        }
        // Past t, a void is admissible if it is long enough for d; the weights counted so
        // far (at t) are all of admissible voids, so the two counts go on from there.
        let admits = |x: &Void| x.end - x.start >= d;
        while i < starts.len() {
            let s = starts[i].start;
            // Every admissible void whose first admissible start is s.
            while i < starts.len() && starts[i].start == s {
                if admits(&starts[i]) {
                    opened += starts[i].weight;
                }
                i += 1;
            }
            // Every admissible void whose last admissible start is before s.
            let sd = s.saturating_add(d);
            while e < ends.len() && ends[e].end < sd {
                if admits(&ends[e]) {
                    ended += ends[e].weight;
                }
                e += 1;
            }
            if opened - ended >= k {
                return Some(Fit {
                    start: Micros(s),
                    free: opened - ended,
                });
            }
        }
        None
    }

    /// The earliest start by collecting and sorting the admissible voids in `scratch`: one
    /// entry per group's void, weighted by its nodes ([`swept_by_groups`]), or, when its
    /// times lie too far past `t` to pack, one per node's void.
    ///
    /// [`swept_by_groups`]: Self::swept_by_groups
    fn swept_earliest(
        &self,
        t: Micros,
        k: NodeCount,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        let k = k.0 as usize;
        let n = self.slots.len();
        if k == 0 || k > n {
            return Ok(None);
        }
        let cap = scratch.capacity();
        if cap < n {
            return Err(full(Capacity::Nodes, cap).into());
        }
        match self.swept_by_groups(t, k, d, scratch)? {
            Some(fit) => Ok(fit),
            None => self.swept_by_nodes(t, k, d, scratch),
        }
    }

    /// The sweep of [`swept_earliest`](Self::swept_earliest) over the groups: each entry is
    /// a time relative to `t` above a group's name ([`SWEEP_SHIFT`] bits), one sort of `u64`
    /// keys, and a group's nodes count at once. `None` when a time it must tell apart lies
    /// [`SWEEP_FAR`] or more past `t` (the node sweep then answers). `k` in `1..=nodes`, and
    /// `scratch` holds at least one entry a node.
    fn swept_by_groups(
        &self,
        t: Micros,
        k: usize,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Option<Fit>>, Error> {
        let cap = scratch.capacity();
        // Every time packed is at or after `t`; those far past it are all alike.
        let rel = |x: Micros| x.0.saturating_sub(t.0).min(SWEEP_FAR);
        let key = |x: Micros, g: u32| (rel(x) << SWEEP_SHIFT) | g as u64;
        let weight = |key: u64| self.groups.size[(key & SWEEP_NAME) as usize] as usize;
        // Pass 1: how many nodes are free over [t, t + d) (the answer is t if k are), and
        // when each group is free for good (after its last booking).
        let mut free_now = 0usize;
        let mut m = 0usize;
        for &g in self.groups.live() {
            if self.void_of(g, t, t.saturating_add(d)).is_some() {
                free_now += self.groups.size[g as usize] as usize;
            }
            let last = self.slots[g as usize]
                .bookings
                .last()
                .map_or(Micros::ZERO, |b| b.end);
            scratch.firsts[m] = key(if last > t { last } else { t }, g);
            m += 1;
        }
        if free_now >= k {
            return Ok(Some(Some(Fit {
                start: t,
                free: free_now as u32,
            })));
        }
        // The time by which k nodes are free for good bounds the answer.
        let firsts = &mut scratch.firsts[..m];
        firsts.sort_unstable();
        let mut ub = SWEEP_FAR;
        let mut got = 0usize;
        for &x in firsts.iter() {
            got += weight(x);
            if got >= k {
                ub = x >> SWEEP_SHIFT;
                break;
            }
        }
        if ub >= SWEEP_FAR {
            return Ok(None);
        }
        // Pass 2: the starts each group's void admits, [max(a, t), b - d], for voids opening
        // by ub (a last start too far to pack is past every start that is packed).
        let (mut v, mut total) = (0usize, 0usize);
        for &g in self.groups.live() {
            let w = self.groups.size[g as usize] as usize;
            self.admissible_voids(g, t, d, t.0.saturating_add(ub), |first, last| {
                if v >= cap {
                    return Err(Error::from(full(Capacity::Nodes, cap)));
                }
                scratch.firsts[v] = key(first, g);
                scratch.lasts[v] = key(last, g);
                v += 1;
                total += w;
                Ok(())
            })?;
        }
        if total < k {
            return Ok(Some(None));
        }
        let firsts = &mut scratch.firsts[..v];
        let lasts = &mut scratch.lasts[..v];
        firsts.sort_unstable();
        lasts.sort_unstable();
        // Coverage at s: the nodes of voids with first <= s less those with last < s; it can
        // only reach a new maximum at a first, tested once all equal to it are counted.
        let (mut i, mut ended, mut covered) = (0usize, 0usize, 0usize);
        while i < v {
            let s = firsts[i] >> SWEEP_SHIFT;
            while i < v && firsts[i] >> SWEEP_SHIFT == s {
                covered += weight(firsts[i]);
                i += 1;
            }
            // Each of these was counted in: its first is at or before its last.
            while ended < v && lasts[ended] >> SWEEP_SHIFT < s {
                covered -= weight(lasts[ended]);
                ended += 1;
            }
            if covered >= k {
                return Ok(Some(Some(Fit {
                    start: Micros(t.0 + s),
                    free: covered as u32,
                })));
            }
        }
        Ok(Some(None))
    }

    /// Calls `admit(first, last)` for each void of group `g` that admits a run of `d` at or
    /// after `t`, in time order, up to the last that opens by `ub`: the run may start from
    /// `first` (the void's start, or `t`) to `last` (its end less `d`). Stops at an error.
    fn admissible_voids(
        &self,
        g: u32,
        t: Micros,
        d: Micros,
        ub: u64,
        mut admit: impl FnMut(Micros, Micros) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let bs = &self.slots[g as usize].bookings;
        // Skip bookings over before t: only voids that reach past t matter.
        let first = match t < self.first_end {
            true => 0,
            false => bs.partition_point(|b| b.end <= t),
        };
        let mut a = if first > 0 {
            bs[first - 1].end
        } else {
            Micros::ZERO
        };
        for j in first..=bs.len() {
            let b = if j < bs.len() {
                bs[j].start
            } else {
                Micros::MAX
            };
            let s0 = if a > t { a } else { t };
            if s0.0 > ub {
                break;
            }
            if b.0 >= d.0 && s0.0 <= b.0 - d.0 {
                admit(s0, Micros(b.0 - d.0))?;
            }
            if j < bs.len() {
                a = bs[j].end;
            }
        }
        Ok(())
    }

    /// The sweep of [`swept_earliest`](Self::swept_earliest) node by node: one entry per
    /// node's void. `k` in `1..=nodes`, and `scratch` holds at least one entry a node.
    fn swept_by_nodes(
        &self,
        t: Micros,
        k: usize,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        let n = self.slots.len();
        let cap = scratch.capacity();
        // Pass 1: how many nodes are free over [t, t + d) (the answer is t if k are, and no
        // sort is needed), and when each node is free for good (after its last booking).
        let mut free_now = 0usize;
        let mut at = 0usize;
        for &g in self.groups.live() {
            let w = self.groups.size[g as usize] as usize;
            if self.void_of(g, t, t.saturating_add(d)).is_some() {
                free_now += w;
            }
            let last = self.slots[g as usize]
                .bookings
                .last()
                .map_or(Micros::ZERO, |b| b.end);
            scratch.firsts[at..at + w].fill(if last > t { last.0 } else { t.0 });
            at += w;
        }
        if free_now >= k {
            return Ok(Some(Fit {
                start: t,
                free: free_now as u32,
            }));
        }
        // The k-th earliest "free for good" time is always feasible: no answer is later, so
        // voids that open after it cannot matter.
        let (_, ub, _) = scratch.firsts[..n].select_nth_unstable(k - 1);
        let ub = *ub;
        // Pass 2: the starts each void admits, [max(a, t), b - d], for voids opening by ub.
        let mut v = 0usize;
        for &g in self.groups.live() {
            let w = self.groups.size[g as usize] as usize;
            self.admissible_voids(g, t, d, ub, |first, last| {
                if v + w > cap {
                    return Err(Error::from(full(Capacity::Nodes, cap)));
                }
                scratch.firsts[v..v + w].fill(first.0);
                scratch.lasts[v..v + w].fill(last.0);
                v += w;
                Ok(())
            })?;
        }
        if v < k {
            return Ok(None);
        }
        let firsts = &mut scratch.firsts[..v];
        let lasts = &mut scratch.lasts[..v];
        firsts.sort_unstable();
        lasts.sort_unstable();
        // Coverage at s = #{first <= s} - #{last < s}; it can only reach a new maximum at a
        // first, so test each distinct first once, after counting all equal to it.
        let mut ended = 0usize;
        let mut i = 0usize;
        while i < v {
            let s = firsts[i];
            while i + 1 < v && firsts[i + 1] == s {
                i += 1;
            }
            while ended < v && lasts[ended] < s {
                ended += 1;
            }
            let covered = i + 1 - ended;
            if covered >= k {
                return Ok(Some(Fit {
                    start: Micros(s),
                    free: covered as u32,
                }));
            }
            i += 1;
        }
        Ok(None)
    }

    /// Chooses `out.len()` nodes free over `[s, s + d)`: fewest new idle voids, then the
    /// smallest void, then the lowest index (seed 000 §III.F), and writes them in node order.
    /// `now` is the earliest instant a void can begin (idle time before it is gone; at or
    /// after the [`horizon`](Self::horizon), as `s` is). Returns how many were found; fewer
    /// than asked means the nodes are not free. `keys` needs room for twice as many entries
    /// as the cluster has groups.
    pub fn choose_nodes(
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
    pub fn book(&mut self, nodes: &[u32], b: Booking) -> Result<(), Error> {
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

    /// Chooses `k` nodes free over `[b.start, b.end)` as [`choose_nodes`](Self::choose_nodes)
    /// would (with `now` its `now`) and books them for `b`, all or nothing. The same nodes as
    /// `choose_nodes` then [`book`](Self::book), but whole groups are booked as they are:
    /// only the groups at the margin are walked node by node. Returns false, changing
    /// nothing, if fewer than `k` nodes are free. `keys` as for `choose_nodes`.
    pub fn book_chosen(
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

    /// Splits group `g` into its taken members and the rest (both lists stay in node order;
    /// the part without `g` gets its lowest node's name and a copy of the bookings), clears
    /// the marks, and adds the new group to the change's list. The taken part keeps the
    /// count in `taken`; the other has none.
    fn split_taken(&mut self, g: u32, t: &mut usize) {
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

    /// Removes every place-holder (the start of a mapping event).
    pub fn clear_place_holders(&mut self) {
        // Without place-holders (the heuristics that reserve permanently) nothing changes,
        // and the void index stays fresh.
        if self.held == 0 {
            return;
        }
        for x in 0..self.groups.count {
            let g = self.groups.live[x];
            self.slots[g as usize]
                .bookings
                .retain(|b| b.kind != BookingKind::PlaceHolder);
            self.sync(g);
        }
        self.booked -= self.held;
        self.held = 0;
        self.changed();
        self.loosened = self.loosened.wrapping_add(1);
        // The groups place-holders split apart are equal again.
        self.merge();
    }

    /// Merges the groups whose bookings are equal (they were told apart by bookings since
    /// removed): one sort of the groups by their bookings. No node's voids change, so a
    /// fresh void index stays fresh.
    fn merge(&mut self) {
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
    fn merge_if_grown(&mut self) {
        if self.groups.count >= 2 * self.merged_at + 8 {
            self.merge();
        }
    }

    /// Removes every booking of `task`; returns on how many nodes it was found.
    pub fn remove_task(&mut self, task: TaskId) -> u32 {
        self.remove_until(task, Micros::ZERO)
    }

    /// Removes every booking of `task`, which stops at `at`: only bookings that end after
    /// `at` free time from `at` on (and so loosen the cluster).
    fn remove_until(&mut self, task: TaskId, at: Micros) -> u32 {
        // Seldom used (a task ended off its planned start): the index goes stale and is
        // rebuilt when asked.
        self.changed();
        let mut gone = Removed::default();
        for x in 0..self.groups.count {
            let g = self.groups.live[x];
            let w = self.groups.size[g as usize];
            self.slots[g as usize].bookings.retain(|b| {
                let mine = b.task == task;
                if mine {
                    gone.note(b, at, w);
                }
                !mine
            });
            self.sync(g);
        }
        self.merge_if_grown();
        self.account(gone)
    }

    /// Updates the counts for the bookings `gone` removed; returns how many there were.
    fn account(&mut self, gone: Removed) -> u32 {
        self.held -= gone.held;
        self.booked -= gone.found;
        if gone.freed {
            self.loosened = self.loosened.wrapping_add(1);
        }
        if gone.base_freed {
            self.base_loosened = self.base_loosened.wrapping_add(1);
        }
        gone.found
    }

    /// Turns `task`'s reservation into a running booking (its start has come).
    pub fn mark_running(&mut self, task: TaskId) -> u32 {
        let mut found = 0;
        for &g in self.groups.live[..self.groups.count].iter() {
            for b in self.slots[g as usize]
                .bookings
                .iter_mut()
                .filter(|b| b.task == task)
            {
                b.kind = BookingKind::Running;
                found += self.groups.size[g as usize];
            }
        }
        found
    }

    /// [`remove_task`](Self::remove_task) for a task whose bookings all start at `start` (as
    /// one assignment's do): a binary search per group instead of a walk over every booking.
    pub fn remove_task_from(&mut self, task: TaskId, start: Micros) -> u32 {
        self.remove_from(task, start, Micros::ZERO)
    }

    /// [`complete`](Self::complete) for a task whose bookings all start at `start`.
    pub fn complete_from(&mut self, task: TaskId, start: Micros, at: Micros) -> u32 {
        self.remove_from(task, start, at)
    }

    /// [`mark_running`](Self::mark_running) for a task whose bookings all start at `start`.
    pub fn mark_running_from(&mut self, task: TaskId, start: Micros) -> u32 {
        let mut found = 0;
        for &g in self.groups.live[..self.groups.count].iter() {
            let bs = &mut self.slots[g as usize].bookings;
            let j = bs.partition_point(|b| b.start < start);
            if let Some(b) = bs.get_mut(j).filter(|b| b.task == task) {
                b.kind = BookingKind::Running;
                found += self.groups.size[g as usize];
            }
        }
        found
    }

    /// Removes the bookings of `task` that start at `start`; only those that end after `at`
    /// free time (and so loosen the cluster).
    fn remove_from(&mut self, task: TaskId, start: Micros, at: Micros) -> u32 {
        let fresh = self.index_fresh();
        self.changed();
        self.begin_edits(fresh);
        let mut gone = Removed::default();
        for x in 0..self.groups.count {
            let g = self.groups.live[x];
            let bs = &mut self.slots[g as usize].bookings;
            let j = bs.partition_point(|b| b.start < start);
            if bs.get(j).is_none_or(|b| b.task != task) {
                continue;
            }
            let lo = if j == 0 { 0 } else { bs[j - 1].end.0 };
            let hi = bs.get(j + 1).map_or(u64::MAX, |x| x.start.0);
            let b = bs.remove(j);
            self.sync(g);
            let w = self.groups.size[g as usize];
            gone.note(&b, at, w);
            // Its sides join.
            self.edit_split(true, lo, hi, (b.start.0, b.end.0), w);
        }
        if gone.found == 0 {
            // Nothing removed: the index is as current as it was.
            if fresh {
                self.mark_fresh();
            }
            return 0;
        }
        self.apply_edits();
        self.merge_if_grown();
        self.account(gone)
    }

    /// Marks the index fresh after a change that left every void as it was.
    fn mark_fresh(&mut self) {
        let version = self.version;
        if let Some(ix) = self.index.as_mut() {
            ix.built = Some(version);
        }
    }

    /// Ends `task` at `at` (at or before its planned end): its nodes are free from then on,
    /// so its bookings go (the decision log, not the timeline, keeps history).
    pub fn complete(&mut self, task: TaskId, at: Micros) -> u32 {
        self.remove_until(task, at)
    }

    /// Forgets bookings that ended at or before `now` (they no longer shape any void from
    /// `now` on, except for the void's start, which `now` bounds anyway). Queries and node
    /// choices start at or after the latest `now` given here ([`horizon`](Self::horizon)).
    pub fn prune(&mut self, now: Micros) {
        if now > self.horizon {
            self.horizon = now;
            self.drop_dead_voids();
        }
        if now < self.first_end {
            return;
        }
        let mut pruned = false;
        let mut first_end = Micros::MAX;
        for x in 0..self.groups.count {
            let g = self.groups.live[x];
            let w = self.groups.size[g as usize];
            let n = &mut self.slots[g as usize];
            let stale = n.bookings.partition_point(|b| b.end <= now);
            // A node's bookings are disjoint and in start order, so in end order too.
            if let Some(b) = n.bookings.get(stale).filter(|b| b.end < first_end) {
                first_end = b.end;
            }
            if stale > 0 {
                pruned = true;
                let held = n.bookings[..stale]
                    .iter()
                    .filter(|b| b.kind == BookingKind::PlaceHolder)
                    .count() as u32;
                self.held -= held * w;
                self.booked -= stale as u32 * w;
                // Keep the order: shift the rest down.
                let len = n.bookings.len();
                for i in stale..len {
                    n.bookings[i - stale] = n.bookings[i];
                }
                n.bookings.truncate(len - stale);
                self.sync(g);
            }
        }
        self.first_end = first_end;
        // Completions remove their bookings, so there is seldom anything to prune.
        if pruned {
            self.changed();
            self.merge();
        }
    }

    /// Takes the voids that end by the horizon out of a fresh index (they are the first
    /// voids in its order by end), so that it holds the voids a rebuild would.
    fn drop_dead_voids(&mut self) {
        let (version, h) = (self.version, self.horizon.0);
        let Some(ix) = self.index.as_mut().filter(|ix| ix.built == Some(version)) else {
            return;
        };
        let dead = ix.by_end[..ix.len].partition_point(|x| x.end <= h);
        if dead == 0 {
            return;
        }
        let len = ix.len;
        ix.by_end.copy_within(dead..len, 0);
        let mut w = 0;
        for r in 0..len {
            if ix.by_start[r].end > h {
                ix.by_start[w] = ix.by_start[r];
                w += 1;
            }
        }
        ix.len = len - dead;
        ix.total = sum_before(&mut ix.by_start[..ix.len], 0);
        sum_before(&mut ix.by_end[..ix.len], 0);
    }

    /// Node-time not booked within `[from, to)`, summed over nodes (seed 000 Eq. 6, in
    /// node-microseconds: multiply by cores per node for core-microseconds).
    pub fn free_node_time(&self, from: Micros, to: Micros) -> u128 {
        if to <= from {
            return 0;
        }
        let mut total: u128 = 0;
        for &g in self.groups.live() {
            let mut busy: u64 = 0;
            for b in self.slots[g as usize].bookings.iter() {
                let s = if b.start > from { b.start } else { from };
                let e = if b.end < to { b.end } else { to };
                if e > s {
                    busy += e.0 - s.0;
                }
            }
            total += (to.0 - from.0 - busy) as u128 * self.groups.size[g as usize] as u128;
        }
        total
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
                let mut at = h - 1;
                while at > 0 && heads[(at - 1) / 2] > heads[at] {
                    heads.swap(at, (at - 1) / 2);
                    at = (at - 1) / 2;
                }
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
            sift_min(&mut heads[..h], 0);
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

/// Makes slot `to` hold the bookings of slot `from` (copying only the bookings held).
fn copy_slot(slots: &mut [NodeTimeline], from: usize, to: usize) {
    let (src, dst) = if from < to {
        let (x, y) = slots.split_at_mut(to);
        (&x[from], &mut y[0])
    } else {
        let (x, y) = slots.split_at_mut(from);
        (&y[0], &mut x[to])
    };
    dst.bookings.clear();
    // Room enough: every slot has the same capacity.
    let _ = dst.bookings.extend_from_slice(&src.bookings);
}

/// Joins the groups `list[i..j]` (equal bookings; `list[i]` the lowest name) into the
/// first: one list of their members in node order, merged through a heap of the lists'
/// heads kept in `list[i..j]` itself. Every member is read once (and the heap sifted once a
/// member), where joining them two at a time would read the first group's list once a join.
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
        sift_min(&mut heap[..h], 0);
    }
    if tail != NONE {
        gr.next[tail as usize] = NONE;
    }
}

/// Moves entry `at` of the min-heap `heap` down to its place.
fn sift_min<T: Ord + Copy>(heap: &mut [T], at: usize) {
    crate::heap::sift_down(heap, at, |a, b| a < b);
}

/// The void index's order by start (an entry's key: entries are distinct voids).
fn by_start_key(x: &Void) -> (u64, u64) {
    (x.start, x.end)
}

/// The void index's order by end (total likewise).
fn by_end_key(x: &Void) -> (u64, u64) {
    (x.end, x.start)
}

/// A key as one integer (one comparison a step of a sort).
fn packed((a, b): (u64, u64)) -> u128 {
    ((a as u128) << 64) | b as u128
}

/// Joins the entries with equal voids of `arr` (sorted by [`by_start_key`]) into one,
/// weights summed, in place; returns how many are left.
fn join_equal(arr: &mut [Void]) -> usize {
    let mut w = 0;
    for r in 0..arr.len() {
        if w > 0 && by_start_key(&arr[w - 1]) == by_start_key(&arr[r]) {
            arr[w - 1].weight += arr[r].weight;
        } else {
            arr[w] = arr[r];
            w += 1;
        }
    }
    w
}

/// The weight of the voids before position `i` of a sorted array (`total` past its end).
fn weight_before(arr: &[Void], i: usize, total: u32) -> u32 {
    arr.get(i).map_or(total, |x| x.before)
}

/// Writes each void's `before` from position `from` on; returns the total weight.
fn sum_before(arr: &mut [Void], from: usize) -> u32 {
    let mut w = if from == 0 {
        0
    } else {
        arr[from - 1].before + arr[from - 1].weight
    };
    for x in arr[from..].iter_mut() {
        x.before = w;
        w += x.weight;
    }
    w
}

/// Applies `edits` (sorted by `key`; `before` says whether each void's weight goes, 0, or
/// comes, 1) to one sorted array of `len` voids, in one pass from the first edit, and counts
/// the weights again from there. An entry whose weight drops to 0 goes; a void not there
/// comes. Returns the new length and the total weight; `None` if it does not fit in `cap` or
/// more weight goes than a void has.
fn edit(
    arr: &mut [Void],
    len: usize,
    cap: usize,
    edits: &[Void],
    key: fn(&Void) -> (u64, u64),
) -> Option<(usize, u32)> {
    let Some(first) = edits.first() else {
        let total = arr[..len].last().map_or(0, |x| x.before + x.weight);
        return Some((len, total));
    };
    // Room ahead of the pass for the most entries it can put in: one a void that gains.
    let shift = edits.iter().filter(|x| x.before == 1).count();
    if len + shift > cap {
        return None;
    }
    let p0 = arr[..len].partition_point(|x| key(x) < key(first));
    arr.copy_within(p0..len, p0 + shift);
    let end = len + shift;
    let (mut r, mut w, mut i) = (p0 + shift, p0, 0);
    while i < edits.len() {
        let x = edits[i];
        let k = key(&x);
        // The net change of this void's weight.
        let mut net = 0i64;
        while i < edits.len() && key(&edits[i]) == k {
            let dw = edits[i].weight as i64;
            net += if edits[i].before == 1 { dw } else { -dw };
            i += 1;
        }
        while r < end && key(&arr[r]) < k {
            arr[w] = arr[r];
            w += 1;
            r += 1;
        }
        let mut weight = net;
        if r < end && key(&arr[r]) == k {
            weight += arr[r].weight as i64;
            r += 1;
        }
        match u32::try_from(weight) {
            Ok(0) => {}
            Ok(weight) => {
                arr[w] = Void { weight, ..x };
                w += 1;
            }
            Err(_) => return None,
        }
    }
    arr.copy_within(r..end, w);
    let len = w + (end - r);
    let total = sum_before(&mut arr[..len], p0);
    Some((len, total))
}

/// What a removal took away: bookings, place-holders among them, and whether they freed
/// time (held by anything, or by something other than a place-holder) from `at` on.
#[derive(Default)]
struct Removed {
    found: u32,
    held: u32,
    freed: bool,
    base_freed: bool,
}

impl Removed {
    /// Counts booking `b` of `nodes` nodes, removed by a task stopping at `at`.
    fn note(&mut self, b: &Booking, at: Micros, nodes: u32) {
        let held = b.kind == BookingKind::PlaceHolder;
        self.found += nodes;
        self.held += held as u32 * nodes;
        self.freed |= b.end > at;
        self.base_freed |= b.end > at && !held;
    }
}
#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use std::format;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    fn m(x: u64) -> Micros {
        Micros(x)
    }

    fn run(task: u32, s: u64, e: u64) -> Booking {
        Booking {
            start: m(s),
            end: m(e),
            task: TaskId(task),
            kind: BookingKind::Running,
        }
    }

    fn place(task: u32, s: u64, e: u64) -> Booking {
        Booking {
            kind: BookingKind::PlaceHolder,
            ..run(task, s, e)
        }
    }

    /// A cluster's storage: its nodes' slots and their group bookkeeping.
    struct Store {
        nodes: Vec<NodeTimeline>,
        members: Vec<u32>,
    }
    impl Store {
        fn new(n: usize) -> Store {
            Store {
                nodes: vec![NodeTimeline::new(); n],
                members: vec![0; ClusterTimeline::members_len(n)],
            }
        }
        fn cluster(&mut self) -> ClusterTimeline<'_> {
            ClusterTimeline::new(&mut self.nodes, &mut self.members).unwrap()
        }
    }

    fn leak(n: usize) -> &'static mut [Void] {
        std::boxed::Box::leak(vec![Void::default(); n].into_boxed_slice())
    }

    /// Gives `c` a void index with room for every void and `work` entries to apply changes.
    fn give_index(c: &mut ClusterTimeline<'_>, work: usize) {
        let l = ClusterTimeline::scratch_len(c.slots.len());
        c.set_index(leak(l), leak(l), leak(work));
    }

    struct Bufs {
        a: Vec<u64>,
        b: Vec<u64>,
    }
    impl Bufs {
        fn new(n: usize) -> Bufs {
            let l = ClusterTimeline::scratch_len(n);
            Bufs {
                a: vec![0; l],
                b: vec![0; l],
            }
        }
        fn scratch(&mut self) -> Scratch<'_> {
            Scratch::new(&mut self.a, &mut self.b)
        }
    }

    /// The earliest start both ways, sweep and void index, which must agree.
    fn earliest(c: &mut ClusterTimeline<'_>, t: u64, k: u32, d: u64) -> Option<u64> {
        let n = c.slots.len();
        let mut b = Bufs::new(n);
        let swept = c
            .swept_earliest(m(t), NodeCount(k), m(d), &mut b.scratch())
            .unwrap();
        give_index(c, ClusterTimeline::index_work_len(n));
        let indexed = c
            .earliest_start(m(t), NodeCount(k), m(d), &mut b.scratch())
            .unwrap();
        if k > 0 && k as usize <= n {
            assert!(
                c.index.as_ref().is_some_and(|ix| ix.built.is_some()),
                "the index was used"
            );
        }
        assert_eq!(
            swept, indexed,
            "sweep and index disagree for t={t} k={k} d={d}"
        );
        c.index = None;
        if k > 0 && k as usize <= n {
            let by_nodes = c
                .swept_by_nodes(m(t), k as usize, m(d), &mut b.scratch())
                .unwrap();
            assert_eq!(
                swept, by_nodes,
                "group and node sweeps disagree for t={t} k={k} d={d}"
            );
        }
        swept.map(|f| f.start.0)
    }

    #[test]
    fn a_sweep_past_203_days_is_the_node_sweeps() {
        // Times 2^45 µs (407 days) past the query do not fit a grouped key: the answers
        // that need them come from the node sweep, the others from the groups.
        let far = 1u64 << 45;
        let nodes = vec![vec![(0, far)], vec![(far + 5, far + 9)], vec![]];
        let mut store = Store::new(nodes.len());
        let c = build(&mut store, &nodes, false);
        let mut b = Bufs::new(nodes.len());
        for (t, k, d) in [
            (0, 2, 10),
            (0, 3, 10),
            (0, 3, far),
            (7, 1, 3),
            (far - 2, 2, 4),
        ] {
            let grouped = c.swept_by_groups(m(t), k, m(d), &mut b.scratch()).unwrap();
            let swept = c
                .swept_earliest(m(t), NodeCount(k as u32), m(d), &mut b.scratch())
                .unwrap();
            let by_nodes = c.swept_by_nodes(m(t), k, m(d), &mut b.scratch()).unwrap();
            assert_eq!(swept, by_nodes, "t={t} k={k} d={d}");
            assert_eq!(swept.map(|f| f.start.0), brute(&nodes, t, k, d));
            // The groups answer where k nodes are free for good within 2^44 µs of t.
            assert_eq!(grouped.is_some(), (t, k) != (0, 3), "t={t} k={k} d={d}");
        }
    }

    #[test]
    fn empty_cluster_starts_now() {
        let mut store = Store::new(4);
        let mut c = store.cluster();
        assert_eq!(earliest(&mut c, 5, 4, 10), Some(5));
        assert_eq!(earliest(&mut c, 5, 5, 10), None);
    }

    #[test]
    fn waits_for_enough_nodes_and_uses_a_void_that_fits() {
        let mut store = Store::new(3);
        let mut c = store.cluster();
        c.book(&[0], run(1, 0, 10)).unwrap();
        c.book(&[1], run(2, 0, 20)).unwrap();
        c.book(&[2], run(3, 5, 8)).unwrap();
        // One node: node 2 is free now until 5, a 5-long job fits there.
        assert_eq!(earliest(&mut c, 0, 1, 5), Some(0));
        // A 6-long job does not fit before 5; node 2 is free again at 8.
        assert_eq!(earliest(&mut c, 0, 1, 6), Some(8));
        // Two nodes: node 2 from 8 and node 0 from 10.
        assert_eq!(earliest(&mut c, 0, 2, 100), Some(10));
        assert_eq!(earliest(&mut c, 0, 3, 1), Some(20));
    }

    /// Seed 000 Fig. 5: three nodes out of four free ones, chosen n6, n5, then n3 (n4 left).
    #[test]
    fn node_choice_of_fig5() {
        // Ten nodes n1..n10 at indices 0..9. The task needs 3 nodes for [20, 30).
        let mut store = Store::new(10);
        let mut c = store.cluster();
        // Busy nodes at 20: n1, n2, n7, n8, n9, n10.
        for (i, t) in [(0u32, 1u32), (1, 2), (6, 7), (7, 8), (8, 9), (9, 10)] {
            c.book(&[i], run(t, 0, 40)).unwrap();
        }
        // n3: free from 15, next task at 50: would leave voids before and after (2 new voids),
        // void size 35.
        c.book(&[2], run(3, 0, 15)).unwrap();
        c.book(&[2], run(33, 50, 60)).unwrap();
        // n4: free from 12, next task at 60: 2 new voids, void size 48 (larger than n3's).
        c.book(&[3], run(4, 0, 12)).unwrap();
        c.book(&[3], run(44, 60, 70)).unwrap();
        // n5: ends exactly at 20, nothing after: no new void, open-ended void.
        c.book(&[4], run(5, 0, 20)).unwrap();
        // n6: ends exactly at 20, next task exactly at 30: no new void, void of size 10.
        c.book(&[5], run(6, 0, 20)).unwrap();
        c.book(&[5], run(66, 30, 40)).unwrap();
        assert_eq!(earliest(&mut c, 0, 3, 10), Some(20));
        let mut out = [0u32; 3];
        let mut keys = [0u64; 20];
        assert_eq!(c.choose_nodes(m(0), m(20), m(10), &mut out, &mut keys), 3);
        // n6, n5, n3 (indices 5, 4, 2), in node order.
        assert_eq!(out, [2, 4, 5]);
    }

    #[test]
    fn booking_is_all_or_nothing() {
        let mut store = Store::new(2);
        let mut c = store.cluster();
        c.book(&[1], run(1, 0, 10)).unwrap();
        assert_eq!(
            c.book(&[0, 1], run(2, 5, 15)),
            Err(Error::Input(InputError::Overlap))
        );
        assert!(c.node(0).unwrap().bookings().is_empty());
        assert_eq!(
            c.book(&[0, 0], run(2, 5, 15)),
            Err(Error::Input(InputError::Overlap))
        );
        assert!(c.node(0).unwrap().bookings().is_empty());
    }

    #[test]
    fn a_full_node_is_a_capacity_error() {
        let mut store = Store::new(1);
        let mut c = store.cluster();
        for i in 0..MAX_BOOKINGS_PER_NODE as u64 {
            c.book(&[0], run(i as u32, i * 10, i * 10 + 5)).unwrap();
        }
        let e = c.book(&[0], run(999, 100_000, 100_005)).unwrap_err();
        assert!(matches!(e, Error::Capacity(ce) if ce.what == Capacity::NodeBookings));
    }

    #[test]
    fn early_completion_frees_nodes_then() {
        let mut store = Store::new(2);
        let mut c = store.cluster();
        c.book(&[0, 1], run(1, 0, 100)).unwrap();
        assert_eq!(earliest(&mut c, 10, 2, 5), Some(100));
        assert_eq!(c.complete(TaskId(1), m(40)), 2);
        assert_eq!(earliest(&mut c, 40, 2, 5), Some(40));
    }

    #[test]
    fn the_booking_log_and_change_counts() {
        let mut store = Store::new(3);
        let mut c = store.cluster();
        c.book(&[0, 1], run(1, 0, 10)).unwrap();
        let t0 = c.tightened();
        c.book(&[2], place(2, 5, 20)).unwrap();
        c.book(&[0], run(3, 30, 40)).unwrap();
        let since: Vec<Logged> = c.booked_since(t0).unwrap().collect();
        assert_eq!(
            since,
            vec![
                Logged {
                    start: 5,
                    end: 20,
                    nodes: 1
                },
                Logged {
                    start: 30,
                    end: 40,
                    nodes: 1
                }
            ]
        );
        assert_eq!(c.booked_since(c.tightened()).unwrap().count(), 0);
        // Older than the log: unknown.
        for i in 0..BOOKING_LOG as u32 {
            c.book(&[1], run(100 + i, 100 + 2 * i as u64, 101 + 2 * i as u64))
                .unwrap();
        }
        assert!(c.booked_since(t0).is_none());
        // Only freeing time loosens: an on-time end and a prune do not, a place-holder
        // cleared, an early end and a reservation taken back do.
        let l = c.loosened();
        c.prune(m(12));
        assert_eq!(c.complete_from(TaskId(1), m(0), m(10)), 0, "pruned already");
        assert_eq!(c.loosened(), l);
        c.clear_place_holders();
        assert_eq!(c.loosened(), l + 1);
        c.clear_place_holders();
        assert_eq!(c.loosened(), l + 1, "nothing to clear");
        assert_eq!(c.complete_from(TaskId(3), m(30), m(35)), 1);
        assert_eq!(c.loosened(), l + 2);
        assert_eq!(c.remove_task_from(TaskId(100), m(100)), 1);
        assert_eq!(c.loosened(), l + 3);
    }

    #[test]
    fn a_wrapped_stamp_forgets_every_old_mark() {
        let mut store = Store::new(2);
        let mut c = store.cluster();
        give_index(&mut c, ClusterTimeline::index_work_len(2));
        c.book(&[0, 1], run(1, 10, 20)).unwrap();
        assert!(c.fresh_index());
        // Group 0 as a change stamped 1 touched it, 2^32 changes ago: the next change's stamp
        // wraps round to 1 and must not take the group for one it has already checked and
        // counted (it would then be neither checked for an overlap nor booked).
        c.groups.mark[0] = 1;
        c.groups.stamp = u32::MAX;
        c.book(&[0], run(2, 30, 40)).unwrap();
        assert_eq!(
            c.node(0).unwrap().bookings(),
            &[run(1, 10, 20), run(2, 30, 40)]
        );
        assert_eq!(c.node(1).unwrap().bookings(), &[run(1, 10, 20)]);
        assert_eq!(c.groups(), 2);
        assert_eq!(c.index.as_ref().unwrap().built, Some(c.version));
        index_is_its_rebuild(&mut c).unwrap();
        c.groups.mark[0] = 1;
        c.groups.stamp = u32::MAX;
        assert_eq!(
            c.book(&[0], run(3, 15, 25)),
            Err(Error::Input(InputError::Overlap))
        );
    }

    #[test]
    fn removing_by_start_equals_removing_by_scan() {
        let book_all = |c: &mut ClusterTimeline<'_>| {
            c.book(&[0, 2], run(1, 0, 10)).unwrap();
            c.book(&[1], run(2, 0, 30)).unwrap();
            c.book(&[0, 1, 2], run(3, 40, 50)).unwrap();
        };
        let (mut a, mut b) = (Store::new(3), Store::new(3));
        let (mut ca, mut cb) = (a.cluster(), b.cluster());
        book_all(&mut ca);
        book_all(&mut cb);
        assert_eq!(
            ca.mark_running_from(TaskId(3), m(40)),
            cb.mark_running(TaskId(3))
        );
        assert_eq!(
            ca.complete_from(TaskId(1), m(0), m(8)),
            cb.complete(TaskId(1), m(8))
        );
        assert_eq!(
            ca.remove_task_from(TaskId(3), m(40)),
            cb.remove_task(TaskId(3))
        );
        assert_eq!(ca.remove_task_from(TaskId(9), m(40)), 0, "no such task");
        assert_eq!(ca.loosened(), cb.loosened());
        for (x, y) in ca.nodes().zip(cb.nodes()) {
            assert_eq!(x.bookings(), y.bookings());
        }
    }

    #[test]
    fn free_over_counts_up_to_what_is_wanted() {
        let mut store = Store::new(4);
        let mut c = store.cluster();
        c.book(&[0], run(1, 0, 10)).unwrap();
        c.book(&[1], run(2, 20, 30)).unwrap();
        assert_eq!(c.free_over(m(0), m(20), u32::MAX), 3);
        assert_eq!(c.free_over(m(10), m(20), u32::MAX), 4);
        assert_eq!(c.free_over(m(10), m(20), 2), 2);
        assert_eq!(c.free_over(m(0), m(100), u32::MAX), 2);
    }

    #[test]
    fn free_node_time_counts_unbooked_time() {
        let mut store = Store::new(2);
        let mut c = store.cluster();
        c.book(&[0], run(1, 0, 30)).unwrap();
        c.book(&[1], place(2, 50, 150)).unwrap();
        // [10, 100): node 0 free 70, node 1 free 40.
        assert_eq!(c.free_node_time(m(10), m(100)), 110);
    }

    /// Several groups with equal voids at the margin of a choice: their lowest nodes are
    /// merged by index, as node by node.
    #[test]
    fn a_choice_takes_the_lowest_nodes_of_groups_with_equal_voids() {
        let mut store = Store::new(10);
        let mut c = store.cluster();
        // Three groups, each free over [10, 100) (told apart by their tasks), and node 9 free
        // over [10, 30) exactly.
        for (g, task) in [([0, 3, 6], 1), ([1, 4, 7], 3), ([2, 5, 8], 5)] {
            c.book(&g, run(task, 0, 10)).unwrap();
            c.book(&g, run(task + 1, 100, 110)).unwrap();
        }
        c.book(&[9], run(7, 0, 10)).unwrap();
        c.book(&[9], run(8, 30, 40)).unwrap();
        assert_eq!(c.groups(), 4);
        let mut keys = [0u64; 8];
        let choose = |k: usize, keys: &mut [u64]| {
            let mut out = vec![0u32; k];
            let got = c.choose_nodes(m(10), m(10), m(20), &mut out, keys);
            out.truncate(got);
            out
        };
        assert_eq!(choose(1, &mut keys), [9]);
        assert_eq!(choose(5, &mut keys), [0, 1, 2, 3, 9]);
        assert_eq!(choose(8, &mut keys), [0, 1, 2, 3, 4, 5, 6, 9]);
        assert_eq!(choose(11, &mut keys), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        // Keys for fewer than two entries a group: no choice.
        assert!(choose(5, &mut keys[..7]).is_empty());
        for k in 1..=10 {
            assert_eq!(choose(k, &mut keys), chosen_by_nodes(&c, 10, 10, 20, k));
        }
    }

    #[test]
    fn booking_a_choice_needs_keys_for_every_group() {
        let mut st = Store::new(4);
        let mut c = st.cluster();
        c.book(&[1], run(1, 0, 10)).unwrap();
        c.book(&[3], run(2, 5, 10)).unwrap();
        assert_eq!(c.groups(), 3);
        let mut short = [0u64; 5];
        let err = c.book_chosen(m(0), 2, place(3, 20, 30), &mut short);
        assert!(matches!(err, Err(Error::Capacity(_))), "{err:?}");
        assert_eq!(c.booked, 2, "nothing booked");
        let mut keys = [0u64; 6];
        // Only node 0 and 2 are free over [0, 10): not 3 of them, and nothing changes.
        assert_eq!(
            c.book_chosen(m(0), 3, place(3, 0, 10), &mut keys),
            Ok(false)
        );
        assert_eq!(c.booked, 2);
        assert_eq!(c.book_chosen(m(0), 2, place(3, 0, 10), &mut keys), Ok(true));
        assert_eq!(c.node(0).unwrap().bookings()[0].task, TaskId(3));
        assert_eq!(c.node(2).unwrap().bookings()[0].task, TaskId(3));
        assert_eq!(c.held(), 2);
    }

    #[test]
    fn a_copy_is_the_cluster_it_copies() {
        let (mut a, mut b, mut other) = (Store::new(4), Store::new(4), Store::new(3));
        let (mut src, mut dst, mut small) = (a.cluster(), b.cluster(), other.cluster());
        src.book(&[0, 1, 2], run(1, 10, 20)).unwrap();
        src.book(&[1], place(2, 30, 40)).unwrap();
        src.prune(m(5));
        // The copy's own bookings and history go (no booking of its own ended before 50).
        dst.book(&[3], run(9, 0, 50)).unwrap();
        dst.copy_from(&src).unwrap();
        for i in 0..4 {
            assert_eq!(
                dst.node(i).unwrap().bookings(),
                src.node(i).unwrap().bookings()
            );
        }
        groups_are_a_partition(&dst).unwrap();
        assert_eq!((dst.groups(), dst.held(), dst.tightened()), (3, 1, 2));
        assert_eq!(dst.free_over(m(15), m(35), u32::MAX), 1);
        assert_eq!(dst.free_over(m(25), m(28), u32::MAX), 4);
        assert!(small.copy_from(&src).is_err(), "a cluster of another size");
    }

    /// Brute force: try t and every booking end after it, in order.
    fn brute(nodes: &[Vec<(u64, u64)>], t: u64, k: usize, d: u64) -> Option<u64> {
        let mut cands: Vec<u64> = vec![t];
        for n in nodes {
            for &(_, e) in n {
                if e > t {
                    cands.push(e);
                }
            }
        }
        cands.sort();
        for s in cands {
            let free = nodes
                .iter()
                .filter(|n| n.iter().all(|&(a, b)| b <= s || a >= s + d))
                .count();
            if free >= k {
                return Some(s);
            }
        }
        None
    }

    /// The node choice node by node (seed 000 §III.F): every node free over `[s, s + d)`,
    /// keyed by (new idle voids, void size, node index) with its void starting no earlier
    /// than `now`, sorted; the first `k`, in node order.
    fn chosen_by_nodes(c: &ClusterTimeline<'_>, now: u64, s: u64, d: u64, k: usize) -> Vec<u32> {
        let e = s + d;
        let mut keyed: Vec<(u64, u64, u32)> = c
            .nodes()
            .enumerate()
            .filter_map(|(i, node)| {
                let (a, b) = node.void_around(m(s), m(e))?;
                let (a, b) = (a.0.max(now), b.0);
                let new = (s > a) as u64 + (b != u64::MAX && e < b) as u64;
                let size = if b == u64::MAX { u64::MAX } else { b - a };
                Some((new, size, i as u32))
            })
            .collect();
        keyed.sort_unstable();
        let mut out: Vec<u32> = keyed.iter().take(k).map(|x| x.2).collect();
        out.sort_unstable();
        out
    }

    fn arb_cluster() -> impl Strategy<Value = Vec<Vec<(u64, u64)>>> {
        prop::collection::vec(prop::collection::vec((0u64..200, 1u64..40), 0..5), 1..7).prop_map(
            |nodes| {
                nodes
                    .into_iter()
                    .map(|raw| {
                        // Turn (gap, length) pairs into sorted, disjoint bookings.
                        let mut t = 0;
                        let mut v = Vec::new();
                        for (gap, len) in raw {
                            let s = t + gap % 50;
                            v.push((s, s + len));
                            t = s + len;
                        }
                        v
                    })
                    .collect()
            },
        )
    }

    fn build<'a>(
        store: &'a mut Store,
        nodes: &[Vec<(u64, u64)>],
        placeholders: bool,
    ) -> ClusterTimeline<'a> {
        let mut c = store.cluster();
        let mut id = 0;
        for (i, n) in nodes.iter().enumerate() {
            for &(s, e) in n {
                id += 1;
                let b = if placeholders && id % 2 == 0 {
                    place(id, s, e)
                } else {
                    run(id, s, e)
                };
                c.book(&[i as u32], b).unwrap();
            }
        }
        c
    }

    /// The cluster's (fresh) void index equals the one a rebuild gives.
    fn index_is_its_rebuild(c: &mut ClusterTimeline<'_>) -> Result<(), TestCaseError> {
        let ix = c.index.as_ref().unwrap();
        let (a, b) = (ix.by_start[..ix.len].to_vec(), ix.by_end[..ix.len].to_vec());
        c.index.as_mut().unwrap().built = None;
        prop_assert!(c.fresh_index());
        let ix = c.index.as_ref().unwrap();
        prop_assert_eq!(&a[..], &ix.by_start[..ix.len]);
        prop_assert_eq!(&b[..], &ix.by_end[..ix.len]);
        Ok(())
    }

    /// Node `i`'s voids, `[a, b)` in time order, from its bookings.
    fn voids_of(c: &ClusterTimeline<'_>, i: u32) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        let mut a = 0;
        for b in c.node(i).unwrap().bookings() {
            if b.start.0 > a {
                v.push((a, b.start.0));
            }
            a = b.end.0;
        }
        v.push((a, u64::MAX));
        v
    }

    /// The cluster's (fresh) void index holds every node's voids: each distinct void once,
    /// weighted by the nodes that have it, sorted both ways with the weights before each
    /// summed.
    fn index_is_every_nodes_voids(c: &ClusterTimeline<'_>) -> Result<(), TestCaseError> {
        let ix = c.index.as_ref().unwrap();
        let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
        prop_assert!(starts
            .windows(2)
            .all(|w| by_start_key(&w[0]) < by_start_key(&w[1])));
        prop_assert!(ends
            .windows(2)
            .all(|w| by_end_key(&w[0]) < by_end_key(&w[1])));
        for side in [starts, ends] {
            let mut w = 0;
            for v in side {
                prop_assert_eq!(v.before, w);
                w += v.weight;
            }
            prop_assert_eq!(ix.total, w);
        }
        // The same voids both ways.
        let (mut a, mut b) = (starts.to_vec(), ends.to_vec());
        for v in a.iter_mut().chain(b.iter_mut()) {
            v.before = 0;
        }
        a.sort_unstable_by_key(by_start_key);
        b.sort_unstable_by_key(by_start_key);
        prop_assert_eq!(&a, &b);
        let indexed: Vec<(u64, u64, u32)> =
            starts.iter().map(|v| (v.start, v.end, v.weight)).collect();
        // Those that end after the horizon (no query starts before it), counted by void.
        let h = c.horizon.0;
        let mut held: Vec<(u64, u64)> = (0..c.slots.len() as u32)
            .flat_map(|i| voids_of(c, i))
            .filter(|&(_, b)| b > h)
            .collect();
        held.sort_unstable();
        let mut counted: Vec<(u64, u64, u32)> = Vec::new();
        for (a, b) in held {
            match counted.last_mut() {
                Some(last) if (last.0, last.1) == (a, b) => last.2 += 1,
                _ => counted.push((a, b, 1)),
            }
        }
        prop_assert_eq!(indexed, counted);
        Ok(())
    }

    /// Distinct groups hold distinct bookings (as after a merge).
    fn groups_are_distinct(c: &ClusterTimeline<'_>) -> Result<(), TestCaseError> {
        let live = c.groups.live();
        for (i, &a) in live.iter().enumerate() {
            for &b in &live[i + 1..] {
                prop_assert_ne!(
                    c.slots[a as usize].bookings(),
                    c.slots[b as usize].bookings(),
                    "groups {} and {} hold the same bookings",
                    a,
                    b
                );
            }
        }
        Ok(())
    }

    /// The groups partition the nodes: each group's list starts at its name and goes up in
    /// node order, `of` names each member's group (no node left marked taken), the sizes
    /// are the lists' lengths and add up to the nodes, and each group's span is its
    /// bookings'.
    fn groups_are_a_partition(c: &ClusterTimeline<'_>) -> Result<(), TestCaseError> {
        let (n, gr) = (c.slots.len(), &c.groups);
        prop_assert_eq!(c.groups(), gr.count);
        let mut seen = vec![false; n];
        let mut total = 0;
        for &g in gr.live() {
            prop_assert_eq!(gr.span(g), Span::of(c.slots[g as usize].bookings()));
            // No more than every node, should a list run in a circle.
            let list: Vec<u32> = gr.members(g).take(n + 1).collect();
            prop_assert_eq!(list.first(), Some(&g), "group {} starts at its name", g);
            prop_assert!(
                list.windows(2).all(|w| w[0] < w[1]),
                "group {} in node order: {:?}",
                g,
                list
            );
            prop_assert_eq!(list.len(), gr.size[g as usize] as usize);
            for &x in &list {
                prop_assert_eq!(gr.of[x as usize], g, "node {} of group {}", x, g);
                prop_assert!(!seen[x as usize], "node {} in two groups", x);
                seen[x as usize] = true;
            }
            total += list.len();
        }
        prop_assert_eq!(total, n);
        for g in 0..n as u32 {
            if !gr.live().contains(&g) {
                prop_assert_eq!(gr.size[g as usize], 0, "no group is named {}", g);
            }
        }
        Ok(())
    }

    /// Every node's bookings, kept node by node: what the cluster must show.
    type Model = Vec<Vec<Booking>>;

    /// Books `nodes` in the model, all or nothing, as the cluster must; whether it could.
    fn model_book(model: &mut Model, nodes: &[u32], b: Booking) -> bool {
        for (j, &x) in nodes.iter().enumerate() {
            let Some(bs) = model.get(x as usize) else {
                return false;
            };
            if nodes[..j].contains(&x) || bs.iter().any(|o| o.start < b.end && b.start < o.end) {
                return false;
            }
        }
        for &x in nodes {
            let bs = &mut model[x as usize];
            let i = bs.partition_point(|o| o.start < b.start);
            bs.insert(i, b);
        }
        true
    }

    /// The cluster shows the model: every node's bookings and the counts; nodes of a group
    /// have equal bookings, and the groups partition the nodes. Its index, when fresh, holds
    /// every node's voids.
    fn shows(c: &ClusterTimeline<'_>, model: &Model) -> Result<(), TestCaseError> {
        groups_are_a_partition(c)?;
        prop_assert_eq!(c.nodes().len(), model.len());
        for (i, (node, bs)) in c.nodes().zip(model).enumerate() {
            prop_assert_eq!(node.bookings(), &bs[..], "node {}", i);
        }
        for &g in c.groups.live() {
            for x in c.groups.members(g) {
                prop_assert_eq!(&model[x as usize], &model[g as usize]);
            }
        }
        let all = || model.iter().flatten();
        let held = all().filter(|b| b.kind == BookingKind::PlaceHolder).count();
        prop_assert_eq!(c.held() as usize, held);
        prop_assert_eq!(c.booked as usize, all().count());
        prop_assert!(all().all(|b| c.first_end <= b.end));
        if c.index_fresh() {
            index_is_every_nodes_voids(c)?;
        }
        Ok(())
    }

    /// One step of a random history: what (see [`step`]), nodes (a mask), then three numbers.
    type Op = (u8, u32, u64, u64, u64);

    fn arb_ops(most: usize) -> impl Strategy<Value = Vec<Op>> {
        prop::collection::vec(
            (0u8..10, any::<u32>(), 0u64..12, 1u64..5, 0u64..64),
            1..most,
        )
    }

    /// Applies `op` (the `i`-th of a history) to the cluster and to the model, checking what
    /// the cluster answers against the model; returns whether the change ended in a merge.
    /// Times are multiples of 10, so that groups often have equal voids, and every booking is
    /// a task of its own (named by `i`), so that groups are split and joined again.
    fn step(
        c: &mut ClusterTimeline<'_>,
        model: &mut Model,
        i: usize,
        op: Op,
        bufs: &mut Bufs,
    ) -> Result<bool, TestCaseError> {
        let n = model.len() as u32;
        let (what, mask, a, len, x) = op;
        let mut nodes: Vec<u32> = (0..n).filter(|&j| j < 32 && mask >> j & 1 == 1).collect();
        let (s, e, d) = (a * 10, (a + len) * 10, len * 10);
        let task = TaskId(1 + i as u32);
        let kinds = [
            BookingKind::Running,
            BookingKind::PlaceHolder,
            BookingKind::Reserved,
        ];
        match what {
            // Any nodes (in either order): taken whole, in part, or refused on an overlap.
            0..=2 => {
                let b = Booking {
                    start: m(s),
                    end: m(e),
                    task,
                    kind: kinds[what as usize],
                };
                if x % 2 == 1 {
                    nodes.reverse();
                }
                let ok = model_book(model, &nodes, b);
                prop_assert_eq!(c.book(&nodes, b).is_ok(), ok);
            }
            // A list refused whole: a node twice or one the cluster does not have, anywhere.
            3 => {
                let bad = match nodes.first() {
                    Some(&f) if x % 2 == 0 => f,
                    _ => n,
                };
                let at = x as usize % (nodes.len() + 1);
                nodes.insert(at, bad);
                prop_assert!(c.book(&nodes, run(task.0, s, e)).is_err());
            }
            // Chosen and booked in one step, where the nodes may not be free: the nodes
            // chosen one by one, or nothing at all.
            4 if x / 3 % 3 == 2 => {
                // No choice starts before the last prune's `now`.
                let (s, e) = (s.max(c.horizon.0), s.max(c.horizon.0) + d);
                let k = nodes.len().max(1) as u32;
                let want = chosen_by_nodes(c, s, s, d, k as usize);
                let b = Booking {
                    start: m(s),
                    end: m(e),
                    task,
                    kind: kinds[x as usize % 3],
                };
                let mut keys = vec![0u64; 2 * c.groups()];
                let ok = c.book_chosen(m(s), k, b, &mut keys).unwrap();
                prop_assert_eq!(ok, want.len() == k as usize);
                if ok {
                    prop_assert!(model_book(model, &want, b));
                }
            }
            // The controller's way: the earliest start, the nodes chosen there (and booked
            // by the list, or chosen and booked in one step).
            4 => {
                let s = s.max(c.horizon.0);
                let k = nodes.len().max(1) as u32;
                let fit = c.earliest_start(m(s), NodeCount(k), m(d), &mut bufs.scratch());
                if let (Some(f), true) = (fit.as_ref().unwrap(), x / 3 % 3 == 1) {
                    let want = chosen_by_nodes(c, s, f.start.0, d, k as usize);
                    let b = Booking {
                        start: f.start,
                        end: m(f.start.0 + d),
                        task,
                        kind: kinds[x as usize % 3],
                    };
                    let mut keys = vec![0u64; 2 * c.groups()];
                    prop_assert!(c.book_chosen(m(s), k, b, &mut keys).unwrap());
                    prop_assert!(model_book(model, &want, b));
                } else if let Some(f) = fit.unwrap() {
                    let mut out = vec![0u32; k as usize];
                    let mut keys = vec![0u64; 2 * c.groups()];
                    let got = c.choose_nodes(m(s), f.start, m(d), &mut out, &mut keys);
                    prop_assert_eq!(got, k as usize);
                    prop_assert_eq!(&out, &chosen_by_nodes(c, s, f.start.0, d, k as usize));
                    let b = Booking {
                        start: f.start,
                        end: m(f.start.0 + d),
                        task,
                        kind: kinds[x as usize % 3],
                    };
                    prop_assert!(model_book(model, &out, b));
                    prop_assert!(c.book(&out, b).is_ok());
                }
            }
            5 => {
                let had = model
                    .iter()
                    .flatten()
                    .any(|b| b.kind == BookingKind::PlaceHolder);
                c.clear_place_holders();
                for bs in model.iter_mut() {
                    bs.retain(|b| b.kind != BookingKind::PlaceHolder);
                }
                return Ok(had);
            }
            6 => {
                let before: usize = model.iter().map(Vec::len).sum();
                c.prune(m(s));
                for bs in model.iter_mut() {
                    bs.retain(|b| b.end.0 > s);
                }
                return Ok(model.iter().map(Vec::len).sum::<usize>() < before);
            }
            // A task booked now ended, taken back, or started, each of the ways there are.
            7 | 8 => {
                // Only a reservation starts (a place-holder is cleared, never started).
                let all: Vec<Booking> = model
                    .iter()
                    .flatten()
                    .filter(|b| what == 7 || b.kind != BookingKind::PlaceHolder)
                    .copied()
                    .collect();
                let Some(&b) = all.get(x as usize % all.len().max(1)) else {
                    return Ok(false);
                };
                let on = model
                    .iter()
                    .filter(|bs| bs.iter().any(|o| o.task == b.task))
                    .count() as u32;
                let at = m(s.min(b.end.0));
                let got = match (what, len) {
                    (7, 1) => c.remove_task_from(b.task, b.start),
                    (7, 2) => c.remove_task(b.task),
                    (7, 3) => c.complete(b.task, at),
                    (7, _) => c.complete_from(b.task, b.start, at),
                    (_, 1 | 2) => c.mark_running(b.task),
                    _ => c.mark_running_from(b.task, b.start),
                };
                prop_assert_eq!(got, on);
                for bs in model.iter_mut() {
                    if what == 7 {
                        bs.retain(|o| o.task != b.task);
                    } else {
                        for o in bs.iter_mut().filter(|o| o.task == b.task) {
                            o.kind = BookingKind::Running;
                        }
                    }
                }
            }
            _ => {
                c.merge();
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// What can be seen of a cluster from outside: every node's bookings, the counts and
    /// history, free nodes and earliest starts (and the nodes chosen there) for `queries`.
    fn observe(c: &mut ClusterTimeline<'_>, queries: &[(u64, u32, u64)]) -> Vec<String> {
        let n = c.slots.len();
        let mut seen: Vec<String> = c
            .nodes()
            .map(|node| format!("{:?}", node.bookings()))
            .collect();
        seen.push(format!(
            "held {} loosened {} base {} tightened {} groups {}",
            c.held(),
            c.loosened(),
            c.base_loosened(),
            c.tightened(),
            c.groups()
        ));
        for back in [0, 1, 3, BOOKING_LOG as u32, BOOKING_LOG as u32 + 1] {
            let since = c.tightened().wrapping_sub(back);
            let log = c.booked_since(since).map(|l| l.collect::<Vec<_>>());
            seen.push(format!("{back}: {log:?}"));
        }
        let mut bufs = Bufs::new(n);
        for &(t, k, d) in queries {
            // No query starts before the last prune's `now`.
            let (t, d) = ((t * 10).max(c.horizon.0), d * 10);
            let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch());
            let fit = fit.unwrap();
            let mut out = vec![0u32; k as usize];
            let mut keys = vec![0u64; 2 * n];
            let got = fit.map(|f| c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys));
            seen.push(format!(
                "{t} {k} {d}: {fit:?} {got:?} {out:?} free {} {} node-time {}",
                c.free_over(m(t), m(t + d), u32::MAX),
                c.free_over(m(t), m(t + d), k),
                c.free_node_time(m(t), m(t + d))
            ));
        }
        seen
    }

    proptest! {
        #[test]
        fn earliest_start_agrees_with_brute_force(nodes in arb_cluster(), t in 0u64..300, k in 1usize..7, d in 1u64..80) {
            let mut store = Store::new(nodes.len());
            let mut c = build(&mut store, &nodes, false);
            let got = earliest(&mut c, t, k as u32, d);
            prop_assert_eq!(got, brute(&nodes, t, k, d));
            // And the nodes chosen there are really free, distinct, and as many as asked.
            if let Some(s) = got {
                let mut out = vec![0u32; k];
                let mut keys = vec![0u64; 2 * nodes.len()];
                prop_assert_eq!(c.choose_nodes(m(t), m(s), m(d), &mut out, &mut keys), k);
                for (i, &n) in out.iter().enumerate() {
                    prop_assert!(c.node(n).unwrap().is_free(m(s), m(s + d)));
                    prop_assert!(!out[..i].contains(&n));
                }
                prop_assert_eq!(&out, &chosen_by_nodes(&c, t, s, d, k));
            }
        }

        /// What a best's pruning before a query relies on: on the same nodes, a longer run
        /// never starts earlier than a shorter one.
        #[test]
        fn a_longer_run_starts_no_earlier(nodes in arb_cluster(), t in 0u64..300, k in 1usize..7, d in 1u64..80, more in 0u64..80) {
            let mut store = Store::new(nodes.len());
            let mut c = build(&mut store, &nodes, false);
            let short = earliest(&mut c, t, k as u32, d);
            let long = earliest(&mut c, t, k as u32, d + more);
            if let Some(l) = long {
                prop_assert!(short.is_some_and(|s| s <= l), "{:?} then {:?}", short, long);
            }
        }

        #[test]
        fn no_node_is_ever_booked_twice(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..7, 1u64..60), 1..20)) {
            let mut store = Store::new(nodes.len());
            let mut c = build(&mut store, &nodes, false);
            let mut bufs = Bufs::new(nodes.len());
            for (i, (t, k, d)) in reqs.into_iter().enumerate() {
                let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
                if let Some(f) = fit {
                    let mut out = vec![0u32; k as usize];
                    let mut keys = vec![0u64; 2 * nodes.len()];
                    let got = c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                    prop_assert_eq!(got, k as usize);
                    let b = run(1000 + i as u32, f.start.0, f.start.0 + d);
                    match c.book(&out, b) {
                        Ok(()) => {}
                        Err(Error::Capacity(_)) => {}
                        Err(e) => prop_assert!(false, "booking a chosen fit failed: {:?}", e),
                    }
                }
                // Every node's bookings stay sorted and disjoint.
                for n in c.nodes() {
                    for w in n.bookings().windows(2) {
                        prop_assert!(w[0].end <= w[1].start);
                    }
                }
            }
        }

        #[test]
        fn the_void_index_kept_across_bookings_equals_a_rebuild(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..7, 1u64..60), 1..25)) {
            let mut store = Store::new(nodes.len());
            let mut c = build(&mut store, &nodes, false);
            let l = ClusterTimeline::scratch_len(nodes.len());
            // Work room for any change here, so that every one is applied in place: a split
            // group's voids go, and come again in both parts (at most 31 voids a node here).
            c.set_index(leak(l), leak(l), leak(128 * nodes.len()));
            let mut bufs = Bufs::new(nodes.len());
            let mut incremental = 0;
            for (i, (t, k, d)) in reqs.into_iter().enumerate() {
                let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
                let swept = c.swept_earliest(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
                prop_assert_eq!(fit, swept);
                if let Some(f) = fit {
                    let mut out = vec![0u32; k as usize];
                    let mut keys = vec![0u64; 2 * nodes.len()];
                    c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                    // The choice by groups is the choice node by node, and the counts of free
                    // nodes read off the index are those from every group's timeline.
                    prop_assert_eq!(&out, &chosen_by_nodes(&c, t, f.start.0, d, k as usize));
                    for (s, e) in [(t, t + d), (f.start.0, f.start.0 + d), (t, t + 1), (t + d, t + 3 * d)] {
                        prop_assert_eq!(
                            c.free_over_by(true, m(s), m(e), u32::MAX),
                            c.free_over_by(false, m(s), m(e), u32::MAX)
                        );
                    }
                    if c.book(&out, run(2000 + i as u32, f.start.0, f.start.0 + d)).is_ok() {
                        // Every third booking is taken back again (a reservation given up):
                        // the joined voids must equal a rebuild too.
                        if i % 3 == 2 {
                            prop_assert_eq!(c.remove_task_from(TaskId(2000 + i as u32), f.start), k);
                        }
                        // Nothing to clear or prune: the index stays as it is.
                        c.clear_place_holders();
                        c.prune(m(0));
                        // Kept current, not left to a rebuild.
                        prop_assert_eq!(c.index.as_ref().unwrap().built, Some(c.version));
                        incremental += 1;
                        index_is_its_rebuild(&mut c)?;
                    }
                }
            }
            let _ = incremental;
        }

        #[test]
        fn the_index_through_events_holds_every_nodes_voids(nodes in arb_cluster(), ops in prop::collection::vec((0u8..4, 0u64..300, 1u32..5, 1u64..60), 1..40)) {
            let mut store = Store::new(nodes.len());
            let mut c = build(&mut store, &nodes, false);
            let l = ClusterTimeline::scratch_len(nodes.len());
            c.set_index(leak(l), leak(l), leak(ClusterTimeline::index_work_len(nodes.len())));
            let mut bufs = Bufs::new(nodes.len());
            let mut live: Vec<(u32, u64, u64)> = Vec::new();
            let mut fresh = 0;
            for (i, &(op, t, k, d)) in ops.iter().enumerate() {
                let id = 7000 + i as u32;
                match op {
                    // An event: the place-holders go, and what ended by t.
                    0 => {
                        let had = c.held > 0;
                        c.clear_place_holders();
                        let before: Vec<Vec<Booking>> = c.nodes().map(|n| n.bookings().to_vec()).collect();
                        c.prune(m(t));
                        for (n, b) in c.nodes().zip(before) {
                            let kept: Vec<Booking> = b.into_iter().filter(|b| b.end.0 > t).collect();
                            prop_assert_eq!(n.bookings(), &kept[..]);
                        }
                        live.retain(|&(_, _, e)| e > t);
                        // Place-holders cleared: the groups they split apart are one again.
                        if had {
                            groups_are_distinct(&c)?;
                        }
                    }
                    // A reservation or a place-holder at the earliest start.
                    1 | 2 => {
                        if let Some(f) = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap() {
                            let mut out = vec![0u32; k as usize];
                            let mut keys = vec![0u64; 2 * nodes.len()];
                            c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                            let b = if op == 1 { run(id, f.start.0, f.start.0 + d) } else { place(id, f.start.0, f.start.0 + d) };
                            if c.book(&out, b).is_ok() && op == 1 {
                                live.push((id, f.start.0, f.start.0 + d));
                            }
                        }
                    }
                    // A reservation taken back.
                    _ => {
                        if let Some((id, s, _)) = live.pop() {
                            prop_assert!(c.remove_task_from(TaskId(id), m(s)) > 0);
                        }
                    }
                }
                let held = c.nodes().flat_map(|n| n.bookings()).filter(|b| b.kind == BookingKind::PlaceHolder).count();
                prop_assert_eq!(c.held as usize, held);
                let booked: usize = c.nodes().map(|n| n.bookings().len()).sum();
                prop_assert_eq!(c.booked as usize, booked);
                let first_end = c.nodes().flat_map(|n| n.bookings()).map(|b| b.end).min();
                prop_assert!(first_end.is_none_or(|e| c.first_end <= e));
                // The index, when fresh (kept through the change or rebuilt by a query), holds
                // every node's voids.
                if c.index.as_ref().unwrap().built == Some(c.version) {
                    fresh += 1;
                    index_is_every_nodes_voids(&c)?;
                }
                // And the index, when fresh, is its own rebuild.
                if c.index.as_ref().unwrap().built == Some(c.version) {
                    index_is_its_rebuild(&mut c)?;
                }
            }
            let _ = fresh;
        }

        #[test]
        fn clearing_place_holders_restores_the_state_before_them(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..4, 1u64..60), 1..10)) {
            let mut store = Store::new(nodes.len());
            let mut c = build(&mut store, &nodes, false);
            let before: Vec<Vec<Booking>> = c.nodes().map(|n| n.bookings().to_vec()).collect();
            let groups = c.groups();
            let mut bufs = Bufs::new(nodes.len());
            for (i, (t, k, d)) in reqs.into_iter().enumerate() {
                if let Some(f) = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap() {
                    let mut out = vec![0u32; k as usize];
                    let mut keys = vec![0u64; 2 * nodes.len()];
                    c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                    let _ = c.book(&out, place(5000 + i as u32, f.start.0, f.start.0 + d));
                }
            }
            c.clear_place_holders();
            let after: Vec<Vec<Booking>> = c.nodes().map(|n| n.bookings().to_vec()).collect();
            prop_assert_eq!(before, after);
            // And the groups the place-holders split are one again.
            prop_assert_eq!(c.groups(), groups);
        }

        #[test]
        fn groups_stay_a_partition_of_nodes_with_equal_bookings(n in 1usize..24, ops in arb_ops(60), room in 0usize..4) {
            let mut store = Store::new(n);
            let mut c = store.cluster();
            // An index with room for every void, or with too little room to apply some changes
            // (they are then rebuilt) or to hold every void (the sweep answers instead).
            let l = ClusterTimeline::scratch_len(n);
            let w = ClusterTimeline::index_work_len(n);
            let (voids, work) = [(l, w), (l, n), (2 * n, w), (n, 2)][room];
            c.set_index(leak(voids), leak(voids), leak(work));
            let mut model: Model = vec![Vec::new(); n];
            let mut bufs = Bufs::new(n);
            for (i, &op) in ops.iter().enumerate() {
                let merged = step(&mut c, &mut model, i, op, &mut bufs)?;
                shows(&c, &model)?;
                if merged {
                    groups_are_distinct(&c)?;
                }
                // A query after each change: from the index (kept through it, or rebuilt) as
                // by the sweep.
                let (_, mask, a, len, _) = op;
                let t = m((a * 10).max(c.horizon.0));
                let (k, d) = (NodeCount(1 + mask % n as u32), m(len * 10));
                let fit = c.earliest_start(t, k, d, &mut bufs.scratch()).unwrap();
                prop_assert_eq!(fit, c.swept_earliest(t, k, d, &mut bufs.scratch()).unwrap());
                shows(&c, &model)?;
            }
            // A merge leaves one group for each distinct list of bookings, and the nodes'
            // bookings as they were.
            c.merge();
            shows(&c, &model)?;
            groups_are_distinct(&c)?;
            let distinct = (0..n).filter(|&i| !model[..i].contains(&model[i])).count();
            prop_assert_eq!(c.groups(), distinct);
        }

        #[test]
        fn choose_nodes_is_the_node_by_node_choice(n in 1usize..16, ops in arb_ops(30), queries in prop::collection::vec((0u64..12, 0u64..12, 1u64..5, 1usize..17), 1..12)) {
            let mut store = Store::new(n);
            let mut c = store.cluster();
            let mut model: Model = vec![Vec::new(); n];
            let mut bufs = Bufs::new(n);
            for (i, &op) in ops.iter().enumerate() {
                step(&mut c, &mut model, i, op, &mut bufs)?;
            }
            shows(&c, &model)?;
            for (now, s, d, k) in queries {
                let (now, s, d) = (now.min(s) * 10, s * 10, d * 10);
                // Nothing starts before the last prune's `now`.
                let (now, s) = (now.max(c.horizon.0), s.max(c.horizon.0));
                let mut out = vec![0u32; k];
                // Exactly the keys it needs.
                let mut keys = vec![0u64; 2 * c.groups()];
                let got = c.choose_nodes(m(now), m(s), m(d), &mut out, &mut keys);
                out.truncate(got);
                prop_assert_eq!(&out, &chosen_by_nodes(&c, now, s, d, k), "now {} s {} d {} k {}", now, s, d, k);
            }
        }

        #[test]
        fn a_copy_is_its_source_in_every_observable(n in 1usize..12, ops in arb_ops(40), mine in arb_ops(20), after in arb_ops(20), queries in prop::collection::vec((0u64..12, 1u32..13, 1u64..5), 1..6)) {
            let queries: Vec<(u64, u32, u64)> = queries.into_iter().map(|(t, k, d)| (t, 1 + (k - 1) % n as u32, d)).collect();
            let (mut a, mut b) = (Store::new(n), Store::new(n));
            let (mut src, mut dst) = (a.cluster(), b.cluster());
            give_index(&mut src, ClusterTimeline::index_work_len(n));
            let (mut model, mut other): (Model, Model) = (vec![Vec::new(); n], vec![Vec::new(); n]);
            let mut bufs = Bufs::new(n);
            for (i, &op) in ops.iter().enumerate() {
                step(&mut src, &mut model, i, op, &mut bufs)?;
            }
            // The copy had bookings and a history of its own.
            for (i, &op) in mine.iter().enumerate() {
                step(&mut dst, &mut other, 1000 + i, op, &mut bufs)?;
            }
            dst.copy_from(&src).unwrap();
            shows(&dst, &model)?;
            prop_assert_eq!(observe(&mut dst, &queries), observe(&mut src, &queries));
            // And it goes on as its source would.
            let mut copied = model.clone();
            for (i, &op) in after.iter().enumerate() {
                step(&mut src, &mut model, 2000 + i, op, &mut bufs)?;
                step(&mut dst, &mut copied, 2000 + i, op, &mut bufs)?;
                shows(&dst, &copied)?;
                prop_assert_eq!(observe(&mut dst, &queries), observe(&mut src, &queries));
            }
        }
    }
}

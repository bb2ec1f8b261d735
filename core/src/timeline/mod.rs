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
//! writing to every node it takes, and a cluster holds far fewer groups than nodes. Groups
//! whose bookings become equal again (place-holders cleared, tasks ended) are merged. Every
//! answer is the node-by-node one.
//!
//! The earliest-start query turns every void `[a, b)` into the interval of starts it admits,
//! `[max(a, t), b - d]`, and looks for the first start covered by `k` nodes' voids. Voids of
//! one node are disjoint, so coverage counts distinct nodes. With the admitted intervals
//! sorted by their first and by their last start, coverage at `s` is `#{first <= s} -
//! #{last < s}`, and a single two-pointer sweep finds the answer: O(V log V) for V voids, or
//! O(log V) plus the walk to the answer with the void index (every distinct void once,
//! weighted by the nodes that have it, kept sorted both ways). Queries start at or after the
//! last prune's `now` (the horizon), so the index leaves out the voids that end by then.
//!
//! # Files, one idea each
//!
//! - `node.rs`: a [`Booking`] and a [`NodeTimeline`], one node's (or group's) sorted
//!   bookings and the voids between them. It knows nothing of clusters.
//! - `groups.rs`: the partition of the nodes into groups with equal bookings, over the
//!   caller's `members` storage; a group split in two by a booking that takes part of it,
//!   and groups merged once their bookings are equal again.
//! - `void_index.rs`: the [`Void`] index, every node's voids counted by void and sorted by
//!   start and by end, rebuilt from the groups or kept current by each change's edits.
//! - `earliest.rs`: the earliest start ([`Fit`]), from the index or by sorting in the
//!   caller's [`Scratch`] (a sweep by groups, or by nodes when times are too far to pack),
//!   and the counts of free nodes and free node-time.
//! - `choice.rs`: node choice and booking: which nodes a booking takes, and adding it.
//! - `in_place.rs`: whether a reservation taken back and booked again at the same start
//!   would come back on the same nodes (EASY's head, kept instead of re-placed).
//! - `stays.rs`: whether a reservation taken back, asked its earliest start and booked
//!   again would come back at the same start on the same nodes (Conservative's compression
//!   keeps it instead).
//! - `ignoring.rs`: whether a booked reservation could start earlier were its own booking
//!   taken back, without taking it back (EASY's head after an early completion).
//! - `service.rs`: a node out of service, blocked by a booking to the end of time.
//! - `release.rs`: bookings given back (place-holders cleared, tasks ended or taken back,
//!   ended bookings pruned) and reservations that start running.
//! - this file: the [`ClusterTimeline`] itself, its constructor and copy, the change counts
//!   the controller's fit memo reads, and the helpers every file shares (a group's void, the
//!   version that says whether the index is fresh).
//!
//! # Invariants
//!
//! - A node's bookings are sorted by start and never overlap.
//! - Every node is in exactly one group; a group's members have equal bookings and form a
//!   list in node order from its name, its lowest node, whose slot alone holds the bookings.
//!   A group's span (what node choice reads first) is brought up to date after every change
//!   to its bookings.
//! - `version` changes with every change to a booking or to the groups; the void index is
//!   fresh when it was built for the current version, and then holds exactly the voids of
//!   every node that end after the horizon, each once, weighted by its nodes.
//! - `held` and `booked` count place-holders and bookings node by node; no booking ends
//!   before `first_end`.
//! - `loosened` and `base_loosened` change whenever time is freed, `tightened` (and the log)
//!   whenever a booking is added: between two changes of the first, answers only move later.
//!
//! # Which way data flows
//!
//! The queries (`earliest.rs`, and the choice in `choice.rs`) read the groups' bookings and
//! the index and change nothing but a stale index, which they rebuild. The changes
//! (`choice.rs` adds bookings, `release.rs` takes them away) write the bookings, then keep the
//! groups (`groups.rs`: split, merge), the index (`void_index.rs`: edits, or left stale for a
//! rebuild) and the counts here current. `node.rs` depends on nothing here; `groups.rs` on
//! `node.rs`; the index reads the groups and their bookings; the queries and changes use all
//! three. The files below this one import no sibling that imports them back.
//!
//! A few small functions called on the hot paths from another file (or, like the index's
//! `edit`, from a function the other files call) carry `#[inline]`: the compiler splits a
//! crate's code by module, and without the hint they would no longer be inlined where they
//! were when the timeline was one file.

mod choice;
mod earliest;
mod groups;
mod ignoring;
mod in_place;
mod node;
mod pool;
mod release;
mod service;
mod stays;
mod void_index;

#[cfg(test)]
mod tests;

pub use earliest::{Fit, Scratch};
pub use groups::Nodes;
pub use node::{Booking, BookingKind, NodeTimeline};
pub use void_index::Void;

use crate::error::{full, Capacity, Error};
use crate::limits::MAX_BOOKINGS_PER_NODE;
use crate::task::TaskId;
use crate::units::{Micros, NodeCount};
use groups::{Groups, GROUP_ARRAYS};
use pool::Pool;
use void_index::VoidIndex;

/// A booking as the fit memo replays it: its span and how many nodes it took. An entry of a
/// cluster's booking log, which lives in the caller's storage
/// ([`Storage::booking_log`](crate::Storage::booking_log)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Logged {
    /// First instant held.
    pub(crate) start: u64,
    /// First instant free again.
    pub(crate) end: u64,
    /// Nodes taken.
    pub(crate) nodes: u32,
}

impl Logged {
    /// An entry that says nothing yet (what a log is filled with before use).
    pub const EMPTY: Logged = Logged {
        start: 0,
        end: 0,
        nodes: 0,
    };
}

/// The timelines of every node of one cluster, over storage the caller provides.
pub struct ClusterTimeline<'a> {
    /// Number of nodes.
    n: usize,
    /// Every group's bookings (see [`Pool`]), named by group id.
    pool: Pool<'a>,
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
    /// Bumped by every booking added; the last `log.len()` of them are in `log`, at their
    /// count modulo its length.
    tightened: u32,
    /// The booking log, the caller's (see [`set_log`](Self::set_log)): a power of two long,
    /// or empty (no log: the memo then never carries an answer past a booking).
    log: &'a mut [Logged],
    /// How many of the latest bookings the log holds (at most its length): a copy from a
    /// shorter log holds fewer than its length.
    log_held: u32,
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
    /// Groups after the last merge: removals merge again once there are an eighth more
    /// (`groups.rs`, `merge_if_grown`).
    merged_at: usize,
    /// The task of the latest reservation booked and `loosened` then (`in_place.rs`).
    reserved: Option<(TaskId, u32)>,
    /// The task whose reservation a policy last kept in place and `version` then
    /// (`in_place.rs`).
    kept: Option<(TaskId, u32)>,
    /// Nodes out of service: blocks booked (`service.rs`).
    blocks: u32,
}

impl<'a> ClusterTimeline<'a> {
    /// A cluster of `nodes` nodes, their bookings in `bookings` (a pool the cluster's groups
    /// share, used as needed: see [`StorageSizes`](crate::StorageSizes) for a size that never
    /// runs out where a node's own list would not), with `members` (at least
    /// [`members_len`](Self::members_len)) to keep track of which nodes share bookings.
    pub fn new(
        nodes: usize,
        bookings: &'a mut [Booking],
        members: &'a mut [u32],
    ) -> Result<ClusterTimeline<'a>, Error> {
        let n = nodes;
        if members.len() < Self::members_len(n) || n >= (1 << 20) {
            return Err(full(Capacity::Nodes, members.len() / GROUP_ARRAYS).into());
        }
        let (groups, rest) = Groups::new(members, n);
        let mut c = ClusterTimeline {
            n,
            pool: Pool::new(bookings, rest, n),
            groups,
            index: None,
            version: 0,
            loosened: 0,
            tightened: 0,
            log: &mut [],
            log_held: 0,
            base_loosened: 0,
            held: 0,
            booked: 0,
            first_end: Micros::MAX,
            horizon: Micros::ZERO,
            overflowed: None,
            merged_at: 1,
            reserved: None,
            kept: None,
            blocks: 0,
        };
        if n > 0 {
            c.sync(0);
        }
        Ok(c)
    }

    /// Bookings a pool needs so that a cluster of `nodes` nodes runs out of room no sooner
    /// than if each node had a list of [`MAX_BOOKINGS_PER_NODE`] of its own: a list's block
    /// is never larger and there are never more groups than nodes, so the blocks held take
    /// at most `nodes` lists' worth, and a change cuts at most one new block for each group
    /// it touches or creates before the old ones are let go. A caller that maps memory as it
    /// is touched pays for what is used only (`pool.rs`).
    pub const fn bookings_len(nodes: usize) -> usize {
        2 * nodes * MAX_BOOKINGS_PER_NODE
    }

    /// Entries of `members` a cluster of `nodes` nodes needs.
    pub const fn members_len(nodes: usize) -> usize {
        GROUP_ARRAYS * nodes
    }

    /// How many times time held by running tasks or reservations has been freed (see the
    /// field's doc).
    pub(crate) fn base_loosened(&self) -> u32 {
        self.base_loosened
    }

    /// Place-holder bookings on the cluster now (one per node).
    pub(crate) fn held(&self) -> u32 {
        self.held
    }

    /// How many times time on this cluster has been freed (see the field's doc): answers
    /// computed under the same count only move later.
    pub(crate) fn loosened(&self) -> u32 {
        self.loosened
    }

    /// How many bookings were added (see the field's doc).
    pub(crate) fn tightened(&self) -> u32 {
        self.tightened
    }

    /// The bookings added since the count was `since`, oldest first; `None` if the log no
    /// longer holds them all.
    pub(crate) fn booked_since(&self, since: u32) -> Option<impl Iterator<Item = Logged> + '_> {
        let n = self.tightened.wrapping_sub(since);
        if n > self.log_held {
            return None;
        }
        // A power of two long (or empty, and then n is 0): the mask is the modulo.
        let mask = self.log.len().wrapping_sub(1);
        Some((0..n).map(move |j| self.log[since.wrapping_add(j) as usize & mask]))
    }

    /// Gives the cluster a booking log over `log` (the fit memo's record of the latest
    /// bookings; see [`Storage::booking_log`](crate::Storage::booking_log)): its longest
    /// power-of-two prefix is used, emptied. A cache: how long it is changes no answer, only
    /// how often the memo must ask the timeline again. Call before the first booking.
    pub(crate) fn set_log(&mut self, log: &'a mut [Logged]) {
        let len = match log.len() {
            0 => 0,
            n => 1 << n.ilog2(),
        };
        let log = &mut log[..len];
        log.fill(Logged::EMPTY);
        self.log = log;
        self.log_held = 0;
    }

    /// Records booking `b` of `k` nodes in the log, and counts it.
    #[inline]
    pub(super) fn log_booking(&mut self, b: &Booking, k: u32) {
        if !self.log.is_empty() {
            let mask = self.log.len() - 1;
            self.log[self.tightened as usize & mask] = Logged {
                start: b.start.0,
                end: b.end.0,
                nodes: k,
            };
            self.log_held = (self.log_held + 1).min(self.log.len() as u32);
        }
        self.tightened = self.tightened.wrapping_add(1);
    }

    /// Makes this cluster (of as many nodes) a copy of `from`: bookings, groups and the
    /// history the fit memo reads. The void index is not copied (it is rebuilt when asked).
    pub fn copy_from(&mut self, from: &ClusterTimeline<'_>) -> Result<(), Error> {
        let n = self.n;
        if from.n != n {
            return Err(full(Capacity::Nodes, n).into());
        }
        self.pool.clear_all(&self.groups.live[..n]);
        self.groups.copy_from(&from.groups, n);
        for &g in from.groups.live() {
            self.pool.set_list(g, from.pool.list(g))?;
        }
        self.changed();
        self.loosened = from.loosened;
        self.base_loosened = from.base_loosened;
        self.tightened = from.tightened;
        self.copy_log(from);
        self.held = from.held;
        self.booked = from.booked;
        self.first_end = from.first_end;
        self.horizon = from.horizon;
        self.merged_at = from.merged_at;
        self.reserved = from.reserved;
        self.blocks = from.blocks;
        // `from`'s versions are not this cluster's.
        self.kept = None;
        Ok(())
    }

    /// Copies `from`'s booking log, as much of its latest entries as this log holds (each
    /// at its count modulo this log's length, so the two may differ in length): it then
    /// holds no more than either could.
    fn copy_log(&mut self, from: &ClusterTimeline<'_>) {
        let keep = (self.log.len() as u32).min(from.log_held);
        self.log_held = keep;
        if keep == 0 {
            return;
        }
        let (mine, theirs) = (self.log.len() - 1, from.log.len() - 1);
        for j in 0..keep {
            let c = from.tightened.wrapping_sub(keep).wrapping_add(j) as usize;
            self.log[c & mine] = from.log[c & theirs];
        }
    }

    /// Notes a change to a booking or to the groups: the void index is stale from now on,
    /// unless the change keeps it current (see [`mark_fresh`](Self::mark_fresh)).
    fn changed(&mut self) {
        self.version = self.version.wrapping_add(1);
    }

    /// Whether the index is fresh (a change can then keep it so).
    fn index_fresh(&self) -> bool {
        self.index
            .as_ref()
            .is_some_and(|ix| ix.built == Some(self.version))
    }

    /// Marks the index fresh after a change that left every void as it was.
    fn mark_fresh(&mut self) {
        let version = self.version;
        if let Some(ix) = self.index.as_mut() {
            ix.built = Some(version);
        }
    }

    /// [`NodeTimeline::void_around`] for group `g`. Most groups' span decides it without
    /// their bookings; while every booking ends after `s` (always from now on, once pruned
    /// to now), the void is the one before the first booking: no search in the bookings.
    #[inline]
    fn void_of(&self, g: u32, s: Micros, e: Micros) -> Option<(Micros, Micros)> {
        if let Some(v) = self.groups.span(g).decides(s.0, e.0) {
            return v.map(|(a, b)| (Micros(a), Micros(b)));
        }
        self.void_in_bookings(g, s, e)
            .map(|(a, b)| (Micros(a), Micros(b)))
    }

    /// [`void_of`](Self::void_of) for a group whose span did not decide it, as `(a, b)`: the
    /// walks that read the span themselves (node choice's keys) ask this, so that a group's
    /// span is read and decided once.
    #[inline(always)]
    fn void_in_bookings(&self, g: u32, s: Micros, e: Micros) -> Option<(u64, u64)> {
        let node = self.timeline(g);
        match node.bookings.first() {
            Some(b) if s < self.first_end => (b.start >= e).then_some((0, b.start.0)),
            _ => node.void_around(s, e).map(|(a, b)| (a.0, b.0)),
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> NodeCount {
        NodeCount(self.n as u32)
    }

    /// Whether the cluster has no node.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// One node's timeline (its group's).
    pub(crate) fn node(&self, i: u32) -> Option<NodeTimeline<'_>> {
        let g = self.groups.group_of(i)?;
        Some(self.timeline(g))
    }

    /// Every node's timeline, in node order.
    pub fn nodes(&self) -> Nodes<'_, 'a> {
        Nodes {
            c: self,
            run: 0,
            left: if self.n > 0 {
                self.groups.run_len[0]
            } else {
                0
            },
            remaining: self.n,
        }
    }

    /// Number of groups of nodes with equal bookings (see the module doc).
    pub fn groups(&self) -> usize {
        self.groups.count
    }

    /// Bookings the cluster's pool holds (its share of [`Storage::bookings`](crate::Storage::bookings)).
    pub fn bookings_capacity(&self) -> usize {
        self.pool.capacity()
    }

    /// The least pool this cluster's run so far needed: the most bookings' room its groups'
    /// blocks held at once, counting the room a change makes sure of before it starts. A
    /// pool this long gives the same run without a capacity error (what the firmware's
    /// storage is sized by, docs/firmware.md).
    pub fn bookings_peak(&self) -> usize {
        self.pool.peak()
    }
}

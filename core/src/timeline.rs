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
//! The earliest-start query turns every void `[a, b)` into the interval of starts it admits,
//! `[max(a, t), b - d]`, and looks for the first start covered by `k` of them. Voids of one
//! node are disjoint, so coverage counts distinct nodes. With the admitted intervals sorted
//! by their first and by their last start, coverage at `s` is `#{first <= s} - #{last < s}`,
//! and a single two-pointer sweep finds the answer: O(V log V) for V voids, with no per-node
//! rescans and no allocation (the two sort buffers are the caller's scratch).

use crate::config::{BOOKING_LOG, MAX_BOOKINGS_PER_NODE};
use crate::error::{full, Capacity, Error, InputError};
use crate::task::TaskId;
use crate::units::{Micros, NodeCount};
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

/// The bookings of one node, sorted by start and never overlapping.
///
/// On the host, aligned to a cache line: a node's size is otherwise a multiple of 4 KiB plus
/// its length word, so every node's first bookings would share one set of the L1 cache (and
/// one of a few of L2), and a booking across a hundred nodes would evict itself all the way
/// (measured: 6% of a 10k Max UPE place-holder day). The firmware's core has no data cache.
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

/// A void of a node: free from `start` (the previous booking's end, or zero) to `end` (the
/// next booking's start, or the end of time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Void {
    /// First free instant.
    pub start: u64,
    /// First instant booked again.
    pub end: u64,
    /// The node (its index in the cluster), so that node choice can read the index.
    pub node: u32,
}

/// Every void of a cluster, sorted by start and by end, rebuilt only when a booking changes.
///
/// With voids pre-sorted, a query needs no sort: the admissible starts `max(a, t)` come in the
/// order of `a`, and the last admissible starts `b - d` in the order of `b`, so the coverage
/// sweep is a merge that stops at the answer, usually after a short prefix.
struct VoidIndex<'a> {
    by_start: &'a mut [Void],
    by_end: &'a mut [Void],
    /// Room for one change's removed and added voids, three per node, twice: for this
    /// index and for `base`.
    work: &'a mut [Void],
    len: usize,
    /// The cluster version it was built for (`None`: stale, or did not fit).
    built: Option<u32>,
    /// The mark of the change being applied: the work buffer's per-node tables hold a
    /// node's entry for this change only if their `node` field carries it.
    stamp: u32,
    /// The same index without the place-holders, kept alongside (empty storage: none).
    base: Base<'a>,
}

/// The voids of a cluster's bookings other than place-holders, sorted both ways: what the
/// index becomes when a mapping event clears the place-holders, copied instead of rebuilt.
struct Base<'a> {
    by_start: &'a mut [Void],
    by_end: &'a mut [Void],
    len: usize,
    /// Whether it holds exactly those voids now.
    ok: bool,
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

/// The timelines of every node of one cluster, over storage the caller provides.
pub struct ClusterTimeline<'a> {
    nodes: &'a mut [NodeTimeline],
    index: Option<VoidIndex<'a>>,
    /// Bumped by every change to a booking, so the void index knows when it is stale.
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
    /// `booked` when the void index last failed to fit: it is not rebuilt again until the
    /// cluster holds notably fewer bookings (the sweep answers meanwhile, and a rebuild that
    /// runs out of room half-way is pure waste).
    overflowed: Option<u32>,
    /// Whether a place-holder was ever booked here (only then is the base index kept).
    holds: bool,
}

impl<'a> ClusterTimeline<'a> {
    /// A cluster whose nodes are the given (cleared) storage.
    pub fn new(nodes: &'a mut [NodeTimeline]) -> ClusterTimeline<'a> {
        for n in nodes.iter_mut() {
            n.bookings.clear();
        }
        ClusterTimeline {
            nodes,
            index: None,
            version: 0,
            loosened: 0,
            tightened: 0,
            log: [Logged::default(); BOOKING_LOG],
            base_loosened: 0,
            held: 0,
            booked: 0,
            first_end: Micros::MAX,
            overflowed: None,
            holds: false,
        }
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

    /// Takes `from`'s change counts and booking log (a copy of a cluster keeps them, so that
    /// the copied memo's answers stay paired with the right history).
    pub fn copy_history(&mut self, from: &ClusterTimeline<'_>) {
        self.loosened = from.loosened;
        self.base_loosened = from.base_loosened;
        self.tightened = from.tightened;
        self.log = from.log;
    }

    /// How many nodes are free over `[s, e)`, counting no further than `want` (so a
    /// "can `k` nodes start now" question stops at the `k`-th free node): O(nodes x log
    /// bookings), with no sort.
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
            // From a fresh index: the voids opening by s and closing at or after e are
            // #{start <= s} - #{end < e} + #{s < start, end < e} (see `indexed_earliest`).
            let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
            let i = starts.partition_point(|x| x.start <= s.0);
            let closed = ends.partition_point(|x| x.end < e.0);
            let inside = starts[i..]
                .iter()
                .take_while(|x| x.start < e.0)
                .filter(|x| x.end < e.0)
                .count();
            return ((i + inside - closed) as u32).min(want);
        }
        let mut n = 0;
        for node in self.nodes.iter() {
            if self.void_of(node, s, e).is_some() {
                n += 1;
                if n >= want {
                    break;
                }
            }
        }
        n
    }

    /// [`NodeTimeline::void_around`] for one of this cluster's nodes. While every booking
    /// ends after `s` (always from now on, once pruned to now), the void is the one before the
    /// first booking: no search in the node's bookings.
    fn void_of(&self, node: &NodeTimeline, s: Micros, e: Micros) -> Option<(Micros, Micros)> {
        match node.bookings.first() {
            Some(b) if s < self.first_end => (b.start >= e).then_some((Micros::ZERO, b.start)),
            _ => node.void_around(s, e),
        }
    }

    /// Gives the cluster buffers for its void index: two sorted copies (equal lengths) and a
    /// work buffer of [`index_work_len`](Self::index_work_len) to apply a booking in place.
    /// Any length works: voids that do not fit make the cluster fall back to sorting in the
    /// caller's scratch, and a short work buffer to rebuilding, with the same answers.
    pub fn set_index(
        &mut self,
        by_start: &'a mut [Void],
        by_end: &'a mut [Void],
        work: &'a mut [Void],
    ) {
        // No entry of the per-node tables may carry a stamp yet.
        work.fill(Void::default());
        self.index = Some(VoidIndex {
            by_start,
            by_end,
            work,
            len: 0,
            built: None,
            stamp: 0,
            base: Base {
                by_start: &mut [],
                by_end: &mut [],
                len: 0,
                ok: false,
            },
        });
    }

    /// Gives the void index (set first) two more sorted buffers (equal lengths) for the
    /// voids without place-holders, so that clearing them copies that index back instead of
    /// rebuilding and sorting every void (a cache as well: any length works).
    pub fn set_base_index(&mut self, by_start: &'a mut [Void], by_end: &'a mut [Void]) {
        if let Some(ix) = self.index.as_mut() {
            ix.base = Base {
                by_start,
                by_end,
                len: 0,
                ok: false,
            };
        }
    }

    /// Work-buffer entries [`set_index`](Self::set_index) needs: six per node, three to apply
    /// a change to the index (see `Gather`) and three to apply it to its copy without
    /// place-holders (three alone keep the index but not the copy).
    pub const fn index_work_len(nodes: usize) -> usize {
        6 * nodes
    }

    fn changed(&mut self) {
        self.version = self.version.wrapping_add(1);
    }

    /// Whether the index is fresh, with room in the work buffer to keep it so through a change.
    fn index_kept(&self) -> bool {
        let n = self.nodes.len();
        self.index
            .as_ref()
            .is_some_and(|ix| ix.built == Some(self.version) && ix.work.len() >= 3 * n)
    }

    /// Whether the base index holds the cluster's voids without place-holders now, with room
    /// in the work buffer to keep it so through a change.
    fn base_kept(&self) -> bool {
        let n = self.nodes.len();
        self.index
            .as_ref()
            .is_some_and(|ix| ix.base.ok && ix.work.len() >= 6 * n)
    }

    /// Stops keeping the base index (a change it does not follow).
    fn drop_base(&mut self) {
        if let Some(ix) = self.index.as_mut() {
            ix.base.ok = false;
        }
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
        for (n, node) in self.nodes.iter().enumerate() {
            let mut a = 0u64;
            for b in node
                .bookings
                .iter()
                .map(|b| (b.start.0, b.end.0))
                .chain(core::iter::once((u64::MAX, u64::MAX)))
            {
                if b.0 > a {
                    if v >= cap {
                        ix.built = None;
                        self.overflowed = Some(self.booked);
                        return false;
                    }
                    ix.by_start[v] = Void {
                        start: a,
                        end: b.0,
                        node: n as u32,
                    };
                    v += 1;
                }
                a = b.1;
            }
        }
        ix.by_start[..v].sort_unstable_by_key(by_start_key);
        ix.by_end[..v].copy_from_slice(&ix.by_start[..v]);
        ix.by_end[..v].sort_unstable_by_key(by_end_key);
        ix.len = v;
        ix.built = Some(version);
        self.overflowed = None;
        // Without place-holders on it, the cluster's voids are the base's: keep a copy. (With
        // them, the base is left as it is: it follows every other change on its own.)
        let b = &mut ix.base;
        if self.holds && self.held == 0 {
            b.ok = v <= b.by_start.len().min(b.by_end.len());
            if b.ok {
                b.by_start[..v].copy_from_slice(&ix.by_start[..v]);
                b.by_end[..v].copy_from_slice(&ix.by_end[..v]);
                b.len = v;
            }
        }
        true
    }

    /// Scratch entries the sweep needs for a cluster of `nodes` nodes in the worst case.
    pub const fn scratch_len(nodes: usize) -> usize {
        nodes * (MAX_BOOKINGS_PER_NODE + 1)
    }

    /// Number of nodes.
    pub fn len(&self) -> NodeCount {
        NodeCount(self.nodes.len() as u32)
    }

    /// Whether the cluster has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// One node's timeline.
    pub fn node(&self, i: u32) -> Option<&NodeTimeline> {
        self.nodes.get(i as usize)
    }

    /// All nodes.
    pub fn nodes(&self) -> &[NodeTimeline] {
        self.nodes
    }

    /// Starts gathering a change over `[s, e)` in the work buffer: a fresh stamp marks this
    /// change's entries of the per-node tables (the old ones are then stale without a reset).
    fn gather(ix: &mut VoidIndex<'_>, change: Change, s: u64, e: u64) -> Gather {
        ix.stamp = ix.stamp.wrapping_add(1);
        if ix.stamp == 0 {
            // Once in 2^32 changes: entries as old as this stamp must not pass for new.
            ix.work.fill(Void::default());
            ix.stamp = 1;
        }
        Gather::new(change, s, e, ix.stamp)
    }

    /// Marks the index fresh after a change that left every void as it was.
    fn mark_fresh(&mut self) {
        let version = self.version;
        if let Some(ix) = self.index.as_mut() {
            ix.built = Some(version);
        }
    }

    /// Applies the change gathered in `g` (in the work buffer's region `at`) to the index,
    /// and marks it fresh; stale if it does not fit or does not hold the voids expected.
    fn apply_main(&mut self, g: &Gather, at: usize) {
        let (version, n) = (self.version, self.nodes.len());
        let Some(ix) = self.index.as_mut() else {
            return;
        };
        let work = &mut ix.work[at * 3 * n..(at + 1) * 3 * n];
        match g.apply(ix.by_start, ix.by_end, ix.len, work, n) {
            Some(len) => {
                ix.len = len;
                ix.built = Some(version);
            }
            None => ix.built = None,
        }
    }

    /// Applies the change gathered in `g` (in the work buffer's region `at`) to the base
    /// index; it is no longer kept if that fails.
    fn apply_base(&mut self, g: &Gather, at: usize) {
        let n = self.nodes.len();
        let Some(ix) = self.index.as_mut() else {
            return;
        };
        let work = &mut ix.work[at * 3 * n..(at + 1) * 3 * n];
        let b = &mut ix.base;
        match g.apply(b.by_start, b.by_end, b.len, work, n) {
            Some(len) => b.len = len,
            None => b.ok = false,
        }
    }

    /// The earliest start at or after `t` at which `k` nodes are free for `d`, or `None` if
    /// the cluster has fewer than `k` nodes.
    pub fn earliest_start(
        &mut self,
        t: Micros,
        k: NodeCount,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        if k.0 == 0 || k.0 as usize > self.nodes.len() {
            return Ok(None);
        }
        if self.fresh_index() {
            return Ok(self.indexed_earliest(t, k.0 as usize, d));
        }
        self.swept_earliest(t, k, d, scratch)
    }

    /// The earliest start from the void index: a merge of the admissible starts (in the order
    /// of the voids' starts) with the admissible last starts (in the order of their ends).
    ///
    /// It starts at `t` without walking the voids before it. For `s >= t`, the nodes free
    /// over `[s, s + d)` are the voids with `start <= s` and `end >= s + d`; at `s = t` that
    /// count is `#{start <= t} - #{end < t + d} + #{t < start, end < t + d}`: two binary
    /// searches and a walk over the voids that open inside `(t, t + d)`. No admissible void
    /// ends before `t + d`, so the merge then goes on from those two positions. A query
    /// resumed from an earlier answer (the memo's lower bound) costs what lies past it.
    fn indexed_earliest(&self, t: Micros, k: usize, d: Micros) -> Option<Fit> {
        let ix = self.index.as_ref()?;
        let (t, d) = (t.0, d.0);
        let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
        let td = t.saturating_add(d);
        let mut i = starts.partition_point(|x| x.start <= t);
        let mut e = ends.partition_point(|x| x.end < td);
        let inside = starts[i..]
            .iter()
            .take_while(|x| x.start < td)
            .filter(|x| x.end < td)
            .count();
        let mut opened = i + inside - e;
        let mut ended = 0usize;
        if opened >= k {
            return Some(Fit {
                start: Micros(t),
                free: opened as u32,
            });
        }
        // Past t, a void is admissible if it is long enough for d.
        let admits = |x: &Void| x.end - x.start >= d;
        while i < starts.len() {
            let s = starts[i].start;
            // Every admissible void whose first admissible start is s.
            while i < starts.len() && starts[i].start == s {
                opened += admits(&starts[i]) as usize;
                i += 1;
            }
            // Every admissible void whose last admissible start is before s.
            let sd = s.saturating_add(d);
            while e < ends.len() && ends[e].end < sd {
                ended += admits(&ends[e]) as usize;
                e += 1;
            }
            if opened - ended >= k {
                return Some(Fit {
                    start: Micros(s),
                    free: (opened - ended) as u32,
                });
            }
        }
        None
    }

    /// The earliest start by collecting and sorting the admissible voids in `scratch`.
    fn swept_earliest(
        &self,
        t: Micros,
        k: NodeCount,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        let k = k.0 as usize;
        if k == 0 || k > self.nodes.len() {
            return Ok(None);
        }
        let cap = scratch.capacity();
        if cap < self.nodes.len() {
            return Err(full(Capacity::Nodes, cap).into());
        }
        // Pass 1: how many nodes are free over [t, t + d) (the answer is t if k are, and no
        // sort is needed), and when each node is free for good (after its last booking).
        let mut free_now = 0usize;
        for (i, node) in self.nodes.iter().enumerate() {
            if self.void_of(node, t, t.saturating_add(d)).is_some() {
                free_now += 1;
            }
            let last = node.bookings.last().map_or(Micros::ZERO, |b| b.end);
            scratch.firsts[i] = if last > t { last.0 } else { t.0 };
        }
        if free_now >= k {
            return Ok(Some(Fit {
                start: t,
                free: free_now as u32,
            }));
        }
        // The k-th earliest "free for good" time is always feasible: no answer is later, so
        // voids that open after it cannot matter.
        let n = self.nodes.len();
        let (_, ub, _) = scratch.firsts[..n].select_nth_unstable(k - 1);
        let ub = *ub;
        // Pass 2: the starts each void admits, [max(a, t), b - d], for voids opening by ub.
        let mut v = 0usize;
        for node in self.nodes.iter() {
            let bs = &node.bookings;
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
                    if v >= cap {
                        return Err(full(Capacity::Nodes, cap).into());
                    }
                    scratch.firsts[v] = s0.0;
                    scratch.lasts[v] = b.0 - d.0;
                    v += 1;
                }
                if j < bs.len() {
                    a = bs[j].end;
                }
            }
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
    /// `now` is the earliest instant a void can begin (idle time before it is gone). Returns
    /// how many were found; fewer than asked means the nodes are not free.
    pub fn choose_nodes(
        &self,
        now: Micros,
        s: Micros,
        d: Micros,
        out: &mut [u32],
        keys: &mut [u64],
    ) -> usize {
        self.choose_nodes_by(true, now, s, d, out, keys)
    }

    /// [`choose_nodes`](Self::choose_nodes), reading the free nodes off the void index when
    /// `indexed` and the index is fresh, or else from every node's timeline.
    fn choose_nodes_by(
        &self,
        indexed: bool,
        now: Micros,
        s: Micros,
        d: Micros,
        out: &mut [u32],
        keys: &mut [u64],
    ) -> usize {
        let e = s.saturating_add(d);
        // The sort key of a free node whose void is [a, b).
        let key = |a: u64, b: u64, node: u32| {
            let a = a.max(now.0);
            let new_before = (s.0 > a) as u64;
            let new_after = (b != u64::MAX && e.0 < b) as u64;
            let size = if b == u64::MAX { u64::MAX } else { b - a };
            let size = size.min((1 << 42) - 1);
            ((new_before + new_after) << 62) | (size << 20) | (node as u64 & 0xF_FFFF)
        };
        let mut m = 0usize;
        // The free nodes are those with a void opening by s and closing at or after e: read
        // them off whichever sorted side of a fresh index is shorter, a walk over contiguous
        // voids, unless that is longer than a binary search in every node's timeline costs
        // (far-reaching reservations put most voids on both sides).
        let side = self
            .index
            .as_ref()
            .filter(|ix| indexed && ix.built == Some(self.version) && d.0 > 0)
            .map(|ix| {
                let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
                let opened = starts.partition_point(|x| x.start <= s.0);
                let closed = ends.partition_point(|x| x.end < e.0);
                if opened <= ends.len() - closed {
                    &starts[..opened]
                } else {
                    &ends[closed..]
                }
            })
            .filter(|side| side.len() <= INDEX_WALK_PER_NODE * self.nodes.len());
        if let Some(side) = side {
            for v in side {
                if v.start <= s.0 && v.end >= e.0 {
                    if m >= keys.len() {
                        break;
                    }
                    keys[m] = key(v.start, v.end, v.node);
                    m += 1;
                }
            }
        } else {
            for (i, node) in self.nodes.iter().enumerate() {
                if m >= keys.len() {
                    break;
                }
                if let Some((a, b)) = self.void_of(node, s, e) {
                    keys[m] = key(a.0, b.0, i as u32);
                    m += 1;
                }
            }
        }
        let want = out.len();
        let keys = &mut keys[..m];
        if m > want {
            keys.select_nth_unstable(want);
        }
        let got = want.min(m);
        for (o, k) in out.iter_mut().zip(keys.iter()) {
            *o = (*k & 0xF_FFFF) as u32;
        }
        // In node order: the booking's per-node pieces then come sorted for the void index.
        out[..got].sort_unstable();
        got
    }

    /// Books `nodes` for `b`; all or nothing: on an overlap or a full node, nothing changes.
    pub fn book(&mut self, nodes: &[u32], b: Booking) -> Result<(), Error> {
        if b.end <= b.start {
            return Err(InputError::ZeroDuration.into());
        }
        // The voids this booking splits, read as it lands, keep the index current.
        let cn = self.nodes.len();
        let fresh = self.index_kept();
        let held = b.kind == BookingKind::PlaceHolder;
        let base = !held && self.base_kept();
        self.changed();
        let (s, e) = (b.start.0, b.end.0);
        let (mut main, mut based) = match self.index.as_mut().filter(|_| fresh || base) {
            Some(ix) => {
                let g = Self::gather(ix, Change::Split, s, e);
                (g, g)
            }
            None => (
                Gather::new(Change::Split, s, e, 0),
                Gather::new(Change::Split, s, e, 0),
            ),
        };
        for (j, &n) in nodes.iter().enumerate() {
            // One search per node: the bookings before `i` end by `b.start`, so the node is
            // free if the one at `i` starts at or after `b.end`; `i` is then where `b` goes.
            let placed: Result<(u64, u64, usize), Error> = match self.nodes.get_mut(n as usize) {
                None => Err(InputError::BadNodeCount {
                    nodes: n + 1,
                    cluster_nodes: self.nodes.len() as u32,
                }
                .into()),
                Some(node) => {
                    let bs = &mut node.bookings;
                    // Place-holders and reservations mostly land in a node's last void.
                    let i = match bs.last() {
                        Some(l) if l.end > b.start => bs.partition_point(|x| x.end <= b.start),
                        _ => bs.len(),
                    };
                    let before = if i == 0 { 0 } else { bs[i - 1].end.0 };
                    let after = bs.get(i).map_or(u64::MAX, |x| x.start.0);
                    if after < b.end.0 {
                        Err(InputError::Overlap.into())
                    } else {
                        bs.insert(i, b)
                            .map(|()| (before, after, i))
                            .map_err(|_| full(Capacity::NodeBookings, MAX_BOOKINGS_PER_NODE).into())
                    }
                }
            };
            match placed {
                Ok((lo, hi, i)) => {
                    if let Some(ix) = self.index.as_mut() {
                        if fresh {
                            main.note(&mut ix.work[..3 * cn], cn, lo, hi, n);
                        }
                        if base {
                            // The base void this booking splits (place-holders aside).
                            let (lo, hi) = base_bounds(&self.nodes[n as usize].bookings, i, i + 1);
                            based.note(&mut ix.work[3 * cn..6 * cn], cn, lo, hi, n);
                        }
                    }
                }
                Err(e) => {
                    // Take back what this booking placed, so that it is all or nothing. The
                    // index is stale by then (the version moved on): the next query rebuilds.
                    for &m in &nodes[..j] {
                        let bs = &mut self.nodes[m as usize].bookings;
                        if let Some(x) = bs.iter().position(|x| *x == b) {
                            bs.remove(x);
                        }
                    }
                    return Err(e);
                }
            }
        }
        if fresh {
            self.apply_main(&main, 0);
        }
        if base {
            self.apply_base(&based, 1);
        }
        if held {
            self.held += nodes.len() as u32;
            self.holds = true;
        }
        self.booked += nodes.len() as u32;
        if b.end < self.first_end {
            self.first_end = b.end;
        }
        self.log[self.tightened as usize % BOOKING_LOG] = Logged {
            start: b.start.0,
            end: b.end.0,
            nodes: nodes.len() as u32,
        };
        self.tightened = self.tightened.wrapping_add(1);
        Ok(())
    }

    /// Removes every place-holder (the start of a mapping event).
    pub fn clear_place_holders(&mut self) {
        // Without place-holders (the heuristics that reserve permanently) nothing changes,
        // and the void index stays fresh.
        if self.held == 0 {
            return;
        }
        for n in self.nodes.iter_mut() {
            n.bookings.retain(|b| b.kind != BookingKind::PlaceHolder);
        }
        self.booked -= self.held;
        self.held = 0;
        self.changed();
        self.loosened = self.loosened.wrapping_add(1);
        // What is left is what the base index holds: copy it, no rebuild.
        let version = self.version;
        if let Some(ix) = self.index.as_mut().filter(|ix| ix.base.ok) {
            let (b, len) = (&ix.base, ix.base.len);
            if len <= ix.by_start.len().min(ix.by_end.len()) {
                ix.by_start[..len].copy_from_slice(&b.by_start[..len]);
                ix.by_end[..len].copy_from_slice(&b.by_end[..len]);
                ix.len = len;
                ix.built = Some(version);
            }
        }
    }

    /// Removes every booking of `task`; returns on how many nodes it was found.
    pub fn remove_task(&mut self, task: TaskId) -> u32 {
        self.remove_until(task, Micros::ZERO)
    }

    /// Removes every booking of `task`, which stops at `at`: only bookings that end after
    /// `at` free time from `at` on (and so loosen the cluster).
    fn remove_until(&mut self, task: TaskId, at: Micros) -> u32 {
        self.changed();
        self.drop_base();
        let mut gone = Removed::default();
        for n in self.nodes.iter_mut() {
            n.bookings.retain(|b| {
                let mine = b.task == task;
                if mine {
                    gone.note(b, at);
                }
                !mine
            });
        }
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
        for n in self.nodes.iter_mut() {
            for b in n.bookings.iter_mut().filter(|b| b.task == task) {
                b.kind = BookingKind::Running;
                found += 1;
            }
        }
        found
    }

    /// [`remove_task`](Self::remove_task) for a task whose bookings all start at `start` (as
    /// one assignment's do): a binary search per node instead of a walk over every booking.
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
        for n in self.nodes.iter_mut() {
            let j = n.bookings.partition_point(|b| b.start < start);
            if let Some(b) = n.bookings.get_mut(j).filter(|b| b.task == task) {
                b.kind = BookingKind::Running;
                found += 1;
            }
        }
        found
    }

    /// Removes the bookings of `task` that start at `start`; only those that end after `at`
    /// free time (and so loosen the cluster).
    fn remove_from(&mut self, task: TaskId, start: Micros, at: Micros) -> u32 {
        // The voids on either side of each booking removed join: keep the index current
        // (taking back a reservation, a completion) instead of rebuilding it at the next query.
        let n = self.nodes.len();
        let fresh = self.index_kept();
        let base = self.base_kept();
        self.changed();
        let mut gone = Removed::default();
        // The span is the booking's, known once the first is found: one gather (one stamp)
        // starts then, for the index and for its copy alike.
        let (mut first, mut main, mut based) = (None::<Gather>, None::<Gather>, None::<Gather>);
        for (i, node) in self.nodes.iter_mut().enumerate() {
            let bs = &mut node.bookings;
            let j = bs.partition_point(|b| b.start < start);
            if bs.get(j).is_none_or(|b| b.task != task) {
                continue;
            }
            let b = bs[j];
            let node = i as u32;
            if let Some(ix) = self.index.as_mut().filter(|_| fresh || base) {
                let g = *first
                    .get_or_insert_with(|| Self::gather(ix, Change::Join, b.start.0, b.end.0));
                if fresh {
                    let (lo, hi) = (
                        if j == 0 { 0 } else { bs[j - 1].end.0 },
                        bs.get(j + 1).map_or(u64::MAX, |x| x.start.0),
                    );
                    let work = &mut ix.work[..3 * n];
                    main.get_or_insert(g).note(work, n, lo, hi, node);
                }
                // Its base void joins likewise (place-holders aside).
                if base && b.kind != BookingKind::PlaceHolder {
                    let (lo, hi) = base_bounds(bs, j, j + 1);
                    let work = &mut ix.work[3 * n..6 * n];
                    based.get_or_insert(g).note(work, n, lo, hi, node);
                }
            }
            bs.remove(j);
            gone.note(&b, at);
        }
        if fresh {
            match main {
                Some(g) => self.apply_main(&g, 0),
                // Nothing removed: the index is as current as it was.
                None => self.mark_fresh(),
            }
        }
        if let Some(g) = based {
            self.apply_base(&g, 1);
        }
        self.account(gone)
    }

    /// Ends `task` at `at` (at or before its planned end): its nodes are free from then on,
    /// so its bookings go (the decision log, not the timeline, keeps history).
    pub fn complete(&mut self, task: TaskId, at: Micros) -> u32 {
        self.remove_until(task, at)
    }

    /// Forgets bookings that ended at or before `now` (they no longer shape any void from
    /// `now` on, except for the void's start, which `now` bounds anyway).
    pub fn prune(&mut self, now: Micros) {
        if now < self.first_end {
            return;
        }
        let mut pruned = false;
        let mut first_end = Micros::MAX;
        for n in self.nodes.iter_mut() {
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
                    .count();
                self.held -= held as u32;
                self.booked -= stale as u32;
                // Keep the order: shift the rest down.
                let len = n.bookings.len();
                for i in stale..len {
                    n.bookings[i - stale] = n.bookings[i];
                }
                n.bookings.truncate(len - stale);
            }
        }
        self.first_end = first_end;
        // Completions remove their bookings, so there is seldom anything to prune.
        if pruned {
            self.changed();
            self.drop_base();
        }
    }

    /// Node-time not booked within `[from, to)`, summed over nodes (seed 000 Eq. 6, in
    /// node-microseconds: multiply by cores per node for core-microseconds).
    pub fn free_node_time(&self, from: Micros, to: Micros) -> u128 {
        if to <= from {
            return 0;
        }
        let mut total: u128 = 0;
        for n in self.nodes.iter() {
            let mut busy: u64 = 0;
            for b in n.bookings.iter() {
                let s = if b.start > from { b.start } else { from };
                let e = if b.end < to { b.end } else { to };
                if e > s {
                    busy += e.0 - s.0;
                }
            }
            total += (to.0 - from.0 - busy) as u128;
        }
        total
    }
}

/// Voids a node choice reads off the index, per node of the cluster, before it searches
/// every node's timeline instead (a walk reads a void in a few nanoseconds; a binary search
/// in a node's bookings costs tens).
const INDEX_WALK_PER_NODE: usize = 4;

/// The void index's order by start. A node has one void starting at any instant, so the
/// node breaks ties and the order is total; and a void whose end moves keeps its place.
fn by_start_key(x: &Void) -> (u64, u32) {
    (x.start, x.node)
}

/// The void index's order by end (total likewise; a void whose start moves keeps its place).
fn by_end_key(x: &Void) -> (u64, u32) {
    (x.end, x.node)
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
    /// Counts booking `b`, removed by a task stopping at `at`.
    fn note(&mut self, b: &Booking, at: Micros) {
        let held = b.kind == BookingKind::PlaceHolder;
        self.found += 1;
        self.held += held as u32;
        self.freed |= b.end > at;
        self.base_freed |= b.end > at && !held;
    }
}

/// The base void (see [`Base`]) a node's bookings `bs` have around their indices `i..j`:
/// from the end of the last booking before `i` that is not a place-holder (or zero) to the
/// start of the first such booking from `j` on (or the end of time).
fn base_bounds(bs: &[Booking], i: usize, j: usize) -> (u64, u64) {
    let before = bs[..i]
        .iter()
        .rev()
        .find(|x| x.kind != BookingKind::PlaceHolder)
        .map_or(0, |x| x.end.0);
    let after = bs[j..]
        .iter()
        .find(|x| x.kind != BookingKind::PlaceHolder)
        .map_or(u64::MAX, |x| x.start.0);
    (before, after)
}

/// What a change does to each node it touches, all over the same span `[s, e)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// A booking of `[s, e)` lands in the node's void `[lo, hi)`, leaving `[lo, s)` and
    /// `[e, hi)` (those that are not empty).
    Split,
    /// The booking of `[s, e)` leaves, and its sides `[lo, s)` and `[e, hi)` (those that
    /// are not empty) join into `[lo, hi)`.
    Join,
}

/// A change to one pair of sorted void arrays, gathered node by node in a work region of
/// three per-node parts: a table (entry `n`: node `n`'s `[lo, hi)`, its `node` field the
/// change's stamp), then the voids the change adds to the order by start and to the order
/// by end.
///
/// The keys make the change cheap to apply. In the order by start a void's place is its
/// start, then its node: the piece of a split that keeps the void's start keeps its place
/// (only its end moves), and so does the whole of a join that keeps the first side's start.
/// What is left to add all shares one key (`e` for a split's pieces by start, `s` for its
/// pieces by end; `s` and `e` for a join's), so it goes in as one run, ordered by node. The
/// order by end is the mirror image. Applying is then one walk from the first void touched
/// and two moves of what follows, with no sort and no search per void.
#[derive(Clone, Copy, Debug)]
struct Gather {
    change: Change,
    s: u64,
    e: u64,
    stamp: u32,
    /// Voids of the arrays the change edits or removes (the same count in both orders).
    touched: usize,
    /// The smallest start, and the smallest end, of the voids it touches.
    first_start: u64,
    first_end: u64,
    /// Voids it adds to the order by start, and to the order by end.
    add_start: usize,
    add_end: usize,
}

impl Gather {
    fn new(change: Change, s: u64, e: u64, stamp: u32) -> Gather {
        Gather {
            change,
            s,
            e,
            stamp,
            touched: 0,
            first_start: u64::MAX,
            first_end: u64::MAX,
            add_start: 0,
            add_end: 0,
        }
    }

    /// Notes node `node`'s part: its void `[lo, hi)` around the span (a split) or the one its
    /// sides join into (a join). `work` is the change's region of `3 * nodes` entries.
    fn note(&mut self, work: &mut [Void], nodes: usize, lo: u64, hi: u64, node: u32) {
        let (s, e) = (self.s, self.e);
        let (table, adds) = work.split_at_mut(nodes);
        let (by_start, by_end) = adds.split_at_mut(nodes);
        table[node as usize] = Void {
            start: lo,
            end: hi,
            node: self.stamp,
        };
        let void = |start, end| Void { start, end, node };
        match self.change {
            Change::Split => {
                self.touch(lo, hi);
                if hi > e {
                    push(by_start, &mut self.add_start, void(e, hi));
                }
                if lo < s {
                    push(by_end, &mut self.add_end, void(lo, s));
                }
            }
            Change::Join => {
                if lo < s {
                    self.touch(lo, s);
                } else {
                    push(by_start, &mut self.add_start, void(s, hi));
                }
                if hi > e {
                    self.touch(e, hi);
                } else {
                    push(by_end, &mut self.add_end, void(lo, e));
                }
            }
        }
    }

    /// Counts a void `[start, end)` the change edits or removes.
    fn touch(&mut self, start: u64, end: u64) {
        self.touched += 1;
        self.first_start = self.first_start.min(start);
        self.first_end = self.first_end.min(end);
    }

    /// Applies the change to `by_start[..len]` and `by_end[..len]`; returns the new length,
    /// or `None` if it does not fit or they do not hold the voids it touches (the caller
    /// then stops trusting them).
    fn apply(
        &self,
        by_start: &mut [Void],
        by_end: &mut [Void],
        len: usize,
        work: &mut [Void],
        nodes: usize,
    ) -> Option<usize> {
        let (table, adds) = work.split_at_mut(nodes);
        let (add_start, add_end) = adds.split_at_mut(nodes);
        let (add_start, add_end) = (
            &mut add_start[..self.add_start],
            &mut add_end[..self.add_end],
        );
        // Gathered in the order the nodes came in: a booking's nodes come in the order they
        // were chosen, a removal's in node order.
        if !add_start.is_sorted_by_key(|x| x.node) {
            add_start.sort_unstable_by_key(|x| x.node);
        }
        if !add_end.is_sorted_by_key(|x| x.node) {
            add_end.sort_unstable_by_key(|x| x.node);
        }
        let cap = by_start.len().min(by_end.len());
        let (s, e) = (self.s, self.e);
        let (k_start, k_end) = match self.change {
            Change::Split => (e, s),
            Change::Join => (s, e),
        };
        let n1 = self.apply_one(
            by_start,
            len,
            cap,
            Order::ByStart,
            table,
            add_start,
            k_start,
        )?;
        let n2 = self.apply_one(by_end, len, cap, Order::ByEnd, table, add_end, k_end)?;
        (n1 == n2).then_some(n1)
    }

    /// Applies the change to one sorted array: edits and removals in one walk from the first
    /// void touched, then the voids `add` (sorted by node, all at key `at`) go in.
    #[allow(clippy::too_many_arguments)]
    fn apply_one(
        &self,
        arr: &mut [Void],
        len: usize,
        cap: usize,
        order: Order,
        table: &[Void],
        add: &[Void],
        at: u64,
    ) -> Option<usize> {
        let (s, e, stamp) = (self.s, self.e, self.stamp);
        let key = |x: &Void| match order {
            Order::ByStart => x.start,
            Order::ByEnd => x.end,
        };
        let first = match order {
            Order::ByStart => self.first_start,
            Order::ByEnd => self.first_end,
        };
        let mut r = arr[..len].partition_point(|x| key(x) < first);
        let mut w = r;
        let mut found = 0;
        while found < self.touched {
            let mut x = *arr[..len].get(r)?;
            r += 1;
            let t = table.get(x.node as usize)?;
            if t.node == stamp {
                let (lo, hi) = (t.start, t.end);
                // What becomes of this void of a touched node: `Some(kept)` or gone; voids
                // the change does not touch stay as they are.
                let touched = match (self.change, order) {
                    (Change::Split, _) => (x.start == lo && x.end == hi).then(|| match order {
                        Order::ByStart => (lo < s).then_some(Void { end: s, ..x }),
                        Order::ByEnd => (hi > e).then_some(Void { start: e, ..x }),
                    }),
                    (Change::Join, _) => {
                        let first_side = lo < s && x.start == lo && x.end == s;
                        let second_side = hi > e && x.start == e && x.end == hi;
                        match order {
                            Order::ByStart if first_side => Some(Some(Void { end: hi, ..x })),
                            Order::ByEnd if second_side => Some(Some(Void { start: lo, ..x })),
                            _ if first_side || second_side => Some(None),
                            _ => None,
                        }
                    }
                };
                match touched {
                    Some(Some(kept)) => {
                        found += 1;
                        x = kept;
                    }
                    Some(None) => {
                        found += 1;
                        continue;
                    }
                    None => {}
                }
            }
            arr[w] = x;
            w += 1;
        }
        if w < r {
            arr.copy_within(r..len, w);
        }
        let len = len - (r - w);
        if add.is_empty() {
            return Some(len);
        }
        if len + add.len() > cap {
            return None;
        }
        // The run of voids already at key `at`, into which `add` merges by node.
        let p = arr[..len].partition_point(|x| key(x) < at);
        let q = p + arr[p..len].iter().take_while(|x| key(x) == at).count();
        arr.copy_within(q..len, q + add.len());
        let (mut i, mut j, mut out) = (q, add.len(), q + add.len());
        while j > 0 {
            if i > p && arr[i - 1].node > add[j - 1].node {
                arr[out - 1] = arr[i - 1];
                i -= 1;
            } else {
                arr[out - 1] = add[j - 1];
                j -= 1;
            }
            out -= 1;
        }
        Some(len + add.len())
    }
}

/// Writes `v` at `buf[*n]` and counts it.
fn push(buf: &mut [Void], n: &mut usize, v: Void) {
    buf[*n] = v;
    *n += 1;
}

/// Which of the two sorted arrays of a void index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    ByStart,
    ByEnd,
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
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
        let mut b = Bufs::new(c.nodes.len());
        let swept = c
            .swept_earliest(m(t), NodeCount(k), m(d), &mut b.scratch())
            .unwrap();
        let l = ClusterTimeline::scratch_len(c.nodes.len());
        let by_start: &'static mut [Void] =
            std::boxed::Box::leak(vec![Void::default(); l].into_boxed_slice());
        let by_end: &'static mut [Void] =
            std::boxed::Box::leak(vec![Void::default(); l].into_boxed_slice());
        let work: &'static mut [Void] =
            std::boxed::Box::leak(vec![Void::default(); 3 * c.nodes.len()].into_boxed_slice());
        c.set_index(by_start, by_end, work);
        let indexed = c
            .earliest_start(m(t), NodeCount(k), m(d), &mut b.scratch())
            .unwrap();
        if k > 0 && k as usize <= c.nodes.len() {
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
        swept.map(|f| f.start.0)
    }

    #[test]
    fn empty_cluster_starts_now() {
        let mut st = vec![NodeTimeline::new(); 4];
        let mut c = ClusterTimeline::new(&mut st);
        assert_eq!(earliest(&mut c, 5, 4, 10), Some(5));
        assert_eq!(earliest(&mut c, 5, 5, 10), None);
    }

    #[test]
    fn waits_for_enough_nodes_and_uses_a_void_that_fits() {
        let mut st = vec![NodeTimeline::new(); 3];
        let mut c = ClusterTimeline::new(&mut st);
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
        let mut st = vec![NodeTimeline::new(); 10];
        let mut c = ClusterTimeline::new(&mut st);
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
        let mut keys = [0u64; 10];
        assert_eq!(c.choose_nodes(m(0), m(20), m(10), &mut out, &mut keys), 3);
        // n6, n5, n3 (indices 5, 4, 2), in node order.
        assert_eq!(out, [2, 4, 5]);
    }

    #[test]
    fn booking_is_all_or_nothing() {
        let mut st = vec![NodeTimeline::new(); 2];
        let mut c = ClusterTimeline::new(&mut st);
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
        let mut st = vec![NodeTimeline::new(); 1];
        let mut c = ClusterTimeline::new(&mut st);
        for i in 0..MAX_BOOKINGS_PER_NODE as u64 {
            c.book(&[0], run(i as u32, i * 10, i * 10 + 5)).unwrap();
        }
        let e = c.book(&[0], run(999, 100_000, 100_005)).unwrap_err();
        assert!(matches!(e, Error::Capacity(ce) if ce.what == Capacity::NodeBookings));
    }

    #[test]
    fn early_completion_frees_nodes_then() {
        let mut st = vec![NodeTimeline::new(); 2];
        let mut c = ClusterTimeline::new(&mut st);
        c.book(&[0, 1], run(1, 0, 100)).unwrap();
        assert_eq!(earliest(&mut c, 10, 2, 5), Some(100));
        assert_eq!(c.complete(TaskId(1), m(40)), 2);
        assert_eq!(earliest(&mut c, 40, 2, 5), Some(40));
    }

    #[test]
    fn the_booking_log_and_change_counts() {
        let mut st = vec![NodeTimeline::new(); 3];
        let mut c = ClusterTimeline::new(&mut st);
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
        let mut st = vec![NodeTimeline::new(); 2];
        let mut c = ClusterTimeline::new(&mut st);
        let leak = |n: usize| -> &'static mut [Void] {
            std::boxed::Box::leak(vec![Void::default(); n].into_boxed_slice())
        };
        c.set_index(leak(8), leak(8), leak(ClusterTimeline::index_work_len(2)));
        c.book(&[0], run(1, 10, 20)).unwrap();
        assert!(c.fresh_index());
        // Node 0's void [0, 10) as a change stamped 1 noted it, 2^32 changes ago; the next
        // change's stamp wraps round to 1 and must not take that void for one it splits.
        let ix = c.index.as_mut().unwrap();
        ix.work[0] = Void {
            start: 0,
            end: 10,
            node: 1,
        };
        ix.stamp = u32::MAX;
        c.book(&[1], run(2, 30, 40)).unwrap();
        assert_eq!(c.index.as_ref().unwrap().built, Some(c.version));
        index_is_its_rebuild(&mut c).unwrap();
    }

    #[test]
    fn removing_by_start_equals_removing_by_scan() {
        let book_all = |c: &mut ClusterTimeline<'_>| {
            c.book(&[0, 2], run(1, 0, 10)).unwrap();
            c.book(&[1], run(2, 0, 30)).unwrap();
            c.book(&[0, 1, 2], run(3, 40, 50)).unwrap();
        };
        let (mut a, mut b) = (vec![NodeTimeline::new(); 3], vec![NodeTimeline::new(); 3]);
        let (mut ca, mut cb) = (ClusterTimeline::new(&mut a), ClusterTimeline::new(&mut b));
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
        for (x, y) in ca.nodes().iter().zip(cb.nodes()) {
            assert_eq!(x.bookings(), y.bookings());
        }
    }

    #[test]
    fn free_over_counts_up_to_what_is_wanted() {
        let mut st = vec![NodeTimeline::new(); 4];
        let mut c = ClusterTimeline::new(&mut st);
        c.book(&[0], run(1, 0, 10)).unwrap();
        c.book(&[1], run(2, 20, 30)).unwrap();
        assert_eq!(c.free_over(m(0), m(20), u32::MAX), 3);
        assert_eq!(c.free_over(m(10), m(20), u32::MAX), 4);
        assert_eq!(c.free_over(m(10), m(20), 2), 2);
        assert_eq!(c.free_over(m(0), m(100), u32::MAX), 2);
    }

    #[test]
    fn free_node_time_counts_unbooked_time() {
        let mut st = vec![NodeTimeline::new(); 2];
        let mut c = ClusterTimeline::new(&mut st);
        c.book(&[0], run(1, 0, 30)).unwrap();
        c.book(&[1], place(2, 50, 150)).unwrap();
        // [10, 100): node 0 free 70, node 1 free 40.
        assert_eq!(c.free_node_time(m(10), m(100)), 110);
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
        st: &'a mut [NodeTimeline],
        nodes: &[Vec<(u64, u64)>],
        placeholders: bool,
    ) -> ClusterTimeline<'a> {
        let mut c = ClusterTimeline::new(st);
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

    proptest! {
        #[test]
        fn earliest_start_agrees_with_brute_force(nodes in arb_cluster(), t in 0u64..300, k in 1usize..7, d in 1u64..80) {
            let mut st = vec![NodeTimeline::new(); nodes.len()];
            let mut c = build(&mut st, &nodes, false);
            let got = earliest(&mut c, t, k as u32, d);
            prop_assert_eq!(got, brute(&nodes, t, k, d));
            // And the nodes chosen there are really free, distinct, and as many as asked.
            if let Some(s) = got {
                let mut out = vec![0u32; k];
                let mut keys = vec![0u64; nodes.len()];
                prop_assert_eq!(c.choose_nodes(m(t), m(s), m(d), &mut out, &mut keys), k);
                for (i, &n) in out.iter().enumerate() {
                    prop_assert!(c.node(n).unwrap().is_free(m(s), m(s + d)));
                    prop_assert!(!out[..i].contains(&n));
                }
            }
        }

        #[test]
        fn no_node_is_ever_booked_twice(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..7, 1u64..60), 1..20)) {
            let mut st = vec![NodeTimeline::new(); nodes.len()];
            let mut c = build(&mut st, &nodes, false);
            let mut bufs = Bufs::new(nodes.len());
            for (i, (t, k, d)) in reqs.into_iter().enumerate() {
                let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
                if let Some(f) = fit {
                    let mut out = vec![0u32; k as usize];
                    let mut keys = vec![0u64; nodes.len()];
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
            let mut st = vec![NodeTimeline::new(); nodes.len()];
            let mut c = build(&mut st, &nodes, false);
            let l = ClusterTimeline::scratch_len(nodes.len());
            let leak = |n: usize| -> &'static mut [Void] { std::boxed::Box::leak(vec![Void::default(); n].into_boxed_slice()) };
            c.set_index(leak(l), leak(l), leak(3 * nodes.len()));
            let mut bufs = Bufs::new(nodes.len());
            let mut incremental = 0;
            for (i, (t, k, d)) in reqs.into_iter().enumerate() {
                let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
                let swept = c.swept_earliest(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
                prop_assert_eq!(fit, swept);
                if let Some(f) = fit {
                    let mut out = vec![0u32; k as usize];
                    let mut keys = vec![0u64; nodes.len()];
                    c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                    // Node choice read off the index is the choice from every timeline,
                    // and so are the counts of free nodes.
                    let mut scanned = vec![0u32; k as usize];
                    c.choose_nodes_by(false, m(t), f.start, m(d), &mut scanned, &mut keys);
                    prop_assert_eq!(&out, &scanned);
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
        fn the_index_without_place_holders_is_kept_through_events(nodes in arb_cluster(), ops in prop::collection::vec((0u8..4, 0u64..300, 1u32..5, 1u64..60), 1..40)) {
            let mut st = vec![NodeTimeline::new(); nodes.len()];
            let mut c = build(&mut st, &nodes, false);
            let l = ClusterTimeline::scratch_len(nodes.len());
            let leak = |n: usize| -> &'static mut [Void] { std::boxed::Box::leak(vec![Void::default(); n].into_boxed_slice()) };
            c.set_index(leak(l), leak(l), leak(ClusterTimeline::index_work_len(nodes.len())));
            c.set_base_index(leak(l), leak(l));
            let mut bufs = Bufs::new(nodes.len());
            let mut live: Vec<(u32, u64, u64)> = Vec::new();
            let (mut copied, mut kept) = (0, 0);
            for (i, &(op, t, k, d)) in ops.iter().enumerate() {
                let id = 7000 + i as u32;
                match op {
                    // An event: the place-holders go, and what ended by t.
                    0 => {
                        let had = c.held > 0;
                        c.clear_place_holders();
                        let before: Vec<Vec<Booking>> = c.nodes().iter().map(|n| n.bookings().to_vec()).collect();
                        c.prune(m(t));
                        for (n, b) in c.nodes().iter().zip(before) {
                            let kept: Vec<Booking> = b.into_iter().filter(|b| b.end.0 > t).collect();
                            prop_assert_eq!(n.bookings(), &kept[..]);
                        }
                        live.retain(|&(_, _, e)| e > t);
                        if had && c.index.as_ref().unwrap().built == Some(c.version) {
                            copied += 1;
                        }
                    }
                    // A reservation or a place-holder at the earliest start.
                    1 | 2 => {
                        if let Some(f) = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap() {
                            let mut out = vec![0u32; k as usize];
                            let mut keys = vec![0u64; nodes.len()];
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
                let held = c.nodes().iter().flat_map(|n| n.bookings()).filter(|b| b.kind == BookingKind::PlaceHolder).count();
                prop_assert_eq!(c.held as usize, held);
                let booked: usize = c.nodes().iter().map(|n| n.bookings().len()).sum();
                prop_assert_eq!(c.booked as usize, booked);
                let first_end = c.nodes().iter().flat_map(|n| n.bookings()).map(|b| b.end).min();
                prop_assert!(first_end.is_none_or(|e| c.first_end <= e));
                // The base, when kept, is the index a cluster without place-holders rebuilds.
                let ix = c.index.as_ref().unwrap();
                if ix.base.ok {
                    kept += 1;
                    let base = (ix.base.by_start[..ix.base.len].to_vec(), ix.base.by_end[..ix.base.len].to_vec());
                    let mut st2 = vec![NodeTimeline::new(); nodes.len()];
                    let mut c2 = ClusterTimeline::new(&mut st2);
                    for (n, node) in c.nodes().iter().enumerate() {
                        for b in node.bookings().iter().filter(|b| b.kind != BookingKind::PlaceHolder) {
                            c2.book(&[n as u32], *b).unwrap();
                        }
                    }
                    c2.set_index(leak(l), leak(l), leak(ClusterTimeline::index_work_len(nodes.len())));
                    prop_assert!(c2.fresh_index());
                    let ix2 = c2.index.as_ref().unwrap();
                    prop_assert_eq!(&base.0[..], &ix2.by_start[..ix2.len]);
                    prop_assert_eq!(&base.1[..], &ix2.by_end[..ix2.len]);
                }
                // And the index, when fresh, is its own rebuild.
                if c.index.as_ref().unwrap().built == Some(c.version) {
                    index_is_its_rebuild(&mut c)?;
                }
            }
            let _ = (copied, kept);
        }

        #[test]
        fn clearing_place_holders_restores_the_state_before_them(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..4, 1u64..60), 1..10)) {
            let mut st = vec![NodeTimeline::new(); nodes.len()];
            let mut c = build(&mut st, &nodes, false);
            let before: Vec<Vec<Booking>> = c.nodes().iter().map(|n| n.bookings().to_vec()).collect();
            let mut bufs = Bufs::new(nodes.len());
            for (i, (t, k, d)) in reqs.into_iter().enumerate() {
                if let Some(f) = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap() {
                    let mut out = vec![0u32; k as usize];
                    let mut keys = vec![0u64; nodes.len()];
                    c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                    let _ = c.book(&out, place(5000 + i as u32, f.start.0, f.start.0 + d));
                }
            }
            c.clear_place_holders();
            let after: Vec<Vec<Booking>> = c.nodes().iter().map(|n| n.bookings().to_vec()).collect();
            prop_assert_eq!(before, after);
        }
    }
}

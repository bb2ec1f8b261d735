//! The earliest start: where `k` nodes of a cluster are first free together for a run of
//! `d` ([`ClusterTimeline::earliest_start`]), and the counts of free nodes and free
//! node-time the controller reads.
//!
//! Three ways to the same answer. With a fresh void index (`void_index.rs`) it is a merge of
//! the index's two sorted arrays that stops at the answer. Without one (no buffers, or too
//! few), the admissible voids are collected in the caller's [`Scratch`] and sorted: one entry
//! a group, its nodes counted at once ([`swept_by_groups`](ClusterTimeline::swept_by_groups)),
//! or one entry a node when a time to tell apart lies too far past `t` to pack in a key
//! ([`swept_by_nodes`](ClusterTimeline::swept_by_nodes)).
//!
//! Data flow: reads the groups, their bookings and the index; changes nothing but a stale
//! index, which it rebuilds.

use super::groups;
use super::ClusterTimeline;
use crate::error::{full, Capacity, Error};
use crate::limits::MAX_BOOKINGS_PER_NODE;
use crate::units::{Micros, NodeCount};

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
    fn capacity(&self) -> usize {
        self.firsts.len().min(self.lasts.len())
    }
}

/// Bits of a grouped sweep's key ([`ClusterTimeline::swept_by_groups`]) below its time: a
/// group's name (a cluster has fewer than 2^20 nodes).
const SWEEP_SHIFT: u32 = 20;

/// The mask of a grouped sweep key's name.
const SWEEP_NAME: u64 = (1 << SWEEP_SHIFT) - 1;

/// The most a grouped sweep's key holds of a time past the query's `t` (2^44 - 1 µs, about
/// 203 days): later times are all packed as it.
const SWEEP_FAR: u64 = (1 << (64 - SWEEP_SHIFT)) - 1;

impl<'a> ClusterTimeline<'a> {
    /// Scratch entries the sweep needs for a cluster of `nodes` nodes in the worst case.
    pub const fn scratch_len(nodes: usize) -> usize {
        nodes * (MAX_BOOKINGS_PER_NODE + 1)
    }

    /// The earliest start at or after `t` (at or after the horizon, the latest `now` given to
    /// [`prune`](Self::prune)) at which `k` nodes are free for `d`, or `None` if the cluster
    /// has fewer than `k` nodes.
    pub fn earliest_start(
        &mut self,
        t: Micros,
        k: NodeCount,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        if k.0 == 0 || k.0 as usize > self.n {
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
        let (start, free) = ix.first_fit(t.0, k, d.0, u64::MAX)?;
        Some(Fit {
            start: Micros(start),
            free,
        })
    }

    /// The earliest start by collecting and sorting the admissible voids in `scratch`: one
    /// entry per group's void, weighted by its nodes ([`swept_by_groups`]), or, when its
    /// times lie too far past `t` to pack, one per node's void.
    ///
    /// [`swept_by_groups`]: Self::swept_by_groups
    pub(super) fn swept_earliest(
        &self,
        t: Micros,
        k: NodeCount,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        let k = k.0 as usize;
        let n = self.n;
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
    pub(super) fn swept_by_groups(
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
            let last = Micros(self.groups.span(g).last_end());
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
        let bs = self.pool.list(g);
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
    pub(super) fn swept_by_nodes(
        &self,
        t: Micros,
        k: usize,
        d: Micros,
        scratch: &mut Scratch<'_>,
    ) -> Result<Option<Fit>, Error> {
        let n = self.n;
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
            let last = Micros(self.groups.span(g).last_end());
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

    /// How many nodes are free over `[s, e)` (`s` at or after the latest `now` given to
    /// [`prune`](Self::prune)), counting no further than `want` (so a "can `k` nodes start
    /// now" question stops at the `k`-th free node).
    pub fn free_over(&self, s: Micros, e: Micros, want: u32) -> u32 {
        self.free_over_by(true, s, e, want)
    }

    /// [`free_over`](Self::free_over), from the void index when `indexed` and it is fresh.
    pub(super) fn free_over_by(&self, indexed: bool, s: Micros, e: Micros, want: u32) -> u32 {
        let index = self
            .index
            .as_ref()
            .filter(|ix| indexed && ix.built == Some(self.version));
        if let (Some(ix), true) = (index, s < e) {
            let (_, _, opened, ended) = ix.count_over(s.0, e.0);
            return (opened - ended).min(want);
        }
        let mut n = 0;
        if s < self.first_end && s < e {
            // Every booking ends after s, so a group is free over [s, e) exactly when its
            // first booking starts at or after e: its span's head decides, and the walk
            // reads nothing else (the "can it start now" questions of backfilling).
            let live = self.groups.live();
            for (p, x) in self.groups.entry_chunks().enumerate() {
                if groups::head(x) >= e.0 {
                    n += self.groups.size[live[p] as usize];
                    if n >= want {
                        break;
                    }
                }
            }
            return n.min(want);
        }
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

    /// Node-time not booked within `[from, to)`, summed over nodes (seed 000 Eq. 6, in
    /// node-microseconds: multiply by cores per node for core-microseconds).
    pub(crate) fn free_node_time(&self, from: Micros, to: Micros) -> u128 {
        if to <= from {
            return 0;
        }
        let mut total: u128 = 0;
        for &g in self.groups.live() {
            let mut busy: u64 = 0;
            for b in self.pool.list(g) {
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

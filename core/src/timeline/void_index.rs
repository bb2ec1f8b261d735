//! The void index: every node's voids as a multiset, sorted by start and by end, so that
//! the earliest-start query is a merge that stops at its answer instead of a sort.
//!
//! It is built from the groups (each group's voids, weighted by its nodes) when a query finds
//! it stale, and kept current through a change by the change's edits: a booking or a removal
//! notes the voids its nodes lose and gain ([`ClusterTimeline::edit_split`]), and
//! [`ClusterTimeline::apply_edits`] merges them into both sorted arrays. A change with more
//! edits than the work buffer holds, or one that does not say what it did to the voids,
//! leaves it stale for the next query to rebuild. The buffers are the caller's
//! ([`ClusterTimeline::set_index`]); an index that does not fit leaves the queries to the
//! sweeps of `earliest.rs`, with the same answers.
//!
//! Data flow: it reads the groups (`groups.rs`) and their bookings (`node.rs`) when rebuilt;
//! the changes (`choice.rs`, `release.rs`) write to it; the queries (`earliest.rs`) read it.

use super::node::NodeTimeline;
use super::ClusterTimeline;

/// A void that `weight` nodes have: free from `start` (the previous booking's end, or zero)
/// to `end` (the next booking's start, or the end of time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Void {
    /// First free instant.
    pub(super) start: u64,
    /// First instant booked again.
    pub(super) end: u64,
    /// Nodes with this void.
    pub(super) weight: u32,
    /// Total weight of the voids before it in its sorted array (so that a binary search
    /// counts nodes, not voids).
    pub(super) before: u32,
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
pub(super) struct VoidIndex<'a> {
    pub(super) by_start: &'a mut [Void],
    pub(super) by_end: &'a mut [Void],
    /// Room for the voids one change rewrites.
    work: &'a mut [Void],
    pub(super) len: usize,
    /// Total weight of the voids.
    pub(super) total: u32,
    /// Edits of the change being made, in `work[..edits]`, each a void of `weight` nodes
    /// that goes (`before` 0) or comes (1) (`None`: more than fit).
    edits: Option<usize>,
    /// The cluster version it was built for (`None`: stale, or did not fit).
    pub(super) built: Option<u32>,
}

impl VoidIndex<'_> {
    /// The nodes free over `[s, e)` as two counts, `opened - ended`, with the positions
    /// after the voids that open by `s` (by start) and before those that close at or after
    /// `e` (by end): the nodes whose void opens by `s` and closes at or after `e` are
    /// `W{start <= s} - W{end < e} + W{s < start, end < e}` (`W`: the voids' total weight),
    /// two binary searches and a walk over the voids that open inside `(s, e)`.
    pub(super) fn count_over(&self, s: u64, e: u64) -> (usize, usize, u32, u32) {
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

    /// The first start in `[t, last]` at which `k` nodes are free for `d`, as the index
    /// counts them, and how many are free then: from the counts at `t`, a sweep over the
    /// voids' starts (the candidate starts), adding the admissible voids that open there and
    /// taking away those whose last admissible start is before it.
    pub(super) fn first_fit(&self, t: u64, k: u32, d: u64, last: u64) -> Option<(u64, u32)> {
        let (starts, ends) = (&self.by_start[..self.len], &self.by_end[..self.len]);
        let (mut i, mut e, mut opened, mut ended) = self.count_over(t, t.saturating_add(d));
        if opened - ended >= k {
            return Some((t, opened - ended));
        }
        // Past t, a void is admissible if it is long enough for d; the weights counted so
        // far (at t) are all of admissible voids, so the two counts go on from there.
        let admits = |x: &Void| x.end - x.start >= d;
        while i < starts.len() {
            let s = starts[i].start;
            if s > last {
                return None;
            }
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
                return Some((s, opened - ended));
            }
        }
        None
    }

    /// Adds an edit of the change being made (see [`ClusterTimeline::edit`]), unless the
    /// void ends by `horizon` (the index leaves those out); more than fit make the change a
    /// rebuild.
    #[inline]
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
        // leaves far fewer edits to sort.
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

impl<'a> ClusterTimeline<'a> {
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

    /// Rebuilds the void index if a booking changed since it was built; false if it cannot
    /// hold every void.
    pub(super) fn fresh_index(&mut self) -> bool {
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
            let node = NodeTimeline {
                bookings: self.pool.list(g),
            };
            for (start, end) in node.voids() {
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
    pub(super) fn begin_edits(&mut self, fresh: bool) {
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
    pub(super) fn edit_split(
        &mut self,
        joined: bool,
        lo: u64,
        hi: u64,
        (s, e): (u64, u64),
        weight: u32,
    ) {
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
    pub(super) fn apply_edits(&mut self) {
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

    /// Takes the voids that end by the horizon out of a fresh index (they are the first
    /// voids in its order by end), so that it holds the voids a rebuild would.
    pub(super) fn drop_dead_voids(&mut self) {
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
}

/// The void index's order by start (an entry's key: entries are distinct voids).
pub(super) fn by_start_key(x: &Void) -> (u64, u64) {
    (x.start, x.end)
}

/// The void index's order by end (total likewise).
pub(super) fn by_end_key(x: &Void) -> (u64, u64) {
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

/// Blocks of entries this short are moved one by one: a call to `copy_within` costs more.
const SHORT_MOVE: usize = 8;

/// The number of leading entries of `arr` for which `before` holds (it holds for a prefix,
/// as for `partition_point`): by doubling steps from the start, then a binary search in the
/// last step, so that it costs the logarithm of the answer rather than of the length.
#[inline]
fn gallop(arr: &[Void], before: impl Fn(&Void) -> bool) -> usize {
    let mut lo = 0;
    let mut step = 1;
    while lo + step <= arr.len() && before(&arr[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    // Every entry before `lo` holds; the answer is within the next `step` (or the rest).
    let hi = (lo + step).min(arr.len());
    lo + arr[lo..hi].partition_point(before)
}

/// Applies `edits` (sorted by `key`; `before` says whether each void's weight goes, 0, or
/// comes, 1) to one sorted array of `len` voids, in one pass from the first edit, and counts
/// the weights again from there. An entry whose weight drops to 0 goes; a void not there
/// comes. Returns the new length and the total weight; `None` if it does not fit in `cap` or
/// more weight goes than a void has.
#[inline]
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
        // The entries before this void keep their order: found by a search that gallops
        // from the last edit (a change's edits mostly lie close together) and moved as one
        // block (none move while no entry has come or gone yet).
        let m = gallop(&arr[r..end], |y| key(y) < k);
        if w != r {
            if m <= SHORT_MOVE {
                // Down, in order: an entry is read before anything lands on it.
                for j in 0..m {
                    arr[w + j] = arr[r + j];
                }
            } else {
                arr.copy_within(r..r + m, w);
            }
        }
        w += m;
        r += m;
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    proptest! {
        /// The galloping search finds what the binary search finds, wherever the prefix ends.
        #[test]
        fn gallop_is_partition_point(
            mut starts in prop::collection::vec(0u64..50, 0..70),
            k in 0u64..55,
        ) {
            starts.sort_unstable();
            let arr: Vec<Void> = starts
                .iter()
                .map(|&s| Void { start: s, end: s + 1, weight: 1, before: 0 })
                .collect();
            prop_assert_eq!(gallop(&arr, |x| x.start < k), arr.partition_point(|x| x.start < k));
        }
    }
}

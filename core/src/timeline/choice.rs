//! Node choice and booking: which `k` nodes a booking takes, and adding it to them.
//!
//! The choice (seed 000 §III.F) keys every free node by the idle voids the booking would
//! leave, then its void's size, then its index, and takes the lowest keys. Nodes of one group
//! share all but the last key, so the groups are keyed instead ([`choice_key`]), whole groups
//! taken in key order, and where groups tie at the margin their lowest members are merged by
//! index through a heap of their runs ([`lowest_members`]). Either way a group gives its
//! lowest members, so [`ClusterTimeline::book_chosen`] books the choice as it is made: it
//! counts what each group gives, splits the groups taken in part at that count (`groups.rs`),
//! and edits the void index (`void_index.rs`) once for each run of groups sharing a void. The
//! tests' `book` books a list of nodes the same way.
//!
//! Data flow: reads the groups' spans and bookings, writes bookings, groups, index edits and
//! the booking log and counts of `mod.rs`.

use super::groups::{self, Groups, Span, NONE};
use super::node::{Booking, BookingKind};
use super::ClusterTimeline;
use crate::error::{full, Capacity, Error, InputError};
use crate::heap::sift_down;
use crate::limits::MAX_BOOKINGS_PER_NODE;
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
        take_chosen(keys, heads, gr, out.len() as u32, |_, from, n| {
            for node in gr.members_from(from).take(n as usize) {
                out[got] = node;
                got += 1;
            }
        });
        // In node order, as a booking's nodes are expected.
        out[..got].sort_unstable();
        got
    }

    /// Writes the node-choice key ([`choice_key`]) of every group free over `[s, e)` to
    /// `keys` (room for one per group), unsorted; returns how many. It reads every group's
    /// bookings (the void index does not say whose voids it holds).
    fn free_group_keys(&self, now: Micros, s: Micros, e: Micros, keys: &mut [u64]) -> usize {
        let mut m = 0usize;
        if s < self.first_end && s < e {
            // Every booking ends after s (a booking that starts now, most often): a group is
            // free over [s, e) exactly when its first booking starts at or after e, and its
            // void is the one before it (`earliest.rs`, `free_over_by`).
            let live = self.groups.live();
            for (p, x) in self.groups.entry_chunks().enumerate() {
                let head = groups::head(x);
                if head >= e.0 {
                    keys[m] = choice_key(now, s, e, 0, head, live[p]);
                    m += 1;
                }
            }
            return m;
        }
        let d = e.0 - s.0;
        let live = self.groups.live();
        for (p, x) in self.groups.entry_chunks().enumerate() {
            // Free after its last booking, before its first, or (only if a void between
            // two is long enough) within: the span decides the first two and rules out
            // most of the rest on three words, before the span is read whole.
            let (head, tail) = (groups::head(x), groups::tail(x));
            let void = if s.0 >= tail {
                Some((tail, u64::MAX))
            } else if e.0 <= head {
                Some((0, head))
            } else if groups::gap(x) < d {
                // With one booking the gap is 0 (and d at least 1).
                None
            } else {
                match Span::at(x).decides(s.0, e.0) {
                    Some(v) => v,
                    None => self.void_in_bookings(live[p], s, e),
                }
            };
            if let Some((a, b)) = void {
                keys[m] = choice_key(now, s, e, a, b, live[p]);
                m += 1;
            }
        }
        m
    }

    /// Books `nodes` for `b`; all or nothing: on an overlap or a full node, nothing changes.
    /// The tests' reference for node choice, and a node's out-of-service block
    /// (`service.rs`).
    pub(crate) fn book(&mut self, nodes: &[u32], b: Booking) -> Result<(), Error> {
        if b.end <= b.start {
            return Err(InputError::ZeroDuration.into());
        }
        let fresh = self.index_fresh();
        // Count the nodes by group; check each group once.
        self.groups.begin();
        let mut t = 0usize;
        for (j, &n) in nodes.iter().enumerate() {
            let cluster_nodes = self.n as u32;
            let Some(g) = self.groups.group_of(n) else {
                return Err(InputError::BadNodeCount {
                    nodes: n + 1,
                    cluster_nodes,
                }
                .into());
            };
            if nodes[..j].contains(&n) {
                // The same node twice.
                return Err(InputError::Overlap.into());
            }
            if self.groups.mark[g as usize] != self.groups.stamp {
                let bs = self.pool.list(g);
                let i = bs.partition_point(|x| x.end <= b.start);
                if bs.get(i).is_some_and(|x| x.start < b.end) {
                    return Err(InputError::Overlap.into());
                }
                if self.pool.is_full(g) {
                    return Err(full(Capacity::NodeBookings, MAX_BOOKINGS_PER_NODE).into());
                }
            }
            self.groups.touch(g, &mut t);
            self.groups.taken[g as usize] += 1;
        }
        self.reserve_for(t)?;
        self.book_taken(t, nodes.len() as u32, b, fresh, nodes)
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
        // How many nodes each group gives (its lowest members).
        self.groups.begin();
        let mut t = 0usize;
        let Groups {
            run_len,
            run_next,
            run_group,
            head,
            size,
            mark,
            taken,
            list,
            stamp,
            ..
        } = &mut self.groups;
        let runs = Runs {
            run_len,
            run_next,
            run_group,
            head,
            size,
        };
        // `Groups::touch`, inline: the runs are borrowed meanwhile.
        let got = take_chosen(keys, heads, runs, k, |g, _, n| {
            let g = g as usize;
            if mark[g] != *stamp {
                mark[g] = *stamp;
                list[t] = g as u32;
                t += 1;
                taken[g] = 0;
            }
            taken[g] += n;
        });
        // Nothing is changed yet (counts of an abandoned change are reset at the next touch).
        if got < k {
            return Ok(false);
        }
        if self.groups.list[..t].iter().any(|&g| self.pool.is_full(g)) {
            return Err(full(Capacity::NodeBookings, MAX_BOOKINGS_PER_NODE).into());
        }
        self.reserve_for(t)?;
        self.book_taken(t, k, b, fresh, &[])?;
        Ok(true)
    }

    /// Makes sure the pool has room for the change to the groups `groups.list[..t]` (a new
    /// block for each, at most), so that it cannot fail half-way.
    fn reserve_for(&mut self, t: usize) -> Result<(), Error> {
        let gr = &self.groups;
        let need: usize = gr.list[..t]
            .iter()
            .map(|&g| self.pool.block_after_insert(g))
            .sum();
        self.pool.reserve(need, gr.live())
    }

    /// Books `b` on the groups `groups.list[..t]`, `groups.taken[g]` nodes of each (checked
    /// free and with room in the pool): a group's lowest members, or with `nodes` (the tests'
    /// `book`) those in it; `k` nodes in all, `fresh`: the index was.
    fn book_taken(
        &mut self,
        mut t: usize,
        k: u32,
        b: Booking,
        fresh: bool,
        nodes: &[u32],
    ) -> Result<(), Error> {
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
                self.split(g, w, &mut t, nodes)?;
            }
        }
        if let Some((a, z, n)) = run {
            self.edit_split(false, a, z, (s, e), n);
        }
        let held = b.kind == BookingKind::PlaceHolder;
        for x in 0..t {
            let g = self.groups.list[x];
            if self.groups.taken[g as usize] != 0 {
                let bs = self.pool.list(g);
                let i = match bs.last() {
                    Some(l) if l.end > b.start => bs.partition_point(|x| x.end <= b.start),
                    _ => bs.len(),
                };
                // Checked by the callers: the group is free there, and the pool has room.
                let live = &self.groups.live[..self.groups.count];
                self.pool.insert(g, i, b, live)?;
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
        if b.kind == BookingKind::Reserved {
            self.reserved = Some((b.task, self.loosened));
        }
        self.log_booking(&b, k);
        Ok(())
    }

    /// Splits the `c` nodes a booking takes off group `g`: its lowest, or with `nodes` (the
    /// tests' `book`) those in it.
    fn split(&mut self, g: u32, c: u32, t: &mut usize, nodes: &[u32]) -> Result<(), Error> {
        if !nodes.is_empty() {
            return self.split_by(g, nodes, t);
        }
        self.split_prefix(g, c, t)
    }

    /// The void of group `g` that instant `at` falls in (at or after the last booking
    /// that ends by `at`), as (start, end).
    fn void_bounds(&self, g: u32, at: Micros) -> (u64, u64) {
        let bs = self.pool.list(g);
        let i = match bs.last() {
            Some(l) if l.end > at => bs.partition_point(|x| x.end <= at),
            _ => bs.len(),
        };
        let lo = if i == 0 { 0 } else { bs[i - 1].end.0 };
        (lo, bs.get(i).map_or(u64::MAX, |x| x.start.0))
    }
}

/// What node choice reads of the groups' runs (borrowed apart from the marks it writes).
pub(super) struct Runs<'x> {
    pub(super) run_len: &'x [u32],
    pub(super) run_next: &'x [u32],
    pub(super) run_group: &'x [u32],
    pub(super) head: &'x [u32],
    pub(super) size: &'x [u32],
}

impl<'x> From<&'x Groups<'_>> for Runs<'x> {
    fn from(gr: &'x Groups<'_>) -> Runs<'x> {
        Runs {
            run_len: gr.run_len,
            run_next: gr.run_next,
            run_group: gr.run_group,
            head: gr.head,
            size: gr.size,
        }
    }
}

/// Node choice over the free groups whose keys ([`choice_key`]) are `keys`, sorted: calls
/// `take(g, from, n)` for `n` members of group `g` from its run `from` on (always its lowest
/// members not yet taken), in the choice's order, until `want` nodes are taken or the groups
/// run out; returns how many were taken. Whole groups come first; where several groups share
/// the marginal key, their lowest nodes come run by run from a heap merge in `heads` (room
/// for one entry a group).
fn take_chosen<'x>(
    keys: &[u64],
    heads: &mut [u64],
    runs: impl Into<Runs<'x>>,
    want: u32,
    mut take: impl FnMut(u32, u32, u32),
) -> u32 {
    let runs: Runs<'x> = runs.into();
    let mut got = 0u32;
    let mut i = 0usize;
    while i < keys.len() && got < want {
        // The run of groups whose nodes' keys differ only in the node index.
        let class = keys[i] >> 20;
        let j = i + keys[i..].iter().take_while(|&&x| x >> 20 == class).count();
        let run = &keys[i..j];
        let weight: u32 = run
            .iter()
            .map(|&x| runs.size[(x & 0xF_FFFF) as usize])
            .sum();
        if got + weight <= want || run.len() == 1 {
            // Whole groups, or one group's lowest nodes.
            for &x in run {
                let g = (x & 0xF_FFFF) as u32;
                let n = runs.size[g as usize].min(want - got);
                take(g, runs.head[g as usize], n);
                got += n;
            }
        } else {
            let heads = &mut heads[..run.len()];
            for (h, &x) in heads.iter_mut().zip(run) {
                *h = runs.head[(x & 0xF_FFFF) as usize] as u64;
            }
            got += lowest_members(heads, &runs, want - got, &mut take);
        }
        i = j;
    }
    got
}

/// Takes the `want` lowest nodes (fewer if there are not so many) of the groups whose first
/// runs are `heads`, lowest first: a merge of their run lists through a binary min-heap of
/// each group's next run, kept in `heads`. Runs of different groups never overlap, so the
/// lowest run's nodes all come before any other group's: it is taken whole (or its first
/// nodes, at the end) by one call of `take(g, run, n)`. O(R log G) for R runs taken from G
/// groups. Returns how many were taken.
fn lowest_members(
    heads: &mut [u64],
    runs: &Runs<'_>,
    want: u32,
    take: &mut impl FnMut(u32, u32, u32),
) -> u32 {
    let mut h = heads.len();
    for p in (0..h / 2).rev() {
        sift_down(&mut heads[..h], p, |a, b| a < b);
    }
    let mut got = 0u32;
    while got < want && h > 0 {
        let r = heads[0] as u32;
        let n = runs.run_len[r as usize].min(want - got);
        take(runs.run_group[r as usize], r, n);
        got += n;
        match runs.run_next[r as usize] {
            NONE => {
                h -= 1;
                heads[0] = heads[h];
            }
            next => heads[0] = next as u64,
        }
        sift_down(&mut heads[..h], 0, |a, b| a < b);
    }
    got
}

/// Node choice's sort key of a free group whose void is `[a, b)`, for a booking over
/// `[s, e)`: new idle voids, then void size, then the group's id (which only tells the
/// groups apart: where groups tie on the rest, their nodes go by index, [`take_chosen`]).
/// Its nodes all have this key but for their index, the last key, so a group's lowest nodes
/// go first.
pub(super) fn choice_key(now: Micros, s: Micros, e: Micros, a: u64, b: u64, g: u32) -> u64 {
    let a = a.max(now.0);
    let new_before = (s.0 > a) as u64;
    let new_after = (b != u64::MAX && e.0 < b) as u64;
    let size = if b == u64::MAX { u64::MAX } else { b - a };
    let size = size.min((1 << 42) - 1);
    ((new_before + new_after) << 62) | (size << 20) | (g as u64 & 0xF_FFFF)
}

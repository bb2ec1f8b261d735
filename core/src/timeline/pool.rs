//! The booking pool: every group's sorted bookings, each a block of the one booking buffer
//! the caller gives the cluster, allocated as used.
//!
//! A node's bookings used to be a fixed array of [`MAX_BOOKINGS_PER_NODE`] in a slot of its
//! own, so a cluster cost that much memory a node before its first booking, though only the
//! slot of each group's name ever held any. Here a group's list is a block of the caller's
//! buffer, sized for what it holds (a power of two, [`MIN_BLOCK`] at least, never more than
//! [`MAX_BOOKINGS_PER_NODE`]): a group with no booking holds no block, and a list that
//! outgrows its block moves to one twice as large. Blocks are cut from the top of the buffer
//! (a bump allocator); a block left behind is garbage until the pool is compacted, every held
//! block slid down in place, which it is once the garbage outweighs what is held (so the
//! buffer's used prefix stays within about twice the bookings held, and a caller whose buffer
//! pages are mapped as touched pays for that prefix only) or when the top reaches the end.
//! A list that cannot be placed even then is a [`Capacity::Bookings`] error; a list already
//! holding [`MAX_BOOKINGS_PER_NODE`] is a [`Capacity::NodeBookings`] error, as a node's
//! fixed array was.
//!
//! Blocks are named by group (the index of `at`, `len`, `cap`), so only the pool knows where
//! a list is: callers ask for a group's list each time, and a change to one list may move
//! any other.
//!
//! Data flow: the groups (`groups.rs`) create, copy and release lists; the changes
//! (`choice.rs`, `release.rs`) edit them; everything else reads them. This file depends on
//! nothing of its siblings but the [`Booking`].

use super::node::Booking;
use crate::error::{full, full_needing, Capacity, Error};
use crate::limits::MAX_BOOKINGS_PER_NODE;

/// The smallest block a list is given.
const MIN_BLOCK: usize = 4;

/// Garbage the pool tolerates beyond what it holds before it compacts: compacting costs a
/// sort of the held blocks, so a small pool is not compacted at every other booking.
const SLACK: usize = 4096;

/// `u32`s of per-group bookkeeping the pool takes from a cluster's `members` storage, a node.
pub(super) const POOL_ARRAYS: usize = 4;

/// Every group's bookings, as blocks of the caller's buffer.
pub(super) struct Pool<'a> {
    store: &'a mut [Booking],
    /// Per group: where its block starts.
    at: &'a mut [u32],
    /// Per group: bookings in its list.
    len: &'a mut [u32],
    /// Per group: its block's size (0: it holds none).
    cap: &'a mut [u32],
    /// Scratch for compaction: the groups holding blocks, by position.
    order: &'a mut [u32],
    /// The first position no block reaches.
    top: usize,
    /// Bookings' room in held blocks.
    held: usize,
    /// The most `held` has been: the least pool this cluster's run so far needed (a pool as
    /// long never runs out, whatever its garbage, since compaction leaves `held`).
    peak: usize,
}

impl<'a> Pool<'a> {
    /// An empty pool for `groups` groups over `store`, its bookkeeping in `arrays` (at least
    /// [`POOL_ARRAYS`] `u32`s a group).
    pub(super) fn new(store: &'a mut [Booking], arrays: &'a mut [u32], groups: usize) -> Self {
        let (at, rest) = arrays.split_at_mut(groups);
        let (len, rest) = rest.split_at_mut(groups);
        let (cap, rest) = rest.split_at_mut(groups);
        let (order, _) = rest.split_at_mut(groups);
        len.fill(0);
        cap.fill(0);
        // Positions are u32: a longer buffer is used up to that.
        let room = store.len().min(u32::MAX as usize);
        Pool {
            store: &mut store[..room],
            at,
            len,
            cap,
            order,
            top: 0,
            held: 0,
            peak: 0,
        }
    }

    /// Bookings the pool can hold.
    pub(super) fn capacity(&self) -> usize {
        self.store.len()
    }

    /// The most bookings' room held in blocks at once (see the field).
    pub(super) fn peak(&self) -> usize {
        self.peak
    }

    /// Group `g`'s bookings.
    #[inline]
    pub(super) fn list(&self, g: u32) -> &[Booking] {
        let g = g as usize;
        let at = self.at[g] as usize;
        &self.store[at..at + self.len[g] as usize]
    }

    /// Group `g`'s bookings, to change in place.
    #[inline]
    pub(super) fn list_mut(&mut self, g: u32) -> &mut [Booking] {
        let g = g as usize;
        let at = self.at[g] as usize;
        &mut self.store[at..at + self.len[g] as usize]
    }

    /// Whether group `g`'s list is as long as a node's may be.
    pub(super) fn is_full(&self, g: u32) -> bool {
        self.len[g as usize] as usize >= MAX_BOOKINGS_PER_NODE
    }

    /// Empties group `g`'s list and gives its block back.
    pub(super) fn clear(&mut self, g: u32) {
        let g = g as usize;
        self.held -= self.cap[g] as usize;
        self.cap[g] = 0;
        self.len[g] = 0;
    }

    /// Empties every list (`groups`: the groups that may hold one).
    pub(super) fn clear_all(&mut self, groups: &[u32]) {
        for &g in groups {
            self.clear(g);
        }
        self.top = 0;
        self.held = 0;
    }

    /// Inserts `b` at position `i` of group `g`'s list (`live`: every group that may hold a
    /// block, should the pool compact).
    pub(super) fn insert(
        &mut self,
        g: u32,
        i: usize,
        b: Booking,
        live: &[u32],
    ) -> Result<(), Error> {
        let n = self.len[g as usize] as usize;
        if n >= MAX_BOOKINGS_PER_NODE {
            return Err(full(Capacity::NodeBookings, MAX_BOOKINGS_PER_NODE).into());
        }
        if n == self.cap[g as usize] as usize {
            self.grow(g, n + 1, live)?;
        }
        let at = self.at[g as usize] as usize;
        self.store.copy_within(at + i..at + n, at + i + 1);
        self.store[at + i] = b;
        self.len[g as usize] += 1;
        Ok(())
    }

    /// Makes group `to` (holding no block) a copy of group `from`'s list, with room for
    /// `extra` more.
    pub(super) fn copy(
        &mut self,
        from: u32,
        to: u32,
        extra: usize,
        live: &[u32],
    ) -> Result<(), Error> {
        let n = self.len[from as usize] as usize;
        if n == 0 && extra == 0 {
            return Ok(());
        }
        let at = self.alloc(block_for(n + extra), live)?;
        // Read after the allocation: a compaction may have moved the source.
        let src = self.at[from as usize] as usize;
        self.store.copy_within(src..src + n, at);
        self.set(to, at, n, block_for(n + extra));
        Ok(())
    }

    /// Gives group `g` (holding no block) a list of `bs`, cut from the top (a copy's, into an
    /// emptied pool: there is no garbage to compact).
    pub(super) fn set_list(&mut self, g: u32, bs: &[Booking]) -> Result<(), Error> {
        if bs.is_empty() {
            return Ok(());
        }
        let size = block_for(bs.len());
        if self.top + size > self.store.len() {
            return Err(self.short(self.top + size));
        }
        let at = self.top;
        self.top += size;
        self.held += size;
        self.peak = self.peak.max(self.held);
        self.store[at..at + bs.len()].copy_from_slice(bs);
        self.set(g, at, bs.len(), size);
        Ok(())
    }

    /// Removes and returns booking `i` of group `g`.
    pub(super) fn remove(&mut self, g: u32, i: usize) -> Booking {
        let at = self.at[g as usize] as usize;
        let n = self.len[g as usize] as usize;
        let b = self.store[at + i];
        self.store.copy_within(at + i + 1..at + n, at + i);
        self.len[g as usize] -= 1;
        b
    }

    /// Keeps the bookings of group `g` for which `keep` holds, in order.
    pub(super) fn retain(&mut self, g: u32, mut keep: impl FnMut(&Booking) -> bool) {
        let at = self.at[g as usize] as usize;
        let n = self.len[g as usize] as usize;
        let mut w = at;
        for r in at..at + n {
            let b = self.store[r];
            if keep(&b) {
                self.store[w] = b;
                w += 1;
            }
        }
        self.len[g as usize] = (w - at) as u32;
    }

    /// Removes the first `k` bookings of group `g`.
    pub(super) fn drop_front(&mut self, g: u32, k: usize) {
        let at = self.at[g as usize] as usize;
        let n = self.len[g as usize] as usize;
        self.store.copy_within(at + k..at + n, at);
        self.len[g as usize] -= k as u32;
    }

    /// Makes sure blocks of `need` bookings in all can be cut (compacting if that makes
    /// room), so that a change that allocates no more than that cannot fail half-way.
    pub(super) fn reserve(&mut self, need: usize, live: &[u32]) -> Result<(), Error> {
        self.peak = self.peak.max(self.held + need);
        if self.top + need > self.store.len() {
            self.compact(live);
        }
        if self.top + need > self.store.len() {
            return Err(self.short(self.top + need));
        }
        Ok(())
    }

    /// The most a list of group `g` takes of the pool once one more booking is added to it
    /// or to a copy of it (see [`reserve`](Self::reserve)).
    pub(super) fn block_after_insert(&self, g: u32) -> usize {
        block_for(self.len[g as usize] as usize + 1)
    }

    /// The error of a pool that cannot reach `needs` (compacted: what it holds and the
    /// block asked for).
    fn short(&self, needs: usize) -> Error {
        full_needing(Capacity::Bookings, self.store.len(), needs).into()
    }

    /// Moves group `g`'s list (`need` bookings, at most a node's) to a larger block.
    fn grow(&mut self, g: u32, need: usize, live: &[u32]) -> Result<(), Error> {
        let size = block_for(need);
        let at = self.alloc(size, live)?;
        let (src, n) = (self.at[g as usize] as usize, self.len[g as usize] as usize);
        self.store.copy_within(src..src + n, at);
        self.held -= self.cap[g as usize] as usize;
        self.set(g, at, n, size);
        Ok(())
    }

    /// Records group `g`'s new block (counted as held by `alloc`).
    fn set(&mut self, g: u32, at: usize, len: usize, cap: usize) {
        let g = g as usize;
        self.at[g] = at as u32;
        self.len[g] = len as u32;
        self.cap[g] = cap as u32;
    }

    /// A block of `size` bookings from the top, compacting first if the garbage outweighs
    /// what is held or the top has reached the end.
    fn alloc(&mut self, size: usize, live: &[u32]) -> Result<usize, Error> {
        let end = self.top + size;
        if end > self.store.len() || end > 2 * (self.held + size) + SLACK {
            self.compact(live);
        }
        if self.top + size > self.store.len() {
            return Err(self.short(self.top + size));
        }
        let at = self.top;
        self.top += size;
        self.held += size;
        self.peak = self.peak.max(self.held);
        Ok(at)
    }

    /// Slides every held block down, in the order of their positions, so that they are
    /// contiguous from the start. `live` names every group that may hold one.
    fn compact(&mut self, live: &[u32]) {
        let mut m = 0;
        for &g in live {
            if self.cap[g as usize] > 0 {
                self.order[m] = g;
                m += 1;
            }
        }
        let at = &*self.at;
        self.order[..m].sort_unstable_by_key(|&g| at[g as usize]);
        let mut top = 0usize;
        for &g in &self.order[..m] {
            let g = g as usize;
            let (src, n) = (self.at[g] as usize, self.len[g] as usize);
            // Blocks go down in position order, so a block never lands on one not yet moved.
            self.store.copy_within(src..src + n, top);
            self.at[g] = top as u32;
            top += self.cap[g] as usize;
        }
        self.top = top;
        self.held = top;
    }
}

/// The block a list of `n` bookings gets: a power of two, at least [`MIN_BLOCK`], at most a
/// node's limit.
fn block_for(n: usize) -> usize {
    // MIN_BLOCK <= MAX_BOOKINGS_PER_NODE (checked below), so clamp cannot panic.
    n.next_power_of_two()
        .clamp(MIN_BLOCK, MAX_BOOKINGS_PER_NODE)
}

const _: () =
    assert!(MIN_BLOCK <= MAX_BOOKINGS_PER_NODE && MAX_BOOKINGS_PER_NODE.is_power_of_two());

//! The fit memo: answers to "the earliest start of `k` nodes for `d` on cluster `c`", kept
//! across the questions of a mapping event and across events.
//!
//! Tasks of one type ask the same question, so most questions of an event were answered
//! before. The memo is direct-mapped over storage the caller gives (any length; empty turns
//! it off) and never decides anything: an answer it gives is always the one the timeline's
//! sweep would give, which the planner's tests hold it to.
//!
//! An exact answer stays exact while no time has been freed on the cluster (`loose`) and the
//! bookings made since (`tight`, replayed from the cluster's booking log at lookup) left at
//! least `k` of its `free` nodes: bookings only move starts later, and one that leaves `k`
//! nodes free over `[start, start + d)` leaves `start` feasible. So an assignment invalidates
//! only the answers whose window it overlaps and whose spare nodes it used up, found when
//! they are next read rather than by visiting every entry at every booking. A lower bound
//! stays one while no time has been freed.

use crate::platform::ClusterId;
use crate::timeline::{ClusterTimeline, Fit};
use crate::units::{Micros, NodeCount};

/// One entry of the direct-mapped fit memo: the earliest start of `k` nodes for `d` on a
/// cluster, or a lower bound of it, with the cluster's change counts when it was found.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoEntry {
    gen: u32,
    cluster: u8,
    k: u32,
    d: u64,
    start: u64,
    free: u32,
    found: bool,
    loose: u32,
    tight: u32,
    /// Whether `start` is the answer (false: only a lower bound, such as "not now").
    exact: bool,
    /// A lower bound found with no place-holder on the cluster (0: none): it survives the
    /// place-holders being cleared, as long as nothing else was freed (`base_loose`, the
    /// cluster's count of that), so a mapping event resumes each query from the last
    /// event's answer instead of from now.
    floor: u64,
    base_loose: u32,
}

/// What the memo knows about a question.
pub(super) enum MemoAnswer {
    /// The answer, with the memo slot and generation that vouch for it.
    Exact(Option<Fit>, u32, u32),
    /// A lower bound of the answer (`u64::MAX`: there is none).
    AtLeast(u64),
}

/// The memo over the caller's entries.
pub(super) struct FitMemo<'a> {
    entries: &'a mut [MemoEntry],
}

impl<'a> FitMemo<'a> {
    /// A memo over `entries`, which it does not clear (a fresh buffer of default entries is
    /// empty; a copied one keeps its answers).
    pub(super) fn new(entries: &'a mut [MemoEntry]) -> FitMemo<'a> {
        FitMemo { entries }
    }

    /// Forgets every answer (the day rolled over: answers bounded by its end are stale).
    pub(super) fn clear(&mut self) {
        self.entries.fill(MemoEntry::default());
    }

    /// Its entries (to copy a planner).
    pub(super) fn entries(&self) -> &[MemoEntry] {
        self.entries
    }

    /// The slot of (c, k, d) (`None`: no memo).
    pub(super) fn index(&self, c: ClusterId, k: NodeCount, d: Micros) -> Option<usize> {
        if self.entries.is_empty() {
            return None;
        }
        // A fixed multiplicative hash: the same on every machine.
        let h = (c.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (k.0 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ d.0.wrapping_mul(0x1656_67B1_9E37_79F9);
        let h = h ^ (h >> 29);
        let n = self.entries.len() as u64;
        // A power of two's remainder is a mask (the same slot), without the division.
        Some(if n & n.wrapping_sub(1) == 0 {
            h & (n - 1)
        } else {
            h % n
        } as usize)
    }

    /// What the memo knows of (c, k, d) on `tl` at `now`: the answer (checked against the
    /// bookings made since it was found) or a lower bound.
    pub(super) fn known(
        &mut self,
        idx: Option<usize>,
        tl: &ClusterTimeline<'_>,
        now: Micros,
        (c, k, d): (ClusterId, NodeCount, Micros),
    ) -> MemoAnswer {
        let (loose, tight) = (tl.loosened(), tl.tightened());
        let Some(i) = idx else {
            return MemoAnswer::AtLeast(0);
        };
        let e = &mut self.entries[i];
        if e.cluster != c.0 || e.k != k.0 || e.d != d.0 {
            return MemoAnswer::AtLeast(0);
        }
        if e.loose != loose {
            // Freed since: only the floor survives, if all that was freed were place-holders
            // (a mapping event clearing them).
            let floor = if e.base_loose == tl.base_loosened() {
                e.floor
            } else {
                0
            };
            return MemoAnswer::AtLeast(floor);
        }
        if e.exact && e.found && e.tight != tight {
            match tl.booked_since(e.tight) {
                None => e.exact = false,
                Some(since) => {
                    for b in since {
                        if b.start < e.start.saturating_add(e.d) && b.end > e.start {
                            if e.free >= b.nodes + e.k {
                                e.free -= b.nodes;
                            } else {
                                e.exact = false;
                                break;
                            }
                        }
                    }
                }
            }
            e.tight = tight;
        }
        if e.exact && !e.found {
            return MemoAnswer::Exact(None, i as u32, e.gen);
        }
        if e.exact && e.start >= now.0 {
            let fit = Fit {
                start: Micros(e.start),
                free: e.free,
            };
            return MemoAnswer::Exact(Some(fit), i as u32, e.gen);
        }
        MemoAnswer::AtLeast(if e.found { e.start } else { u64::MAX })
    }

    /// Writes an answer (`exact`) or a lower bound of (c, k, d) on `tl` into the memo;
    /// returns the slot and generation that vouch for it (`u32::MAX` without a memo).
    pub(super) fn remember(
        &mut self,
        idx: Option<usize>,
        tl: Option<&ClusterTimeline<'_>>,
        (c, k, d): (ClusterId, NodeCount, Micros),
        start: Option<Micros>,
        free: u32,
        exact: bool,
    ) -> (u32, u32) {
        let Some(i) = idx else {
            return (u32::MAX, 0);
        };
        let (loose, tight, clean, base_loose) = tl.map_or((0, 0, false, 0), |t| {
            (
                t.loosened(),
                t.tightened(),
                t.held() == 0,
                t.base_loosened(),
            )
        });
        let e = &mut self.entries[i];
        let same = e.cluster == c.0 && e.k == k.0 && e.d == d.0 && e.base_loose == base_loose;
        let floor = match (clean, start) {
            // Without place-holders, this is the floor (and no start at all stays so).
            (true, Some(s)) => s.0,
            (true, None) if exact => u64::MAX,
            // With them, the last floor stays one (bookings were only added since).
            _ if same => e.floor,
            _ => 0,
        };
        *e = MemoEntry {
            gen: e.gen.wrapping_add(1),
            cluster: c.0,
            k: k.0,
            d: d.0,
            start: start.map_or(0, |s| s.0),
            free,
            found: start.is_some(),
            loose,
            tight,
            exact,
            floor,
            base_loose,
        };
        (i as u32, e.gen)
    }

    /// How many slots it has.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }
}

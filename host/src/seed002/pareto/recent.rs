//! The recent utilities: a direct-mapped table of the last (task, completion) pairs whose
//! utility a trace's merge asked of the curves. It only saves work; a pair found here earns
//! exactly what the curve gives.
//!
//! Each bucket is one 64-bit word holding its pair and utility together, so that the table
//! is half the bytes of a two-word record for the same buckets, and so that the threads of
//! a run can share one table: a word is read and written whole (relaxed atomics, plain
//! moves on x86-64), so a reader sees one writer's pair and utility or another's, never a
//! mix, and a word that does not name the pair asked for is not used.
//!
//! Why a word names its pair exactly: the pair is the key `end << b | task` (b bits for the
//! task index, the key below 2^[`KEY_BITS`]), mixed by a multiplication by an odd constant
//! modulo 2^[`KEY_BITS`], which is a bijection. The mixed key's top [`Recent::BITS`] bits
//! pick the bucket and the word keeps the other `KEY_BITS - BITS`: bucket and word together
//! are the mixed key, so two pairs of one bucket with the same stored bits are the same
//! pair. Pairs whose key does not fit (completions too late for the task count) and
//! utilities that do not fit [`UTILITY_BITS`] are not kept.

use super::super::Instance;
use kairos_core::units::{Micros, Utility};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The utilities of the last (task, completion) pairs the curves were evaluated at, one
/// per hash bucket: a task's utility depends only on the task and its completion, and
/// children of a converged population often delay a task by what another child did.
/// Only saves work: a pair found here earns what the curve gives. A clone shares the table
/// (see the module comment for why sharing cannot change an answer).
#[derive(Clone)]
pub(crate) struct Recent {
    /// Each bucket: the mixed key's bits below the bucket's index, above the
    /// utility plus one (so that 0, an empty bucket, names no pair).
    slots: Arc<[AtomicU64; 1 << Recent::BITS]>,
}

/// The bits of a bucket's utility field: utilities up to 2^26 - 2 micro-units are kept.
const UTILITY_BITS: u32 = 26;
/// The bits of a key (completion and task): what the mix is a bijection on.
const KEY_BITS: u32 = 64 - UTILITY_BITS + Recent::BITS;
/// [`Recent::miss`]'s bucket for a pair that cannot be kept.
const NOWHERE: usize = usize::MAX;
/// The odd multiplier of the mix (the golden ratio's, as Fibonacci hashing takes it).
const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

impl Recent {
    /// The table has 2^BITS buckets.
    pub(crate) const BITS: u32 = 16;

    pub(crate) fn new() -> Recent {
        Recent {
            // Built on the heap: the table is too large for a thread's stack.
            slots: (0..1usize << Self::BITS)
                .map(|_| AtomicU64::new(0))
                .collect::<Arc<[AtomicU64]>>()
                .try_into()
                .expect("the table's size"),
        }
    }

    /// The bits a task index of an instance of `tasks` tasks takes in a key.
    pub(crate) fn task_bits(tasks: usize) -> u32 {
        usize::BITS - tasks.saturating_sub(1).leading_zeros()
    }

    /// What [`Recent::utility`] needs of an instance of `tasks` tasks: the shift that puts
    /// a completion above the task index in a left-aligned key, and the first completion
    /// whose key does not fit.
    pub(crate) fn keys(tasks: usize) -> (u32, u64) {
        let shift = Self::task_bits(tasks) + (64 - KEY_BITS);
        (shift, 1 << (64 - shift))
    }

    /// The utility task `t` (arrived at `arrival`) earns completing at `end`. (`&mut`: each
    /// evaluation asks through its own handle, though the handles may share a table.)
    #[inline(always)]
    pub(super) fn utility(
        &mut self,
        inst: &Instance,
        t: usize,
        end: Micros,
        arrival: Micros,
    ) -> Utility {
        let Some((h, tag)) = bucket(end, t, inst.recent_keys) else {
            return self.miss(inst, t, end - arrival, NOWHERE, 0);
        };
        let word = self.slots[h].load(Ordering::Relaxed);
        // The word less the pair's tag is the utility plus one exactly when the word names
        // the pair (else it is at least 2^UTILITY_BITS, or wraps, or is 0).
        let found = word.wrapping_sub(tag).wrapping_sub(1);
        if found < (1 << UTILITY_BITS) - 1 {
            return Utility(found);
        }
        self.miss(inst, t, end - arrival, h, tag)
    }

    /// [`Recent::utility`] for a pair not in its bucket `h` (with tag `tag`; `h` is
    /// [`NOWHERE`] for a pair that cannot be kept): kept out of the merge walk's loop,
    /// which then saves no registers for the curve's work on a hit.
    #[inline(never)]
    fn miss(&self, inst: &Instance, t: usize, dt: Micros, h: usize, tag: u64) -> Utility {
        let utility = inst.curves.utility(t, dt);
        if let Some(slot) = self.slots.get(h) {
            if utility.0 < (1 << UTILITY_BITS) - 1 {
                slot.store(tag | (utility.0 + 1), Ordering::Relaxed);
            }
        }
        utility
    }
}

/// The bucket of the pair (`end`, task `t`) and its tag (the bits its word keeps, in the
/// word's place above the utility), for `keys` = [`Recent::keys`]; `None` if the key does
/// not fit [`KEY_BITS`].
///
/// The key is mixed left-aligned in 64 bits (its low bits zero), where the product's top
/// [`KEY_BITS`] are the product modulo 2^[`KEY_BITS`]: the same bijection, with no mask.
#[inline(always)]
fn bucket(end: Micros, t: usize, (shift, limit): (u32, u64)) -> Option<(usize, u64)> {
    if end.0 >= limit {
        return None;
    }
    let mixed = (end.0 << shift | (t as u64) << (64 - KEY_BITS)).wrapping_mul(MIX);
    Some((
        (mixed >> (64 - Recent::BITS)) as usize,
        mixed << Recent::BITS,
    ))
}

impl fmt::Debug for Recent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recent")
            .field("buckets", &self.slots.len())
            .finish()
    }
}

#[cfg(test)]
#[path = "recent_tests.rs"]
mod tests;

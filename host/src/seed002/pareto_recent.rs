//! The recent utilities: a direct-mapped table of the last (task, completion) pairs whose
//! utility a trace's merge asked of the curves. It only saves work; a pair found here earns
//! exactly what the curve gives.

use super::super::Instance;
use kairos_core::units::{Micros, Utility};

/// The utilities of the last (task, completion) pairs the curves were evaluated at, one
/// per hash bucket: a task's utility depends only on the task and its completion, and
/// children of a converged population often delay a task by what another child did.
/// Only saves work: a pair found here earns what the curve gives.
#[derive(Clone, Debug)]
pub(crate) struct Recent {
    slots: Box<[Recall; 1 << Recent::BITS]>,
}

/// Sixteen bytes, so that the table is a quarter of the cache it would take at 24.
#[derive(Clone, Copy, Debug)]
struct Recall {
    end: Micros,
    /// `u32::MAX`: empty (tasks are fewer than 2^31).
    task: u32,
    /// The utility in micro-units (one larger than this holds is not kept).
    utility: u32,
}

impl Recent {
    const BITS: u32 = 15;

    pub(crate) fn new() -> Recent {
        let empty = Recall {
            end: Micros::ZERO,
            task: u32::MAX,
            utility: 0,
        };
        Recent {
            // Built on the heap: the table is too large for a thread's stack.
            slots: vec![empty; 1 << Self::BITS]
                .into_boxed_slice()
                .try_into()
                .expect("the table's size"),
        }
    }

    /// The utility task `t` (arrived at `arrival`) earns completing at `end`.
    #[inline]
    pub(super) fn utility(
        &mut self,
        inst: &Instance,
        t: usize,
        end: Micros,
        arrival: Micros,
    ) -> Utility {
        const MIX: u64 = 0x9E37_79B9_7F4A_7C15;
        let h = (end.0 ^ (t as u64).wrapping_mul(MIX)).wrapping_mul(MIX) >> (64 - Self::BITS);
        let r = &self.slots[h as usize];
        if r.task == t as u32 && r.end == end {
            return Utility(u64::from(r.utility));
        }
        self.miss(inst, t, end, arrival, h as usize)
    }

    /// [`Recent::utility`] for a pair not in bucket `h`: kept out of the merge walk's loop,
    /// which then saves no registers for the curve's work on a hit.
    #[inline(never)]
    fn miss(
        &mut self,
        inst: &Instance,
        t: usize,
        end: Micros,
        arrival: Micros,
        h: usize,
    ) -> Utility {
        let utility = inst.curves.utility(t, end - arrival);
        if let Ok(u) = u32::try_from(utility.0) {
            self.slots[h] = Recall {
                end,
                task: t as u32,
                utility: u,
            };
        }
        utility
    }
}

//! Max Util (§2.4.2.2): the machine that completes the task first, which is also where it
//! earns the most (utility never rises with time); ties to the lower machine.

use crate::serial::view::View;

pub(super) fn choose(v: &View<'_>, t: u32) -> (Option<u16>, u64) {
    (v.min_completion(t).map(|(m, _)| m), v.eligible(t))
}

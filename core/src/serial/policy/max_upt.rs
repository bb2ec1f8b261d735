//! Max UPT (§2.4.2.2): the machine with the highest utility earned / execution time.

use crate::serial::view::View;

pub(super) fn choose(v: &View<'_>, t: u32) -> (Option<u16>, u64) {
    (v.max_upt(t).map(|(m, _)| m), v.eligible(t))
}

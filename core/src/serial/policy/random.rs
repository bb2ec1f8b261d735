//! Random (§2.4.2.1, naive): a uniformly random machine that can run the task.

use super::{below, PolicyState};
use crate::serial::view::View;

pub(super) fn choose(v: &View<'_>, t: u32, st: &mut PolicyState) -> (Option<u16>, u64) {
    let n = v.eligible(t);
    if n == 0 {
        return (None, 0);
    }
    let mut k = below(&mut st.rng, n);
    for m in 0..v.env.machine_type.len() as u16 {
        if v.etc(t, m) != crate::units::Micros::MAX {
            if k == 0 {
                return (Some(m), 1);
            }
            k -= 1;
        }
    }
    (None, 1)
}

//! Round-Robin (§2.4.2.1, naive): the machines in a random order fixed for the trial; each
//! task goes to the next machine in that order that can run it, and the next task starts
//! looking after that machine.

use super::PolicyState;
use crate::serial::view::View;
use crate::units::Micros;

pub(super) fn choose(v: &View<'_>, t: u32, st: &mut PolicyState) -> (Option<u16>, u64) {
    let n = st.order.len();
    for i in 0..n {
        let p = (st.next + i) % n;
        let m = st.order[p];
        if v.etc(t, m) != Micros::MAX {
            st.next = (p + 1) % n;
            return (Some(m), i as u64 + 1);
        }
    }
    (None, n as u64)
}

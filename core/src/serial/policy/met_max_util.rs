//! MET-Max Util (§2.4.2.2): among the machines of the task's fastest type, the one that
//! completes it first.

use crate::serial::view::View;

pub(super) fn choose(v: &View<'_>, t: u32) -> (Option<u16>, u64) {
    let j = v.env.met_type(v.tasks[t as usize].ty);
    let r = v.min_completion_in(t, j).map(|(m, _)| m);
    (r, v.machines_of(j).len() as u64)
}

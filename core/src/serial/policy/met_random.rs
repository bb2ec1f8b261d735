//! MET-Random (§2.4.2.2): a uniformly random machine of the type that executes the task
//! fastest (minimum execution time, ready times ignored; the lower type on ties).

use super::{below, PolicyState};
use crate::serial::view::View;

pub(super) fn choose(v: &View<'_>, t: u32, st: &mut PolicyState) -> (Option<u16>, u64) {
    let j = v.env.met_type(v.tasks[t as usize].ty);
    let ms = v.machines_of(j);
    if ms.is_empty() {
        return (None, 0);
    }
    let k = below(&mut st.rng, ms.len() as u64) as u16;
    (Some(ms.start + k), 1)
}

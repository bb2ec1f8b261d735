//! K-Best Types (§2.4.2.2): among the machines of the task's K fastest types (lower type on
//! ties), the one that completes it first. K = 1 is MET-Max Util; K = all types is Max Util.

use crate::serial::view::View;

pub(super) fn choose(v: &View<'_>, t: u32, k: u8) -> (Option<u16>, u64) {
    let ty = v.tasks[t as usize].ty;
    let mut chosen: u32 = 0;
    let mut evals = 0u64;
    for _ in 0..k {
        let mut best: Option<u8> = None;
        for j in 0..v.env.machine_types {
            if chosen & (1 << j) != 0 || !v.env.runs(ty, j) {
                continue;
            }
            if best.is_none_or(|b| v.env.etc(ty, j) < v.env.etc(ty, b)) {
                best = Some(j);
            }
        }
        match best {
            Some(j) => {
                chosen |= 1 << j;
                evals += v.machines_of(j).len() as u64;
            }
            None => break,
        }
    }
    let r = v.min_completion_where(t, |j| chosen & (1 << j) != 0);
    (r.map(|(m, _)| m), evals)
}

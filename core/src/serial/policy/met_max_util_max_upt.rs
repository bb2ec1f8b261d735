//! MET-Max Util-Max UPT (§2.4.3): stage 1, the first-completing machine of the task's
//! fastest type; stage 2, the pair of highest utility / execution time. Only the fastest
//! type's machines are evaluated, which is why the dissertation's version is quick.

use crate::serial::two_stage::Stage;
use crate::serial::view::View;

pub(crate) struct MetMaxUtilMaxUpt;

impl Stage for MetMaxUtilMaxUpt {
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)> {
        let j = v.env.met_type(v.tasks[t as usize].ty);
        v.min_completion_in(t, j)
            .map(|(m, c)| (m, v.utility(t, c) / v.etc(t, m).0 as f64))
    }
    fn evals(&self, v: &View<'_>, t: u32) -> u64 {
        v.machines_of(v.env.met_type(v.tasks[t as usize].ty)).len() as u64
    }
}

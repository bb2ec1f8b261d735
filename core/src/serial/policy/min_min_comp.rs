//! Min-Min Comp (§2.4.3): stage 1, each task's first-completing machine; stage 2, the pair
//! that completes first (the score is minus the completion). No utility is computed.

use crate::serial::two_stage::Stage;
use crate::serial::view::View;
use crate::units::Micros;

pub(crate) struct MinMinComp;

impl Stage for MinMinComp {
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)> {
        // Completions are below 2^53 microseconds, so the float is exact.
        v.min_completion(t).map(|(m, c)| (m, -(c.0 as f64)))
    }
    fn by_type(&self) -> bool {
        true
    }
    fn type_choice(&self, v: &View<'_>, ty: u16) -> Option<(u16, Micros)> {
        v.type_min_completion_where(ty, |_| true)
    }
    fn score(&self, _v: &View<'_>, _t: u32, _m: u16, c: Micros) -> f64 {
        -(c.0 as f64)
    }
}

//! Min-Min Comp (§2.4.3): stage 1, each task's first-completing machine; stage 2, the pair
//! that completes first (the score is minus the completion). No utility is computed.

use crate::serial::two_stage::Stage;
use crate::serial::view::View;

pub(crate) struct MinMinComp;

impl Stage for MinMinComp {
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)> {
        // Completions are below 2^53 microseconds, so the float is exact.
        v.min_completion(t).map(|(m, c)| (m, -(c.0 as f64)))
    }
}

//! Max-Max UPT (§2.4.3): both stages maximise utility / execution time.

use crate::serial::two_stage::Stage;
use crate::serial::view::View;

pub(crate) struct MaxMaxUpt;

impl Stage for MaxMaxUpt {
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)> {
        v.max_upt(t)
    }
}

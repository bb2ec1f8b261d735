//! Max-Max Util (§2.4.3): stage 1 as Min-Min (the first-completing machine earns the most),
//! stage 2 the pair of highest utility.

use crate::serial::two_stage::Stage;
use crate::serial::view::View;

pub(crate) struct MaxMaxUtil;

impl Stage for MaxMaxUtil {
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)> {
        v.min_completion(t).map(|(m, c)| (m, v.utility(t, c)))
    }
}

//! Max-Max Util (§2.4.3): stage 1 as Min-Min (the first-completing machine earns the most),
//! stage 2 the pair of highest utility.

use crate::serial::two_stage::Stage;
use crate::serial::view::View;
use crate::units::Micros;

pub(crate) struct MaxMaxUtil;

impl Stage for MaxMaxUtil {
    fn choose(&self, v: &View<'_>, t: u32) -> Option<(u16, f64)> {
        v.min_completion(t).map(|(m, c)| (m, v.utility(t, c)))
    }
    fn by_type(&self) -> bool {
        true
    }
    fn type_choice(&self, v: &View<'_>, ty: u16) -> Option<(u16, Micros)> {
        v.type_min_completion_where(ty, |_| true)
    }
    fn score(&self, v: &View<'_>, t: u32, _m: u16, c: Micros) -> f64 {
        v.utility(t, c)
    }
}

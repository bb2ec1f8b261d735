//! Keeping a reservation after time was freed: whether the earliest start of a reserved
//! task, asked as if its booking were taken back, is still its start
//! ([`Planner::starts_no_earlier`]), and marking it booked anew when the policy keeps it
//! ([`Planner::reserved_anew`]). EASY's head after an early completion: taking it back and
//! booking it again most often gives it the same start on the same nodes.

use super::planner::Planner;
use super::slots::Assignment;
use crate::task::TaskId;

impl Planner<'_> {
    /// Whether task slot `i`'s booking `a` (a reservation after now), were it taken back,
    /// would find no earlier start on its cluster for its nodes and run (so the earliest
    /// start of the same option would be its start again). `false` when it cannot tell.
    pub(crate) fn starts_no_earlier(&mut self, i: u32, a: &Assignment) -> bool {
        let Some(tl) = self.clusters.get(a.cluster.0 as usize) else {
            return false;
        };
        let d = crate::units::Micros(a.end.0.saturating_sub(a.start.0));
        tl.fits_before_ignoring(
            self.now,
            a.nodes.0,
            d,
            TaskId(i),
            a.start,
            (self.scratch_a, self.scratch_b),
        ) == Some(false)
    }

    /// Marks task slot `i`'s reservation on its cluster as booked anew at this event, as
    /// booking it again in place would (so later events see no time freed since).
    pub(crate) fn reserved_anew(&mut self, i: u32, a: &Assignment) {
        if let Some(tl) = self.clusters.get_mut(a.cluster.0 as usize) {
            tl.reserved_anew(TaskId(i));
        }
    }
}

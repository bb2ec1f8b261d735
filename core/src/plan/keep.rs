//! Keeping a reservation: whether a reserved task, were its booking taken back, would be
//! booked again at the same start on the same nodes ([`Planner::comes_back_in_place`]),
//! and marking it booked anew when the policy keeps it ([`Planner::reserved_anew`]). EASY's
//! head after an early completion: taking it back and booking it again most often gives it
//! the same start on the same nodes.

use super::planner::Planner;
use super::slots::Assignment;
use crate::task::TaskId;

impl Planner<'_> {
    /// Whether task slot `i`'s booking `a` (a reservation after now), were it taken back,
    /// would be booked again at once at its start on its nodes: node choice would pick them
    /// again, and no time was freed since it was booked or no earlier start fits once its own
    /// bookings count as free (`ClusterTimeline::comes_back_in_place`, one walk for both).
    /// `false` when it cannot tell.
    pub(crate) fn comes_back_in_place(&mut self, i: u32, a: &Assignment) -> bool {
        let Some(tl) = self.clusters.get(a.cluster.0 as usize) else {
            return false;
        };
        tl.comes_back_in_place(
            self.now,
            TaskId(i),
            a.start,
            a.end,
            a.nodes.0,
            (self.scratch_a, self.scratch_b),
        )
    }

    /// Marks task slot `i`'s reservation on its cluster as booked anew at this event, as
    /// booking it again in place would (so later events see no time freed since).
    pub(crate) fn reserved_anew(&mut self, i: u32, a: &Assignment) {
        if let Some(tl) = self.clusters.get_mut(a.cluster.0 as usize) {
            tl.reserved_anew(TaskId(i));
        }
    }
}

//! Reservations that would come back where they are: whether taking a reservation back and
//! booking it again at the same start would choose the same nodes, so that a policy that
//! recomputes a reservation at every event (EASY's head) may keep it instead.
//!
//! Two questions, each answered as the take-back and the new booking would answer it:
//!
//! - Would it start at the same time? Yes while nothing was freed since it was booked
//!   ([`ClusterTimeline::unloosened_since_reserved`]): it was booked at its earliest start,
//!   and since then bookings were only added (none over it), so the earliest start without
//!   it has only moved later, and its own start is still free.
//! - Would node choice pick its nodes again? Node choice (`choice.rs`) sorts the free nodes
//!   by their key (new idle voids, then void size, both from `now`) and then by index, and
//!   takes the first `k`. The reservation's nodes, with the void each would have once it is
//!   taken back, must all come before every other free node
//!   ([`ClusterTimeline::rebooks_in_place`]). The keys move with `now` and with the
//!   bookings made since, which is why this is asked anew at every event.
//!
//! Data flow: reads the groups, their spans and bookings; changes nothing.

use super::choice::choice_key;
use super::groups::NONE;
use super::ClusterTimeline;
use crate::task::TaskId;
use crate::units::Micros;

impl ClusterTimeline<'_> {
    /// Whether `task` holds the latest reservation booked on the cluster and no time was
    /// freed since (see the module doc).
    pub(crate) fn unloosened_since_reserved(&self, task: TaskId) -> bool {
        self.reserved == Some((task, self.loosened))
    }

    /// Whether `task`'s booking over `[s, e)` on `k` nodes, taken back and booked again over
    /// `[s, e)` with `now` as the earliest instant a void can begin, would be booked on the
    /// same nodes: node choice ranks them all before every other node free then (see the
    /// module doc). One walk over the groups, reading the bookings only of the groups whose
    /// span can hold the booking or does not decide whether they are free.
    pub(crate) fn rebooks_in_place(
        &self,
        now: Micros,
        task: TaskId,
        s: Micros,
        e: Micros,
        k: u32,
    ) -> bool {
        let gr = &self.groups;
        let mut found = 0u32;
        // The last of the booking's nodes in choice order, and the first of the others, as
        // (key without the group's id, node index).
        let mut last_mine = (0u64, 0u32);
        let mut first_other = (u64::MAX, u32::MAX);
        for &g in gr.live() {
            let sp = gr.span(g);
            let mut mine = None;
            if gr.may_hold(g, task) && sp.may_start(s.0) {
                let bs = self.pool.list(g);
                let j = bs.partition_point(|x| x.start < s);
                if bs
                    .get(j)
                    .is_some_and(|x| x.task == task && x.start == s && x.end == e)
                {
                    // The void it would leave: its neighbours' ends join.
                    let lo = if j == 0 { 0 } else { bs[j - 1].end.0 };
                    mine = Some((lo, bs.get(j + 1).map_or(u64::MAX, |x| x.start.0)));
                }
            }
            match mine {
                Some((a, b)) => {
                    found += gr.size[g as usize];
                    let key = (choice_key(now, s, e, a, b, 0), last_member(gr, g));
                    last_mine = last_mine.max(key);
                }
                None => {
                    let void = match sp.decides(s.0, e.0) {
                        Some(v) => v,
                        None => self.void_in_bookings(g, s, e),
                    };
                    if let Some((a, b)) = void {
                        let key = (choice_key(now, s, e, a, b, 0), gr.head[g as usize]);
                        first_other = first_other.min(key);
                    }
                }
            }
        }
        found == k && last_mine < first_other
    }
}

/// The highest node of group `g`: the last node of its last run.
pub(super) fn last_member(gr: &super::groups::Groups<'_>, g: u32) -> u32 {
    let mut r = gr.head[g as usize];
    while gr.run_next[r as usize] != NONE {
        r = gr.run_next[r as usize];
    }
    r + gr.run_len[r as usize] - 1
}

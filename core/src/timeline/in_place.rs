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
//! Both answers, asked at every event, seldom change while nothing is booked or freed: an
//! event that neither booked nor freed anything since the reservation was last kept, at
//! which no node is free over the whole time from now to its end, keeps it again without
//! the walk. The keys move with `now` only through the voids open at `now` (a void's key
//! counts its length from `max(start, now)`, so it can only come down as `now` passes).
//! Every other node's void the walk reads holds the reservation's run; one open at `now`
//! would leave its node free from now to the run's end. With none, the other nodes' keys
//! are as they were when it was kept, and its own nodes' keys are as they were or lower:
//! all of them still come first. No earlier start can have appeared either, with nothing
//! freed.
//!
//! Data flow: reads the groups, their spans and bookings; changes nothing.

use super::choice::choice_key;
use super::groups::{holds_word, task_bit, Span, NONE};
use super::ignoring::Sweep;
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
    ///
    /// The replay asks it through [`comes_back_in_place`](Self::comes_back_in_place); the
    /// tests ask it alone.
    #[cfg(test)]
    pub(crate) fn rebooks_in_place(
        &self,
        now: Micros,
        task: TaskId,
        s: Micros,
        e: Micros,
        k: u32,
    ) -> bool {
        self.keeps(now, task, s, e, k, None, (&mut [], &mut []))
    }

    /// Whether `task`'s reservation over `[s, e)` on `k` nodes, taken back and booked again
    /// at its earliest start from `now`, would come back where it is: node choice at its
    /// start would pick its nodes again ([`rebooks_in_place`](Self::rebooks_in_place)) and
    /// its earliest start would be its start (no time freed since it was booked, or no
    /// earlier start once its own bookings are counted as free,
    /// [`fits_before_ignoring`](Self::fits_before_ignoring)). Both questions are asked in
    /// the same walk over the groups; `scratch` is the sweep's (one entry a group's void).
    /// `false` when it cannot tell.
    pub(crate) fn comes_back_in_place(
        &self,
        now: Micros,
        task: TaskId,
        s: Micros,
        e: Micros,
        k: u32,
        scratch: (&mut [u64], &mut [u64]),
    ) -> bool {
        if self.kept == Some((task, self.version)) && self.free_over(now, e, 1) == 0 {
            // Kept at an earlier event, nothing booked, freed or regrouped since, and no
            // node free from now until its end: every other node's void the walk would read
            // begins after now, its key as it was; its own nodes' keys can only have come
            // down (see the module doc).
            return true;
        }
        if self.unloosened_since_reserved(task) {
            return self.keeps(now, task, s, e, k, None, scratch);
        }
        match Sweep::new(now, Micros(e.0.saturating_sub(s.0)), s) {
            Ok(sweep) => self.keeps(now, task, s, e, k, Some(sweep), scratch),
            // No start before its own to sweep over: node choice alone decides.
            Err(Some(false)) => self.keeps(now, task, s, e, k, None, scratch),
            Err(_) => false,
        }
    }

    /// The walk of [`rebooks_in_place`](Self::rebooks_in_place), gathering `sweep` too when
    /// given: then also whether it finds no earlier start.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn keeps(
        &self,
        now: Micros,
        task: TaskId,
        s: Micros,
        e: Micros,
        k: u32,
        mut sweep: Option<Sweep>,
        (firsts, lasts): (&mut [u64], &mut [u64]),
    ) -> bool {
        let gr = &self.groups;
        let (word, mask) = holds_word(task_bit(task));
        let holds = &gr.holds[word][..gr.count];
        let mut found = 0u32;
        // The last of the booking's nodes in choice order, and the first of the others, as
        // (key without the group's id, node index).
        let mut last_mine = (0u64, 0u32);
        let mut first_other = (u64::MAX, u32::MAX);
        // The spans and filters are read by position, beside the ids.
        for ((&g, x), &h) in gr.live().iter().zip(gr.entry_chunks()).zip(holds) {
            let sp = Span::at(x);
            let bs = self.pool.list(g);
            let mut mine = None;
            if h & mask == mask && sp.may_start(s.0) {
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
            if let Some(sweep) = &mut sweep {
                sweep.group(
                    bs,
                    sp.last_end(),
                    g,
                    gr.size[g as usize],
                    task,
                    firsts,
                    lasts,
                );
            }
        }
        if found != k || last_mine >= first_other {
            return false;
        }
        match sweep {
            Some(sweep) => sweep.answer(k, gr.size, firsts, lasts) == Some(false),
            None => true,
        }
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

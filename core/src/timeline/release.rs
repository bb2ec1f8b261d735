//! Bookings given back, and reservations that start: place-holders cleared at a mapping
//! event, a task's bookings taken back or ended (on time or early), bookings that have ended
//! forgotten ([`ClusterTimeline::prune`]), and a reservation turned into a run.
//!
//! What each change frees decides which counts of `mod.rs` it bumps (`loosened`, and
//! `base_loosened` when it frees time held by something other than a place-holder): the
//! controller's fit memo keeps its answers across events while those counts stand. A task's
//! bookings all start together, so the removals find them by a binary search in each group
//! ([`ClusterTimeline::remove_task_from`] and the like), in the groups whose task filter
//! has the task (`groups.rs`, `may_hold`) and whose span can hold a booking that starts
//! then, and keep the void index current (the tests hold them to walks
//! over every booking). Groups that became equal are merged
//! (`groups.rs`) when the groups have doubled since the last merge, or at once after a
//! clear or a prune.
//!
//! Data flow: writes bookings, groups, index edits and the counts of `mod.rs`.

use super::groups::{task_bit, Holding};
use super::node::{Booking, BookingKind};
use super::ClusterTimeline;
use crate::task::TaskId;
use crate::units::Micros;

impl<'a> ClusterTimeline<'a> {
    /// Removes every place-holder (the start of a mapping event).
    pub fn clear_place_holders(&mut self) {
        // Without place-holders (the heuristics that reserve permanently) nothing changes,
        // and the void index stays fresh.
        if self.held == 0 {
            return;
        }
        for x in 0..self.groups.count {
            let g = self.groups.live[x];
            self.pool.retain(g, |b| b.kind != BookingKind::PlaceHolder);
            self.sync(g);
        }
        self.booked -= self.held;
        self.held = 0;
        self.changed();
        self.loosened = self.loosened.wrapping_add(1);
        // The groups place-holders split apart are equal again.
        self.merge();
    }

    /// Removes every booking of `task`, by a walk over every booking (the tests' reference
    /// for [`remove_task_from`](Self::remove_task_from)); returns on how many nodes it was
    /// found.
    #[cfg(test)]
    pub(crate) fn remove_task(&mut self, task: TaskId) -> u32 {
        self.remove_until(task, Micros::ZERO)
    }

    /// Removes every booking of `task`, which stops at `at`: only bookings that end after
    /// `at` free time from `at` on (and so loosen the cluster).
    #[cfg(test)]
    fn remove_until(&mut self, task: TaskId, at: Micros) -> u32 {
        // Seldom used (a task ended off its planned start): the index goes stale and is
        // rebuilt when asked.
        self.changed();
        let mut gone = Removed::default();
        for x in 0..self.groups.count {
            let g = self.groups.live[x];
            let w = self.groups.size[g as usize];
            self.pool.retain(g, |b| {
                let mine = b.task == task;
                if mine {
                    gone.note(b, at, w);
                }
                !mine
            });
            self.sync(g);
        }
        self.merge_if_grown();
        self.account(gone)
    }

    /// Updates the counts for the bookings `gone` removed; returns how many there were.
    fn account(&mut self, gone: Removed) -> u32 {
        self.held -= gone.held;
        self.booked -= gone.found;
        if gone.freed {
            self.loosened = self.loosened.wrapping_add(1);
        }
        if gone.base_freed {
            self.base_loosened = self.base_loosened.wrapping_add(1);
        }
        gone.found
    }

    /// Turns `task`'s reservation into a running booking (its start has come), by a walk over
    /// every booking (the tests' reference for
    /// [`mark_running_from`](Self::mark_running_from)).
    #[cfg(test)]
    pub(crate) fn mark_running(&mut self, task: TaskId) -> u32 {
        let mut found = 0;
        for &g in self.groups.live[..self.groups.count].iter() {
            for b in self.pool.list_mut(g).iter_mut().filter(|b| b.task == task) {
                b.kind = BookingKind::Running;
                found += self.groups.size[g as usize];
            }
        }
        found
    }

    /// Removes every booking of `task`, whose bookings all start at `start` (as one
    /// assignment's do) and hold at most `nodes` nodes: a binary search per group instead of
    /// a walk over every booking, and none once `nodes` are found (a larger `nodes` only
    /// costs time). Returns on how many nodes it was found.
    pub(crate) fn remove_task_from(&mut self, task: TaskId, start: Micros, nodes: u32) -> u32 {
        self.remove_from(task, start, Micros::ZERO, nodes)
    }

    /// Ends `task`, whose bookings all start at `start`, at `at` (at or before its planned
    /// end): its nodes are free from then on, so its bookings go (the decision log, not the
    /// timeline, keeps history). `nodes` as for [`remove_task_from`](Self::remove_task_from).
    pub(crate) fn complete_from(
        &mut self,
        task: TaskId,
        start: Micros,
        at: Micros,
        nodes: u32,
    ) -> u32 {
        self.remove_from(task, start, at, nodes)
    }

    /// Turns `task`'s reservation, whose bookings all start at `start`, into a running
    /// booking (its start has come).
    pub(crate) fn mark_running_from(&mut self, task: TaskId, start: Micros) -> u32 {
        let mut found = 0;
        let mut walk = Holding::new(task_bit(task), start.0);
        while let Some(x) = walk.next(&self.groups) {
            let g = self.groups.live[x];
            let bs = self.pool.list_mut(g);
            let j = bs.partition_point(|b| b.start < start);
            if let Some(b) = bs.get_mut(j).filter(|b| b.task == task) {
                b.kind = BookingKind::Running;
                found += self.groups.size[g as usize];
            }
        }
        found
    }

    /// Removes the bookings of `task` that start at `start`, on at most `nodes` nodes (the
    /// walk over the groups ends once they are found: a task's bookings are on its nodes, in
    /// as many groups); only those that end after `at` free time (and so loosen the cluster).
    fn remove_from(&mut self, task: TaskId, start: Micros, at: Micros, nodes: u32) -> u32 {
        let fresh = self.index_fresh();
        self.changed();
        self.begin_edits(fresh);
        let mut gone = Removed::default();
        let mut walk = Holding::new(task_bit(task), start.0);
        while gone.found < nodes {
            // A removal changes this group's entry only, in place: the walk goes on.
            let Some(x) = walk.next(&self.groups) else {
                break;
            };
            let g = self.groups.live[x];
            let bs = self.pool.list(g);
            let j = bs.partition_point(|b| b.start < start);
            if bs.get(j).is_none_or(|b| b.task != task) {
                continue;
            }
            let lo = if j == 0 { 0 } else { bs[j - 1].end.0 };
            let hi = bs.get(j + 1).map_or(u64::MAX, |x| x.start.0);
            let b = self.pool.remove(g, j);
            self.sync(g);
            let w = self.groups.size[g as usize];
            gone.note(&b, at, w);
            // Its sides join.
            self.edit_split(true, lo, hi, (b.start.0, b.end.0), w);
        }
        if gone.found == 0 {
            // Nothing removed: the index is as current as it was.
            if fresh {
                self.mark_fresh();
            }
            return 0;
        }
        self.apply_edits();
        self.merge_if_grown();
        self.account(gone)
    }

    /// [`complete_from`](Self::complete_from) by a walk over every booking (the tests'
    /// reference).
    #[cfg(test)]
    pub(crate) fn complete(&mut self, task: TaskId, at: Micros) -> u32 {
        self.remove_until(task, at)
    }

    /// Forgets bookings that ended at or before `now` (they no longer shape any void from
    /// `now` on, except for the void's start, which `now` bounds anyway). Queries and node
    /// choices start at or after the latest `now` given here (the horizon).
    pub fn prune(&mut self, now: Micros) {
        if now > self.horizon {
            self.horizon = now;
            self.drop_dead_voids();
        }
        if now < self.first_end {
            return;
        }
        let mut pruned = false;
        let mut first_end = Micros::MAX;
        for x in 0..self.groups.count {
            let g = self.groups.live[x];
            let w = self.groups.size[g as usize];
            let bs = self.pool.list(g);
            let stale = bs.partition_point(|b| b.end <= now);
            // A node's bookings are disjoint and in start order, so in end order too.
            if let Some(b) = bs.get(stale).filter(|b| b.end < first_end) {
                first_end = b.end;
            }
            if stale > 0 {
                pruned = true;
                let held = bs[..stale]
                    .iter()
                    .filter(|b| b.kind == BookingKind::PlaceHolder)
                    .count() as u32;
                self.held -= held * w;
                self.booked -= stale as u32 * w;
                // Keep the order: shift the rest down.
                self.pool.drop_front(g, stale);
                self.sync(g);
            }
        }
        self.first_end = first_end;
        // Completions remove their bookings, so there is seldom anything to prune.
        if pruned {
            self.changed();
            self.merge();
        }
    }
}

/// What a removal took away: bookings, place-holders among them, and whether they freed
/// time (held by anything, or by something other than a place-holder) from `at` on.
#[derive(Default)]
struct Removed {
    found: u32,
    held: u32,
    freed: bool,
    base_freed: bool,
}

impl Removed {
    /// Counts booking `b` of `nodes` nodes, removed by a task stopping at `at`.
    fn note(&mut self, b: &Booking, at: Micros, nodes: u32) {
        let held = b.kind == BookingKind::PlaceHolder;
        self.found += nodes;
        self.held += held as u32 * nodes;
        self.freed |= b.end > at;
        self.base_freed |= b.end > at && !held;
    }
}

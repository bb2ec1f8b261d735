//! The planner's state: what a mapping event works on, over the caller's storage.
//!
//! The task slots and their states, the open list of the tasks that may still wait, the
//! clusters' timelines, the energy ledger and the filter's verdicts, the fit memo, the
//! event's work list, the clock and the random stream. The operations on it live beside it,
//! one file an idea: `options.rs` (what a task could do), `assign.rs` (doing it, or taking
//! it back) and `events.rs` (what an arrival, a completion and the start of a mapping event
//! do to the plan).

use super::choice::Work;
use super::memo::{FitMemo, MemoEntry};
use super::slots::{Assignment, TaskSlot, TaskState};
use super::storage::{Storage, StorageSizes};
use crate::config::Config;
use crate::energy::{Averages, Budget, EnergyLedger, Verdicts};
use crate::error::{full, full_needing, Capacity, Error};
use crate::limits::MAX_CLUSTERS;
use crate::platform::{ClusterId, Placement, Platform, TaskType, TaskTypeId};
use crate::task::{Demand, TaskId};
use crate::timeline::{ClusterTimeline, Void};
use crate::units::{Micros, MilliJoules};
use crate::utility::UtilityClasses;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// What a mapping event works on, and the operations a heuristic needs.
pub struct Planner<'a> {
    pub(super) platform: &'a Platform,
    pub(super) classes: &'a UtilityClasses,
    pub(super) config: Config,
    pub(super) averages: Averages,
    pub(super) tasks: &'a mut [TaskSlot],
    /// Tasks so far: `tasks[..len]`, in arrival order.
    pub(super) len: usize,
    pub(super) clusters: heapless::Vec<ClusterTimeline<'a>, MAX_CLUSTERS>,
    pub(super) scratch_a: &'a mut [u64],
    pub(super) scratch_b: &'a mut [u64],
    /// The event's working entries, `work[..work_len]`.
    pub(super) work: &'a mut [Work],
    pub(super) work_len: usize,
    pub(super) memo: FitMemo<'a>,
    /// Bumped at every event and whenever a booking is taken back: while it stays, bookings
    /// are only added, so counts of idle nodes only fall.
    pub(super) epoch: u32,
    pub(super) ledger: EnergyLedger,
    /// Energy planned for place-holders in the current event (not committed).
    pub(super) planned: MilliJoules,
    pub(super) now: Micros,
    pub(super) rng: ChaCha8Rng,
    /// The event's filter budget and its verdicts on the task types' options.
    pub(super) verdicts: Verdicts,
    /// The slots of the tasks that may still wait (mappable, place-held or reserved; and
    /// those that stopped waiting since the last event), `open[..open_len]`, in slot order.
    /// Scans of the waiting tasks read these slots only: a task slot is large, and most
    /// slots between the oldest waiting task and the newest hold tasks that started.
    pub(super) open: &'a mut [u32],
    pub(super) open_len: usize,
    /// How many tasks of the open list are not mappable: an event's clean-up of the list
    /// stops after the last of them (the rest only move down).
    pub(super) unsettled: usize,
    /// Assignments made so far.
    pub(super) seq: u32,
    /// Nodes of each cluster idle at `now` when last counted: an upper bound of how many
    /// can start a task now, while bookings are only added (so within one `epoch`).
    pub(super) idle: [u32; MAX_CLUSTERS],
    /// The `epoch` `idle` was counted in (0: never).
    pub(super) idle_epoch: u32,
    /// Whether a task slot is given again once its task is done (see `free_slot`); off,
    /// a full table refuses arrivals, as a replay of a day expects.
    pub(super) recycle: bool,
    /// Completions so far (wrapping): each may free nodes from its time on.
    pub(super) completions: u32,
    /// Whether an option was ever turned down for want of energy (`choice`).
    pub(super) energy_refused: bool,
    /// What held when a backfilling pass last ended with every mappable task unable to
    /// start now (see [`Scanned`]).
    pub(super) scanned: Option<Scanned>,
}

/// The state a backfilling pass ended in, every mappable task left unable to start now:
/// while no task completed and no time was freed since, and no option was ever turned down
/// for energy, those tasks still cannot (bookings were only added, and time moved on), so
/// a later pass asks only the tasks that arrived since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scanned {
    completions: u32,
    loosened: u32,
    /// The id of the first task that had not arrived.
    next_id: u32,
}

impl<'a> Planner<'a> {
    /// A planner over `storage` for `platform`, with no task yet.
    pub fn new(
        platform: &'a Platform,
        classes: &'a UtilityClasses,
        config: Config,
        storage: Storage<'a>,
    ) -> Result<Planner<'a>, Error> {
        let sizes = StorageSizes::of(platform, 0);
        if storage.members.len() < sizes.members {
            // In nodes, both: the storage's room for them and the platform's.
            let per_node = ClusterTimeline::members_len(1);
            let (room, nodes) = (storage.members.len() / per_node, sizes.members / per_node);
            return Err(full_needing(Capacity::Nodes, room, nodes).into());
        }
        // The least scratch a run can start with: node choice's keys (two a group) and one
        // entry a node of the largest cluster. Past that a shorter scratch than the worst
        // case (`sizes.scratch`) gives the same answers until a sweep needs more, and then
        // a capacity error (the host sizes it by need and grows it on that error).
        let least = sizes.scratch_least;
        if storage.scratch_a.len() < least || storage.scratch_b.len() < least {
            let short = storage.scratch_a.len().min(storage.scratch_b.len());
            return Err(full_needing(Capacity::Nodes, short, least).into());
        }
        let mut clusters: heapless::Vec<ClusterTimeline<'a>, MAX_CLUSTERS> = heapless::Vec::new();
        // The pool in proportion to the clusters' nodes (StorageSizes gives each exactly its
        // own nodes' worth).
        let (total, pool) = (platform.total_nodes().max(1), storage.bookings.len() as u64);
        let (mut rest, mut more) = (storage.bookings, storage.members);
        for c in platform.clusters() {
            let n = c.nodes.0 as usize;
            let share = ((pool * c.nodes.0 as u64 / total) as usize).min(rest.len());
            let (head, tail) = core::mem::take(&mut rest).split_at_mut(share);
            rest = tail;
            let (mine, others) = more.split_at_mut(ClusterTimeline::members_len(n));
            more = others;
            let _ = clusters.push(ClusterTimeline::new(n, head, mine)?);
        }
        // The booking log in equal shares (StorageSizes gives each BOOKING_LOG).
        let share = storage.booking_log.len() / clusters.len().max(1);
        let mut logs = storage.booking_log;
        for c in clusters.iter_mut() {
            let (mine, tail) = core::mem::take(&mut logs).split_at_mut(share);
            logs = tail;
            c.set_log(mine);
        }
        let mut planner = Planner {
            platform,
            classes,
            config,
            averages: Averages::of_platform(platform),
            tasks: storage.tasks,
            len: 0,
            clusters,
            scratch_a: storage.scratch_a,
            scratch_b: storage.scratch_b,
            work: storage.work,
            work_len: 0,
            open: storage.open,
            open_len: 0,
            unsettled: 0,
            memo: FitMemo::new(storage.memo),
            epoch: 0,
            ledger: EnergyLedger::new(config.budget),
            planned: MilliJoules::ZERO,
            now: Micros::ZERO,
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            verdicts: Verdicts::new(Budget::Unlimited),
            seq: 0,
            idle: [0; MAX_CLUSTERS],
            idle_epoch: 0,
            recycle: false,
            completions: 0,
            energy_refused: false,
            scanned: None,
        };
        planner.index_voids(storage.voids);
        Ok(planner)
    }

    /// Gives the clusters a void index over `voids` (see [`Storage::voids`]).
    fn index_voids(&mut self, voids: &'a mut [Void]) {
        if voids.is_empty() {
            return;
        }
        let total = self.platform.total_nodes().max(1) as usize;
        let mut rest = voids;
        let all = rest.len();
        for (i, c) in self.platform.clusters().iter().enumerate() {
            let share = (all * c.nodes.0 as usize / total).min(rest.len());
            let (mine, tail) = core::mem::take(&mut rest).split_at_mut(share);
            rest = tail;
            let work = ClusterTimeline::index_work_len(c.nodes.0 as usize).min(mine.len());
            let (w, sorted) = mine.split_at_mut(work);
            let (a, b) = sorted.split_at_mut(sorted.len() / 2);
            self.clusters[i].set_index(a, b, w);
        }
    }

    /// A copy over `storage` that plans as this one does from here on (see
    /// [`Controller::clone_into`](crate::controller::Controller::clone_into)).
    pub(crate) fn clone_into<'b>(&self, mut storage: Storage<'b>) -> Result<Planner<'b>, Error>
    where
        'a: 'b,
    {
        // Once slots are recycled, a task's slot depends on the table's length: the copy
        // needs one as long.
        let copied = self.len.min(self.tasks.len());
        let fits = if self.len > self.tasks.len() {
            storage.tasks.len() == self.tasks.len()
        } else {
            storage.tasks.len() >= self.len
        };
        if !fits {
            return Err(full(Capacity::Tasks, storage.tasks.len()).into());
        }
        if storage.work.len() < self.work_len {
            return Err(full(Capacity::Tasks, storage.work.len()).into());
        }
        if storage.open.len() < self.open_len {
            return Err(full(Capacity::Tasks, storage.open.len()).into());
        }
        storage.tasks[..copied].clone_from_slice(&self.tasks[..copied]);
        storage.work[..self.work_len].copy_from_slice(&self.work[..self.work_len]);
        storage.open[..self.open_len].copy_from_slice(&self.open[..self.open_len]);
        if storage.memo.len() == self.memo.len() {
            storage.memo.copy_from_slice(self.memo.entries());
        } else {
            storage.memo.fill(MemoEntry::default());
        }
        // The index is built from the bookings, so it is given once they are copied.
        let voids = core::mem::take(&mut storage.voids);
        let mut copy = Planner::new(self.platform, self.classes, self.config, storage)?;
        for (src, dst) in self.clusters.iter().zip(copy.clusters.iter_mut()) {
            dst.copy_from(src)?;
        }
        copy.index_voids(voids);
        // Every field by name, so that a new one cannot be forgotten here.
        let Planner {
            platform: _,
            classes: _,
            config: _,
            averages,
            tasks: _,
            len,
            clusters: _,
            scratch_a: _,
            scratch_b: _,
            work: _,
            work_len,
            memo: _,
            epoch,
            ledger,
            planned,
            now,
            rng,
            verdicts,
            open: _,
            open_len,
            unsettled,
            seq,
            idle,
            idle_epoch,
            recycle,
            completions,
            energy_refused,
            scanned,
        } = self;
        copy.recycle = *recycle;
        copy.averages = *averages;
        copy.len = *len;
        copy.work_len = *work_len;
        copy.epoch = *epoch;
        copy.ledger = *ledger;
        copy.planned = *planned;
        copy.now = *now;
        copy.rng = rng.clone();
        copy.verdicts = *verdicts;
        copy.open_len = *open_len;
        copy.unsettled = *unsettled;
        copy.seq = *seq;
        copy.idle = *idle;
        copy.idle_epoch = *idle_epoch;
        copy.completions = *completions;
        copy.energy_refused = *energy_refused;
        copy.scanned = *scanned;
        Ok(copy)
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }
    /// The platform.
    pub fn platform(&self) -> &'a Platform {
        self.platform
    }
    /// The utility classes.
    pub fn classes(&self) -> &'a UtilityClasses {
        self.classes
    }
    /// The energy ledger.
    pub fn ledger(&self) -> &EnergyLedger {
        &self.ledger
    }
    /// The clock: the time of the last event.
    pub fn now(&self) -> Micros {
        self.now
    }
    /// The tasks so far, in arrival order (index = task id), while none has been recycled
    /// (fewer tasks so far than slots); after that, the table as it is, in slot order.
    pub fn tasks(&self) -> &[TaskSlot] {
        &self.tasks[..self.len.min(self.tasks.len())]
    }

    /// Task `id`'s slot, while the table holds it (`None`: it never arrived, or its slot went
    /// to a later task).
    pub fn task(&self, id: TaskId) -> Option<&TaskSlot> {
        self.held(id).map(|i| &self.tasks[i])
    }

    // ----- Slot recycling. -----
    //
    // While the tasks so far fit the table (every host run) task `id` is in slot `id`. Past
    // that the table is an open-addressed hash, so that a controller that runs for ever (the
    // firmware's live mode) holds a bounded number of tasks, not a day's: task `id` takes the
    // first slot from `id % slots` on (wrapping) whose last task is done with (completed or
    // dropped, and out of the open list), and is found by probing from there for its id. A
    // plain ring (slot `id % slots` or a capacity error) would need room for every arrival
    // during the longest-lived task's life, which at ESSC 10k is more than 4,096 (tasks wait
    // for hours); probing needs room for the tasks held at once (1,128 there). A full table
    // is a capacity error. The slot only changes where a task is kept, never a decision: the
    // planner visits tasks by id (the open list). Recycling is the caller's choice
    // (`recycle_slots`: the live controller's); without it a full table refuses arrivals.

    /// Gives task slots again once their tasks are done.
    pub fn recycle_slots(&mut self) {
        self.recycle = true;
    }

    /// The slot of task `id`, which the table holds (see [`held`](Self::held)).
    #[inline]
    pub(super) fn at(&self, id: usize) -> usize {
        let n = self.tasks.len();
        if id < n {
            return id;
        }
        self.probe(id).unwrap_or(0)
    }

    /// The slot that holds task `id` (at least the table's length): probed for from
    /// `id % slots`, where its arrival started looking for a free one.
    #[inline(never)]
    fn probe(&self, id: usize) -> Option<usize> {
        let n = self.tasks.len();
        let home = id % n;
        (0..n)
            .map(|j| (home + j) % n)
            .find(|&i| self.tasks[i].task.id.0 as usize == id)
    }

    /// The slot of task `id`, if the table still holds it.
    pub(super) fn held(&self, id: TaskId) -> Option<usize> {
        let id = id.0 as usize;
        if id >= self.len || self.tasks.is_empty() {
            return None;
        }
        if id < self.tasks.len() {
            return (self.tasks[id].task.id.0 as usize == id).then_some(id);
        }
        self.probe(id)
    }

    /// The slot the task with id `id` (the next to arrive) takes, if one is free.
    pub(super) fn free_slot(&self, id: usize) -> Option<usize> {
        let n = self.tasks.len();
        if n == 0 {
            return None;
        }
        if id < n {
            return Some(id);
        }
        if !self.recycle {
            return None;
        }
        let home = id % n;
        (0..n).map(|j| (home + j) % n).find(|&i| {
            let s = &self.tasks[i];
            matches!(s.state, TaskState::Completed | TaskState::Dropped)
                && self.open[..self.open_len]
                    .binary_search(&s.task.id.0)
                    .is_err()
        })
    }

    /// Task slots in use: tasks that arrived and are not done with (waiting, held, reserved
    /// or running, or still on the open list).
    pub fn slots_used(&self) -> usize {
        let held = self.len.min(self.tasks.len());
        (0..held)
            .filter(|&i| {
                !matches!(
                    self.tasks[i].state,
                    TaskState::Completed | TaskState::Dropped
                )
            })
            .count()
    }
    /// One cluster's timeline.
    pub fn timeline(&self, c: ClusterId) -> Option<&ClusterTimeline<'a>> {
        self.clusters.get(c.0 as usize)
    }
    /// The budget the energy filter computed at the start of the current or last event.
    pub fn filter_budget(&self) -> Budget {
        self.verdicts.budget()
    }

    // ----- What a heuristic reads of the tasks. -----

    /// Fills the work list with the mappable tasks in arrival order; returns how many.
    pub(crate) fn collect_mappable(&mut self) -> Result<usize, Error> {
        let mut n = 0;
        for k in 0..self.open_len {
            let i = self.open[k] as usize;
            if self.tasks[self.at(i)].state == TaskState::Mappable {
                let w = self.work.get_mut(n).ok_or(full(Capacity::Tasks, n))?;
                *w = Work {
                    slot: i as u32,
                    best: None,
                    may_start_now: false,
                    stamp: 0,
                    bound_u: f64::NAN,
                };
                n += 1;
            }
        }
        self.work_len = n;
        Ok(n)
    }

    /// The capacity error [`collect_mappable`](Self::collect_mappable) would give, for a
    /// heuristic that reads the mappable tasks from the open list instead: the open list
    /// holds `unsettled` tasks that are not mappable, and the rest are.
    pub(crate) fn check_work_room(&self) -> Result<(), Error> {
        if self.open_len - self.unsettled > self.work.len() {
            return Err(full(Capacity::Tasks, self.work.len()).into());
        }
        Ok(())
    }

    /// The time freed on every cluster so far (a sum of wrapping counts: it changes
    /// whenever one of them does).
    fn loosened_sum(&self) -> u32 {
        self.clusters
            .iter()
            .fold(0u32, |a, c| a.wrapping_add(c.loosened()))
    }

    /// Records that the pass now ending leaves no mappable task able to start now.
    pub(crate) fn mark_scanned(&mut self) {
        self.scanned = Some(Scanned {
            completions: self.completions,
            loosened: self.loosened_sum(),
            next_id: self.len as u32,
        });
    }

    /// Forgets the last pass's record (a pass is under way, or ended otherwise).
    pub(crate) fn forget_scanned(&mut self) {
        self.scanned = None;
    }

    /// The first position of the open list a backfilling pass needs to ask, every task
    /// before it being unable to start now: past the tasks the last recorded pass left
    /// waiting if nothing freed time since ([`Scanned`]; the caller checks that no energy
    /// filter applies), else 0.
    pub(crate) fn first_unscanned(&self) -> usize {
        match self.scanned {
            Some(s)
                if !self.energy_refused
                    && s.completions == self.completions
                    && s.loosened == self.loosened_sum() =>
            {
                // The open list holds ids in arrival order.
                self.open[..self.open_len].partition_point(|&id| id < s.next_id)
            }
            _ => 0,
        }
    }

    /// The work list of the current event.
    pub(crate) fn work(&mut self) -> &mut [Work] {
        &mut self.work[..self.work_len]
    }

    /// A task slot.
    pub(crate) fn slot(&self, i: u32) -> &TaskSlot {
        &self.tasks[self.at(i as usize)]
    }

    /// The Random heuristic's stream.
    pub(crate) fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// The platform task type task slot `i` runs as (`None`: a table of its own).
    pub(crate) fn task_type(&self, i: u32) -> Option<TaskTypeId> {
        match self.tasks[self.at(i as usize)].task.demand {
            Demand::Typed(t) => Some(t),
            Demand::Own(_) => None,
        }
    }

    /// The placement of task slot `i` on cluster `c`.
    pub(crate) fn placement(&self, i: u32, c: ClusterId) -> Option<Placement> {
        self.tasks[self.at(i as usize)]
            .task
            .on(self.platform, c)
            .copied()
    }

    /// The nodes task slot `i` needs on cluster `c`, if it may run there (its placement is
    /// not copied).
    pub(crate) fn nodes_on(&self, i: u32, c: ClusterId) -> Option<u32> {
        self.tasks[self.at(i as usize)]
            .task
            .on(self.platform, c)
            .map(|p| p.nodes.0)
    }

    /// Whether task slot `i` may run on cluster `c` (its placement is not copied).
    pub(crate) fn runs_on(&self, i: u32, c: ClusterId) -> bool {
        self.tasks[self.at(i as usize)]
            .task
            .on(self.platform, c)
            .is_some()
    }

    /// Task slot `i`'s table (its type's, or its own), read in place: no placement copied.
    pub(crate) fn table(&self, i: u32) -> Option<&TaskType> {
        self.tasks[self.at(i as usize)]
            .task
            .table(self.platform)
            .ok()
    }

    /// Number of P-states.
    pub(crate) fn pstates(&self) -> u8 {
        self.platform.pstates()
    }

    /// Number of clusters.
    pub(crate) fn cluster_count(&self) -> u8 {
        self.clusters.len() as u8
    }

    /// Whether slot `i` holds a reservation that starts after now.
    pub(crate) fn reserved_after_now(&self, i: usize) -> bool {
        let s = &self.tasks[self.at(i)];
        s.state == TaskState::Reserved && s.assignment.is_some_and(|a| a.start > self.now)
    }

    /// How many slots the open list holds (see [`open_slot`](Self::open_slot)).
    pub(crate) fn open_count(&self) -> usize {
        self.open_len
    }

    /// The `k`-th slot, in slot order, of those that may still wait (be mappable,
    /// place-held or reserved; a few may have stopped since the event began).
    pub(crate) fn open_slot(&self, k: usize) -> usize {
        self.open[k] as usize
    }

    /// The assignment of slot `i`, if any.
    pub(crate) fn assignment(&self, i: u32) -> Option<Assignment> {
        self.tasks[self.at(i as usize)].assignment
    }

    /// Holds the open list to its promise: every waiting task is in it, in slot order, and
    /// `unsettled` counts its entries that are not mappable (the event's clean-up stops
    /// after the last of them).
    #[cfg(test)]
    pub(crate) fn check_open_list(&self) {
        let open = &self.open[..self.open_len];
        assert!(open.windows(2).all(|w| w[0] < w[1]), "in slot order");
        for (i, s) in self.tasks().iter().enumerate() {
            if matches!(
                s.state,
                TaskState::Mappable | TaskState::PlaceHeld | TaskState::Reserved
            ) {
                assert!(open.contains(&(i as u32)), "waiting task {i} is open");
            }
        }
        let unsettled = open
            .iter()
            .filter(|&&i| self.tasks[self.at(i as usize)].state != TaskState::Mappable)
            .count();
        assert_eq!(self.unsettled, unsettled);
    }
}

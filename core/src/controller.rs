//! The controller: the state a resource manager keeps between events, and the three events
//! that drive it (`on_arrival`, `on_completion`, `on_mapping_event`).
//!
//! The same controller serves the replay engine and a live management controller. It owns
//! the tasks' states, the node timelines, the energy and utility ledgers, and the
//! per-event caches the heuristics share. All storage is the caller's ([`Storage`]).
//!
//! A mapping event (seed 000 §III.A) clears the place-holders, drops the tasks that can no
//! longer earn the threshold (utility-aware heuristics only), computes the energy filter's
//! budget, and runs the heuristic. Every query of the form "earliest start of `k` nodes for
//! `d` on cluster `c`" goes through a direct-mapped memo: tasks of one type ask the same
//! question, and an assignment only invalidates the answers whose window it overlaps and
//! whose spare nodes it used up.

use crate::config::{MAX_CLUSTERS, MAX_TASK_TYPES};
use crate::dropping::drop_check;
use crate::energy::{
    option_bit, window_share, Averages, Budget, EnergyFilter, EnergyLedger, FilterInputs,
    FilterKind, Verdicts,
};
use crate::error::{full, Capacity, Error, InputError};
use crate::platform::{ClusterId, PState, Placement, Platform, TaskType};
use crate::policy::knapsack::KnapsackParams;
use crate::policy::{self, Heuristic, Reservations};
use crate::task::{Demand, Task, TaskId};
use crate::timeline::{Booking, BookingKind, ClusterTimeline, Fit, NodeTimeline, Scratch, Void};
use crate::units::{CoreMicros, Micros, MilliJoules, NodeCount, Utility};
use crate::utility::{prorate, UtilityClasses};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskState {
    /// Waiting to be mapped.
    Mappable,
    /// Held by a place-holder until the next mapping event.
    PlaceHeld,
    /// Holding a permanent reservation that starts later.
    Reserved,
    /// Started (or its reservation's start has come).
    Running,
    /// Finished.
    Completed,
    /// Dropped: it could no longer earn the dropping threshold.
    Dropped,
}

/// Where and when a task was put.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Assignment {
    /// The cluster.
    pub cluster: ClusterId,
    /// The P-state.
    pub pstate: PState,
    /// The nodes it holds.
    pub nodes: NodeCount,
    /// Its start.
    pub start: Micros,
    /// Its planned end.
    pub end: Micros,
    /// Energy committed to the day's ledger for it (its share inside the day).
    pub committed: MilliJoules,
    /// The controller's count of assignments when this one was made: tells a re-placed
    /// task's new assignment from its old one even at the same start.
    pub seq: u32,
}

/// One task slot of the caller's task table.
#[derive(Clone, Debug)]
pub struct TaskSlot {
    /// The task.
    pub task: Task,
    /// Its state.
    pub state: TaskState,
    /// Its assignment, once it has one.
    pub assignment: Option<Assignment>,
    /// The last value of its utility curve the dropping check worked out, if any.
    pub point: Option<CurvePoint>,
}

/// One value of a task's utility curve, `value` at `since` after its arrival. The dropping
/// check at an event's start asks for completing after the task's fastest option from now,
/// which is what the heap's bound of the task asks when that option is admitted: the bound
/// reads it here instead of another `exp` (the curve is a function, so a point never goes
/// stale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// Time since arrival.
    pub since: Micros,
    /// The curve's value then.
    pub value: f64,
}

/// What a decision did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DecisionKind {
    /// The task starts now.
    Start,
    /// The task holds a permanent reservation for a later start.
    Reserve,
    /// The task holds a place-holder until the next event (not a commitment).
    PlaceHold,
    /// The task was dropped.
    Drop,
}

/// A decision of a mapping event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decision {
    /// The task.
    pub task: TaskId,
    /// What was decided.
    pub kind: DecisionKind,
    /// The cluster (zero for a drop).
    pub cluster: ClusterId,
    /// The nodes.
    pub nodes: NodeCount,
    /// The P-state.
    pub pstate: PState,
    /// The start (the event's time for a drop).
    pub start: Micros,
    /// The planned end.
    pub end: Micros,
}

/// How the controller decides.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The heuristic.
    pub heuristic: Heuristic,
    /// Permanent reservations or place-holders (the utility-aware heuristics; the others
    /// always reserve permanently).
    pub reservations: Reservations,
    /// The energy filter.
    pub filter: EnergyFilter,
    /// Dropping threshold, `None` for no dropping.
    pub drop_threshold: Option<f64>,
    /// The day's energy budget (`MilliJoules::MAX` for none).
    pub budget: MilliJoules,
    /// Start of the measured day (utility and energy outside it do not count).
    pub day_start: Micros,
    /// End of the day: nothing may start at or after it.
    pub day_end: Micros,
    /// Seed of the Random heuristic's stream.
    pub seed: u64,
    /// Multiple queues: a task is small below this fraction of the reference resources.
    pub small_fraction: f64,
    /// Multiple queues: a task is large above this fraction.
    pub large_fraction: f64,
    /// Place-holders for every mappable task, as seed 000's Algorithm 1 plans them, instead
    /// of ending the utility-aware heuristics' pass once no task left could start now.
    /// Either way the same tasks start, at the same places (the same digest): the
    /// place-holders past that point are a plan that the next event clears unread. Not
    /// serialized (the firmware's scenario encoding predates it): a decoded config plans
    /// until nothing more can start.
    #[serde(skip)]
    pub full_plan: bool,
}

impl Config {
    /// Seed 000's defaults for a heuristic: dropping at 0.5 for the utility-aware ones, no
    /// filter, place-holders, no budget, a day of `[day_start, day_end)`.
    pub fn new(heuristic: Heuristic, day_start: Micros, day_end: Micros) -> Config {
        Config {
            heuristic,
            reservations: Reservations::PlaceHolder,
            filter: EnergyFilter {
                kind: FilterKind::None,
                leniency: 1.0,
            },
            drop_threshold: if heuristic.is_utility_aware() {
                Some(0.5)
            } else {
                None
            },
            budget: MilliJoules::MAX,
            day_start,
            day_end,
            seed: 0,
            small_fraction: 0.3,
            large_fraction: 0.6,
            full_plan: false,
        }
    }
}

/// One entry of the direct-mapped fit memo: the earliest start of `k` nodes for `d` on a
/// cluster, or a lower bound of it, with the cluster's change counts when it was found.
///
/// An exact answer stays exact while no time has been freed on the cluster (`loose`) and
/// the bookings made since (`tight`, replayed from the cluster's log at lookup) left at least
/// `k` of its `free` nodes: bookings only move starts later, and one that leaves `k` nodes
/// free over `[start, start + d)` leaves `start` feasible. A lower bound stays one while no
/// time has been freed.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoEntry {
    gen: u32,
    cluster: u8,
    k: u32,
    d: u64,
    start: u64,
    free: u32,
    found: bool,
    loose: u32,
    tight: u32,
    /// Whether `start` is the answer (false: only a lower bound, such as "not now").
    exact: bool,
    /// A lower bound found with no place-holder on the cluster (0: none): it survives the
    /// place-holders being cleared, as long as nothing else was freed (`base_loose`, the
    /// cluster's count of that), so a mapping event resumes each query from the last
    /// event's answer instead of from now.
    floor: u64,
    base_loose: u32,
}

/// What the fit memo knows about a question.
enum Known {
    /// The answer, with the memo slot and generation that vouch for it.
    Exact(Option<Fit>, u32, u32),
    /// A lower bound of the answer (`u64::MAX`: there is none).
    AtLeast(u64),
}

/// The best option of a task, cached across the iterations of a mapping event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The cluster.
    pub cluster: ClusterId,
    /// The P-state.
    pub pstate: PState,
    /// The start.
    pub start: Micros,
    /// The planned duration.
    pub duration: Micros,
    /// The nodes.
    pub nodes: NodeCount,
    /// Energy of the whole run.
    pub energy: MilliJoules,
    /// Its share inside the day (what the ledger is charged).
    pub day_energy: MilliJoules,
    /// The objective's value.
    pub value: f64,
    memo: u32,
    gen: u32,
}

impl Choice {
    /// An option that is no option: `pl` on (c, p) as if it started at `start`, which only
    /// stands for a bound of the real one's objective (the memo never vouches for it).
    pub(crate) fn bound(pl: &Placement, c: ClusterId, p: PState, start: Micros) -> Choice {
        let energy = pl.energy(p);
        Choice {
            cluster: c,
            pstate: p,
            start,
            duration: pl.etc[p.0 as usize],
            nodes: pl.nodes,
            energy,
            day_energy: energy,
            value: 0.0,
            memo: u32::MAX,
            gen: 0,
        }
    }
}

/// A mappable task's working entry during a mapping event.
#[derive(Clone, Copy, Debug, Default)]
pub struct Work {
    /// Task slot index.
    pub slot: u32,
    /// Its cached best option.
    pub best: Option<Choice>,
    /// Whether it may still start now (the utility-aware pass ends when none may).
    pub may_start_now: bool,
    /// Assignments made in this event when its best was last computed, plus one.
    pub stamp: u32,
    /// The utility its bounds use in this event, once worked out (NaN: not yet): the same
    /// for the whole event, and an `exp` to work out.
    pub bound_u: f64,
}

/// The caller's storage for a controller: every buffer it will ever use.
pub struct Storage<'a> {
    /// One slot per task the run may hold.
    pub tasks: &'a mut [TaskSlot],
    /// One timeline per node of the platform, clusters in order.
    pub nodes: &'a mut [NodeTimeline],
    /// Group bookkeeping: `ClusterTimeline::members_len` of each cluster, in order.
    pub members: &'a mut [u32],
    /// Sweep scratch: at least `ClusterTimeline::scratch_len(largest cluster)` each (the
    /// first also holds node choice's keys).
    pub scratch_a: &'a mut [u64],
    /// Second sweep scratch, same length.
    pub scratch_b: &'a mut [u64],
    /// Working entries: at least as many as tasks.
    pub work: &'a mut [Work],
    /// The slots of the tasks that may still wait: at least as many as tasks.
    pub open: &'a mut [u32],
    /// The fit memo; any length (a power of two spreads best); empty disables it.
    pub memo: &'a mut [MemoEntry],
}

/// Sizes of the storage a platform and a task count need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageSizes {
    /// Task slots.
    pub tasks: usize,
    /// Node timelines.
    pub nodes: usize,
    /// Group bookkeeping entries.
    pub members: usize,
    /// Each sweep scratch buffer.
    pub scratch: usize,
    /// Work entries.
    pub work: usize,
    /// Open-slot entries.
    pub open: usize,
}

impl StorageSizes {
    /// What `tasks` tasks on `platform` need.
    pub fn of(platform: &Platform, tasks: usize) -> StorageSizes {
        let largest = platform
            .clusters()
            .iter()
            .map(|c| c.nodes.0 as usize)
            .max()
            .unwrap_or(0);
        StorageSizes {
            tasks,
            nodes: platform.total_nodes() as usize,
            members: ClusterTimeline::members_len(platform.total_nodes() as usize),
            scratch: ClusterTimeline::scratch_len(largest),
            work: tasks,
            open: tasks,
        }
    }
}

/// Counters of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Counts {
    /// Tasks that arrived.
    pub arrived: u32,
    /// Tasks completed.
    pub completed: u32,
    /// Tasks dropped.
    pub dropped: u32,
    /// Mapping events run.
    pub mapping_events: u32,
    /// Tasks that started.
    pub started: u32,
}

/// The state of a resource manager.
pub struct Controller<'a> {
    platform: &'a Platform,
    classes: &'a UtilityClasses,
    config: Config,
    averages: Averages,
    tasks: &'a mut [TaskSlot],
    len: usize,
    clusters: heapless::Vec<ClusterTimeline<'a>, MAX_CLUSTERS>,
    scratch_a: &'a mut [u64],
    scratch_b: &'a mut [u64],
    work: &'a mut [Work],
    work_len: usize,
    memo: &'a mut [MemoEntry],
    epoch: u32,
    ledger: EnergyLedger,
    /// Energy planned for place-holders in the current event (not committed).
    planned: MilliJoules,
    utility: Utility,
    counts: Counts,
    now: Micros,
    early_completions: u32,
    rng: ChaCha8Rng,
    /// The event's filter budget and its verdicts on the task types' options.
    verdicts: Verdicts,
    /// The slots of the tasks that may still wait (mappable, place-held or reserved; and
    /// those that stopped waiting since the last event), `open[..open_len]`, in slot order.
    /// Scans of the waiting tasks read these slots only: a task slot is large, and most
    /// slots between the oldest waiting task and the newest hold tasks that started.
    open: &'a mut [u32],
    open_len: usize,
    /// How many tasks of the open list are not mappable: an event's clean-up of the list
    /// stops after the last of them (the rest only move down).
    unsettled: usize,
    /// Assignments made so far.
    seq: u32,
    /// Nodes of each cluster idle at `now` when last counted: an upper bound of how many
    /// can start a task now, while bookings are only added (so within one memo epoch).
    idle: [u32; MAX_CLUSTERS],
    /// The memo epoch `idle` was counted in (0: never).
    idle_epoch: u32,
    /// Parameters of the knapsack heuristic (seed 004); not part of [`Config`].
    knapsack: KnapsackParams,
}

impl<'a> Controller<'a> {
    /// A controller over `storage` for `platform`.
    pub fn new(
        platform: &'a Platform,
        classes: &'a UtilityClasses,
        config: Config,
        storage: Storage<'a>,
    ) -> Result<Controller<'a>, Error> {
        let sizes = StorageSizes::of(platform, 0);
        if storage.nodes.len() < sizes.nodes {
            return Err(full(Capacity::Nodes, storage.nodes.len()).into());
        }
        if storage.members.len() < sizes.members {
            return Err(full(Capacity::Nodes, storage.members.len()).into());
        }
        if storage.scratch_a.len() < sizes.scratch || storage.scratch_b.len() < sizes.scratch {
            let short = storage.scratch_a.len().min(storage.scratch_b.len());
            return Err(full(Capacity::Nodes, short).into());
        }
        let mut clusters = heapless::Vec::new();
        let (mut rest, mut more) = (storage.nodes, storage.members);
        for c in platform.clusters() {
            let n = c.nodes.0 as usize;
            let (head, tail) = rest.split_at_mut(n);
            rest = tail;
            let (mine, others) = more.split_at_mut(ClusterTimeline::members_len(n));
            more = others;
            let _ = clusters.push(ClusterTimeline::new(head, mine)?);
        }
        Ok(Controller {
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
            memo: storage.memo,
            epoch: 0,
            ledger: EnergyLedger::new(config.budget),
            planned: MilliJoules::ZERO,
            utility: Utility::ZERO,
            counts: Counts::default(),
            now: Micros::ZERO,
            early_completions: 0,
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            verdicts: Verdicts::new(Budget::Unlimited),
            seq: 0,
            idle: [0; MAX_CLUSTERS],
            idle_epoch: 0,
            knapsack: KnapsackParams::default(),
        })
    }

    /// Gives the clusters a void index over `voids` (split in proportion to their nodes): the
    /// earliest-start queries then need no sort. Decisions do not change; a cluster whose
    /// voids outgrow its share falls back to sorting. Each cluster's share holds
    /// [`ClusterTimeline::index_work_len`] work entries (three edits a group one change
    /// touches), then the index's two sorted arrays. The host gives 128 entries a node (twice
    /// `VOIDS_PER_NODE` in `host/src/sim.rs`): the index holds each distinct void once, far
    /// fewer than the nodes' own.
    pub fn with_void_index(mut self, voids: &'a mut [Void]) -> Controller<'a> {
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
        self
    }

    /// A copy of this controller over `storage`: the tasks, every node's bookings, the
    /// ledgers, counts, clock, random stream, assignment count, fit memo and every other
    /// field, so that the copy makes the same decisions as the original from here on.
    ///
    /// `storage` needs room for the tasks so far, every node and the largest cluster's
    /// scratch (a [`CapacityError`](crate::error::CapacityError) otherwise). The memo is
    /// copied when it has the original's length and starts empty otherwise (it only caches
    /// the current event's answers). The copy has no void index: give it one with
    /// [`with_void_index`](Self::with_void_index) (a cache: decisions do not depend on it).
    pub fn clone_into<'b>(&self, storage: Storage<'b>) -> Result<Controller<'b>, Error>
    where
        'a: 'b,
    {
        if storage.tasks.len() < self.len {
            return Err(full(Capacity::Tasks, storage.tasks.len()).into());
        }
        if storage.work.len() < self.work_len {
            return Err(full(Capacity::Tasks, storage.work.len()).into());
        }
        if storage.open.len() < self.open_len {
            return Err(full(Capacity::Tasks, storage.open.len()).into());
        }
        let Storage {
            tasks,
            nodes,
            members,
            scratch_a,
            scratch_b,
            work,
            open,
            memo,
        } = storage;
        tasks[..self.len].clone_from_slice(&self.tasks[..self.len]);
        work[..self.work_len].copy_from_slice(&self.work[..self.work_len]);
        open[..self.open_len].copy_from_slice(&self.open[..self.open_len]);
        if memo.len() == self.memo.len() {
            memo.copy_from_slice(self.memo);
        } else {
            memo.fill(MemoEntry::default());
        }
        let mut copy = Controller::new(
            self.platform,
            self.classes,
            self.config,
            Storage {
                tasks,
                nodes,
                members,
                scratch_a,
                scratch_b,
                work,
                open,
                memo,
            },
        )?;
        for (src, dst) in self.clusters.iter().zip(copy.clusters.iter_mut()) {
            dst.copy_from(src)?;
        }
        // Every field by name, so that a new one cannot be forgotten here.
        let Controller {
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
            open: _,
            open_len,
            unsettled,
            memo: _,
            epoch,
            ledger,
            planned,
            utility,
            counts,
            now,
            early_completions,
            rng,
            verdicts,
            seq,
            idle,
            idle_epoch,
            knapsack,
        } = self;
        copy.averages = *averages;
        copy.len = *len;
        copy.work_len = *work_len;
        copy.epoch = *epoch;
        copy.ledger = *ledger;
        copy.planned = *planned;
        copy.utility = *utility;
        copy.counts = *counts;
        copy.now = *now;
        copy.early_completions = *early_completions;
        copy.rng = rng.clone();
        copy.verdicts = *verdicts;
        copy.open_len = *open_len;
        copy.unsettled = *unsettled;
        copy.seq = *seq;
        copy.idle = *idle;
        copy.idle_epoch = *idle_epoch;
        copy.knapsack = *knapsack;
        Ok(copy)
    }

    /// Replaces the averages the energy filters use (trace jobs carry their own tables).
    pub fn set_averages(&mut self, averages: Averages) {
        self.averages = averages;
    }

    /// Sets the knapsack heuristic's parameters (checked when it runs).
    pub fn set_knapsack(&mut self, params: KnapsackParams) {
        self.knapsack = params;
    }

    /// The knapsack heuristic's parameters.
    pub fn knapsack(&self) -> KnapsackParams {
        self.knapsack
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
    /// Utility earned inside the day so far.
    pub fn utility(&self) -> Utility {
        self.utility
    }
    /// Counters.
    pub fn counts(&self) -> Counts {
        self.counts
    }
    /// The controller's clock: the time of the last event.
    pub fn now(&self) -> Micros {
        self.now
    }
    /// The tasks so far, in arrival order (index = [`TaskId`]).
    pub fn tasks(&self) -> &[TaskSlot] {
        &self.tasks[..self.len]
    }
    /// One cluster's timeline.
    pub fn timeline(&self, c: ClusterId) -> Option<&ClusterTimeline<'a>> {
        self.clusters.get(c.0 as usize)
    }
    /// The budget the energy filter computed at the start of the current or last event.
    pub fn filter_budget(&self) -> Budget {
        self.verdicts.budget()
    }

    fn tick(&mut self, now: Micros) -> Result<(), Error> {
        if now < self.now {
            return Err(InputError::TimeWentBackwards.into());
        }
        self.now = now;
        Ok(())
    }

    /// A task arrives: it joins the mappable set. Its id is its index in arrival order.
    pub fn on_arrival(&mut self, mut task: Task) -> Result<TaskId, Error> {
        self.tick(task.arrival)?;
        // Reject what no cluster can run now, rather than fail inside a mapping event.
        let table = task.table(self.platform)?;
        if table.placements.len() > self.clusters.len()
            || table.placements.iter().all(|p| p.is_none())
        {
            return Err(InputError::NoEligibleCluster(0).into());
        }
        for (ci, p) in table.placements.iter().enumerate() {
            if let Some(p) = p {
                let nodes = self.clusters[ci].len();
                if p.nodes.0 == 0 || p.nodes > nodes {
                    return Err(InputError::BadNodeCount {
                        nodes: p.nodes.0,
                        cluster_nodes: nodes.0,
                    }
                    .into());
                }
                if p.etc[..self.platform.pstates() as usize].contains(&Micros::ZERO) {
                    return Err(InputError::ZeroDuration.into());
                }
            }
        }
        task.curve.value_at(Micros::ZERO, self.classes)?;
        if self.len >= self.tasks.len() {
            return Err(full(Capacity::Tasks, self.tasks.len()).into());
        }
        if self.open_len >= self.open.len() {
            return Err(full(Capacity::Tasks, self.open.len()).into());
        }
        let id = TaskId(self.len as u32);
        task.id = id;
        self.tasks[self.len] = TaskSlot {
            task,
            state: TaskState::Mappable,
            assignment: None,
            point: None,
        };
        self.open[self.open_len] = self.len as u32;
        self.open_len += 1;
        self.len += 1;
        self.counts.arrived += 1;
        Ok(id)
    }

    /// A task finished at `at` (at or before its planned end): its nodes are free from then,
    /// its utility (prorated to the day) and its energy go to the ledgers.
    pub fn on_completion(&mut self, id: TaskId, at: Micros) -> Result<Utility, Error> {
        self.tick(at)?;
        let slot = self.tasks[..self.len]
            .get_mut(id.0 as usize)
            .ok_or(InputError::UnknownTask(id.0))?;
        let a = match (slot.state, slot.assignment) {
            (TaskState::Running | TaskState::Reserved, Some(a)) if a.start <= at && at <= a.end => {
                a
            }
            _ => return Err(InputError::BadTaskState(id.0).into()),
        };
        slot.state = TaskState::Completed;
        let value = slot
            .task
            .curve
            .value_at(at - slot.task.arrival, self.classes)?;
        let earned = prorate(
            Utility::from_f64(value),
            a.start,
            at,
            self.config.day_start,
            self.config.day_end,
        );
        let placement = *slot
            .task
            .on(self.platform, a.cluster)
            .ok_or(InputError::UnknownCluster(a.cluster.0))?;
        let power = placement.apc[a.pstate.0 as usize];
        let actual = window_share(
            power.energy(a.nodes, at - a.start),
            a.start,
            at,
            self.config.day_start,
            self.config.day_end,
        );
        self.ledger.settle(a.committed, actual.min(a.committed));
        self.utility += earned;
        self.counts.completed += 1;
        if at < a.end {
            self.early_completions += 1;
        }
        self.clusters[a.cluster.0 as usize].complete_from(id, a.start, at);
        Ok(earned)
    }

    /// Runs a mapping event at `now`; every decision goes to `sink` in order.
    pub fn on_mapping_event(
        &mut self,
        now: Micros,
        sink: &mut dyn FnMut(&Decision),
    ) -> Result<(), Error> {
        self.tick(now)?;
        self.counts.mapping_events += 1;
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.planned = MilliJoules::ZERO;
        // Place-holders vanish; reservations whose start has come are running now.
        for c in self.clusters.iter_mut() {
            c.clear_place_holders();
            c.prune(now);
        }
        // A started task never waits again: the open list loses it here, and the scans
        // below skip it like a finished one.
        let (mut kept, mut k, mut left, mut unsettled) = (0, 0, self.unsettled, 0);
        while k < self.open_len && left > 0 {
            let i = self.open[k] as usize;
            k += 1;
            let s = &mut self.tasks[i];
            if s.state != TaskState::Mappable {
                left -= 1;
                match s.state {
                    TaskState::PlaceHeld => {
                        s.state = TaskState::Mappable;
                        s.assignment = None;
                    }
                    TaskState::Reserved => {
                        if let Some(a) = s.assignment.filter(|a| a.start <= now) {
                            s.state = TaskState::Running;
                            if let Some(tl) = self.clusters.get_mut(a.cluster.0 as usize) {
                                tl.mark_running_from(TaskId(i as u32), a.start);
                            }
                        }
                    }
                    _ => {}
                }
                match self.tasks[i].state {
                    TaskState::Running | TaskState::Completed | TaskState::Dropped => continue,
                    TaskState::Mappable => {}
                    _ => unsettled += 1,
                }
            }
            self.open[kept] = i as u32;
            kept += 1;
        }
        // The rest are mappable (a queue of thousands under FCFS): they only move down.
        self.open.copy_within(k..self.open_len, kept);
        self.open_len = kept + (self.open_len - k);
        self.unsettled = unsettled;
        if let Some(th) = self.config.drop_threshold {
            // Each type's fastest duration, worked out at its first task of the event.
            let mut fastest: [Option<Option<Micros>>; MAX_TASK_TYPES] = [None; MAX_TASK_TYPES];
            for k in 0..self.open_len {
                let i = self.open[k] as usize;
                let s = &mut self.tasks[i];
                if s.state != TaskState::Mappable {
                    continue;
                }
                let of_task = |t: &Task| t.fastest(self.platform).map(|(_, d)| d);
                let f = match s.task.demand {
                    Demand::Typed(t) => match fastest.get_mut(t.0 as usize) {
                        Some(kept) => *kept.get_or_insert_with(|| of_task(&s.task)),
                        None => of_task(&s.task),
                    },
                    Demand::Own(_) => of_task(&s.task),
                };
                let (drop, point) = drop_check(&s.task, f, now, self.platform, self.classes, th)?;
                s.point = Some(point);
                if drop {
                    s.state = TaskState::Dropped;
                    self.unsettled += 1;
                    self.counts.dropped += 1;
                    sink(&Decision {
                        task: TaskId(i as u32),
                        kind: DecisionKind::Drop,
                        cluster: ClusterId(0),
                        nodes: NodeCount(0),
                        pstate: PState(0),
                        start: now,
                        end: now,
                    });
                }
            }
        }
        // The inputs walk every booking; without a filter nothing reads them.
        let budget = if self.config.filter.kind == FilterKind::None {
            Budget::Unlimited
        } else {
            self.config.filter.budget(&self.filter_inputs())
        };
        // Forgets the last event's verdicts with its budget.
        self.verdicts.set_budget(budget);
        let early = core::mem::take(&mut self.early_completions);
        policy::run(self, early > 0, sink)
    }

    /// The energy filter's inputs at the current time (seed 000 Eq. 6-9, seed 002 Eq. 9-11).
    pub fn filter_inputs(&self) -> FilterInputs {
        let from = if self.now > self.config.day_start {
            self.now
        } else {
            self.config.day_start
        };
        let day = self.config.day_end.saturating_sub(self.config.day_start);
        let mut remaining: u128 = 0;
        let mut total: u128 = 0;
        for (c, t) in self.platform.clusters().iter().zip(self.clusters.iter()) {
            remaining += t.free_node_time(from, self.config.day_end) * c.cores_per_node as u128;
            total += c.nodes.0 as u128 * c.cores_per_node as u128 * day.0 as u128;
        }
        FilterInputs {
            energy_remaining: self.ledger.remaining(),
            resources_remaining: CoreMicros(remaining),
            day_resources: CoreMicros(total),
            energy_spent: self.ledger.consumed() + self.ledger.committed(),
            budget: self.ledger.budget(),
            averages: self.averages,
        }
    }

    // ----- The toolkit the policies use. -----

    /// Fills the work list with the mappable tasks in arrival order; returns how many.
    pub(crate) fn collect_mappable(&mut self) -> Result<usize, Error> {
        let mut n = 0;
        for k in 0..self.open_len {
            let i = self.open[k] as usize;
            if self.tasks[i].state == TaskState::Mappable {
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

    /// The work list of the current event.
    pub(crate) fn work(&mut self) -> &mut [Work] {
        &mut self.work[..self.work_len]
    }

    /// A task slot.
    pub(crate) fn slot(&self, i: u32) -> &TaskSlot {
        &self.tasks[i as usize]
    }

    /// The Random heuristic's stream.
    pub(crate) fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// The platform task type task slot `i` runs as (`None`: a table of its own).
    pub(crate) fn task_type(&self, i: u32) -> Option<crate::platform::TaskTypeId> {
        match self.tasks[i as usize].task.demand {
            crate::task::Demand::Typed(t) => Some(t),
            crate::task::Demand::Own(_) => None,
        }
    }

    /// The placement of task slot `i` on cluster `c`.
    pub(crate) fn placement(&self, i: u32, c: ClusterId) -> Option<Placement> {
        self.tasks[i as usize].task.on(self.platform, c).copied()
    }

    /// Whether task slot `i` may run on cluster `c` (its placement is not copied).
    pub(crate) fn runs_on(&self, i: u32, c: ClusterId) -> bool {
        self.tasks[i as usize].task.on(self.platform, c).is_some()
    }

    /// Task slot `i`'s table (its type's, or its own), read in place: no placement copied.
    pub(crate) fn table(&self, i: u32) -> Option<&TaskType> {
        self.tasks[i as usize].task.table(self.platform).ok()
    }

    fn memo_index(&self, c: ClusterId, k: NodeCount, d: Micros) -> Option<usize> {
        if self.memo.is_empty() {
            return None;
        }
        // A fixed multiplicative hash: the same on every machine.
        let h = (c.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (k.0 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ d.0.wrapping_mul(0x1656_67B1_9E37_79F9);
        let h = h ^ (h >> 29);
        Some((h % self.memo.len() as u64) as usize)
    }

    /// The earliest start now or later for `k` nodes during `d` on cluster `c`, memoized;
    /// returns the fit (if any) and the memo slot and generation that vouch for it. A fit
    /// known to start at or after `limit` may come back as `None` (callers reject those).
    ///
    /// A memo entry for the same question from an earlier event (or one that a booking of
    /// this event overtook) still bounds the answer from below while the cluster has not been
    /// loosened since: bookings were only added, so every start only moved later. The query
    /// then starts from that bound, which gives the same answer (coverage at `s >= now` does
    /// not depend on where the sweep starts), and a bound at or past `limit` skips it: the
    /// tasks that cannot start today are not swept again at every event.
    pub(crate) fn fit(
        &mut self,
        c: ClusterId,
        k: NodeCount,
        d: Micros,
        limit: Micros,
    ) -> Result<(Option<Fit>, u32, u32), Error> {
        let idx = self.memo_index(c, k, d);
        let mut from = self.now;
        match self.known(idx, c, k, d)? {
            Known::Exact(fit, i, gen) => return Ok((fit, i, gen)),
            Known::AtLeast(bound) if bound >= limit.0 => return Ok((None, u32::MAX, 0)),
            Known::AtLeast(bound) => from = from.max(Micros(bound)),
        }
        let tl = self
            .clusters
            .get_mut(c.0 as usize)
            .ok_or(InputError::UnknownCluster(c.0))?;
        let mut scratch = Scratch::new(self.scratch_a, self.scratch_b);
        let fit = tl.earliest_start(from, k, d, &mut scratch)?;
        let (start, free) = fit.map_or((None, 0), |f| (Some(f.start), f.free));
        let (i, gen) = self.remember(idx, c, k, d, start, free, true);
        Ok((fit, i, gen))
    }

    /// What the memo knows of (c, k, d): the answer (checked against the bookings made
    /// since it was found) or a lower bound (see [`MemoEntry`] and [`fit`](Self::fit)).
    fn known(
        &mut self,
        idx: Option<usize>,
        c: ClusterId,
        k: NodeCount,
        d: Micros,
    ) -> Result<Known, Error> {
        let tl = self
            .clusters
            .get(c.0 as usize)
            .ok_or(InputError::UnknownCluster(c.0))?;
        let (loose, tight) = (tl.loosened(), tl.tightened());
        let Some(i) = idx else {
            return Ok(Known::AtLeast(0));
        };
        let e = &mut self.memo[i];
        if e.cluster != c.0 || e.k != k.0 || e.d != d.0 {
            return Ok(Known::AtLeast(0));
        }
        if e.loose != loose {
            // Freed since: only the floor survives, if all that was freed were place-holders
            // (a mapping event clearing them).
            let floor = if e.base_loose == tl.base_loosened() {
                e.floor
            } else {
                0
            };
            return Ok(Known::AtLeast(floor));
        }
        if e.exact && e.found && e.tight != tight {
            match tl.booked_since(e.tight) {
                None => e.exact = false,
                Some(since) => {
                    for b in since {
                        if b.start < e.start.saturating_add(e.d) && b.end > e.start {
                            if e.free >= b.nodes + e.k {
                                e.free -= b.nodes;
                            } else {
                                e.exact = false;
                                break;
                            }
                        }
                    }
                }
            }
            e.tight = tight;
        }
        if e.exact && !e.found {
            return Ok(Known::Exact(None, i as u32, e.gen));
        }
        if e.exact && e.start >= self.now.0 {
            let fit = Fit {
                start: Micros(e.start),
                free: e.free,
            };
            return Ok(Known::Exact(Some(fit), i as u32, e.gen));
        }
        Ok(Known::AtLeast(if e.found { e.start } else { u64::MAX }))
    }

    /// Writes an answer (`exact`) or a lower bound of (c, k, d) into the memo; returns the
    /// slot and generation that vouch for it (`u32::MAX` without a memo).
    #[allow(clippy::too_many_arguments)]
    fn remember(
        &mut self,
        idx: Option<usize>,
        c: ClusterId,
        k: NodeCount,
        d: Micros,
        start: Option<Micros>,
        free: u32,
        exact: bool,
    ) -> (u32, u32) {
        let Some(i) = idx else {
            return (u32::MAX, 0);
        };
        let (loose, tight, clean, base_loose) =
            self.clusters
                .get(c.0 as usize)
                .map_or((0, 0, false, 0), |t| {
                    (
                        t.loosened(),
                        t.tightened(),
                        t.held() == 0,
                        t.base_loosened(),
                    )
                });
        let e = &mut self.memo[i];
        let same = e.cluster == c.0 && e.k == k.0 && e.d == d.0 && e.base_loose == base_loose;
        let floor = match (clean, start) {
            // Without place-holders, this is the floor (and no start at all stays so).
            (true, Some(s)) => s.0,
            (true, None) if exact => u64::MAX,
            // With them, the last floor stays one (bookings were only added since).
            _ if same => e.floor,
            _ => 0,
        };
        *e = MemoEntry {
            gen: e.gen.wrapping_add(1),
            cluster: c.0,
            k: k.0,
            d: d.0,
            start: start.map_or(0, |s| s.0),
            free,
            found: start.is_some(),
            loose,
            tight,
            exact,
            floor,
            base_loose,
        };
        (i as u32, e.gen)
    }

    /// Whether the memo still vouches for a cached choice: its entry holds the same answer,
    /// still exact after the bookings made since.
    pub(crate) fn still_valid(&mut self, ch: &Choice) -> bool {
        if ch.memo as usize >= self.memo.len() {
            return false;
        }
        match self.known(Some(ch.memo as usize), ch.cluster, ch.nodes, ch.duration) {
            Ok(Known::Exact(Some(f), _, gen)) => gen == ch.gen && f.start == ch.start,
            _ => false,
        }
    }

    /// Energy the ledger can still take in this event (after place-holders planned in it).
    pub(crate) fn energy_available(&self) -> MilliJoules {
        self.ledger.remaining().saturating_sub(self.planned)
    }

    /// The placement of task slot `i` on (c, p) and its duration there, if it may run on `c`
    /// and (when `filtered`) the energy filter admits it.
    pub(crate) fn admitted(
        &mut self,
        i: u32,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> Option<(Placement, Micros)> {
        let pl = self.placement(i, c)?;
        self.admits(i, &pl, c, p, filtered)
            .then_some((pl, pl.etc[p.0 as usize]))
    }

    /// Whether task slot `i`, placed as `pl` on cluster `c`, may run in P-state `p`: always,
    /// or (when `filtered`) if the event's energy filter admits it.
    pub(crate) fn admits(
        &mut self,
        i: u32,
        pl: &Placement,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> bool {
        if !filtered {
            return true;
        }
        match &self.tasks[i as usize].task.demand {
            Demand::Typed(t) => self.verdicts.of_type(self.platform, *t) & option_bit(c, p) != 0,
            // One option of a table of its own: worked out as asked.
            Demand::Own(_) => self
                .verdicts
                .budget()
                .admits(pl.energy(p), self.platform.resources(c, pl, p)),
        }
    }

    /// The options of task slot `i` (bits [`option_bit`]) that (when `filtered`) the event's
    /// energy filter admits: every bit when not `filtered`. A bit says nothing of whether the
    /// task may run on the cluster at all; the placement does.
    pub(crate) fn admitted_options(&mut self, i: u32, filtered: bool) -> u32 {
        if !filtered {
            return u32::MAX;
        }
        match &self.tasks[i as usize].task.demand {
            Demand::Typed(t) => self.verdicts.of_type(self.platform, *t),
            Demand::Own(table) => self.verdicts.of_table(self.platform, table),
        }
    }

    /// Builds the option of task slot `i` on (c, p) with its fit; `None` if it cannot start
    /// today or its day energy does not fit what is left.
    pub(crate) fn option(
        &mut self,
        i: u32,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> Result<Option<Choice>, Error> {
        let Some((pl, d)) = self.admitted(i, c, p, filtered) else {
            return Ok(None);
        };
        let (fit, memo, gen) = self.fit(c, pl.nodes, d, self.config.day_end)?;
        let Some(fit) = fit else { return Ok(None) };
        if fit.start >= self.config.day_end {
            return Ok(None);
        }
        self.choice(&pl, c, p, fit.start, memo, gen)
    }

    /// The option of task slot `i` on (c, p) if it can start now (`None` otherwise, or if the
    /// filter or the energy left rejects it): what [`option`](Self::option) gives when its
    /// start is now, found by counting the nodes free over the run instead of sweeping for
    /// the earliest start (the backfilling candidates of EASY and FCFS ask only this).
    pub(crate) fn option_now(
        &mut self,
        i: u32,
        c: ClusterId,
        p: PState,
        filtered: bool,
    ) -> Result<Option<Choice>, Error> {
        let Some((pl, d)) = self.admitted(i, c, p, filtered) else {
            return Ok(None);
        };
        if self.now >= self.config.day_end {
            return Ok(None);
        }
        let now = self.now;
        if self.idle_epoch != self.epoch {
            // Counted once per epoch: bookings are only added within one, so the count
            // stays an upper bound, and most candidates need more nodes than are idle.
            for (n, tl) in self.idle.iter_mut().zip(self.clusters.iter()) {
                *n = tl.free_over(now, now.saturating_add(Micros(1)), u32::MAX);
            }
            self.idle_epoch = self.epoch;
        }
        let k = pl.nodes.0;
        if k == 0 || k > self.idle[c.0 as usize] {
            return Ok(None);
        }
        let idx = self.memo_index(c, pl.nodes, d);
        let (slot, gen) = match self.known(idx, c, pl.nodes, d)? {
            Known::Exact(Some(f), slot, gen) if f.start <= now => (slot, gen),
            Known::Exact(..) => return Ok(None),
            Known::AtLeast(bound) if bound > now.0 => return Ok(None),
            Known::AtLeast(_) => {
                let tl = self
                    .clusters
                    .get(c.0 as usize)
                    .ok_or(InputError::UnknownCluster(c.0))?;
                let free = tl.free_over(now, now.saturating_add(d), k);
                if free < k {
                    // Not now: a lower bound for the rest of this event (and later ones
                    // while nothing is freed), so the same question is not counted again.
                    self.remember(idx, c, pl.nodes, d, Some(now + Micros(1)), 0, false);
                    return Ok(None);
                }
                // `free` stops at k: an under-count, which only makes the memo drop the
                // answer sooner when a later booking overlaps it.
                self.remember(idx, c, pl.nodes, d, Some(now), free, true)
            }
        };
        self.choice(&pl, c, p, now, slot, gen)
    }

    /// The choice of placement `pl` on (c, p) starting at `start`; `None` if its day energy
    /// does not fit what is left.
    fn choice(
        &self,
        pl: &Placement,
        c: ClusterId,
        p: PState,
        start: Micros,
        memo: u32,
        gen: u32,
    ) -> Result<Option<Choice>, Error> {
        let d = pl.etc[p.0 as usize];
        let energy = pl.energy(p);
        let day_energy = window_share(
            energy,
            start,
            start.saturating_add(d),
            self.config.day_start,
            self.config.day_end,
        );
        if day_energy > self.energy_available() {
            return Ok(None);
        }
        Ok(Some(Choice {
            cluster: c,
            pstate: p,
            start,
            duration: d,
            nodes: pl.nodes,
            energy,
            day_energy,
            value: 0.0,
            memo,
            gen,
        }))
    }

    /// The utility task slot `i` earns if it completes at `end`.
    pub(crate) fn value_at_end(&self, i: u32, end: Micros) -> Result<f64, Error> {
        let s = &self.tasks[i as usize];
        let since = end.saturating_sub(s.task.arrival);
        if let Some(p) = s.point.filter(|p| p.since == since) {
            return Ok(p.value);
        }
        s.task.curve.value_at(since, self.classes)
    }

    /// Number of P-states.
    pub(crate) fn pstates(&self) -> u8 {
        self.platform.pstates()
    }

    /// Number of clusters.
    pub(crate) fn cluster_count(&self) -> u8 {
        self.clusters.len() as u8
    }

    /// Puts task slot `i` at `ch`: starts it now, or reserves / place-holds it. Emits the
    /// decision and updates the memo for the nodes it took.
    pub(crate) fn assign(
        &mut self,
        i: u32,
        ch: &Choice,
        kind: Reservations,
        sink: &mut dyn FnMut(&Decision),
    ) -> Result<(), Error> {
        let end = ch.start.saturating_add(ch.duration);
        let starts_now = ch.start <= self.now;
        let (state, bkind, dkind) = if starts_now {
            (
                TaskState::Running,
                BookingKind::Running,
                DecisionKind::Start,
            )
        } else if kind == Reservations::Permanent {
            (
                TaskState::Reserved,
                BookingKind::Reserved,
                DecisionKind::Reserve,
            )
        } else {
            (
                TaskState::PlaceHeld,
                BookingKind::PlaceHolder,
                DecisionKind::PlaceHold,
            )
        };
        let k = ch.nodes.0 as usize;
        let tl = self
            .clusters
            .get_mut(ch.cluster.0 as usize)
            .ok_or(InputError::UnknownCluster(ch.cluster.0))?;
        let booking = Booking {
            start: ch.start,
            end,
            task: TaskId(i),
            kind: bkind,
        };
        if !tl.book_chosen(self.now, k as u32, booking, self.scratch_a)? {
            return Err(InputError::Overlap.into());
        }
        let committed = if state == TaskState::PlaceHeld {
            self.planned = self.planned.saturating_add(ch.day_energy);
            MilliJoules::ZERO
        } else {
            if self.ledger.commit(ch.day_energy).is_err() {
                self.clusters[ch.cluster.0 as usize].remove_task_from(TaskId(i), ch.start);
                return Err(InputError::BadTaskState(i).into());
            }
            ch.day_energy
        };
        if state == TaskState::Running {
            self.counts.started += 1;
        }
        self.seq = self.seq.wrapping_add(1);
        let slot = &mut self.tasks[i as usize];
        // From mappable (always in the open list) to not, or the other way.
        match (
            slot.state == TaskState::Mappable,
            state == TaskState::Mappable,
        ) {
            (true, false) => self.unsettled += 1,
            (false, true) => self.unsettled -= 1,
            _ => {}
        }
        slot.state = state;
        slot.assignment = Some(Assignment {
            cluster: ch.cluster,
            pstate: ch.pstate,
            nodes: ch.nodes,
            start: ch.start,
            end,
            committed,
            seq: self.seq,
        });
        sink(&Decision {
            task: TaskId(i),
            kind: dkind,
            cluster: ch.cluster,
            nodes: ch.nodes,
            pstate: ch.pstate,
            start: ch.start,
            end,
        });
        Ok(())
    }

    /// Takes back a permanent reservation that has not started (EASY recomputes it,
    /// Conservative compresses): the task is mappable again and its energy is released.
    pub(crate) fn unreserve(&mut self, i: u32) {
        let slot = &mut self.tasks[i as usize];
        if slot.state != TaskState::Reserved {
            return;
        }
        if let Some(a) = slot.assignment.take() {
            self.ledger.release(a.committed);
            self.clusters[a.cluster.0 as usize].remove_task_from(TaskId(i), a.start);
        }
        slot.state = TaskState::Mappable;
        // It was reserved, so in the open list and counted there.
        self.unsettled -= 1;
        // The timeline changed under the memo: forget this event's answers.
        self.epoch = self.epoch.wrapping_add(1).max(1);
    }

    /// Slots of the tasks holding a reservation that starts after now, in slot order.
    pub(crate) fn reserved_after_now(&self, i: usize) -> bool {
        let s = &self.tasks[i];
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

    /// The reservation of slot `i`, if any.
    pub(crate) fn assignment(&self, i: u32) -> Option<Assignment> {
        self.tasks[i as usize].assignment
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::error::CapacityError;
    use crate::platform::{Cluster, ClusterKind, TaskTypeId};
    use crate::task::Demand;
    use crate::units::MilliWatts;
    use std::vec;
    use std::vec::Vec;

    /// Owned buffers for one controller.
    struct Bufs {
        tasks: Vec<TaskSlot>,
        nodes: Vec<NodeTimeline>,
        members: Vec<u32>,
        a: Vec<u64>,
        b: Vec<u64>,
        work: Vec<Work>,
        open: Vec<u32>,
        memo: Vec<MemoEntry>,
    }

    impl Bufs {
        fn new(platform: &Platform, tasks: usize, memo: usize, template: &Task) -> Bufs {
            let s = StorageSizes::of(platform, tasks);
            let slot = TaskSlot {
                task: template.clone(),
                state: TaskState::Completed,
                assignment: None,
                point: None,
            };
            Bufs {
                tasks: vec![slot; s.tasks],
                nodes: vec![NodeTimeline::new(); s.nodes],
                members: vec![0; s.members],
                a: vec![0; s.scratch],
                b: vec![0; s.scratch],
                work: vec![Work::default(); s.work],
                open: vec![0; s.open],
                memo: vec![MemoEntry::default(); memo],
            }
        }
        fn storage(&mut self) -> Storage<'_> {
            Storage {
                tasks: &mut self.tasks,
                nodes: &mut self.nodes,
                members: &mut self.members,
                scratch_a: &mut self.a,
                scratch_b: &mut self.b,
                work: &mut self.work,
                open: &mut self.open,
                memo: &mut self.memo,
            }
        }
    }

    /// Two clusters, three P-states, eight task types of 1 to 9 nodes and 3 to 40 minutes.
    fn platform() -> Platform {
        let cluster = |nodes, kind| Cluster {
            nodes: NodeCount(nodes),
            cores_per_node: 4,
            kind,
        };
        let mut p = Platform::new(
            &[
                cluster(10, ClusterKind::General),
                cluster(14, ClusterKind::General),
            ],
            3,
        )
        .unwrap();
        for t in 0..8u64 {
            let place = |nodes: u32, mins: u64, watts: u32| Placement {
                nodes: NodeCount(nodes),
                etc: [
                    Micros::from_mins(mins),
                    Micros::from_mins(mins + mins / 3 + 1),
                    Micros::from_mins(2 * mins),
                    Micros::ZERO,
                ],
                apc: [
                    MilliWatts(watts),
                    MilliWatts(watts * 3 / 4),
                    MilliWatts(watts / 2),
                    MilliWatts(0),
                ],
            };
            let nodes = 1 + (t as u32 * 5) % 9;
            let mins = 3 + (t * 7) % 38;
            let second = (t % 3 != 0).then(|| place(nodes.min(14), mins + 2, 90_000));
            p.add_resolved_type(&[Some(place(nodes, mins, 120_000 + 5_000 * t as u32)), second])
                .unwrap();
        }
        p
    }

    /// `n` tasks arriving over the first 90 minutes, in arrival order.
    fn tasks(n: u64) -> Vec<Task> {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut v: Vec<Task> = (0..n)
            .map(|_| Task {
                id: TaskId(0),
                arrival: Micros::from_mins(next() % 90),
                demand: Demand::Typed(TaskTypeId((next() % 8) as u16)),
                curve: crate::utility::UtilityCurve::PiecewiseExp {
                    priority: (1 + next() % 8) as f64,
                    urgency_per_min: 0.01 * (1 + next() % 5) as f64,
                    first: Micros::from_mins(5 + next() % 30),
                    class: (next() % 20) as u8,
                },
                actual: None,
            })
            .collect();
        v.sort_by_key(|t| t.arrival);
        v
    }

    /// The time task slot `s` really ends: a quarter of the tasks (by id) end a minute early,
    /// so that the early-completion path runs too.
    fn actual_end(id: TaskId, s: &TaskSlot) -> Option<Micros> {
        let a = s.assignment?;
        let early = id.0 & 3 == 0 && a.end - a.start > Micros::from_mins(2);
        Some(if early {
            a.end - Micros::from_mins(1)
        } else {
            a.end
        })
    }

    /// The completions due at `now` (in task order), then the arrivals up to `now`.
    fn events(ctl: &mut Controller<'_>, tasks: &[Task], next: &mut usize, now: Micros) {
        let due: Vec<(TaskId, Micros)> = ctl
            .tasks()
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s.state, TaskState::Running | TaskState::Reserved))
            .filter_map(|(i, s)| Some((TaskId(i as u32), actual_end(TaskId(i as u32), s)?)))
            .filter(|&(_, end)| end <= now)
            .collect();
        for (id, end) in due {
            ctl.on_completion(id, end).unwrap();
        }
        while *next < tasks.len() && tasks[*next].arrival <= now {
            ctl.on_arrival(tasks[*next].clone()).unwrap();
            *next += 1;
        }
        open_list_holds(ctl);
    }

    /// The open list holds every waiting task, in slot order, and `unsettled` counts its
    /// entries that are not mappable (the event's clean-up stops after the last of them).
    fn open_list_holds(ctl: &Controller<'_>) {
        let open = &ctl.open[..ctl.open_len];
        assert!(open.windows(2).all(|w| w[0] < w[1]), "in slot order");
        for (i, s) in ctl.tasks().iter().enumerate() {
            if matches!(
                s.state,
                TaskState::Mappable | TaskState::PlaceHeld | TaskState::Reserved
            ) {
                assert!(open.contains(&(i as u32)), "waiting task {i} is open");
            }
        }
        let unsettled = open
            .iter()
            .filter(|&&i| ctl.tasks[i as usize].state != TaskState::Mappable)
            .count();
        assert_eq!(ctl.unsettled, unsettled);
    }

    /// Drives `ctl` over the minutes `[from, to)`: at each, the completions due, the arrivals,
    /// then a mapping event; every decision goes to `log`. The minute `from` starts after its
    /// completions and arrivals if `mid` (they were handled before).
    fn drive(
        ctl: &mut Controller<'_>,
        tasks: &[Task],
        next: &mut usize,
        (from, to, mid): (u64, u64, bool),
        log: &mut Vec<Decision>,
    ) {
        for m in from..to {
            let now = Micros::from_mins(m);
            if !(mid && m == from) {
                events(ctl, tasks, next, now);
            }
            ctl.on_mapping_event(now, &mut |d| log.push(*d)).unwrap();
            open_list_holds(ctl);
        }
    }

    /// What a controller holds that shows outside: ledgers, utility, counts, clock, the
    /// filter's budget, and every task's state and assignment.
    type Outcome = (
        EnergyLedger,
        Utility,
        Counts,
        Micros,
        Budget,
        Vec<(TaskState, Option<Assignment>)>,
    );

    fn outcome(ctl: &Controller<'_>) -> Outcome {
        (
            *ctl.ledger(),
            ctl.utility(),
            ctl.counts(),
            ctl.now(),
            ctl.filter_budget(),
            ctl.tasks()
                .iter()
                .map(|s| (s.state, s.assignment))
                .collect(),
        )
    }

    fn configs() -> Vec<Config> {
        let day = (Micros::from_mins(10), Micros::from_mins(150));
        let mut out: Vec<Config> = Heuristic::ALL
            .iter()
            .map(|&h| {
                let mut c = Config::new(h, day.0, day.1);
                if !h.is_utility_aware() {
                    c.reservations = Reservations::Permanent;
                }
                c.seed = 7;
                c
            })
            .collect();
        let mut upr = Config::new(Heuristic::MaxUpr, day.0, day.1);
        upr.filter = EnergyFilter {
            kind: FilterKind::PerResource,
            leniency: 1.5,
        };
        upr.budget = MilliJoules(15_000_000_000);
        out.push(upr);
        let mut upe = Config::new(Heuristic::MaxUpe, day.0, day.1);
        upe.reservations = Reservations::Permanent;
        out.push(upe);
        out
    }

    /// Runs every configuration to minute 45, copies the controller (right after the event of
    /// minute 44, or later between an early completion and the event of its minute), and runs
    /// the original and the copy to minute 200: same decisions, same end.
    #[test]
    fn a_clone_decides_as_the_original() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let tasks = tasks(120);
        for config in configs() {
            let h = config.heuristic;
            // Memo sizes of the original and the copy (0: none; a different size starts empty).
            for (memo, copy_memo) in [(64, 64), (64, 32), (0, 0)] {
                for mid in [false, true] {
                    let mut bufs = Bufs::new(&platform, tasks.len(), memo, &tasks[0]);
                    let mut ctl =
                        Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
                    let (mut next, mut before) = (0, Vec::new());
                    drive(&mut ctl, &tasks, &mut next, (0, 45, false), &mut before);
                    // Mid-step: the first minute from 45 on with an early completion, copied
                    // between its completions and its event.
                    let mut at = 45;
                    if mid {
                        loop {
                            events(&mut ctl, &tasks, &mut next, Micros::from_mins(at));
                            if ctl.early_completions > 0 {
                                break;
                            }
                            ctl.on_mapping_event(Micros::from_mins(at), &mut |d| before.push(*d))
                                .unwrap();
                            at += 1;
                            assert!(at < 100, "{h:?}: an early completion by minute 100");
                        }
                    }
                    let states = |c: &Controller<'_>, f: fn(TaskState) -> bool| {
                        c.tasks().iter().filter(|s| f(s.state)).count()
                    };
                    assert!(
                        states(&ctl, |s| s == TaskState::Running) > 0
                            && states(&ctl, |s| matches!(
                                s,
                                TaskState::Mappable | TaskState::PlaceHeld | TaskState::Reserved
                            )) > 0,
                        "{h:?}: the copy point has running and waiting work"
                    );
                    if config.filter.kind == FilterKind::PerResource {
                        assert!(matches!(ctl.filter_budget(), Budget::PerResource(_)));
                    }
                    let mut copy_bufs = Bufs::new(&platform, tasks.len() + 5, copy_memo, &tasks[0]);
                    let mut copy = ctl.clone_into(copy_bufs.storage()).unwrap();
                    assert_eq!(outcome(&copy), outcome(&ctl));
                    let mut next_copy = next;
                    let (mut after, mut after_copy) = (Vec::new(), Vec::new());
                    drive(&mut ctl, &tasks, &mut next, (at, 200, mid), &mut after);
                    drive(
                        &mut copy,
                        &tasks,
                        &mut next_copy,
                        (at, 200, mid),
                        &mut after_copy,
                    );
                    assert!(
                        after.iter().any(|d| d.start < Micros::from_mins(150)
                            && ctl.tasks()[d.task.0 as usize].task.arrival > Micros::from_mins(at)),
                        "{h:?}: tasks arriving after the copy are placed"
                    );
                    assert_eq!(after, after_copy, "{h:?} decides the same");
                    assert_eq!(outcome(&copy), outcome(&ctl), "{h:?}");
                    assert!(ctl.counts().completed > 20, "{h:?}");
                    if config.filter.kind == FilterKind::PerResource {
                        assert!(ctl.ledger().consumed() > MilliJoules(config.budget.0 / 2));
                    }
                }
            }
        }
    }

    /// The fit memo is a cache: with no memo, a tiny one (constant collisions), or a large
    /// one (answers kept across events and checked against the booking log), every
    /// configuration makes the same decisions and ends the same, early completions included.
    /// At every event of a filtered run, each task's admitted options (a typed task's from
    /// its type's kept verdicts, a table of its own's worked out as asked) are the event's
    /// budget's, option by option; the verdicts change between events, so verdicts kept from
    /// an earlier budget would show.
    #[test]
    fn verdicts_follow_each_events_budget() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let mut tasks = tasks(120);
        // Every fifth task carries its type's table as its own.
        for t in tasks.iter_mut().step_by(5) {
            if let Demand::Typed(ty) = t.demand {
                t.demand = Demand::Own(platform.task_type(ty).unwrap().clone());
            }
        }
        let config = configs()
            .into_iter()
            .find(|c| c.filter.kind == FilterKind::PerResource)
            .unwrap();
        let mut bufs = Bufs::new(&platform, tasks.len(), 64, &tasks[0]);
        let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
        let (mut next, mut log) = (0, Vec::new());
        let mut seen: Vec<Vec<u32>> = vec![Vec::new(); tasks.len()];
        for m in 0..200 {
            drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
            let b = ctl.filter_budget();
            for i in 0..ctl.tasks().len() as u32 {
                let mut want = 0;
                for c in (0..ctl.cluster_count()).map(ClusterId) {
                    let Some(pl) = ctl.placement(i, c) else {
                        continue;
                    };
                    for p in (0..ctl.pstates()).map(PState) {
                        let ok = b.admits(pl.energy(p), platform.resources(c, &pl, p));
                        assert_eq!(ctl.admits(i, &pl, c, p, true), ok, "minute {m}, task {i}");
                        assert!(ctl.admits(i, &pl, c, p, false));
                        want |= if ok { option_bit(c, p) } else { 0 };
                    }
                }
                assert_eq!(ctl.admitted_options(i, true), want, "minute {m}, task {i}");
                assert_eq!(ctl.admitted_options(i, false), u32::MAX);
                if !seen[i as usize].contains(&want) {
                    seen[i as usize].push(want);
                }
            }
        }
        let changed = seen.iter().filter(|s| s.len() > 1).count();
        assert!(changed > 10, "verdicts changed for {changed} tasks");
    }

    /// The utility-aware pass that ends once nothing may start now decides what the full
    /// plan decides: the same starts, drops and reservations in the same order, the same
    /// ledgers and the same task states, place-holders aside (which the next event clears).
    #[test]
    fn ending_the_plan_early_changes_no_decision() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let tasks = tasks(160);
        let mut cut_somewhere = false;
        for config in configs()
            .into_iter()
            .filter(|c| c.heuristic.is_utility_aware())
        {
            let mut runs = Vec::new();
            for full_plan in [true, false] {
                let config = Config {
                    full_plan,
                    ..config
                };
                let mut bufs = Bufs::new(&platform, tasks.len(), 64, &tasks[0]);
                let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
                let (mut next, mut log) = (0, Vec::new());
                drive(&mut ctl, &tasks, &mut next, (0, 240, false), &mut log);
                let held = log
                    .iter()
                    .filter(|d| d.kind == DecisionKind::PlaceHold)
                    .count();
                log.retain(|d| d.kind != DecisionKind::PlaceHold);
                let mut end = outcome(&ctl);
                for t in end.5.iter_mut() {
                    if t.0 == TaskState::PlaceHeld {
                        *t = (TaskState::Mappable, None);
                    }
                    // The count of assignments made differs by the place-holders.
                    if let Some(a) = t.1.as_mut() {
                        a.seq = 0;
                    }
                }
                runs.push((log, end, held));
            }
            let h = config.heuristic;
            assert!(runs[0].0.len() > 30, "{h:?} decides enough to test");
            assert_eq!(runs[1].0, runs[0].0, "{h:?}: same decisions");
            assert_eq!(runs[1].1, runs[0].1, "{h:?}: same end");
            if config.reservations == Reservations::PlaceHolder {
                cut_somewhere |= runs[1].2 < runs[0].2;
            } else {
                assert_eq!(
                    runs[1].2, runs[0].2,
                    "{h:?}: permanent reservations are all made"
                );
            }
        }
        assert!(cut_somewhere, "some pass ended before planning every task");
    }

    #[test]
    fn the_memo_changes_no_decision() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let tasks = tasks(160);
        for config in configs() {
            let mut runs = Vec::new();
            for memo in [0, 2, 64, 4096] {
                let mut bufs = Bufs::new(&platform, tasks.len(), memo, &tasks[0]);
                let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
                let (mut next, mut log) = (0, Vec::new());
                drive(&mut ctl, &tasks, &mut next, (0, 240, false), &mut log);
                runs.push((log, outcome(&ctl)));
            }
            let h = config.heuristic;
            assert!(runs[0].0.len() > 30, "{h:?} decides enough to test");
            for r in &runs[1..] {
                assert_eq!(r.0, runs[0].0, "{h:?}: same decisions with any memo");
                assert_eq!(r.1, runs[0].1, "{h:?}: same end with any memo");
            }
        }
    }

    /// The Min-Min framework skips the options whose bound cannot beat its best so far: at
    /// every event of every utility-aware configuration (and Max Value's, whose packed
    /// objective ties often), each waiting task's pick is the exhaustive loop's, and a task
    /// that loop finds able to start now is flagged so.
    #[test]
    fn pruning_picks_as_the_exhaustive_loop() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let tasks = tasks(160);
        let day = (Micros::from_mins(10), Micros::from_mins(150));
        let mut all = configs();
        all.push(Config::new(Heuristic::MaxValue, day.0, day.1));
        let mut over = 0;
        for config in all.into_iter().filter(|c| c.heuristic.is_utility_aware()) {
            let h = config.heuristic;
            let mut bufs = Bufs::new(&platform, tasks.len(), 64, &tasks[0]);
            let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
            let (mut next, mut log, mut compared) = (0, Vec::new(), 0);
            for m in 0..240 {
                drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
                for i in 0..ctl.tasks().len() as u32 {
                    if ctl.tasks()[i as usize].state != TaskState::Mappable {
                        continue;
                    }
                    let [pruned, exhaustive] = policy::greedy_bests(&mut ctl, i).unwrap().unwrap();
                    // The memo slot and generation vouch for a start; the start is compared.
                    let bare = |c: Option<Choice>| {
                        c.map(|c| Choice {
                            memo: 0,
                            gen: 0,
                            ..c
                        })
                    };
                    assert_eq!(bare(pruned.0), bare(exhaustive.0), "{h:?} at {m}, slot {i}");
                    assert!(pruned.1 || !exhaustive.1, "{h:?} at {m}, slot {i}");
                    over += usize::from(pruned.1 && !exhaustive.1);
                    compared += 1;
                }
            }
            assert!(compared > 200, "{h:?} compares enough tasks");
        }
        assert!(over > 0, "some flag stands for an option skipped unread");
    }

    /// Under every utility-aware configuration, at every event, each waiting task's bound as
    /// the pass finds it (a typed task's through its type's least cost, kept for the event and
    /// shared by the event's tasks) has the value of the highest of its options' bounds, bit
    /// for bit; and each objective that says its value is the utility over a cost keeps to it,
    /// for every option and a spread of utilities (zero, tiny, huge, infinite, NaN).
    #[test]
    fn a_types_least_cost_bounds_as_its_options() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let mut tasks = tasks(160);
        // Every seventh task carries its type's table as its own: bounded option by option.
        for t in tasks.iter_mut().step_by(7) {
            if let Demand::Typed(ty) = t.demand {
                t.demand = Demand::Own(platform.task_type(ty).unwrap().clone());
            }
        }
        let day = (Micros::from_mins(10), Micros::from_mins(150));
        let mut all = configs();
        all.push(Config::new(Heuristic::MaxValue, day.0, day.1));
        let us = [
            0.0,
            f64::MIN_POSITIVE,
            1e-300,
            0.37,
            1.0,
            7.9,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ];
        for config in all.into_iter().filter(|c| c.heuristic.is_utility_aware()) {
            let h = config.heuristic;
            let mut bufs = Bufs::new(&platform, tasks.len(), 64, &tasks[0]);
            let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
            let (mut next, mut log, mut compared) = (0, Vec::new(), 0);
            for m in 0..240 {
                drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
                let mut types = policy::type_bounds();
                for i in 0..ctl.tasks().len() as u32 {
                    if ctl.tasks()[i as usize].state != TaskState::Mappable {
                        continue;
                    }
                    let ([kept, by_option], per_cost) =
                        policy::greedy_bounds(&mut ctl, i, &mut types, &us)
                            .unwrap()
                            .unwrap();
                    let value = |c: Option<Choice>| c.map(|c| c.value.to_bits());
                    assert_eq!(value(kept), value(by_option), "{h:?} at {m}, slot {i}");
                    assert!(per_cost, "{h:?} at {m}, slot {i}");
                    compared += 1;
                }
            }
            assert!(compared > 200, "{h:?} compares enough tasks");
        }
    }

    #[test]
    fn the_dropping_checks_point_is_the_curves_value_there() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let tasks = tasks(60);
        let config = Config::new(Heuristic::MaxUpt, Micros::ZERO, Micros::from_mins(150));
        let mut bufs = Bufs::new(&platform, tasks.len(), 64, &tasks[0]);
        let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
        let (mut next, mut log) = (0, Vec::new());
        let mut points = 0;
        for m in 0..60 {
            drive(&mut ctl, &tasks, &mut next, (m, m + 1, false), &mut log);
            for (i, s) in ctl.tasks().iter().enumerate() {
                let curve = |since| s.task.curve.value_at(since, &classes).unwrap();
                if let Some(p) = s.point {
                    points += 1;
                    assert_eq!(p.value.to_bits(), curve(p.since).to_bits());
                    // Read back through it, and past it.
                    let end = s.task.arrival + p.since;
                    let at = |end| ctl.value_at_end(i as u32, end).unwrap().to_bits();
                    assert_eq!(at(end), curve(p.since).to_bits());
                    let later = end + Micros::from_mins(7);
                    assert_eq!(at(later), curve(later - s.task.arrival).to_bits());
                }
            }
        }
        assert!(points > 0, "the dropping check kept points");
    }

    #[test]
    fn a_clone_needs_room_for_the_tasks() {
        let platform = platform();
        let classes = UtilityClasses::essc20();
        let tasks = tasks(40);
        let config = Config::new(Heuristic::MaxUpe, Micros::ZERO, Micros::from_mins(150));
        let mut bufs = Bufs::new(&platform, tasks.len(), 64, &tasks[0]);
        let mut ctl = Controller::new(&platform, &classes, config, bufs.storage()).unwrap();
        let (mut next, mut log) = (0, Vec::new());
        drive(&mut ctl, &tasks, &mut next, (0, 60, false), &mut log);
        let mut small = Bufs::new(&platform, 10, 64, &tasks[0]);
        let err = ctl.clone_into(small.storage()).err();
        assert_eq!(
            err,
            Some(Error::Capacity(CapacityError {
                what: Capacity::Tasks,
                capacity: 10
            }))
        );
        let mut few_nodes = Bufs::new(&platform, tasks.len(), 64, &tasks[0]);
        few_nodes.nodes.truncate(20);
        assert!(matches!(
            ctl.clone_into(few_nodes.storage()),
            Err(Error::Capacity(CapacityError {
                what: Capacity::Nodes,
                ..
            }))
        ));
    }
}

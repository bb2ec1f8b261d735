//! The controller: the configuration, the planner and the three events that drive them
//! (`on_arrival`, `on_completion`, `on_mapping_event`). What a live management controller
//! calls, and what the engine drives through a scenario.
//!
//! A mapping event (seed 000 §III.A) clears the place-holders, drops the tasks that can no
//! longer earn the threshold (utility-aware heuristics only), computes the energy filter's
//! budget, and runs the configured heuristic over the planner. The controller keeps what
//! only the events see: the utility earned and the run's counters, counted from the
//! decisions as they go out.

use crate::config::Config;
use crate::energy::{Budget, EnergyLedger, FilterInputs, FilterKind};
use crate::error::Error;
use crate::external::External;
use crate::plan::Planner;
use crate::plan::{Decision, DecisionKind, Storage, TaskSlot};
use crate::platform::{ClusterId, Platform};
use crate::policy;
use crate::task::{Task, TaskId};
use crate::timeline::ClusterTimeline;
use crate::units::{Micros, Utility};
use crate::utility::UtilityClasses;
use serde::{Deserialize, Serialize};

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

impl Counts {
    /// Counts decision `d`.
    fn decided(&mut self, d: &Decision) {
        match d.kind {
            DecisionKind::Start => self.started += 1,
            DecisionKind::Drop => self.dropped += 1,
            DecisionKind::Reserve | DecisionKind::PlaceHold => {}
        }
    }
}

/// The state of a resource manager.
pub struct Controller<'a> {
    planner: Planner<'a>,
    utility: Utility,
    counts: Counts,
    /// Completions before their planned end since the last event (Conservative compresses
    /// after them, the multiple queues re-plan).
    early_completions: u32,
    /// The policy outside the core that makes the mapping events' decisions, if any
    /// ([`Controller::set_external`]).
    external: Option<&'a mut dyn External>,
}

impl<'a> Controller<'a> {
    /// A controller over `storage` for `platform`.
    pub fn new(
        platform: &'a Platform,
        classes: &'a UtilityClasses,
        config: Config,
        storage: Storage<'a>,
    ) -> Result<Controller<'a>, Error> {
        Ok(Controller {
            planner: Planner::new(platform, classes, config, storage)?,
            utility: Utility::ZERO,
            counts: Counts::default(),
            early_completions: 0,
            external: None,
        })
    }

    /// From now on, every mapping event's decisions come from `external`, each checked
    /// before it is applied ([`crate::external`]), instead of from the configured heuristic
    /// (and no task is dropped but by its decision); arrivals and completions are told to it.
    pub fn set_external(&mut self, external: &'a mut dyn External) {
        self.external = Some(external);
    }

    /// A copy of this controller over `storage`: the tasks, every node's bookings, the
    /// ledgers, counts, clock, random stream, assignment count, fit memo and every other
    /// field, so that the copy makes the same decisions as the original from here on.
    ///
    /// `storage` needs room for the tasks so far, every node and the largest cluster's
    /// scratch (a [`CapacityError`](crate::error::CapacityError) otherwise). The memo is
    /// copied when it has the original's length and starts empty otherwise (it only caches
    /// answers); the void index is built afresh in `storage`'s (caches: decisions do not
    /// depend on them).
    pub fn clone_into<'b>(&self, storage: Storage<'b>) -> Result<Controller<'b>, Error>
    where
        'a: 'b,
    {
        let Controller {
            planner,
            utility,
            counts,
            early_completions,
            external: _,
        } = self;
        // An external policy is one process: the copy has none (give it one to map).
        Ok(Controller {
            planner: planner.clone_into(storage)?,
            utility: *utility,
            counts: *counts,
            early_completions: *early_completions,
            external: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.planner.config()
    }
    /// The platform.
    pub fn platform(&self) -> &'a Platform {
        self.planner.platform()
    }
    /// The utility classes.
    pub fn classes(&self) -> &'a UtilityClasses {
        self.planner.classes()
    }
    /// The energy ledger.
    pub fn ledger(&self) -> &EnergyLedger {
        self.planner.ledger()
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
        self.planner.now()
    }
    /// The tasks so far, in arrival order (index = [`TaskId`]) while the table has not
    /// wrapped; then the table in slot order ([`Controller::task`] finds a task by id).
    pub fn tasks(&self) -> &[TaskSlot] {
        self.planner.tasks()
    }
    /// Task `id`'s slot, while the task table holds it (task slots are recycled once a
    /// controller has seen more tasks than it has slots; see `Planner::tasks`).
    pub fn task(&self, id: TaskId) -> Option<&TaskSlot> {
        self.planner.task(id)
    }
    /// From now on, gives a task slot to a new task once the slot's task is completed or
    /// dropped (and past a mapping event since), so that a controller that runs for ever
    /// (the firmware's live mode) needs slots for the tasks it holds at once, not for all it
    /// has seen. Without it, the task table refuses arrivals once full.
    pub fn recycle_slots(&mut self) {
        self.planner.recycle_slots();
    }
    /// Starts the day that contains `now` if `now` is at or past the day's end (the next
    /// day as long as the configured one, a fresh energy ledger, the utility earned starting
    /// again from zero); returns whether it did. What a controller that runs for ever calls
    /// before each mapping event; a replay of one day never needs it.
    pub fn roll_day(&mut self, now: Micros) -> bool {
        let rolled = self.planner.roll_day(now);
        if rolled {
            self.utility = Utility::ZERO;
        }
        rolled
    }
    /// Task slots in use: tasks not yet completed or dropped.
    pub fn slots_used(&self) -> usize {
        self.planner.slots_used()
    }
    /// One cluster's timeline.
    pub fn timeline(&self, c: ClusterId) -> Option<&ClusterTimeline<'a>> {
        self.planner.timeline(c)
    }
    /// The budget the energy filter computed at the start of the current or last event.
    pub fn filter_budget(&self) -> Budget {
        self.planner.filter_budget()
    }
    /// The energy filter's inputs at the current time (seed 000 Eq. 6-9, seed 002 Eq. 9-11).
    pub fn filter_inputs(&self) -> FilterInputs {
        self.planner.filter_inputs()
    }

    /// A task arrives: it joins the mappable set. Its id is its index in arrival order.
    pub fn on_arrival(&mut self, task: Task) -> Result<TaskId, Error> {
        let id = self.planner.arrive(task)?;
        self.counts.arrived += 1;
        if let Some(ext) = self.external.as_deref_mut() {
            if let Some(slot) = self.planner.task(id) {
                ext.arrived(id, &slot.task)?;
            }
        }
        Ok(id)
    }

    /// A task finished at `at` (at or before its planned end): its nodes are free from then,
    /// its utility (prorated to the day) and its energy go to the ledgers.
    pub fn on_completion(&mut self, id: TaskId, at: Micros) -> Result<Utility, Error> {
        let seq = self
            .planner
            .task(id)
            .and_then(|s| s.assignment)
            .map_or(0, |a| a.seq);
        let done = self.planner.complete(id, at)?;
        if let Some(ext) = self.external.as_deref_mut() {
            ext.completed(id, at, seq)?;
        }
        self.utility += done.earned;
        self.counts.completed += 1;
        if done.early {
            self.early_completions += 1;
        }
        Ok(done.earned)
    }

    /// A waiting task is withdrawn at `at` by whoever submitted it (a live cluster's job
    /// cancelled before it started): dropped, its reservation (if any) released. Counted as
    /// a drop. An external policy is told ([`External::withdrawn`]).
    pub fn withdraw(&mut self, id: TaskId, at: Micros) -> Result<(), Error> {
        let seq = self
            .planner
            .task(id)
            .and_then(|s| s.assignment)
            .map_or(0, |a| a.seq);
        self.planner.withdraw(id, at)?;
        self.counts.dropped += 1;
        if let Some(ext) = self.external.as_deref_mut() {
            ext.withdrawn(id, at, seq)?;
        }
        Ok(())
    }

    /// Node `node` of `cluster` goes out of service at `at` (a live cluster's node drained or
    /// down): from the end of the work running on it (left to finish), no task is booked on
    /// it until [`node_in`](Self::node_in); reservations and place-holders on it that had not
    /// started are taken back and their tasks wait again (`plan/service.rs`). A node already
    /// out stays as it is. An external policy is told ([`External::node_service`]).
    pub fn node_out(&mut self, cluster: ClusterId, node: u32, at: Micros) -> Result<(), Error> {
        self.planner.node_out(cluster, node, at)?;
        if let Some(ext) = self.external.as_deref_mut() {
            ext.node_service(cluster, node, false, at)?;
        }
        Ok(())
    }

    /// Node `node` of `cluster` is back in service at `at`: free from then on. A node in
    /// service stays as it is. An external policy is told ([`External::node_service`]).
    pub fn node_in(&mut self, cluster: ClusterId, node: u32, at: Micros) -> Result<(), Error> {
        self.planner.node_in(cluster, node, at)?;
        if let Some(ext) = self.external.as_deref_mut() {
            ext.node_service(cluster, node, true, at)?;
        }
        Ok(())
    }

    /// Whether node `node` of `cluster` is in service (`false` for a node the platform does
    /// not have).
    pub fn in_service(&self, cluster: ClusterId, node: u32) -> bool {
        self.planner.in_service(cluster, node)
    }

    /// Runs a mapping event at `now`; every decision goes to `sink` in order.
    pub fn on_mapping_event(
        &mut self,
        now: Micros,
        sink: &mut dyn FnMut(&Decision),
    ) -> Result<(), Error> {
        self.planner.begin_event(now)?;
        self.counts.mapping_events += 1;
        let counts = &mut self.counts;
        let mut sink = |d: &Decision| {
            counts.decided(d);
            sink(d)
        };
        let config = *self.planner.config();
        if let Some(ext) = self.external.as_deref_mut() {
            let planner = &mut self.planner;
            return ext.map(now, &mut |d, nodes| planner.propose(d, &mut sink, nodes));
        }
        if let Some(threshold) = config.drop_threshold {
            self.planner.drop_hopeless(threshold, &mut sink)?;
        }
        // The inputs walk every booking; without a filter nothing reads them.
        let budget = if config.filter.kind == FilterKind::None {
            Budget::Unlimited
        } else {
            config.filter.budget(&self.planner.filter_inputs())
        };
        self.planner.set_budget(budget);
        let early = core::mem::take(&mut self.early_completions);
        policy::run(&mut self.planner, early > 0, &mut sink)
    }

    /// The planner, for the tests that hold a heuristic's pieces to each other.
    #[cfg(test)]
    pub(crate) fn planner(&self) -> &Planner<'a> {
        &self.planner
    }

    /// The planner, to ask it what a heuristic asks (tests).
    #[cfg(test)]
    pub(crate) fn planner_mut(&mut self) -> &mut Planner<'a> {
        &mut self.planner
    }
}

#[cfg(test)]
mod tests;

//! What the controller's three events do to the plan: an arrival takes a slot, a completion
//! frees its nodes and settles its energy, and a mapping event begins by clearing the last
//! event's place-holders, starting the reservations whose time has come, dropping the tasks
//! that can no longer earn the threshold, and taking the energy filter's budget.

use super::planner::Planner;
use super::slots::{Decision, TaskSlot, TaskState};
use crate::dropping::drop_check;
use crate::energy::{window_share, Budget, FilterInputs};
use crate::error::{full, full_needing, Capacity, Error, InputError};
use crate::limits::MAX_TASK_TYPES;
use crate::task::{Demand, Task, TaskId};
use crate::units::{CoreMicros, Micros, Utility};
use crate::utility::prorate;

/// What a completion earned and how it ended.
pub(crate) struct Completed {
    /// Utility earned inside the day.
    pub(crate) earned: Utility,
    /// Whether it ended before its planned end.
    pub(crate) early: bool,
}

impl Planner<'_> {
    /// Moves the clock to `now` (never back).
    pub(super) fn tick(&mut self, now: Micros) -> Result<(), Error> {
        if now < self.now {
            return Err(InputError::TimeWentBackwards.into());
        }
        self.now = now;
        Ok(())
    }

    /// A task arrives: checked against the platform, it takes the next slot and joins the
    /// mappable set. Its id is its index in arrival order.
    pub(crate) fn arrive(&mut self, mut task: Task) -> Result<TaskId, Error> {
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
        let Some(at) = self.free_slot(self.len) else {
            // Every slot holds a task not done with: this one more.
            let n = self.tasks.len();
            return Err(full_needing(Capacity::Tasks, n, n + 1).into());
        };
        if self.open_len >= self.open.len() {
            return Err(full(Capacity::Tasks, self.open.len()).into());
        }
        // The ids above are the nodes' out-of-service blocks' (`service.rs`).
        let ids = u32::MAX as usize - self.platform.total_nodes() as usize;
        if self.len >= ids {
            return Err(full(Capacity::Tasks, ids).into());
        }
        let id = TaskId(self.len as u32);
        task.id = id;
        self.tasks[at] = TaskSlot {
            task,
            state: TaskState::Mappable,
            assignment: None,
            point: None,
        };
        self.open[self.open_len] = self.len as u32;
        self.open_len += 1;
        self.len += 1;
        Ok(id)
    }

    /// Task `id` finished at `at` (at or before its planned end): its nodes are free from
    /// then, its energy is settled in the ledger, and its utility (prorated to the day) is
    /// what it earned.
    pub(crate) fn complete(&mut self, id: TaskId, at: Micros) -> Result<Completed, Error> {
        self.tick(at)?;
        let i = self.held(id).ok_or(InputError::UnknownTask(id.0))?;
        let slot = &mut self.tasks[i];
        let a = match (slot.state, slot.assignment) {
            (TaskState::Running | TaskState::Reserved, Some(a)) if a.start <= at && at <= a.end => {
                a
            }
            _ => return Err(InputError::BadTaskState(id.0).into()),
        };
        slot.state = TaskState::Completed;
        self.completions = self.completions.wrapping_add(1);
        let value = slot
            .task
            .curve
            .value_at(at - slot.task.arrival, self.classes)?;
        let (day_start, day_end) = (self.config.day_start, self.config.day_end);
        let earned = prorate(Utility::from_f64(value), a.start, at, day_start, day_end);
        let placement = *slot
            .task
            .on(self.platform, a.cluster)
            .ok_or(InputError::UnknownCluster(a.cluster.0))?;
        let power = placement.apc[a.pstate.0 as usize];
        let actual = window_share(
            power.energy(a.nodes, at - a.start),
            a.start,
            at,
            day_start,
            day_end,
        );
        self.ledger.settle(a.committed, actual.min(a.committed));
        self.clusters[a.cluster.0 as usize].complete_from(id, a.start, at, a.nodes.0);
        Ok(Completed {
            earned,
            early: at < a.end,
        })
    }

    /// Begins a mapping event at `now`: the last event's place-holders vanish, reservations
    /// whose start has come are running, and the open list loses the tasks that stopped
    /// waiting.
    pub(crate) fn begin_event(&mut self, now: Micros) -> Result<(), Error> {
        self.tick(now)?;
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.planned = crate::units::MilliJoules::ZERO;
        for c in self.clusters.iter_mut() {
            c.clear_place_holders();
            c.prune(now);
        }
        self.tighten_blocks(now)?;
        // A started task never waits again: the open list loses it here, and the scans
        // below skip it like a finished one.
        let (mut kept, mut k, mut left, mut unsettled) = (0, 0, self.unsettled, 0);
        while k < self.open_len && left > 0 {
            let i = self.open[k] as usize;
            k += 1;
            let s = &mut self.tasks[self.at(i)];
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
                match self.tasks[self.at(i)].state {
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
        Ok(())
    }

    /// Drops the mappable tasks that could not earn `threshold` even started now on their
    /// fastest option (seed 000 §III.C); each drop goes to `sink`.
    pub(crate) fn drop_hopeless(
        &mut self,
        threshold: f64,
        sink: &mut dyn FnMut(&Decision),
    ) -> Result<(), Error> {
        let now = self.now;
        // Each type's fastest duration, worked out at its first task of the event.
        let mut fastest: [Option<Option<Micros>>; MAX_TASK_TYPES] = [None; MAX_TASK_TYPES];
        for k in 0..self.open_len {
            let i = self.open[k] as usize;
            let s = &mut self.tasks[self.at(i)];
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
            let (drop, point) =
                drop_check(&s.task, f, now, self.platform, self.classes, threshold)?;
            s.point = Some(point);
            if drop {
                s.state = TaskState::Dropped;
                self.unsettled += 1;
                sink(&Decision::drop(TaskId(i as u32), now));
            }
        }
        Ok(())
    }

    /// Takes the event's filter budget; the last event's verdicts go with the last budget.
    pub(crate) fn set_budget(&mut self, budget: Budget) {
        self.verdicts.set_budget(budget);
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
}

//! What the heuristics share: the FCFS family's placement of a task at its earliest start
//! over every cluster (or only if it can start now), Conservative's compression, the energy
//! filter's switch, and a set of task types. A leaf of the policies: each heuristic's file
//! imports from here, never from another heuristic.

use crate::config::Reservations;
use crate::error::Error;
use crate::limits::MAX_TASK_TYPES;
use crate::plan::{Assignment, Choice, Decision, Planner};
use crate::platform::{ClusterId, PState, TaskTypeId};

/// A set of the platform's task types (tasks with their own tables belong to none).
#[derive(Default)]
pub(super) struct TypesSeen([u64; MAX_TASK_TYPES.div_ceil(64)]);

impl TypesSeen {
    /// Whether `ty` is in the set (never for `None`).
    pub(super) fn contains(&self, ty: Option<TaskTypeId>) -> bool {
        ty.is_some_and(|t| {
            let t = t.0 as usize;
            self.0.get(t / 64).is_some_and(|w| w & (1 << (t % 64)) != 0)
        })
    }

    /// Adds `ty` (nothing for `None`).
    pub(super) fn insert(&mut self, ty: Option<TaskTypeId>) {
        if let Some(t) = ty {
            let t = t.0 as usize;
            if let Some(w) = self.0.get_mut(t / 64) {
                *w |= 1 << (t % 64);
            }
        }
    }

    /// Takes `ty` out (nothing for `None`).
    pub(super) fn remove(&mut self, ty: Option<TaskTypeId>) {
        if let Some(t) = ty {
            let t = t.0 as usize;
            if let Some(w) = self.0.get_mut(t / 64) {
                *w &= !(1 << (t % 64));
            }
        }
    }

    /// The first type of the set that is not in `other`, by index.
    pub(super) fn first_not_in(&self, other: &TypesSeen) -> Option<TaskTypeId> {
        self.0
            .iter()
            .zip(other.0.iter())
            .enumerate()
            .find_map(|(k, (a, b))| {
                let w = a & !b;
                (w != 0).then(|| TaskTypeId((k * 64) as u16 + w.trailing_zeros() as u16))
            })
    }
}

/// Reserves task slot `i` at its earliest start, as Conservative places a task, unless its
/// type is already `stuck` in this pass; a type that finds no option today becomes stuck
/// (within a pass the cluster only fills and energy only drains, so its later tasks have
/// none either).
pub(super) fn place_earliest(
    ctl: &mut Planner<'_>,
    i: u32,
    stuck: &mut TypesSeen,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    let ty = ctl.task_type(i);
    if stuck.contains(ty) {
        return Ok(());
    }
    match earliest_anywhere(ctl, i)? {
        Some(ch) => ctl.assign(i, &ch, Reservations::Permanent, sink),
        None => {
            stuck.insert(ty);
            Ok(())
        }
    }
}

/// Whether the configured energy filter applies.
pub(super) fn filtered(ctl: &Planner<'_>) -> bool {
    ctl.config().filter.kind != crate::energy::FilterKind::None
}

/// The reservation of task slot `i` when keeping it can stand for taking it back and
/// asking again: one cluster and no energy filter (its earliest start is then the
/// timeline's alone), and the energy it holds still affordable once given back. `None`
/// otherwise (the caller takes it back).
pub(super) fn keepable(ctl: &Planner<'_>, i: u32) -> Option<Assignment> {
    if ctl.cluster_count() != 1 || filtered(ctl) {
        return None;
    }
    let a = ctl.assignment(i)?;
    if a.committed.0 > 0 && ctl.energy_available().0 == 0 {
        return None;
    }
    Some(a)
}

/// The earliest-starting option of task slot `i` at P-state 0 over all clusters (ties: the
/// earlier end, then the lower cluster index): what the FCFS heuristics use.
pub(super) fn earliest_anywhere(ctl: &mut Planner<'_>, i: u32) -> Result<Option<Choice>, Error> {
    let mut best: Option<Choice> = None;
    let f = filtered(ctl);
    for c in 0..ctl.cluster_count() {
        if let Some(ch) = ctl.option(i, ClusterId(c), PState(0), f)? {
            let better = match &best {
                None => true,
                Some(b) => {
                    (ch.start, ch.start.saturating_add(ch.duration))
                        < (b.start, b.start.saturating_add(b.duration))
                }
            };
            if better {
                best = Some(ch);
            }
        }
    }
    Ok(best)
}

/// The option of task slot `i` at P-state 0 that starts now, if any cluster has one (ties:
/// the earlier end, then the lower cluster index): exactly what [`earliest_anywhere`] gives
/// when its answer starts now, without sweeping for later starts. Backfilling candidates
/// only ask this.
pub(super) fn start_now_anywhere(ctl: &mut Planner<'_>, i: u32) -> Result<Option<Choice>, Error> {
    let mut best: Option<Choice> = None;
    let f = filtered(ctl);
    for c in 0..ctl.cluster_count() {
        if let Some(ch) = ctl.option_now(i, ClusterId(c), PState(0), f)? {
            if best.is_none_or(|b| ch.duration < b.duration) {
                best = Some(ch);
            }
        }
    }
    Ok(best)
}

/// Moves every reservation that has not started to its earliest start, one at a time in
/// slot order: taking one back frees its own slot, so it never starts later, and the
/// others stay booked, so none is delayed (Conservative's compression after early ends).
/// A reservation for which `stays` holds would come back at the same start on the same
/// nodes: it is kept instead ([`Planner::keep_reservation`], the same decision).
pub(super) fn compress(
    ctl: &mut Planner<'_>,
    stays: impl Fn(&Planner<'_>, u32) -> bool,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    for k in 0..ctl.open_count() {
        let i = ctl.open_slot(k);
        if !ctl.reserved_after_now(i) {
            continue;
        }
        if stays(ctl, i as u32) {
            ctl.keep_reservation(i as u32, sink)?;
            continue;
        }
        let old = ctl.assignment(i as u32);
        ctl.unreserve(i as u32);
        match earliest_anywhere(ctl, i as u32)? {
            Some(ch) if old.is_none_or(|o| ch.start <= o.start) => {
                ctl.assign(i as u32, &ch, Reservations::Permanent, sink)?
            }
            // Cannot happen with the task's own slot free again; keep the task mappable
            // rather than book it later than promised.
            _ => {}
        }
    }
    Ok(())
}

//! Whether any task of the pass could still start now: the place-holder pass ends once none
//! could (what it would still do is a plan the next event clears unread). Asked per task
//! type where it can be: a typed task's options, their energy and the filter's verdicts are
//! its type's.

use crate::energy::option_bit;
use crate::error::Error;
use crate::limits::MAX_TASK_TYPES;
use crate::plan::Planner;
use crate::platform::{ClusterId, PState, TaskTypeId};
use crate::policy::common::{filtered, TypesSeen};

/// Whether task slot `i` still has an option that starts now: nodes free over its run from
/// now, its energy within what is left, the filter's consent.
///
/// `hint` is the option that last answered yes for the task's type in this event (`None`:
/// none yet), asked first: the answer is whether any option may, so the order does not
/// change it, and after each assignment the same type is asked again, where the options
/// before that one (each a memo lookup or a count) would mostly say no again.
pub(super) fn can_start_now(
    ctl: &mut Planner<'_>,
    i: u32,
    hint: &mut Option<(ClusterId, PState)>,
) -> Result<bool, Error> {
    let filtered = filtered(ctl);
    let admitted = ctl.admitted_options(i, filtered);
    if let Some((c, p)) = *hint {
        if admitted & option_bit(c, p) != 0 && ctl.option_now(i, c, p, filtered)?.is_some() {
            return Ok(true);
        }
    }
    for c in (0..ctl.cluster_count()).map(ClusterId) {
        if !ctl.runs_on(i, c) {
            continue;
        }
        for p in (0..ctl.pstates()).map(PState) {
            // A filtered-out option has none: skipped before its placement is copied.
            if Some((c, p)) != *hint
                && admitted & option_bit(c, p) != 0
                && ctl.option_now(i, c, p, filtered)?.is_some()
            {
                *hint = Some((c, p));
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Per task type, the option that last answered "may start now" in this event (see
/// [`can_start_now`]); tasks with a table of their own keep none.
pub(super) type StartHints = [Option<(ClusterId, PState)>; MAX_TASK_TYPES];

/// The heap's entries flagged "may start now", counted by task type. Whether a typed task
/// may start now is its type's question (its options, their energy and the filter's verdicts
/// are the type's), so [`any_may_start_now`] asks each type present once instead of reading
/// the heap entry by entry.
pub(super) struct Flagged {
    /// Per type: its flagged entries.
    count: [u32; MAX_TASK_TYPES],
    /// Per type: the slot of one of its tasks (any serves: the answer is the type's).
    rep: [u32; MAX_TASK_TYPES],
    /// The types with a flagged entry.
    present: TypesSeen,
    /// Flagged entries of tasks with a table of their own (their own question each).
    own: u32,
    /// The type that last answered yes: asked first, as it mostly answers yes again.
    last: Option<TaskTypeId>,
}

impl Flagged {
    /// None flagged.
    pub(super) fn new() -> Flagged {
        Flagged {
            count: [0; MAX_TASK_TYPES],
            rep: [0; MAX_TASK_TYPES],
            present: TypesSeen::default(),
            own: 0,
            last: None,
        }
    }

    /// Counts a flagged entry of task slot `i`, of type `ty`.
    pub(super) fn flag(&mut self, ty: Option<TaskTypeId>, i: u32) {
        match ty.and_then(|t| Some((t, self.count.get_mut(t.0 as usize)?))) {
            Some((t, n)) => {
                *n += 1;
                self.rep[t.0 as usize] = i;
                self.present.insert(ty);
            }
            None => self.own += 1,
        }
    }

    /// Uncounts a flagged entry of type `ty` (its flag was cleared or it left the heap).
    pub(super) fn unflag(&mut self, ty: Option<TaskTypeId>) {
        match ty.and_then(|t| self.count.get_mut(t.0 as usize)) {
            Some(n) => {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.present.remove(ty);
                }
            }
            None => self.own = self.own.saturating_sub(1),
        }
    }
}

/// Whether a task of the heap flagged "may start now" still may. `stuck` holds the task
/// types found unable to start now in this event: no task of theirs can for the rest of it.
///
/// When every flagged task is typed, each type present and not stuck is asked once, through
/// one of its tasks, until one says yes (the one that last did first). Otherwise the heap is
/// read entry by entry, clearing the flags found stale on the way (each at most once an
/// event), and stopping at the first that may. The answer is the same either way: whether
/// some flagged task of a type not stuck (or of a table of its own) may start now.
pub(super) fn any_may_start_now(
    ctl: &mut Planner<'_>,
    len: usize,
    (stuck, hints): (&mut TypesSeen, &mut StartHints),
    flagged: &mut Flagged,
) -> Result<bool, Error> {
    if flagged.own == 0 {
        let mut next = flagged
            .last
            .filter(|&t| flagged.present.contains(Some(t)) && !stuck.contains(Some(t)));
        while let Some(t) = next.or_else(|| flagged.present.first_not_in(stuck)) {
            let (Some(&i), Some(hint)) =
                (flagged.rep.get(t.0 as usize), hints.get_mut(t.0 as usize))
            else {
                break;
            };
            if can_start_now(ctl, i, hint)? {
                flagged.last = Some(t);
                #[cfg(test)]
                check_flagged(ctl, len, stuck, flagged, true)?;
                return Ok(true);
            }
            stuck.insert(Some(t));
            next = None;
        }
        #[cfg(test)]
        check_flagged(ctl, len, stuck, flagged, false)?;
        return Ok(false);
    }
    for j in 0..len {
        let w = ctl.work()[j];
        if !w.may_start_now {
            continue;
        }
        let ty = ctl.task_type(w.slot);
        if !stuck.contains(ty) {
            let mut none = None;
            let hint = match ty {
                Some(t) => hints.get_mut(t.0 as usize).unwrap_or(&mut none),
                None => &mut none,
            };
            if can_start_now(ctl, w.slot, hint)? {
                return Ok(true);
            }
            stuck.insert(ty);
        }
        ctl.work()[j].may_start_now = false;
        flagged.unflag(ty);
    }
    Ok(false)
}

/// Holds `flagged` to the heap `work()[..len]` (each type's count of flagged entries, the
/// types present, the flagged entries with tables of their own) and `answer` to the scan it
/// stands for: whether some flagged entry of a type not `stuck` may start now.
#[cfg(test)]
pub(super) fn check_flagged(
    ctl: &mut Planner<'_>,
    len: usize,
    stuck: &TypesSeen,
    flagged: &Flagged,
    answer: bool,
) -> Result<(), Error> {
    let (mut count, mut own) = ([0u32; MAX_TASK_TYPES], 0);
    let mut scan = false;
    for j in 0..len {
        let w = ctl.work()[j];
        if !w.may_start_now {
            continue;
        }
        let ty = ctl.task_type(w.slot);
        match ty {
            Some(t) => count[t.0 as usize] += 1,
            None => own += 1,
        }
        if !scan && !stuck.contains(ty) {
            scan = can_start_now(ctl, w.slot, &mut None)?;
        }
    }
    assert_eq!(count, flagged.count, "flagged entries per type");
    assert_eq!(own, flagged.own, "flagged entries with tables of their own");
    for (t, &n) in count.iter().enumerate() {
        let present = flagged.present.contains(Some(TaskTypeId(t as u16)));
        assert_eq!(present, n > 0, "type {t} present");
    }
    assert_eq!(scan, answer, "could start now");
    Ok(())
}

//! FCFS with multiple queues (seed 000 §III.D.4, from seed 001): tasks go to a small, medium
//! or large queue by their resources averaged over their clusters (below 30% / above 60% of
//! the largest such average); each cycle takes at most 1 large, then 4 medium, then 8 small
//! task, round robin, each placed as Conservative Backfilling places it.

use super::common::{compress, place_earliest, TypesSeen};
use crate::error::Error;
use crate::plan::{Decision, Planner};
use crate::platform::{ClusterId, PState, Platform, TaskType};

/// Tasks taken from the large, medium and small queues in one cycle.
pub(crate) const PER_CYCLE: [usize; 3] = [1, 4, 8];

/// Average resources (core-seconds, P-state 0) of a placement table over its clusters.
pub(crate) fn average_resources(platform: &Platform, t: &TaskType) -> f64 {
    let mut sum = 0.0;
    let mut n = 0u32;
    for (ci, p) in t.placements.iter().enumerate() {
        if let Some(p) = p {
            sum += platform
                .resources(ClusterId(ci as u8), p, PState(0))
                .as_core_secs_f64();
            n += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

pub(super) fn run(
    ctl: &mut Planner<'_>,
    early_completions: bool,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    if early_completions {
        // No keep: its reservations are always taken back and asked again.
        compress(ctl, |_, _| false, sink)?;
    }
    let platform = ctl.platform();
    // The reference: the platform's largest average; with no platform types (trace jobs
    // carry their own tables), the largest among the tasks seen so far.
    let mut reference = platform
        .types()
        .iter()
        .map(|t| average_resources(platform, t))
        .fold(0.0, f64::max);
    if platform.types().is_empty() {
        for s in ctl.tasks() {
            if let Ok(t) = s.task.table(platform) {
                reference = f64::max(reference, average_resources(platform, t));
            }
        }
    }
    let (small, large) = (
        ctl.config().small_fraction * reference,
        ctl.config().large_fraction * reference,
    );
    let n = ctl.collect_mappable()?;
    // A task's queue depends only on its table: a platform type's is worked out once.
    let mut type_queue = [u8::MAX; crate::limits::MAX_TASK_TYPES];
    let mut queue_of = |ctl: &Planner<'_>, i: u32| -> usize {
        let ty = ctl.task_type(i).map(|t| t.0 as usize);
        if let Some(&q) = ty
            .and_then(|t| type_queue.get(t))
            .filter(|&&q| q != u8::MAX)
        {
            return q as usize;
        }
        let r = ctl
            .slot(i)
            .task
            .table(platform)
            .map(|t| average_resources(platform, t))
            .unwrap_or(0.0);
        let q = if r > large {
            0
        } else if r < small {
            2
        } else {
            1
        };
        if let Some(slot) = ty.and_then(|t| type_queue.get_mut(t)) {
            *slot = q as u8;
        }
        q
    };
    // One cursor per queue over the arrival-ordered work list.
    let mut cursor = [0usize; 3];
    // As in Conservative: a type with no option today has none for the rest of the pass.
    let mut stuck = TypesSeen::default();
    loop {
        let mut took_any = false;
        for q in 0..3 {
            let mut taken = 0;
            while taken < PER_CYCLE[q] && cursor[q] < n {
                let i = ctl.work()[cursor[q]].slot;
                cursor[q] += 1;
                if queue_of(ctl, i) != q {
                    continue;
                }
                taken += 1;
                took_any = true;
                place_earliest(ctl, i, &mut stuck, sink)?;
            }
        }
        if !took_any {
            return Ok(());
        }
    }
}

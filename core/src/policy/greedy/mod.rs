//! The Min-Min framework of the utility-aware heuristics (seed 000 §III.E, Algorithm 1):
//! find each mappable task's best (cluster, P-state, earliest start) by the objective, assign
//! the task whose best is highest, and repeat until no task can be placed today.
//!
//! Each task's best is cached and the work list is kept as a max-heap on (value, then the
//! earlier arrival). An assignment only makes options later or energy scarcer, so a cached
//! value is an upper bound of the current one: the loop looks at the top, and recomputes it
//! only if the memo no longer vouches for its start or its energy no longer fits, then sifts
//! it down and looks again (lazy greedy). The picks are those of the eager loop that rescans
//! every task after every assignment, at O(log n) per step instead of O(n), except where
//! energy runs short (below).
//!
//! With place-holders, most of a busy event's assignments are place-holders that the next
//! event clears unread: once no task left could start now, nothing the pass still does
//! changes what starts (or is reserved, or dropped) at this event or later. The pass ends
//! there unless `Config::full_plan` asks for the whole plan. "Could start now" only turns
//! false within an event (bookings are added, energy is spent), so each task's flag is
//! checked again only while it is the first flagged one left, and a task type found unable
//! to start now is not asked again in that event.
//!
//! A place-holder pass that ends early leaves most tasks' bests unread, so it does not work
//! them out up front: each task enters the heap with a bound of its best instead (the
//! objective of completing as soon as its fastest option could, which no option beats, now
//! or later in the event), and its best is only worked out when that bound reaches the top.
//! Where the objective is the utility over a cost of the option alone (all but Max Value),
//! each type's options' costs are kept for the event: that bound is then the task's utility
//! over its type's least cost (one division a task instead of one objective an option, with
//! the same value), and the bounds a best is worked out with are its utility over each cost.
//! Working out a best uses the same bounds, one for each (cluster, P-state): once a first
//! option is found, the others are queried by decreasing bound, and none whose bound cannot
//! beat the best so far (ties included) is queried at all. An option queried whose
//! completion is at or after one already worked out for the task is bounded by that one's
//! utility (the curve never rises), which tells most options that cannot win without an
//! `exp`. An option on a cluster where a shorter run was read starts no earlier than it (the
//! same nodes), so with a utility known by then, one that cannot win is not even queried
//! (except under Max UPE, where a slower run often costs less). The pick is the exhaustive
//! loop's.
//!
//! One thing is not monotone within an event: an option over the energy left can come back
//! when bookings push its start later, because only the share of a run inside the day is
//! charged. The eager loop would see it; a cached best can miss it (it may then be below the
//! task's best, and a task with no option leaves the heap for the rest of the event). The
//! up-front loop caches every best at the event's start and misses the most; the lazy loop
//! works a best out when the task's bound reaches the top, later, and so sees more of them.
//! The switch to the lazy loop changed one run of the default experiment, near the day's end
//! (docs/model.md). Permanent reservations keep the up-front loop and their decisions.

mod best;
mod bounds;
mod objective;
mod start_now;

pub(crate) use best::best;
#[cfg(test)]
pub(crate) use best::best_exhaustive;
#[cfg(test)]
pub(crate) use bounds::{bounds_both, kept_bounds_agree, per_cost_holds};
pub(crate) use bounds::{TypeBound, TypeBounds};
#[cfg(test)]
pub(crate) use objective::Best;
pub(crate) use objective::Objective;

use crate::config::Reservations;
use crate::error::Error;
use crate::limits::MAX_TASK_TYPES;
use crate::plan::{Decision, Planner, Work};
use crate::policy::common::TypesSeen;
use bounds::bound;
use start_now::{any_may_start_now, Flagged, StartHints};

/// Whether `a` ranks above `b`: the higher value, then the earlier arrival (lower slot).
fn above(a: &Work, b: &Work) -> bool {
    let (va, vb) = (
        a.best.map_or(f64::NEG_INFINITY, |c| c.value),
        b.best.map_or(f64::NEG_INFINITY, |c| c.value),
    );
    va > vb || (va == vb && a.slot < b.slot)
}

/// Moves entry `i` down to its place in the max-heap `h` (highest value first).
fn sift_down(h: &mut [Work], i: usize) {
    crate::heap::sift_down(h, i, above);
}

pub(super) fn run(
    ctl: &mut Planner<'_>,
    reservations: Reservations,
    objective: impl Objective,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    let n = ctl.collect_mappable()?;
    // Only place-holders are left to make once nothing may start now (see the module doc).
    let plan_all = ctl.config().full_plan || reservations != Reservations::PlaceHolder;
    let mut stuck = TypesSeen::default();
    let mut hints: StartHints = [None; MAX_TASK_TYPES];
    let mut flagged = Flagged::new();
    // Place-holders are planned lazily, with or without the whole plan, so that both make
    // the same decisions; permanent reservations read every best up front, as they always
    // have (the two differ when energy runs short: see the module doc).
    let lazy = reservations == Reservations::PlaceHolder;
    let mut types: TypeBounds = [TypeBound::Unknown; MAX_TASK_TYPES];
    let mut len = 0;
    for w in 0..n {
        let i = ctl.work()[w].slot;
        let mut bound_u = f64::NAN;
        let (b, now, stamp) = if lazy {
            (bound(ctl, i, objective, &mut types, &mut bound_u)?, true, 0)
        } else {
            let (b, now) = best(ctl, i, objective, &mut types, &mut bound_u)?;
            (b, now, 1)
        };
        if b.is_some() {
            if now {
                flagged.flag(ctl.task_type(i), i);
            }
            let work = ctl.work();
            work[len] = Work {
                slot: i,
                best: b,
                may_start_now: now,
                stamp,
                bound_u,
            };
            len += 1;
        }
    }
    if !plan_all && !any_may_start_now(ctl, len, (&mut stuck, &mut hints), &mut flagged)? {
        return Ok(());
    }
    {
        let h = &mut ctl.work()[..len];
        for i in (0..len / 2).rev() {
            sift_down(h, i);
        }
    }
    let mut assignments: u32 = 0;
    while len > 0 {
        let top = ctl.work()[0];
        let Some(ch) = top.best else { break };
        let current = top.stamp == assignments + 1
            || (ctl.still_valid(&ch) && ch.day_energy <= ctl.energy_available());
        if !current {
            let mut bound_u = top.bound_u;
            let (b, now) = best(ctl, top.slot, objective, &mut types, &mut bound_u)?;
            // The flag only turns false: uncounted if it does, or if the task leaves.
            if top.may_start_now && !(now && b.is_some()) {
                flagged.unflag(ctl.task_type(top.slot));
            }
            let h = &mut ctl.work()[..len];
            match b {
                Some(_) => {
                    h[0] = Work {
                        best: b,
                        stamp: assignments + 1,
                        may_start_now: top.may_start_now && now,
                        bound_u,
                        ..top
                    }
                }
                None => {
                    h[0] = h[len - 1];
                    len -= 1;
                }
            }
            sift_down(&mut ctl.work()[..len], 0);
            continue;
        }
        ctl.assign(top.slot, &ch, reservations, sink)?;
        if top.may_start_now {
            flagged.unflag(ctl.task_type(top.slot));
        }
        assignments += 1;
        let h = &mut ctl.work()[..len];
        h[0] = h[len - 1];
        len -= 1;
        sift_down(&mut ctl.work()[..len], 0);
        if !plan_all && !any_may_start_now(ctl, len, (&mut stuck, &mut hints), &mut flagged)? {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;

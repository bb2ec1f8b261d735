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
//!
//! One thing is not monotone within an event: an option over the energy left can come back
//! when bookings push its start later, because only the share of a run inside the day is
//! charged. The eager loop would see it; a cached best can miss it (it may then be below the
//! task's best, and a task with no option leaves the heap for the rest of the event). The
//! up-front loop caches every best at the event's start and misses the most; the lazy loop
//! works a best out when the task's bound reaches the top, later, and so sees more of them.
//! Of the 1,152 runs of the default experiment the switch changed one (Max UPT PH + EPT,
//! trial 41, near the day's end). Permanent reservations keep the up-front loop and their
//! decisions.

use super::{Reservations, TypesSeen};
use crate::controller::{Choice, Controller, Decision, Work};
use crate::error::Error;
use crate::platform::{ClusterId, PState};
use crate::units::Micros;

/// An objective: the value of option `ch` for a task that earns `u` when it completes.
///
/// It must not decrease as `u` grows (none does: `u` over a positive measure of the option,
/// or a monotone packing of `u` and the completion), and for a given `u` it must not grow as
/// the option starts later: [`bound`] relies on both.
pub(crate) type Objective = fn(&Controller<'_>, &Choice, f64) -> Result<f64, Error>;

/// Relative margin of a bound's utility over the curve's value (far above the rounding of
/// one `exp`, which need not be monotone to the last bit; far below any gap that matters).
const BOUND_MARGIN: f64 = 1e-12;

/// The best option of task slot `i` under `objective` (ties keep the first (cluster,
/// P-state)), and whether any of its options starts now.
pub(crate) fn best(
    ctl: &mut Controller<'_>,
    i: u32,
    objective: Objective,
) -> Result<(Option<Choice>, bool), Error> {
    let filtered = super::filtered(ctl);
    let now = ctl.now();
    let mut best: Option<Choice> = None;
    let mut starts_now = false;
    for c in 0..ctl.cluster_count() {
        if ctl.placement(i, ClusterId(c)).is_none() {
            continue;
        }
        for p in 0..ctl.pstates() {
            if let Some(mut ch) = ctl.option(i, ClusterId(c), PState(p), filtered)? {
                starts_now |= ch.start <= now;
                let u = ctl.value_at_end(i, ch.start.saturating_add(ch.duration))?;
                let v = objective(ctl, &ch, u)?;
                // A NaN objective ranks below every number, so it never wins by accident.
                ch.value = if v.is_nan() { f64::NEG_INFINITY } else { v };
                if best.as_ref().is_none_or(|b| ch.value > b.value) {
                    best = Some(ch);
                }
            }
        }
    }
    Ok((best, starts_now))
}

/// A bound of task slot `i`'s best under `objective` (`None`: no option is admitted): the
/// highest objective of an admitted (cluster, P-state) were it to start now, with the
/// utility of completing after the shortest of their durations. Every option starts now or
/// later, and utility never rises, so its best is no higher.
fn bound(ctl: &Controller<'_>, i: u32, objective: Objective) -> Result<Option<Choice>, Error> {
    let filtered = super::filtered(ctl);
    let now = ctl.now();
    let mut shortest: Option<Micros> = None;
    for c in 0..ctl.cluster_count() {
        for p in 0..ctl.pstates() {
            if let Some((_, d)) = ctl.admitted(i, ClusterId(c), PState(p), filtered) {
                shortest = Some(shortest.map_or(d, |s| s.min(d)));
            }
        }
    }
    let Some(shortest) = shortest else {
        return Ok(None);
    };
    let u = ctl.value_at_end(i, now.saturating_add(shortest))?;
    let u = u + u * BOUND_MARGIN + f64::MIN_POSITIVE;
    let mut top: Option<Choice> = None;
    for c in 0..ctl.cluster_count() {
        for p in 0..ctl.pstates() {
            if let Some((pl, _)) = ctl.admitted(i, ClusterId(c), PState(p), filtered) {
                let mut ch = Choice::bound(&pl, ClusterId(c), PState(p), now);
                let v = objective(ctl, &ch, u)?;
                // A NaN could hide a real value above it: rank it first, to be worked out.
                ch.value = if v.is_nan() { f64::INFINITY } else { v };
                if top.as_ref().is_none_or(|t| ch.value > t.value) {
                    top = Some(ch);
                }
            }
        }
    }
    Ok(top)
}

/// Whether task slot `i` still has an option that starts now: nodes free over its run from
/// now, its energy within what is left, the filter's consent.
fn can_start_now(ctl: &mut Controller<'_>, i: u32) -> Result<bool, Error> {
    let filtered = super::filtered(ctl);
    for c in 0..ctl.cluster_count() {
        if ctl.placement(i, ClusterId(c)).is_none() {
            continue;
        }
        for p in 0..ctl.pstates() {
            if ctl
                .option_now(i, ClusterId(c), PState(p), filtered)?
                .is_some()
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether a task of the heap may still start now; clears the flags found stale on the way
/// (each at most once an event). Stops at the first that may. `stuck` holds the task types
/// found unable to start now in this event: no task of theirs can for the rest of it.
fn any_may_start_now(
    ctl: &mut Controller<'_>,
    len: usize,
    stuck: &mut TypesSeen,
) -> Result<bool, Error> {
    for j in 0..len {
        let w = ctl.work()[j];
        if !w.may_start_now {
            continue;
        }
        let ty = ctl.task_type(w.slot);
        if !stuck.contains(ty) {
            if can_start_now(ctl, w.slot)? {
                return Ok(true);
            }
            stuck.insert(ty);
        }
        ctl.work()[j].may_start_now = false;
    }
    Ok(false)
}

/// Whether `a` ranks above `b`: the higher value, then the earlier arrival (lower slot).
fn above(a: &Work, b: &Work) -> bool {
    let (va, vb) = (
        a.best.map_or(f64::NEG_INFINITY, |c| c.value),
        b.best.map_or(f64::NEG_INFINITY, |c| c.value),
    );
    va > vb || (va == vb && a.slot < b.slot)
}

fn sift_down(h: &mut [Work], mut i: usize) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < h.len() && above(&h[l], &h[m]) {
            m = l;
        }
        if r < h.len() && above(&h[r], &h[m]) {
            m = r;
        }
        if m == i {
            return;
        }
        h.swap(i, m);
        i = m;
    }
}

pub(super) fn run(
    ctl: &mut Controller<'_>,
    reservations: Reservations,
    objective: Objective,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    let n = ctl.collect_mappable()?;
    // Only place-holders are left to make once nothing may start now (see the module doc).
    let plan_all = ctl.config().full_plan || reservations != Reservations::PlaceHolder;
    let mut stuck = TypesSeen::default();
    // Place-holders are planned lazily, with or without the whole plan, so that both make
    // the same decisions; permanent reservations read every best up front, as they always
    // have (the two differ when energy runs short: see the module doc).
    let lazy = reservations == Reservations::PlaceHolder;
    let mut len = 0;
    for w in 0..n {
        let i = ctl.work()[w].slot;
        let (b, now, stamp) = if lazy {
            (bound(ctl, i, objective)?, true, 0)
        } else {
            let (b, now) = best(ctl, i, objective)?;
            (b, now, 1)
        };
        if b.is_some() {
            let work = ctl.work();
            work[len] = Work {
                slot: i,
                best: b,
                may_start_now: now,
                stamp,
            };
            len += 1;
        }
    }
    if !plan_all && !any_may_start_now(ctl, len, &mut stuck)? {
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
            let (b, now) = best(ctl, top.slot, objective)?;
            let h = &mut ctl.work()[..len];
            match b {
                Some(_) => {
                    h[0] = Work {
                        best: b,
                        stamp: assignments + 1,
                        may_start_now: top.may_start_now && now,
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
        assignments += 1;
        let h = &mut ctl.work()[..len];
        h[0] = h[len - 1];
        len -= 1;
        sift_down(&mut ctl.work()[..len], 0);
        if !plan_all && !any_may_start_now(ctl, len, &mut stuck)? {
            break;
        }
    }
    Ok(())
}

//! Upper bounds of a task's options under an objective, worked out without querying any
//! earliest start: the option's objective were it to start now, with the utility of
//! completing after the task's shortest admitted duration (every option starts now or later,
//! and utility never rises). The pass ranks tasks by them before their bests are worked out,
//! and working out a best queries options by decreasing bound, skipping those that cannot
//! win.
//!
//! Where the objective is the utility over a cost of the option alone
//! ([`PER_COST`](Objective::PER_COST)), each task type's costs are kept for the event
//! ([`TypeBound`]): a task's bound is then its utility over its type's least cost.

use super::objective::Objective;
use crate::energy::{option_at, option_bit};
use crate::error::Error;
use crate::limits::{MAX_CLUSTERS, MAX_PSTATES, MAX_TASK_TYPES};
use crate::plan::{Choice, Planner};
use crate::platform::{ClusterId, PState};
use crate::policy::common::filtered;
use crate::units::Micros;

/// Relative margin of a bound's utility over the curve's value (far above the rounding of
/// one `exp`, which need not be monotone to the last bit; far below any gap that matters).
pub(super) const BOUND_MARGIN: f64 = 1e-12;

/// The most (cluster, P-state) options a task can have.
pub(super) const MAX_OPTIONS: usize = MAX_CLUSTERS * MAX_PSTATES;

/// The bounds of some of a task's admitted options (see [`bounds`]), in (cluster, P-state)
/// order, on the stack: the core allocates nothing.
pub(super) struct Bounds {
    /// Each option's bound (never NaN: a NaN bound is kept as infinity).
    pub(super) value: heapless::Vec<f64, MAX_OPTIONS>,
    /// Each option's cluster and P-state, at the same place.
    pub(super) at: heapless::Vec<(ClusterId, PState), MAX_OPTIONS>,
}

impl Bounds {
    /// None yet (nothing written: one is made for every best worked out).
    pub(super) fn new() -> Bounds {
        Bounds {
            value: heapless::Vec::new(),
            at: heapless::Vec::new(),
        }
    }

    /// Empties it.
    pub(super) fn clear(&mut self) {
        self.value.clear();
        self.at.clear();
    }

    /// Adds option `at` with bound `value`.
    pub(super) fn push(&mut self, at: (ClusterId, PState), value: f64) {
        // Never full: a platform has at most MAX_CLUSTERS clusters of MAX_PSTATES.
        if self.at.push(at).is_ok() {
            let _ = self.value.push(value);
        }
    }
}

/// The bounds of task slot `i`'s admitted options under `objective`, those after `after` in
/// (cluster, P-state) order (all: `None`): each one's objective were it to start now, with
/// the utility of completing after the shortest duration of any admitted option. Every
/// option starts now or later, and utility never rises, so none beats its bound.
///
/// They go to `out` (emptied first), not a return value: a `Result` of them would be copied
/// out of it, for every task at every event.
pub(super) fn bounds(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: impl Objective,
    after: Option<(ClusterId, PState)>,
    out: &mut Bounds,
) -> Result<(), Error> {
    out.clear();
    // The filter's verdicts first (kept per task type for the event); the rest only reads.
    let admitted = ctl.admitted_options(i, filtered(ctl));
    let ctl = &*ctl;
    let now = ctl.now();
    // Placements are read in place, not copied: this runs for every task at every event.
    let Some(table) = ctl.table(i) else {
        return Ok(());
    };
    let later = |c: ClusterId, p: PState| after.is_none_or(|(ac, ap)| (c.0, p.0) > (ac.0, ap.0));
    let mut shortest: Option<Micros> = None;
    for c in (0..ctl.cluster_count()).map(ClusterId) {
        let Some(pl) = table.on(c) else {
            continue;
        };
        for p in (0..ctl.pstates()).map(PState) {
            if admitted & option_bit(c, p) == 0 {
                continue;
            }
            let d = pl.etc[p.0 as usize];
            shortest = Some(shortest.map_or(d, |s| s.min(d)));
            if later(c, p) {
                // Its bound once the shortest duration is known (below).
                out.push((c, p), f64::INFINITY);
            }
        }
    }
    let Some(shortest) = shortest else {
        return Ok(());
    };
    // One utility serves every option: one `exp` a task, not one an option.
    let u = bound_utility(ctl, i, shortest)?;
    for (&(c, p), value) in out.at.iter().zip(out.value.iter_mut()) {
        let Some(pl) = table.on(c) else {
            continue;
        };
        *value = bound_value(objective.value(ctl, &Choice::bound(pl, c, p, now), u)?);
    }
    Ok(())
}

/// The utility a bound of task slot `i` uses: that of completing after `shortest` from now,
/// inflated by [`BOUND_MARGIN`] (and above zero).
pub(super) fn bound_utility(ctl: &Planner<'_>, i: u32, shortest: Micros) -> Result<f64, Error> {
    Ok(inflated(
        ctl.value_at_end(i, ctl.now().saturating_add(shortest))?,
    ))
}

/// Utility `u` as a bound reads it: inflated by [`BOUND_MARGIN`], and above zero.
pub(super) fn inflated(u: f64) -> f64 {
    u + u * BOUND_MARGIN + f64::MIN_POSITIVE
}

/// [`bound_utility`] of a typed task, kept in `kept` for the rest of the event (NaN: not
/// worked out yet). Its shortest option and `now` do not change within an event, so the
/// heap's bound and every later working out of its best share one `exp`.
pub(super) fn kept_utility(
    ctl: &Planner<'_>,
    i: u32,
    shortest: Micros,
    kept: &mut f64,
) -> Result<f64, Error> {
    if kept.is_nan() {
        *kept = bound_utility(ctl, i, shortest)?;
    }
    Ok(*kept)
}

/// A bound as it is ranked: a NaN could hide a real value above it, so it ranks first, to be
/// worked out.
pub(super) fn bound_value(v: f64) -> f64 {
    if v.is_nan() {
        f64::INFINITY
    } else {
        v
    }
}

/// What a typed task's bounds need of its type under a [`PER_COST`](Objective::PER_COST)
/// objective, worked out at the first task of the type in an event: the admitted options and
/// their costs are the type's, and the budget and the time are the event's. Kept on the
/// stack of the pass, 280 bytes a type (35 KB).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
// Entries of a fixed array, one a type, take the largest variant's room whatever they hold,
// and the core cannot box.
#[allow(clippy::large_enum_variant)]
pub(crate) enum TypeBound {
    /// Not worked out yet in this event.
    #[default]
    Unknown,
    /// No option is admitted: no task of the type has a bound.
    NoOption,
    /// Some option's cost is not above zero: each task's bound is worked out option by option.
    ByOption,
    /// The admitted options' shortest duration and least cost, and the first option of that
    /// cost in (cluster, P-state) order.
    Cheapest {
        /// The shortest duration.
        shortest: Micros,
        /// The least cost.
        cost: f64,
        /// The option of that cost.
        at: (ClusterId, PState),
        /// The admitted options (bits [`option_bit`]).
        admitted: u32,
        /// Each admitted option's cost, at its bit's place.
        costs: [f64; MAX_OPTIONS],
    },
}

/// One [`TypeBound`] a task type, for one event.
pub(crate) type TypeBounds = [TypeBound; MAX_TASK_TYPES];

/// A bound of task slot `i`'s best under `objective` (`None`: no option is admitted): the
/// highest of its options' [`bounds`], as a choice that starts now.
///
/// Under a [`PER_COST`](Objective::PER_COST) objective, a typed task's bound is its utility
/// over its type's least cost (`types` keeps that for the event): with a positive utility,
/// dividing by a larger cost never gives more (division rounds monotonically), so this is
/// the highest bound, bit for bit, for one division instead of every option's objective.
/// Its option is the first of the least cost, where the options' bounds might pick an
/// earlier one whose bound rounds to the same value: only a bound's value is ever read (a
/// bound's choice is never current, so it is worked out before it is assigned).
#[inline]
pub(super) fn bound<O: Objective>(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: O,
    types: &mut TypeBounds,
    bound_u: &mut f64,
) -> Result<Option<Choice>, Error> {
    match kept(ctl, i, objective, types)? {
        Some(TypeBound::NoOption) => return Ok(None),
        Some(&TypeBound::Cheapest {
            shortest, cost, at, ..
        }) => {
            let u = kept_utility(ctl, i, shortest, bound_u)?;
            // Not above zero (or NaN): dividing by the least cost need not give the most.
            if u > 0.0 {
                return Ok(bound_choice(ctl, i, at, bound_value(u / cost)));
            }
        }
        _ => {}
    }
    bound_by_option(ctl, i, objective)
}

/// Task slot `i`'s type's entry of `types`, worked out if it was not yet (`None`: the task
/// has a table of its own, or the objective is not [`PER_COST`](Objective::PER_COST)).
#[inline]
pub(super) fn kept<'t, O: Objective>(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: O,
    types: &'t mut TypeBounds,
) -> Result<Option<&'t TypeBound>, Error> {
    let entry = match ctl.task_type(i) {
        Some(t) if O::PER_COST => types.get_mut(t.0 as usize),
        _ => None,
    };
    let Some(entry) = entry else {
        return Ok(None);
    };
    if *entry == TypeBound::Unknown {
        *entry = type_bound(ctl, i, objective)?;
    }
    Ok(Some(entry))
}

/// [`bounds`] of typed task slot `i`'s options after `after` from its type's kept costs
/// (the utility over each cost: the objective's value, bit for bit), into `out`; false when
/// its type keeps none (then `out` is untouched).
#[inline]
pub(super) fn kept_bounds<O: Objective>(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: O,
    (types, bound_u): (&mut TypeBounds, &mut f64),
    (ac, ap): (ClusterId, PState),
    out: &mut Bounds,
) -> Result<bool, Error> {
    let Some(&TypeBound::Cheapest {
        shortest,
        admitted,
        ref costs,
        ..
    }) = kept(ctl, i, objective, types)?
    else {
        return Ok(false);
    };
    out.clear();
    let u = kept_utility(ctl, i, shortest, bound_u)?;
    // The options after `after` in (cluster, P-state) order are the bits above its bit.
    let mut later = admitted & !(option_bit(ac, ap) | (option_bit(ac, ap).wrapping_sub(1)));
    while later != 0 {
        let place = later.trailing_zeros();
        later &= later - 1;
        let Some(cost) = costs.get(place as usize) else {
            break;
        };
        out.push(option_at(place), bound_value(u / cost));
    }
    Ok(true)
}

/// The [`TypeBound`] of task slot `i`'s type under a [`PER_COST`](Objective::PER_COST)
/// objective.
pub(super) fn type_bound(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: impl Objective,
) -> Result<TypeBound, Error> {
    let admitted = ctl.admitted_options(i, filtered(ctl));
    let ctl = &*ctl;
    let now = ctl.now();
    let Some(table) = ctl.table(i) else {
        return Ok(TypeBound::NoOption);
    };
    // Gathered apart and put together once: the entry is 280 bytes.
    let mut costs = [0.0; MAX_OPTIONS];
    // The shortest duration, the least cost and its option, and the admitted options kept.
    type Cheapest = (Micros, f64, (ClusterId, PState));
    let (mut kept, mut cheapest) = (0u32, None::<Cheapest>);
    for c in (0..ctl.cluster_count()).map(ClusterId) {
        let Some(pl) = table.on(c) else {
            continue;
        };
        for p in (0..ctl.pstates()).map(PState) {
            let bit = option_bit(c, p);
            if admitted & bit == 0 {
                continue;
            }
            let d = pl.etc[p.0 as usize];
            let k = objective.cost(ctl, &Choice::bound(pl, c, p, now))?;
            // A cost at or below zero, or NaN, would break the monotone division.
            if k.is_nan() || k <= 0.0 {
                return Ok(TypeBound::ByOption);
            }
            if let Some(slot) = costs.get_mut(bit.trailing_zeros() as usize) {
                *slot = k;
                kept |= bit;
            }
            cheapest = Some(match cheapest {
                Some((shortest, cost, at)) if k >= cost => (shortest.min(d), cost, at),
                Some((shortest, ..)) => (shortest.min(d), k, (c, p)),
                None => (d, k, (c, p)),
            });
        }
    }
    Ok(match cheapest {
        Some((shortest, cost, at)) => TypeBound::Cheapest {
            shortest,
            cost,
            at,
            admitted: kept,
            costs,
        },
        None => TypeBound::NoOption,
    })
}

/// A bound of task slot `i`'s best from each of its options' [`bounds`] (ties keep the
/// first).
pub(super) fn bound_by_option(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: impl Objective,
) -> Result<Option<Choice>, Error> {
    let mut b = Bounds::new();
    bounds(ctl, i, objective, None, &mut b)?;
    let mut top: Option<usize> = None;
    for k in 0..b.value.len() {
        if top.is_none_or(|t| b.value[k] > b.value[t]) {
            top = Some(k);
        }
    }
    Ok(top.and_then(|k| bound_choice(ctl, i, b.at[k], b.value[k])))
}

/// Task slot `i`'s bound as the pass finds it (through `types`) and from each of its
/// options' bounds, for the tests to hold the two to the same value.
#[cfg(test)]
pub(crate) fn bounds_both(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: impl Objective,
    types: &mut TypeBounds,
) -> Result<[Option<Choice>; 2], Error> {
    let mut u = f64::NAN;
    Ok([
        bound(ctl, i, objective, types, &mut u)?,
        bound_by_option(ctl, i, objective)?,
    ])
}

/// Whether the bounds a best reads from its type's kept costs are [`bounds`]'s (the same
/// options, values bit for bit), after each option task slot `i` has (through `types`).
#[cfg(test)]
pub(crate) fn kept_bounds_agree(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: impl Objective,
    types: &mut TypeBounds,
) -> Result<bool, Error> {
    // One kept utility for every option, as through an event.
    let mut u = f64::NAN;
    for c in (0..ctl.cluster_count()).map(ClusterId) {
        for p in (0..ctl.pstates()).map(PState) {
            if !ctl.runs_on(i, c) {
                continue;
            }
            let (mut kept, mut fresh) = (Bounds::new(), Bounds::new());
            if !kept_bounds(ctl, i, objective, (types, &mut u), (c, p), &mut kept)? {
                continue;
            }
            bounds(ctl, i, objective, Some((c, p)), &mut fresh)?;
            let bits = |b: &Bounds| {
                let v: heapless::Vec<u64, MAX_OPTIONS> =
                    b.value.iter().map(|v| v.to_bits()).collect();
                (b.at.clone(), v)
            };
            if bits(&kept) != bits(&fresh) {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether `objective`'s value is `u / cost`, bit for bit, for each `u` of `us` and each
/// option task slot `i` has (true when it does not say so).
#[cfg(test)]
pub(crate) fn per_cost_holds<O: Objective>(
    ctl: &Planner<'_>,
    i: u32,
    objective: O,
    us: &[f64],
) -> Result<bool, Error> {
    if !O::PER_COST {
        return Ok(true);
    }
    let Some(table) = ctl.table(i) else {
        return Ok(true);
    };
    for c in (0..ctl.cluster_count()).map(ClusterId) {
        let Some(pl) = table.on(c) else {
            continue;
        };
        for p in (0..ctl.pstates()).map(PState) {
            let ch = Choice::bound(pl, c, p, ctl.now());
            for &u in us {
                let (v, w) = (objective.value(ctl, &ch, u)?, u / objective.cost(ctl, &ch)?);
                if v.to_bits() != w.to_bits() && !(v.is_nan() && w.is_nan()) {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// Task slot `i` on option `at` as a bound of value `value`: a choice that starts now.
pub(super) fn bound_choice(
    ctl: &Planner<'_>,
    i: u32,
    (c, p): (ClusterId, PState),
    value: f64,
) -> Option<Choice> {
    ctl.table(i).and_then(|t| t.on(c)).map(|pl| {
        let mut ch = Choice::bound(pl, c, p, ctl.now());
        ch.value = value;
        ch
    })
}

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
//! Of the 1,152 runs of the default experiment the switch changed one (Max UPT PH + EPT,
//! trial 41, near the day's end). Permanent reservations keep the up-front loop and their
//! decisions.

use super::common::{filtered, TypesSeen};
use crate::config::Reservations;
use crate::energy::{option_at, option_bit};
use crate::error::Error;
use crate::limits::{MAX_CLUSTERS, MAX_PSTATES, MAX_TASK_TYPES};
use crate::plan::{Choice, Decision, Planner, Work};
use crate::platform::{ClusterId, PState, TaskTypeId};
use crate::units::Micros;

/// An objective: the value of an option for a task that earns `u` when it completes.
///
/// It must not decrease as `u` grows (none does: `u` over a positive measure of the option,
/// or a monotone packing of `u` and the completion), and for a given `u` it must not grow as
/// the option starts later: [`bounds`] relies on both.
///
/// The pass is generic over it, so each heuristic's objective is inlined where bounds are
/// computed (once an option for every mappable task at every event), and what it does not
/// read of an option is not computed.
pub(crate) trait Objective: Copy {
    /// Whether [`value`](Self::value) is `u / cost`, bit for bit, with the option's
    /// [`cost`](Self::cost): then the highest bound of a task's options is its utility over
    /// the least cost, which is the same for every task of a type (see [`TypeBound`]).
    const PER_COST: bool;

    /// Whether an option is first checked against the options read before it, unqueried
    /// (see [`loses_unread`]): worth it where a longer run on the same cluster seldom
    /// wins, as when the cost grows with the run's duration.
    const CHECK_UNREAD: bool = true;

    /// The value of option `ch` for a task that earns `u` when it completes: by default the
    /// utility over the option's [`cost`](Self::cost), what [`PER_COST`](Self::PER_COST)
    /// promises.
    fn value(self, ctl: &Planner<'_>, ch: &Choice, u: f64) -> Result<f64, Error> {
        Ok(u / self.cost(ctl, ch)?)
    }

    /// What the utility is divided by when [`PER_COST`](Self::PER_COST): a measure of the
    /// option alone (not of its start or of the task's utility). 1 otherwise.
    fn cost(self, _ctl: &Planner<'_>, _ch: &Choice) -> Result<f64, Error> {
        Ok(1.0)
    }
}

/// A task's best option (`None`: it has none) and whether it may start now.
pub(crate) type Best = (Option<Choice>, bool);

/// Relative margin of a bound's utility over the curve's value (far above the rounding of
/// one `exp`, which need not be monotone to the last bit; far below any gap that matters).
const BOUND_MARGIN: f64 = 1e-12;

/// The most (cluster, P-state) options a task can have.
const MAX_OPTIONS: usize = MAX_CLUSTERS * MAX_PSTATES;

/// The bounds of some of a task's admitted options (see [`bounds`]), in (cluster, P-state)
/// order, on the stack: the core allocates nothing.
struct Bounds {
    /// Each option's bound (never NaN: a NaN bound is kept as infinity).
    value: heapless::Vec<f64, MAX_OPTIONS>,
    /// Each option's cluster and P-state, at the same place.
    at: heapless::Vec<(ClusterId, PState), MAX_OPTIONS>,
}

impl Bounds {
    /// None yet (nothing written: one is made for every best worked out).
    fn new() -> Bounds {
        Bounds {
            value: heapless::Vec::new(),
            at: heapless::Vec::new(),
        }
    }

    /// Empties it.
    fn clear(&mut self) {
        self.value.clear();
        self.at.clear();
    }

    /// Adds option `at` with bound `value`.
    fn push(&mut self, at: (ClusterId, PState), value: f64) {
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
fn bounds(
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
fn bound_utility(ctl: &Planner<'_>, i: u32, shortest: Micros) -> Result<f64, Error> {
    Ok(inflated(
        ctl.value_at_end(i, ctl.now().saturating_add(shortest))?,
    ))
}

/// Utility `u` as a bound reads it: inflated by [`BOUND_MARGIN`], and above zero.
fn inflated(u: f64) -> f64 {
    u + u * BOUND_MARGIN + f64::MIN_POSITIVE
}

/// [`bound_utility`] of a typed task, kept in `kept` for the rest of the event (NaN: not
/// worked out yet). Its shortest option and `now` do not change within an event, so the
/// heap's bound and every later working out of its best share one `exp`.
fn kept_utility(ctl: &Planner<'_>, i: u32, shortest: Micros, kept: &mut f64) -> Result<f64, Error> {
    if kept.is_nan() {
        *kept = bound_utility(ctl, i, shortest)?;
    }
    Ok(*kept)
}

/// A bound as it is ranked: a NaN could hide a real value above it, so it ranks first, to be
/// worked out.
fn bound_value(v: f64) -> f64 {
    if v.is_nan() {
        f64::INFINITY
    } else {
        v
    }
}

/// Utilities of a task worked out in one [`best`], by completion (at most one an option).
struct Known {
    /// Completion and utility.
    at: heapless::Vec<(Micros, f64), MAX_OPTIONS>,
    /// The options read: cluster, duration, earliest start.
    starts: heapless::Vec<(ClusterId, Micros, Micros), MAX_OPTIONS>,
}

impl Known {
    /// None yet (nothing written: one is made for every best worked out).
    fn new() -> Known {
        Known {
            at: heapless::Vec::new(),
            starts: heapless::Vec::new(),
        }
    }

    /// Notes that an option on `c` of duration `d` starts at `start` at the earliest.
    fn add_start(&mut self, c: ClusterId, d: Micros, start: Micros) {
        // At most one an option: never full.
        let _ = self.starts.push((c, d, start));
    }

    /// Whether an option on `c` was read.
    fn read_on(&self, c: ClusterId) -> bool {
        self.starts.iter().any(|x| x.0 == c)
    }

    /// The earliest an option on `c` of duration `d` can start (`None`: nothing known): a
    /// run on the same cluster (the task's nodes there) no longer than `d` started no
    /// earlier, since wherever `d` fits, a shorter run fits too.
    fn start_bound(&self, c: ClusterId, d: Micros) -> Option<Micros> {
        self.starts
            .iter()
            .filter(|x| x.0 == c && x.1 <= d)
            .map(|x| x.2)
            .max()
    }

    /// Notes the utility `u` of completing at `end`.
    fn add(&mut self, end: Micros, u: f64) {
        // At most one an option: never full.
        let _ = self.at.push((end, u));
    }

    /// An upper bound of the utility of completing at `end`: that of the latest completion
    /// noted at or before it, inflated by [`BOUND_MARGIN`] as the bounds are (`None`: none).
    fn bound(&self, end: Micros) -> Option<f64> {
        let (_, u) = self
            .at
            .iter()
            .filter(|(e, _)| *e <= end)
            .max_by_key(|(e, _)| *e)?;
        Some(inflated(*u))
    }
}

/// Whether option (c, p) of task slot `i` cannot win, told before it is queried from the
/// options already read in `known`: its start is bounded by a shorter run's on the same
/// cluster (when that is after now, so the could-start-now flag stays exact), and its
/// utility by the utility known by the completion that start gives.
#[inline(never)]
fn loses_unread(
    ctl: &Planner<'_>,
    i: u32,
    (c, p): (ClusterId, PState),
    objective: impl Objective,
    known: &Known,
    loses: &dyn Fn(f64) -> bool,
) -> Result<bool, Error> {
    // The placement is read in place.
    let Some(pl) = ctl.table(i).and_then(|t| t.on(c)) else {
        return Ok(false);
    };
    let d = pl.etc[p.0 as usize];
    let start = known.start_bound(c, d).filter(|&s| s > ctl.now());
    let Some((s, u)) = start.and_then(|s| Some((s, known.bound(s.saturating_add(d))?))) else {
        return Ok(false);
    };
    let v = objective.value(ctl, &Choice::bound(pl, c, p, s), u)?;
    Ok(loses(bound_value(v)))
}

/// The best option of task slot `i` under `objective` (ties keep the first (cluster,
/// P-state)), and whether any of its options may start now (also true when one was skipped
/// unread: callers check the flag again before they act on it).
///
/// Most of the cost is the earliest-start query behind each option, so once one option is
/// found the others are worked out by decreasing bound, and those whose bound cannot beat
/// the best so far are skipped. The pick is the exhaustive loop's; only the memo may differ,
/// which no decision reads.
pub(crate) fn best<O: Objective>(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: O,
    types: &mut TypeBounds,
    bound_u: &mut f64,
) -> Result<Best, Error> {
    let filtered = filtered(ctl);
    let admitted = ctl.admitted_options(i, filtered);
    let now = ctl.now();
    let mut starts_now = false;
    // The utilities worked out so far, by completion: the curve never rises, so the last
    // one at or before a later completion bounds the utility there (with the bounds'
    // margin), which decides most options that cannot win without an `exp`.
    let mut known = Known::new();
    let mut work_out = |ctl: &mut Planner<'_>,
                        c: ClusterId,
                        p: PState,
                        loses: &dyn Fn(f64) -> bool|
     -> Result<Option<Choice>, Error> {
        // Before the query: with a start that bounds this one's (later than now, so the
        // flag stays exact) and a utility known by its completion then, an option that
        // cannot win is not queried at all.
        if O::CHECK_UNREAD
            && !known.at.is_empty()
            && known.read_on(c)
            && loses_unread(ctl, i, (c, p), objective, &known, loses)?
        {
            return Ok(None);
        }
        let Some(mut ch) = ctl.option(i, c, p, filtered)? else {
            return Ok(None);
        };
        starts_now |= ch.start <= now;
        known.add_start(c, ch.duration, ch.start);
        let end = ch.start.saturating_add(ch.duration);
        if let Some(u) = known.bound(end) {
            if loses(bound_value(objective.value(ctl, &ch, u)?)) {
                return Ok(None);
            }
        }
        let u = ctl.value_at_end(i, end)?;
        known.add(end, u);
        let v = objective.value(ctl, &ch, u)?;
        // A NaN objective ranks below every number, so it never wins by accident.
        ch.value = if v.is_nan() { f64::NEG_INFINITY } else { v };
        Ok(Some(ch))
    };
    // In loop order up to the first option: there is nothing to prune against before it,
    // and most tasks of the up-front loop (permanent reservations) have none, each answered
    // at once by the memo ("not today"), where bounds would cost more than they save.
    let mut first: Option<Choice> = None;
    'probe: for c in (0..ctl.cluster_count()).map(ClusterId) {
        if !ctl.runs_on(i, c) {
            continue;
        }
        for p in (0..ctl.pstates()).map(PState) {
            // A filtered-out option has none: skipped before its placement is copied.
            if admitted & option_bit(c, p) == 0 {
                continue;
            }
            first = work_out(ctl, c, p, &|_| false)?;
            if first.is_some() {
                break 'probe;
            }
        }
    }
    let Some(first) = first else {
        return Ok((None, starts_now));
    };
    let mut b = Bounds::new();
    let after = (first.cluster, first.pstate);
    if !kept_bounds(ctl, i, objective, (types, bound_u), after, &mut b)? {
        bounds(ctl, i, objective, Some(after), &mut b)?;
    }
    let (best, skipped) = branch_and_bound(&b.value, (first, first.value), |k, loses| {
        let (c, p) = b.at[k];
        Ok(work_out(ctl, c, p, loses)?.map(|ch| (ch, ch.value)))
    })?;
    Ok((Some(best), starts_now || skipped))
}

/// The best of `first` and options `0..bound.len()` (the highest value, then the earliest:
/// `first` precedes them all, then index order), given an upper bound of each option's value
/// (no NaN), and whether an option was skipped unread. `eval(k, loses)` works option `k`
/// out: `None` if it has none (or, once read, if it can tell that its value `v` would have
/// `loses(v)`: it cannot beat the best so far), else it and its value (never NaN).
///
/// Options are worked out by decreasing bound, so a high value comes early and most bounds
/// left fall below it. A tie goes to the earlier option, so a bound equal to the best so far
/// still needs working out when it is earlier in index order.
fn branch_and_bound<T>(
    bound: &[f64],
    first: (T, f64),
    mut eval: impl FnMut(usize, &dyn Fn(f64) -> bool) -> Result<Option<(T, f64)>, Error>,
) -> Result<(T, bool), Error> {
    let n = bound.len().min(MAX_OPTIONS);
    let mut order = [0u8; MAX_OPTIONS];
    for (k, o) in order.iter_mut().enumerate().take(n) {
        *o = k as u8;
    }
    // Insertion sort of at most 32 entries; stable, so equal bounds keep index order.
    for k in 1..n {
        let x = order[k];
        let mut j = k;
        while j > 0 && bound[order[j - 1] as usize] < bound[x as usize] {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = x;
    }
    // The best so far, its value and its place in index order (`first`: 0, option k: k + 1).
    let mut best = (first.0, first.1, 0);
    let mut skipped = false;
    for &k in &order[..n] {
        let (k, at) = (k as usize, k as usize + 1);
        let (value, place) = (best.1, best.2);
        let loses = |v: f64| v < value || (v == value && at > place);
        // Tested option by option, so no skip relies on the order (only how many there are).
        if loses(bound[k]) {
            skipped = true;
            continue;
        }
        if let Some((t, v)) = eval(k, &loses)? {
            if v > best.1 || (v == best.1 && at < best.2) {
                best = (t, v, at);
            }
        }
    }
    Ok((best.0, skipped))
}

/// The exhaustive loop that [`best`] prunes, kept for the tests to hold the two to the same
/// picks: every option worked out in (cluster, P-state) order.
#[cfg(test)]
pub(crate) fn best_exhaustive(
    ctl: &mut Planner<'_>,
    i: u32,
    objective: impl Objective,
) -> Result<Best, Error> {
    let filtered = filtered(ctl);
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
                let v = objective.value(ctl, &ch, u)?;
                ch.value = if v.is_nan() { f64::NEG_INFINITY } else { v };
                if best.as_ref().is_none_or(|b| ch.value > b.value) {
                    best = Some(ch);
                }
            }
        }
    }
    Ok((best, starts_now))
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
fn bound<O: Objective>(
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
fn kept<'t, O: Objective>(
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
fn kept_bounds<O: Objective>(
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
fn type_bound(
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
fn bound_by_option(
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
fn bound_choice(
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

/// Whether task slot `i` still has an option that starts now: nodes free over its run from
/// now, its energy within what is left, the filter's consent.
///
/// `hint` is the option that last answered yes for the task's type in this event (`None`:
/// none yet), asked first: the answer is whether any option may, so the order does not
/// change it, and after each assignment the same type is asked again, where the options
/// before that one (each a memo lookup or a count) would mostly say no again.
fn can_start_now(
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
type StartHints = [Option<(ClusterId, PState)>; MAX_TASK_TYPES];

/// The heap's entries flagged "may start now", counted by task type. Whether a typed task
/// may start now is its type's question (its options, their energy and the filter's verdicts
/// are the type's), so [`any_may_start_now`] asks each type present once instead of reading
/// the heap entry by entry.
struct Flagged {
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
    fn new() -> Flagged {
        Flagged {
            count: [0; MAX_TASK_TYPES],
            rep: [0; MAX_TASK_TYPES],
            present: TypesSeen::default(),
            own: 0,
            last: None,
        }
    }

    /// Counts a flagged entry of task slot `i`, of type `ty`.
    fn flag(&mut self, ty: Option<TaskTypeId>, i: u32) {
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
    fn unflag(&mut self, ty: Option<TaskTypeId>) {
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
fn any_may_start_now(
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
fn check_flagged(
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
mod tests {
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    #[test]
    fn a_known_start_bounds_only_longer_runs_on_its_cluster() {
        let (a, b) = (ClusterId(0), ClusterId(1));
        let mut k = Known::new();
        assert_eq!(k.start_bound(a, Micros(10)), None);
        k.add_start(a, Micros(10), Micros(100));
        k.add_start(a, Micros(20), Micros(300));
        k.add_start(b, Micros(5), Micros(900));
        assert!(k.read_on(a) && k.read_on(b) && !k.read_on(ClusterId(2)));
        // Shorter than any run read on the cluster: nothing bounds it.
        assert_eq!(k.start_bound(a, Micros(9)), None);
        assert_eq!(k.start_bound(a, Micros(10)), Some(Micros(100)));
        // The latest start of the runs no longer than asked.
        assert_eq!(k.start_bound(a, Micros(25)), Some(Micros(300)));
        assert_eq!(k.start_bound(b, Micros(25)), Some(Micros(900)));
        // Utilities: the latest completion at or before the one asked, with the margin.
        k.add(Micros(50), 0.5);
        k.add(Micros(80), 0.25);
        assert_eq!(k.bound(Micros(49)), None);
        let u = k.bound(Micros(79)).unwrap();
        assert!((0.5..0.5 + 1e-9).contains(&u));
        let u = k.bound(Micros(1000)).unwrap();
        assert!((0.25..0.25 + 1e-9).contains(&u));
    }

    /// What the exhaustive loop picks from `values` (`None`: no option): the first highest.
    fn first_highest(values: &[Option<f64>]) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (k, v) in values.iter().enumerate() {
            if let Some(v) = v {
                if best.is_none_or(|b| *v > values[b].unwrap()) {
                    best = Some(k);
                }
            }
        }
        best
    }

    /// Runs [`branch_and_bound`] from an option worth `first` over `values` under `bounds`:
    /// its pick (0: `first`, k + 1: option k), whether it skipped one, and how many it
    /// worked out.
    ///
    /// With `drop_losers`, the evaluator answers `None` for an option whose value `loses`
    /// (as [`best`] does when a known utility bounds it): the pick must not change.
    fn search_with(
        first: f64,
        bounds: &[f64],
        values: &[Option<f64>],
        drop_losers: bool,
    ) -> (usize, bool, usize) {
        let mut worked = 0;
        let (pick, skipped) = branch_and_bound(bounds, (0, first), |k, loses| {
            worked += 1;
            Ok(values[k]
                .filter(|&v| !(drop_losers && loses(v)))
                .map(|v| (k + 1, v)))
        })
        .unwrap();
        (pick, skipped, worked)
    }

    /// [`search_with`], every option worked out whole.
    fn search(first: f64, bounds: &[f64], values: &[Option<f64>]) -> (usize, bool, usize) {
        search_with(first, bounds, values, false)
    }

    /// A bound equal to the best so far but earlier in index order is still worked out, and
    /// wins the tie; one later in index order is skipped.
    #[test]
    fn an_equal_bound_earlier_in_order_is_worked_out() {
        // Option 1 ranks first (bound 2) and is worth 1; option 0's bound is exactly 1.
        assert_eq!(
            search(0.0, &[1.0, 2.0], &[Some(1.0), Some(1.0)]),
            (1, false, 2)
        );
        // Option 0 ranks first and is worth 1; option 1's equal bound cannot win the tie.
        assert_eq!(
            search(0.0, &[2.0, 1.0], &[Some(1.0), Some(1.0)]),
            (1, true, 1)
        );
        // Nor can any equal bound against the first option found.
        assert_eq!(
            search(1.0, &[1.0, 1.0], &[Some(1.0), Some(1.0)]),
            (0, true, 0)
        );
        // Below the best: skipped.
        assert_eq!(
            search(0.0, &[3.0, 0.5], &[Some(1.0), Some(0.5)]),
            (1, true, 1)
        );
        let ninf = f64::NEG_INFINITY;
        assert_eq!(
            search(ninf, &[ninf, ninf], &[Some(ninf), None]),
            (0, true, 0)
        );
        assert_eq!(search(ninf, &[], &[]), (0, false, 0));
    }

    /// The swapping sift-down that [`sift_down`] replaces.
    fn sift_down_by_swaps(h: &mut [Work], mut i: usize) {
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

    proptest! {
        /// Over values with many ties (and bounds often equal to them), the search picks what
        /// the exhaustive loop picks, and reports a skip exactly when it worked out fewer.
        #[test]
        fn picks_as_the_exhaustive_loop(
            first in 0u8..4,
            options in prop::collection::vec(
                (prop::option::of(0u8..4), 0u8..3, any::<bool>()),
                0..MAX_OPTIONS,
            ),
        ) {
            let to_f64 = |v: u8| if v == 0 { f64::NEG_INFINITY } else { v as f64 };
            let values: Vec<Option<f64>> =
                options.iter().map(|&(v, _, _)| v.map(to_f64)).collect();
            // A bound is at least the value (anything when there is none), or infinite as a
            // NaN bound is kept.
            let bounds: Vec<f64> = options
                .iter()
                .map(|&(v, up, inf)| if inf { f64::INFINITY } else { to_f64(v.unwrap_or(0) + up) })
                .collect();
            let (pick, skipped, worked) = search(to_f64(first), &bounds, &values);
            let all: Vec<Option<f64>> =
                core::iter::once(Some(to_f64(first))).chain(values.iter().copied()).collect();
            prop_assert_eq!(Some(pick), first_highest(&all));
            prop_assert_eq!(skipped, worked < values.len());
            // An evaluator that drops the options that cannot win picks the same.
            let (dropping, ..) = search_with(to_f64(first), &bounds, &values, true);
            prop_assert_eq!(dropping, pick);
        }

        /// Building a heap and popping it through [`sift_down`] leaves every entry where the
        /// swapping sift-down does, over values with many ties (broken by the slot).
        #[test]
        fn sifting_into_the_hole_orders_as_swapping(
            values in prop::collection::vec(prop::option::of(0u8..6), 0..80),
        ) {
            let mut a: Vec<Work> = values
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    let mut ch = Choice::bound(
                        &crate::platform::Placement {
                            nodes: crate::units::NodeCount(1),
                            etc: [Micros(1); MAX_PSTATES],
                            apc: [crate::units::MilliWatts(1); MAX_PSTATES],
                        },
                        ClusterId(0),
                        PState(0),
                        Micros(0),
                    );
                    ch.value = v.map_or(f64::NEG_INFINITY, f64::from);
                    Work { slot: (k * 7 % 80) as u32, best: Some(ch), may_start_now: false, stamp: 0, bound_u: f64::NAN }
                })
                .collect();
            let mut b = a.clone();
            for i in (0..a.len() / 2).rev() {
                sift_down(&mut a, i);
                sift_down_by_swaps(&mut b, i);
            }
            let slots = |h: &[Work]| h.iter().map(|w| w.slot).collect::<Vec<_>>();
            prop_assert_eq!(slots(&a), slots(&b));
            while !a.is_empty() {
                let n = a.len() - 1;
                a.swap(0, n);
                b.swap(0, n);
                a.truncate(n);
                b.truncate(n);
                sift_down(&mut a, 0);
                sift_down_by_swaps(&mut b, 0);
                prop_assert_eq!(slots(&a), slots(&b));
            }
        }
    }
}

//! A task's best option under an objective: the first option found in (cluster, P-state)
//! order, then the others by decreasing bound, each skipped when its bound (or what the
//! options already read tell of it) cannot beat the best so far. The pick is the exhaustive
//! loop's, which the tests keep beside it.

use super::bounds::{bound_value, bounds, inflated, kept_bounds, Bounds, TypeBounds, MAX_OPTIONS};
use super::objective::{Best, Objective};
use crate::energy::option_bit;
use crate::error::Error;
use crate::plan::{Choice, Planner};
use crate::platform::{ClusterId, PState};
use crate::policy::common::filtered;
use crate::units::Micros;

/// Utilities of a task worked out in one [`best`], by completion (at most one an option).
pub(super) struct ReadSoFar {
    /// Completion and utility.
    pub(super) at: heapless::Vec<(Micros, f64), MAX_OPTIONS>,
    /// The options read: cluster, duration, earliest start.
    starts: heapless::Vec<(ClusterId, Micros, Micros), MAX_OPTIONS>,
}

impl ReadSoFar {
    /// None yet (nothing written: one is made for every best worked out).
    pub(super) fn new() -> ReadSoFar {
        ReadSoFar {
            at: heapless::Vec::new(),
            starts: heapless::Vec::new(),
        }
    }

    /// Notes that an option on `c` of duration `d` starts at `start` at the earliest.
    pub(super) fn add_start(&mut self, c: ClusterId, d: Micros, start: Micros) {
        // At most one an option: never full.
        let _ = self.starts.push((c, d, start));
    }

    /// Whether an option on `c` was read.
    pub(super) fn read_on(&self, c: ClusterId) -> bool {
        self.starts.iter().any(|x| x.0 == c)
    }

    /// The earliest an option on `c` of duration `d` can start (`None`: nothing known): a
    /// run on the same cluster (the task's nodes there) no longer than `d` started no
    /// earlier, since wherever `d` fits, a shorter run fits too.
    pub(super) fn start_bound(&self, c: ClusterId, d: Micros) -> Option<Micros> {
        self.starts
            .iter()
            .filter(|x| x.0 == c && x.1 <= d)
            .map(|x| x.2)
            .max()
    }

    /// Notes the utility `u` of completing at `end`.
    pub(super) fn add(&mut self, end: Micros, u: f64) {
        // At most one an option: never full.
        let _ = self.at.push((end, u));
    }

    /// An upper bound of the utility of completing at `end`: that of the latest completion
    /// noted at or before it, inflated by [`BOUND_MARGIN`] as the bounds are (`None`: none).
    pub(super) fn bound(&self, end: Micros) -> Option<f64> {
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
    known: &ReadSoFar,
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
    let mut known = ReadSoFar::new();
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
pub(super) fn branch_and_bound<T>(
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

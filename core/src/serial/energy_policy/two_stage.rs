//! The two-stage pass over (machine, P-state) options (§3.3.2): stage 1 gives each task its
//! best valid, filtered option; stage 2 takes the best of those (higher score, then earlier
//! arrival), charges it, updates the machine's ready time and repeats until every task is
//! mapped or has no option (postponed or left for the next event by the caller).
//!
//! As Chapter 2's pass (`serial::two_stage`), without re-examining every pair at every
//! iteration: an option's value never improves as its machine's ready time grows, and
//! options only become invalid as the day's energy is spent, so a task's choice changes only
//! when its machine was taken (those tasks sit on the machine's list and are re-chosen) or
//! its option no longer fits the energy left (checked when it reaches the top of the
//! tournament tree, and re-chosen then: a stale key only overestimates).
//!
//! A choice goes by machine type (`choose_by_type`, `choose_again`): one bound per type on
//! its options' scores, and only the types whose bound reaches the best so far examined;
//! the option-by-option scan (`choose_scan`) decides where the bounds' monotone argument
//! does not hold, and under `cfg(test)` every choice is made again by it and compared.

use super::{Decision, EScratch};
use crate::serial::energy_heuristic::{EnergyHeuristic, Normalisers};
use crate::serial::env::{MAX_SERIAL_MACHINES, MAX_SERIAL_MACHINE_TYPES};
use crate::serial::options::{Opt, OptionView, NO_MACHINE};
use crate::serial::pstate::MAX_SERIAL_PSTATES;
use crate::serial::queue::NONE;
use crate::units::{Micros, MilliJoules};

#[inline]
pub(super) fn pack(m: u16, k: u8) -> u32 {
    (m as u32) << 8 | k as u32
}

#[inline]
pub(super) fn unpack(c: u32) -> (u16, u8) {
    ((c >> 8) as u16, c as u8)
}

/// Most options of one task (one machine per type).
const MAX_OPTIONS: usize = MAX_SERIAL_MACHINE_TYPES * MAX_SERIAL_PSTATES;

/// A task's earliest completion over its options at a choice over every type (valid or not,
/// on every type it runs on) and its utility there. Within an event ready times only grow,
/// so no later option of the task completes earlier, and (its curve never rising) none earns
/// more: the utility caps every re-choice's options as it capped the choice's
/// ([`choose_type`]'s `cap`). A NaN utility: none known ([`NO_CAP`]: the scan decided, or
/// the heuristic ranks by completion alone).
pub(crate) use crate::serial::energy_sim::{EnergyCap as Cap, NO_ENERGY_CAP as NO_CAP};

/// Task `t`'s best valid, filtered option and its stage-2 score, and the options examined;
/// in `bounds` (empty, or one entry per machine type) an upper bound on
/// the stage-1 score of each type's valid, filtered options (`-inf`: none), for
/// `two_stage_lazy`'s re-choices.
///
/// The choice [`choose_scan`] makes, with less arithmetic (`choose_by_type`); the scan
/// itself when that does not apply.
///
/// In `cap` (if kept) the [`Cap`] the choice found, or [`NO_CAP`]. With `scan`, the caller
/// vouches that the view has not changed since it was last filled ([`TypeScan`]).
pub(super) fn choose_bounded(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    t: u32,
    bounds: &mut [f32],
    cap: Option<&mut Cap>,
    scan: Option<&mut TypeScan>,
) -> (Option<(Opt, f64)>, u64) {
    let mut found = NO_CAP;
    let r = choose_by_type(h, v, t, bounds, &mut found, scan).unwrap_or_else(|e| {
        found = NO_CAP;
        let (c, e2) = choose_scan(h, v, t, bounds);
        (c, e + e2)
    });
    if let Some(c) = cap {
        *c = found;
    }
    #[cfg(test)]
    tests::check_choice(h, v, t, &r.0, bounds);
    r
}

/// Whether `h`'s stage-1 score never falls as the utility grows, nor rises as the ETC, the
/// EEC or the completion grows, for any utility from a non-negative one down: each step of
/// Eq. 3-5 (a division by a positive constant or by the time or energy, a product by a
/// weight in [0, 1], a difference with the energy term) is monotone, and IEEE rounding keeps
/// a monotone step weakly monotone. A NaN is still possible (infinity times zero) and sends
/// the choice back to the scan.
fn monotone(h: EnergyHeuristic, n: &Normalisers) -> bool {
    let pos = |x: f64| x > 0.0 && x.is_finite();
    match h {
        EnergyHeuristic::MinMinComp
        | EnergyHeuristic::MaxMaxUtil
        | EnergyHeuristic::MaxMaxUpt
        | EnergyHeuristic::MaxMaxUpe => true,
        // Utility x ETC / EEC grows with the ETC: the per-type bounds do not hold; the scan
        // decides.
        EnergyHeuristic::MaxMaxUpp => false,
        EnergyHeuristic::WeightedUtil(w)
        | EnergyHeuristic::WeightedUpt(w)
        | EnergyHeuristic::WeightedUpe(w) => {
            (0.0..=1.0).contains(&w)
                && pos(n.max_utility)
                && pos(n.max_eec_j)
                && pos(n.min_eec_j)
                && pos(n.min_etc_s)
        }
        EnergyHeuristic::ArrivalOrder { .. } | EnergyHeuristic::Random => false,
    }
}

/// One machine type's options on its best machine, summed up: the earliest (end, P-state),
/// the shortest ETC and the smallest EEC (each over the options, not necessarily one
/// option's). Min-Min Comp and Max-Max Util sum up the valid, filtered options (and keep
/// the earliest); the others every option that starts before the day's end and passes the
/// filter, valid or not (more options: still bounds).
#[derive(Clone, Copy)]
struct TypeMins {
    j: u8,
    end: Micros,
    first: Option<Opt>,
    etc: Micros,
    eec: MilliJoules,
}

/// The part of a first choice ([`choose_by_type`]) that depends on the task's type alone:
/// each machine type's options summed up ([`TypeMins`]) and the earliest end over them, with
/// the options examined. Within one state of the view (no take between) it is the same for
/// every task of the type, so a caller choosing for many tasks at once (`first_choices`)
/// keeps one and visits the tasks by type.
pub(super) struct TypeScan {
    /// The task type it was filled for (`u16::MAX`: none yet).
    ty: u16,
    by_end: bool,
    evals: u64,
    types: heapless::Vec<TypeMins, MAX_SERIAL_MACHINE_TYPES>,
    first: Option<(Micros, Option<Opt>)>,
}

impl TypeScan {
    pub(super) const fn new() -> TypeScan {
        TypeScan {
            ty: u16::MAX,
            by_end: false,
            evals: 0,
            types: heapless::Vec::new(),
            first: None,
        }
    }

    /// Fills it for task type `ty` on `v`'s state: by end (Min-Min Comp and Max-Max Util)
    /// the valid, filtered options, else every option that starts before the day's end and
    /// passes the filter.
    fn fill(&mut self, v: &OptionView<'_>, ty: u16, by_end: bool) {
        let mut evals = 0u64;
        let mut types: heapless::Vec<TypeMins, MAX_SERIAL_MACHINE_TYPES> = heapless::Vec::new();
        // The earliest end over the types, and (by end) its option.
        let mut first: Option<(Micros, Option<Opt>)> = None;
        for j in 0..v.env.machine_types {
            let m = v.best_of(j);
            if m == NO_MACHINE || !v.env.runs(ty, j) {
                continue;
            }
            let base = v.power.base(&v.env, ty, j);
            let mut tm: Option<TypeMins> = None;
            for k in 0..v.power.pstates {
                evals += 1;
                let (end, etc, eec, o) = if by_end {
                    let Some(o) = v.valid_at(base, m, k).filter(|o| v.passes(o)) else {
                        continue;
                    };
                    (o.end, o.end - o.start, o.eec, Some(o))
                } else {
                    let Some((start, end, eec)) = v.candidate_at(base, m, k) else {
                        continue;
                    };
                    (end, end - start, eec, None)
                };
                match &mut tm {
                    None => {
                        tm = Some(TypeMins {
                            j,
                            end,
                            first: o,
                            etc,
                            eec,
                        })
                    }
                    Some(x) => {
                        // Same machine: (end, k) orders as (end, m, k).
                        if end < x.end {
                            x.end = end;
                            x.first = o;
                        }
                        x.etc = x.etc.min(etc);
                        x.eec = x.eec.min(eec);
                    }
                }
                if by_end && k == 0 {
                    break;
                }
            }
            if let Some(x) = tm {
                // Types in machine order: an equal end is kept by the lower machine.
                if first.is_none_or(|f| x.end < f.0) {
                    first = Some((x.end, x.first));
                }
                // At most one entry per type: it fits.
                let _ = types.push(x);
            }
        }
        *self = TypeScan {
            ty,
            by_end,
            evals,
            types,
            first,
        };
    }
}

/// [`choose_scan`]'s choice by machine type: one bound per type instead of one per option.
///
/// Min-Min Comp and Max-Max Util rank stage 1 by completion alone, and `-end_s` never rises
/// as the end grows, so their best is the least (end, m, k), found on integers; a type's
/// P-state 0 is its fastest, so once it is valid the type's other P-states cannot end
/// first. The other heuristics score each type at the utility of the earliest completion
/// over all types (no valid option completes earlier, so none earns more) with the type's
/// least ETC and EEC: by [`monotone`] no option of the type scores above that, so after the
/// best-bounded type only the types whose bound reaches the best so far are examined
/// ([`choose_type`], with that utility as a cap, checking validity only for an option that
/// could win). The best is the maximum of the same total order as the scan's, so the same
/// option. `Err(evals)`: a NaN or a negative utility, where the monotone steps do not hold;
/// the scan decides.
fn choose_by_type(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    t: u32,
    bounds: &mut [f32],
    found: &mut Cap,
    scan: Option<&mut TypeScan>,
) -> Result<(Option<(Opt, f64)>, u64), u64> {
    bounds.fill(f32::NEG_INFINITY);
    if !monotone(h, &v.norm) {
        return Err(0);
    }
    let by_end = matches!(h, EnergyHeuristic::MinMinComp | EnergyHeuristic::MaxMaxUtil);
    let task = &v.tasks[t as usize];
    let (ty, arrival) = (task.ty, task.arrival);
    let mut own = TypeScan::new();
    let scan = match scan {
        // Filled for another task type (or none yet): fill it for this one.
        Some(sc) if sc.ty == ty && sc.by_end == by_end => sc,
        Some(sc) => {
            sc.fill(v, ty, by_end);
            sc
        }
        None => {
            own.fill(v, ty, by_end);
            &mut own
        }
    };
    let (mut evals, types, first) = (scan.evals, &scan.types, scan.first);
    let Some((first_end, first)) = first else {
        return Ok((None, evals));
    };
    if by_end {
        // Stage 1 is `-end_s`: each type's bound is its earliest option's exact score.
        for x in types {
            if let Some(o) = &x.first {
                let (etc_s, eec_j, end_s) = parts(o, arrival);
                set_bound(bounds, x.j, h.stage1(&v.norm, 0.0, etc_s, eec_j, end_s));
            }
        }
        let Some(first) = first else {
            return Err(evals);
        };
        let key = match h {
            EnergyHeuristic::MaxMaxUtil => v.utility(t, first.end),
            _ => {
                let (etc_s, eec_j, end_s) = parts(&first, arrival);
                h.stage1(&v.norm, 0.0, etc_s, eec_j, end_s)
            }
        };
        return Ok((Some((first, key)), evals));
    }
    let u_up = v.utility(t, first_end);
    // Negative or NaN: the monotone steps need a utility of at least zero.
    if u_up
        .partial_cmp(&0.0)
        .is_none_or(|o| o == core::cmp::Ordering::Less)
    {
        return Err(evals);
    }
    *found = (first_end, u_up);
    let reads = reads(h);
    let mut tb = [f64::NEG_INFINITY; MAX_SERIAL_MACHINE_TYPES];
    let mut top = 0usize;
    for (i, x) in types.iter().enumerate() {
        let b = h.stage1(
            &v.norm,
            u_up,
            if reads.0 { x.etc.as_secs_f64() } else { 0.0 },
            if reads.1 { x.eec.as_joules_f64() } else { 0.0 },
            if reads.2 {
                (x.end - arrival).as_secs_f64()
            } else {
                0.0
            },
        );
        if b.is_nan() {
            return Err(evals);
        }
        tb[i] = b;
        if b > tb[top] {
            top = i;
        }
    }
    let mut best: Option<(Opt, f64)> = None;
    let cap = Some((first_end, u_up));
    for i in core::iter::once(top).chain((0..types.len()).filter(|&i| i != top)) {
        let j = types[i].j;
        // No option of the type scores above its bound: it cannot beat the best.
        if best.is_some_and(|(_, bs)| tb[i] < bs) {
            set_bound(bounds, j, tb[i]);
            continue;
        }
        let (c, e) = choose_type(h, v, t, j, best, cap);
        evals += e;
        if c.nan {
            return Err(evals);
        }
        set_bound(bounds, j, c.bound.min(tb[i]));
        if c.best.is_some() {
            best = c.best;
        }
    }
    // None: no option is valid (every type was examined).
    Ok((best, evals))
}

/// Type `j`'s bound in `bounds`, when it keeps them (empty: not).
#[inline]
fn set_bound(bounds: &mut [f32], j: u8, b: f64) {
    if let Some(x) = bounds.get_mut(j as usize) {
        *x = f32_above(b);
    }
}

/// The choice over every option: each option's score at the utility of the earliest
/// completion, then the options in turn, the highest first.
///
/// Every objective is non-decreasing in the utility, and no option earns more than the one
/// completing first, so an option whose score at that utility cannot beat the best so far
/// is skipped without evaluating its utility (the same choice, far fewer evaluations of the
/// curve); each type's bound is the highest of its options' tightest bounds on the way.
pub(super) fn choose_scan(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    t: u32,
    bounds: &mut [f32],
) -> (Option<(Opt, f64)>, u64) {
    bounds.fill(f32::NEG_INFINITY);
    // Filled as found: no cost for the capacity a task does not use.
    let mut cand: heapless::Vec<(Opt, f64), MAX_OPTIONS> = heapless::Vec::new();
    let mut evals = 0u64;
    let arrival = v.tasks[t as usize].arrival;
    let ty = v.tasks[t as usize].ty;
    let mut first = Micros::MAX;
    for j in 0..v.env.machine_types {
        let m = v.best_of(j);
        if m == NO_MACHINE || !v.env.runs(ty, j) {
            continue;
        }
        let base = v.power.base(&v.env, ty, j);
        for k in 0..v.power.pstates {
            evals += 1;
            let Some(o) = v.valid_at(base, m, k) else {
                continue;
            };
            if !v.passes(&o) {
                continue;
            }
            first = first.min(o.end);
            // At most one machine per type and MAX_SERIAL_PSTATES P-states: it fits.
            let _ = cand.push((o, 0.0));
        }
    }
    if cand.is_empty() {
        return (None, evals);
    }
    let needs_u = !matches!(h, EnergyHeuristic::MinMinComp | EnergyHeuristic::MaxMaxUtil);
    let u_up = if matches!(h, EnergyHeuristic::MinMinComp) {
        0.0
    } else {
        v.utility(t, first)
    };
    for c in cand.iter_mut() {
        let (etc_s, eec_j, end_s) = parts(&c.0, arrival);
        c.1 = h.stage1(&v.norm, u_up, etc_s, eec_j, end_s);
    }
    // The tightest upper bound known on each option's stage-1 score.
    let mut ub = [0.0f64; MAX_OPTIONS];
    for (b, c) in ub.iter_mut().zip(cand.iter()) {
        *b = c.1;
    }
    // The best is the maximum of a total order (score, then earlier (end, m, k): the (m, k)
    // differ), whatever the order of the visits; the highest bound goes first, so that the
    // bound prunes most of the others, which follow in their order of discovery.
    let order = |a: &(Opt, f64), b: &(Opt, f64)| {
        b.1.total_cmp(&a.1)
            .then_with(|| (a.0.end, a.0.m, a.0.k).cmp(&(b.0.end, b.0.m, b.0.k)))
    };
    let mut top = 0usize;
    for i in 1..cand.len() {
        if order(&cand[i], &cand[top]) == core::cmp::Ordering::Less {
            top = i;
        }
    }
    // The earliest completion's utility is known already.
    let u = |c: Micros| if c == first { u_up } else { v.utility(t, c) };
    let score = |o: &Opt, bound: f64| {
        if needs_u {
            let (etc_s, eec_j, end_s) = parts(o, arrival);
            h.stage1(&v.norm, u(o.end), etc_s, eec_j, end_s)
        } else {
            bound
        }
    };
    let (o, bound) = cand[top];
    let mut best: (Opt, f64) = (o, score(&o, bound));
    ub[top] = best.1;
    for (i, &(o, bound)) in cand.iter().enumerate() {
        let (b, bs1) = best;
        let tie = (o.end, o.m, o.k).cmp(&(b.end, b.m, b.k));
        // A score never exceeds its bound: this one cannot beat the best.
        if i == top || bound < bs1 || (bound == bs1 && tie == core::cmp::Ordering::Greater) {
            continue;
        }
        // A later interval of the curve bounds the utility lower, still without `exp`.
        if needs_u && o.end != first {
            let up = v.utility_upper(t, o.end);
            if up < u_up {
                let (etc_s, eec_j, end_s) = parts(&o, arrival);
                let b2 = h.stage1(&v.norm, up, etc_s, eec_j, end_s);
                ub[i] = b2;
                if b2 < bs1 || (b2 == bs1 && tie == core::cmp::Ordering::Greater) {
                    continue;
                }
            }
        }
        let s1 = score(&o, bound);
        ub[i] = s1;
        if s1 > bs1 || (s1 == bs1 && tie == core::cmp::Ordering::Less) {
            best = (o, s1);
        }
    }
    // Each type's options: the highest of their bounds.
    if !bounds.is_empty() {
        for (i, &(o, _)) in cand.iter().enumerate() {
            let x = &mut bounds[v.env.machine_type[o.m as usize] as usize];
            *x = x.max(f32_above(ub[i]));
        }
    }
    // Max-Max Util's stage 2 scores the chosen option's utility; the others score as stage 1.
    let (o, s1) = best;
    let key = match h {
        EnergyHeuristic::MaxMaxUtil if o.end == first => u_up,
        EnergyHeuristic::MaxMaxUtil => v.utility(t, o.end),
        _ => s1,
    };
    (Some((o, key)), evals)
}

/// Which of an option's ETC, EEC and completion (in seconds and joules) `h`'s stage 1
/// reads: the others are passed as zero, sparing their conversions (each a division).
fn reads(h: EnergyHeuristic) -> (bool, bool, bool) {
    match h {
        EnergyHeuristic::MinMinComp | EnergyHeuristic::MaxMaxUtil => (false, false, true),
        EnergyHeuristic::MaxMaxUpt => (true, false, false),
        EnergyHeuristic::MaxMaxUpe
        | EnergyHeuristic::WeightedUtil(_)
        | EnergyHeuristic::WeightedUpe(_) => (false, true, false),
        EnergyHeuristic::WeightedUpt(_) | EnergyHeuristic::MaxMaxUpp => (true, true, false),
        EnergyHeuristic::ArrivalOrder { .. } | EnergyHeuristic::Random => (true, true, true),
    }
}

/// Option `o`'s ETC and EEC and its completion since arrival `arrival`, in seconds and
/// joules, as the objectives take them.
#[inline]
fn parts(o: &Opt, arrival: Micros) -> (f64, f64, f64) {
    (
        (o.end - o.start).as_secs_f64(),
        o.eec.as_joules_f64(),
        (o.end - arrival).as_secs_f64(),
    )
}

/// The smallest `f32` at or above `x` (NaN: infinity, an upper bound on anything).
pub(super) fn f32_above(x: f64) -> f32 {
    let f = x as f32;
    if x.is_nan() {
        return f32::INFINITY;
    }
    if f as f64 >= x {
        return f;
    }
    // Rounded down, so `f` is finite or -inf: the next f32 up.
    if f == f32::NEG_INFINITY {
        f32::MIN
    } else if f == 0.0 {
        f32::from_bits(1)
    } else if f > 0.0 {
        f32::from_bits(f.to_bits() + 1)
    } else {
        f32::from_bits(f.to_bits() - 1)
    }
}

/// What [`choose_type`] found on one machine type.
pub(super) struct TypeChoice {
    /// The type's best option and its stage-1 score, if it beats the incumbent.
    pub best: Option<(Opt, f64)>,
    /// An upper bound on the stage-1 score of each of the type's valid, filtered options
    /// (`-inf`: none).
    pub bound: f64,
    /// A score was NaN, which [`choose_scan`] ranks its own way: choose over every type instead.
    pub nan: bool,
}

/// Task `t`'s best valid, filtered option on machine type `j` (on its best machine) and its
/// stage-1 score, if it beats `incumbent` as [`choose_bounded`] ranks them (higher score, then
/// earlier (end, m, k)); the options examined. An option whose score at the level that
/// starts its curve's interval cannot beat the best so far is not evaluated (no `exp`).
/// With `cap`, (c, u): task `t` earns `u` completing at `c`, and no option completes
/// earlier, so `u` bounds every option's utility too.
///
/// Min-Min Comp and Max-Max Util score stage 1 by completion alone (`-end_s`, never rising
/// as the end grows): the type's best is its least (end, k), and its P-state 0 is its
/// fastest, so once that one is valid the others are not looked at.
pub(super) fn choose_type(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    t: u32,
    j: u8,
    incumbent: Option<(Opt, f64)>,
    cap: Option<(Micros, f64)>,
) -> (TypeChoice, u64) {
    let mut r = TypeChoice {
        best: None,
        bound: f64::NEG_INFINITY,
        nan: false,
    };
    let task = &v.tasks[t as usize];
    let m = v.best_of(j);
    if m == NO_MACHINE || !v.env.runs(task.ty, j) {
        return (r, 0);
    }
    let base = v.power.base(&v.env, task.ty, j);
    let mut best = incumbent;
    let mut evals = 0u64;
    let wins = |s: f64, o: (Micros, u16, u8), best: &Option<(Opt, f64)>| {
        best.is_none_or(|(b, bs)| s > bs || (s == bs && o < (b.end, b.m, b.k)))
    };
    if matches!(h, EnergyHeuristic::MinMinComp | EnergyHeuristic::MaxMaxUtil) {
        let mut first: Option<Opt> = None;
        for k in 0..v.power.pstates {
            evals += 1;
            let Some(o) = v.valid_at(base, m, k) else {
                continue;
            };
            if !v.passes(&o) {
                continue;
            }
            if first.is_none_or(|f| o.end < f.end) {
                first = Some(o);
            }
            if k == 0 {
                break;
            }
        }
        if let Some(o) = first {
            let (etc_s, eec_j, end_s) = parts(&o, task.arrival);
            let s1 = h.stage1(&v.norm, 0.0, etc_s, eec_j, end_s);
            if s1.is_nan() {
                r.nan = true;
                return (r, evals);
            }
            r.bound = s1;
            if wins(s1, (o.end, o.m, o.k), &best) {
                r.best = Some((o, s1));
            }
        }
        return (r, evals);
    }
    // Each option's bound first, from its times and energy; its validity only if it could
    // win (an invalid option's bound is still a bound).
    let reads = reads(h);
    for k in 0..v.power.pstates {
        evals += 1;
        let Some((start, end, eec)) = v.candidate_at(base, m, k) else {
            continue;
        };
        let etc_s = if reads.0 {
            (end - start).as_secs_f64()
        } else {
            0.0
        };
        let eec_j = if reads.1 { eec.as_joules_f64() } else { 0.0 };
        let end_s = if reads.2 {
            (end - task.arrival).as_secs_f64()
        } else {
            0.0
        };
        let (o, s1) = match cap {
            // The capping utility is this option's own.
            Some((c, u)) if end == c => {
                let Some(o) = v.valid_at(base, m, k) else {
                    continue;
                };
                (o, h.stage1(&v.norm, u, etc_s, eec_j, end_s))
            }
            _ => {
                let mut up = v.utility_upper(t, end);
                if let Some((_, u)) = cap {
                    up = up.min(u);
                }
                if up.is_finite() {
                    let b = h.stage1(&v.norm, up, etc_s, eec_j, end_s);
                    if b.is_nan() {
                        r.nan = true;
                        return (r, evals);
                    }
                    if !wins(b, (end, m, k), &best) {
                        r.bound = r.bound.max(b);
                        continue;
                    }
                }
                let Some(o) = v.valid_at(base, m, k) else {
                    continue;
                };
                (o, h.stage1(&v.norm, v.utility(t, end), etc_s, eec_j, end_s))
            }
        };
        if s1.is_nan() {
            r.nan = true;
            return (r, evals);
        }
        r.bound = r.bound.max(s1);
        if wins(s1, (end, m, k), &best) {
            best = Some((o, s1));
            r.best = best;
        }
    }
    (r, evals)
}

impl EScratch<'_> {
    /// The better of slots `a` and `b`: higher score, then earlier task.
    #[inline]
    pub(super) fn better(&self, a: u32, b: u32) -> u32 {
        if a == NONE {
            return b;
        }
        if b == NONE {
            return a;
        }
        let (ka, kb) = (self.key[a as usize], self.key[b as usize]);
        if ka > kb || (ka == kb && self.slots[a as usize] < self.slots[b as usize]) {
            a
        } else {
            b
        }
    }

    /// The tournament over `slots[..n]`: each slot's first choice by `choose` (whether it
    /// has an option), then every match above the leaves.
    pub(super) fn seed_tree(&mut self, n: usize, mut choose: impl FnMut(&mut Self, usize) -> bool) {
        for s in 0..n {
            let active = choose(self, s);
            self.tree[n + s] = if active { s as u32 } else { NONE };
        }
        for p in (1..n).rev() {
            self.tree[p] = self.better(self.tree[2 * p], self.tree[2 * p + 1]);
        }
    }

    pub(super) fn set_leaf(&mut self, n: usize, s: usize, active: bool) {
        let mut p = n + s;
        self.tree[p] = if active { s as u32 } else { NONE };
        p >>= 1;
        while p >= 1 {
            let w = self.better(self.tree[2 * p], self.tree[2 * p + 1]);
            // The same winner, not the changed slot, with its same key: nothing above changes.
            if w == self.tree[p] && w != s as u32 {
                break;
            }
            self.tree[p] = w;
            p >>= 1;
        }
    }

    fn link(&mut self, heads: &mut [u32], s: usize, m: u16) {
        let h = heads[m as usize];
        self.next[s] = h;
        self.prev[s] = NONE;
        if h != NONE {
            self.prev[h as usize] = s as u32;
        }
        heads[m as usize] = s as u32;
    }

    fn unlink(&mut self, heads: &mut [u32], s: usize) {
        let m = unpack(self.choice[s]).0;
        let (p, x) = (self.prev[s], self.next[s]);
        if p == NONE {
            heads[m as usize] = x;
        } else {
            self.next[p as usize] = x;
        }
        if x != NONE {
            self.prev[x as usize] = p;
        }
    }
}

/// Task `t`'s choice again after its option on machine type `j` moved (its machine was
/// taken, or it no longer fits the energy left), `bounds` holding one upper bound per type
/// on its options' stage-1 scores. Type `j` goes first, then only the types whose bound
/// does not fall below the best found so far: the best found then scores above every type
/// left, so it is the option a choice over every type finds, whatever the tie order. Each
/// examined type's bound is renewed: the lesser of the old and the new, since both hold (the
/// type's options only worsened since the old was set, or it was lifted to infinity). With
/// `cap` (the task's [`Cap`] at its last choice over every type, a NaN utility: none), every
/// option's utility is capped as in that choice. `None`: no option found, or a NaN; a
/// choice over every type decides then.
pub(super) fn choose_again(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    t: u32,
    j: u8,
    bounds: &mut [f32],
    cap: Cap,
    evals: &mut u64,
) -> Option<(Opt, f64)> {
    #[cfg(test)]
    tests::check_cap(v, t, cap);
    let cap = (!cap.1.is_nan()).then_some(cap);
    let mut best: Option<(Opt, f64)> = None;
    let types = v.env.machine_types;
    for x in core::iter::once(j).chain((0..types).filter(|&y| y != j)) {
        let bx = bounds[x as usize];
        if x != j && (bx == f32::NEG_INFINITY || best.is_some_and(|(_, bs)| (bx as f64) < bs)) {
            continue;
        }
        let (c, e) = choose_type(h, v, t, x, best, cap);
        *evals += e;
        if c.nan {
            return None;
        }
        bounds[x as usize] = bx.min(f32_above(c.bound));
        if c.best.is_some() {
            best = c.best;
        }
    }
    let (o, s1) = best?;
    // Max-Max Util's stage 2 scores the chosen option's utility.
    let key = match h {
        EnergyHeuristic::MaxMaxUtil => v.utility(t, o.end),
        _ => s1,
    };
    Some((o, key))
}

/// A slot's `choice` after [`first_choices`] when it has no option.
pub(super) const NO_CHOICE: u32 = u32::MAX;

/// Every slot's first choice over every type on the view as it is (no take between them):
/// `sc.choice[s]` (`pack`) and `sc.key[s]`, or [`NO_CHOICE`]; each slot's bounds (`w` a
/// slot, 0: none) and cap as [`choose_bounded`] keeps them. Returns the options examined.
///
/// The choices do not depend on the order they are made in, so they are made by task type
/// (the slots' order kept in `sc.tree[..n]`, free until the tree is seeded) and the tasks
/// of a type share one [`TypeScan`].
pub(super) fn first_choices(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    w: usize,
) -> u64 {
    let order = &mut sc.tree[..n];
    for (i, x) in order.iter_mut().enumerate() {
        *x = i as u32;
    }
    let slots = &*sc.slots;
    order.sort_unstable_by_key(|&s| v.tasks[slots[s as usize] as usize].ty);
    let mut scan = TypeScan::new();
    let mut evals = 0u64;
    for i in 0..n {
        let s = sc.tree[i] as usize;
        let t = sc.slots[s];
        let (b, cap) = sc.kept(s, w);
        let (c, e) = choose_bounded(h, v, t, b, cap, Some(&mut scan));
        evals += e;
        match c {
            Some((o, k)) => {
                sc.choice[s] = pack(o.m, o.k);
                sc.key[s] = k;
            }
            None => sc.choice[s] = NO_CHOICE,
        }
    }
    evals
}

/// Re-chooses slot `s` (unlinked): links it under its new machine, or reports it as having
/// no option. Returns whether it is still active, and the options examined. With `moved`,
/// the type whose option moved, and a bound per type kept for the slot (`w` a slot), only
/// the types [`choose_again`] needs are examined.
#[allow(clippy::too_many_arguments)]
fn rechoose(
    h: EnergyHeuristic,
    v: &OptionView<'_>,
    sc: &mut EScratch<'_>,
    heads: &mut [u32],
    s: usize,
    moved: Option<u8>,
    w: usize,
    out: &mut dyn FnMut(u32, Decision),
) -> (bool, u64) {
    let t = sc.slots[s];
    let (b, cap) = sc.kept(s, w);
    let mut evals = 0u64;
    let again = match moved {
        Some(j) if !b.is_empty() => {
            let c = cap.as_deref().copied().unwrap_or(NO_CAP);
            choose_again(h, v, t, j, b, c, &mut evals)
        }
        _ => None,
    };
    let c = match again {
        Some(c) => Some(c),
        None => {
            let (c, e) = choose_bounded(h, v, t, b, cap, None);
            evals += e;
            c
        }
    };
    match c {
        Some((o, k)) => {
            sc.choice[s] = pack(o.m, o.k);
            sc.key[s] = k;
            sc.link(heads, s, o.m);
            (true, evals)
        }
        None => {
            out(t, Err(v.why_none(t)));
            (false, evals)
        }
    }
}

/// The eager pass: every task whose machine was taken is chosen again at once, over every
/// type (the reference the tests hold the other passes to).
#[cfg(test)]
pub(super) fn run(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    run_with(h, v, sc, n, None, out)
}

/// [`run`], the re-choices by machine type ([`choose_again`]) when `sc.bounds` holds a bound
/// per type for every slot: the same decisions. A take moves only its type's best machine
/// and spends energy, so the other types' options only worsen and the bounds stay bounds,
/// but for one case: when the type's new earliest start lets one of its options run across
/// the day's end (`crosses_after`, `longest` each type's longest run among the tasks), a
/// share moves to tomorrow and an option refused today could fit; every slot's bound on
/// that type is then lifted to infinity, so that its next re-choice examines the type.
pub(super) fn run_bounded(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    longest: &[Micros],
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    run_with(h, v, sc, n, Some(longest), out)
}

/// Whether, after a take of an option starting at `before` on type `j`, an option on the
/// type's best machine could run across the day's end; never if the type's earliest start
/// is still `before` (its options did not move).
pub(super) fn crosses_after(
    v: &OptionView<'_>,
    longest: &[Micros],
    j: u8,
    before: Option<Micros>,
) -> bool {
    let b = v.best_of(j);
    if b == NO_MACHINE {
        return false;
    }
    let r = v.ready(b);
    let de = v.day_end();
    before != Some(r) && r < de && r.saturating_add(longest[j as usize]) > de
}

fn run_with(
    h: EnergyHeuristic,
    v: &mut OptionView<'_>,
    sc: &mut EScratch<'_>,
    n: usize,
    longest: Option<&[Micros]>,
    out: &mut dyn FnMut(u32, Decision),
) -> u64 {
    if n == 0 {
        return 0;
    }
    let w = v.env.machine_types as usize;
    // Bounds only with the scratch for them and each type's longest run.
    let by_type = longest.is_some() && sc.bounds.len() >= n * w;
    let w = if by_type { w } else { 0 };
    let mut heads = [NONE; MAX_SERIAL_MACHINES];
    let mut evals = 0u64;
    evals += first_choices(h, v, sc, n, w);
    sc.seed_tree(n, |sc, s| {
        let c = sc.choice[s];
        if c == NO_CHOICE {
            let t = sc.slots[s];
            out(t, Err(v.why_none(t)));
            return false;
        }
        sc.link(&mut heads, s, unpack(c).0);
        true
    });
    loop {
        let root = sc.tree[1];
        if root == NONE {
            return evals;
        }
        let s = root as usize;
        let t = sc.slots[s];
        let (m, k) = unpack(sc.choice[s]);
        let j = v.env.machine_type[m as usize];
        sc.unlink(&mut heads, s);
        // Its option may no longer fit the energy left: choose again.
        let Some(o) = v.valid(t, m, k) else {
            let (active, e) = rechoose(h, v, sc, &mut heads, s, Some(j), w, out);
            evals += e;
            sc.set_leaf(n, s, active);
            continue;
        };
        v.take(&o);
        out(t, Ok(o));
        sc.set_leaf(n, s, false);
        if let Some(l) = longest.filter(|_| by_type) {
            if crosses_after(v, l, j, Some(o.start)) {
                for b in sc.bounds[..n * w].iter_mut().skip(j as usize).step_by(w) {
                    *b = f32::INFINITY;
                }
            }
        }
        // Re-choose the tasks whose choice was `m`; the others' choices still stand.
        let mut x = heads[m as usize];
        heads[m as usize] = NONE;
        while x != NONE {
            let nx = sc.next[x as usize];
            let (active, e) = rechoose(h, v, sc, &mut heads, x as usize, Some(j), w, out);
            evals += e;
            sc.set_leaf(n, x as usize, active);
            x = nx;
        }
    }
}

#[cfg(test)]
#[path = "two_stage_tests.rs"]
pub(super) mod tests;

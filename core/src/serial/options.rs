//! What an energy-constrained heuristic sees at a mapping event: the (task, machine,
//! P-state) options and whether each is allowed.
//!
//! An option is invalid (§3.3.1) if the machine cannot run the task, if it would start at or
//! after the day's end, or if its energy would take today's or tomorrow's ledger past its
//! budget (a run across the day's edge charges each day its share, `energy::window_share`),
//! counting this event's earlier choices. A valid option is filtered out if its EEC is above
//! the event's filter budget. The heuristics use this view; it knows no heuristic.
//!
//! Machines of a type run a task alike, so the earliest-ready machine of a type (lower index
//! on ties) is the best of the type for every objective here; a query looks at one machine
//! per type. In the polled environment a busy machine, or one that took a task in this
//! event, is unavailable (ready at [`Micros::MAX`]).

use super::energy_heuristic::Normalisers;
use super::env::{SerialEnv, SerialTask, MAX_SERIAL_MACHINES, MAX_SERIAL_MACHINE_TYPES};
use super::pstate::PowerModel;
use crate::energy::window_share;
use crate::units::{Micros, MilliJoules};
use crate::utility::{UtilityClasses, UtilityCurve};
use heapless::Vec;

/// No machine.
pub(crate) const NO_MACHINE: u16 = u16::MAX;

/// One allocation option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Opt {
    pub m: u16,
    pub k: u8,
    pub start: Micros,
    pub end: Micros,
    pub eec: MilliJoules,
    /// Today's and tomorrow's shares of `eec`.
    pub today: MilliJoules,
    pub tomorrow: MilliJoules,
}

/// Why a task has no option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoOption {
    /// Every valid option is filtered out: the task stays for the next event. Polled: any
    /// task without an option (it waits for the next event whatever the reason).
    Filtered,
    /// No option is valid (none starts today within the energy left): postpone it.
    Invalid,
}

#[derive(Clone)]
pub(crate) struct OptionView<'v> {
    pub env: SerialEnv<'v>,
    pub power: PowerModel<'v>,
    pub tasks: &'v [SerialTask],
    pub norm: Normalisers,
    day: (Micros, Micros),
    next_day_end: Micros,
    ready: Vec<Micros, MAX_SERIAL_MACHINES>,
    start: Vec<u16, { MAX_SERIAL_MACHINE_TYPES + 1 }>,
    best: Vec<u16, MAX_SERIAL_MACHINE_TYPES>,
    polled: bool,
    /// Energy left today and tomorrow, this event's choices included.
    pub left_today: MilliJoules,
    pub left_tomorrow: MilliJoules,
    /// The largest EEC that passes the filter, millijoules (`None`: nothing passes).
    passing_mj: Option<u64>,
}

impl<'v> OptionView<'v> {
    /// A view of day `day` (tomorrow ends at `next_day_end`); machine `m` is ready at
    /// `ready(m)` ([`Micros::MAX`]: unavailable).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        env: SerialEnv<'v>,
        power: PowerModel<'v>,
        tasks: &'v [SerialTask],
        norm: Normalisers,
        day: (Micros, Micros),
        next_day_end: Micros,
        polled: bool,
        ready: impl Fn(usize) -> Micros,
    ) -> OptionView<'v> {
        let mut v = OptionView {
            env,
            power,
            tasks,
            norm,
            day,
            next_day_end,
            ready: Vec::new(),
            start: Vec::new(),
            best: Vec::new(),
            polled,
            left_today: MilliJoules::ZERO,
            left_tomorrow: MilliJoules::ZERO,
            passing_mj: Some(u64::MAX),
        };
        // Capacities hold: SerialEnv::check bounds machines and types.
        for m in 0..env.machine_type.len() {
            let _ = v.ready.push(ready(m));
        }
        let mut m = 0usize;
        for j in 0..env.machine_types {
            let _ = v.start.push(m as u16);
            while m < env.machine_type.len() && env.machine_type[m] == j {
                m += 1;
            }
            let _ = v.best.push(NO_MACHINE);
        }
        let _ = v.start.push(m as u16);
        for j in 0..env.machine_types {
            v.refresh(j);
        }
        v
    }

    fn refresh(&mut self, j: u8) {
        let (a, b) = (self.start[j as usize], self.start[j as usize + 1]);
        let mut best = NO_MACHINE;
        for m in a..b {
            let r = self.ready[m as usize];
            if r != Micros::MAX && (best == NO_MACHINE || r < self.ready[best as usize]) {
                best = m;
            }
        }
        self.best[j as usize] = best;
    }

    /// The end of the view's day: an option starting at or after it is invalid.
    #[inline]
    pub fn day_end(&self) -> Micros {
        self.day.1
    }

    /// Whether a take makes its machine unavailable (polled) rather than ready later.
    #[inline]
    pub fn polled(&self) -> bool {
        self.polled
    }

    /// Whether any machine is available.
    pub fn any_available(&self) -> bool {
        self.best.iter().any(|&m| m != NO_MACHINE)
    }

    /// The earliest-ready available machine of type `j`.
    #[inline]
    pub fn best_of(&self, j: u8) -> u16 {
        self.best[j as usize]
    }

    /// When machine `m` is ready ([`Micros::MAX`]: unavailable).
    #[inline]
    pub fn ready(&self, m: u16) -> Micros {
        self.ready[m as usize]
    }

    /// Task `t` on machine `m` in P-state `k`, if valid (ignoring the filter).
    pub fn valid(&self, t: u32, m: u16, k: u8) -> Option<Opt> {
        let ty = self.tasks[t as usize].ty;
        let j = self.env.machine_type[m as usize];
        self.valid_at(self.power.base(&self.env, ty, j), m, k)
    }

    /// [`OptionView::valid`] for the task type whose (type of `m`, P-state 0) entry is at
    /// table index `base` ([`PowerModel::base`]): a pass over one task's P-states finds the
    /// index once.
    #[inline]
    pub fn valid_at(&self, base: usize, m: u16, k: u8) -> Option<Opt> {
        let i = base + k as usize;
        let etc = self.power.etc[i];
        let start = self.ready[m as usize];
        if etc == Micros::MAX || start >= self.day.1 {
            return None;
        }
        let end = start.saturating_add(etc);
        let eec = self.power.eec_at(i);
        let today = window_share(eec, start, end, self.day.0, self.day.1);
        let tomorrow = window_share(eec, start, end, self.day.1, self.next_day_end);
        if today > self.left_today || tomorrow > self.left_tomorrow {
            return None;
        }
        Some(Opt {
            m,
            k,
            start,
            end,
            eec,
            today,
            tomorrow,
        })
    }

    /// The start, end and EEC of the option at table index `base` plus `k` on machine `m`
    /// ([`OptionView::valid_at`]), if the machine runs it, it starts before the day's end
    /// and it passes the filter; whether its energy fits is not checked.
    #[inline]
    pub fn candidate_at(
        &self,
        base: usize,
        m: u16,
        k: u8,
    ) -> Option<(Micros, Micros, MilliJoules)> {
        let i = base + k as usize;
        let etc = self.power.etc[i];
        let start = self.ready[m as usize];
        if etc == Micros::MAX || start >= self.day.1 {
            return None;
        }
        let eec = self.power.eec_at(i);
        if self.passing_mj.is_none_or(|x| eec.0 > x) {
            return None;
        }
        Some((start, start.saturating_add(etc), eec))
    }

    /// Sets the filter's budget in joules (infinite: no filter). An option passes if its EEC
    /// in joules, [`MilliJoules::as_joules_f64`], is at most the budget.
    pub fn set_filter_budget(&mut self, budget_j: f64) {
        self.passing_mj = largest_passing(budget_j);
    }

    /// Whether option `o` passes the filter.
    #[inline]
    pub fn passes(&self, o: &Opt) -> bool {
        self.passing_mj.is_some_and(|x| o.eec.0 <= x)
    }

    /// Task `t`'s utility if it completes at `c`.
    pub fn utility(&self, t: u32, c: Micros) -> f64 {
        let task = &self.tasks[t as usize];
        // Curves were checked by SerialEnv::check (every task's once), so evaluation cannot
        // fail and the checks need not be repeated.
        task.curve
            .value_after_check(c.saturating_sub(task.arrival), self.env.classes)
            .unwrap_or(0.0)
    }

    /// An upper bound on [`OptionView::utility`] without an exponential: the level at the
    /// start of the curve's interval holding `c` (the evaluated curve is clamped to it, so
    /// the bound is exact, not rounded); infinity for a curve of another shape.
    #[inline]
    pub fn utility_upper(&self, t: u32, c: Micros) -> f64 {
        let task = &self.tasks[t as usize];
        utility_bounds(
            &task.curve,
            self.env.classes,
            c.saturating_sub(task.arrival),
        )
        .1
    }

    /// Task `t`'s starting utility (its priority's).
    pub fn priority(&self, t: u32) -> f64 {
        self.utility(t, self.tasks[t as usize].arrival)
    }

    /// Machine `m` takes option `o`: its ready time moves to the option's end (polled: it is
    /// no longer available) and the ledgers are charged.
    pub fn take(&mut self, o: &Opt) {
        self.ready[o.m as usize] = if self.polled { Micros::MAX } else { o.end };
        self.left_today = self.left_today.saturating_sub(o.today);
        self.left_tomorrow = self.left_tomorrow.saturating_sub(o.tomorrow);
        self.refresh(self.env.machine_type[o.m as usize]);
    }

    /// Why task `t` has no valid option passing the filter on its types' best machines.
    /// Polled, always [`NoOption::Filtered`]: a polled task is never postponed (§4.3.1), so
    /// the reason changes nothing, and one verdict at every moment of an event lets a lazy
    /// pass report it when it likes.
    pub fn why_none(&self, t: u32) -> NoOption {
        if self.polled {
            return NoOption::Filtered;
        }
        for j in 0..self.env.machine_types {
            let m = self.best[j as usize];
            if m == NO_MACHINE {
                continue;
            }
            for k in 0..self.power.pstates {
                if self.valid(t, m, k).is_some() {
                    return NoOption::Filtered;
                }
            }
        }
        NoOption::Invalid
    }
}

/// Bounds `(lower, upper)` on `curve.value_at(age, classes)` without an exponential: a
/// piecewise-exponential curve is clamped to the levels at the start and end of the interval
/// holding `age` (Psi(k) and Psi(k+1) times the priority, computed as the curve computes
/// them), so both bounds are exact; `(-inf, inf)` for a curve of another shape or an
/// unknown class.
#[inline]
pub(crate) fn utility_bounds(
    curve: &UtilityCurve,
    classes: &UtilityClasses,
    age: Micros,
) -> (f64, f64) {
    let UtilityCurve::PiecewiseExp {
        priority,
        first,
        class,
        ..
    } = *curve
    else {
        return (f64::NEG_INFINITY, f64::INFINITY);
    };
    let Ok(class) = classes.get(class) else {
        return (f64::NEG_INFINITY, f64::INFINITY);
    };
    if age < first {
        return (priority, priority);
    }
    let dt = age - first;
    match class.intervals.iter().rposition(|iv| iv.offset <= dt) {
        Some(k) => {
            let next = class.intervals.get(k + 1).map_or(0.0, |n| n.psi);
            (next * priority, class.intervals[k].psi * priority)
        }
        None => (priority, priority),
    }
}

/// The largest `e` whose joules, `MilliJoules(e).as_joules_f64()`, are at most `budget_j`
/// (`None`: not even zero's). The conversion never decreases as `e` grows, so "passes" is
/// exactly `e` at most this, an integer comparison per option instead of a division.
fn largest_passing(budget_j: f64) -> Option<u64> {
    let ok = |e: u64| MilliJoules(e).as_joules_f64() <= budget_j;
    if !ok(0) {
        return None;
    }
    if ok(u64::MAX) {
        return Some(u64::MAX);
    }
    // ok(lo) and !ok(hi) throughout.
    let (mut lo, mut hi) = (0u64, u64::MAX);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::utility::{Urgency, UtilityClasses};

    #[test]
    fn the_utility_bounds_hold_the_curve_and_the_upper_never_rises() {
        let classes = UtilityClasses::essc20();
        let etc = [Micros::from_mins(10)];
        let env = SerialEnv {
            machine_type: &[0],
            machine_types: 1,
            special_types: 0,
            etc: &etc,
            classes: &classes,
        };
        let power = PowerModel {
            pstates: 1,
            etc: &etc,
            apc_mw: &[1000],
        };
        let tasks: heapless::Vec<SerialTask, 20> = (0..20u8)
            .map(|c| SerialTask {
                ty: 0,
                arrival: Micros::from_mins(3),
                curve: UtilityCurve::essc(8.0, Urgency::ALL[c as usize % 4], etc[0], c),
            })
            .collect();
        let norm = Normalisers {
            max_utility: 8.0,
            max_eec_j: 1.0,
            min_eec_j: 1.0,
            min_etc_s: 1.0,
        };
        let day = (Micros::ZERO, Micros::from_hours(24));
        let v = OptionView::new(env, power, &tasks, norm, day, day.1, false, |_| {
            Micros::ZERO
        });
        for t in 0..tasks.len() as u32 {
            let mut last = f64::INFINITY;
            for i in 0..40_000u64 {
                let c = Micros(i * 37_000_000);
                let (u, up) = (v.utility(t, c), v.utility_upper(t, c));
                assert!(u <= up, "task {t} at {c:?}: {u} above {up}");
                let task = &tasks[t as usize];
                let lo = utility_bounds(&task.curve, &classes, c.saturating_sub(task.arrival)).0;
                assert!(lo <= u, "task {t} at {c:?}: {u} below {lo}");
                assert!(up <= last, "task {t} at {c:?}: the bound rose");
                last = up;
            }
        }
    }

    #[test]
    fn the_integer_threshold_passes_what_the_joules_comparison_passes() {
        for b in [0.0, 0.0005, 0.001, 1.0, 75_000.0, 123_456.789, 1e15, 1e300] {
            let x = largest_passing(b).unwrap();
            assert!(MilliJoules(x).as_joules_f64() <= b, "{b}");
            if x < u64::MAX {
                assert!(MilliJoules(x + 1).as_joules_f64() > b, "{b}");
            }
        }
        assert_eq!(largest_passing(75_000.0), Some(75_000_000));
        assert_eq!(largest_passing(f64::INFINITY), Some(u64::MAX));
        assert_eq!(largest_passing(-1.0), None);
        assert_eq!(largest_passing(f64::NAN), None);
    }
}

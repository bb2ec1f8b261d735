//! Energy: the day's ledger against its budget, and the energy filters.
//!
//! This module owns the energy ledger of one day (consumed, committed, and the budget they
//! must stay within), the share of a run's energy that falls inside the day's window, and the
//! energy filters that decide which allocation options a heuristic may consider: seed 000
//! §III.G's energy-per-task (Eq. 6-8) and energy-per-resource (Eq. 9) filters, and seed 002
//! §4.3.3's adaptive filter (Eq. 9-11), adapted here to parallel tasks.
//!
//! The ledger is integer millijoules, so its totals are exact and order-independent (MODEL.md).
//! The filters compute a budget in `f64` with `+ - * /` only: they feed decisions, never a
//! ledger, and these operations round identically on every IEEE-754 machine.

use crate::limits::{MAX_CLUSTERS, MAX_PSTATES, MAX_TASK_TYPES};
use crate::platform::{ClusterId, PState, Platform, TaskType, TaskTypeId};
use crate::units::{CoreMicros, Micros, MilliJoules};
use crate::utility::window_part;
use core::fmt;
use core::str::FromStr;
use serde::{Deserialize, Serialize};

/// A commitment the ledger refused: it would have taken the day past its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OverBudget {
    /// The energy asked for.
    pub requested: MilliJoules,
    /// What the ledger had left.
    pub remaining: MilliJoules,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "over the energy budget: {} mJ asked, {} mJ remaining",
            self.requested.0, self.remaining.0
        )
    }
}

impl core::error::Error for OverBudget {}

/// The energy of one day: what has been consumed and what running or reserved tasks are
/// committed to, which together never exceed the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EnergyLedger {
    budget: MilliJoules,
    consumed: MilliJoules,
    committed: MilliJoules,
}

impl EnergyLedger {
    /// An empty ledger with this budget; an unconstrained run uses [`MilliJoules::MAX`].
    pub const fn new(budget: MilliJoules) -> EnergyLedger {
        EnergyLedger {
            budget,
            consumed: MilliJoules::ZERO,
            committed: MilliJoules::ZERO,
        }
    }
    /// The budget E.
    pub const fn budget(&self) -> MilliJoules {
        self.budget
    }
    /// Whether the budget is unlimited ([`MilliJoules::MAX`]), which turns every filter off.
    pub const fn is_unlimited(&self) -> bool {
        self.budget.0 == u64::MAX
    }
    /// Energy of finished tasks (e_cons).
    pub const fn consumed(&self) -> MilliJoules {
        self.consumed
    }
    /// Energy that running and reserved tasks are committed to (e_unmov).
    pub const fn committed(&self) -> MilliJoules {
        self.committed
    }
    /// What may still be committed: budget - consumed - committed (never below zero).
    pub const fn remaining(&self) -> MilliJoules {
        self.budget
            .saturating_sub(self.consumed)
            .saturating_sub(self.committed)
    }
    /// Whether `e` more can be committed without exceeding the budget.
    pub const fn can_afford(&self, e: MilliJoules) -> bool {
        e.0 <= self.remaining().0
    }
    /// Commits `e` for a task that starts or is reserved; refuses, changing nothing, if it
    /// would take consumed + committed past the budget.
    pub fn commit(&mut self, e: MilliJoules) -> Result<(), OverBudget> {
        if !self.can_afford(e) {
            return Err(OverBudget {
                requested: e,
                remaining: self.remaining(),
            });
        }
        // Cannot overflow: consumed + committed + e <= budget <= u64::MAX.
        self.committed += e;
        Ok(())
    }
    /// A task finished: its `committed` energy leaves the commitments and its `actual` energy
    /// (no more than committed: an early completion uses less) becomes consumed.
    ///
    /// A task never consumes more than it committed, so `actual` is capped at what left the
    /// commitments (a caller's integer rounding cannot break consumed + committed <= budget),
    /// and `committed` is capped at what is committed.
    pub fn settle(&mut self, committed: MilliJoules, actual: MilliJoules) {
        let c = if committed < self.committed {
            committed
        } else {
            self.committed
        };
        let a = if actual < c { actual } else { c };
        self.committed = self.committed.saturating_sub(c);
        self.consumed += a;
    }
    /// Committed energy returned unused (a reservation or place-holder removed), capped at
    /// what is committed.
    pub fn release(&mut self, e: MilliJoules) {
        self.committed = self.committed.saturating_sub(e);
    }
}

/// The energy of a run over `[start, end)` that falls inside the day's window `[w0, w1)`:
/// the ledger counts the day's energy, so a run across the window's edge counts its share,
/// as utility does ([`crate::utility::prorate`]). Exact in integers: the shares of adjacent
/// windows add up to `total`; a zero-length run counts wholly or not at all, by its end.
pub fn window_share(
    total: MilliJoules,
    start: Micros,
    end: Micros,
    w0: Micros,
    w1: Micros,
) -> MilliJoules {
    MilliJoules(window_part(total.0, start, end, w0, w1))
}

/// Which energy filter a heuristic runs behind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FilterKind {
    /// No filter: every option passes.
    #[default]
    None,
    /// Energy-per-task (seed 000 Eq. 6-8).
    PerTask,
    /// Energy-per-resource (seed 000 Eq. 9).
    PerResource,
    /// Adaptive energy-per-task (seed 002 Eq. 9-11, over resources).
    Adaptive,
}

impl FilterKind {
    /// Every kind, in declaration order.
    pub const ALL: [FilterKind; 4] = [
        FilterKind::None,
        FilterKind::PerTask,
        FilterKind::PerResource,
        FilterKind::Adaptive,
    ];

    /// The name used in configuration files and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            FilterKind::None => "none",
            FilterKind::PerTask => "per-task",
            FilterKind::PerResource => "per-resource",
            FilterKind::Adaptive => "adaptive",
        }
    }

    /// The leniency MODEL.md gives this filter: 2.0 per task, 4.0 per resource, 1.0 otherwise
    /// (the adaptive filter's lambda replaces a tuned leniency).
    pub const fn default_leniency(self) -> f64 {
        match self {
            FilterKind::PerTask => 2.0,
            FilterKind::PerResource => 4.0,
            FilterKind::None | FilterKind::Adaptive => 1.0,
        }
    }
}

impl fmt::Display for FilterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A filter name that is not one of none, per-task, per-resource, adaptive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseFilterKindError;

impl fmt::Display for ParseFilterKindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown energy filter (expected none, per-task, per-resource or adaptive)")
    }
}

impl core::error::Error for ParseFilterKindError {}

impl FromStr for FilterKind {
    type Err = ParseFilterKindError;
    fn from_str(s: &str) -> Result<FilterKind, ParseFilterKindError> {
        FilterKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or(ParseFilterKindError)
    }
}

/// An energy filter and its leniency factor.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnergyFilter {
    /// Which filter.
    pub kind: FilterKind,
    /// The leniency factor (Eq. 8 and 9); multiplies lambda for the adaptive filter. It should
    /// be finite and non-negative: a NaN budget admits nothing.
    pub leniency: f64,
}

impl Default for EnergyFilter {
    fn default() -> EnergyFilter {
        EnergyFilter::NONE
    }
}

/// Mean resources and energy of one allocation option, over the platform's options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Averages {
    /// Mean resources (seed 000 Eq. 1), in core-seconds.
    pub resources_core_s: f64,
    /// Mean energy, in joules.
    pub energy_j: f64,
}

impl Averages {
    /// The mean over every (task type, eligible cluster, P-state) of the resources (Eq. 1,
    /// [`Platform::resources`]) and the energy of one run, as seed 002 §4.3.3 averages "all
    /// task types, machine types, and P-states". Each option counts once, whatever its task
    /// type's arrival rate; sums are exact integers, divided once. No option gives zeros.
    pub fn of_platform(platform: &Platform) -> Averages {
        let (mut res, mut energy, mut count) = (0u128, 0u128, 0u64);
        for t in platform.types() {
            for (ci, p) in t.placements.iter().enumerate() {
                let Some(p) = p else { continue };
                for ps in 0..platform.pstates() {
                    res = res
                        .saturating_add(platform.resources(ClusterId(ci as u8), p, PState(ps)).0);
                    energy += p.energy(PState(ps)).0 as u128;
                    count += 1;
                }
            }
        }
        if count == 0 {
            return Averages::default();
        }
        let n = count as f64;
        Averages {
            resources_core_s: res as f64 / n / 1e6,
            energy_j: energy as f64 / n / 1000.0,
        }
    }
}

/// What the filters need to know at a mapping event.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FilterInputs {
    /// Energy that may still be committed today (e_rem = E - e_cons - e_unmov).
    pub energy_remaining: MilliJoules,
    /// Eq. 6: sum over nodes of unallocated time from now to the day's end x cores.
    pub resources_remaining: CoreMicros,
    /// T: all cores x the day's length.
    pub day_resources: CoreMicros,
    /// e_cons + e_unmov, for the adaptive filter.
    pub energy_spent: MilliJoules,
    /// E, the day's budget; [`MilliJoules::MAX`] is unconstrained.
    pub budget: MilliJoules,
    /// Mean resources and energy of an option ([`Averages::of_platform`]).
    pub averages: Averages,
}

/// What an option may spend at this mapping event, as a filter computed it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Budget {
    /// Every option passes.
    Unlimited,
    /// An option passes if its energy, in joules, is at most this.
    PerTask(f64),
    /// An option passes if its energy per resource, in joules per core-second, is at most this.
    PerResource(f64),
}

impl Budget {
    /// Whether an option of `energy` over `resources` passes. Zero resources count as an
    /// energy per resource of 0 with zero energy and infinite otherwise; a NaN budget admits
    /// nothing.
    pub fn admits(&self, energy: MilliJoules, resources: CoreMicros) -> bool {
        match *self {
            Budget::Unlimited => true,
            Budget::PerTask(b) => energy.as_joules_f64() <= b,
            Budget::PerResource(b) => {
                let ratio = if resources.0 == 0 {
                    if energy.0 == 0 {
                        0.0
                    } else {
                        f64::INFINITY
                    }
                } else {
                    energy.as_joules_f64() / resources.as_core_secs_f64()
                };
                ratio <= b
            }
        }
    }
}

/// The bit of option (c, p) in a mask of a task's options (0 for an option no platform has).
pub(crate) const fn option_bit(c: ClusterId, p: PState) -> u32 {
    if (c.0 as usize) < MAX_CLUSTERS && (p.0 as usize) < MAX_PSTATES {
        1 << (c.0 as usize * MAX_PSTATES + p.0 as usize)
    } else {
        0
    }
}

/// The option whose bit is bit `place` of a mask of options (see [`option_bit`]).
pub(crate) const fn option_at(place: u32) -> (ClusterId, PState) {
    let place = place as usize;
    (
        ClusterId((place / MAX_PSTATES) as u8),
        PState((place % MAX_PSTATES) as u8),
    )
}

// Every (cluster, P-state) option has a bit of a `u32` mask.
const _: () = assert!(MAX_CLUSTERS * MAX_PSTATES <= 32);

/// A mapping event's budget and its verdicts on the task types' options.
///
/// A typed task's options are its type's placements, which never change, and the budget is
/// fixed for an event, so each type's verdicts are worked out once, the first time one of its
/// tasks asks, and serve every task of the type until the budget is set again: one pass over
/// at most 32 options a type instead of two divisions and a 128-bit conversion for every
/// task, option and query. The verdicts are [`Budget::admits`]'s, bit for bit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Verdicts {
    budget: Budget,
    /// Type `t`'s admitted options (bits [`option_bit`]); meaningful only where `known`.
    admitted: [u32; MAX_TASK_TYPES],
    /// The types whose `admitted` mask is worked out at this budget.
    known: [u64; MAX_TASK_TYPES.div_ceil(64)],
}

impl Verdicts {
    /// Verdicts of `budget`, none worked out yet.
    pub(crate) const fn new(budget: Budget) -> Verdicts {
        Verdicts {
            budget,
            admitted: [0; MAX_TASK_TYPES],
            known: [0; MAX_TASK_TYPES.div_ceil(64)],
        }
    }

    /// The budget.
    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    /// Sets the budget and forgets every verdict (they were the old budget's).
    pub(crate) fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
        self.known = [0; MAX_TASK_TYPES.div_ceil(64)];
    }

    /// The options of task type `t` on `platform` that the budget admits (bits
    /// [`option_bit`]; none for a type the platform lacks), worked out at the first call
    /// after the budget was set.
    pub(crate) fn of_type(&mut self, platform: &Platform, t: TaskTypeId) -> u32 {
        let at = t.0 as usize;
        let bit = 1u64 << (at % 64);
        let cached = self.known.get(at / 64).map(|w| w & bit != 0);
        match (cached, self.admitted.get(at)) {
            (Some(true), Some(&mask)) => mask,
            (Some(false), Some(_)) => {
                let mask = self.work_out(platform, t);
                self.admitted[at] = mask;
                self.known[at / 64] |= bit;
                mask
            }
            // Beyond the cache (no platform has such a type): worked out every time.
            _ => self.work_out(platform, t),
        }
    }

    /// Type `t`'s verdicts, worked out now.
    fn work_out(&self, platform: &Platform, t: TaskTypeId) -> u32 {
        platform
            .task_type(t)
            .map_or(0, |ty| self.of_table(platform, ty))
    }

    /// The options of `table` on `platform` that the budget admits (bits [`option_bit`]),
    /// worked out now: a task with a table of its own has no type to keep them under.
    pub(crate) fn of_table(&self, platform: &Platform, table: &TaskType) -> u32 {
        let mut mask = 0;
        for (c, pl) in table.placements.iter().enumerate() {
            let (Some(pl), Ok(c)) = (pl, u8::try_from(c)) else {
                continue;
            };
            let c = ClusterId(c);
            for p in (0..platform.pstates()).map(PState) {
                if self
                    .budget
                    .admits(pl.energy(p), platform.resources(c, pl, p))
                {
                    mask |= option_bit(c, p);
                }
            }
        }
        mask
    }
}

impl EnergyFilter {
    /// No filtering.
    pub const NONE: EnergyFilter = EnergyFilter {
        kind: FilterKind::None,
        leniency: 1.0,
    };

    /// A filter with MODEL.md's leniency for its kind ([`FilterKind::default_leniency`]).
    pub const fn with_default_leniency(kind: FilterKind) -> EnergyFilter {
        EnergyFilter {
            kind,
            leniency: kind.default_leniency(),
        }
    }

    /// The budget this filter sets at a mapping event.
    ///
    /// - An unconstrained day (`budget` is [`MilliJoules::MAX`]) or [`FilterKind::None`]:
    ///   [`Budget::Unlimited`].
    /// - Per task (Eq. 7-8): leniency x e_rem / n, n = min(res_rem / avg res, e_rem / avg e).
    /// - Per resource (Eq. 9): leniency x e_rem / res_rem. With no resource left in the day
    ///   (res_rem = 0) there is nothing to pace: unlimited if energy remains (the ledger still
    ///   refuses what it cannot afford), a budget of 0 if none does.
    /// - Adaptive (seed 002 Eq. 9-11, with time read as resources as in seed 000 Eq. 6):
    ///   leniency x lambda x e_rem / n, lambda = (E / T) / (e_spent / (T - res_rem)), the
    ///   target rate of energy use over the current one; see [`adaptive_lambda`] for its guards.
    ///
    /// n, the number of tasks the remaining energy is shared between, is guarded by
    /// [`tasks_remaining`]: an average of zero gives no bound, and n is at least 1 (so
    /// n = 0, from res_rem = 0 or e_rem = 0, never divides).
    pub fn budget(&self, x: &FilterInputs) -> Budget {
        if x.budget == MilliJoules::MAX {
            return Budget::Unlimited;
        }
        let e_rem = x.energy_remaining.as_joules_f64();
        match self.kind {
            FilterKind::None => Budget::Unlimited,
            FilterKind::PerTask => {
                let n = tasks_remaining(x.resources_remaining, x.energy_remaining, &x.averages);
                Budget::PerTask(self.leniency * e_rem / n)
            }
            FilterKind::PerResource => {
                if x.resources_remaining.0 == 0 {
                    if x.energy_remaining.0 > 0 {
                        Budget::Unlimited
                    } else {
                        Budget::PerResource(0.0)
                    }
                } else {
                    Budget::PerResource(
                        self.leniency * e_rem / x.resources_remaining.as_core_secs_f64(),
                    )
                }
            }
            FilterKind::Adaptive => {
                let n = tasks_remaining(x.resources_remaining, x.energy_remaining, &x.averages);
                Budget::PerTask(self.leniency * adaptive_lambda(x) * e_rem / n)
            }
        }
    }
}

/// Eq. 7 (seed 002 Eq. 9): the estimated number of tasks that can still run today,
/// min(res_rem / avg res, e_rem / avg e), guarded so that a budget never divides by zero.
///
/// An average that is zero (or not finite and positive) gives no bound and its term is left
/// out; with neither term, nothing bounds the count and n = 1. n is at least 1: fewer than one
/// average task still lets the next task have the whole remainder (x leniency), which also
/// covers n = 0 (no resources or no energy left; with no energy the budget is then 0).
pub fn tasks_remaining(
    resources_remaining: CoreMicros,
    energy_remaining: MilliJoules,
    avg: &Averages,
) -> f64 {
    let by_res = positive(avg.resources_core_s)
        .then(|| resources_remaining.as_core_secs_f64() / avg.resources_core_s);
    let by_energy = positive(avg.energy_j).then(|| energy_remaining.as_joules_f64() / avg.energy_j);
    let n = match (by_res, by_energy) {
        (Some(a), Some(b)) => {
            if a < b {
                a
            } else {
                b
            }
        }
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => 1.0,
    };
    if n >= 1.0 {
        n
    } else {
        1.0
    }
}

/// Seed 002 Eq. 11 over resources: lambda = (E / T) / (e_spent / (T - res_rem)), the target
/// rate of energy use over the rate so far, where T - res_rem is the resources already used
/// or allocated today.
///
/// Guards, each a case where the current rate is undefined or unknown: with nothing spent
/// (e_spent = 0: the start of a day, or an idle stretch), with no resource used or allocated
/// yet (T - res_rem = 0, res_rem > T counting as 0), or with T = 0, lambda = 1: the plain
/// fair share. (The literal limits would be infinite or 0/0.)
pub fn adaptive_lambda(x: &FilterInputs) -> f64 {
    let used = x.day_resources.0.saturating_sub(x.resources_remaining.0);
    if x.energy_spent.0 == 0 || used == 0 || x.day_resources.0 == 0 {
        return 1.0;
    }
    let target = x.budget.as_joules_f64() / x.day_resources.as_core_secs_f64();
    let current = x.energy_spent.as_joules_f64() / CoreMicros(used).as_core_secs_f64();
    target / current
}

fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

#[cfg(test)]
mod tests;

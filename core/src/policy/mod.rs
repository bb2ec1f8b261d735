//! The heuristics of seed 000 §III.D-E, one per file, and what they share.
//!
//! Every heuristic considers, for a task, the earliest start of each (cluster, P-state)
//! option (seed 000 §III.F). The comparison heuristics walk the mappable tasks in arrival
//! order at P-state 0 and reserve permanently; the utility-aware ones run the Min-Min
//! framework of Algorithm 1 (`greedy`) with one objective each.

use crate::controller::{Choice, Controller, Decision};
use crate::error::Error;
use crate::platform::{ClusterId, PState};
use core::fmt;
use core::str::FromStr;
use serde::{Deserialize, Serialize};

mod conservative;
mod easy;
mod fcfs;
mod greedy;
pub mod knapsack;
mod max_upe;
mod max_upr;
mod max_upt;
mod max_util;
mod max_value;
mod multi_queue;
mod random;

/// Which heuristic maps the tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Heuristic {
    /// Arrival order, random cluster and P-state (seed 000 §III.D.1).
    Random,
    /// Conservative Backfilling (§III.D.2).
    Conservative,
    /// EASY Backfilling (§III.D.3).
    Easy,
    /// FCFS with multiple queues (§III.D.4).
    MultiQueue,
    /// Max Utility (Eq. 2).
    MaxUtil,
    /// Max Utility-per-Time (Eq. 3).
    MaxUpt,
    /// Max Utility-per-Resource (Eq. 4).
    MaxUpr,
    /// Max Utility-per-Energy (Eq. 5).
    MaxUpe,
    /// Strict FCFS without backfilling or reservations (trace replay's baseline; not one of
    /// seed 000's heuristics, so not in [`Heuristic::ALL`]).
    Fcfs,
    /// Dynamic priority with a greedy knapsack (seed 004), rigid jobs (trace replay only, so
    /// not in [`Heuristic::ALL`]); its parameters are [`Controller::set_knapsack`]'s.
    Knapsack,
    /// Max Value (seed 001 §3.3): Max Utility whose ties go to the earliest completion, as
    /// seed 001 asks (Max Util's go to the lower cluster index); not in [`Heuristic::ALL`].
    MaxValue,
}

impl Heuristic {
    /// Every heuristic, in the order reports list them.
    pub const ALL: [Heuristic; 8] = [
        Heuristic::Random,
        Heuristic::Conservative,
        Heuristic::Easy,
        Heuristic::MultiQueue,
        Heuristic::MaxUtil,
        Heuristic::MaxUpt,
        Heuristic::MaxUpr,
        Heuristic::MaxUpe,
    ];

    /// Heuristics beyond seed 000's eight (trace replay's baselines): parsed by name too.
    pub const EXTRA: [Heuristic; 3] = [Heuristic::Fcfs, Heuristic::Knapsack, Heuristic::MaxValue];

    /// Whether it uses utility (and so dropping and place-holders by default).
    pub const fn is_utility_aware(self) -> bool {
        matches!(
            self,
            Heuristic::MaxUtil
                | Heuristic::MaxUpt
                | Heuristic::MaxUpr
                | Heuristic::MaxUpe
                | Heuristic::MaxValue
        )
    }

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Heuristic::Random => "random",
            Heuristic::Conservative => "conservative",
            Heuristic::Easy => "easy",
            Heuristic::MultiQueue => "multi-queue",
            Heuristic::MaxUtil => "max-util",
            Heuristic::MaxUpt => "max-upt",
            Heuristic::MaxUpr => "max-upr",
            Heuristic::MaxUpe => "max-upe",
            Heuristic::Fcfs => "fcfs",
            Heuristic::Knapsack => "knapsack",
            Heuristic::MaxValue => "max-value",
        }
    }
}

impl fmt::Display for Heuristic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown heuristic name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownName;

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown name")
    }
}

impl FromStr for Heuristic {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Heuristic, UnknownName> {
        Heuristic::ALL
            .iter()
            .chain(Heuristic::EXTRA.iter())
            .copied()
            .find(|h| h.name() == s)
            .ok_or(UnknownName)
    }
}

/// Whether a task that cannot start now holds its slot for good or until the next event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Reservations {
    /// A permanent reservation: never moved, never removed (seed 000 §III.B).
    Permanent,
    /// A place-holder: cleared at the start of the next mapping event (seed 001).
    PlaceHolder,
}

impl Reservations {
    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Reservations::Permanent => "permanent",
            Reservations::PlaceHolder => "place-holder",
        }
    }
}

impl FromStr for Reservations {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Reservations, UnknownName> {
        match s {
            "permanent" => Ok(Reservations::Permanent),
            "place-holder" | "placeholder" => Ok(Reservations::PlaceHolder),
            _ => Err(UnknownName),
        }
    }
}

/// Runs the configured heuristic for one mapping event.
pub(crate) fn run(
    ctl: &mut Controller<'_>,
    early_completions: bool,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    let reservations = ctl.config().reservations;
    match ctl.config().heuristic {
        Heuristic::Random => random::run(ctl, sink),
        Heuristic::Conservative => conservative::run(ctl, early_completions, sink),
        Heuristic::Easy => easy::run(ctl, sink),
        Heuristic::MultiQueue => multi_queue::run(ctl, early_completions, sink),
        Heuristic::MaxUtil => greedy::run(ctl, reservations, max_util::MaxUtil, sink),
        Heuristic::MaxUpt => greedy::run(ctl, reservations, max_upt::MaxUpt, sink),
        Heuristic::MaxUpr => greedy::run(ctl, reservations, max_upr::MaxUpr, sink),
        Heuristic::MaxUpe => greedy::run(ctl, reservations, max_upe::MaxUpe, sink),
        Heuristic::Fcfs => fcfs::run(ctl, sink),
        Heuristic::Knapsack => knapsack::run(ctl, sink),
        Heuristic::MaxValue => greedy::run(ctl, reservations, max_value::MaxValue, sink),
    }
}

/// Task slot `i`'s best under the configured utility-aware heuristic, as the Min-Min
/// framework finds it and as the exhaustive loop it prunes does (`None`: not one of them).
#[cfg(test)]
pub(crate) fn greedy_bests(
    ctl: &mut Controller<'_>,
    i: u32,
) -> Result<Option<[greedy::Best; 2]>, Error> {
    fn both(
        ctl: &mut Controller<'_>,
        i: u32,
        o: impl greedy::Objective,
    ) -> Result<Option<[greedy::Best; 2]>, Error> {
        // The second working out reads the utility the first kept, as a later one in an
        // event does.
        let (mut types, mut u) = (type_bounds(), f64::NAN);
        greedy::best(ctl, i, o, &mut types, &mut u)?;
        let pruned = greedy::best(ctl, i, o, &mut types, &mut u)?;
        let exhaustive = greedy::best_exhaustive(ctl, i, o)?;
        Ok(Some([pruned, exhaustive]))
    }
    match ctl.config().heuristic {
        Heuristic::MaxUtil => both(ctl, i, max_util::MaxUtil),
        Heuristic::MaxUpt => both(ctl, i, max_upt::MaxUpt),
        Heuristic::MaxUpr => both(ctl, i, max_upr::MaxUpr),
        Heuristic::MaxUpe => both(ctl, i, max_upe::MaxUpe),
        Heuristic::MaxValue => both(ctl, i, max_value::MaxValue),
        _ => Ok(None),
    }
}

/// An event's [`greedy::TypeBounds`], none worked out yet.
#[cfg(test)]
pub(crate) fn type_bounds() -> greedy::TypeBounds {
    [greedy::TypeBound::Unknown; crate::config::MAX_TASK_TYPES]
}

/// A task's bound through its type and option by option, and whether its type's kept costs
/// give its options' bounds and its objective keeps to its costs (see [`greedy_bounds`]).
#[cfg(test)]
pub(crate) type BoundsCheck = ([Option<Choice>; 2], bool);

/// Task slot `i`'s bound under the configured utility-aware heuristic as the pass finds it
/// (through `types`, kept for one event) and from each of its options' bounds, and whether
/// the bounds a best reads from the kept costs are its options' bounds and the objective's
/// values are the utility over its costs, for each `u` of `us` and each of the task's
/// options, where it says so (`None`: not one of them).
#[cfg(test)]
pub(crate) fn greedy_bounds(
    ctl: &mut Controller<'_>,
    i: u32,
    types: &mut greedy::TypeBounds,
    us: &[f64],
) -> Result<Option<BoundsCheck>, Error> {
    fn both(
        ctl: &mut Controller<'_>,
        i: u32,
        o: impl greedy::Objective,
        types: &mut greedy::TypeBounds,
        us: &[f64],
    ) -> Result<Option<BoundsCheck>, Error> {
        let b = greedy::bounds_both(ctl, i, o, types)?;
        let kept = greedy::kept_bounds_agree(ctl, i, o, types)?;
        Ok(Some((b, kept && greedy::per_cost_holds(ctl, i, o, us)?)))
    }
    match ctl.config().heuristic {
        Heuristic::MaxUtil => both(ctl, i, max_util::MaxUtil, types, us),
        Heuristic::MaxUpt => both(ctl, i, max_upt::MaxUpt, types, us),
        Heuristic::MaxUpr => both(ctl, i, max_upr::MaxUpr, types, us),
        Heuristic::MaxUpe => both(ctl, i, max_upe::MaxUpe, types, us),
        Heuristic::MaxValue => both(ctl, i, max_value::MaxValue, types, us),
        _ => Ok(None),
    }
}

/// A set of the platform's task types (tasks with their own tables belong to none).
#[derive(Default)]
struct TypesSeen([u64; crate::config::MAX_TASK_TYPES.div_ceil(64)]);

impl TypesSeen {
    /// Whether `ty` is in the set (never for `None`).
    fn contains(&self, ty: Option<crate::platform::TaskTypeId>) -> bool {
        ty.is_some_and(|t| {
            let t = t.0 as usize;
            self.0.get(t / 64).is_some_and(|w| w & (1 << (t % 64)) != 0)
        })
    }

    /// Adds `ty` (nothing for `None`).
    fn insert(&mut self, ty: Option<crate::platform::TaskTypeId>) {
        if let Some(t) = ty {
            let t = t.0 as usize;
            if let Some(w) = self.0.get_mut(t / 64) {
                *w |= 1 << (t % 64);
            }
        }
    }

    /// Takes `ty` out (nothing for `None`).
    fn remove(&mut self, ty: Option<crate::platform::TaskTypeId>) {
        if let Some(t) = ty {
            let t = t.0 as usize;
            if let Some(w) = self.0.get_mut(t / 64) {
                *w &= !(1 << (t % 64));
            }
        }
    }

    /// The first type of the set that is not in `other`, by index.
    fn first_not_in(&self, other: &TypesSeen) -> Option<crate::platform::TaskTypeId> {
        self.0
            .iter()
            .zip(other.0.iter())
            .enumerate()
            .find_map(|(k, (a, b))| {
                let w = a & !b;
                (w != 0).then(|| {
                    crate::platform::TaskTypeId((k * 64) as u16 + w.trailing_zeros() as u16)
                })
            })
    }
}

/// Reserves task slot `i` at its earliest start, as Conservative places a task, unless its
/// type is already `stuck` in this pass; a type that finds no option today becomes stuck
/// (within a pass the cluster only fills and energy only drains, so its later tasks have
/// none either).
fn place_earliest(
    ctl: &mut Controller<'_>,
    i: u32,
    stuck: &mut TypesSeen,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    let ty = ctl.task_type(i);
    if stuck.contains(ty) {
        return Ok(());
    }
    match earliest_anywhere(ctl, i)? {
        Some(ch) => ctl.assign(i, &ch, Reservations::Permanent, sink),
        None => {
            stuck.insert(ty);
            Ok(())
        }
    }
}

/// Whether the configured energy filter applies.
fn filtered(ctl: &Controller<'_>) -> bool {
    ctl.config().filter.kind != crate::energy::FilterKind::None
}

/// The earliest-starting option of task slot `i` at P-state 0 over all clusters (ties: the
/// earlier end, then the lower cluster index): what the FCFS heuristics use.
pub(crate) fn earliest_anywhere(ctl: &mut Controller<'_>, i: u32) -> Result<Option<Choice>, Error> {
    let mut best: Option<Choice> = None;
    let f = filtered(ctl);
    for c in 0..ctl.cluster_count() {
        if let Some(ch) = ctl.option(i, ClusterId(c), PState(0), f)? {
            let better = match &best {
                None => true,
                Some(b) => {
                    (ch.start, ch.start.saturating_add(ch.duration))
                        < (b.start, b.start.saturating_add(b.duration))
                }
            };
            if better {
                best = Some(ch);
            }
        }
    }
    Ok(best)
}

/// The option of task slot `i` at P-state 0 that starts now, if any cluster has one (ties:
/// the earlier end, then the lower cluster index): exactly what [`earliest_anywhere`] gives
/// when its answer starts now, without sweeping for later starts. Backfilling candidates
/// only ask this.
pub(crate) fn start_now_anywhere(
    ctl: &mut Controller<'_>,
    i: u32,
) -> Result<Option<Choice>, Error> {
    let mut best: Option<Choice> = None;
    let f = filtered(ctl);
    for c in 0..ctl.cluster_count() {
        if let Some(ch) = ctl.option_now(i, ClusterId(c), PState(0), f)? {
            if best.is_none_or(|b| ch.duration < b.duration) {
                best = Some(ch);
            }
        }
    }
    Ok(best)
}

/// Moves every reservation that has not started to its earliest start, one at a time in
/// slot order: taking one back frees its own slot, so it never starts later, and the
/// others stay booked, so none is delayed (Conservative's compression after early ends).
pub(crate) fn compress(
    ctl: &mut Controller<'_>,
    sink: &mut dyn FnMut(&Decision),
) -> Result<(), Error> {
    for k in 0..ctl.open_count() {
        let i = ctl.open_slot(k);
        if !ctl.reserved_after_now(i) {
            continue;
        }
        let old = ctl.assignment(i as u32);
        ctl.unreserve(i as u32);
        match earliest_anywhere(ctl, i as u32)? {
            Some(ch) if old.is_none_or(|o| ch.start <= o.start) => {
                ctl.assign(i as u32, &ch, Reservations::Permanent, sink)?
            }
            // Cannot happen with the task's own slot free again; keep the task mappable
            // rather than book it later than promised.
            _ => {}
        }
    }
    Ok(())
}

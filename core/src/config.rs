//! How a run decides: the heuristic, its reservations, the energy filter, dropping, the day
//! and the budget, in one [`Config`] the caller builds once and hands to the controller.
//!
//! This file is a leaf of the core's imports (units and the energy filter's kind only), so
//! the controller, the planner and every heuristic can read the configuration without
//! importing each other.

use crate::energy::{EnergyFilter, FilterKind};
use crate::error::{Error, InputError};
use crate::units::{Micros, MilliJoules};
use core::fmt;
use core::str::FromStr;
use serde::{Deserialize, Serialize};

/// How the controller decides.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The heuristic.
    pub heuristic: Heuristic,
    /// Permanent reservations or place-holders (the utility-aware heuristics; the others
    /// always reserve permanently).
    pub reservations: Reservations,
    /// The energy filter.
    pub filter: EnergyFilter,
    /// Dropping threshold, `None` for no dropping.
    pub drop_threshold: Option<f64>,
    /// The day's energy budget (`MilliJoules::MAX` for none).
    pub budget: MilliJoules,
    /// Start of the measured day (utility and energy outside it do not count).
    pub day_start: Micros,
    /// End of the day: nothing may start at or after it.
    pub day_end: Micros,
    /// Seed of the Random heuristic's stream.
    pub seed: u64,
    /// Multiple queues: a task is small below this fraction of the reference resources.
    pub small_fraction: f64,
    /// Multiple queues: a task is large above this fraction.
    pub large_fraction: f64,
    /// Place-holders for every mappable task, as seed 000's Algorithm 1 plans them, instead
    /// of ending the utility-aware heuristics' pass once no task left could start now.
    /// Either way the same tasks start, at the same places (the same digest): the
    /// place-holders past that point are a plan that the next event clears unread. Not
    /// serialized (the firmware's scenario encoding predates it): a decoded config plans
    /// until nothing more can start.
    #[serde(skip)]
    pub full_plan: bool,
    /// The knapsack heuristic's parameters (seed 004; checked when it runs). Not serialized
    /// (the firmware runs no knapsack): a decoded config has the paper's defaults.
    #[serde(skip)]
    pub knapsack: KnapsackParams,
}

impl Config {
    /// Seed 000's defaults for a heuristic: dropping at 0.5 for the utility-aware ones, no
    /// filter, place-holders, no budget, a day of `[day_start, day_end)`.
    pub fn new(heuristic: Heuristic, day_start: Micros, day_end: Micros) -> Config {
        Config {
            heuristic,
            reservations: Reservations::PlaceHolder,
            filter: EnergyFilter {
                kind: FilterKind::None,
                leniency: 1.0,
            },
            drop_threshold: if heuristic.is_utility_aware() {
                Some(0.5)
            } else {
                None
            },
            budget: MilliJoules::MAX,
            day_start,
            day_end,
            seed: 0,
            small_fraction: 0.3,
            large_fraction: 0.6,
            full_plan: false,
            knapsack: KnapsackParams::default(),
        }
    }
}

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
    /// not in [`Heuristic::ALL`]); its parameters are [`Config::knapsack`].
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

/// The knobs of Eq. 1 and the per-job share of the knapsack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KnapsackParams {
    /// Exponent of the size term (tasks / average tasks).
    pub alpha: f64,
    /// Exponent of the wait term (seconds waited).
    pub beta: f64,
    /// Exponent of the runtime term (runtime / average runtime).
    pub gamma: f64,
    /// Largest fraction of its tasks a job may start in one cycle, in (0, 1]; only the
    /// malleable form ([`select`](crate::knapsack::select)) uses it (a rigid job starts whole or not at all).
    pub share: f64,
}

impl Default for KnapsackParams {
    /// The paper's Fig. 3 setting (alpha 0.9, beta 0.1, gamma 0.1), share 1.
    fn default() -> Self {
        KnapsackParams {
            alpha: 0.9,
            beta: 0.1,
            gamma: 0.1,
            share: 1.0,
        }
    }
}

impl KnapsackParams {
    /// The exponents with a share of 1.
    pub const fn new(alpha: f64, beta: f64, gamma: f64) -> KnapsackParams {
        KnapsackParams {
            alpha,
            beta,
            gamma,
            share: 1.0,
        }
    }

    /// Finite exponents and a share in (0, 1], or [`InputError::BadNumber`].
    pub fn validate(&self) -> Result<(), Error> {
        let finite = self.alpha.is_finite() && self.beta.is_finite() && self.gamma.is_finite();
        if finite && self.share > 0.0 && self.share <= 1.0 {
            Ok(())
        } else {
            Err(InputError::BadNumber.into())
        }
    }
}

//! The energy filters of the serial system: Chapter 3's tuned filter (Eq. 6-7) and Chapter 4's
//! adaptive filter (Eq. 9-11), each with its leniency. A filter sets one budget, in joules,
//! at the start of a mapping event from what is guaranteed (consumed energy and the
//! unmovable tasks'), and an option (task, machine, P-state) passes if its EEC is at most
//! the budget.
//!
//! Both are seed 000's filters over machine-time instead of core-time (one core per
//! machine), so they are computed by [`crate::energy::EnergyFilter`]:
//!
//! - Tuned: L x e_rem / (tau_agg / tau bar) is seed 000's per-resource budget
//!   L x e_rem / tau_agg (joules per machine-second) times the mean execution time tau bar.
//!   It is not seed 000's per-task filter, which divides by min(tau_agg / tau bar,
//!   e_rem / e bar).
//! - Adaptive: seed 000's adaptive budget, L x lambda x e_rem / n with n = min(tau_rem /
//!   tau bar, e_rem / e bar) and lambda = (E / T) / ((e_cons + e_unmov) / (T - tau_rem)),
//!   T = machines x the day. The dissertation's filter has L = 1.

use super::pstate::PowerStats;
use crate::energy::{Averages, Budget, EnergyFilter, FilterInputs, FilterKind};
use crate::units::{CoreMicros, MilliJoules};

/// Which filter a serial run uses, with its leniency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SerialFilter {
    /// Every option passes.
    None,
    /// Chapter 3's tuned filter (Eq. 6-7) with this energy leniency L.
    Tuned(f64),
    /// Chapter 4's adaptive filter (Eq. 9-11) with this leniency (the dissertation's: 1).
    Adaptive(f64),
}

/// What a filter reads at a mapping event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FilterState {
    /// The day's budget E.
    pub budget: MilliJoules,
    /// Energy consumed today plus today's share of the unmovable tasks' (e_cons + e_unmov).
    pub spent: MilliJoules,
    /// Sum over machines of the day's end minus max(now, the last unmovable end), machine-
    /// microseconds (tau_agg, tau_rem).
    pub time_remaining: CoreMicros,
    /// Machines x the day's length (T).
    pub day_time: CoreMicros,
}

impl SerialFilter {
    /// Whether the leniency is a positive number (or the filter is off).
    pub fn is_valid(self) -> bool {
        match self {
            SerialFilter::None => true,
            SerialFilter::Tuned(l) | SerialFilter::Adaptive(l) => l.is_finite() && l > 0.0,
        }
    }

    /// The event's budget in joules (infinite: no filter).
    ///
    /// With no machine time left in the day the tuned filter has nothing to pace: every
    /// option passes while energy remains, none once it is gone (seed 000's guard).
    pub fn budget_j(self, x: &FilterState, stats: &PowerStats) -> f64 {
        let (kind, leniency) = match self {
            SerialFilter::None => return f64::INFINITY,
            SerialFilter::Tuned(l) => (FilterKind::PerResource, l),
            SerialFilter::Adaptive(l) => (FilterKind::Adaptive, l),
        };
        let inputs = FilterInputs {
            energy_remaining: x.budget.saturating_sub(x.spent),
            resources_remaining: x.time_remaining,
            day_resources: x.day_time,
            energy_spent: x.spent,
            budget: x.budget,
            averages: Averages {
                resources_core_s: stats.mean_etc_s,
                energy_j: stats.mean_eec_j,
            },
        };
        match (EnergyFilter { kind, leniency }).budget(&inputs) {
            Budget::Unlimited => f64::INFINITY,
            Budget::PerTask(j) => j,
            Budget::PerResource(w) => w * stats.mean_etc_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Micros;

    fn stats() -> PowerStats {
        PowerStats {
            mean_etc_s: 600.0,
            mean_eec_j: 120_000.0,
            min_etc_s: 1.0,
            min_eec_j: 1.0,
            max_eec_j: 1e6,
        }
    }

    fn machine_hours(m: u64, h: u64) -> CoreMicros {
        CoreMicros(m as u128 * Micros::from_hours(h).0 as u128)
    }

    #[test]
    fn tuned_budget_by_hand() {
        // E = 1 GJ, 400 MJ spent: e_rem = 600 MJ. 100 machines x 10 h left = 3.6e6 machine-s,
        // tau bar = 600 s: 6,000 average tasks fit, so 100 kJ each; L = 0.75 gives 75 kJ.
        let x = FilterState {
            budget: MilliJoules::from_joules(1_000_000_000),
            spent: MilliJoules::from_joules(400_000_000),
            time_remaining: machine_hours(100, 10),
            day_time: machine_hours(100, 24),
        };
        let b = SerialFilter::Tuned(0.75).budget_j(&x, &stats());
        assert!((b - 75_000.0).abs() < 1e-6, "{b}");
        // No time left: unlimited while energy remains.
        let none_left = FilterState {
            time_remaining: CoreMicros(0),
            ..x
        };
        assert_eq!(
            SerialFilter::Tuned(0.75).budget_j(&none_left, &stats()),
            f64::INFINITY
        );
        assert_eq!(SerialFilter::None.budget_j(&x, &stats()), f64::INFINITY);
    }

    #[test]
    fn adaptive_budget_by_hand() {
        // As above; n = min(6,000 by time, 600 MJ / 120 kJ = 5,000 by energy) = 5,000, so
        // e_rem / n = 120 kJ. 14 h of 24 are used: the current rate is 400 MJ / 1,400
        // machine-h, the target 1 GJ / 2,400 machine-h; lambda = (1/2400) / (0.4/1400) =
        // 1400 / 960 = 1.458333..., the budget 175 kJ.
        let x = FilterState {
            budget: MilliJoules::from_joules(1_000_000_000),
            spent: MilliJoules::from_joules(400_000_000),
            time_remaining: machine_hours(100, 10),
            day_time: machine_hours(100, 24),
        };
        let b = SerialFilter::Adaptive(1.0).budget_j(&x, &stats());
        assert!((b - 175_000.0).abs() < 1e-6, "{b}");
        let b2 = SerialFilter::Adaptive(2.0).budget_j(&x, &stats());
        assert!((b2 - 350_000.0).abs() < 1e-6, "{b2}");
    }

    #[test]
    fn leniency_must_be_positive() {
        assert!(SerialFilter::Tuned(0.3).is_valid());
        assert!(!SerialFilter::Tuned(0.0).is_valid());
        assert!(!SerialFilter::Adaptive(f64::NAN).is_valid());
        assert!(SerialFilter::None.is_valid());
    }
}

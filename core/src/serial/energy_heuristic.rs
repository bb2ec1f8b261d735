//! The energy-constrained heuristics of Chapters 3 and 4 by name, and the objectives the
//! two-stage ones maximise over (task, machine, P-state) options.
//!
//! Chapter 4's Max Utility, Max UPT and Max UPE are the two-stage passes of Chapter 3's
//! Max-Max Util, Max-Max UPT and Max-Max UPE (§4.3.4 describes the same two stages), so they
//! are the same variants here; reports name them as each chapter does.

/// A heuristic of Chapter 3 or 4 (§3.3.2, §4.3.4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EnergyHeuristic {
    /// Both stages: earliest completion.
    MinMinComp,
    /// Stage 1 earliest completion, stage 2 highest utility (Ch. 4: Max Utility).
    MaxMaxUtil,
    /// Both stages: highest utility / execution time (Ch. 4: Max UPT).
    MaxMaxUpt,
    /// Both stages: highest utility / energy (Ch. 4: Max UPE).
    MaxMaxUpe,
    /// Both stages: highest utility / average power, that is utility x ETC / EEC (§7.3.4:
    /// Max-Max Utility per Power, a seed of Chapter 7's populations).
    MaxMaxUpp,
    /// Both stages: Eq. 3 with this U-E weighting factor w.
    WeightedUtil(f64),
    /// Both stages: Eq. 4 with this w.
    WeightedUpt(f64),
    /// Both stages: Eq. 5 with this w.
    WeightedUpe(f64),
    /// Chapter 4's FCFS / LCFS family: tasks in arrival order (newest first for LCFS),
    /// grouped by priority when prioritized, each to the earliest-ready machine whose
    /// P-state 0 (or, with `all_pstates`, its first P-state in order) is valid and passes.
    ArrivalOrder {
        /// LCFS: newest first.
        newest_first: bool,
        /// Highest priority (starting utility) group first.
        prioritized: bool,
        /// Try P-states 0, 1, 2 on each machine instead of P-state 0 only.
        all_pstates: bool,
    },
    /// A random task to a random valid, filtered (machine, P-state), repeated.
    Random,
}

/// The normalisers of Eq. 3-5: the largest utility a task can have, the largest and smallest
/// EEC and the smallest ETC of the trial's runnable entries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Normalisers {
    /// U_max (max util).
    pub max_utility: f64,
    /// EEC_max, joules.
    pub max_eec_j: f64,
    /// EEC_min, joules.
    pub min_eec_j: f64,
    /// ETC_min, seconds.
    pub min_etc_s: f64,
}

impl EnergyHeuristic {
    /// Whether the heuristic is a two-stage pass.
    pub const fn is_two_stage(self) -> bool {
        !matches!(
            self,
            EnergyHeuristic::ArrivalOrder { .. } | EnergyHeuristic::Random
        )
    }

    /// The U-E weighting factor of a weighted heuristic.
    pub const fn weight(self) -> Option<f64> {
        match self {
            EnergyHeuristic::WeightedUtil(w)
            | EnergyHeuristic::WeightedUpt(w)
            | EnergyHeuristic::WeightedUpe(w) => Some(w),
            _ => None,
        }
    }

    /// Stage 2's score of an option earning `u` over `etc_s` seconds for `eec_j` joules,
    /// completing at `end_s` (higher is better).
    pub fn score(self, n: &Normalisers, u: f64, etc_s: f64, eec_j: f64, end_s: f64) -> f64 {
        let e = if eec_j > 0.0 {
            eec_j
        } else {
            f64::MIN_POSITIVE
        };
        match self {
            EnergyHeuristic::MinMinComp => -end_s,
            EnergyHeuristic::MaxMaxUtil => u,
            EnergyHeuristic::MaxMaxUpt => u / etc_s,
            EnergyHeuristic::MaxMaxUpe => u / e,
            EnergyHeuristic::MaxMaxUpp => u * etc_s / e,
            EnergyHeuristic::WeightedUtil(w) => {
                (1.0 - w) * u / n.max_utility - w * eec_j / n.max_eec_j
            }
            EnergyHeuristic::WeightedUpt(w) => {
                (1.0 - w) * (u / etc_s) / (n.max_utility / n.min_etc_s) - w * eec_j / n.max_eec_j
            }
            EnergyHeuristic::WeightedUpe(w) => {
                (1.0 - w) * (u / e) / (n.max_utility / n.min_eec_j) - w * eec_j / n.max_eec_j
            }
            EnergyHeuristic::ArrivalOrder { .. } | EnergyHeuristic::Random => 0.0,
        }
    }

    /// Stage 1's criterion, when it differs from stage 2's score: Max-Max Util's stage 1 is
    /// Min-Min's, the earliest completion (§3.3.2).
    pub fn stage1(self, n: &Normalisers, u: f64, etc_s: f64, eec_j: f64, end_s: f64) -> f64 {
        match self {
            EnergyHeuristic::MaxMaxUtil => -end_s,
            h => h.score(n, u, etc_s, eec_j, end_s),
        }
    }

    /// The command-line name (weighted ones take their weight separately).
    pub const fn name(self) -> &'static str {
        match self {
            EnergyHeuristic::MinMinComp => "min-min-comp",
            EnergyHeuristic::MaxMaxUtil => "max-max-util",
            EnergyHeuristic::MaxMaxUpt => "max-max-upt",
            EnergyHeuristic::MaxMaxUpe => "max-max-upe",
            EnergyHeuristic::MaxMaxUpp => "max-max-upp",
            EnergyHeuristic::WeightedUtil(_) => "weighted-util",
            EnergyHeuristic::WeightedUpt(_) => "weighted-upt",
            EnergyHeuristic::WeightedUpe(_) => "weighted-upe",
            EnergyHeuristic::ArrivalOrder {
                newest_first,
                prioritized,
                all_pstates,
            } => match (prioritized, newest_first, all_pstates) {
                (false, false, false) => "fcfs-p0",
                (false, false, true) => "fcfs-all",
                (false, true, false) => "lcfs-p0",
                (false, true, true) => "lcfs-all",
                (true, false, false) => "prio-fcfs-p0",
                (true, false, true) => "prio-fcfs-all",
                (true, true, false) => "prio-lcfs-p0",
                (true, true, true) => "prio-lcfs-all",
            },
            EnergyHeuristic::Random => "random",
        }
    }

    /// The heuristic named `name` ([`EnergyHeuristic::name`], or Chapter 4's `max-utility`,
    /// `max-upt`, `max-upe`); weighted ones get weight `w`.
    pub fn from_name(name: &str, w: f64) -> Option<EnergyHeuristic> {
        let ao = |newest_first, prioritized, all_pstates| EnergyHeuristic::ArrivalOrder {
            newest_first,
            prioritized,
            all_pstates,
        };
        Some(match name {
            "min-min-comp" => EnergyHeuristic::MinMinComp,
            "max-max-util" | "max-utility" => EnergyHeuristic::MaxMaxUtil,
            "max-max-upt" | "max-upt" => EnergyHeuristic::MaxMaxUpt,
            "max-max-upe" | "max-upe" => EnergyHeuristic::MaxMaxUpe,
            "max-max-upp" | "max-upp" => EnergyHeuristic::MaxMaxUpp,
            "weighted-util" => EnergyHeuristic::WeightedUtil(w),
            "weighted-upt" => EnergyHeuristic::WeightedUpt(w),
            "weighted-upe" => EnergyHeuristic::WeightedUpe(w),
            "fcfs-p0" => ao(false, false, false),
            "fcfs-all" => ao(false, false, true),
            "lcfs-p0" => ao(true, false, false),
            "lcfs-all" => ao(true, false, true),
            "prio-fcfs-p0" => ao(false, true, false),
            "prio-fcfs-all" => ao(false, true, true),
            "prio-lcfs-p0" => ao(true, true, false),
            "prio-lcfs-all" => ao(true, true, true),
            "random" => EnergyHeuristic::Random,
            _ => return None,
        })
    }

    /// Every name [`EnergyHeuristic::from_name`] accepts, for error messages.
    pub const NAMES: &'static str = "min-min-comp, max-max-util (max-utility), max-max-upt \
        (max-upt), max-max-upe (max-upe), max-max-upp (max-upp), weighted-util, weighted-upt, weighted-upe, fcfs-p0, \
        fcfs-all, lcfs-p0, lcfs-all, prio-fcfs-p0, prio-fcfs-all, prio-lcfs-p0, prio-lcfs-all, \
        random";
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: Normalisers = Normalisers {
        max_utility: 8.0,
        max_eec_j: 400_000.0,
        min_eec_j: 1_000.0,
        min_etc_s: 10.0,
    };

    #[test]
    fn weighted_objectives_by_hand() {
        // u = 4, ETC 500 s, EEC 100 kJ, w = 0.5.
        // Eq. 3: 0.5 x 4/8 - 0.5 x 100k/400k = 0.25 - 0.125 = 0.125.
        let s = EnergyHeuristic::WeightedUtil(0.5).score(&N, 4.0, 500.0, 100_000.0, 0.0);
        assert!((s - 0.125).abs() < 1e-12, "{s}");
        // Eq. 4: 0.5 x (4/500) / (8/10) - 0.125 = 0.5 x 0.01 - 0.125 = -0.12.
        let s = EnergyHeuristic::WeightedUpt(0.5).score(&N, 4.0, 500.0, 100_000.0, 0.0);
        assert!((s + 0.12).abs() < 1e-12, "{s}");
        // Eq. 5: 0.5 x (4/100k) / (8/1k) - 0.125 = 0.5 x 0.005 - 0.125 = -0.1225.
        let s = EnergyHeuristic::WeightedUpe(0.5).score(&N, 4.0, 500.0, 100_000.0, 0.0);
        assert!((s + 0.1225).abs() < 1e-12, "{s}");
        // w = 0.8 weighs energy more: Eq. 3 = 0.2 x 0.5 - 0.8 x 0.25 = -0.1.
        let s = EnergyHeuristic::WeightedUtil(0.8).score(&N, 4.0, 500.0, 100_000.0, 0.0);
        assert!((s + 0.1).abs() < 1e-12, "{s}");
    }

    #[test]
    fn weight_zero_ranks_as_the_max_max_counterpart() {
        // Two options: (u, etc, eec). At w = 0 the weighted score is a positive multiple of
        // the Max-Max score, so both rank the options alike.
        let a = (4.0, 500.0, 100_000.0);
        let b = (3.0, 200.0, 150_000.0);
        for (w, m) in [
            (
                EnergyHeuristic::WeightedUtil(0.0),
                EnergyHeuristic::MaxMaxUtil,
            ),
            (
                EnergyHeuristic::WeightedUpt(0.0),
                EnergyHeuristic::MaxMaxUpt,
            ),
            (
                EnergyHeuristic::WeightedUpe(0.0),
                EnergyHeuristic::MaxMaxUpe,
            ),
        ] {
            let sw = |o: (f64, f64, f64)| w.score(&N, o.0, o.1, o.2, 0.0);
            let sm = |o: (f64, f64, f64)| m.score(&N, o.0, o.1, o.2, 0.0);
            assert_eq!(sw(a) > sw(b), sm(a) > sm(b), "{w:?}");
        }
    }

    #[test]
    fn names_round_trip() {
        for n in [
            "min-min-comp",
            "max-max-upe",
            "max-max-upp",
            "weighted-upt",
            "prio-lcfs-all",
            "fcfs-p0",
            "random",
        ] {
            assert_eq!(EnergyHeuristic::from_name(n, 0.5).unwrap().name(), n);
        }
        assert_eq!(
            EnergyHeuristic::from_name("max-utility", 0.0),
            Some(EnergyHeuristic::MaxMaxUtil)
        );
        assert_eq!(EnergyHeuristic::from_name("nope", 0.0), None);
    }
}

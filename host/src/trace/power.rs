//! Energy on traces: a power model for the replay's machine ([`PowerModel`]: per-processor
//! idle and busy watts, optional P-states as time and power factors), an energy budget with
//! seed 000's filters over it ([`TraceEnergy`]), and what the jobs drew ([`EnergyOutcome`]).
//! Without a model the replay's machine draws 0 W (`load.rs`'s [`super::machine`]) and
//! nothing here runs, so such replays are unchanged.
//!
//! # The model (docs/traces.md, "Energy"; one line each in docs/model.md)
//! - a busy processor draws `busy_watts x power factor` of its P-state, an idle one
//!   `idle_watts`; the machine's processors are one-core nodes, so watts per processor are
//!   the core's watts per node (the APC);
//! - P-state 0 is the nominal one (factors 1 and 1); each `--pstate TIME:POWER` adds one
//!   whose planned time is the request x TIME and whose power is busy x POWER, and a job run
//!   there runs its real run time x TIME ([`kairos_core::task::actual_run_time`]);
//! - the budget is the jobs' energy ([`kairos_core::energy::EnergyLedger`]): idle draw is
//!   reported, not charged, since no scheduling choice avoids it;
//! - with a budget, the day is `[0, horizon)` (default: the last submit plus the longest
//!   request): the filters pace the budget over the machine's time left in it, and a job not
//!   started by its end is unfinished (reported, not an error);
//! - the filters' mean option (seed 000 Eq. 7) is the log's mean job: its mean processors
//!   and mean request at each P-state, added to the platform as a type no job uses.

use kairos_core::energy::{EnergyFilter, FilterKind};
use kairos_core::limits::MAX_PSTATES;
use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskType};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::{Micros, MilliJoules, MilliWatts, NodeCount};
use kairos_core::utility::UtilityCurve;
use serde::Serialize;

use super::{JobRecord, TraceError};
use crate::swf::ReplayJob;

/// A P-state's factors over the nominal one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PStateFactors {
    /// Planned and real times are the nominal ones times this.
    pub time: f64,
    /// Busy power is the nominal busy power times this.
    pub power: f64,
}

impl PStateFactors {
    /// The nominal P-state.
    pub const NOMINAL: PStateFactors = PStateFactors {
        time: 1.0,
        power: 1.0,
    };
}

impl std::str::FromStr for PStateFactors {
    type Err = String;
    /// `TIME:POWER`, each finite and above 0 (`1.25:0.6`).
    fn from_str(s: &str) -> Result<PStateFactors, String> {
        let (t, p) = s
            .split_once(':')
            .ok_or_else(|| format!("{s:?}: expected TIME:POWER factors, e.g. 1.25:0.6"))?;
        let f = |x: &str, what: &str| match x.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 && v <= 1000.0 => Ok(v),
            _ => Err(format!(
                "{s:?}: the {what} factor {x:?} is not a number in (0, 1000]"
            )),
        };
        Ok(PStateFactors {
            time: f(t, "time")?,
            power: f(p, "power")?,
        })
    }
}

/// The machine's power: per processor, busy at each P-state and idle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PowerModel {
    /// Watts of a busy processor at the nominal P-state.
    pub busy_watts: f64,
    /// Watts of an idle processor.
    pub idle_watts: f64,
    /// The P-states, the nominal one first.
    pub pstates: Vec<PStateFactors>,
}

impl PowerModel {
    /// A model of `busy` and `idle` watts per processor with the nominal P-state and then
    /// `extra`; at most [`MAX_PSTATES`] in all, watts finite, at least 0, the busy ones at
    /// most about 4 MW (the core's milliwatts are 32-bit).
    pub fn new(busy: f64, idle: f64, extra: &[PStateFactors]) -> Result<PowerModel, String> {
        let mut pstates = vec![PStateFactors::NOMINAL];
        pstates.extend_from_slice(extra);
        if pstates.len() > MAX_PSTATES {
            return Err(format!(
                "{} P-states: the nominal one and at most {} --pstate",
                pstates.len(),
                MAX_PSTATES - 1
            ));
        }
        for (what, w) in [("--busy-watts", busy), ("--idle-watts", idle)] {
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!("{what} {w}: must be a number of watts at least 0"));
            }
        }
        let m = PowerModel {
            busy_watts: busy,
            idle_watts: idle,
            pstates,
        };
        if let Some(p) = m
            .pstates
            .iter()
            .find(|p| busy * p.power * 1000.0 > u32::MAX as f64)
        {
            return Err(format!(
                "--busy-watts {busy} x power factor {}: over the {} W a processor may draw",
                p.power,
                u32::MAX / 1000
            ));
        }
        Ok(m)
    }

    /// The core's power of a busy processor (node) at P-state `p`.
    pub fn apc(&self, p: usize) -> MilliWatts {
        MilliWatts(libm::round(self.busy_watts * self.pstates[p].power * 1000.0) as u32)
    }

    /// The planned time at P-state `p` of a job requesting `request` us (at least 1 us).
    pub fn etc(&self, request: u64, p: usize) -> Micros {
        let t = libm::round(request as f64 * self.pstates[p].time);
        Micros(if t < 1.0 {
            1
        } else if t >= u64::MAX as f64 {
            u64::MAX
        } else {
            t as u64
        })
    }

    /// The placement of `procs` processors requesting `request` us.
    fn placement(&self, procs: u32, request: u64) -> Placement {
        let mut p = Placement {
            nodes: NodeCount(procs),
            etc: [Micros::ZERO; MAX_PSTATES],
            apc: [MilliWatts(0); MAX_PSTATES],
        };
        for i in 0..self.pstates.len() {
            p.etc[i] = self.etc(request, i);
            p.apc[i] = self.apc(i);
        }
        p
    }

    /// The machine: one cluster of `procs` one-core nodes with the model's P-states, and the
    /// log's mean job as a type (the filters' mean option; no job uses it).
    pub fn machine(&self, procs: u32, jobs: &[ReplayJob]) -> Result<Platform, TraceError> {
        if procs == 0 {
            return Err(TraceError::NoProcessors);
        }
        let cluster = Cluster {
            nodes: NodeCount(procs),
            cores_per_node: 1,
            kind: ClusterKind::General,
        };
        let mut platform = Platform::new(&[cluster], self.pstates.len() as u8)?;
        let n = jobs.len().max(1) as f64;
        let mean_procs = jobs.iter().map(|j| j.procs as f64).sum::<f64>() / n;
        let mean_request = jobs.iter().map(|j| j.request as f64).sum::<f64>() / n;
        let nodes = (libm::round(mean_procs) as u32).clamp(1, procs);
        let request = (libm::round(mean_request) as u64).max(1);
        platform.add_resolved_type(&[Some(self.placement(nodes, request))])?;
        Ok(platform)
    }

    /// The task of `job` worth `curve`, with a plan at each P-state.
    pub fn job_task(&self, job: &ReplayJob, curve: UtilityCurve) -> Task {
        Task {
            id: TaskId(0),
            arrival: Micros(job.submit),
            demand: Demand::Own(TaskType {
                placements: core::iter::once(Some(self.placement(job.procs, job.request)))
                    .collect(),
            }),
            curve,
            actual: Some(Micros(job.runtime)),
        }
    }

    /// The energy of a run of `procs` processors for `run` us at P-state `p`, joules.
    pub fn run_joules(&self, procs: u32, run: u64, p: usize) -> f64 {
        self.apc(p)
            .energy(NodeCount(procs), Micros(run))
            .as_joules_f64()
    }
}

/// Energy on a replay: the power model, and optionally a budget and a filter over it.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEnergy {
    /// The machine's power.
    pub model: PowerModel,
    /// The jobs' energy budget over the day, joules (`None`: unconstrained).
    pub budget_joules: Option<f64>,
    /// The filter that paces the budget (seed 000's; needs a budget).
    pub filter: EnergyFilter,
    /// The day's end, microseconds of the log (`None`: the last submit plus the longest
    /// request); only read with a budget.
    pub horizon: Option<u64>,
    /// A platform file's machine (`--platform`): it replaces the model's one homogeneous
    /// cluster and its watts (`machine.rs`).
    pub machine: Option<std::sync::Arc<super::TraceMachine>>,
}

impl TraceEnergy {
    /// A model alone: energy measured, nothing constrained.
    pub fn measured(model: PowerModel) -> TraceEnergy {
        TraceEnergy {
            model,
            budget_joules: None,
            filter: EnergyFilter::NONE,
            horizon: None,
            machine: None,
        }
    }

    /// Checks what a replay cannot take: a filter without a budget, a budget that is not a
    /// finite number of joules at least 0.
    pub fn check(&self) -> Result<(), String> {
        if self.filter.kind != FilterKind::None && self.budget_joules.is_none() {
            return Err(format!(
                "--filter {}: a filter paces an energy budget; give --budget-joules",
                self.filter.kind.name()
            ));
        }
        if let Some(b) = self.budget_joules {
            if !(b.is_finite() && b >= 0.0 && b * 1000.0 < u64::MAX as f64) {
                return Err(format!("--budget-joules {b}: must be joules at least 0"));
            }
        }
        if !(self.filter.leniency.is_finite() && self.filter.leniency >= 0.0) {
            return Err(format!(
                "--leniency {}: must be a finite number at least 0",
                self.filter.leniency
            ));
        }
        Ok(())
    }

    /// The day's end for `jobs`: the horizon given, else the last submit plus the longest
    /// request.
    pub fn day_end(&self, jobs: &[ReplayJob]) -> u64 {
        self.horizon.unwrap_or_else(|| {
            let last = jobs.iter().map(|j| j.submit).max().unwrap_or(0);
            let longest = jobs.iter().map(|j| j.request).max().unwrap_or(0);
            last.saturating_add(longest)
        })
    }

    /// The budget in the core's units ([`MilliJoules::MAX`]: none).
    pub fn budget(&self) -> MilliJoules {
        self.budget_joules.map_or(MilliJoules::MAX, |b| {
            MilliJoules(libm::round(b * 1000.0) as u64)
        })
    }
}

impl EnergyOutcome {
    /// P-states of the machine's nodes.
    pub fn pstate_count(&self) -> usize {
        self.jobs_per_pstate.len()
    }
}

/// What the jobs of a replay drew.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergyOutcome {
    /// The model (`None` on a platform file's machine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<PowerModel>,
    /// A platform file's energy, per partition and as Batsim counts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<super::MachineEnergy>,
    /// The budget, joules (`None`: unconstrained).
    pub budget_joules: Option<f64>,
    /// The filter (`none` without a budget).
    pub filter: String,
    /// Its leniency.
    pub leniency: f64,
    /// The day's end with a budget, seconds of the log.
    pub horizon_s: Option<f64>,
    /// Energy of the jobs that ran (busy processors), joules.
    pub jobs_joules: f64,
    /// Energy of the idle processors from the first submit to the last end, joules.
    pub idle_joules: f64,
    /// Both.
    pub total_joules: f64,
    /// `total_joules` as text (J, kJ, MJ or GJ).
    pub total: String,
    /// Jobs run at each P-state, the nominal one first.
    pub jobs_per_pstate: Vec<usize>,
    /// Jobs not started by the day's end (a budget spent, or a queue too long).
    pub unfinished: usize,
    /// Their SWF job numbers, in submit order.
    #[serde(skip)]
    pub unfinished_ids: Vec<u64>,
    /// Each record's energy, joules, in the order of the records.
    #[serde(skip)]
    pub per_job_joules: Vec<f64>,
    /// Each record's P-state, in the order of the records.
    #[serde(skip)]
    pub pstates: Vec<u8>,
    /// Each record's partition (cluster), in the order of the records.
    #[serde(skip)]
    pub clusters: Vec<u8>,
}

impl EnergyOutcome {
    /// The outcome of `records`, run at `pstates` (one per record), on `procs` processors;
    /// `unfinished_ids` are the jobs never started.
    pub fn of(
        energy: &TraceEnergy,
        records: &[JobRecord],
        pstates: &[u8],
        clusters: &[u8],
        procs: u32,
        unfinished_ids: Vec<u64>,
        day_end: Option<u64>,
    ) -> EnergyOutcome {
        if let Some(machine) = &energy.machine {
            let e = machine.energy(records, clusters, pstates);
            let mut jobs_per_pstate = vec![0; machine.platform.pstate_count()];
            for &p in pstates {
                jobs_per_pstate[p as usize] += 1;
            }
            let busy: f64 = e.per_job_joules.iter().sum();
            return EnergyOutcome {
                model: None,
                budget_joules: energy.budget_joules,
                filter: energy.filter.kind.name().to_string(),
                leniency: energy.filter.leniency,
                horizon_s: day_end.map(|t| t as f64 / 1e6),
                jobs_joules: busy,
                idle_joules: e.total_joules - busy,
                total_joules: e.total_joules,
                total: crate::run::energy_text(e.total_joules),
                jobs_per_pstate,
                unfinished: unfinished_ids.len(),
                unfinished_ids,
                per_job_joules: e.per_job_joules.clone(),
                pstates: pstates.to_vec(),
                clusters: clusters.to_vec(),
                platform: Some(e),
            };
        }
        let m = &energy.model;
        let per_job: Vec<f64> = records
            .iter()
            .zip(pstates)
            .map(|(r, &p)| m.run_joules(r.procs, r.end - r.start, p as usize))
            .collect();
        let mut jobs_per_pstate = vec![0; m.pstates.len()];
        for &p in pstates {
            jobs_per_pstate[p as usize] += 1;
        }
        let first = records.iter().map(|r| r.submit).min().unwrap_or(0);
        let last = records.iter().map(|r| r.end).max().unwrap_or(0);
        let area: u128 = records
            .iter()
            .map(|r| r.procs as u128 * (r.end - r.start) as u128)
            .sum();
        let idle_area = (procs as u128 * last.saturating_sub(first) as u128).saturating_sub(area);
        let idle = m.idle_watts * idle_area as f64 / 1e6;
        let busy: f64 = per_job.iter().sum();
        EnergyOutcome {
            model: Some(m.clone()),
            platform: None,
            budget_joules: energy.budget_joules,
            filter: energy.filter.kind.name().to_string(),
            leniency: energy.filter.leniency,
            horizon_s: day_end.map(|t| t as f64 / 1e6),
            jobs_joules: busy,
            idle_joules: idle,
            total_joules: busy + idle,
            total: crate::run::energy_text(busy + idle),
            jobs_per_pstate,
            unfinished: unfinished_ids.len(),
            unfinished_ids,
            per_job_joules: per_job,
            pstates: pstates.to_vec(),
            clusters: clusters.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_pstate_factors_parse_and_refuse() {
        let p: PStateFactors = "1.25:0.6".parse().unwrap();
        assert_eq!((p.time, p.power), (1.25, 0.6));
        for bad in ["1.25", "0:1", "1:-1", "nan:1", "1:inf", "x:1"] {
            assert!(bad.parse::<PStateFactors>().is_err(), "{bad}");
        }
    }

    #[test]
    fn power_model_checks_and_converts() {
        let m = PowerModel::new(200.0, 50.0, &["2:0.4".parse().unwrap()]).unwrap();
        assert_eq!(m.apc(0), MilliWatts(200_000));
        assert_eq!(m.apc(1), MilliWatts(80_000));
        assert_eq!(m.etc(1_000_000, 1), Micros(2_000_000));
        // 4 processors for 10 s at 200 W: 8 kJ.
        assert_eq!(m.run_joules(4, 10_000_000, 0), 8000.0);
        assert!(PowerModel::new(-1.0, 0.0, &[]).is_err());
        assert!(PowerModel::new(1.0, f64::NAN, &[]).is_err());
        assert!(PowerModel::new(5e6, 0.0, &[]).is_err());
        let four = vec![PStateFactors::NOMINAL; 4];
        assert!(PowerModel::new(1.0, 0.0, &four).is_err());
    }

    #[test]
    fn power_budget_and_filter_go_together() {
        let m = PowerModel::new(100.0, 10.0, &[]).unwrap();
        let mut e = TraceEnergy::measured(m);
        assert!(e.check().is_ok());
        e.filter = EnergyFilter::with_default_leniency(FilterKind::PerTask);
        assert!(e.check().unwrap_err().contains("--budget-joules"));
        e.budget_joules = Some(1e9);
        assert!(e.check().is_ok());
        assert_eq!(e.budget(), MilliJoules(1_000_000_000_000));
        e.filter.leniency = f64::NAN;
        assert!(e.check().is_err());
    }
}

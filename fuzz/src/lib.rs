//! What each fuzz target checks, as plain functions: the targets in `fuzz_targets/` call
//! them under libFuzzer (nightly), and `tests/corpus.rs` runs every checked-in input through
//! them on stable. Each returns normally for any input; a panic, an abort or a failed
//! invariant is the bug the fuzzer reports.

use kairos_core::engine::{Observer, Schedule};
use kairos_core::packed::PackedScenario;
use kairos_core::platform::TaskTypeId;
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::Micros;
use kairos_core::utility::{Urgency, UtilityCurve};
use kairos_core::{Controller, Heuristic};
use kairos_core::{Decision, DecisionKind};
use std::collections::HashMap;
use std::path::Path;

/// The folder scenario paths of a fuzzed experiment file resolve against (the host's test
/// data: `scenario = "experiment_scenario.toml"` names a real scenario).
fn data_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../host/tests/data"))
}

/// A scenario file's text: parsed and range-checked, or a clean error.
pub fn scenario_toml(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = kairos_host::scenario::Scenario::parse(text, "fuzz.toml");
    }
}

/// An experiment file's text: parsed, its scenario loaded and every run expanded, or a clean
/// error.
pub fn experiment_toml(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = kairos_host::experiment::Experiment::parse(text, &data_dir().join("fuzz.toml"));
    }
}

/// An encoded scenario: decoded and, if it decodes, replayed through the core's engine on
/// storage sized from its header, as `kairos digest` does; or a clean error.
pub fn packed_scenario(data: &[u8]) {
    let _ = kairos_host::firmware_scenarios::run(data);
}

/// An SWF log: read (strictly and skipping bad lines) and cleaned for its machine, or a
/// clean error.
pub fn swf(data: &[u8]) {
    use kairos_host::swf::{self, ReadOptions};
    for skip_bad_lines in [false, true] {
        if let Ok(log) = swf::parse("fuzz.swf", data, &ReadOptions { skip_bad_lines }) {
            let procs = log.header.max_procs.unwrap_or(64).clamp(1, 1 << 20);
            let _ = swf::clean(log.jobs, &swf::CleanOptions::strong(procs));
        }
    }
}

/// The platform, utility classes and configuration of the firmware's `upe` scenario (a
/// budgeted day), which the controller target feeds random tasks.
const UPE: &[u8] = include_bytes!("../../firmware/scenarios/upe.bin");

/// Watches a run for the controller target's invariants.
struct Invariants<'p> {
    /// Nodes of each cluster.
    capacity: Vec<u32>,
    /// Nodes in use in each cluster by tasks started and not completed.
    used: Vec<u32>,
    /// Where each started task runs.
    running: HashMap<u32, (usize, u32)>,
    budget: &'p kairos_core::units::MilliJoules,
}

impl Observer for Invariants<'_> {
    fn on_decision(&mut self, d: &Decision) {
        if d.kind == DecisionKind::Start {
            let c = d.cluster.0 as usize;
            assert!(
                self.running.insert(d.task.0, (c, d.nodes.0)).is_none(),
                "task {} started twice",
                d.task.0
            );
            self.used[c] += d.nodes.0;
            assert!(
                self.used[c] <= self.capacity[c],
                "cluster {c} double-booked: {} of {} nodes in use",
                self.used[c],
                self.capacity[c]
            );
        }
    }
    fn on_completion(&mut self, task: TaskId, _at: Micros) {
        if let Some((c, n)) = self.running.remove(&task.0) {
            self.used[c] -= n;
        }
    }
    fn after_mapping(&mut self, _now: Micros, ctl: &Controller<'_>, _decisions: u32) {
        let l = ctl.ledger();
        if !l.is_unlimited() {
            assert!(
                l.consumed().0.saturating_add(l.committed().0) <= self.budget.0,
                "energy over budget: {} consumed + {} committed > {}",
                l.consumed().0,
                l.committed().0,
                self.budget.0
            );
        }
    }
}

/// The core's controller fed random arrivals (their times, types, curves and actual run
/// times), completions (the actual run times decide when) and mapping events (periodic,
/// and at every arrival and completion when the first byte says so), under any heuristic:
/// no panic, no node double-booked, energy never over budget, every task accounted for.
pub fn controller(data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let dec = PackedScenario::decode(UPE).expect("upe.bin decodes");
    let h = dec.header();
    let mut config = h.config;
    config.heuristic = Heuristic::ALL[(head & 7) as usize];
    let schedule = Schedule {
        on_arrival: head & 8 != 0,
        on_completion: head & 16 != 0,
        ..h.schedule
    };
    let types = h.platform.types().len().max(1);
    let classes = h.classes.len().max(1);
    let mut arrival = 0u64;
    let tasks: Vec<Task> = rest
        .chunks_exact(8)
        .take(512)
        .map(|b| {
            // Up to 10 minutes apart: dense enough that the day (two hours) sees many.
            arrival += u16::from_le_bytes([b[0], b[1]]) as u64 % 600;
            Task {
                id: TaskId(0),
                arrival: Micros::from_secs(arrival),
                demand: Demand::Typed(TaskTypeId((b[2] as usize % types) as u16)),
                curve: UtilityCurve::essc(
                    1.0 + b[6] as f64 / 32.0,
                    Urgency::ALL[b[5] as usize % 4],
                    Micros::from_mins(1 + b[6] as u64 % 60),
                    (b[4] as usize % classes) as u8,
                ),
                actual: (b[7] & 1 != 0).then(|| Micros::from_secs(1 + b[3] as u64 * 30)),
            }
        })
        .collect();
    let mut watch = Invariants {
        capacity: h.platform.clusters().iter().map(|c| c.nodes.0).collect(),
        used: vec![0; h.platform.clusters().len()],
        running: HashMap::new(),
        budget: &config.budget,
    };
    let report = kairos_host::storage::simulate(
        &h.platform,
        &h.classes,
        config,
        schedule,
        &tasks,
        &mut watch,
    );
    if let Ok(r) = report {
        // Tasks arriving after the day are not counted as arrived.
        assert!(r.arrived as usize <= tasks.len(), "no task arrives twice");
        assert_eq!(
            r.completed + r.dropped + r.unfinished,
            r.arrived,
            "every task completed, dropped or unfinished"
        );
        if config.budget.0 != u64::MAX {
            assert!(r.energy.0 <= config.budget.0, "energy over budget");
        }
    }
}

//! The firmware's reference scenarios: generated here, encoded with
//! [`kairos_core::packed`], embedded in the firmware image, and replayed on the host by
//! `kairos digest` from the same bytes, so that host and firmware read identical inputs.
//!
//! # The scenarios
//!
//! One small platform and one workload generator, deterministic (ChaCha8 streams from fixed
//! seeds; `libm` for every transcendental function, so the bytes do not depend on the
//! machine's libm):
//!
//! - 3 clusters: 16 nodes x 32 cores and 24 x 40 (general), 32 x 64 (special); 3 P-states
//!   (power x1.0 / x0.75 / x0.5, time x1 / ~x1.2 / ~x1.5);
//! - 10 task types: 7 general ones (clusters 0 and 1), 3 special ones (cluster 2), each with
//!   its own cores, base time, power, priority and urgency;
//! - tasks arrive over 8 simulated hours with a sinusoidal rate; the day measured is
//!   [1 h, 8 h) (the first hour warms up); utility curves are seed 000's piecewise-exponential
//!   ones over [`UtilityClasses::essc20`]; mapping events every 60 s;
//! - an energy budget of [`BUDGET_FRACTION`] of the energy the day's tasks would draw at
//!   P-state 0 on their fastest cluster: it binds.
//!
//! Variants ([`NAMES`]):
//!
//! | name | tasks | heuristic | reservations | energy filter |
//! | --- | --- | --- | --- | --- |
//! | `ph` | [`TASKS`] | Max UPR | place-holders | per resource (leniency 4) |
//! | `upe` | [`TASKS`] | Max UPE | permanent | adaptive |
//! | `overcap` | [`OVERCAP_TASKS`] | as `ph` | | |
//!
//! `overcap` has more tasks than the firmware's task table, to check that a capacity error is
//! reported cleanly there; the host, which sizes its storage to the scenario, runs it fine.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use kairos_core::energy::{EnergyFilter, FilterKind};
use kairos_core::engine::{self, Observer, Report, Schedule};
use kairos_core::error::Error;
use kairos_core::packed::{encode_header, encode_task, EncodeError, PackedHeader, PackedScenario};
use kairos_core::platform::{Cluster, ClusterKind, Placement, Platform, TaskTypeId};
use kairos_core::task::{Demand, Task, TaskId};
use kairos_core::units::{Micros, MilliJoules, MilliWatts, NodeCount};
use kairos_core::utility::{Urgency, UtilityClasses, UtilityCurve};
use kairos_core::{Config, Controller};
use kairos_core::{Heuristic, Reservations};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::storage::HostStorage;

/// The scenarios `kairos firmware-scenario` writes, in order.
pub const NAMES: [&str; 3] = ["ph", "upe", "overcap"];
/// Tasks of the `ph` and `upe` scenarios.
pub const TASKS: u32 = 360;
/// Tasks of the `overcap` scenario: more than the firmware's task table (512).
pub const OVERCAP_TASKS: u32 = 600;
/// The energy budget as a fraction of the day's demand at P-state 0 on the fastest cluster.
pub const BUDGET_FRACTION: f64 = 0.5;
/// Seed of the platform's and the workload's streams.
pub const SEED: u64 = 0x6b61_6972_6f73_4657; // "kairosFW"

/// Where the encoded scenarios live in the source tree (`firmware/scenarios`).
pub fn scenario_dir() -> PathBuf {
    let host = Path::new(env!("CARGO_MANIFEST_DIR"));
    host.parent()
        .unwrap_or(host)
        .join("firmware")
        .join("scenarios")
}

/// A scenario before encoding.
#[derive(Clone, Debug, PartialEq)]
pub struct FirmwareScenario {
    /// Its name (one of [`NAMES`]).
    pub name: &'static str,
    /// Platform, classes, configuration, schedule and task count.
    pub header: PackedHeader,
    /// The tasks, in arrival order.
    pub tasks: Vec<Task>,
}

/// The scenario called `name` (one of [`NAMES`]).
pub fn scenario(name: &str) -> anyhow::Result<FirmwareScenario> {
    let (name, heuristic, reservations, filter, n) = match name {
        "ph" => (
            "ph",
            Heuristic::MaxUpr,
            Reservations::PlaceHolder,
            FilterKind::PerResource,
            TASKS,
        ),
        "upe" => (
            "upe",
            Heuristic::MaxUpe,
            Reservations::Permanent,
            FilterKind::Adaptive,
            TASKS,
        ),
        "overcap" => (
            "overcap",
            Heuristic::MaxUpr,
            Reservations::PlaceHolder,
            FilterKind::PerResource,
            OVERCAP_TASKS,
        ),
        other => bail!(
            "unknown firmware scenario {other:?} (expected one of {})",
            NAMES.join(", ")
        ),
    };
    let (platform, types) = platform().context("building the reference platform")?;
    let tasks = workload(&platform, &types, n);
    let (day_start, day_end) = (Micros::from_hours(1), Micros::from_hours(8));
    let mut config = Config::new(heuristic, day_start, day_end);
    config.reservations = reservations;
    config.filter = EnergyFilter::with_default_leniency(filter);
    config.budget = budget(&platform, &tasks, day_start, day_end);
    let header = PackedHeader {
        platform,
        classes: UtilityClasses::essc20(),
        config,
        schedule: Schedule::every(Micros::MINUTE),
        tasks: n,
    };
    Ok(FirmwareScenario {
        name,
        header,
        tasks,
    })
}

/// The encoding of `s` ([`kairos_core::packed`]): what the firmware embeds.
pub fn encode(s: &FirmwareScenario) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let n = encode_grow(&mut buf, |b| encode_header(&s.header, b));
    out.extend_from_slice(&buf[..n]);
    for t in &s.tasks {
        let n = encode_grow(&mut buf, |b| encode_task(t, b));
        out.extend_from_slice(&buf[..n]);
    }
    out
}

fn encode_grow(buf: &mut Vec<u8>, f: impl Fn(&mut [u8]) -> Result<usize, EncodeError>) -> usize {
    loop {
        match f(buf) {
            Ok(n) => return n,
            Err(EncodeError::BufferFull) => {
                let len = buf.len() * 2;
                buf.resize(len, 0);
            }
            Err(e) => panic!("encoding a scenario: {e}"),
        }
    }
}

/// The encoded scenario called `name`.
pub fn encoded(name: &str) -> anyhow::Result<Vec<u8>> {
    Ok(encode(&scenario(name)?))
}

/// The encoded bytes `scenario` names: a file if it names one (or looks like a path: it has a
/// `/` or ends in `.bin`), else a reference scenario's name (`kairos digest`'s argument).
pub fn load(scenario: &str) -> anyhow::Result<Vec<u8>> {
    let path = Path::new(scenario);
    if path.is_file() || scenario.contains('/') || scenario.ends_with(".bin") {
        return crate::bounded::read(path, crate::bounded::BINARY_FILE_BYTES, "packed scenario")
            .with_context(|| format!("reading {}", path.display()));
    }
    encoded(scenario)
}

/// What [`write_files`] found for one scenario's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileState {
    /// It already held the scenario's bytes.
    UpToDate,
    /// It was written (it was missing or stale).
    Written,
    /// Missing or stale, and left so (a check only).
    Stale,
}

/// One scenario's file as [`write_files`] left it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// `<dir>/<name>.bin`.
    pub path: PathBuf,
    /// The length of the scenario's encoding.
    pub bytes: usize,
    /// Whether it was up to date, written or stale.
    pub state: FileState,
}

/// Encodes every scenario of [`NAMES`] and writes it to `<dir>/<name>.bin` where the file is
/// missing or differs (creating `dir`); with `check_only`, writes nothing and reports such
/// files as [`FileState::Stale`]. Returns one report a scenario, in [`NAMES`] order.
pub fn write_files(dir: &Path, check_only: bool) -> anyhow::Result<Vec<FileReport>> {
    if !check_only {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut out = Vec::with_capacity(NAMES.len());
    for name in NAMES {
        let bytes = encoded(name)?;
        let path = dir.join(format!("{name}.bin"));
        let current =
            crate::bounded::read(&path, crate::bounded::BINARY_FILE_BYTES, "packed scenario").ok();
        let state = if current.as_deref() == Some(&bytes[..]) {
            FileState::UpToDate
        } else if check_only {
            FileState::Stale
        } else {
            // Regenerating is this command's purpose (git keeps the old files); written
            // whole, so an interruption never leaves the firmware half a scenario.
            crate::output::write_atomic(&path, &bytes)?;
            FileState::Written
        };
        out.push(FileReport {
            path,
            bytes: bytes.len(),
            state,
        });
    }
    Ok(out)
}

// ----- Running an encoded scenario, as the firmware does. -----

/// What the firmware logs after a mapping event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EventLine {
    /// Index of the mapping event, from 0.
    pub event: u32,
    /// Decisions it took (drops, starts, reservations, place-holders).
    pub decisions: u32,
    /// Utility earned so far, in micro-units.
    pub utility: u64,
    /// Energy consumed so far, in millijoules.
    pub energy_mj: u64,
}

impl fmt::Display for EventLine {
    /// `event <n> decisions <n> utility <n> energy_mj <n>`, as the firmware logs it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event {} decisions {} utility {} energy_mj {}",
            self.event, self.decisions, self.utility, self.energy_mj
        )
    }
}

/// The firmware's `totals` line for `r`.
pub fn totals_line(r: &Report) -> String {
    format!(
        "totals completed {} dropped {} unfinished {} utility {} energy_mj {}",
        r.completed, r.dropped, r.unfinished, r.utility.0, r.energy.0
    )
}

/// The firmware's `digest` line for `r`.
pub fn digest_line(r: &Report) -> String {
    format!("digest {:016x}", r.digest)
}

/// A host run of an encoded scenario.
#[derive(Clone, Debug)]
pub struct HostRun {
    /// The scenario's header.
    pub header: PackedHeader,
    /// One line per mapping event.
    pub events: Vec<EventLine>,
    /// The replay's report (totals and digest).
    pub report: Report,
}

/// Records what the firmware logs after each mapping event.
#[derive(Default)]
struct Recorder {
    events: Vec<EventLine>,
}

impl Observer for Recorder {
    fn after_mapping(&mut self, _now: Micros, ctl: &Controller<'_>, decisions: u32) {
        self.events.push(EventLine {
            event: ctl.counts().mapping_events - 1,
            decisions,
            utility: ctl.utility().0,
            energy_mj: ctl.ledger().consumed().0,
        });
    }
}

/// Why [`run`] could not replay an encoded scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The core refused the bytes (a corrupt or inconsistent scenario) or ran out of room.
    Core(Error),
    /// The header's platform and task count need more scheduler storage than
    /// [`crate::limits::MAX_STORAGE_BYTES`]: refused before anything is allocated, as a
    /// TOML scenario is.
    Storage {
        /// Nodes over all clusters.
        nodes: u64,
        /// The header's task count.
        tasks: u32,
        /// The storage they would need, in bytes.
        need: u128,
    },
}

impl From<Error> for RunError {
    fn from(e: Error) -> RunError {
        RunError::Core(e)
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Core(e) => e.fmt(f),
            RunError::Storage { nodes, tasks, need } => write!(
                f,
                "the header's platform of {nodes} nodes (and {tasks} tasks) needs {} of \
                 scheduler storage, over the limit of {}",
                crate::limits::bytes_text(*need),
                crate::limits::bytes_text(crate::limits::MAX_STORAGE_BYTES)
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// Decodes `bytes` and replays the scenario through the core's engine with host
/// storage sized to it, decoding the tasks one at a time as the firmware does.
pub fn run(bytes: &[u8]) -> Result<HostRun, RunError> {
    let enc = PackedScenario::decode(bytes)?;
    let header = enc.header().clone();
    // The task count sizes the storage: a corrupt one (4e9) would ask the allocator for
    // terabytes. Every task takes at least one byte, so more tasks than bytes is corrupt.
    if header.tasks as usize > bytes.len() {
        return Err(Error::from(kairos_core::error::InputError::Undecodable(0)).into());
    }
    // So do the node counts (a cluster of 2^24 nodes in a 60-byte file): the same bound
    // as a TOML scenario's, checked before the storage is built.
    let (nodes, need) = crate::storage::platform_need(&header.platform, header.tasks as u64);
    if need > crate::limits::MAX_STORAGE_BYTES {
        return Err(RunError::Storage {
            nodes,
            tasks: header.tasks,
            need,
        });
    }
    let mut storage = HostStorage::new(&header.platform, header.tasks as usize);
    let parts = storage.split();
    let mut rec = Recorder::default();
    let report = {
        let mut ctl = Controller::new(
            &header.platform,
            &header.classes,
            header.config,
            parts.controller,
        )?;
        // The firmware's engine, without the table of pending ends it has no room for.
        engine::run(
            &mut ctl,
            enc.tasks(),
            header.schedule,
            parts.pending,
            &mut rec,
        )?
    };
    Ok(HostRun {
        header,
        events: rec.events,
        report,
    })
}

// ----- The generator. -----

/// What a task type's tasks share beyond its placements.
#[derive(Clone, Copy, Debug)]
struct TypeInfo {
    priority: f64,
    urgency: Urgency,
    /// Mean execution time over its eligible clusters at P-state 0 (the first interval's base).
    mean_exec: Micros,
}

/// Uniform draws, Gaussians and choices from one ChaCha8 stream.
struct Draws(ChaCha8Rng);

impl Draws {
    fn new(stream: u64) -> Draws {
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        rng.set_stream(stream);
        Draws(rng)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit(); // (0, 1]
        let u2 = self.unit();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * core::f64::consts::PI * u2)
    }
}

const CLUSTERS: [Cluster; 3] = [
    Cluster {
        nodes: NodeCount(16),
        cores_per_node: 32,
        kind: ClusterKind::General,
    },
    Cluster {
        nodes: NodeCount(24),
        cores_per_node: 40,
        kind: ClusterKind::General,
    },
    Cluster {
        nodes: NodeCount(32),
        cores_per_node: 64,
        kind: ClusterKind::Special,
    },
];
const PSTATES: u8 = 3;
const GENERAL_TYPES: usize = 7;
const SPECIAL_TYPES: usize = 3;
const CORE_CHOICES: [u64; 6] = [16, 32, 64, 128, 256, 512];

fn platform() -> Result<(Platform, Vec<TypeInfo>), Error> {
    let mut d = Draws::new(1);
    let mut platform = Platform::new(&CLUSTERS, PSTATES)?;
    let mut infos = Vec::new();
    for t in 0..GENERAL_TYPES + SPECIAL_TYPES {
        let eligible: &[usize] = if t < GENERAL_TYPES { &[0, 1] } else { &[2] };
        let cores = CORE_CHOICES[d.below(CORE_CHOICES.len() as u64) as usize];
        // Log-normal base time around 25 minutes at P-state 0.
        let base_min = 25.0 * libm::exp(0.5 * d.normal());
        let apc_w = 133.0 * d.uniform(0.8, 1.2);
        let mut placements = [None; 3];
        let mut total = 0u64;
        for &c in eligible {
            let cl = CLUSTERS[c];
            let nodes = cl
                .nodes_for_cores(kairos_core::units::Cores(cores))
                .0
                .clamp(1, cl.nodes.0 / 2);
            let t0 = base_min * d.uniform(0.75, 1.25);
            let time_scale = [1.0, d.uniform(1.1, 1.3), d.uniform(1.35, 1.7)];
            let power_scale = [1.0, 0.75, 0.5];
            let mut p = Placement {
                nodes: NodeCount(nodes),
                etc: [Micros::ZERO; 4],
                apc: [MilliWatts(0); 4],
            };
            for ps in 0..PSTATES as usize {
                p.etc[ps] = Micros::from_secs_f64(t0 * time_scale[ps] * 60.0);
                let w = apc_w * power_scale[ps] * d.uniform(0.95, 1.05);
                p.apc[ps] = MilliWatts(libm::round(w * 1000.0) as u32);
            }
            total += p.etc[0].0;
            placements[c] = Some(p);
        }
        platform.add_resolved_type(&placements)?;
        infos.push(TypeInfo {
            priority: d.uniform(1.0, 8.0),
            urgency: Urgency::ALL[d.below(4) as usize],
            mean_exec: Micros(total / eligible.len() as u64),
        });
    }
    Ok((platform, infos))
}

/// `n` tasks over 8 hours, sorted by arrival: the rate follows one sinusoid over the period
/// (amplitude 0.6 of the mean), types are equally likely, classes uniform over the 20.
fn workload(platform: &Platform, types: &[TypeInfo], n: u32) -> Vec<Task> {
    let mut d = Draws::new(2);
    let horizon = Micros::from_hours(8).as_secs_f64();
    let mut arrivals: Vec<Micros> = (0..n)
        .map(|_| loop {
            // Rejection sampling from a density proportional to 1 + 0.6 sin(2 pi t / horizon).
            let t = d.uniform(0.0, horizon);
            let w = (1.0 + 0.6 * libm::sin(2.0 * core::f64::consts::PI * t / horizon)) / 1.6;
            if d.unit() < w {
                break Micros::from_secs_f64(t);
            }
        })
        .collect();
    arrivals.sort();
    let classes = UtilityClasses::essc20().len() as u64;
    arrivals
        .into_iter()
        .enumerate()
        .map(|(i, arrival)| {
            let ty = d.below(platform.types().len() as u64) as usize;
            let info = types[ty];
            Task {
                id: TaskId(i as u32),
                arrival,
                demand: Demand::Typed(TaskTypeId(ty as u16)),
                curve: UtilityCurve::essc(
                    info.priority,
                    info.urgency,
                    info.mean_exec,
                    d.below(classes) as u8,
                ),
                actual: None,
            }
        })
        .collect()
}

/// [`BUDGET_FRACTION`] of the energy the tasks arriving in the day would draw at P-state 0 on
/// their fastest cluster.
fn budget(platform: &Platform, tasks: &[Task], day_start: Micros, day_end: Micros) -> MilliJoules {
    let demand: u64 = tasks
        .iter()
        .filter(|t| t.arrival >= day_start && t.arrival < day_end)
        .filter_map(|t| {
            let table = t.table(platform).ok()?;
            table
                .placements
                .iter()
                .flatten()
                .min_by_key(|p| p.etc[0])
                .map(|p| p.energy(kairos_core::platform::PState(0)).0)
        })
        .sum();
    MilliJoules(libm::round(demand as f64 * BUDGET_FRACTION) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_are_deterministic_and_round_trip() {
        for name in NAMES {
            let a = encoded(name).unwrap();
            assert_eq!(a, encoded(name).unwrap(), "{name}");
            let s = scenario(name).unwrap();
            let enc = PackedScenario::decode(&a).unwrap();
            assert_eq!(enc.header(), &s.header);
            let tasks: Vec<Task> = enc.tasks().map(|t| t.unwrap()).collect();
            assert_eq!(tasks, s.tasks);
        }
        assert!(scenario("nope").is_err());
    }
}

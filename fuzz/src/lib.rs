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

/// Tasks of the longest encoded scenario the `packed_scenario` target runs.
pub const PACKED_RUN_TASKS: u32 = 64;

/// Nodes of the largest platform the `packed_scenario` target runs (the firmware has 96).
pub const PACKED_RUN_NODES: u64 = 1024;

/// Periodic mapping events of the longest day the `packed_scenario` target runs (`upe`'s
/// day has 480): the decoder admits up to 36 million, a few seconds of empty events each.
pub const PACKED_RUN_MAPPINGS: u64 = 20_000;

/// An encoded scenario: decoded and, if it decodes, replayed through the core's engine on
/// storage sized from its header, as `kairos digest` does; or a clean error. A run costs in
/// proportion to its tasks and its nodes, and the fuzzer would spend its time on the days
/// of the checked-in scenarios and on platforms of tens of thousands of nodes (its corpus
/// drifted there, at a few hundred executions a second, and then to days of millions of
/// mapping events a second apart): a scenario of more than [`PACKED_RUN_TASKS`] tasks, of
/// more than [`PACKED_RUN_MAPPINGS`] periodic mapping events, or on a platform of more than
/// [`PACKED_RUN_NODES`] nodes that the storage limit admits, is decoded whole (its header
/// and every task) without running.
/// A platform over the storage limit still goes to the run, which must refuse it before
/// allocating.
pub fn packed_scenario(data: &[u8]) {
    let Ok(enc) = PackedScenario::decode(data) else {
        return;
    };
    let h = enc.header();
    let (nodes, need) = kairos_host::storage::platform_need(&h.platform, h.tasks as u64);
    let refused = need > kairos_host::limits::MAX_STORAGE_BYTES;
    let interval = match h.schedule.interval.0 {
        0 => kairos_core::units::Micros::MINUTE.0,
        i => i,
    };
    let mappings = h.config.day_end.0 / interval;
    if h.tasks <= PACKED_RUN_TASKS
        && mappings <= PACKED_RUN_MAPPINGS
        && (nodes <= PACKED_RUN_NODES || refused)
    {
        let run = kairos_host::firmware_scenarios::run(data);
        // (A task count over the byte count is refused first, as corrupt.)
        if refused && h.tasks as usize <= data.len() {
            assert!(
                matches!(
                    run,
                    Err(kairos_host::firmware_scenarios::RunError::Storage { .. })
                ),
                "a platform over the storage limit was not refused"
            );
        }
    } else {
        for task in enc.tasks() {
            if task.is_err() {
                break;
            }
        }
    }
}

/// A Batsim workload JSON file: read (as `kairos replay` reads it) and turned into
/// a replay's jobs on its own machine and on a smaller one, or a clean error. A workload that
/// reads has jobs, each within `nb_res`; a loaded trace is in submit order.
pub fn batsim_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(w) = kairos_host::batsim::parse_workload(text, "fuzz.json".into()) else {
        return;
    };
    assert!(!w.jobs.is_empty(), "a workload that reads has jobs");
    assert!(
        w.jobs.iter().all(|j| j.res >= 1 && j.res <= w.nb_res),
        "every job within nb_res"
    );
    for procs in [None, Some(w.nb_res.min(64))] {
        if let Ok(t) = w.loaded(procs) {
            assert_eq!(t.jobs.len(), w.jobs.len(), "every job loaded");
            assert!(
                t.jobs.windows(2).all(|p| p[0].submit <= p[1].submit),
                "a loaded trace is in submit order"
            );
        }
    }
}

/// An SWF log: read whole (strictly and skipping bad lines), its order checked, cleaned for
/// its machine and converted; and read as a stream (cleaned, strict about order and not),
/// job by job; or a clean error. The stream keeps the promise of its module doc: the jobs
/// it hands out are in submit order.
pub fn swf(data: &[u8]) {
    use kairos_host::swf::{self, ReadOptions, SwfStream};
    for skip_bad_lines in [false, true] {
        let read = ReadOptions { skip_bad_lines };
        if let Ok(log) = swf::parse("fuzz.swf", data, &read) {
            let _ = log.order.strict(&log.file);
            let _ = log.order.to_string();
            let procs = log.header.max_procs.unwrap_or(64).clamp(1, 1 << 20);
            let (jobs, report) = swf::clean(log.jobs, &swf::CleanOptions::strong(procs));
            assert_eq!(
                report.input,
                report.kept + report.dropped(),
                "every job counted"
            );
            let _ = swf::replay_jobs(&jobs);
        }
        for (clean, strict) in [(false, false), (true, true)] {
            let reader = Box::new(std::io::Cursor::new(data.to_vec()));
            let Ok(mut s) =
                SwfStream::from_reader("fuzz.swf", Path::new("fuzz.swf"), reader, &read)
            else {
                continue;
            };
            if clean {
                let procs = s.header().max_procs.unwrap_or(64).clamp(1, 1 << 20);
                s.clean_with(swf::CleanOptions::strong(procs));
            }
            s.strict(strict);
            let mut last = 0;
            while let Ok(Some(job)) = s.next_job() {
                assert!(
                    job.submit >= last,
                    "a stream hands out jobs in submit order"
                );
                last = job.submit;
            }
        }
    }
}

/// Bytes from the link, as the live controller's serve loop reads them: first through the
/// frame decoder and both message decoders directly, then as a session. Byte 0 says whether
/// a hello of `upe`'s header opens the session (bit 0) and whether the rest goes to the wire
/// raw (bit 1) or as messages: `[length][payload]` pieces, each put in a sound frame, so
/// that the fuzzer works on the messages rather than on guessing CRCs. No panic; every
/// answer is a sound frame holding a response; a request is answered once, retries from
/// the cache.
pub fn wire(data: &[u8]) {
    use kairos_core::wire::frame::{self, Reader};
    use kairos_core::wire::message::{self, Envelope, Request, Response, MAX_PAYLOAD, VERSION};
    let mut raw = data.to_vec();
    if let Ok(p) = frame::decode(&mut raw) {
        let _ = message::decode::<Request>(p);
        let _ = message::decode::<Response>(p);
    }
    let _ = message::decode::<Request>(data);
    let _ = message::decode::<Response>(data);
    let _ = message::peek_seq(data);
    // A reader too small for most frames: overflows are errors, never writes out of bounds.
    let mut small = Reader::new([0u8; 24]);
    for &b in data {
        let _ = small.push(b);
    }

    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let frame_len = frame::max_encoded_len(MAX_PAYLOAD);
    let mut input = Vec::new();
    let mut scratch = vec![0u8; MAX_PAYLOAD];
    let mut out = vec![0u8; frame_len];
    if head & 1 != 0 {
        let mut hb = vec![0u8; MAX_PAYLOAD];
        let n = kairos_core::packed::encode_header(upe(), &mut hb).expect("upe's header");
        let hello = Envelope {
            seq: 1,
            body: Request::Hello {
                version: VERSION,
                header: &hb[..n],
            },
        };
        let len = message::encode(&hello, &mut scratch, &mut out).expect("a hello encodes");
        input.extend_from_slice(&out[..len]);
    }
    if head & 2 != 0 {
        input.extend_from_slice(rest);
    } else {
        let mut at = rest;
        while let Some((&len, tail)) = at.split_first() {
            let (payload, tail) = tail.split_at((len as usize).min(tail.len()));
            let n = frame::encode(payload, &mut out).expect("a short payload frames");
            input.extend_from_slice(&out[..n]);
            at = tail;
        }
    }
    let answers = serve_session(input);
    let mut reader = Reader::new(vec![0u8; frame_len]);
    for &b in &answers {
        if let Some(p) = reader.push(b) {
            let p = p.expect("the controller sends sound frames");
            message::decode::<Response>(p).expect("the controller sends responses");
        }
    }
}

/// The core's serve loop over `input` on host buffers sized for `upe`'s platform and 16
/// tasks; what it wrote. Sessions run one after another on one thread with room for a
/// hello's platform on its stack, over the same buffers (as the firmware serves them):
/// a thread and fresh buffers an input would be most of the target's time.
fn serve_session(input: Vec<u8>) -> Vec<u8> {
    use std::sync::{mpsc, Mutex, OnceLock};
    type Answer = std::thread::Result<Vec<u8>>;
    /// A session's input and where its answer goes.
    type Session = (Vec<u8>, mpsc::Sender<Answer>);
    static SESSIONS: OnceLock<Mutex<mpsc::Sender<Session>>> = OnceLock::new();
    let sessions = SESSIONS.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Session>();
        std::thread::Builder::new()
            .name("serve".into())
            .stack_size(16 << 20)
            .spawn(move || {
                let mut bufs = SessionBuffers::new();
                for (input, back) in rx {
                    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        bufs.serve(input)
                    }));
                    let _ = back.send(answer);
                }
            })
            .expect("a thread for the sessions");
        Mutex::new(tx)
    });
    let (back, answer) = mpsc::channel();
    sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send((input, back))
        .expect("the session thread runs");
    answer
        .recv()
        .expect("the session thread answers")
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// What the serve loop works in, kept from session to session.
struct SessionBuffers {
    storage: kairos_host::storage::HostStorage,
    header: Box<std::mem::MaybeUninit<kairos_core::packed::PackedHeader>>,
    decisions: Vec<kairos_core::wire::message::Decided>,
    rx: Vec<u8>,
    tx: Vec<u8>,
    scratch: Vec<u8>,
}

impl SessionBuffers {
    fn new() -> SessionBuffers {
        use kairos_core::platform::{ClusterId, PState};
        use kairos_core::units::NodeCount;
        use kairos_core::wire::frame;
        use kairos_core::wire::message::{Decided, Fate, MAX_PAYLOAD};
        let blank = Decided {
            decision: Decision {
                task: TaskId(0),
                kind: DecisionKind::Drop,
                cluster: ClusterId(0),
                nodes: NodeCount(0),
                pstate: PState(0),
                start: Micros::ZERO,
                end: Micros::ZERO,
            },
            fate: Fate::None,
        };
        let n = frame::max_encoded_len(MAX_PAYLOAD);
        SessionBuffers {
            storage: kairos_host::storage::HostStorage::with_caches(&upe().platform, 16, 64, 0),
            header: Box::new(std::mem::MaybeUninit::uninit()),
            decisions: vec![blank; 64],
            rx: vec![0; n],
            tx: vec![0; n],
            scratch: vec![0; MAX_PAYLOAD],
        }
    }

    fn serve(&mut self, input: Vec<u8>) -> Vec<u8> {
        use kairos_core::wire::serve::{serve, Buffers, NoWatch, Port};
        struct Script {
            input: Vec<u8>,
            at: usize,
            output: Vec<u8>,
        }
        impl Port for Script {
            fn read(&mut self) -> Option<u8> {
                let b = self.input.get(self.at).copied();
                self.at += 1;
                b
            }
            fn write(&mut self, bytes: &[u8]) {
                self.output.extend_from_slice(bytes);
            }
        }
        let mut port = Script {
            input,
            at: 0,
            output: Vec::new(),
        };
        let parts = self.storage.split();
        serve(
            &mut port,
            Buffers {
                header: &mut self.header,
                storage: parts.controller,
                decisions: &mut self.decisions,
                rx: &mut self.rx,
                tx: &mut self.tx,
                scratch: &mut self.scratch,
            },
            &mut NoWatch,
        );
        port.output
    }
}

/// A seed 003 scenario file's text, and a seed 003 experiment file's (its scenario found
/// beside the repository's `experiments/`): parsed and checked, the grid sized before it is
/// built, or a clean error.
pub fn seed003_toml(data: &[u8]) {
    use kairos_host::seed003::{experiment::Seed003Experiment, model::Model};
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Model::parse(text, "fuzz.toml");
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../experiments/fuzz.toml"
        ));
        let _ = Seed003Experiment::parse(text, "fuzz.toml", path);
    }
}

/// A seed 003 profile cache file (PBA's profiles of a trial's jobs, read back to skip the
/// genetic search): any bytes are the profiles of the four jobs it is read for, each
/// re-evaluated, or `None` (a damaged file is recomputed); never a panic.
pub fn seed003_profile_cache(data: &[u8]) {
    use kairos_core::units::MilliWatts;
    use kairos_host::seed003::{generate, model::Workload, profile};
    use std::sync::OnceLock;
    static JOBS: OnceLock<Vec<generate::Job>> = OnceLock::new();
    let jobs = JOBS.get_or_init(|| {
        let w = Workload::default();
        (0..4)
            .map(|i| generate::job(9, 0, i, &w).expect("a job"))
            .collect()
    });
    let t = kairos_core::dag::power::DvfsTable::r1(MilliWatts(600));
    if let Some(ps) = profile::parse_cache(data, jobs, &t) {
        assert_eq!(ps.len(), jobs.len(), "a profile list a job");
    }
}

/// The platform, utility classes and configuration of the firmware's `upe` scenario (a
/// budgeted day), which the controller target feeds random tasks.
const UPE: &[u8] = include_bytes!("../../firmware/scenarios/upe.bin");

/// Most tasks the controller target feeds one run.
const CONTROLLER_TASKS: usize = 128;

/// `upe`'s header, decoded once.
fn upe() -> &'static kairos_core::packed::PackedHeader {
    static HEADER: std::sync::OnceLock<kairos_core::packed::PackedHeader> =
        std::sync::OnceLock::new();
    HEADER.get_or_init(|| {
        PackedScenario::decode(UPE)
            .expect("upe.bin decodes")
            .header()
            .clone()
    })
}

thread_local! {
    /// The controller target's storage: `upe`'s platform and [`CONTROLLER_TASKS`] tasks, with
    /// small caches (their sizes change no decision).
    static STORAGE: std::cell::RefCell<kairos_host::storage::HostStorage> =
        std::cell::RefCell::new(kairos_host::storage::HostStorage::with_caches(
            &upe().platform,
            CONTROLLER_TASKS,
            256,
            kairos_host::storage::VOIDS_PER_NODE,
        ));
}

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
/// times), completions (the actual run times decide when) and mapping events (every 1, 5 or
/// 15 minutes, and at every arrival and completion when the first byte says so, or only at
/// arrivals and completions), under any heuristic:
/// no panic, no node double-booked, energy never over budget, every task accounted for.
pub fn controller(data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let h = upe();
    let mut config = h.config;
    config.heuristic = Heuristic::ALL[(head & 7) as usize];
    // Bits 5-6 pick the mapping events: the scenario's minute, every 5 or 15 minutes, or
    // only at arrivals and completions (trace replay's schedule, with no periodic events).
    let schedule = match (head >> 5) & 3 {
        3 => Schedule::on_events(),
        period => Schedule {
            interval: match period {
                0 => h.schedule.interval,
                1 => Micros::from_mins(5),
                _ => Micros::from_mins(15),
            },
            on_arrival: head & 8 != 0,
            on_completion: head & 16 != 0,
            ..h.schedule
        },
    };
    let types = h.platform.types().len().max(1);
    let classes = h.classes.len().max(1);
    let mut arrival = 0u64;
    let tasks: Vec<Task> = rest
        .chunks_exact(8)
        .take(CONTROLLER_TASKS)
        .map(|b| {
            // Up to 3 minutes apart: the tasks contend for the nodes, and the run (a mapping
            // event a minute until the last task is done) stays short.
            arrival += u16::from_le_bytes([b[0], b[1]]) as u64 % 180;
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
    // One storage a thread, used again by every input: the controller and the engine take
    // whatever their storage holds (the live firmware serves session after session on the
    // same tables), and zeroing megabytes an input would be most of the target's time.
    let report = STORAGE.with_borrow_mut(|storage| {
        let parts = storage.split();
        let mut ctl = Controller::new(&h.platform, &h.classes, config, parts.controller)?;
        kairos_core::engine::Engine::new(schedule, parts.pending)
            .with_pending_ends(parts.ends)
            .run(&mut ctl, tasks.iter().cloned().map(Ok), &mut watch)
    });
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

/// The scratch folder of this process ([`scratch`]), removed when it exits.
static SCRATCH: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// The prefix of a process's scratch folder; the process id follows.
const SCRATCH_PREFIX: &str = "kairos-fuzz-";

/// Removes the scratch folder at the process's exit (libFuzzer ends a run with `exit`, which
/// runs no destructors). A crash's `abort` and libFuzzer's Ctrl-C (`_Exit`) run nothing:
/// what they leave is an empty folder or one input, which the next process removes
/// ([`remove_stale`]), and the scripts' folder (`KAIROS_FUZZ_SCRATCH`) goes with their `trap`.
extern "C" fn remove_scratch() {
    if let Some(d) = SCRATCH.get() {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Removes the scratch folders in `base` of processes that are gone (`/proc/<pid>` absent):
/// those a crash or a Ctrl-C left.
pub fn remove_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(SCRATCH_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// This process's scratch folder: in `KAIROS_FUZZ_SCRATCH` if set (scripts/fuzz.sh,
/// scripts/fuzz-long.sh), else under `/dev/shm` where there is one, so a run costs no disk;
/// stale folders beside it removed first, this one removed at exit.
pub fn scratch_dir() -> &'static Path {
    SCRATCH.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let base = match std::env::var_os("KAIROS_FUZZ_SCRATCH") {
            Some(d) => std::path::PathBuf::from(d),
            None if shm.is_dir() => shm.to_path_buf(),
            None => std::env::temp_dir(),
        };
        if Path::new("/proc/self").exists() {
            remove_stale(&base);
        }
        let d = base.join(format!("{SCRATCH_PREFIX}{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("a scratch folder");
        // SAFETY: registers a function without arguments that only removes a folder.
        unsafe { libc::atexit(remove_scratch) };
        d
    })
}

/// A scratch file removed when dropped, a failed check's unwinding included.
struct ScratchFile(std::path::PathBuf);

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `check` on a file holding `data`, for the readers that take a path (the experiment
/// files, whose errors name it, and the shard files), in this process's [`scratch_dir`];
/// the file is removed once `check` returns, so an input lives no longer than its check.
fn with_scratch(name: &str, data: &[u8], check: impl FnOnce(&Path)) {
    let f = ScratchFile(scratch_dir().join(name));
    std::fs::write(&f.0, data).expect("a scratch file");
    check(&f.0);
}

/// Each label once: two configurations with one label would be reported as one.
fn labels_unique<'a>(labels: impl Iterator<Item = &'a str>) {
    let mut seen = std::collections::HashSet::new();
    for l in labels {
        assert!(seen.insert(l.to_string()), "label {l:?} twice");
    }
}

/// A seed 002 experiment file (`system = "serial"` or `"serial-energy"`): loaded and
/// checked, or a clean error; a loaded one has trials, configurations, and each label once.
pub fn seed002_toml(data: &[u8]) {
    with_scratch("seed002.toml", data, seed002_checks);
}

/// [`seed002_toml`]'s checks of the file at `p`.
fn seed002_checks(p: &Path) {
    use kairos_host::seed002::energy::experiment::EnergyExperiment;
    use kairos_host::seed002::serial::experiment::SerialExperiment;
    if let Ok(e) = SerialExperiment::load(p) {
        assert!((1..=100_000).contains(&e.trials));
        assert!(
            e.workload.tasks_per_day >= 1.0,
            "{}",
            e.workload.tasks_per_day
        );
        labels_unique(e.configs.iter().map(|c| c.label.as_str()));
    }
    if let Ok(e) = EnergyExperiment::load(p) {
        assert!((1..=100_000).contains(&e.trials));
        labels_unique(e.configs.iter().map(|c| c.label.as_str()));
    }
}

/// Tasks of the largest pareto instance the `pareto_toml` target builds.
pub const PARETO_INSTANCE_TASKS: usize = 256;

/// A seed 002 Pareto file (`system = "pareto"` or `"pareto-stochastic"`): loaded and
/// checked, its instance built when it is small, or a clean error; a loaded one has
/// increasing checkpoints and each population name once.
pub fn pareto_toml(data: &[u8]) {
    with_scratch("pareto.toml", data, pareto_checks);
}

/// [`pareto_toml`]'s checks of the file at `p`.
fn pareto_checks(p: &Path) {
    use kairos_host::seed002::pareto::experiment::ParetoExperiment;
    use kairos_host::seed002::pareto::stochastic_run::StochasticExperiment;
    if let Ok(e) = ParetoExperiment::load(p) {
        assert!(e.checkpoints.windows(2).all(|w| w[0] < w[1]));
        labels_unique(e.populations.iter().map(|q| q.name.as_str()));
        if e.tasks.is_some_and(|t| t <= PARETO_INSTANCE_TASKS) {
            let _ = e.instance();
        }
    }
    let _ = StochasticExperiment::load(p);
}

/// A shard file or a saved step, as `kairos merge` and `--resume` read them: an experiment
/// shard, a knapsack shard, a seed 002 experiment shard, a seed 002 saved trial (serial and energy rows), or a clean
/// error naming the file and line; no value read is NaN or infinite.
pub fn shard_rows(data: &[u8]) {
    with_scratch("shard-1-of-1.shard", data, shard_checks);
}

/// [`shard_rows`]'s checks of the file at `p`.
fn shard_checks(p: &Path) {
    use kairos_host::experiment::saved::Steps;
    use kairos_host::seed002::saved_rows;
    let _ = kairos_host::shard::kind(p);
    if let Ok(s) = kairos_host::shard::experiment::read(p) {
        for r in &s.rows {
            assert!(r.summary.utility_percent.is_finite());
        }
    }
    let _ = kairos_host::seed002::shard::read_any(p);
    if let Ok(s) = kairos_host::shard::knapsack::read(p) {
        for (_, c) in &s.costs {
            assert!(c.ef.iter().flatten().all(|x| x.is_finite()));
        }
    }
    let steps = Steps {
        dir: p.parent().expect("a folder").to_path_buf(),
        kind: "seed002-serial",
        hash: String::new(),
        steps: 1,
    };
    if let Ok(rows) = steps.read(0, &saved_rows::SERIAL_COLUMNS) {
        for i in 0..rows.len() {
            if let Ok(r) = saved_rows::serial_parse(&rows, i) {
                assert!(r.bound.is_finite());
            }
        }
    }
    if let Ok(rows) = steps.read(0, &saved_rows::ENERGY_COLUMNS) {
        for i in 0..rows.len() {
            if let Ok(r) = saved_rows::energy_parse(&rows, i) {
                assert!(r.trace.iter().all(|(u, e)| u.is_finite() && e.is_finite()));
            }
        }
    }
}

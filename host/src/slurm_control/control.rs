//! The loop of `kairos slurm-control`: the ledger loaded (or begun) and replayed into a
//! fresh controller, then at every cycle Slurm's queue read, what changed turned into the
//! controller's events (`events.rs`) and given to it with one mapping event (`apply.rs`),
//! the ledger written, and Slurm brought to what the controller decided (`reconcile.rs`).
//!
//! Times: the controller's clock is whole seconds since the ledger's epoch (Slurm's times are
//! whole seconds).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use kairos_core::units::Micros;
use kairos_core::utility::UtilityClasses;
use kairos_core::{Config, Controller, TaskState};

use super::apply::apply;
use super::book::Book;
use super::events::{events, node_changes};
use super::hostlist;
use super::job_task::platform;
use super::ledger::{Entry, Ledger, VERSION};
use super::policy::SitePolicy;
use super::reconcile::reconcile;
use super::slurm_cli::Slurm;
use crate::live::exec::Exec;
use crate::live::remote::{disagreement, Remote, Shared};
use crate::live::ControllerSpec;
use crate::storage::HostStorage;
use kairos_core::engine::Schedule;
use kairos_core::packed::PackedHeader;

/// What the loop needs.
pub struct Options {
    /// The policy, checked.
    pub policy: SitePolicy,
    /// The policy file's text (kept in the ledger).
    pub policy_text: String,
    /// The ledger file.
    pub ledger: PathBuf,
    /// Tasks the controller holds at once (waiting or running): its task table.
    pub max_tasks: usize,
    /// Stop after this many cycles (`None`: until asked to stop).
    pub cycles: Option<u64>,
    /// Every decision from a policy in another process (`--controller exec:CMD`,
    /// docs/protocol.md), each checked by the controller before it is applied; with it, how
    /// long to wait for each answer.
    pub exec: Option<(String, Duration)>,
    /// Every decision from the firmware over its serial link (`--controller qemu` or
    /// `serial:PATH`; `crate::live::remote`), each checked and booked by the controller
    /// here too: where it is, the firmware image for QEMU, how long to wait for each
    /// answer before asking again.
    pub remote: Option<(ControllerSpec, PathBuf, Duration)>,
    /// Past this many bytes, the ledger is compacted at its last quiet point
    /// ([`Ledger::quiet_point`]) when it has one.
    pub compact_bytes: u64,
}

/// The clock and the pauses between cycles (a trait so that tests run on a scripted time).
pub trait Clock {
    /// Now, Unix microseconds.
    fn now_us(&mut self) -> u64;
    /// Waits `d`.
    fn sleep(&mut self, d: Duration);
}

/// The system's clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_us(&mut self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64)
    }
    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// What one cycle did, for the log line and the latency measurement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CycleReport {
    /// The controller's time of the cycle, seconds since the epoch.
    pub now_s: u64,
    /// Arrivals, completions and withdrawals given to the controller.
    pub arrivals: usize,
    /// Completions.
    pub completions: usize,
    /// Withdrawals.
    pub withdrawals: usize,
    /// Nodes that went out of service or came back.
    pub nodes_changed: usize,
    /// Jobs waiting in the controller after the mapping event.
    pub waiting: usize,
    /// Whether a mapping event ran.
    pub mapped: bool,
    /// Decisions: starts, reservations, drops.
    pub starts: usize,
    /// Reservations.
    pub reservations: usize,
    /// Drops.
    pub drops: usize,
    /// Slurm commands applied (starts, cancels).
    pub applied: usize,
    /// Microseconds reading Slurm.
    pub read_us: u64,
    /// Microseconds deciding (events, mapping event, ledger written).
    pub decide_us: u64,
    /// Microseconds applying to Slurm.
    pub apply_us: u64,
}

/// Runs the controller against `slurm` until asked to stop (or `options.cycles`); returns
/// the reports of the cycles that did something.
pub fn serve(
    options: &Options,
    slurm: &mut dyn Slurm,
    clock: &mut dyn Clock,
    stop: &dyn Fn() -> bool,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<Vec<CycleReport>> {
    let policy = &options.policy;
    // The ledger, or a new one over the managed partitions' nodes.
    let existing = Ledger::load(&options.ledger)?;
    let names = loop {
        match managed_nodes(slurm, policy) {
            Ok(n) => break n,
            Err(e) => {
                log(&format!("cannot read the nodes, trying again: {e}"));
                if stop() {
                    bail!("stopped before Slurm answered");
                }
                clock.sleep(Duration::from_millis(policy.poll_ms.max(1000)));
            }
        }
    };
    let mut ledger = match existing {
        Some(l) => {
            if l.policy != options.policy_text {
                bail!(
                    "{}: the ledger was begun under another policy file; a changed policy would \
                     not rebuild the same state (stop kairos with every job done, or move the \
                     ledger away to begin afresh)",
                    options.ledger.display()
                );
            }
            if l.nodes != names {
                bail!(
                    "{}: the ledger's nodes ({}) are not the managed partitions' nodes now ({}); \
                     move the ledger away to begin afresh",
                    options.ledger.display(),
                    l.nodes.join(","),
                    names.join(",")
                );
            }
            l
        }
        None => Ledger {
            version: VERSION,
            epoch: clock.now_us() / 1_000_000,
            nodes: names.clone(),
            policy: options.policy_text.clone(),
            energy_mj: 0,
            entries: Vec::new(),
        },
    };
    let n = names.len() as u32;
    let platform = platform(n, policy).map_err(|e| anyhow::anyhow!(e))?;
    let classes = UtilityClasses::new();
    let day = Micros::from_secs(86_400);
    let mut config = Config::new(
        policy.policy.heuristic(),
        Micros::ZERO,
        if policy.budget_mj.is_some() {
            day
        } else {
            Micros::MAX
        },
    );
    config.reservations = policy.reservations;
    config.drop_threshold = policy
        .policy
        .is_utility_aware()
        .then_some(crate::seed001::ZERO_VALUE_THRESHOLD);
    if let Some(b) = policy.budget_mj {
        config.budget = kairos_core::units::MilliJoules(b);
    }
    // Every buffer at its largest from the start: a controller that runs for ever cannot
    // run again with more.
    let mut budget = crate::storage::FIRST_BUDGET;
    while let Some(b) = crate::storage::next_budget(budget) {
        budget = b;
    }
    // Started before the controller that borrows it; a restart starts it afresh, and the
    // ledger's replay tells it everything again (its decisions are checked like ours).
    let mut exec = match &options.exec {
        Some((command, timeout)) => Some(Exec::spawn(command, *timeout)?),
        None => None,
    };
    let header = PackedHeader {
        platform: platform.clone(),
        classes: classes.clone(),
        config,
        schedule: Schedule::on_events(),
        tasks: u32::try_from(options.max_tasks).unwrap_or(u32::MAX),
    };
    let mut remote = match &options.remote {
        Some((spec, image, timeout)) => {
            let r = Remote::connect(spec, image, &header, *timeout)
                .context("the firmware controller (--controller)")?;
            let have = r.capacities.tasks as usize;
            if have < options.max_tasks {
                log(&format!(
                    "the firmware holds {have} tasks at once: at most {have} jobs waiting or \
                     running (--max-jobs {}); more wait held in Slurm until some end",
                    options.max_tasks
                ));
            }
            Some(r)
        }
        None => None,
    };
    let shared = remote.as_ref().map(Remote::shared);
    // The tasks the controller may hold at once: its table's, or the firmware's if fewer.
    let capacity = remote.as_ref().map_or(options.max_tasks, |r| {
        options.max_tasks.min(r.capacities.tasks as usize)
    });
    let mut storage = HostStorage::by_need(
        &platform,
        options.max_tasks,
        1,
        crate::trace::TRACE_MEMO_ENTRIES,
        0,
        budget,
    )?;
    let parts = storage.split();
    let mut ctl = Controller::new(&platform, &classes, config, parts.controller)
        .map_err(|e| anyhow::anyhow!("the controller: {e}"))?;
    ctl.recycle_slots();
    if let Some(x) = exec.as_mut() {
        x.hello(&header)
            .map_err(|e| anyhow::anyhow!("the controller's hello: {e}"))?;
        ctl.set_external(x);
    } else if let Some(r) = remote.as_mut() {
        ctl.set_external(r);
    }

    let mut book = Book::default();

    // The ledger replayed: the same calls, the same state; the decisions must match.
    let replayed = ledger.entries.len();
    for (k, e) in ledger.entries.clone().iter().enumerate() {
        let got = give(&mut ctl, &mut book, e, policy, &names, shared.as_ref())
            .with_context(|| format!("{}: entry {k}", options.ledger.display()))?;
        if let (Entry::Map { decisions, .. }, Some(got)) = (e, got) {
            if *decisions != got {
                bail!(
                    "{}: entry {k}: the mapping event does not replay to the decisions recorded \
                     (the ledger was written by another kairos?)",
                    options.ledger.display()
                );
            }
        }
    }
    if replayed > 0 {
        log(&format!(
            "ledger {}: {replayed} entries replayed, {} jobs known, clock at {} s",
            options.ledger.display(),
            book.task_of.len(),
            ctl.now().0 / 1_000_000
        ));
    }

    let mut reports = Vec::new();
    let mut warned: BTreeSet<u64> = BTreeSet::new();
    let mut cycle = 0u64;
    let mut first = true;
    loop {
        if stop() || options.cycles.is_some_and(|c| cycle >= c) {
            break;
        }
        cycle += 1;
        if !first {
            clock.sleep(Duration::from_millis(policy.poll_ms));
        }
        first = false;
        let t0 = Instant::now();
        let jobs = match slurm.jobs() {
            Ok(j) => j,
            Err(e) => {
                log(&format!("cannot read the queue, trying again: {e}"));
                continue;
            }
        };
        // The nodes' states, every cycle: a node drained or down goes out of service for the
        // controller, and comes back when Slurm shows it available. Unread, they stay.
        let nodes = match slurm.nodes() {
            Ok(n) => Some(n),
            Err(e) => {
                log(&format!("cannot read the nodes' states, trying again: {e}"));
                None
            }
        };
        let read_us = t0.elapsed().as_micros() as u64;
        let t1 = Instant::now();
        // The second being decided: `settle_s` before now, so that everything Slurm stamped
        // in it is in (its times are whole seconds) and one mapping event decides over all
        // of it, as the simulation's one event at that instant does.
        let now_s = (clock.now_us() / 1_000_000)
            .saturating_sub(ledger.epoch)
            .saturating_sub(policy.settle_s);
        let now = Micros::from_secs(now_s).max(ctl.now());
        let events = events(
            &ctl,
            &book,
            &jobs,
            policy,
            ledger.epoch,
            now,
            &mut warned,
            log,
        );
        let mut report = CycleReport {
            now_s: now.0 / 1_000_000,
            ..CycleReport::default()
        };
        // Arrivals past the capacity wait (held in Slurm, seen again next cycle; the slots
        // this cycle's completions free are not counted: they may come after the arrivals).
        let mut room = capacity.saturating_sub(ctl.slots_used());
        let mut deferred = 0usize;
        let events: Vec<Entry> = events
            .into_iter()
            .filter(|e| {
                if !matches!(e, Entry::Arrive { .. }) {
                    return true;
                }
                if room == 0 {
                    deferred += 1;
                    return false;
                }
                room -= 1;
                true
            })
            .collect();
        if deferred > 0 {
            log(&format!(
                "{deferred} jobs wait held: the controller holds {capacity} tasks at once"
            ));
        }
        // Changes of service, at the second decided (after everything stamped before it).
        let changes = nodes
            .as_deref()
            .map(|n| node_changes(&book, &names, n, now))
            .unwrap_or_default();
        for c in &changes {
            match c {
                Entry::NodeOut { node, state, .. } => log(&format!(
                    "node {node} is {state} in Slurm: out of service for kairos from t={} s \
                     (what runs on it finishes; nothing is placed on it until it returns)",
                    now.0 / 1_000_000
                )),
                Entry::NodeIn { node, .. } => log(&format!(
                    "node {node} is back in service for kairos from t={} s",
                    now.0 / 1_000_000
                )),
                _ => {}
            }
        }
        report.nodes_changed = changes.len();
        let events: Vec<Entry> = events.into_iter().chain(changes).collect();
        let any = !events.is_empty();
        for e in events {
            match &e {
                Entry::Arrive { .. } => report.arrivals += 1,
                Entry::Complete { .. } => report.completions += 1,
                Entry::Withdraw { .. } => report.withdrawals += 1,
                _ => {}
            }
            give(&mut ctl, &mut book, &e, policy, &names, shared.as_ref())?;
            ledger.entries.push(e);
        }
        if report.arrivals + report.completions + report.withdrawals + report.nodes_changed > 0 {
            let mut e = Entry::Map {
                now: now.0,
                decisions: Vec::new(),
            };
            let got = give(&mut ctl, &mut book, &e, policy, &names, shared.as_ref())?;
            if let (Entry::Map { decisions, .. }, Some(got)) = (&mut e, got) {
                for d in &got {
                    match d.kind.as_str() {
                        "start" => report.starts += 1,
                        "reserve" => report.reservations += 1,
                        _ => report.drops += 1,
                    }
                }
                *decisions = got;
            }
            ledger.entries.push(e);
            report.mapped = true;
        }
        if any {
            ledger.energy_mj = ctl.ledger().consumed().0 + ctl.ledger().committed().0;
            let size = ledger
                .save(&options.ledger)
                .context("the ledger (kairos stops: without it a restart would lose state)")?;
            if size as u64 > options.compact_bytes {
                let tracked =
                    |j: u64| book.task_of.contains_key(&j) || book.refused.contains_key(&j);
                if let Some(n) = ledger.quiet_point(&tracked, policy.budget_mj.is_some()) {
                    ledger.compact(n);
                    let after = ledger.save(&options.ledger).context(
                        "the compacted ledger (kairos stops: without it a restart would lose \
                         state)",
                    )?;
                    log(&format!(
                        "ledger {}: compacted from {size} to {after} bytes ({n} entries of jobs \
                         long done dropped)",
                        options.ledger.display()
                    ));
                }
            }
        }
        report.waiting = ctl
            .tasks()
            .iter()
            .filter(|s| {
                matches!(
                    s.state,
                    TaskState::Mappable | TaskState::PlaceHeld | TaskState::Reserved
                )
            })
            .count();
        let decide_us = t1.elapsed().as_micros() as u64;
        let t2 = Instant::now();
        let now_real = Micros::from_secs((clock.now_us() / 1_000_000).saturating_sub(ledger.epoch));
        report.applied = reconcile(
            &ctl,
            &mut book,
            &jobs,
            &names,
            nodes.as_deref(),
            now_real,
            slurm,
            log,
        );
        report.read_us = read_us;
        report.decide_us = decide_us;
        report.apply_us = t2.elapsed().as_micros() as u64;
        if report.mapped || report.applied > 0 {
            log(&format!(
                "t={} s: {} arrived, {} completed, {} withdrawn; {} started, {} reserved, {} \
                 dropped; {} waiting; {} Slurm commands; read {:.1} ms, decided {:.1} ms, \
                 applied {:.1} ms",
                report.now_s,
                report.arrivals,
                report.completions,
                report.withdrawals,
                report.starts,
                report.reservations,
                report.drops,
                report.waiting,
                report.applied,
                report.read_us as f64 / 1000.0,
                report.decide_us as f64 / 1000.0,
                report.apply_us as f64 / 1000.0
            ));
            reports.push(report);
        }
    }
    Ok(reports)
}

/// Gives entry `e` to the controller ([`apply`]); under the firmware (`shared` given), a
/// failure of the link says what it was, and a mapping event's bookings are held to the
/// firmware's fates ([`disagreement`]).
fn give(
    ctl: &mut Controller<'_>,
    book: &mut Book,
    e: &Entry,
    policy: &SitePolicy,
    names: &[String],
    shared: Option<&std::rc::Rc<std::cell::RefCell<Shared>>>,
) -> anyhow::Result<Option<Vec<super::ledger::Applied>>> {
    let got = apply(ctl, book, e, policy, names, 0);
    let Some(shared) = shared else {
        return got;
    };
    let shared = shared.borrow();
    let got = match (got, &shared.failure) {
        (Err(err), Some(why)) => return Err(err.context(why.clone())),
        (got, _) => got?,
    };
    if matches!(e, Entry::Map { .. }) {
        let host = |id: kairos_core::task::TaskId| {
            ctl.task(id)
                .and_then(|s| s.assignment)
                .map(|a| (a.start, a.end, a.seq))
        };
        if let Some(why) = disagreement(&shared.last, &host) {
            bail!(
                "the firmware and the host's controller disagree after the mapping event: \
                 {why} (nothing of this event is applied)"
            );
        }
    }
    Ok(got)
}

/// The nodes of the managed partitions, in natural order.
fn managed_nodes(slurm: &mut dyn Slurm, policy: &SitePolicy) -> Result<Vec<String>, String> {
    let nodes = slurm.nodes()?;
    let mut names: Vec<String> = nodes
        .into_iter()
        .filter(|n| n.partitions.iter().any(|p| policy.manages(p)))
        .map(|n| n.name)
        .collect();
    names.sort_by_key(|n| hostlist::natural_key(n));
    names.dedup();
    if names.is_empty() {
        return Err(format!(
            "sinfo --json: no node is in the managed partitions ({})",
            policy.partitions.join(",")
        ));
    }
    Ok(names)
}

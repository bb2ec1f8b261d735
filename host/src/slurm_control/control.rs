//! The loop of `kairos slurm-control`: at every cycle it reads Slurm's queue, turns what
//! changed into the controller's events (completions, withdrawals, arrivals, then one
//! mapping event), records them in the ledger, and brings Slurm to what the controller
//! decided: a job to start gets its nodes and is released, a dropped or refused job is
//! cancelled with the reason in its comment, a reserved job stays held until its start.
//!
//! That last step compares what the controller holds with what Slurm says, every cycle, not
//! only after a decision: after a restart, or a Slurm command that failed (slurmctld down, a
//! job cancelled meanwhile), the next cycle does what is still undone, and what is done is
//! not done twice (a job is released only while Slurm shows it held).
//!
//! Times: the controller's clock is whole seconds since the ledger's epoch (Slurm's times are
//! whole seconds). A job that runs past its planned end is counted complete at that end (its
//! nodes are free for the plan; Slurm starts a job placed on them once they really are).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use kairos_core::task::TaskId;
use kairos_core::timeline::BookingKind;
use kairos_core::units::Micros;
use kairos_core::utility::UtilityClasses;
use kairos_core::{Config, Controller, Decision, DecisionKind, TaskState};

use super::hostlist;
use super::job_task::{job_task, platform};
use super::ledger::{Applied, Entry, JobFacts, Ledger, VERSION};
use super::policy::SitePolicy;
use super::queue::{JobState, SlurmJob};
use super::slurm_cli::Slurm;
use crate::storage::HostStorage;

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

/// What the controller holds beyond the core: which job each task is, and its nodes.
#[derive(Default)]
struct Book {
    task_of: HashMap<u64, TaskId>,
    job_of: HashMap<u32, u64>,
    /// Global node ids of each started or reserved task (by task id).
    nodes: HashMap<u32, Vec<u32>>,
    /// Jobs refused, with the reason (cancelled with it).
    refused: BTreeMap<u64, String>,
    /// Jobs dropped, with the reason.
    dropped: BTreeMap<u64, String>,
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
    let mut book = Book::default();

    // The ledger replayed: the same calls, the same state; the decisions must match.
    let replayed = ledger.entries.len();
    for (k, e) in ledger.entries.clone().iter().enumerate() {
        let got = apply(&mut ctl, &mut book, e, policy, &names, ledger.epoch)
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
        let read_us = t0.elapsed().as_micros() as u64;
        let t1 = Instant::now();
        let now_s = (clock.now_us() / 1_000_000).saturating_sub(ledger.epoch);
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
        let any = !events.is_empty();
        for e in events {
            match &e {
                Entry::Arrive { .. } => report.arrivals += 1,
                Entry::Complete { .. } => report.completions += 1,
                Entry::Withdraw { .. } => report.withdrawals += 1,
                _ => {}
            }
            apply(&mut ctl, &mut book, &e, policy, &names, ledger.epoch)?;
            ledger.entries.push(e);
        }
        if report.arrivals + report.completions + report.withdrawals > 0 {
            let mut e = Entry::Map {
                now: now.0,
                decisions: Vec::new(),
            };
            let got = apply(&mut ctl, &mut book, &e, policy, &names, ledger.epoch)?;
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
            ledger
                .save(&options.ledger)
                .context("the ledger (kairos stops: without it a restart would lose state)")?;
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
        report.applied = reconcile(&ctl, &mut book, &jobs, &names, now_real, slurm, log);
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

/// The events a queue snapshot brings, in the order the controller takes them: by time,
/// completions before withdrawals before arrivals at one time.
#[allow(clippy::too_many_arguments)]
fn events(
    ctl: &Controller<'_>,
    book: &Book,
    jobs: &[SlurmJob],
    policy: &SitePolicy,
    epoch: u64,
    now: Micros,
    warned: &mut BTreeSet<u64>,
    log: &mut dyn FnMut(&str),
) -> Vec<Entry> {
    let since = |unix: u64| Micros::from_secs(unix.saturating_sub(epoch));
    let by_id: HashMap<u64, &SlurmJob> = jobs.iter().map(|j| (j.id, j)).collect();
    let floor = ctl.now();
    // (time, kind order, job, entry)
    let mut out: Vec<(u64, u8, u64, Entry)> = Vec::new();
    let mut known: Vec<(&u64, &TaskId)> = book.task_of.iter().collect();
    known.sort();
    for (&job, &id) in known {
        let Some(slot) = ctl.task(id) else { continue };
        let sj = by_id.get(&job).copied();
        let finished = sj.is_none_or(|j| j.state == JobState::Finished);
        let started = match (slot.state, slot.assignment) {
            (TaskState::Running, Some(a)) => Some(a),
            (TaskState::Reserved, Some(a)) if a.start <= now => Some(a),
            _ => None,
        };
        match (slot.state, started) {
            (_, Some(a)) => {
                if finished {
                    let end = sj.filter(|j| j.end > 0).map_or(now, |j| since(j.end));
                    let at = end.max(a.start).max(floor).min(a.end);
                    out.push((at.0, 0, job, Entry::Complete { job, at: at.0 }));
                } else if a.end <= now {
                    if warned.insert(job) {
                        log(&format!(
                            "job {job} runs past its planned end ({} s): kairos counts its nodes \
                             free from then",
                            a.end.0 / 1_000_000
                        ));
                    }
                    out.push((a.end.0, 0, job, Entry::Complete { job, at: a.end.0 }));
                }
            }
            (TaskState::Mappable | TaskState::PlaceHeld | TaskState::Reserved, None) => {
                if finished {
                    out.push((now.0, 1, job, Entry::Withdraw { job, at: now.0 }));
                } else if sj.is_some_and(|j| j.state == JobState::Running) && warned.insert(job) {
                    log(&format!(
                        "job {job} was started outside kairos (released by hand?): kairos still \
                         counts it waiting"
                    ));
                }
            }
            _ => {}
        }
    }
    let mut new: Vec<&SlurmJob> = jobs
        .iter()
        .filter(|j| {
            j.state == JobState::Pending
                && policy.manages(&j.partition)
                && !book.task_of.contains_key(&j.id)
                && !book.refused.contains_key(&j.id)
        })
        .collect();
    new.sort_by_key(|j| (j.submit, j.id));
    for j in new {
        if !j.held() {
            if warned.insert(j.id) {
                log(&format!(
                    "job {} in a managed partition is not held (job_submit.lua not installed, or \
                     released by hand): left to Slurm",
                    j.id
                ));
            }
            continue;
        }
        let at = since(j.submit).max(floor).min(now);
        if j.array {
            out.push((
                at.0,
                2,
                j.id,
                Entry::Refuse {
                    job: j.id,
                    reason: "kairos: job arrays are not scheduled by kairos; submit single jobs"
                        .to_string(),
                },
            ));
            continue;
        }
        let facts = JobFacts {
            nodes: j.nodes,
            limit_s: j.limit_s,
            comment: j.comment.clone(),
            partition: j.partition.clone(),
            qos: j.qos.clone(),
        };
        // Checked here so that a job that cannot be a task is refused, not an error later.
        match job_task(
            &facts_job(&facts),
            at,
            ctl.platform().total_nodes() as u32,
            policy,
        ) {
            Ok(_) => out.push((
                at.0,
                2,
                j.id,
                Entry::Arrive {
                    job: j.id,
                    at: at.0,
                    facts,
                },
            )),
            Err(reason) => out.push((
                at.0,
                2,
                j.id,
                Entry::Refuse {
                    job: j.id,
                    reason: format!("kairos: refused: {reason}"),
                },
            )),
        }
    }
    out.sort_by_key(|(t, k, j, _)| (*t, *k, *j));
    out.into_iter().map(|(_, _, _, e)| e).collect()
}

/// A job made of recorded facts (what [`job_task`] reads).
fn facts_job(f: &JobFacts) -> SlurmJob {
    SlurmJob {
        id: 0,
        state: JobState::Pending,
        state_name: String::new(),
        reason: String::new(),
        priority: 0,
        nodes: f.nodes,
        limit_s: f.limit_s,
        submit: 0,
        start: 0,
        end: 0,
        comment: f.comment.clone(),
        partition: f.partition.clone(),
        qos: f.qos.clone(),
        node_list: Vec::new(),
        array: false,
    }
}

/// Gives entry `e` to the controller; a mapping event's decisions come back as applied
/// to Slurm.
fn apply(
    ctl: &mut Controller<'_>,
    book: &mut Book,
    e: &Entry,
    policy: &SitePolicy,
    names: &[String],
    _epoch: u64,
) -> anyhow::Result<Option<Vec<Applied>>> {
    let id_of = |book: &Book, job: u64| {
        book.task_of
            .get(&job)
            .copied()
            .with_context(|| format!("job {job} is not a task of the controller"))
    };
    match e {
        Entry::Arrive { job, at, facts } => {
            let task = job_task(&facts_job(facts), Micros(*at), names.len() as u32, policy)
                .map_err(|r| anyhow::anyhow!("job {job}: {r}"))?;
            let id = ctl
                .on_arrival(task)
                .map_err(|e| anyhow::anyhow!("job {job} arriving: {e}"))?;
            book.task_of.insert(*job, id);
            book.job_of.insert(id.0, *job);
            Ok(None)
        }
        Entry::Complete { job, at } => {
            let id = id_of(book, *job)?;
            ctl.on_completion(id, Micros(*at))
                .map_err(|e| anyhow::anyhow!("job {job} completing at {at} us: {e}"))?;
            book.nodes.remove(&id.0);
            Ok(None)
        }
        Entry::Withdraw { job, at } => {
            let id = id_of(book, *job)?;
            ctl.withdraw(id, Micros(*at))
                .map_err(|e| anyhow::anyhow!("job {job} withdrawn at {at} us: {e}"))?;
            book.nodes.remove(&id.0);
            Ok(None)
        }
        Entry::Refuse { job, reason } => {
            book.refused.insert(*job, reason.clone());
            Ok(None)
        }
        Entry::Map { now, .. } => {
            let now = Micros(*now);
            if policy.budget_mj.is_some() {
                ctl.roll_day(now);
            }
            let mut made: Vec<Decision> = Vec::new();
            ctl.on_mapping_event(now, &mut |d: &Decision| made.push(*d))
                .map_err(|e| anyhow::anyhow!("the mapping event at {} us: {e}", now.0))?;
            // The nodes of each task started or reserved, read off the timeline (the
            // decisions carry a count, the bookings the nodes).
            let touched: BTreeSet<u32> = made
                .iter()
                .filter(|d| matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve))
                .map(|d| d.task.0)
                .collect();
            if !touched.is_empty() {
                let mut found: HashMap<u32, Vec<u32>> = HashMap::new();
                let mut base = 0u32;
                for (c, cluster) in ctl.platform().clusters().iter().enumerate() {
                    if let Some(tl) = ctl.timeline(kairos_core::platform::ClusterId(c as u8)) {
                        for (i, node) in tl.nodes().enumerate() {
                            for b in node.bookings() {
                                if b.kind != BookingKind::PlaceHolder && touched.contains(&b.task.0)
                                {
                                    found.entry(b.task.0).or_default().push(base + i as u32);
                                }
                            }
                        }
                    }
                    base += cluster.nodes.0;
                }
                for t in &touched {
                    let mut v = found.remove(t).unwrap_or_default();
                    v.sort_unstable();
                    v.dedup();
                    book.nodes.insert(*t, v);
                }
            }
            let mut out = Vec::with_capacity(made.len());
            for d in &made {
                let job = *book
                    .job_of
                    .get(&d.task.0)
                    .with_context(|| format!("task {} has no job", d.task.0))?;
                let kind = match d.kind {
                    DecisionKind::Start => "start",
                    DecisionKind::Reserve => "reserve",
                    DecisionKind::Drop => "drop",
                    DecisionKind::PlaceHold => continue,
                };
                if d.kind == DecisionKind::Drop {
                    book.dropped.insert(
                        job,
                        format!(
                            "kairos: dropped at {} s: it can no longer earn enough utility",
                            d.start.0 / 1_000_000
                        ),
                    );
                }
                let nodes = book
                    .nodes
                    .get(&d.task.0)
                    .map(|v| v.iter().map(|&i| names[i as usize].clone()).collect())
                    .unwrap_or_default();
                out.push(Applied {
                    job,
                    kind: kind.to_string(),
                    start: d.start.0,
                    nodes,
                });
            }
            Ok(Some(out))
        }
    }
}

/// Brings Slurm to what the controller holds; returns how many Slurm commands succeeded.
/// Errors are reported and left for the next cycle.
fn reconcile(
    ctl: &Controller<'_>,
    book: &mut Book,
    jobs: &[SlurmJob],
    names: &[String],
    now: Micros,
    slurm: &mut dyn Slurm,
    log: &mut dyn FnMut(&str),
) -> usize {
    let by_id: HashMap<u64, &SlurmJob> = jobs.iter().map(|j| (j.id, j)).collect();
    let mut done = 0;
    let mut forget = Vec::new();
    let mut starts: Vec<(u64, u64, Vec<u32>)> = Vec::new();
    for (&job, &id) in &book.task_of {
        let Some(slot) = ctl.task(id) else {
            forget.push(job);
            continue;
        };
        let sj = by_id.get(&job).copied();
        let pending = sj.is_some_and(|j| j.state == JobState::Pending);
        match (slot.state, slot.assignment) {
            (TaskState::Running, Some(a)) | (TaskState::Reserved, Some(a))
                if a.start <= now && sj.is_some_and(SlurmJob::held) =>
            {
                let nodes = book.nodes.get(&id.0).cloned().unwrap_or_default();
                starts.push((a.start.0, job, nodes));
            }
            (TaskState::Dropped, _) => {
                if pending {
                    let reason = book
                        .dropped
                        .get(&job)
                        .cloned()
                        .unwrap_or_else(|| "kairos: dropped".to_string());
                    match slurm.cancel(job, &reason) {
                        Ok(()) => done += 1,
                        Err(e) => log(&format!("cancelling job {job}: {e}")),
                    }
                } else {
                    forget.push(job);
                }
            }
            (TaskState::Completed, _) if !pending => forget.push(job),
            _ => {}
        }
    }
    // Starts in the order they were decided.
    starts.sort();
    for (_, job, nodes) in starts {
        let list: Vec<&str> = nodes.iter().map(|&i| names[i as usize].as_str()).collect();
        if list.is_empty() {
            log(&format!(
                "job {job}: the controller started it on no node (not released)"
            ));
            continue;
        }
        match slurm.start(job, &list) {
            Ok(()) => done += 1,
            Err(e) => log(&format!(
                "starting job {job} on {}: {e} (tried again next cycle)",
                list.join(",")
            )),
        }
    }
    for (job, reason) in book.refused.clone() {
        match by_id.get(&job) {
            Some(j) if j.state == JobState::Pending => match slurm.cancel(job, &reason) {
                Ok(()) => {
                    log(&format!("job {job} cancelled: {reason}"));
                    done += 1
                }
                Err(e) => log(&format!("cancelling job {job}: {e}")),
            },
            // Cancelled (or gone): nothing more to do for it.
            _ => {
                book.refused.remove(&job);
            }
        }
    }
    for job in forget {
        if let Some(id) = book.task_of.remove(&job) {
            book.job_of.remove(&id.0);
            book.nodes.remove(&id.0);
        }
        book.dropped.remove(&job);
    }
    done
}

/// Releases every held job of the managed partitions as it is (no node list): scheduling
/// handed back to Slurm. Returns the jobs released.
pub fn hand_back(slurm: &mut dyn Slurm, policy: &SitePolicy) -> Result<Vec<u64>, String> {
    let jobs = slurm.jobs()?;
    let held: Vec<u64> = jobs
        .iter()
        .filter(|j| policy.manages(&j.partition) && j.held())
        .map(|j| j.id)
        .collect();
    slurm.release(&held)?;
    Ok(held)
}

//! One ledger entry given to the controller (live, or replayed after a restart); a mapping
//! event's decisions come back with the nodes each start or reservation booked, read off the
//! cluster's timeline (a decision carries a node count; the bookings carry the nodes).

use std::collections::{BTreeSet, HashMap};

use anyhow::Context;
use kairos_core::platform::ClusterId;
use kairos_core::timeline::BookingKind;
use kairos_core::units::Micros;
use kairos_core::{Controller, Decision, DecisionKind};

use super::book::Book;
use super::events::facts_job;
use super::job_task::job_task;
use super::ledger::{Applied, Entry};
use super::policy::SitePolicy;

/// Gives entry `e` to the controller; a mapping event's decisions come back as applied
/// to Slurm.
pub(super) fn apply(
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
        Entry::NodeOut { node, at, state } => {
            let i = node_index(names, node)?;
            ctl.node_out(ClusterId(0), i, Micros(*at))
                .map_err(|e| anyhow::anyhow!("node {node} out of service at {at} us: {e}"))?;
            book.out.insert(i, state.clone());
            Ok(None)
        }
        Entry::NodeIn { node, at } => {
            let i = node_index(names, node)?;
            ctl.node_in(ClusterId(0), i, Micros(*at))
                .map_err(|e| anyhow::anyhow!("node {node} back in service at {at} us: {e}"))?;
            book.out.remove(&i);
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

/// Node `node`'s index in the node list (the platform's one cluster).
fn node_index(names: &[String], node: &str) -> anyhow::Result<u32> {
    names
        .iter()
        .position(|n| n == node)
        .map(|i| i as u32)
        .with_context(|| format!("node {node} is not one of the managed nodes"))
}

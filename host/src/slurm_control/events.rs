//! The events a snapshot of Slurm's queue brings the controller: completions of the jobs it
//! started that Slurm shows finished (at their `end_time`) or that ran past their planned end,
//! withdrawals of waiting jobs that ended before kairos started them, and arrivals of new
//! held jobs (or refusals of jobs that cannot be tasks), in the order the controller takes
//! them; and the nodes that went out of service or came back ([`node_changes`]).

use std::collections::{BTreeSet, HashMap};

use kairos_core::task::TaskId;
use kairos_core::units::Micros;
use kairos_core::{Controller, TaskState};

use super::book::Book;
use super::job_task::job_task;
use super::ledger::{Entry, JobFacts};
use super::policy::SitePolicy;
use super::queue::{JobState, SlurmJob, SlurmNode};

/// The events a queue snapshot brings, in the order the controller takes them: by time,
/// completions before withdrawals before arrivals at one time.
#[allow(clippy::too_many_arguments)]
pub(super) fn events(
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
                    if end > now {
                        // Stamped after the second being decided: the next one's.
                        continue;
                    }
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
                    let end = sj.filter(|j| j.end > 0).map_or(now, |j| since(j.end));
                    if end > now {
                        continue;
                    }
                    let at = end.max(floor);
                    out.push((at.0, 1, job, Entry::Withdraw { job, at: at.0 }));
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
        if since(j.submit) > now {
            // Submitted after the second being decided: the next one's.
            continue;
        }
        let at = since(j.submit).max(floor);
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
pub(super) fn facts_job(f: &JobFacts) -> SlurmJob {
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

/// The changes of service that Slurm's nodes bring at `now`, in node order: a managed node
/// that Slurm shows drained, down or failing ([`SlurmNode::unavailable`]) and that the
/// controller has in service goes out; one it has out that Slurm shows available again
/// comes back. A node missing from `nodes` stays as it is.
pub(super) fn node_changes(
    book: &Book,
    names: &[String],
    nodes: &[SlurmNode],
    now: Micros,
) -> Vec<Entry> {
    let by_name: HashMap<&str, &SlurmNode> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let Some(n) = by_name.get(name.as_str()) else {
            continue;
        };
        match (n.unavailable(), book.out.contains_key(&(i as u32))) {
            (true, false) => out.push(Entry::NodeOut {
                node: name.clone(),
                at: now.0,
                state: n.state.clone(),
            }),
            (false, true) => out.push(Entry::NodeIn {
                node: name.clone(),
                at: now.0,
            }),
            _ => {}
        }
    }
    out
}

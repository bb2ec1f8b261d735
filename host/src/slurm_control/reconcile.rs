//! Slurm brought to what the controller holds, every cycle: a job the controller started
//! (or whose reservation has come) that Slurm shows held is pinned to its nodes and released;
//! a dropped or refused job still pending is cancelled with the reason in its comment; jobs
//! done on both sides are forgotten. A command that fails is reported and tried again next
//! cycle; one already done is not done again (only a held job is released). Also the hand
//! back: every held job released as it is.

use std::collections::HashMap;

use kairos_core::units::Micros;
use kairos_core::{Controller, TaskState};

use super::book::Book;
use super::policy::SitePolicy;
use super::queue::{JobState, SlurmJob, SlurmNode};
use super::slurm_cli::Slurm;

/// Brings Slurm to what the controller holds; returns how many Slurm commands succeeded.
/// Errors are reported and left for the next cycle. `nodes`: the nodes' states read this
/// cycle, if they were.
#[allow(clippy::too_many_arguments)]
pub(super) fn reconcile(
    ctl: &Controller<'_>,
    book: &mut Book,
    jobs: &[SlurmJob],
    names: &[String],
    nodes: Option<&[SlurmNode]>,
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
    // Nodes Slurm will not start jobs on (drained, down) are out of service for the
    // controller from the cycle that sees them so, and no start is placed on them; a start
    // decided before (a node drained after its job was released, or between the read and
    // the release) is said: the job waits in Slurm until the node returns.
    let unavailable: Vec<(String, String)> = nodes
        .unwrap_or_default()
        .iter()
        .filter(|n| n.unavailable())
        .map(|n| (n.name.clone(), n.state.clone()))
        .collect();
    for (_, job, nodes) in starts {
        let list: Vec<&str> = nodes.iter().map(|&i| names[i as usize].as_str()).collect();
        for (name, state) in unavailable
            .iter()
            .filter(|(n, _)| list.contains(&n.as_str()))
        {
            log(&format!(
                "job {job} is placed on {name}, which Slurm has {state}: released all the same; \
                 Slurm starts it once the node returns"
            ));
        }
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

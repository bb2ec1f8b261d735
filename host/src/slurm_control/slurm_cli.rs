//! Talking to Slurm: the [`Slurm`] operations kairos needs (read the queue and the nodes,
//! start a held job on given nodes, cancel one with a reason, release held jobs), and
//! [`SlurmCli`], which runs Slurm's own commands (`squeue --json`, `sinfo --json`,
//! `scontrol`, `scancel`) with the environment it is given (`SLURM_CONF` and all). A failed
//! command is an error naming the command and what it printed; the caller reports it and
//! tries again at the next cycle.

use std::process::Command;

use super::hostlist;
use super::queue::{self, SlurmJob, SlurmNode};

/// What kairos does to a Slurm cluster (a trait so that the controller loop is tested
/// against a scripted cluster).
pub trait Slurm {
    /// Every job Slurm knows (pending, running, and finished ones it still lists).
    fn jobs(&mut self) -> Result<Vec<SlurmJob>, String>;
    /// Every node.
    fn nodes(&mut self) -> Result<Vec<SlurmNode>, String>;
    /// Pins held job `job` to `nodes` and releases it.
    fn start(&mut self, job: u64, nodes: &[&str]) -> Result<(), String>;
    /// Writes `reason` into job `job`'s comment and cancels it.
    fn cancel(&mut self, job: u64, reason: &str) -> Result<(), String>;
    /// Releases held jobs as they are (scheduling handed back to Slurm).
    fn release(&mut self, jobs: &[u64]) -> Result<(), String>;
}

/// Slurm through its command-line tools.
#[derive(Clone, Debug, Default)]
pub struct SlurmCli;

/// Runs `program args`; its stdout, or an error naming the command line and its stderr.
fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let line = format!("{program} {}", args.join(" "));
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("{line}: cannot run: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "{line}: {} ({})",
            err.trim(),
            out.status
                .code()
                .map_or("killed by a signal".to_string(), |c| format!("exit {c}"))
        ));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("{line}: output is not UTF-8"))
}

impl Slurm for SlurmCli {
    fn jobs(&mut self) -> Result<Vec<SlurmJob>, String> {
        let args = ["--json", "--states=all"];
        let text = run("squeue", &args)?;
        queue::parse_jobs(&text, "squeue --json --states=all")
    }

    fn nodes(&mut self) -> Result<Vec<SlurmNode>, String> {
        let text = run("sinfo", &["--json"])?;
        queue::parse_nodes(&text, "sinfo --json")
    }

    fn start(&mut self, job: u64, nodes: &[&str]) -> Result<(), String> {
        let id = job.to_string();
        let list = format!("nodelist={}", hostlist::join(nodes));
        let count = format!("numnodes={}", nodes.len());
        run(
            "scontrol",
            &["update", &format!("jobid={id}"), &list, &count],
        )?;
        run("scontrol", &["release", &id]).map(|_| ())
    }

    fn cancel(&mut self, job: u64, reason: &str) -> Result<(), String> {
        let id = job.to_string();
        // The comment first: a cancelled job can no longer be updated. Without it the job is
        // cancelled all the same.
        let comment = format!("comment={reason}");
        let noted = run("scontrol", &["update", &format!("jobid={id}"), &comment]);
        run("scancel", &[&id])?;
        noted.map(|_| ())
    }

    fn release(&mut self, jobs: &[u64]) -> Result<(), String> {
        if jobs.is_empty() {
            return Ok(());
        }
        let list: Vec<String> = jobs.iter().map(u64::to_string).collect();
        run("scontrol", &["release", &list.join(",")]).map(|_| ())
    }
}

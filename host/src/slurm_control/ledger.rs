//! The ledger file: everything `kairos slurm-control` told its controller, in order (each
//! job's arrival with the facts its task is made from, completions, withdrawals, mapping
//! events with the decisions they made, jobs refused), rewritten whole at every cycle that
//! adds to it (a temporary file, then a rename: a kill at any moment leaves the old file or
//! the new one). The controller is deterministic, so on a restart the same calls in the same
//! order rebuild the same state (bookings, reservations, energy and utility ledgers), and
//! the decisions recorded check that they did.
//!
//! Compaction: once the file passes a size (`--compact-bytes`), the entries up to the last
//! moment the controller held no job and every node was in service are dropped ([`Ledger::quiet_point`]); the rest
//! replays to the same decisions. A cluster that is never empty of kairos's jobs keeps its
//! whole ledger (docs/operations.md).

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The ledger format's version.
pub const VERSION: u32 = 1;

/// What a task is made from (the job's facts as Slurm gave them at its arrival).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobFacts {
    /// Nodes asked for.
    pub nodes: u32,
    /// Time limit, seconds.
    pub limit_s: Option<u64>,
    /// Comment (the hints).
    pub comment: String,
    /// Partition.
    pub partition: String,
    /// QOS.
    pub qos: String,
}

/// A decision as applied to Slurm.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    /// The job.
    pub job: u64,
    /// `start`, `reserve` or `drop`.
    pub kind: String,
    /// Its start, microseconds since the ledger's epoch.
    pub start: u64,
    /// The nodes (empty for a drop).
    pub nodes: Vec<String>,
}

/// One call to the controller (times in microseconds since the ledger's epoch).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entry {
    /// Job `job` arrived at `at`.
    Arrive {
        /// The job.
        job: u64,
        /// When (its submission, or the controller's clock if later).
        at: u64,
        /// Its facts.
        facts: JobFacts,
    },
    /// Job `job` ended at `at`.
    Complete {
        /// The job.
        job: u64,
        /// When.
        at: u64,
    },
    /// Job `job` left before it started (cancelled by its user) at `at`.
    Withdraw {
        /// The job.
        job: u64,
        /// When.
        at: u64,
    },
    /// A mapping event at `now`, and what it decided.
    Map {
        /// When.
        now: u64,
        /// Its decisions, in order.
        decisions: Vec<Applied>,
    },
    /// Job `job` could not be a task (the reason goes in its comment as it is cancelled).
    Refuse {
        /// The job.
        job: u64,
        /// Why.
        reason: String,
    },
    /// Node `node` (one of [`Ledger::nodes`]) went out of service at `at`: Slurm showed it
    /// in `state` (drained, down, ...).
    NodeOut {
        /// The node.
        node: String,
        /// When.
        at: u64,
        /// Its state in `sinfo` (for the operator).
        state: String,
    },
    /// Node `node` came back in service at `at`.
    NodeIn {
        /// The node.
        node: String,
        /// When.
        at: u64,
    },
}

/// The file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// [`VERSION`].
    pub version: u32,
    /// Time zero of the controller, Unix seconds.
    pub epoch: u64,
    /// The nodes, in the controller's order (node `i` of the cluster is `nodes[i]`).
    pub nodes: Vec<String>,
    /// The policy file's text, as it was when the ledger began (a changed policy would
    /// not rebuild the same state).
    pub policy: String,
    /// Energy consumed and committed in the current day, millijoules (for operators;
    /// rebuilt on a restart, not read).
    pub energy_mj: u64,
    /// The calls, in order.
    pub entries: Vec<Entry>,
}

impl Ledger {
    /// Reads the ledger at `path` (`None` if there is none).
    pub fn load(path: &Path) -> anyhow::Result<Option<Ledger>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("{}: cannot read the ledger", path.display()))
            }
        };
        let l: Ledger = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}: line {}, column {}: not a kairos slurm-control ledger: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        if l.version != VERSION {
            anyhow::bail!(
                "{}: ledger version {} (this kairos reads version {VERSION})",
                path.display(),
                l.version
            );
        }
        Ok(Some(l))
    }

    /// The length of the longest prefix of the entries that can go without changing what
    /// a replay of the rest rebuilds, or `None` (nothing can go): the prefix must end where
    /// the controller held no job (every job that arrived in it had completed, been
    /// withdrawn or been dropped) and every node was in service, and none of its jobs may be one the loop still tracks in
    /// Slurm (`tracked`: a dropped or refused job not yet cancelled). A controller begun
    /// afresh there decides as the old one (its task table and timelines empty alike; task
    /// and assignment numbers differ, which no decision reads). Under a daily energy budget
    /// (`budget`) the prefix must also end a day: the next entry falls in a later day than
    /// its last, so that the energy it consumed is the past day's, which the new day's
    /// ledger does not carry.
    pub fn quiet_point(&self, tracked: &dyn Fn(u64) -> bool, budget: bool) -> Option<usize> {
        const DAY_US: u64 = 86_400_000_000;
        let mut live = std::collections::BTreeSet::new();
        // Nodes out of service: a controller begun afresh would not know it.
        let mut out = std::collections::BTreeSet::new();
        let mut best = None;
        // The time of each entry (a refusal's: the last time before it).
        let mut times = Vec::with_capacity(self.entries.len());
        let mut last = 0;
        for e in &self.entries {
            last = time_of(e).unwrap_or(last);
            times.push(last);
        }
        for (k, e) in self.entries.iter().enumerate() {
            match e {
                Entry::Arrive { job, .. } => {
                    live.insert(*job);
                }
                Entry::Complete { job, .. } | Entry::Withdraw { job, .. } => {
                    live.remove(job);
                }
                Entry::Map { decisions, .. } => {
                    for d in decisions.iter().filter(|d| d.kind == "drop") {
                        live.remove(&d.job);
                    }
                }
                Entry::Refuse { .. } => {}
                Entry::NodeOut { node, .. } => {
                    out.insert(node.as_str());
                }
                Entry::NodeIn { node, .. } => {
                    out.remove(node.as_str());
                }
            }
            if tracked(job_of(e).unwrap_or(u64::MAX)) {
                // A job still tracked: no cut at or after its entries.
                return best;
            }
            if let Entry::Map { decisions, .. } = e {
                if decisions.iter().any(|d| tracked(d.job)) {
                    return best;
                }
            }
            if !live.is_empty() || !out.is_empty() {
                continue;
            }
            if budget {
                match times.get(k + 1) {
                    Some(next) if next / DAY_US > times[k] / DAY_US => {}
                    _ => continue,
                }
            }
            best = Some(k + 1);
        }
        best
    }

    /// Drops the first `n` entries (a [`quiet_point`](Self::quiet_point)).
    pub fn compact(&mut self, n: usize) {
        self.entries.drain(..n.min(self.entries.len()));
    }

    /// Writes the ledger to `path` whole or not at all: a temporary file beside it, synced
    /// to disk, renamed into place, and the folder synced (so that a power cut, not only a
    /// kill, leaves one whole ledger; `output::write_atomic` does not sync).
    /// Returns the bytes written.
    pub fn save(&self, path: &Path) -> anyhow::Result<usize> {
        use std::io::Write;
        let bytes = serde_json::to_vec(self).context("cannot encode the ledger")?;
        let name = path
            .file_name()
            .with_context(|| format!("{}: not a file name", path.display()))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(".tmp");
        let tmp = path.with_file_name(tmp_name);
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()
        };
        write().with_context(|| format!("{}: cannot write", tmp.display()))?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("{}: cannot rename into place", path.display()))?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // Not every file system lets a folder be synced; the rename is done either way.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(bytes.len())
    }
}

/// The job an entry names (a mapping event names its decisions' jobs).
fn job_of(e: &Entry) -> Option<u64> {
    match e {
        Entry::Arrive { job, .. }
        | Entry::Complete { job, .. }
        | Entry::Withdraw { job, .. }
        | Entry::Refuse { job, .. } => Some(*job),
        Entry::Map { .. } | Entry::NodeOut { .. } | Entry::NodeIn { .. } => None,
    }
}

/// An entry's time, microseconds since the epoch (a refusal has none).
fn time_of(e: &Entry) -> Option<u64> {
    match e {
        Entry::Arrive { at, .. }
        | Entry::Complete { at, .. }
        | Entry::Withdraw { at, .. }
        | Entry::NodeOut { at, .. }
        | Entry::NodeIn { at, .. } => Some(*at),
        Entry::Map { now, .. } => Some(*now),
        Entry::Refuse { .. } => None,
    }
}

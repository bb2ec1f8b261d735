//! The ledger file: everything `kairos slurm-control` told its controller, in order (each
//! job's arrival with the facts its task is made from, completions, withdrawals, mapping
//! events with the decisions they made, jobs refused), rewritten whole at every cycle that
//! adds to it (a temporary file, then a rename: a kill at any moment leaves the old file or
//! the new one). The controller is deterministic, so on a restart the same calls in the same
//! order rebuild the same state (bookings, reservations, energy and utility ledgers), and
//! the decisions recorded check that they did.

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

    /// Writes the ledger to `path` whole or not at all: a temporary file beside it, synced
    /// to disk, renamed into place, and the folder synced (so that a power cut, not only a
    /// kill, leaves one whole ledger; `output::write_atomic` does not sync).
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
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
        Ok(())
    }
}

//! What the controller loop holds beyond the core: which Slurm job each task is, the nodes
//! each started or reserved task booked, the jobs dropped or refused with their reasons, and
//! the nodes out of service.

use std::collections::{BTreeMap, HashMap};

use kairos_core::task::TaskId;

/// What the controller holds beyond the core: which job each task is, and its nodes.
#[derive(Default)]
pub(super) struct Book {
    pub(super) task_of: HashMap<u64, TaskId>,
    pub(super) job_of: HashMap<u32, u64>,
    /// Global node ids of each started or reserved task (by task id).
    pub(super) nodes: HashMap<u32, Vec<u32>>,
    /// Jobs refused, with the reason (cancelled with it).
    pub(super) refused: BTreeMap<u64, String>,
    /// Jobs dropped, with the reason.
    pub(super) dropped: BTreeMap<u64, String>,
    /// Nodes out of service (indices into the node list), with the state Slurm showed.
    pub(super) out: BTreeMap<u32, String>,
}

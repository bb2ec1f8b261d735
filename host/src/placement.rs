//! Which nodes each task ran on, read off the controller's timelines: the node identities
//! Batsim's jobs file needs (`allocated_resources`) and no summary does.
//!
//! The core's decisions carry a cluster and a node *count*, not the nodes: the nodes are the
//! bookings the planner wrote into the cluster's timeline. [`NodeLog`] is fed the decisions
//! of a mapping event and, after it, looks up where each task that was started or reserved
//! in it holds bookings. A reservation holds its nodes from the moment it is made, and one
//! that is moved or retaken comes with a new decision, so the last look-up of a task is the
//! set of nodes it runs on.
//!
//! Node ids are global across clusters: cluster `c`'s node `i` is the sum of the sizes of
//! clusters `0..c`, plus `i` (Batsim numbers one platform's machines from 0 the same way).
//!
//! It costs one walk over every node's bookings per mapping event that starts or reserves
//! something, so callers keep it for runs that asked for a jobs file.

use kairos_core::timeline::BookingKind;
use kairos_core::{Controller, Decision, DecisionKind};

/// The nodes of every task, by task id, kept current from the decisions.
#[derive(Clone, Debug, Default)]
pub struct NodeLog {
    /// Global node ids of task `k`, ascending (empty until it is started or reserved).
    nodes: Vec<Vec<u32>>,
    /// Tasks started or reserved in the mapping event under way.
    touched: Vec<u32>,
    /// `mark[k]`: task `k` is in `touched`.
    mark: Vec<bool>,
}

impl NodeLog {
    /// A log with room for `tasks` task ids (it grows if more come).
    pub fn new(tasks: usize) -> NodeLog {
        NodeLog {
            nodes: vec![Vec::new(); tasks],
            touched: Vec::new(),
            mark: vec![false; tasks],
        }
    }

    /// Notes a decision of the mapping event under way.
    pub fn on_decision(&mut self, d: &Decision) {
        if matches!(d.kind, DecisionKind::Start | DecisionKind::Reserve) {
            let k = d.task.0 as usize;
            if k >= self.mark.len() {
                self.mark.resize(k + 1, false);
                self.nodes.resize(k + 1, Vec::new());
            }
            if !self.mark[k] {
                self.mark[k] = true;
                self.touched.push(d.task.0);
            }
        }
    }

    /// After the mapping event: the nodes of every task it started or reserved.
    pub fn after_mapping(&mut self, ctl: &Controller<'_>) {
        if self.touched.is_empty() {
            return;
        }
        for &k in &self.touched {
            self.nodes[k as usize].clear();
        }
        let mut base = 0u32;
        for (c, cluster) in ctl.platform().clusters().iter().enumerate() {
            let Some(timeline) = ctl.timeline(kairos_core::platform::ClusterId(c as u8)) else {
                break;
            };
            for (i, node) in timeline.nodes().enumerate() {
                for b in node.bookings() {
                    let k = b.task.0 as usize;
                    if b.kind != BookingKind::PlaceHolder && self.mark.get(k) == Some(&true) {
                        self.nodes[k].push(base + i as u32);
                    }
                }
            }
            base += cluster.nodes.0;
        }
        for &k in &self.touched {
            self.mark[k as usize] = false;
        }
        self.touched.clear();
    }

    /// The nodes of task `k`, ascending (empty if it never started).
    pub fn nodes(&self, k: usize) -> &[u32] {
        self.nodes.get(k).map_or(&[], Vec::as_slice)
    }

    /// Takes the nodes of task `k` out of the log.
    pub fn take(&mut self, k: usize) -> Vec<u32> {
        self.nodes
            .get_mut(k)
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_log_has_no_nodes() {
        let mut log = NodeLog::new(2);
        assert!(log.nodes(0).is_empty());
        assert!(log.nodes(7).is_empty());
        assert!(log.take(9).is_empty());
    }
}

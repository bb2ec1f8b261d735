//! Job ids and submit order in a Batsim workload: the same accounting as an SWF log's
//! (`crate::swf`'s `order.rs`, docs/reliability.md "SWF logs"), worded for JSON. Batsim
//! expects each id once and does not require `jobs` sorted, but a repeated id makes its jobs
//! files ambiguous and a list out of submit order is usually a file assembled by hand. So:
//! - every entry of `jobs` is its own job, whatever its id: a repeated id is counted and both
//!   jobs are replayed;
//! - jobs are replayed in submit-time order, ties in list order, so an entry submitted
//!   before an earlier entry's job is counted and replayed at its own time;
//! - `kairos replay` prints one warning with both counts and the first entry of each, and
//!   `--strict` makes the first of either an error naming the file, the entry and the field.

use std::collections::HashMap;
use std::fmt;

use super::Workload;

/// Where a workload first broke a rule of the module doc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadPlace {
    /// 0-based position in `jobs` of the entry that broke it.
    pub index: usize,
    /// Its id, as written.
    pub id: String,
    /// The earlier entry it conflicts with (the same id; a later submit time).
    pub earlier: usize,
}

/// Repeated ids and submit times out of order in a workload's `jobs`, in list order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkloadOrder {
    /// Entries whose id an earlier entry has.
    pub duplicate_ids: usize,
    /// The first of them.
    pub first_duplicate: Option<WorkloadPlace>,
    /// Entries submitted before the job of an earlier entry.
    pub unsorted: usize,
    /// The first of them.
    pub first_unsorted: Option<WorkloadPlace>,
}

impl WorkloadOrder {
    /// Counts the repeated ids and out-of-order submit times of `w`.
    pub fn of(w: &Workload) -> WorkloadOrder {
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(w.jobs.len());
        let mut latest: Option<(u64, usize)> = None;
        let mut r = WorkloadOrder::default();
        for (i, j) in w.jobs.iter().enumerate() {
            if let Some(&earlier) = seen.get(j.id.as_str()) {
                r.duplicate_ids += 1;
                r.first_duplicate.get_or_insert(WorkloadPlace {
                    index: i,
                    id: j.id.clone(),
                    earlier,
                });
            } else {
                seen.insert(&j.id, i);
            }
            match latest {
                Some((top, top_i)) if j.subtime < top => {
                    r.unsorted += 1;
                    r.first_unsorted.get_or_insert(WorkloadPlace {
                        index: i,
                        id: j.id.clone(),
                        earlier: top_i,
                    });
                }
                _ => latest = Some((j.subtime, i)),
            }
        }
        r
    }

    /// Whether the workload keeps both promises.
    pub fn is_clean(&self) -> bool {
        self.duplicate_ids == 0 && self.unsorted == 0
    }

    /// The `--strict` error for the first broken promise of `file`, if any.
    pub fn strict(&self, file: &str) -> anyhow::Result<()> {
        if let Some(p) = &self.first_duplicate {
            anyhow::bail!(
                "{file}: jobs[{}] (id {}): `id`: repeats the id of jobs[{}] (--strict)",
                p.index,
                p.id,
                p.earlier
            );
        }
        if let Some(p) = &self.first_unsorted {
            anyhow::bail!(
                "{file}: jobs[{}] (id {}): `subtime`: submitted before the job of jobs[{}] \
                 (--strict)",
                p.index,
                p.id,
                p.earlier
            );
        }
        Ok(())
    }

    /// The counts as the SWF reader's report (`line` read as the 1-based position in `jobs`,
    /// the id as the replay's job number), for what reads a loaded trace's counts.
    pub fn as_report(&self, w: &Workload) -> crate::swf::OrderReport {
        let place = |p: &WorkloadPlace| crate::swf::OrderPlace {
            line: p.index + 1,
            id: w.jobs[p.index].id.parse().unwrap_or(p.index as u64 + 1),
            earlier_line: p.earlier + 1,
        };
        crate::swf::OrderReport {
            duplicate_ids: self.duplicate_ids,
            first_duplicate: self.first_duplicate.as_ref().map(place),
            unsorted: self.unsorted,
            first_unsorted: self.first_unsorted.as_ref().map(place),
        }
    }
}

impl fmt::Display for WorkloadOrder {
    /// The warning `kairos replay` prints (empty for a clean workload).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(p) = &self.first_duplicate {
            parts.push(format!(
                "{} jobs repeat an earlier job's id (first: jobs[{}], id {}, as jobs[{}]), \
                 each replayed as its own job",
                self.duplicate_ids, p.index, p.id, p.earlier
            ));
        }
        if let Some(p) = &self.first_unsorted {
            parts.push(format!(
                "{} jobs are submitted before an earlier entry's job (first: jobs[{}], id {}, \
                 before jobs[{}]), replayed in submit-time order",
                self.unsorted, p.index, p.id, p.earlier
            ));
        }
        if !parts.is_empty() {
            write!(f, "{} (--strict refuses such a workload)", parts.join("; "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batsim::WorkloadJob;

    fn job(id: &str, subtime: u64) -> WorkloadJob {
        WorkloadJob {
            id: id.into(),
            subtime,
            walltime: None,
            res: 1,
            profile: "p".into(),
            delay: 1,
        }
    }

    #[test]
    fn workload_order_counts_repeats_and_unsorted_with_first_places() {
        let w = Workload {
            file: "w.json".into(),
            nb_res: 1,
            jobs: vec![
                job("a", 10),
                job("b", 20),
                job("a", 15), // repeats jobs[0]'s id, before jobs[1]'s submit
                job("c", 5),  // before jobs[1]'s submit
                job("b", 30), // repeats jobs[1]'s id
            ],
        };
        let r = WorkloadOrder::of(&w);
        assert_eq!((r.duplicate_ids, r.unsorted), (2, 2));
        let d = r.first_duplicate.clone().unwrap();
        assert_eq!((d.index, d.id.as_str(), d.earlier), (2, "a", 0));
        assert_eq!(r.first_unsorted.clone().unwrap().earlier, 1);
        let e = r.strict("w.json").unwrap_err().to_string();
        assert_eq!(
            e,
            "w.json: jobs[2] (id a): `id`: repeats the id of jobs[0] (--strict)"
        );
        let text = r.to_string();
        assert!(
            text.starts_with("2 jobs repeat an earlier job's id"),
            "{text}"
        );
        assert!(text.contains("2 jobs are submitted before"), "{text}");
        let rep = r.as_report(&w);
        assert_eq!((rep.duplicate_ids, rep.unsorted), (2, 2));
        assert_eq!(rep.first_duplicate.unwrap().line, 3);
    }

    #[test]
    fn workload_order_of_a_clean_workload_is_clean() {
        let w = Workload {
            file: "w.json".into(),
            nb_res: 1,
            jobs: vec![job("1", 0), job("2", 0), job("3", 7)],
        };
        let r = WorkloadOrder::of(&w);
        assert!(r.is_clean());
        assert!(r.strict("w.json").is_ok());
        assert_eq!(r.to_string(), "");
    }
}

//! Job numbers and submit order: what the Parallel Workloads Archive's logs promise (each
//! job number once, submit times non-decreasing) and what kairos does with a log that breaks
//! it. The rule (docs/reliability.md, "SWF logs"):
//! - every job line is its own job, whatever its number: a repeated number is counted, and
//!   both jobs are replayed (their rows in `--jobs-out` share the number);
//! - jobs are replayed in submit-time order, ties in file order, so a line submitted before
//!   an earlier line's job is counted and replayed at its own time;
//! - `kairos replay` prints one warning with both counts and the first line of each, and
//!   `--strict` makes the first of either an error naming the file, the line and the field.
//!
//! A streamed log ([`super::SwfStream`]) cannot be reordered (a job out of submit order is
//! always an error there), and it keeps no table of the numbers seen: a job number not above
//! the largest before it (the archive's numbers increase) is what it counts as repeated.

use std::collections::HashMap;
use std::fmt;

use super::{Field, SwfError};

/// Where a log first broke a rule of the module doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderPlace {
    /// 1-based line of the job that broke it.
    pub line: usize,
    /// Its job number.
    pub id: u64,
    /// The earlier line it conflicts with (the same number; a later submit time).
    pub earlier_line: usize,
}

/// What `OrderCheck` found: counts, and the first place of each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderReport {
    /// Job lines whose number an earlier line has (in a stream: not above an earlier one).
    pub duplicate_ids: usize,
    /// The first of them.
    pub first_duplicate: Option<OrderPlace>,
    /// Job lines submitted before the job of an earlier line.
    pub unsorted: usize,
    /// The first of them.
    pub first_unsorted: Option<OrderPlace>,
}

impl OrderReport {
    /// Whether the log keeps both promises.
    pub fn is_clean(&self) -> bool {
        self.duplicate_ids == 0 && self.unsorted == 0
    }

    /// The `--strict` error for the first broken promise of `file`, if any.
    pub fn strict(&self, file: &str) -> Result<(), SwfError> {
        if let Some(p) = self.first_duplicate {
            return Err(SwfError::Order {
                file: file.to_owned(),
                line: p.line,
                field: Field::JobNumber,
                problem: format!("job {} repeats the number of line {}", p.id, p.earlier_line),
            });
        }
        if let Some(p) = self.first_unsorted {
            return Err(SwfError::Order {
                file: file.to_owned(),
                line: p.line,
                field: Field::SubmitTime,
                problem: format!(
                    "job {} is submitted before the job of line {}",
                    p.id, p.earlier_line
                ),
            });
        }
        Ok(())
    }
}

impl fmt::Display for OrderReport {
    /// The warning `kairos replay` prints (empty for a clean log).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(p) = self.first_duplicate {
            parts.push(format!(
                "{} job lines repeat an earlier job number (first: line {}, job {}, as line {}), \
                 each replayed as its own job",
                self.duplicate_ids, p.line, p.id, p.earlier_line
            ));
        }
        if let Some(p) = self.first_unsorted {
            parts.push(format!(
                "{} jobs are submitted before an earlier line's job (first: line {}, job {}, \
                 before line {}), replayed in submit-time order",
                self.unsorted, p.line, p.id, p.earlier_line
            ));
        }
        if !parts.is_empty() {
            write!(f, "{} (--strict refuses such a log)", parts.join("; "))?;
        }
        Ok(())
    }
}

/// Watches job lines in file order for repeated numbers and submit times out of order.
#[derive(Debug, Default)]
pub(crate) struct OrderCheck {
    /// Each number's first line (batch reading), or `None` in a stream: then the largest
    /// number so far and its line.
    seen: Option<HashMap<u64, usize>>,
    largest: Option<(u64, usize)>,
    /// Batch reading, while every number is above those before it (the archive's logs
    /// throughout): the numbers and lines in file order, sorted, so none repeats and no
    /// table is kept; the table is built from them at the first number that does not rise.
    rising: Option<Vec<(u64, usize)>>,
    /// The latest submit time so far and its line.
    latest: Option<(u64, usize)>,
    report: OrderReport,
}

impl OrderCheck {
    /// An exact check (a table of every number), for a log read whole.
    pub(crate) fn exact() -> OrderCheck {
        OrderCheck {
            rising: Some(Vec::new()),
            ..OrderCheck::default()
        }
    }

    /// A check in constant memory, for a stream (see the module doc).
    pub(crate) fn streamed() -> OrderCheck {
        OrderCheck::default()
    }

    /// The job of `line`, numbered `id`, submitted at `submit` (unknown: not compared).
    pub(crate) fn job(&mut self, line: usize, id: u64, submit: Option<u64>) {
        if let Some(rising) = &mut self.rising {
            if rising.last().is_none_or(|&(top, _)| id > top) {
                rising.push((id, line));
            } else {
                self.seen = Some(rising.drain(..).collect());
                self.rising = None;
            }
        }
        let earlier = match &mut self.seen {
            Some(seen) => match seen.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(line);
                    None
                }
            },
            None if self.rising.is_some() => None,
            None => match self.largest {
                Some((top, top_line)) if id <= top => Some(top_line),
                _ => {
                    self.largest = Some((id, line));
                    None
                }
            },
        };
        if let Some(earlier_line) = earlier {
            let r = &mut self.report;
            r.duplicate_ids += 1;
            r.first_duplicate.get_or_insert(OrderPlace {
                line,
                id,
                earlier_line,
            });
        }
        if let Some(s) = submit {
            match self.latest {
                Some((top, top_line)) if s < top => {
                    let r = &mut self.report;
                    r.unsorted += 1;
                    r.first_unsorted.get_or_insert(OrderPlace {
                        line,
                        id,
                        earlier_line: top_line,
                    });
                }
                _ => self.latest = Some((s, line)),
            }
        }
    }

    /// What was found so far.
    pub(crate) fn report(&self) -> OrderReport {
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_counts_repeats_and_unsorted_with_first_places() {
        let mut c = OrderCheck::exact();
        c.job(1, 5, Some(10));
        c.job(2, 7, Some(20));
        c.job(3, 5, Some(15)); // repeats line 1's number, before line 2's submit
        c.job(4, 9, None);
        c.job(5, 7, Some(30)); // repeats line 2's
        let r = c.report();
        assert_eq!(r.duplicate_ids, 2);
        assert_eq!(
            r.first_duplicate,
            Some(OrderPlace {
                line: 3,
                id: 5,
                earlier_line: 1
            })
        );
        assert_eq!(r.unsorted, 1);
        assert_eq!(r.first_unsorted.unwrap().earlier_line, 2);
        let e = r.strict("a.swf").unwrap_err().to_string();
        assert_eq!(
            e,
            "a.swf:3: field 1 (job number): job 5 repeats the number of line 1"
        );
        let w = r.to_string();
        assert!(
            w.starts_with("2 job lines repeat an earlier job number"),
            "{w}"
        );
        assert!(w.contains("1 jobs are submitted before"), "{w}");
        assert!(OrderReport::default().strict("a.swf").is_ok());
        assert_eq!(OrderReport::default().to_string(), "");
    }

    #[test]
    fn order_streamed_counts_numbers_not_increasing() {
        let mut c = OrderCheck::streamed();
        for (line, id) in [(1, 1), (2, 2), (3, 2), (4, 1), (5, 3)] {
            c.job(line, id, Some(0));
        }
        let r = c.report();
        assert_eq!(r.duplicate_ids, 2);
        assert_eq!(r.first_duplicate.unwrap().earlier_line, 2);
        assert_eq!(r.unsorted, 0);
    }
}

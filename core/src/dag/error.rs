//! Why a seed 003 job, DVFS table, mapping or level vector was refused.

use core::fmt;

/// A seed 003 input the core refuses (it returns this instead of panicking).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DagError {
    /// A job must have 1 to [`MAX_DAG_TASKS`](crate::limits::MAX_DAG_TASKS) tasks.
    Tasks(usize),
    /// A task's fastest execution time is zero.
    ZeroWcet(u8),
    /// An edge must go from a lower to a higher task index (tasks are numbered in a
    /// topological order), both below the task count.
    Edge(u8, u8),
    /// The same edge was given twice.
    DuplicateEdge(u8, u8),
    /// A DVFS table must have 1 to [`MAX_DVFS_LEVELS`](crate::limits::MAX_DVFS_LEVELS)
    /// levels, with one power per frequency.
    Levels(usize),
    /// Frequencies must be positive and strictly decreasing (level 0 is the fastest).
    Frequency(u8),
    /// A static power (milliwatts) above the table's whole top-level power.
    StaticPower(u32),
    /// A frequency-bound share above 1000 per mille.
    FreqBound(u16),
    /// A task is mapped to a core at or beyond the allowed count.
    Core(u8),
    /// A task is given a level the table does not have.
    Level(u8),
    /// A value curve's soft deadline is after its hard one, or its hard deadline is zero.
    Curve,
    /// An allocation on zero cores, or on more than a job can use.
    CoreCount(usize),
}

impl fmt::Display for DagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DagError::Tasks(n) => write!(
                f,
                "a DAG job has {n} tasks: it must have 1 to {}",
                crate::limits::MAX_DAG_TASKS
            ),
            DagError::ZeroWcet(t) => write!(f, "task {t} has a zero execution time"),
            DagError::Edge(a, b) => write!(
                f,
                "edge {a} -> {b}: edges go from a lower to a higher task index, inside the job"
            ),
            DagError::DuplicateEdge(a, b) => write!(f, "edge {a} -> {b} is given twice"),
            DagError::Levels(n) => write!(
                f,
                "a DVFS table has {n} levels (or unequal frequency and power lists): it must \
                 have 1 to {}",
                crate::limits::MAX_DVFS_LEVELS
            ),
            DagError::Frequency(l) => write!(
                f,
                "level {l}: frequencies must be positive and strictly decreasing"
            ),
            DagError::StaticPower(p) => write!(
                f,
                "a static power of {p} mW exceeds the processor's whole power at its top level"
            ),
            DagError::FreqBound(b) => write!(
                f,
                "{b} per mille of a task's time scales with the clock: at most 1000"
            ),
            DagError::Core(t) => write!(f, "task {t} is mapped beyond the job's cores"),
            DagError::Level(t) => write!(f, "task {t} has a level the DVFS table lacks"),
            DagError::Curve => write!(
                f,
                "a value curve needs 0 <= soft <= hard and a positive hard deadline"
            ),
            DagError::CoreCount(c) => write!(f, "{c} cores: a job runs on 1 to its task count"),
        }
    }
}

impl core::error::Error for DagError {}

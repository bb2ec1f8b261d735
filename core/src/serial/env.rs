//! The serial environment a run is given, and how the run decides.
//!
//! Machines are grouped by type (seed 002 §2.6.3, App. E): machine `m` has type
//! `machine_type[m]`, types never decrease along the list, so each type is a range of
//! machines. The first `special_types` types are special-purpose. ETC is one entry per
//! (task type, machine type), row-major by task type; [`Micros::MAX`] marks a pair that
//! cannot run (a general task on a special machine, Table E.1).

use super::cost::EventCost;
pub use super::heuristic::{Heuristic, Mode};
use crate::units::Micros;
use crate::utility::{UtilityClasses, UtilityCurve};
use core::fmt;

/// Most machines a serial environment may have (seed 002 uses 100).
pub const MAX_SERIAL_MACHINES: usize = 256;
/// Most machine types a serial environment may have (seed 002 uses 13).
pub const MAX_SERIAL_MACHINE_TYPES: usize = 32;

/// Why a serial run could not start or go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SerialError {
    /// More machines or machine types than [`MAX_SERIAL_MACHINES`] /
    /// [`MAX_SERIAL_MACHINE_TYPES`], or none.
    TooManyMachines,
    /// Machine `m`'s type is out of range or smaller than the previous machine's.
    BadMachineType(u16),
    /// The ETC table's length is not task types x machine types, or an entry is zero.
    BadEtc,
    /// Task `i` has an unknown type, no machine type that can run it, or a bad curve.
    BadTask(u32),
    /// Task `i` arrives before task `i - 1`.
    Unsorted(u32),
    /// A storage slice is shorter than the tasks need (see [`super::SerialStorage`]).
    Storage,
    /// The configuration is inconsistent (a negative or NaN threshold, K = 0, a trigger
    /// with neither a count nor an interval, a permutation of more than 5 tasks).
    BadConfig,
}

impl fmt::Display for SerialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SerialError::TooManyMachines => write!(
                f,
                "between 1 and {MAX_SERIAL_MACHINES} machines of at most \
                 {MAX_SERIAL_MACHINE_TYPES} types"
            ),
            SerialError::BadMachineType(m) => write!(
                f,
                "machine {m}: type unknown or smaller than the previous machine's \
                 (machines must be listed by type)"
            ),
            SerialError::BadEtc => write!(
                f,
                "the ETC table must hold task types x machine types entries, none zero"
            ),
            SerialError::BadTask(i) => write!(
                f,
                "task {i}: unknown type, no machine can run it, or a bad utility curve"
            ),
            SerialError::Unsorted(i) => write!(f, "task {i} arrives before task {}", i - 1),
            SerialError::Storage => write!(
                f,
                "a storage slice is shorter than the task list needs (SerialStorage::sizes)"
            ),
            SerialError::BadConfig => write!(
                f,
                "bad configuration: threshold >= 0, K >= 1, a trigger needs a count or an \
                 interval, permutation of at most 5 tasks"
            ),
        }
    }
}

impl core::error::Error for SerialError {}

/// One task: its type, arrival and utility curve. A task's index in the list is its id;
/// the list is sorted by arrival, so index order is arrival order (the tie-break).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SerialTask {
    /// Its task type (a row of the ETC table).
    pub ty: u16,
    /// When it arrives.
    pub arrival: Micros,
    /// What completing it is worth, by time since arrival.
    pub curve: UtilityCurve,
}

/// The machines and the ETC table.
#[derive(Clone, Copy, Debug)]
pub struct SerialEnv<'a> {
    /// Each machine's type, non-decreasing.
    pub machine_type: &'a [u8],
    /// How many machine types there are.
    pub machine_types: u8,
    /// The first this many machine types are special-purpose.
    pub special_types: u8,
    /// ETC(i, j) at `[i * machine_types + j]`; [`Micros::MAX`] where type i cannot run.
    pub etc: &'a [Micros],
    /// The utility classes the tasks' curves index.
    pub classes: &'a UtilityClasses,
}

impl SerialEnv<'_> {
    /// The number of task types the ETC table describes.
    pub fn task_types(&self) -> usize {
        self.etc.len() / self.machine_types.max(1) as usize
    }

    /// ETC of task type `ty` on machine type `j` ([`Micros::MAX`]: cannot run).
    #[inline]
    pub fn etc(&self, ty: u16, j: u8) -> Micros {
        self.etc[ty as usize * self.machine_types as usize + j as usize]
    }

    /// Whether task type `ty` runs on machine type `j`.
    #[inline]
    pub fn runs(&self, ty: u16, j: u8) -> bool {
        self.etc(ty, j) != Micros::MAX
    }

    /// The machine type where `ty` executes fastest (MET), the lower type on ties.
    pub fn met_type(&self, ty: u16) -> u8 {
        let mut best = 0u8;
        for j in 1..self.machine_types {
            if self.etc(ty, j) < self.etc(ty, best) {
                best = j;
            }
        }
        best
    }

    /// Whether machine `m` is special-purpose.
    pub fn is_special(&self, m: u16) -> bool {
        self.machine_type[m as usize] < self.special_types
    }

    /// Checks the machines, the table and the tasks (every curve is evaluated once, so that
    /// later evaluations cannot fail).
    pub fn check(&self, tasks: &[SerialTask]) -> Result<(), SerialError> {
        let mt = self.machine_types as usize;
        if self.machine_type.is_empty()
            || self.machine_type.len() > MAX_SERIAL_MACHINES
            || mt == 0
            || mt > MAX_SERIAL_MACHINE_TYPES
            || self.special_types > self.machine_types
        {
            return Err(SerialError::TooManyMachines);
        }
        let mut prev = 0u8;
        for (m, &t) in self.machine_type.iter().enumerate() {
            if t as usize >= mt || t < prev {
                return Err(SerialError::BadMachineType(m as u16));
            }
            prev = t;
        }
        if self.etc.is_empty()
            || !self.etc.len().is_multiple_of(mt)
            || self.etc.contains(&Micros::ZERO)
        {
            return Err(SerialError::BadEtc);
        }
        let types = self.task_types();
        let mut last = Micros::ZERO;
        for (i, t) in tasks.iter().enumerate() {
            let ok_type = (t.ty as usize) < types
                && (0..self.machine_types).any(|j| self.runs(t.ty, j) && self.count(j) > 0);
            if !ok_type || t.curve.value_at(Micros::ZERO, self.classes).is_err() {
                return Err(SerialError::BadTask(i as u32));
            }
            if t.arrival < last {
                return Err(SerialError::Unsorted(i as u32));
            }
            last = t.arrival;
        }
        Ok(())
    }

    /// How many machines have type `j`.
    pub fn count(&self, j: u8) -> usize {
        self.machine_type.iter().filter(|&&t| t == j).count()
    }
}

/// What starts a batch mapping event (§2.7.4): `tasks` new arrivals since the last event or
/// `interval` since its start, whichever comes first, and never before the last event has
/// finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trigger {
    /// After this many arrivals since the last event (`None`: never by count).
    pub tasks: Option<u32>,
    /// After this long since the last event started (`None`: never by time).
    pub interval: Option<Micros>,
}

impl Trigger {
    /// The dissertation's default: every minute.
    pub const MINUTE: Trigger = Trigger {
        tasks: None,
        interval: Some(Micros::MINUTE),
    };
}

/// How a run decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SerialConfig {
    /// The heuristic.
    pub heuristic: Heuristic,
    /// The dropping threshold theta (0: never drop).
    pub theta: f64,
    /// What starts a batch event (ignored in immediate mode).
    pub trigger: Trigger,
    /// The model of a mapping event's own duration.
    pub cost: EventCost,
    /// App. A: after a batch event, try every order of the first `permute` tasks of each
    /// virtual queue (0 or 1: off; at most 5).
    pub permute: u8,
    /// Seeds the heuristics' ChaCha stream (Random, Round-Robin's order, MET-Random).
    pub seed: u64,
    /// Results count completions and events in `[window.0, window.1)`; the run stops at
    /// `window.1`.
    pub window: (Micros, Micros),
}

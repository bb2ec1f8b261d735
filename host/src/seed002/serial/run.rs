//! One serial run: allocate the core's storage for a trial and run it, its simulated hours
//! told to the command's progress ([`crate::progress::SimHours`]).

use crate::seed002::generate::Trial;
use crate::seed002::serial::priority_split::utility_by_priority;
use kairos_core::serial::{
    SerialConfig, SerialError, SerialReport, SerialStorage, Sim, TaskOutcome,
};
use kairos_core::units::Utility;

/// The buffers the core's serial loop works in, sized for `n` tasks.
pub struct Buffers {
    outcome: Vec<TaskOutcome>,
    link: Vec<u32>,
    slots: Vec<u32>,
    key: Vec<f64>,
    choice: Vec<u16>,
    next: Vec<u32>,
    prev: Vec<u32>,
    tree: Vec<u32>,
    group: Vec<u32>,
}

impl Buffers {
    /// Buffers for `n` tasks.
    pub fn new(n: usize) -> Buffers {
        Buffers {
            outcome: vec![TaskOutcome::Waiting; n],
            link: vec![0; n],
            slots: vec![0; n],
            key: vec![0.0; n],
            choice: vec![0; n],
            next: vec![0; n],
            prev: vec![0; n],
            tree: vec![0; 2 * n],
            group: vec![0; 2 * n],
        }
    }

    /// The core's view of them.
    pub fn storage(&mut self) -> SerialStorage<'_> {
        SerialStorage {
            outcome: &mut self.outcome,
            link: &mut self.link,
            slots: &mut self.slots,
            key: &mut self.key,
            choice: &mut self.choice,
            next: &mut self.next,
            prev: &mut self.prev,
            tree: &mut self.tree,
            group: &mut self.group,
        }
    }
}

/// Runs `trial` under `cfg` to the end of its window.
pub fn run(trial: &Trial, cfg: SerialConfig) -> Result<SerialReport, SerialError> {
    let mut b = Buffers::new(trial.tasks.len());
    let sim = Sim::new(trial.env(), &trial.tasks, cfg, b.storage())?;
    Ok(sim.run())
}

/// [`run`], and the window's utility split by priority level (`priorities`: critical, high,
/// medium, low; [`crate::seed002::serial::priority_split`]).
pub fn run_split(
    trial: &Trial,
    cfg: SerialConfig,
    priorities: &[f64; 4],
) -> Result<(SerialReport, [Utility; 4]), SerialError> {
    let mut b = Buffers::new(trial.tasks.len());
    let mut sim = Sim::new(trial.env(), &trial.tasks, cfg, b.storage())?;
    // The clock told to the command's progress (a trial of 33,000 tasks a day runs for
    // seconds a configuration).
    let mut hours = crate::progress::SimHours::new(cfg.window.1 .0);
    while let Some(t) = sim.next_event() {
        hours.at(t.0);
        sim.map();
    }
    hours.end();
    let split = utility_by_priority(trial, sim.outcomes(), cfg.window, priorities);
    Ok((sim.finish(), split))
}

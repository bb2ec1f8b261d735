//! A policy outside the core: an [`External`] controller makes every decision of a mapping
//! event, and the core checks each one before it applies it ([`Refusal`] says why one is
//! not). The controller keeps the clock, the cluster, the ledgers and the digest; the
//! external policy only proposes. The host's `--controller exec:CMD` is one (a process
//! over JSON lines, `kairos_host::live::exec`).
//!
//! A proposal is a [`Decision`]: a start now (`Start`, at the event's time), a permanent
//! reservation later (`Reserve`) or a drop (`Drop`); its nodes and planned end must be the
//! task's on that cluster and P-state, the nodes free over the run, and its energy inside
//! what the day's budget has left (the energy filter is a policy's pacing, not checked).
//! The task must be waiting, or hold a reservation that has not started: that one is taken
//! back first (EASY recomputes its reservation at every event). The core's node choice
//! picks which nodes an applied decision gets, and tells them back.

use crate::error::Error;
use crate::plan::Decision;
use crate::platform::ClusterId;
use crate::task::{Task, TaskId};
use crate::units::Micros;

/// Why a proposed decision was refused (one of the core's errors, [`Error::Refused`]).
pub use crate::error::Refusal;

/// What an external policy proposes each decision through: it applies the decision and
/// gives the nodes it got to the second argument, or says why not ([`External::map`]).
pub type Propose<'a> = dyn FnMut(&Decision, &mut dyn FnMut(u32)) -> Result<(), Error> + 'a;

/// A policy that runs outside the core (another process, another language).
pub trait External {
    /// Task `id` arrived (the controller has taken it).
    fn arrived(&mut self, id: TaskId, task: &Task) -> Result<(), Error>;
    /// Task `id` completed at `at`, under assignment `seq`.
    fn completed(&mut self, id: TaskId, at: Micros, seq: u32) -> Result<(), Error>;
    /// Task `id` was withdrawn at `at` (a job cancelled before it started; `seq` is the
    /// reservation's it held, 0 if none). A policy whose protocol has no withdrawal is told
    /// it completed (it forgets the task either way); the firmware's is told it was
    /// withdrawn.
    fn withdrawn(&mut self, id: TaskId, at: Micros, seq: u32) -> Result<(), Error> {
        self.completed(id, at, seq)
    }
    /// Node `node` of `cluster` went out of service at `at` (`in_service` false) or came
    /// back (true) ([`crate::Controller::node_out`]). The controller's node choice never
    /// gives an applied decision an out-of-service node whatever the policy knows; a policy
    /// whose protocol has no such message is not told (this default), and a start it
    /// proposes that only the out-of-service nodes could take is refused. The firmware's is
    /// told.
    fn node_service(
        &mut self,
        cluster: ClusterId,
        node: u32,
        in_service: bool,
        at: Micros,
    ) -> Result<(), Error> {
        let _ = (cluster, node, in_service, at);
        Ok(())
    }
    /// A mapping event at `now`: every decision goes through `propose`, which applies it
    /// and gives the nodes it got (indices within its cluster, in node order; none for a
    /// drop) to its second argument, or refuses it ([`Error::Refused`]) or fails (another
    /// [`Error`]); either ends the event with that error.
    fn map(&mut self, now: Micros, propose: &mut Propose<'_>) -> Result<(), Error>;
}

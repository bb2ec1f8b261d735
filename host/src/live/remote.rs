//! The firmware (under QEMU, or a board on a serial port) as the deciding controller of a
//! live loop that keeps its own controller: `kairos slurm-control --controller qemu`. The
//! firmware is told every arrival, completion, withdrawal and node taken out of service or
//! back over the wire protocol and makes each mapping event's decisions; the host's
//! controller checks and books each one ([`kairos_core::external`]), so that the nodes a start gets (which the host reads off its
//! timelines) are the ones the firmware's identical node choice picked. After the event the
//! host's bookings are held to the firmware's: every commitment's start, end and assignment
//! number must be what the firmware's fate for it says, or the event ends with an error
//! naming the task (the two controllers disagree; nothing is applied).
//!
//! A place-holder (seed 000's Algorithm 1 under `reservations = "place-holder"`) is the
//! firmware's own planning within the event: the host does not book it (its booking goes at
//! the next event on both sides, and nothing is applied for it). A commitment the firmware
//! re-placed later in the same event ([`Fate::Moved`]) is proposed again where it ended up.

use super::client::Client;
use super::exec::decision_name;
use super::{connect, fresh_seq, ControllerSpec, LinkStats};
use kairos_core::error::Error;
use kairos_core::external::{External, Propose};
use kairos_core::packed::{encode_header, PackedHeader};
use kairos_core::platform::ClusterId;
use kairos_core::task::{Task, TaskId};
use kairos_core::units::Micros;
use kairos_core::wire::message::VERSION;
use kairos_core::wire::message::{Capacities, Decided, Fate, Request, Response, MAX_PAYLOAD};
use kairos_core::{Decision, DecisionKind};
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

/// What the loop reads of a [`Remote`] that its controller holds.
#[derive(Debug, Default)]
pub struct Shared {
    /// Why the exchange failed, once it has (the core is told [`Error::External`]).
    pub failure: Option<String>,
    /// The last mapping event's decisions, as the firmware made them (place-holders
    /// included).
    pub last: Vec<Decided>,
}

/// The firmware as a controller's external policy.
pub struct Remote {
    client: Client,
    /// What the firmware said it holds.
    pub capacities: Capacities,
    /// What the loop reads while the controller holds this one.
    shared: Rc<RefCell<Shared>>,
    /// Each committed task's assignment number on the firmware, which a completion must
    /// name: the host's differ (it books no place-holders, and books a re-placed
    /// commitment twice).
    seqs: std::collections::HashMap<u32, u32>,
}

impl Remote {
    /// Connects to the controller `spec` says (`image` is the firmware ELF for QEMU) and
    /// greets it with `header`; each request waits `timeout` for its answer before it is
    /// sent again.
    pub fn connect(
        spec: &ControllerSpec,
        image: &Path,
        header: &PackedHeader,
        timeout: std::time::Duration,
    ) -> anyhow::Result<Remote> {
        let link = connect(spec, header, header.tasks as usize, image)?;
        let mut client = Client::new(link, fresh_seq(spec));
        client.timeout = timeout;
        // The serve loop ignores the hello's schedule, but its decoding holds any encoded
        // schedule (always periodic: `Schedule::periodic`) to the day: a loop without a day
        // (`day_end` at its maximum) says its events come no more often than that allows.
        let mut header = header.clone();
        let fewest = header.config.day_end.0 / kairos_core::limits::MAX_PERIODIC_MAPPINGS + 1;
        header.schedule = kairos_core::engine::Schedule::every(Micros(
            fewest.max(kairos_core::limits::MIN_MAPPING_INTERVAL_US),
        ));
        let mut bytes = vec![0u8; MAX_PAYLOAD];
        let n = encode_header(&header, &mut bytes).map_err(|e| {
            anyhow::anyhow!("the hello does not fit one message ({MAX_PAYLOAD} bytes): {e}")
        })?;
        let capacities = match client.call(&Request::Hello {
            version: VERSION,
            header: &bytes[..n],
        })? {
            Response::Hello(c) => c,
            r => anyhow::bail!("unexpected answer to the hello: {r:?}"),
        };
        Ok(Remote {
            client,
            capacities,
            shared: Rc::default(),
            seqs: std::collections::HashMap::new(),
        })
    }

    /// What the loop reads while the controller holds this one.
    pub fn shared(&self) -> Rc<RefCell<Shared>> {
        self.shared.clone()
    }

    /// What the link carried so far.
    pub fn stats(&self) -> LinkStats {
        self.client.stats()
    }

    /// Sends `request`; a link failure or a fault is recorded and becomes
    /// [`Error::External`].
    fn call(&mut self, request: &Request<'_>, what: &str) -> Result<Response, Error> {
        if self.shared.borrow().failure.is_some() {
            return Err(Error::External);
        }
        match self.client.call(request) {
            Ok(r) => Ok(r),
            Err(e) => self.fail(format!("the firmware, {what}: {e:#}")),
        }
    }

    fn fail<T>(&mut self, why: String) -> Result<T, Error> {
        self.shared.borrow_mut().failure.get_or_insert(why);
        Err(Error::External)
    }

    fn unexpected<T>(&mut self, what: &str, r: &Response) -> Result<T, Error> {
        self.fail(format!("the firmware answered {what} with {r:?}"))
    }
}

impl External for Remote {
    fn arrived(&mut self, id: TaskId, task: &Task) -> Result<(), Error> {
        let what = format!("the arrival of task {}", id.0);
        match self.call(&Request::Arrival(task.clone()), &what)? {
            Response::Arrived(got) if got == id => Ok(()),
            r => self.unexpected(&what, &r),
        }
    }

    fn completed(&mut self, id: TaskId, at: Micros, _host_seq: u32) -> Result<(), Error> {
        let what = format!("the completion of task {} at {} us", id.0, at.0);
        let Some(seq) = self.seqs.remove(&id.0) else {
            return self.fail(format!("{what}: the firmware never committed it"));
        };
        match self.call(&Request::Completion { task: id, at, seq }, &what)? {
            Response::Completed(_) => Ok(()),
            r => self.unexpected(&what, &r),
        }
    }

    fn withdrawn(&mut self, id: TaskId, at: Micros, _seq: u32) -> Result<(), Error> {
        self.seqs.remove(&id.0);
        let what = format!("the withdrawal of task {} at {} us", id.0, at.0);
        match self.call(&Request::Withdraw { task: id, at }, &what)? {
            Response::Withdrawn => Ok(()),
            r => self.unexpected(&what, &r),
        }
    }

    fn node_service(
        &mut self,
        cluster: ClusterId,
        node: u32,
        in_service: bool,
        at: Micros,
    ) -> Result<(), Error> {
        let what = format!(
            "node {node} of cluster {} {} at {} us",
            cluster.0,
            if in_service {
                "back in service"
            } else {
                "out of service"
            },
            at.0
        );
        let request = Request::NodeService {
            cluster,
            node,
            in_service,
            at,
        };
        match self.call(&request, &what)? {
            Response::NodeService => Ok(()),
            r => self.unexpected(&what, &r),
        }
    }

    fn map(&mut self, now: Micros, propose: &mut Propose<'_>) -> Result<(), Error> {
        let what = format!("the mapping event at {} us", now.0);
        let mut all: Vec<Decided> = Vec::new();
        let mut request = Request::Map { now };
        loop {
            let page = match self.call(&request, &what)? {
                Response::Mapped(p) => p,
                r => return self.unexpected(&what, &r),
            };
            if page.from as usize != all.len() {
                return self.fail(format!(
                    "the firmware answered {what} with a page from decision {}; kairos asked \
                     from {}",
                    page.from,
                    all.len()
                ));
            }
            all.extend(page.decisions.iter().copied());
            if all.len() >= page.total as usize {
                break;
            }
            if page.decisions.is_empty() {
                return self.fail(format!(
                    "the firmware said {what} made {} decisions but sent an empty page after {}",
                    page.total,
                    all.len()
                ));
            }
            request = Request::Page {
                from: all.len() as u32,
            };
        }
        for d in &all {
            match d.fate {
                Fate::Same { seq } | Fate::Moved { seq, .. } => {
                    self.seqs.insert(d.decision.task.0, seq);
                }
                Fate::Gone => {
                    self.seqs.remove(&d.decision.task.0);
                }
                Fate::None => {}
            }
        }
        self.shared.borrow_mut().last = all.clone();
        let check = |r: Result<(), Error>, d: &Decision, this: &mut Remote| match r {
            Ok(()) => Ok(()),
            Err(e) => this.fail(format!(
                "the firmware's decision in {what} ({}) was refused by the host's controller: \
                 {e}",
                decision_name(d)
            )),
        };
        for d in &all {
            if d.decision.kind == DecisionKind::PlaceHold {
                continue;
            }
            let r = propose(&d.decision, &mut |_| {});
            check(r, &d.decision, self)?;
        }
        // Commitments the firmware re-placed later in the event, where they ended up.
        for d in &all {
            let Fate::Moved { start, end, .. } = d.fate else {
                continue;
            };
            let mut again = d.decision;
            again.start = start;
            again.end = end;
            again.kind = if start == now {
                DecisionKind::Start
            } else {
                DecisionKind::Reserve
            };
            let r = propose(&again, &mut |_| {});
            check(r, &again, self)?;
        }
        Ok(())
    }
}

/// Holds the host controller's commitments after a mapping event to the firmware's fates:
/// `assignment(task)` gives the host's (start, end, assignment number), if any. Returns
/// the first disagreement in words.
pub fn disagreement(
    decided: &[Decided],
    assignment: &dyn Fn(TaskId) -> Option<(Micros, Micros, u32)>,
) -> Option<String> {
    for d in decided {
        let want = match d.fate {
            Fate::None => continue,
            Fate::Same { seq } => Some((d.decision.start, d.decision.end, seq)),
            Fate::Moved { start, end, seq } => Some((start, end, seq)),
            Fate::Gone => None,
        };
        let have = assignment(d.decision.task);
        let same = match (want, have) {
            (None, None) => true,
            // The assignment numbers are each controller's own count of bookings (the host
            // does not book place-holders): the places must agree.
            (Some((s, e, _)), Some((hs, he, _))) => s == hs && e == he,
            _ => false,
        };
        if !same {
            return Some(format!(
                "task {}: the firmware has it {}, the host's controller {}",
                d.decision.task.0,
                shown(want),
                shown(have)
            ));
        }
    }
    None
}

fn shown(a: Option<(Micros, Micros, u32)>) -> String {
    match a {
        None => "without an assignment".to_string(),
        Some((s, e, _)) => format!("from {} us to {} us", s.0, e.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_core::platform::{ClusterId, PState};
    use kairos_core::units::NodeCount;

    fn decided(task: u32, start: u64, end: u64, fate: Fate) -> Decided {
        Decided {
            decision: Decision {
                task: TaskId(task),
                kind: DecisionKind::Start,
                cluster: ClusterId(0),
                nodes: NodeCount(1),
                pstate: PState(0),
                start: Micros(start),
                end: Micros(end),
            },
            fate,
        }
    }

    #[test]
    fn the_host_is_held_to_the_firmware_fates() {
        let list = [
            decided(0, 10, 20, Fate::Same { seq: 1 }),
            decided(
                1,
                10,
                30,
                Fate::Moved {
                    start: Micros(40),
                    end: Micros(60),
                    seq: 3,
                },
            ),
            decided(2, 10, 30, Fate::Gone),
            decided(3, 10, 30, Fate::None),
        ];
        // The host's numbers may differ; its places may not.
        let agree = |id: TaskId| match id.0 {
            0 => Some((Micros(10), Micros(20), 7)),
            1 => Some((Micros(40), Micros(60), 9)),
            _ => None,
        };
        assert_eq!(disagreement(&list, &agree), None);
        let late = |id: TaskId| match id.0 {
            0 => Some((Micros(10), Micros(20), 1)),
            1 => Some((Micros(10), Micros(30), 2)),
            _ => None,
        };
        let why = disagreement(&list, &late).expect("task 1 was not moved on the host");
        assert!(why.starts_with("task 1:"), "{why}");
        let kept = |id: TaskId| match id.0 {
            0 => Some((Micros(10), Micros(20), 1)),
            1 => Some((Micros(40), Micros(60), 3)),
            2 => Some((Micros(10), Micros(30), 4)),
            _ => None,
        };
        assert!(disagreement(&list, &kept).unwrap().starts_with("task 2:"));
    }
}

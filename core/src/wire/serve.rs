//! The controller's side of the wire: [`serve`] reads requests from a [`Port`] (a UART on
//! the firmware, a pipe in the host's tests), runs them through a [`Controller`] over the
//! caller's [`Buffers`], and writes the answers.
//!
//! A session starts with a hello, which builds the platform in the caller's header slot
//! (through [`PackedScenario::decode_into`](crate::packed::PackedScenario::decode_into), the
//! same checks as an embedded scenario) and a fresh controller over the storage; it ends with
//! a reset, the next hello, or a mapping event that made more decisions than the buffer
//! keeps. Between sessions every request but a hello is answered [`Fault::NoSession`].
//!
//! Retries: the answer to the last request served is kept, encoded, in [`Buffers::tx`]; a
//! request with the same sequence number is answered from it and not served again, so a
//! request whose answer was lost, or that arrived twice, never makes a second decision. A
//! damaged frame is answered [`Fault::Garbled`] (sequence number 0: its own is not to be
//! trusted) and the host sends it again.

use core::mem::MaybeUninit;

use super::frame::{FrameError, Reader};
use super::message::{
    self, Capacities, Decided, Envelope, Fate, Fault, Page, Request, Response, Status, MAX_PAYLOAD,
    PAGE, VERSION,
};
use crate::controller::Controller;
use crate::packed::{PackedHeader, PackedScenario};
use crate::plan::{DecisionKind, Storage, TaskState};
use crate::platform::ClusterId;
use crate::task::{Task, TaskId};
use crate::timeline::ClusterTimeline;
use crate::units::Micros;

/// A byte link to the host.
pub trait Port {
    /// The next byte, waiting for it; `None` once the link is closed (a UART never is).
    fn read(&mut self) -> Option<u8>;
    /// Sends `bytes`.
    fn write(&mut self, bytes: &[u8]);
}

/// What a request was, for a [`Watch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Kind {
    /// [`Request::Hello`].
    Hello,
    /// [`Request::Arrival`].
    Arrival,
    /// [`Request::Completion`].
    Completion,
    /// [`Request::Map`].
    Map,
    /// [`Request::Page`].
    Page,
    /// [`Request::Status`].
    Status,
    /// [`Request::Reset`].
    Reset,
    /// [`Request::Withdraw`].
    Withdraw,
    /// [`Request::NodeService`].
    NodeService,
    /// A damaged frame or an undecodable payload.
    Garbled,
    /// A retry, answered from the cache.
    Retry,
}

/// Hooks around each request (logging, instruction counts); all do nothing by default.
pub trait Watch {
    /// A request is about to be served.
    fn before(&mut self, _kind: Kind) {}
    /// It was served with `answer`.
    fn after(&mut self, _kind: Kind, _answer: &Response) {}
}

/// A watch that watches nothing.
pub struct NoWatch;
impl Watch for NoWatch {}

/// Every buffer [`serve`] uses, handed over once.
pub struct Buffers<'s> {
    /// Where a hello's platform, classes and configuration are built.
    pub header: &'s mut MaybeUninit<PackedHeader>,
    /// The controller's storage (rebuilt at every hello).
    pub storage: Storage<'s>,
    /// The last mapping event's decisions (its capacity is [`Capacities::decisions`]).
    pub decisions: &'s mut [Decided],
    /// Incoming frame bytes: at least `frame::max_encoded_len(MAX_PAYLOAD)`.
    pub rx: &'s mut [u8],
    /// The last answer's frame: at least `frame::max_encoded_len(MAX_PAYLOAD)`.
    pub tx: &'s mut [u8],
    /// An answer's payload on the way: at least [`MAX_PAYLOAD`] bytes.
    pub scratch: &'s mut [u8],
}

/// A request, decoded and owned.
// One request is alive at a time and the core cannot box: the size gap costs nothing.
#[allow(clippy::large_enum_variant)]
enum Cmd {
    /// A hello: its bytes stay in the reader ([`Reader::last`]).
    Hello,
    Arrival(Task),
    Completion {
        task: TaskId,
        at: Micros,
        seq: u32,
    },
    Map(Micros),
    Page(u32),
    Status,
    Reset,
    Withdraw {
        task: TaskId,
        at: Micros,
    },
    NodeService {
        cluster: ClusterId,
        node: u32,
        in_service: bool,
        at: Micros,
    },
}

/// The link with its reader and the cached last answer.
struct Link<'p, 's, P: Port, W: Watch> {
    port: &'p mut P,
    watch: &'p mut W,
    reader: Reader<&'s mut [u8]>,
    tx: &'s mut [u8],
    scratch: &'s mut [u8],
    /// The last request served and its answer's length in `tx`.
    last: Option<(u32, usize)>,
}

impl<P: Port, W: Watch> Link<'_, '_, P, W> {
    /// The next request to serve (retries and damaged frames are answered here); `None`
    /// once the link is closed.
    fn next(&mut self) -> Option<(u32, Cmd)> {
        loop {
            let byte = self.port.read()?;
            let payload = match self.reader.push(byte) {
                None => continue,
                Some(Err(e)) => {
                    self.fault(0, Fault::Garbled(e));
                    continue;
                }
                Some(Ok(p)) => p,
            };
            let env: Envelope<Request<'_>> = match message::decode(payload) {
                Ok(env) => env,
                Err(_) => {
                    let seq = message::peek_seq(payload).unwrap_or(0);
                    self.fault(seq, Fault::Undecodable);
                    continue;
                }
            };
            if let Some((seq, len)) = self.last {
                if seq == env.seq {
                    self.watch.before(Kind::Retry);
                    self.port.write(&self.tx[..len]);
                    continue;
                }
            }
            let cmd = match env.body {
                Request::Hello { .. } => Cmd::Hello,
                Request::Arrival(t) => Cmd::Arrival(t),
                Request::Completion { task, at, seq } => Cmd::Completion { task, at, seq },
                Request::Map { now } => Cmd::Map(now),
                Request::Page { from } => Cmd::Page(from),
                Request::Status => Cmd::Status,
                Request::Reset => Cmd::Reset,
                Request::Withdraw { task, at } => Cmd::Withdraw { task, at },
                Request::NodeService {
                    cluster,
                    node,
                    in_service,
                    at,
                } => Cmd::NodeService {
                    cluster,
                    node,
                    in_service,
                    at,
                },
            };
            return Some((env.seq, cmd));
        }
    }

    /// Answers request `seq` and keeps the answer for its retries.
    fn answer(&mut self, seq: u32, kind: Kind, body: Response) {
        let env = Envelope { seq, body };
        let len = match message::encode(&env, self.scratch, self.tx) {
            Ok(len) => len,
            // Every answer fits MAX_PAYLOAD (a page is bounded); should one not, the host
            // hears a fault rather than nothing.
            Err(_) => {
                let body = Response::Fault(Fault::Garbled(FrameError::BufferFull));
                message::encode(&Envelope { seq, body }, self.scratch, self.tx).unwrap_or(0)
            }
        };
        self.last = Some((seq, len));
        self.port.write(&self.tx[..len]);
        self.watch.after(kind, &env.body);
    }

    /// Answers with a fault that is not kept (a damaged or undecodable request: its retry
    /// must be served), in a buffer of its own so that the cached answer stays.
    fn fault(&mut self, seq: u32, fault: Fault) {
        self.watch.before(Kind::Garbled);
        let env = Envelope {
            seq,
            body: Response::Fault(fault),
        };
        let (mut payload, mut frame) = ([0u8; 32], [0u8; 48]);
        if let Ok(len) = message::encode(&env, &mut payload, &mut frame) {
            self.port.write(&frame[..len]);
        }
        self.watch.after(Kind::Garbled, &env.body);
    }
}

/// Serves requests from `port` until it closes (on a UART: for ever).
pub fn serve<P: Port, W: Watch>(port: &mut P, buffers: Buffers<'_>, watch: &mut W) {
    let Buffers {
        header,
        mut storage,
        decisions,
        rx,
        tx,
        scratch,
    } = buffers;
    let mut link = Link {
        port,
        watch,
        reader: Reader::new(rx),
        tx,
        scratch,
        last: None,
    };
    let mut hello = None;
    loop {
        if let Some(seq) = hello.take() {
            match session(
                &mut link,
                seq,
                &mut *header,
                reborrow(&mut storage),
                decisions,
            ) {
                End::Closed => return,
                End::Hello(seq) => hello = Some(seq),
                End::Over => {}
            }
            continue;
        }
        let Some((seq, cmd)) = link.next() else {
            return;
        };
        match cmd {
            Cmd::Hello => hello = Some(seq),
            Cmd::Reset => link.answer(seq, Kind::Reset, Response::Reset),
            other => link.answer(seq, kind_of(&other), Response::Fault(Fault::NoSession)),
        }
    }
}

/// What `cmd` is, for a watch.
fn kind_of(cmd: &Cmd) -> Kind {
    match cmd {
        Cmd::Hello => Kind::Hello,
        Cmd::Arrival(_) => Kind::Arrival,
        Cmd::Completion { .. } => Kind::Completion,
        Cmd::Map(_) => Kind::Map,
        Cmd::Page(_) => Kind::Page,
        Cmd::Status => Kind::Status,
        Cmd::Reset => Kind::Reset,
        Cmd::Withdraw { .. } => Kind::Withdraw,
        Cmd::NodeService { .. } => Kind::NodeService,
    }
}

/// How a session ended.
enum End {
    Closed,
    Hello(u32),
    Over,
}

/// The storage again, for a shorter borrow (one session).
fn reborrow<'x>(s: &'x mut Storage<'_>) -> Storage<'x> {
    Storage {
        tasks: &mut *s.tasks,
        bookings: &mut *s.bookings,
        members: &mut *s.members,
        scratch_a: &mut *s.scratch_a,
        scratch_b: &mut *s.scratch_b,
        work: &mut *s.work,
        open: &mut *s.open,
        memo: &mut *s.memo,
        voids: &mut *s.voids,
        booking_log: &mut *s.booking_log,
    }
}

/// One session, from the hello (request `seq`, its bytes in the reader) to its end.
fn session<P: Port, W: Watch>(
    link: &mut Link<'_, '_, P, W>,
    seq: u32,
    slot: &mut MaybeUninit<PackedHeader>,
    storage: Storage<'_>,
    decisions: &mut [Decided],
) -> End {
    link.watch.before(Kind::Hello);
    let version = match message::decode::<Request<'_>>(link.reader.last()) {
        Ok(Envelope {
            body: Request::Hello { version, .. },
            ..
        }) => version,
        _ => 0,
    };
    if version != VERSION {
        link.answer(seq, Kind::Hello, Response::Fault(Fault::Version(VERSION)));
        return End::Over;
    }
    let header = match message::decode::<Request<'_>>(link.reader.last()) {
        Ok(Envelope {
            body: Request::Hello { header, .. },
            ..
        }) => PackedScenario::decode_into(header, slot).map(|(h, _)| &*h),
        _ => Err(crate::error::InputError::Undecodable(0).into()),
    };
    let caps = Capacities {
        version: VERSION,
        tasks: storage.tasks.len() as u32,
        nodes: (storage.members.len() / ClusterTimeline::members_len(1)) as u32,
        decisions: decisions.len() as u32,
        payload: MAX_PAYLOAD as u32,
    };
    let built = header.and_then(|h| {
        storage.tasks.fill(crate::plan::TaskSlot::EMPTY);
        Controller::new(&h.platform, &h.classes, h.config, storage)
    });
    let mut ctl = match built {
        Ok(mut ctl) => {
            ctl.recycle_slots();
            ctl
        }
        Err(e) => {
            link.answer(seq, Kind::Hello, Response::Fault(Fault::Core(e)));
            return End::Over;
        }
    };
    link.answer(seq, Kind::Hello, Response::Hello(caps));
    let mut made = 0usize;
    loop {
        let Some((seq, cmd)) = link.next() else {
            return End::Closed;
        };
        let kind = kind_of(&cmd);
        if kind != Kind::Hello {
            link.watch.before(kind);
        }
        let answer = match cmd {
            Cmd::Hello => return End::Hello(seq),
            Cmd::Reset => {
                link.answer(seq, kind, Response::Reset);
                return End::Over;
            }
            Cmd::Arrival(task) => match ctl.on_arrival(task) {
                Ok(id) => Response::Arrived(id),
                Err(e) => Response::Fault(Fault::Core(e)),
            },
            Cmd::Completion {
                task,
                at,
                seq: assignment,
            } => complete(&mut ctl, task, at, assignment),
            Cmd::Withdraw { task, at } => match ctl.withdraw(task, at) {
                Ok(()) => Response::Withdrawn,
                Err(e) => Response::Fault(Fault::Core(e)),
            },
            Cmd::NodeService {
                cluster,
                node,
                in_service,
                at,
            } => {
                let changed = if in_service {
                    ctl.node_in(cluster, node, at)
                } else {
                    ctl.node_out(cluster, node, at)
                };
                match changed {
                    Ok(()) => Response::NodeService,
                    Err(e) => Response::Fault(Fault::Core(e)),
                }
            }
            Cmd::Map(now) => match map(&mut ctl, now, decisions) {
                Ok(n) => {
                    made = n;
                    page(&ctl, &decisions[..made], 0)
                }
                Err(fault @ Fault::Lost(_)) => {
                    link.answer(seq, kind, Response::Fault(fault));
                    return End::Over;
                }
                Err(fault) => Response::Fault(fault),
            },
            Cmd::Page(from) => page(&ctl, &decisions[..made], from),
            Cmd::Status => Response::Status(status(&ctl)),
        };
        link.answer(seq, kind, answer);
    }
}

/// A completion, if the task still holds assignment `seq` (running, or reserved with its
/// start come); otherwise [`Response::Stale`].
fn complete(ctl: &mut Controller<'_>, task: TaskId, at: Micros, seq: u32) -> Response {
    let live = ctl.task(task).is_some_and(|s| {
        matches!(s.state, TaskState::Running | TaskState::Reserved)
            && s.assignment.is_some_and(|a| a.seq == seq)
    });
    if !live {
        return Response::Stale;
    }
    match ctl.on_completion(task, at) {
        Ok(earned) => Response::Completed(earned),
        Err(e) => Response::Fault(Fault::Core(e)),
    }
}

/// Runs a mapping event into `decisions` (starting the next energy day first if `now` is
/// past this one's end); returns how many it made, with their fates.
fn map(ctl: &mut Controller<'_>, now: Micros, decisions: &mut [Decided]) -> Result<usize, Fault> {
    if now >= ctl.now() {
        ctl.roll_day(now);
    }
    let mut n = 0usize;
    let mut lost = false;
    ctl.on_mapping_event(now, &mut |d| match decisions.get_mut(n) {
        Some(slot) => {
            *slot = Decided {
                decision: *d,
                fate: Fate::None,
            };
            n += 1;
        }
        None => lost = true,
    })
    .map_err(Fault::Core)?;
    if lost {
        return Err(Fault::Lost(decisions.len() as u32));
    }
    for d in decisions[..n].iter_mut() {
        let dec = d.decision;
        if !matches!(dec.kind, DecisionKind::Start | DecisionKind::Reserve) {
            continue;
        }
        let a = ctl.task(dec.task).and_then(|s| s.assignment);
        d.fate = match a {
            None => Fate::Gone,
            Some(a) if a.start == dec.start && a.end == dec.end => Fate::Same { seq: a.seq },
            Some(a) => Fate::Moved {
                start: a.start,
                end: a.end,
                seq: a.seq,
            },
        };
    }
    Ok(n)
}

/// The page of `decisions` from `from`.
fn page(ctl: &Controller<'_>, decisions: &[Decided], from: u32) -> Response {
    let Some(rest) = decisions.get(from as usize..) else {
        return Response::Fault(Fault::NoSuchPage(from));
    };
    let mut list = heapless::Vec::new();
    for d in rest.iter().take(PAGE) {
        // Cannot fail: at most PAGE taken.
        let _ = list.push(*d);
    }
    Response::Mapped(Page {
        total: decisions.len() as u32,
        from,
        utility: ctl.utility(),
        consumed: ctl.ledger().consumed(),
        decisions: list,
    })
}

/// The ledgers and counts.
fn status(ctl: &Controller<'_>) -> Status {
    let ledger = ctl.ledger();
    Status {
        now: ctl.now(),
        utility: ctl.utility(),
        consumed: ledger.consumed(),
        committed: ledger.committed(),
        budget: ledger.budget(),
        counts: ctl.counts(),
        day_end: ctl.config().day_end,
        slots_used: ctl.slots_used() as u32,
    }
}

//! The host's end of the protocol: each request numbered, sent, and sent again until its
//! answer comes, with what it cost counted ([`LinkStats`]).
//!
//! A request is resent after a timeout (its frame or its answer was lost) or at once when
//! the answer is damaged or the controller says it got a damaged frame; the controller
//! answers a resent request from its cache, so a retry never makes a second decision. An
//! answer to an older request (a duplicate) is skipped.

use super::faults::{FaultCounts, Faults};
use super::link::{Link, Received};
use anyhow::{bail, Context};
use kairos_core::wire::frame::{self, Reader};
use kairos_core::wire::message::{self, Envelope, Fault, Request, Response, MAX_PAYLOAD};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What the link carried and cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// Requests made (retries not counted).
    pub requests: u64,
    /// Requests sent again.
    pub retries: u64,
    /// Frame bytes sent, retries included.
    pub bytes_sent: u64,
    /// Frame bytes received.
    pub bytes_received: u64,
    /// Answers that arrived damaged.
    pub damaged_answers: u64,
    /// Answers to older requests, skipped.
    pub stray_answers: u64,
    /// Faults injected, when the link injects them.
    pub injected: FaultCounts,
}

/// The host's end of a link to a controller.
pub struct Client {
    link: Link,
    reader: Reader<Vec<u8>>,
    seq: u32,
    /// How long to wait for an answer before sending again.
    pub timeout: Duration,
    /// Sends of one request before giving up.
    pub max_tries: u32,
    faults: Option<Faults>,
    stats: LinkStats,
    scratch: Vec<u8>,
    out: Vec<u8>,
}

impl Client {
    /// A client over `link`, numbering its requests from `first_seq` (a controller that
    /// outlives its host, a real board, is best met with a number it cannot have cached).
    pub fn new(link: Link, first_seq: u32) -> Client {
        Client {
            link,
            reader: Reader::new(vec![0u8; frame::max_encoded_len(MAX_PAYLOAD)]),
            seq: first_seq.wrapping_sub(1),
            // The largest request (a 16 KiB hello) takes 1.4 s at 115,200 baud.
            timeout: Duration::from_secs(5),
            max_tries: 10,
            faults: None,
            stats: LinkStats::default(),
            scratch: vec![0u8; MAX_PAYLOAD],
            out: vec![0u8; frame::max_encoded_len(MAX_PAYLOAD)],
        }
    }

    /// Injects faults into every frame, both ways.
    pub fn with_faults(mut self, faults: Faults) -> Client {
        self.faults = Some(faults);
        self
    }

    /// What the link carried so far.
    pub fn stats(&self) -> LinkStats {
        let mut s = self.stats;
        if let Some(f) = &self.faults {
            s.injected = f.counts;
        }
        s
    }

    /// Sends `request` until its answer comes; a [`Response::Fault`] is an error.
    pub fn call(&mut self, request: &Request<'_>) -> anyhow::Result<Response> {
        match self.call_raw(request)? {
            Response::Fault(f) => bail!("the controller refused {}: {f}", name(request)),
            r => Ok(r),
        }
    }

    /// Sends `request` until its answer comes, a fault included.
    pub fn call_raw(&mut self, request: &Request<'_>) -> anyhow::Result<Response> {
        self.seq = self.seq.wrapping_add(1).max(1);
        let seq = self.seq;
        let env = Envelope {
            seq,
            body: request.clone(),
        };
        let len = message::encode(&env, &mut self.scratch, &mut self.out)
            .map_err(|e| anyhow::anyhow!("encoding {}: {e}", name(request)))?;
        let frame = self.out[..len].to_vec();
        self.stats.requests += 1;
        for attempt in 0..self.max_tries {
            if attempt > 0 {
                self.stats.retries += 1;
            }
            let bytes = match &mut self.faults {
                Some(f) => f.frame(&frame),
                None => frame.clone(),
            };
            self.stats.bytes_sent += bytes.len() as u64;
            self.link
                .send(&bytes)
                .with_context(|| format!("sending {}", name(request)))?;
            if let Some(answer) = self.wait(seq)? {
                return Ok(answer);
            }
        }
        bail!(
            "no answer to {} after {} tries (is the controller running and the link right?)",
            name(request),
            self.max_tries
        )
    }

    /// The answer to request `seq`, or `None` when it should be sent again.
    fn wait(&mut self, seq: u32) -> anyhow::Result<Option<Response>> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let bytes = match self.link.recv(left) {
                Received::Nothing => return Ok(None),
                Received::Closed => bail!("the controller closed the link"),
                Received::Bytes(b) => b,
            };
            let bytes = match &mut self.faults {
                Some(f) => f.incoming(&bytes),
                None => bytes,
            };
            self.stats.bytes_received += bytes.len() as u64;
            let mut resend = false;
            let mut answer = None;
            for b in bytes {
                match self.reader.push(b) {
                    None => {}
                    Some(Err(_)) => {
                        self.stats.damaged_answers += 1;
                        resend = true;
                    }
                    Some(Ok(p)) => match message::decode::<Response>(p) {
                        Err(_) => {
                            self.stats.damaged_answers += 1;
                            resend = true;
                        }
                        Ok(env) if env.seq == seq => match env.body {
                            Response::Fault(Fault::Garbled(_) | Fault::Undecodable) => {
                                resend = true
                            }
                            body => answer = Some(body),
                        },
                        // The controller could not read some request: maybe this one.
                        Ok(Envelope {
                            body: Response::Fault(Fault::Garbled(_)),
                            ..
                        }) => resend = true,
                        Ok(_) => self.stats.stray_answers += 1,
                    },
                }
            }
            if answer.is_some() {
                return Ok(answer);
            }
            if resend {
                return Ok(None);
            }
        }
    }
}

/// A request's name, for errors.
fn name(r: &Request<'_>) -> &'static str {
    match r {
        Request::Hello { .. } => "the hello",
        Request::Arrival(_) => "an arrival",
        Request::Completion { .. } => "a completion",
        Request::Map { .. } => "a mapping event",
        Request::Page { .. } => "a page of decisions",
        Request::Status => "a status query",
        Request::Reset => "a reset",
        Request::Withdraw { .. } => "a withdrawal",
        Request::NodeService { .. } => "a node's change of service",
    }
}

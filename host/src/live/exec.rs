//! A controller in another process (`--controller exec:CMD`): kairos starts CMD and speaks
//! the wire protocol's messages to it as JSON, one object a line, over its stdin and stdout
//! (docs/protocol.md). Unlike the firmware, such a controller is a policy: it proposes each
//! mapping event's decisions and kairos keeps the clock, the cluster, the ledgers and the
//! digest, checking every decision before applying it ([`kairos_core::external`]). A refused
//! decision is told to the controller as a fault and ends the run with an error naming it;
//! a controller that exits, stays silent past the timeout or writes something that is not
//! the answer asked for ends the run with an error saying so.
//!
//! The bytes go through the same [`Link`] as the firmware's (a reader thread, a timeout on
//! every wait); only the framing differs (a line of JSON, not a COBS frame).

use super::link::{Link, Received};
use kairos_core::error::Error;
use kairos_core::external::{External, Propose, Refusal};
use kairos_core::packed::PackedHeader;
use kairos_core::task::{Task, TaskId};
use kairos_core::units::Micros;
use kairos_core::wire::message::{Envelope, Fault, Request, Response, VERSION};
use kairos_core::{Decision, DecisionKind};
use serde::Serialize;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The longest line kairos reads from a controller: far above any answer (a page holds at
/// most [`kairos_core::wire::message::PAGE`] decisions), so a line this long is garbage.
const MAX_LINE: usize = 1 << 20;

/// The default wait for each answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What the exchange with an exec controller carried.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExecStats {
    /// The command.
    pub command: String,
    /// Requests it answered (hello, arrivals, completions, mapping events, pages, reset).
    pub requests: u64,
    /// Decisions it made, all applied.
    pub decisions: u64,
    /// Bytes sent to it.
    pub bytes_sent: u64,
    /// Bytes received from it.
    pub bytes_received: u64,
    /// Wall time spent waiting for its answers, seconds.
    pub wait_s: f64,
}

/// The hello as JSON: the wire's [`Request::Hello`] with the packed header as its fields
/// rather than its postcard bytes.
#[derive(Serialize)]
enum JsonHello<'a> {
    Hello {
        version: u16,
        header: &'a PackedHeader,
    },
}

/// The exec protocol's page request: the wire's [`Request::Page`] with the nodes each
/// decision of the page before got (docs/protocol.md, "Nodes").
#[derive(Serialize)]
enum JsonPage {
    Page {
        from: u32,
        /// For each decision of the last page, in order, the nodes (indices within its
        /// cluster) its booking holds; empty for a drop.
        booked: Vec<Vec<u32>>,
    },
}

/// A running exec controller.
pub struct Exec {
    /// The process (none for a controller over channels: [`Exec::over`]).
    child: Option<Child>,
    link: Link,
    /// How long to wait for each answer.
    timeout: Duration,
    seq: u32,
    inbuf: Vec<u8>,
    stats: ExecStats,
    /// Why the exchange failed, once it has (the core is told [`Error::External`] or
    /// [`Error::Refused`]; this says the rest).
    failure: Option<String>,
    /// The mapping event under way and its decisions so far, for the errors.
    event: (Micros, u64),
}

impl Exec {
    /// Starts `command` (run by `sh -c`, so it may hold arguments and quotes), its stdin
    /// and stdout the protocol, its stderr kairos's.
    pub fn spawn(command: &str, timeout: Duration) -> anyhow::Result<Exec> {
        Exec::spawn_in(command, None, timeout)
    }

    /// [`spawn`](Self::spawn), in directory `dir` if given (an experiment file's: the
    /// paths in its command are relative to it, as its scenario's is).
    pub fn spawn_in(
        command: &str,
        dir: Option<&std::path::Path>,
        timeout: Duration,
    ) -> anyhow::Result<Exec> {
        use anyhow::Context;
        let mut cmd = Command::new("sh");
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        let mut child = cmd
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting the controller `{command}`"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            anyhow::bail!("the controller `{command}` has no stdin or stdout");
        };
        let mut exec = Exec::over(Link::over(stdout, stdin), command, timeout);
        exec.child = Some(child);
        Ok(exec)
    }

    /// An exec controller at the other end of `link` (a thread of this process, for
    /// measurements and tests), called `name` in errors.
    pub fn over(link: Link, name: &str, timeout: Duration) -> Exec {
        Exec {
            child: None,
            link,
            timeout,
            seq: 0,
            inbuf: Vec::new(),
            stats: ExecStats {
                command: name.to_string(),
                ..ExecStats::default()
            },
            failure: None,
            event: (Micros::ZERO, 0),
        }
    }

    /// What the exchange carried so far.
    pub fn stats(&self) -> &ExecStats {
        &self.stats
    }

    /// Why the exchange failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Starts the session: a hello with the platform, classes, configuration and schedule.
    pub fn hello(&mut self, header: &PackedHeader) -> Result<(), Error> {
        let body = JsonHello::Hello {
            version: VERSION,
            header,
        };
        match self.call(&body, "the hello")? {
            Response::Hello(c) if c.version == VERSION => Ok(()),
            Response::Hello(c) => self.fail(format!(
                "the controller speaks protocol version {}, kairos {VERSION}",
                c.version
            )),
            r => self.unexpected("the hello", &r),
        }
    }

    /// Ends the session (a reset, answered) and waits for the controller to exit once its
    /// stdin closes; kills it if it does not within the timeout.
    pub fn finish(mut self) -> anyhow::Result<ExecStats> {
        match self.call(&Request::Reset, "the reset") {
            Ok(Response::Reset) => {}
            Ok(r) => {
                let _ = self.unexpected::<()>("the reset", &r);
            }
            Err(_) => {}
        }
        if let Some(f) = self.failure.take() {
            anyhow::bail!("{f}");
        }
        self.link.close();
        let deadline = Instant::now() + self.timeout;
        while let Some(child) = self.child.as_mut() {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
            }
        }
        Ok(self.stats.clone())
    }

    /// Sends `body` as request `seq + 1` and waits for its answer.
    fn call(&mut self, body: &impl Serialize, what: &str) -> Result<Response, Error> {
        if self.failure.is_some() {
            return Err(Error::External);
        }
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let mut line = match serde_json::to_vec(&Envelope { seq, body }) {
            Ok(l) => l,
            Err(e) => return self.fail(format!("encoding {what}: {e}")),
        };
        line.push(b'\n');
        self.stats.bytes_sent += line.len() as u64;
        let t0 = Instant::now();
        if let Err(e) = self.link.send(&line) {
            let who = self
                .gone(what)
                .unwrap_or_else(|| format!("the controller `{}`", self.stats.command));
            return self.fail(format!("{who}: sending {what}: {e}"));
        }
        let answer = self.read_line(what);
        self.stats.wait_s += t0.elapsed().as_secs_f64();
        let answer = answer?;
        self.stats.bytes_received += answer.len() as u64 + 1;
        let env: Envelope<Response> = match serde_json::from_slice(&answer) {
            Ok(e) => e,
            Err(e) => {
                return self.fail(format!(
                    "the controller `{}` answered {what} (request {seq}) with a line that is \
                     not a response: {e}: {} (its stdout is the protocol: write logs to \
                     stderr)",
                    self.stats.command,
                    shown(&answer)
                ))
            }
        };
        if env.seq != seq {
            return self.fail(format!(
                "the controller `{}` answered request {} while kairos asked request {seq} \
                 ({what})",
                self.stats.command, env.seq
            ));
        }
        self.stats.requests += 1;
        if let Response::Fault(f) = env.body {
            return self.fail(format!(
                "the controller `{}` refused {what}: {f}",
                self.stats.command
            ));
        }
        Ok(env.body)
    }

    /// The next line from the controller, waiting at most the timeout.
    fn read_line(&mut self, what: &str) -> Result<Vec<u8>, Error> {
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(n) = self.inbuf.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.inbuf.drain(..=n).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(line);
            }
            if self.inbuf.len() > MAX_LINE {
                return self.fail(format!(
                    "the controller `{}` wrote more than {MAX_LINE} bytes without a line end \
                     in answer to {what}: {}",
                    self.stats.command,
                    shown(&self.inbuf)
                ));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.link.recv(left) {
                Received::Bytes(b) => self.inbuf.extend_from_slice(&b),
                Received::Nothing => {
                    return self.fail(format!(
                        "the controller `{}` did not answer {what} (request {}) within {} s \
                         (it answered {} requests before)",
                        self.stats.command,
                        self.seq,
                        self.timeout.as_secs_f64(),
                        self.stats.requests
                    ))
                }
                Received::Closed => {
                    let msg = self.gone(what).unwrap_or_else(|| {
                        format!("the controller `{}` closed its stdout", self.stats.command)
                    });
                    return self.fail(msg);
                }
            }
        }
    }

    /// If the controller has exited (or exits within a moment: its stdout just closed),
    /// how, and what kairos was waiting for.
    fn gone(&mut self, what: &str) -> Option<String> {
        let deadline = Instant::now() + Duration::from_millis(500);
        let child = self.child.as_mut()?;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    return Some(format!(
                        "the controller `{}` exited ({status}) after answering {} requests, \
                         while kairos waited for its answer to {what}",
                        self.stats.command, self.stats.requests
                    ))
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => return None,
            }
        }
    }

    /// Records `why` as the failure.
    fn fail<T>(&mut self, why: String) -> Result<T, Error> {
        self.failure.get_or_insert(why);
        Err(Error::External)
    }

    fn unexpected<T>(&mut self, what: &str, r: &Response) -> Result<T, Error> {
        self.fail(format!(
            "the controller `{}` answered {what} with {}",
            self.stats.command,
            serde_json::to_string(r).unwrap_or_else(|_| format!("{r:?}"))
        ))
    }

    /// Tells the controller its decision was refused (no answer is awaited: the run ends).
    fn tell_refused(&mut self, r: Refusal) {
        let env = Envelope {
            seq: self.seq,
            body: Response::Fault(Fault::Core(Error::Refused(r))),
        };
        if let Ok(mut line) = serde_json::to_vec(&env) {
            line.push(b'\n');
            let _ = self.link.send(&line);
        }
    }
}

impl External for Exec {
    fn arrived(&mut self, id: TaskId, task: &Task) -> Result<(), Error> {
        // What a scheduler knows of a job: not its real run time.
        let mut task = task.clone();
        task.actual = None;
        let what = format!("the arrival of task {}", id.0);
        match self.call(&Request::Arrival(task), &what)? {
            Response::Arrived(got) if got == id => Ok(()),
            r => self.unexpected(&what, &r),
        }
    }

    fn completed(&mut self, id: TaskId, at: Micros, seq: u32) -> Result<(), Error> {
        let what = format!("the completion of task {}", id.0);
        match self.call(&Request::Completion { task: id, at, seq }, &what)? {
            Response::Completed(_) => Ok(()),
            r => self.unexpected(&what, &r),
        }
    }

    fn map(&mut self, now: Micros, propose: &mut Propose<'_>) -> Result<(), Error> {
        self.event = (now, 0);
        let what = format!("the mapping event at {} us", now.0);
        let mut page_request = None;
        let mut got = 0u32;
        loop {
            let answer = match page_request.take() {
                None => self.call(&Request::Map { now }, &what)?,
                Some(p) => self.call(&p, &what)?,
            };
            let page = match answer {
                Response::Mapped(p) => p,
                r => return self.unexpected(&what, &r),
            };
            if page.from != got {
                return self.fail(format!(
                    "the controller `{}` answered {what} with a page from decision {}; kairos \
                     asked from {got}",
                    self.stats.command, page.from
                ));
            }
            let mut booked = Vec::with_capacity(page.decisions.len());
            for d in &page.decisions {
                let mut nodes = Vec::new();
                match propose(&d.decision, &mut |n| nodes.push(n)) {
                    Ok(()) => {}
                    Err(Error::Refused(r)) => {
                        self.tell_refused(r);
                        let name = decision_name(&d.decision);
                        let _ = self.fail::<()>(format!(
                            "the controller `{}` made decision {got} of {what} ({name}), \
                             refused: {r}",
                            self.stats.command
                        ));
                        return Err(Error::Refused(r));
                    }
                    Err(e) => return Err(e),
                }
                booked.push(nodes);
                got += 1;
                self.stats.decisions += 1;
            }
            if got >= page.total {
                return Ok(());
            }
            if page.decisions.is_empty() {
                return self.fail(format!(
                    "the controller `{}` said {what} made {} decisions but sent an empty page \
                     after {got}",
                    self.stats.command, page.total
                ));
            }
            page_request = Some(JsonPage::Page { from: got, booked });
        }
    }
}

impl Drop for Exec {
    /// Closes the controller's stdin and gives it a moment to read what it was last told
    /// (a refusal) and exit; then ends it.
    fn drop(&mut self) {
        self.link.close();
        let Some(child) = self.child.as_mut() else {
            return;
        };
        let deadline = Instant::now() + Duration::from_secs(1);
        while let Ok(None) = child.try_wait() {
            if Instant::now() >= deadline {
                let _ = child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.wait();
    }
}

/// Runs `tasks` (in arrival order) on `platform` under `config` with every decision from
/// `exec` (started, not yet greeted): the in-process engine and controller, the controller
/// checking each decision ([`kairos_core::Controller::set_external`]). On an error,
/// [`Exec::failure`] says what the controller did.
pub fn simulate(
    exec: &mut Exec,
    platform: &kairos_core::platform::Platform,
    classes: &kairos_core::utility::UtilityClasses,
    config: kairos_core::Config,
    schedule: kairos_core::engine::Schedule,
    tasks: &[Task],
    observer: &mut dyn kairos_core::engine::Observer,
) -> Result<kairos_core::engine::Report, Error> {
    exec.hello(&PackedHeader {
        platform: platform.clone(),
        classes: classes.clone(),
        config,
        schedule,
        tasks: tasks.len() as u32,
    })?;
    let mut storage = crate::storage::HostStorage::new(platform, tasks.len());
    let parts = storage.split();
    let mut ctl = kairos_core::Controller::new(platform, classes, config, parts.controller)?;
    ctl.set_external(exec);
    kairos_core::engine::Engine::new(schedule, parts.pending)
        .with_pending_ends(parts.ends)
        .run(&mut ctl, tasks.iter().cloned().map(Ok), observer)
}

/// Simulates the generated `trial` of `scenario` under `opts` with every decision from the
/// exec controller `command` (started in `dir` if given, waiting `timeout` for each
/// answer): `kairos run --controller exec:` and an experiment's `controller` runs. The
/// summary is the in-process run's, its heuristic `exec`; the exchange's counts come with
/// it. An error says what the controller did.
pub fn run_generated(
    scenario: &crate::scenario::Scenario,
    opts: &crate::run::RunOptions,
    trial: &crate::generate::Trial,
    generate_s: f64,
    command: &str,
    dir: Option<&std::path::Path>,
    timeout: Duration,
) -> anyhow::Result<(crate::run::RunSummary, ExecStats)> {
    let mut exec = Exec::spawn_in(command, dir, timeout)?;
    let run = crate::run::run_generated_with(
        scenario,
        opts,
        trial,
        generate_s,
        &mut |platform, classes, config, schedule, tasks, watch| {
            simulate(&mut exec, platform, classes, config, schedule, tasks, watch)
                .map_err(anyhow::Error::new)
        },
    );
    let mut summary = match (run, exec.failure()) {
        (Err(_), Some(f)) => anyhow::bail!(
            "simulating trial {} of {} under --controller: {f}",
            opts.trial,
            scenario.name
        ),
        (r, _) => r?,
    };
    summary.heuristic = "exec".to_string();
    let stats = exec.finish()?;
    Ok((summary, stats))
}

/// A decision in words, for errors.
pub fn decision_name(d: &Decision) -> String {
    match d.kind {
        DecisionKind::Drop => format!("drop task {}", d.task.0),
        k => format!(
            "{} task {} on cluster {}, {} nodes, P-state {}, from {} us to {} us",
            match k {
                DecisionKind::Start => "start",
                DecisionKind::Reserve => "reserve",
                _ => "place-hold",
            },
            d.task.0,
            d.cluster.0,
            d.nodes.0,
            d.pstate.0,
            d.start.0,
            d.end.0
        ),
    }
}

/// The start of a line, for errors.
fn shown(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
    if line.len() > 200 {
        format!("{s:?}...")
    } else {
        format!("{s:?}")
    }
}

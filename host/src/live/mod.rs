//! Driving a live controller over a serial link: the host keeps the clock, the cluster and
//! the digest, the controller (the firmware under QEMU, a real board, or a thread of this
//! process) makes every decision, through the core's wire protocol
//! ([`kairos_core::wire`]).
//!
//! - [`link`]: the bytes both ways, with timeouts; [`faults`]: a link that damages, drops
//!   and duplicates frames on purpose (seeded).
//! - [`client`]: requests numbered, sent again until answered, the cost counted.
//! - [`drive`](mod@drive): the engine's event loop with the decisions from the link.
//! - [`remote`]: the firmware deciding for a loop that keeps its own controller
//!   (`kairos slurm-control --controller qemu`), each decision checked.
//! - [`exec`]: a controller in another process speaking JSON lines, whose decisions the
//!   host's own controller checks and applies ([`kairos_core::external`]).
//! - Here: where the controller is ([`ControllerSpec`]) and how to reach it ([`connect`]).

pub mod client;
pub mod drive;
pub mod exec;
pub mod faults;
pub mod link;
pub mod remote;

use anyhow::{bail, Context};
use kairos_core::engine::Schedule;
use kairos_core::packed::PackedHeader;
use kairos_core::task::{Task, TaskId};
use kairos_core::units::Micros;
use kairos_core::wire::frame::max_encoded_len;
use kairos_core::wire::message::{Decided, Fate, MAX_PAYLOAD};
use kairos_core::wire::serve::{serve, Buffers, NoWatch, Port};
use kairos_core::Decision;
use link::Link;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

pub use client::{Client, LinkStats};
pub use drive::{drive, Driven, EventLine};
pub use faults::{FaultCounts, FaultRates, Faults};

/// Where the controller runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControllerSpec {
    /// The core's serve loop in a thread of this process (tests, measurements).
    Inline,
    /// The firmware image (its live mode) under QEMU, its UART on a socket.
    Qemu,
    /// A real board's UART at this device path (`serial:/dev/ttyACM0`).
    Serial(PathBuf),
    /// A policy in another process, this command, over JSON lines on its stdin and stdout
    /// (`exec:python3 clients/python/examples/fcfs.py`).
    Exec(String),
}

impl std::str::FromStr for ControllerSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<ControllerSpec, String> {
        match s {
            "inline" => Ok(ControllerSpec::Inline),
            "qemu" => Ok(ControllerSpec::Qemu),
            _ => match (s.strip_prefix("serial:"), s.strip_prefix("exec:")) {
                (Some(p), _) if !p.is_empty() => Ok(ControllerSpec::Serial(PathBuf::from(p))),
                (_, Some(c)) if !c.trim().is_empty() => Ok(ControllerSpec::Exec(c.to_string())),
                _ => Err(format!(
                    "controller {s:?}: expected inline, qemu, serial:/dev/PATH or exec:COMMAND"
                )),
            },
        }
    }
}

/// Task slots of an inline controller: as many as a firmware image.
pub const INLINE_TASKS: usize = 512;

/// The live firmware image, built by `firmware/live.sh` (the `live` feature, in its own
/// target directory so that it never races the replay images): under `$CARGO_TARGET_DIR/live`
/// when that is set, as live.sh builds it, else under firmware/target/live.
pub fn default_image(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("firmware/target"))
        .join("live/thumbv7em-none-eabihf/release/kairos-firmware")
}

/// A link to the controller `spec` says, for a run of `header`'s platform and `tasks`
/// tasks (an inline controller is sized for them, at least [`INLINE_TASKS`] slots);
/// `image` is the firmware ELF for QEMU.
pub fn connect(
    spec: &ControllerSpec,
    header: &PackedHeader,
    tasks: usize,
    image: &Path,
) -> anyhow::Result<Link> {
    match spec {
        ControllerSpec::Inline => Ok(inline(header, tasks.max(INLINE_TASKS))),
        ControllerSpec::Qemu => qemu(image),
        ControllerSpec::Serial(path) => serial(path),
        ControllerSpec::Exec(_) => bail!(
            "an exec controller proposes decisions for the host's controller to check: it is \
             run by run_trial_exec, not over the serial protocol"
        ),
    }
}

/// A first sequence number a board that outlived its last host is unlikely to have cached.
pub fn fresh_seq(spec: &ControllerSpec) -> u32 {
    match spec {
        ControllerSpec::Serial(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.subsec_nanos() | 1),
        _ => 1,
    }
}

/// Runs `tasks` through the controller `spec` says; the link's cost comes back too.
pub fn simulate(
    spec: &ControllerSpec,
    image: &Path,
    header: &PackedHeader,
    schedule: Schedule,
    tasks: &[Task],
) -> anyhow::Result<(Driven, LinkStats)> {
    let link = connect(spec, header, tasks.len(), image)?;
    let mut client = Client::new(link, fresh_seq(spec));
    let driven = drive(&mut client, header, schedule, tasks)?;
    Ok((driven, client.stats()))
}

/// A controller in a thread of this process: the core's serve loop over host storage of
/// `tasks` slots, sized for `header`'s platform.
pub fn inline(header: &PackedHeader, tasks: usize) -> Link {
    let (to_ctl, from_host) = mpsc::channel::<Vec<u8>>();
    let (to_host, from_ctl) = mpsc::channel::<Vec<u8>>();
    let platform = header.platform.clone();
    // Decoding a hello's platform builds it on the stack, level by level.
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || serve_inline(&platform, tasks, from_host, to_host))
        .expect("spawning the inline controller");
    Link::channels(to_ctl, from_ctl)
}

fn serve_inline(
    platform: &kairos_core::platform::Platform,
    tasks: usize,
    input: Receiver<Vec<u8>>,
    output: Sender<Vec<u8>>,
) {
    let mut storage = crate::storage::HostStorage::new(platform, tasks);
    let parts = storage.split();
    let mut header = Box::new(MaybeUninit::<PackedHeader>::uninit());
    let blank = Decided {
        decision: Decision::drop(TaskId(0), Micros::ZERO),
        fate: Fate::None,
    };
    let mut decisions = vec![blank; 4 * tasks + 64];
    let frame = max_encoded_len(MAX_PAYLOAD);
    let (mut rx, mut tx, mut scratch) = (vec![0; frame], vec![0; frame], vec![0; MAX_PAYLOAD]);
    let mut port = ChannelPort {
        input,
        output,
        buf: Vec::new(),
        at: 0,
    };
    serve(
        &mut port,
        Buffers {
            header: &mut header,
            storage: parts.controller,
            decisions: &mut decisions,
            rx: &mut rx,
            tx: &mut tx,
            scratch: &mut scratch,
        },
        &mut NoWatch,
    );
}

/// A [`Port`] over two channels.
struct ChannelPort {
    input: Receiver<Vec<u8>>,
    output: Sender<Vec<u8>>,
    buf: Vec<u8>,
    at: usize,
}

impl Port for ChannelPort {
    fn read(&mut self) -> Option<u8> {
        while self.at >= self.buf.len() {
            self.buf = self.input.recv().ok()?;
            self.at = 0;
        }
        self.at += 1;
        Some(self.buf[self.at - 1])
    }
    fn write(&mut self, bytes: &[u8]) {
        let _ = self.output.send(bytes.to_vec());
    }
}

/// The firmware image `image` under QEMU (mps2-an386), its UART0 on a Unix socket this
/// process connects to; its defmt log (semihosting) goes to `<image>.live.log` (decode it
/// with `firmware/run.sh --decode <image>.live.log <image>`). With `KAIROS_QEMU_ICOUNT=1`
/// QEMU runs with `-icount shift=0`, so that the log's SysTick ticks count instructions.
pub fn qemu(image: &Path) -> anyhow::Result<Link> {
    if !image.is_file() {
        bail!(
            "{}: no live firmware image; build it with firmware/live.sh (needs \
             scripts/setup-firmware.sh)",
            image.display()
        );
    }
    let dir = std::env::temp_dir().join(format!(
        "kairos-live-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let sock = dir.join("uart0.sock");
    let log = std::fs::File::create(image.with_extension("live.log"))
        .with_context(|| format!("creating the log beside {}", image.display()))?;
    let mut cmd = Command::new("qemu-system-arm");
    if std::env::var_os("KAIROS_QEMU_ICOUNT").is_some_and(|v| v == "1") {
        cmd.args(["-icount", "shift=0"]);
    }
    // QEMU ends with this process, however it ends (`kairos slurm-control` killed with
    // SIGKILL starts a fresh QEMU on restart; the old one must not linger). Linux ties it
    // to the thread that spawns it: every caller connects from the thread that drives it.
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl(PR_SET_PDEATHSIG) is async-signal-safe and touches no memory of
        // the parent; it is what runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let child = cmd
        .args(["-cpu", "cortex-m4", "-machine", "mps2-an386", "-nographic"])
        .args(["-semihosting-config", "enable=on,target=native"])
        .args(["-monitor", "none"])
        .arg("-chardev")
        .arg(format!(
            "socket,id=uart0,path={},server=on,wait=on",
            sock.display()
        ))
        .args(["-serial", "chardev:uart0"])
        .arg("-kernel")
        .arg(image)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting qemu-system-arm (run scripts/setup-firmware.sh)")?;
    let deadline = Instant::now() + Duration::from_secs(20);
    let stream = loop {
        match std::os::unix::net::UnixStream::connect(&sock) {
            Ok(s) => break s,
            Err(e) if Instant::now() > deadline => {
                return Err(e).context(format!("connecting to QEMU's UART at {}", sock.display()))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    // Connected: the socket's name is no longer needed (the connection outlives it).
    let _ = std::fs::remove_dir_all(&dir);
    let reader = stream.try_clone().context("cloning the UART socket")?;
    Ok(Link::over(reader, stream).with_child(child))
}

static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A real board's UART at `path`, set to raw mode at 115200 baud with `stty`.
pub fn serial(path: &Path) -> anyhow::Result<Link> {
    let status = Command::new("stty")
        .arg("-F")
        .arg(path)
        .args(["115200", "raw", "-echo"])
        .status()
        .context("running stty")?;
    if !status.success() {
        bail!("{}: stty could not set 115200 baud, raw", path.display());
    }
    let out = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let input = out.try_clone().context("cloning the serial device")?;
    Ok(Link::over(input, out))
}

/// `kairos run --controller`: generates trial `opts.trial` of `scenario` and simulates it with
/// every decision from the controller `spec` says (an exec controller's each checked by the
/// in-process controller, waiting `timeout` for each answer); the summary is the in-process run's
/// (the mapping events' wall times are not measured: they are the link's), and the link's
/// cost comes with it.
pub fn run_trial(
    scenario: &crate::scenario::Scenario,
    opts: &crate::run::RunOptions,
    spec: &ControllerSpec,
    image: &Path,
    timeout: Duration,
) -> anyhow::Result<(crate::run::RunSummary, LinkStats)> {
    let t0 = Instant::now();
    let trial = crate::generate::generate(scenario, opts.trial)
        .with_context(|| format!("generating trial {} of {}", opts.trial, scenario.name))?;
    let generate_s = t0.elapsed().as_secs_f64();
    let mut stats = LinkStats::default();
    if let ControllerSpec::Exec(command) = spec {
        let (summary, served) =
            exec::run_generated(scenario, opts, &trial, generate_s, command, None, timeout)?;
        stats.requests = served.requests;
        stats.bytes_sent = served.bytes_sent;
        stats.bytes_received = served.bytes_received;
        return Ok((summary, stats));
    }
    let summary = crate::run::run_generated_with(
        scenario,
        opts,
        &trial,
        generate_s,
        &mut |platform, classes, config, schedule, tasks, watch| {
            let header = PackedHeader {
                platform: platform.clone(),
                classes: classes.clone(),
                config,
                schedule,
                tasks: 0,
            };
            let (driven, s) = simulate(spec, image, &header, schedule, tasks)?;
            stats = s;
            for e in &driven.events {
                watch.sample(e.at, e.utility.as_f64(), e.consumed.as_joules_f64());
            }
            for &us in &driven.event_us {
                watch.record_event_us(us);
            }
            crate::run::watch_driven(watch, tasks, &driven.decisions, &driven.completions);
            Ok(driven.report)
        },
    )?;
    Ok((summary, stats))
}

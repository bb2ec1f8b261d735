//! Runs a kairos firmware ELF under QEMU and decodes its defmt log.
//!
//! The firmware logs with `defmt-semihosting`: QEMU writes the raw defmt frames to its stdout.
//! [`run_elf`] starts QEMU (`mps2-an386`, Cortex-M4F, semihosting on), decodes that stream
//! with the ELF's own defmt table as it arrives, and returns the decoded [`Line`]s with QEMU's
//! exit status. The firmware exits through semihosting, so QEMU's status is the firmware's:
//! 0 for success, 1 for failure. A run that outlives [`Options::timeout`] is killed.
//!
//! [`elf_size`] measures flash and RAM use from the ELF's section headers, like `size`.

use std::{
    fmt,
    io::Read,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, Context, Result};
use defmt_decoder::{DecodeError, Locations, Table};

/// How to run QEMU.
#[derive(Clone, Debug)]
pub struct Options {
    /// The QEMU binary (`qemu-system-arm` from PATH by default).
    pub qemu: PathBuf,
    /// Pass `-icount shift=0`: one virtual nanosecond per instruction, so that virtual time
    /// counts instructions and runs are deterministic in time as well as in output.
    pub icount: bool,
    /// Kill QEMU after this long (wall clock).
    pub timeout: Duration,
    /// Attach the source location (file:line) to each decoded line, when the ELF has it.
    pub locations: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            qemu: PathBuf::from("qemu-system-arm"),
            icount: false,
            timeout: Duration::from_secs(120),
            locations: false,
        }
    }
}

/// One decoded log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// `TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`, or empty for `println!` frames.
    pub level: String,
    /// The formatted message, e.g. `digest 0123456789abcdef`.
    pub message: String,
    /// `file:line`, when asked for and known.
    pub location: Option<String>,
}

impl fmt::Display for Line {
    /// `LEVEL message`, or just `message` for frames without a level; then `  (file:line)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.level.is_empty() {
            write!(f, "{} ", self.level)?;
        }
        f.write_str(&self.message)?;
        if let Some(loc) = &self.location {
            write!(f, "  ({loc})")?;
        }
        Ok(())
    }
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The decoded log, in order.
    pub lines: Vec<Line>,
    /// QEMU's exit code; `None` if it was killed (timeout) or ended by a signal.
    pub code: Option<i32>,
    /// QEMU outlived [`Options::timeout`] and was killed.
    pub timed_out: bool,
    /// What QEMU wrote to stderr (its own warnings and errors).
    pub qemu_stderr: String,
    /// Bytes of the stream that could not be decoded (0 in a healthy run).
    pub malformed_bytes: usize,
}

impl Outcome {
    /// The exit code a wrapper should return: QEMU's, 124 on timeout (as `timeout(1)`), 125 if
    /// QEMU died from a signal.
    pub fn exit_code(&self) -> i32 {
        match (self.timed_out, self.code) {
            (true, _) => 124,
            (false, Some(c)) => c,
            (false, None) => 125,
        }
    }

    /// The messages of the lines with this level (`"INFO"`, ...).
    pub fn messages<'a>(&'a self, level: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.lines
            .iter()
            .filter(move |l| l.level == level)
            .map(|l| l.message.as_str())
    }
}

/// The QEMU command line for `elf`.
pub fn qemu_command(elf: &Path, opts: &Options) -> Command {
    let mut cmd = Command::new(&opts.qemu);
    cmd.args(["-cpu", "cortex-m4", "-machine", "mps2-an386", "-nographic"])
        .args(["-semihosting-config", "enable=on,target=native"]);
    if opts.icount {
        cmd.args(["-icount", "shift=0"]);
    }
    cmd.arg("-kernel").arg(elf);
    cmd
}

/// Runs `elf` under QEMU, calling `on_line` for each decoded line as it arrives, and returns
/// all lines with the exit status. Errors are for a run that could not be made or decoded at
/// all (no such ELF, no defmt table, QEMU missing); a firmware failure is an [`Outcome`] with a
/// non-zero code.
pub fn run_elf(elf: &Path, opts: &Options, mut on_line: impl FnMut(&Line)) -> Result<Outcome> {
    let elf_bytes = std::fs::read(elf).with_context(|| format!("reading {}", elf.display()))?;
    let table = defmt_table(&elf_bytes)?;
    let locations = if opts.locations {
        table.get_locations(&elf_bytes).ok()
    } else {
        None
    };

    let mut child = qemu_command(elf, opts)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| {
            format!(
                "starting {} (run scripts/setup-firmware.sh to install it)",
                opts.qemu.display()
            )
        })?;

    // Read stdout on a thread so that the timeout can be enforced here.
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let reader = thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let err_reader = thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });

    let mut decoder = table.new_stream_decoder();
    let mut lines = Vec::new();
    let mut malformed_bytes = 0;
    let deadline = Instant::now() + opts.timeout;
    let mut timed_out = false;
    loop {
        let now = Instant::now();
        if now >= deadline {
            timed_out = true;
            let _ = child.kill();
            break;
        }
        match rx.recv_timeout(deadline - now) {
            Ok(chunk) => {
                decoder.received(&chunk);
                drain(
                    &mut *decoder,
                    locations.as_ref(),
                    &mut lines,
                    &mut malformed_bytes,
                    &mut on_line,
                );
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break, // stdout closed: QEMU is ending
        }
    }
    let status = child.wait().context("waiting for QEMU")?;
    let _ = reader.join();
    let qemu_stderr = err_reader.join().unwrap_or_default();
    Ok(Outcome {
        lines,
        code: status.code(),
        timed_out,
        qemu_stderr,
        malformed_bytes,
    })
}

/// Decodes every complete frame buffered in `decoder`.
fn drain(
    decoder: &mut dyn defmt_decoder::StreamDecoder,
    locations: Option<&Locations>,
    lines: &mut Vec<Line>,
    malformed_bytes: &mut usize,
    on_line: &mut impl FnMut(&Line),
) {
    loop {
        match decoder.decode() {
            Ok(frame) => {
                let line = Line {
                    level: frame
                        .level()
                        .map(|l| format!("{l:?}").to_uppercase())
                        .unwrap_or_default(),
                    message: frame.display_message().to_string(),
                    location: locations
                        .and_then(|locs| locs.get(&frame.index()))
                        .map(|loc| format!("{}:{}", loc.file.display(), loc.line)),
                };
                on_line(&line);
                lines.push(line);
            }
            Err(DecodeError::UnexpectedEof) => break,
            // The rzcobs decoder skips to the next frame boundary; count and go on.
            Err(DecodeError::Malformed) => *malformed_bytes += 1,
        }
    }
}

/// Decodes a whole captured stream (the bytes QEMU wrote to stdout) with `elf`'s defmt table.
pub fn decode_stream(elf_bytes: &[u8], stream: &[u8]) -> Result<Vec<Line>> {
    let table = defmt_table(elf_bytes)?;
    let mut decoder = table.new_stream_decoder();
    decoder.received(stream);
    let (mut lines, mut malformed) = (Vec::new(), 0);
    drain(&mut *decoder, None, &mut lines, &mut malformed, &mut |_| {});
    if malformed > 0 {
        bail!("{malformed} malformed frame(s) in the stream");
    }
    Ok(lines)
}

fn defmt_table(elf_bytes: &[u8]) -> Result<Table> {
    Table::parse(elf_bytes)
        .context("reading the defmt table")?
        .ok_or_else(|| {
            anyhow!("the ELF has no defmt table (is it built with defmt and -Tdefmt.x?)")
        })
}

/// Flash and RAM use of an image, counted as Berkeley `size` does: `text` is the allocated
/// read-only sections (vector table, code, constants), `data` the initialised writable ones
/// (stored in flash, copied to RAM at start), `bss` the zeroed ones. Debug and `.defmt`
/// sections are not loaded and count for nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfSize {
    pub text: u64,
    pub data: u64,
    pub bss: u64,
}

impl ElfSize {
    /// Bytes of flash: `text + data`.
    pub fn flash(&self) -> u64 {
        self.text + self.data
    }
    /// Bytes of static RAM: `data + bss` (the stack takes the rest of RAM).
    pub fn ram(&self) -> u64 {
        self.data + self.bss
    }
}

/// Measures `elf_bytes` (see [`ElfSize`]).
pub fn elf_size(elf_bytes: &[u8]) -> Result<ElfSize> {
    use object::{elf, Object, ObjectSection, SectionFlags, SectionKind};
    let file = object::File::parse(elf_bytes).context("parsing the ELF")?;
    let mut size = ElfSize {
        text: 0,
        data: 0,
        bss: 0,
    };
    for section in file.sections() {
        let SectionFlags::Elf { sh_flags } = section.flags() else {
            continue;
        };
        if sh_flags & u64::from(elf::SHF_ALLOC) == 0 {
            continue;
        }
        if section.kind() == SectionKind::UninitializedData {
            size.bss += section.size();
        } else if sh_flags & u64::from(elf::SHF_WRITE) != 0 {
            size.data += section.size();
        } else {
            size.text += section.size();
        }
    }
    Ok(size)
}

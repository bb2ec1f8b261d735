//! `kairos-fw-run [FLAGS] <elf>`: runs a kairos firmware ELF under QEMU, prints its decoded
//! defmt log (`INFO digest 0123456789abcdef`), and exits with QEMU's status.
//!
//! Exit codes: QEMU's (0 firmware success, 1 firmware failure), 124 timeout, 125 QEMU killed
//! by a signal, 2 usage or set-up error (bad flags, unreadable ELF, no QEMU).

use std::{path::PathBuf, process::ExitCode, time::Duration};

use anyhow::{bail, Context, Result};
use kairos_fw_run::{elf_size, run_elf, Options};

const USAGE: &str = "\
usage: kairos-fw-run [FLAGS] <elf>
Runs <elf> under qemu-system-arm (mps2-an386), prints the decoded defmt log, exits with QEMU's status.
flags:
  --icount          pass `-icount shift=0` to QEMU (virtual time counts instructions)
  --timeout SECS    kill QEMU after SECS seconds of wall time (default 120; exit code 124)
  --locations       append the source location to each line
  --size            print the image's flash/RAM use (text, data, bss) to stderr first
  --qemu PATH       the QEMU binary (default qemu-system-arm)
  --print-command   print the QEMU command line to stderr before running it
  --decode LOG      do not run: decode LOG, a saved defmt stream of <elf> (the live mode's
                    <elf>.live.log), and print its lines
exit codes: QEMU's (0 success, 1 firmware failure), 124 timeout, 125 QEMU killed, 2 usage/set-up error";

/// The flags, as given (no I/O).
struct Args {
    elf: PathBuf,
    opts: Options,
    size: bool,
    print_command: bool,
    decode: Option<PathBuf>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>> {
    let mut opts = Options::default();
    let (mut elf, mut size, mut print_command, mut decode) = (None, false, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--icount" => opts.icount = true,
            "--locations" => opts.locations = true,
            "--size" => size = true,
            "--print-command" => print_command = true,
            "--timeout" => {
                let v = args.next().context("--timeout needs a number of seconds")?;
                let secs: f64 = v
                    .parse()
                    .with_context(|| format!("--timeout {v}: not a number"))?;
                opts.timeout = Duration::from_secs_f64(secs);
            }
            "--qemu" => opts.qemu = args.next().context("--qemu needs a path")?.into(),
            "--decode" => decode = Some(args.next().context("--decode needs a file")?.into()),
            s if s.starts_with('-') => bail!("unknown flag {s}"),
            s => {
                if elf.replace(PathBuf::from(s)).is_some() {
                    bail!("more than one ELF given");
                }
            }
        }
    }
    let elf = elf.context("no ELF given")?;
    Ok(Some(Args {
        elf,
        opts,
        size,
        print_command,
        decode,
    }))
}

fn run(args: Args) -> Result<i32> {
    if let Some(log) = &args.decode {
        let elf =
            std::fs::read(&args.elf).with_context(|| format!("reading {}", args.elf.display()))?;
        let stream = std::fs::read(log).with_context(|| format!("reading {}", log.display()))?;
        for line in kairos_fw_run::decode_stream(&elf, &stream)? {
            println!("{line}");
        }
        return Ok(0);
    }
    if args.size {
        let bytes =
            std::fs::read(&args.elf).with_context(|| format!("reading {}", args.elf.display()))?;
        let s = elf_size(&bytes)?;
        eprintln!(
            "size: text {} data {} bss {} -> flash {} B, static RAM {} B",
            s.text,
            s.data,
            s.bss,
            s.flash(),
            s.ram()
        );
    }
    if args.print_command {
        eprintln!("{:?}", kairos_fw_run::qemu_command(&args.elf, &args.opts));
    }
    let outcome = run_elf(&args.elf, &args.opts, |line| println!("{line}"))?;
    if !outcome.qemu_stderr.is_empty() {
        eprint!("{}", outcome.qemu_stderr);
    }
    if outcome.malformed_bytes > 0 {
        eprintln!(
            "kairos-fw-run: {} malformed byte(s) in the defmt stream",
            outcome.malformed_bytes
        );
    }
    if outcome.timed_out {
        eprintln!(
            "kairos-fw-run: QEMU still running after {:?}; killed",
            args.opts.timeout
        );
    }
    Ok(outcome.exit_code())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("kairos-fw-run: {e:#}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("kairos-fw-run: {e:#}");
            ExitCode::from(2)
        }
    }
}

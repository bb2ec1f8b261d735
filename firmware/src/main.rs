//! kairos firmware: runs the kairos-core replay on a Cortex-M4F and logs the result with defmt.
//!
//! # Shape
//! - [`main`] runs [`placeholder::run`] and turns its result into the semihosting exit status:
//!   success exits 0; an error is logged with `error!` and exits non-zero.
//! - The log lines are an interface: the host runner (`runner/`) decodes them and tests compare
//!   them with the host's `kairos digest`. Their shapes are fixed (see [`log_event`],
//!   [`log_totals`]); the real replay engine will produce the same lines.
//! - Nothing may hang QEMU: the panic handler, HardFault and every other unhandled exception
//!   log what they can and exit with failure status.
//!
//! # Transport
//! defmt frames go out through semihosting (`defmt-semihosting`): QEMU writes them to its
//! stdout, where `runner/` decodes them with this ELF's defmt table. `DEFMT_LOG` is set in
//! `.cargo/config.toml` (`info`); without it only `error!` lines would be compiled in.
#![no_std]
#![no_main]

mod placeholder;

use core::sync::atomic::{AtomicBool, Ordering};

// Linked for its side effects: the critical-section implementation (without this reference
// `_critical_section_1_0_acquire` is undefined) and the global defmt logger.
use cortex_m as _;
use defmt_semihosting as _;
// The scheduling core; the placeholder does not call it yet, but the image must build with it.
use kairos_core as _;

use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::debug::{self, ExitStatus, EXIT_FAILURE, EXIT_SUCCESS};
use defmt::{error, info};

use placeholder::{EventReport, Totals};

#[entry]
fn main() -> ! {
    info!("kairos firmware {=str}", env!("CARGO_PKG_VERSION"));
    match placeholder::run(log_event) {
        Ok(totals) => {
            log_totals(&totals);
            exit(EXIT_SUCCESS)
        }
        Err(e) => {
            error!("run failed: {}", e);
            exit(EXIT_FAILURE)
        }
    }
}

/// One line per replayed event. Shape fixed: `event <n> decisions <n> utility <n> energy_mj <n>`.
fn log_event(e: &EventReport) {
    info!(
        "event {=u32} decisions {=u32} utility {=u64} energy_mj {=u64}",
        e.event, e.decisions, e.utility, e.energy_mj
    );
}

/// The closing lines. Shapes fixed:
/// `totals completed <n> dropped <n> unfinished <n> utility <n> energy_mj <n>` then
/// `digest <16 lowercase hex digits>`.
fn log_totals(t: &Totals) {
    info!(
        "totals completed {=u32} dropped {=u32} unfinished {=u32} utility {=u64} energy_mj {=u64}",
        t.completed, t.dropped, t.unfinished, t.utility, t.energy_mj
    );
    info!("digest {=u64:016x}", t.digest);
}

/// Ends the QEMU run with `status` (QEMU exits 0 for success, 1 for failure).
fn exit(status: ExitStatus) -> ! {
    debug::exit(status);
    // Only reached without a semihosting host (real hardware with no debugger attached).
    loop {
        cortex_m::asm::wfi();
    }
}

/// Set on the first panic, so that a panic raised while logging the panic (for instance
/// "defmt logger taken reentrantly" when the panic came from inside a log call) exits at once
/// instead of recursing.
static PANICKED: AtomicBool = AtomicBool::new(false);

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    if !PANICKED.swap(true, Ordering::Relaxed) {
        // One line: `panic at file:line: message`.
        let (file, line) = info.location().map_or(("?", 0), |l| (l.file(), l.line()));
        error!(
            "panic at {=str}:{=u32}: {}",
            file,
            line,
            defmt::Display2Format(&info.message())
        );
    }
    exit(EXIT_FAILURE)
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    // If the fault hit while the logger was held, this log call panics, and the panic handler
    // exits; either way QEMU stops with failure.
    error!(
        "hard fault: pc {=u32:#010x} lr {=u32:#010x} xpsr {=u32:#010x}",
        frame.pc(),
        frame.lr(),
        frame.xpsr()
    );
    exit(EXIT_FAILURE)
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) -> ! {
    // cortex-m-rt's default spins forever; an unexpected exception or interrupt must end the run.
    error!("unhandled exception or interrupt: irqn {=i16}", irqn);
    exit(EXIT_FAILURE)
}

//! kairos firmware: runs the kairos-core engine on a Cortex-M4F over a scenario embedded at
//! build time, and logs the result with defmt.
//!
//! # Shape
//! - [`scenario`] holds the encoded scenario (chosen by cargo feature); [`storage`] the
//!   controller's `static` buffers; [`cycles`] a SysTick tick counter; [`stack`] the peak
//!   stack measurement.
//! - [`main`] decodes the scenario header into its static slot, builds the controller over the
//!   static storage, and runs [`kairos_core::engine::run`], which decodes the tasks one at a
//!   time from flash. Success logs the totals and the digest and exits 0; any core error (a
//!   capacity exceeded, an undecodable scenario, a bad input) is logged with `error!` and
//!   exits non-zero.
//! - The log lines are an interface: the host runner (`runner/`) decodes them and tests
//!   compare them with the host's `kairos digest`. Their shapes are fixed:
//!   `event <n> decisions <n> utility <n> energy_mj <n>` after every mapping event,
//!   `totals completed <n> dropped <n> unfinished <n> utility <n> energy_mj <n>`, then
//!   `digest <16 lowercase hex digits>`; a failure logs `ERROR run failed: <reason>`.
//! - Nothing may hang QEMU: the panic handler, HardFault and every other unhandled exception
//!   log what they can and exit with failure status.
//!
//! # Transport
//! defmt frames go out through semihosting (`defmt-semihosting`): QEMU writes them to its
//! stdout, where `runner/` decodes them with this ELF's defmt table. `DEFMT_LOG` is set in
//! `.cargo/config.toml` (`info`); without it only `error!` lines would be compiled in. The
//! `rtt` feature logs over RTT instead, for real hardware (probe-rs; docs/firmware.md).
#![no_std]
#![no_main]
// The live mode serves the link instead of replaying: the replay's code goes unused.
#![cfg_attr(feature = "live", allow(dead_code, unused_imports))]

mod cycles;
#[cfg(feature = "live")]
mod live;
mod scenario;
mod stack;
mod storage;

use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, Ordering};

// Linked for its side effects: the critical-section implementation (without this reference
// `_critical_section_1_0_acquire` is undefined) and the global defmt logger.
use cortex_m as _;
#[cfg(feature = "rtt")]
use defmt_rtt as _;
#[cfg(not(feature = "rtt"))]
use defmt_semihosting as _;

use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::debug::{self, ExitStatus, EXIT_FAILURE, EXIT_SUCCESS};
use defmt::{error, info, Display2Format};
use kairos_core::engine::{self, Observer, Report};
use kairos_core::error::Error;
use kairos_core::packed::{PackedHeader, PackedScenario, PackedTasks};
use kairos_core::units::Micros;
use kairos_core::Controller;

#[entry]
fn main() -> ! {
    stack::paint();
    if let Some(p) = cortex_m::Peripherals::take() {
        cycles::start(p.SYST);
    }
    info!(
        "kairos firmware {=str} scenario {=str} ({=usize} bytes)",
        env!("CARGO_PKG_VERSION"),
        scenario::NAME,
        scenario::BYTES.len()
    );
    info!(
        "capacity tasks {=usize} nodes {=usize} bookings {=usize} largest_cluster {=usize} memo {=usize}; bytes per task {=usize}, per node {=usize}, per booking {=usize}",
        storage::TASKS,
        storage::NODES,
        storage::BOOKINGS,
        storage::LARGEST_CLUSTER,
        storage::MEMO,
        storage::BYTES_PER_TASK,
        storage::BYTES_PER_NODE,
        storage::BYTES_PER_BOOKING
    );
    #[cfg(feature = "live")]
    live::run();
    #[cfg(not(feature = "live"))]
    match run() {
        Ok(report) => {
            info!(
                "totals completed {=u32} dropped {=u32} unfinished {=u32} utility {=u64} energy_mj {=u64}",
                report.completed,
                report.dropped,
                report.unfinished,
                report.utility.0,
                report.energy.0
            );
            info!("digest {=u64:016x}", report.digest);
            exit(EXIT_SUCCESS)
        }
        Err(e) => {
            error!("run failed: {}", Display2Format(&e));
            if matches!(e, Error::Capacity(_)) {
                error!(
                    "this image holds at most {=usize} tasks, {=usize} nodes, {=usize} bookings, clusters of {=usize} nodes: raise them in firmware/src/storage.rs",
                    storage::TASKS,
                    storage::NODES,
                    storage::BOOKINGS,
                    storage::LARGEST_CLUSTER
                );
            }
            exit(EXIT_FAILURE)
        }
    }
}

/// Decodes the embedded scenario and replays it over the static storage.
fn run() -> Result<Report, Error> {
    let Some(buffers) = storage::take() else {
        panic!("storage taken twice");
    };
    let (header, tasks) = decode(buffers.header)?;
    info!(
        "{=u32} tasks, {=usize} clusters, {=u64} nodes, heuristic {=str}, budget {=u64} mJ; header {=usize} bytes in RAM",
        header.tasks,
        header.platform.clusters().len(),
        header.platform.total_nodes(),
        header.config.heuristic.name(),
        header.config.budget.0,
        core::mem::size_of_val(header)
    );
    let mut ctl = Controller::new(
        &header.platform,
        &header.classes,
        header.config,
        buffers.storage,
    )?;
    // The header's decoding is the deepest stack so far; measure the replay's apart.
    let decode_peak = stack::peak();
    stack::paint();
    let mut log = LogEvents::default();
    let start = cycles::now();
    let result = engine::run(&mut ctl, tasks, header.schedule, buffers.pending, &mut log);
    let total = cycles::now() - start;
    info!(
        "systick mapping_events {=u32} ticks_in_mapping {=u64} max_event {=u64} ticks_total {=u64}",
        log.events, log.ticks, log.max, total
    );
    let replay_peak = stack::peak();
    info!(
        "stack peak decode {=usize} replay {=usize} bytes; reserve {=usize} of {=usize} free",
        decode_peak,
        replay_peak,
        stack::reserve(),
        stack::available()
    );
    if decode_peak.max(replay_peak) > stack::reserve() {
        // The link only guarantees the reserve: a larger image could have run the stack into
        // the statics, which corrupts them silently (cortex-m-rt puts the stack above them).
        error!("run failed: the stack outgrew the reserve: raise _stack_reserve in memory.x");
        exit(EXIT_FAILURE)
    }
    result
}

/// Decodes the embedded scenario's header into `slot`; returns it and the tasks' decoder.
/// Not inlined, so that the decoding's temporaries live in a frame that is gone before the
/// replay starts (the two stack peaks are measured apart).
#[inline(never)]
fn decode(
    slot: &'static mut MaybeUninit<PackedHeader>,
) -> Result<(&'static PackedHeader, PackedTasks<'static>), Error> {
    let (header, tasks) = PackedScenario::decode_into(scenario::BYTES, slot)?;
    Ok((header, tasks))
}

/// Logs a line after every mapping event and adds up the ticks spent inside them.
#[derive(Default)]
struct LogEvents {
    events: u32,
    ticks: u64,
    max: u64,
    started: u64,
}

impl Observer for LogEvents {
    fn before_mapping(&mut self, _now: Micros) {
        self.started = cycles::now();
    }

    fn after_mapping(&mut self, _now: Micros, ctl: &Controller<'_>, decisions: u32) {
        let ticks = cycles::now() - self.started;
        self.ticks += ticks;
        self.max = self.max.max(ticks);
        info!(
            "event {=u32} decisions {=u32} utility {=u64} energy_mj {=u64}",
            self.events,
            decisions,
            ctl.utility().0,
            ctl.ledger().consumed().0
        );
        self.events += 1;
        if cfg!(feature = "panic-demo") && self.events == 3 {
            panic!("panic-demo: deliberate panic after event {}", self.events);
        }
        if cfg!(feature = "hardfault-demo") && self.events == 3 {
            // UDF: UsageFault, escalated to HardFault (configurable faults are disabled).
            cortex_m::asm::udf();
        }
    }
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
            Display2Format(&info.message())
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

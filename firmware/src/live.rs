//! The live mode (`--features live`): the firmware as a controller on a serial link. It
//! serves the core's wire protocol ([`kairos_core::wire`]) on the CMSDK UART0 of the
//! mps2-an386 (0x4000_4000; QEMU maps it to `-serial`), over the same `static` storage as
//! the replay, for ever: a session starts at each hello. defmt logging stays on
//! semihosting (or RTT), apart from the link.
//!
//! Each mapping event logs `live map <n> decisions <n> ticks <n>` (SysTick ticks: under
//! QEMU `-icount shift=0` one tick is 40 instructions, see cycles.rs), each session start
//! `live hello`, and each refused request `live fault`.

use defmt::{info, warn};
use kairos_core::wire::frame::max_encoded_len;
use kairos_core::wire::message::{Decided, Response, MAX_PAYLOAD};
use kairos_core::wire::serve::{serve, Buffers, Kind, Port, Watch};

use crate::cycles;
use crate::storage::{self, Static};

/// The CMSDK APB UART (ARM DDI 0479): data, state, control and baud divider registers.
struct Uart {
    base: usize,
}

const DATA: usize = 0x00;
const STATE: usize = 0x04;
const CTRL: usize = 0x08;
const BAUDDIV: usize = 0x10;
/// STATE: the transmit buffer is full.
const TX_FULL: u32 = 1 << 0;
/// STATE: the receive buffer holds a byte.
const RX_FULL: u32 = 1 << 1;
/// CTRL: transmit and receive enabled.
const TX_RX_ENABLE: u32 = 0b11;
/// The mps2-an386's peripheral clock.
const CLOCK_HZ: u32 = 25_000_000;
/// The link's rate (QEMU ignores it; a real board's host side must match it).
pub const BAUD: u32 = 115_200;

impl Uart {
    /// UART0 of the mps2-an386, enabled at [`BAUD`].
    fn uart0() -> Uart {
        let u = Uart { base: 0x4000_4000 };
        u.write_reg(BAUDDIV, CLOCK_HZ / BAUD);
        u.write_reg(CTRL, TX_RX_ENABLE);
        u
    }
    fn read_reg(&self, off: usize) -> u32 {
        // Safety: a device register of the UART, 4-byte aligned, always mapped.
        unsafe { core::ptr::read_volatile((self.base + off) as *const u32) }
    }
    fn write_reg(&self, off: usize, v: u32) {
        // Safety: as in read_reg.
        unsafe { core::ptr::write_volatile((self.base + off) as *mut u32, v) }
    }
}

impl Port for Uart {
    fn read(&mut self) -> Option<u8> {
        while self.read_reg(STATE) & RX_FULL == 0 {}
        Some(self.read_reg(DATA) as u8)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            while self.read_reg(STATE) & TX_FULL != 0 {}
            self.write_reg(DATA, b as u32);
        }
    }
}

/// Decisions one mapping event may make: two per task slot (a mapping event decides each
/// task it holds at most once, a drop or an assignment, and ESSC 10k's largest makes 1,1xx).
pub const DECISIONS: usize = 2 * storage::TASKS;
const FRAME: usize = max_encoded_len(MAX_PAYLOAD);

static DECIDED: Static<[Decided; DECISIONS]> = Static::new();
static RX: Static<[u8; FRAME]> = Static::new();
static TX: Static<[u8; FRAME]> = Static::new();
static SCRATCH: Static<[u8; MAX_PAYLOAD]> = Static::new();

/// Logs the sessions, the faults and each mapping event's ticks.
#[derive(Default)]
struct Log {
    started: u64,
    events: u32,
}

impl Watch for Log {
    fn before(&mut self, kind: Kind) {
        if kind == Kind::Map {
            self.started = cycles::now();
        }
    }
    fn after(&mut self, kind: Kind, answer: &Response) {
        match (kind, answer) {
            (Kind::Map, Response::Mapped(p)) => {
                let ticks = cycles::now() - self.started;
                info!(
                    "live map {=u32} decisions {=u32} ticks {=u64}",
                    self.events, p.total, ticks
                );
                self.events += 1;
            }
            (Kind::Hello, Response::Hello(c)) => {
                self.events = 0;
                info!(
                    "live hello: version {=u16}, {=u32} task slots, {=u32} nodes",
                    c.version, c.tasks, c.nodes
                );
            }
            (_, Response::Fault(f)) => warn!("live fault: {}", defmt::Debug2Format(f)),
            _ => {}
        }
    }
}

/// Serves the link for ever.
pub fn run() -> ! {
    let Some(buffers) = storage::take() else {
        panic!("storage taken twice");
    };
    info!(
        "live mode: UART0 at {=u32} baud, {=usize} task slots, {=usize} decisions an event",
        BAUD,
        storage::TASKS,
        DECISIONS
    );
    // Safety: `run` is entered once (from main), so each static is borrowed once.
    let (decisions, rx, tx, scratch) = unsafe {
        (
            storage::fill(DECIDED.ptr(), || Decided::BLANK),
            storage::fill(RX.ptr(), || 0),
            storage::fill(TX.ptr(), || 0),
            storage::fill(SCRATCH.ptr(), || 0),
        )
    };
    let mut uart = Uart::uart0();
    serve(
        &mut uart,
        Buffers {
            header: buffers.header,
            storage: buffers.storage,
            decisions,
            rx,
            tx,
            scratch,
        },
        &mut Log::default(),
    );
    // A UART never closes.
    loop {
        cortex_m::asm::wfi();
    }
}

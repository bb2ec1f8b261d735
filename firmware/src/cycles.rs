//! A 64-bit tick counter from SysTick, to measure the cost of a mapping event.
//!
//! SysTick counts down the core clock (`CLKSOURCE` = processor clock) from 2^24 - 1; its
//! exception counts wraps. On hardware one tick is one CPU cycle. Under QEMU with
//! `-icount shift=0` the virtual clock advances 1 ns per instruction and the mps2-an386's
//! SysTick runs at its 25 MHz system clock, so one tick is 40 instructions (docs/firmware.md
//! has the calibration); without `-icount` the ticks follow the host's wall clock and mean
//! little. (QEMU does not model the DWT cycle counter, so SysTick is the counter that works on
//! both.)

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::exception;

const RELOAD: u32 = 0x00FF_FFFF;

static WRAPS: AtomicU32 = AtomicU32::new(0);

/// Starts the counter at zero.
pub fn start(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

/// Ticks since [`start`].
pub fn now() -> u64 {
    loop {
        let wraps = WRAPS.load(Ordering::Acquire);
        let current = SYST::get_current();
        // A wrap between the two loads is taken as an exception at once and shows here.
        if WRAPS.load(Ordering::Acquire) == wraps {
            return (u64::from(wraps) << 24) + u64::from(RELOAD - current);
        }
    }
}

#[exception]
fn SysTick() {
    WRAPS.fetch_add(1, Ordering::AcqRel);
}

//! Peak stack use, measured by painting: [`paint`] fills every word between the end of the
//! statics (`__sheap`, cortex-m-rt) and a little below the current stack pointer with a
//! pattern; [`peak`] finds the lowest word no longer holding it: as deep as the stack went
//! since, counted from the top of RAM. Painting again starts a new measurement.

const PATTERN: u32 = 0x5ca1_ab1e;
/// Words left unpainted below the stack pointer (the painting function's own frame).
const MARGIN: usize = 64;

extern "C" {
    static mut __sheap: u32;
    static _stack_start: u32;
    /// Not a variable: its address is memory.x's `_stack_reserve`.
    static _stack_reserve: u8;
}

fn bottom() -> *mut u32 {
    core::ptr::addr_of_mut!(__sheap)
}

/// Paints the free RAM below the stack.
pub fn paint() {
    let sp = cortex_m::register::msp::read() as usize;
    let mut p = bottom();
    let end = (sp - MARGIN * 4) as *mut u32;
    while p < end {
        // Safety: [__sheap, sp - margin) is RAM that nothing uses (no heap, stack above).
        unsafe {
            p.write_volatile(PATTERN);
            p = p.add(1);
        }
    }
}

/// Bytes of stack used at the deepest point since [`paint`].
pub fn peak() -> usize {
    let top = core::ptr::addr_of!(_stack_start) as usize;
    let mut p = bottom();
    // Safety: reads RAM between the statics and the stack top.
    unsafe {
        while (p as usize) < top && p.read_volatile() == PATTERN {
            p = p.add(1);
        }
    }
    top - p as usize
}

/// Bytes between the end of the statics and the top of RAM: what the stack may use.
pub fn available() -> usize {
    core::ptr::addr_of!(_stack_start) as usize - bottom() as usize
}

/// The stack the linker guarantees (memory.x's `_stack_reserve`: the link fails if the statics
/// leave less).
pub fn reserve() -> usize {
    core::ptr::addr_of!(_stack_reserve) as usize
}

//! Stopping the loop cleanly: SIGINT and SIGTERM (what an init system sends) each set a flag
//! the loop reads between cycles, so a stop never falls between a decision and its ledger
//! entry (a kill -9 may, and the ledger is made for it).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Installs the handlers (Unix; elsewhere nothing).
pub fn catch() {
    #[cfg(unix)]
    // SAFETY: `sigaction` with a zeroed struct, an empty mask and a handler that only stores
    // to an atomic is the documented way to install an async-signal-safe handler.
    unsafe {
        for sig in [libc::SIGINT, libc::SIGTERM] {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Whether a stop was asked for since [`catch`].
pub fn requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

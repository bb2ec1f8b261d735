//! Ctrl-C (SIGINT) as a request to stop cleanly: [`catch`] installs a handler that only sets
//! a flag, which long work ([`crate::experiment::resume`]) reads between steps to stop with
//! everything finished so far saved, and say how to resume. The handler resets itself, so a
//! second Ctrl-C kills the process at once (what was saved stays saved: every file is
//! written whole, [`crate::output::write_atomic`]).

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    // Only an atomic store: all a signal handler may safely do.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Installs the SIGINT handler (once is enough; again is harmless). Elsewhere than Unix,
/// does nothing: Ctrl-C kills, and `--resume` still finds what was saved.
pub fn catch() {
    #[cfg(unix)]
    // SAFETY: `sigaction` with a zeroed struct, an empty mask and a handler that only stores
    // to an atomic is the documented way to install an async-signal-safe handler.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        sa.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
    }
}

/// Whether Ctrl-C was pressed since [`catch`].
pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

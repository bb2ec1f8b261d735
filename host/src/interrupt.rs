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

/// What to say once Ctrl-C is pressed ([`say_when_requested`]).
static MESSAGE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
/// Whether it was said.
static SAID: AtomicBool = AtomicBool::new(false);

/// Says the message, once.
fn say() {
    if let Some(m) = MESSAGE.get() {
        if !SAID.swap(true, Ordering::SeqCst) {
            crate::diag!("{m}");
        }
    }
}

/// Once Ctrl-C is pressed, prints `message` on stderr (what the command does before it
/// stops, and that a second Ctrl-C stops at once): the handler itself may not print, so a
/// thread looks at the flag ten times a second, and [`requested_saying`] says it too if the
/// work notices first. The thread lives as long as the process.
pub fn say_when_requested(message: String) {
    if MESSAGE.set(message).is_err() {
        return;
    }
    let spawned = std::thread::Builder::new().name("ctrl-c".into()).spawn(|| {
        while !requested() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        say();
    });
    // Without the thread the stop works the same; `requested_saying` still says it.
    drop(spawned);
}

/// [`requested`], saying [`say_when_requested`]'s message the first time it is true.
pub fn requested_saying() -> bool {
    let r = requested();
    if r {
        say();
    }
    r
}

/// Installs the Ctrl-C handler of a run whose steps (`step`: "trial", "workload") run
/// `threads` at a time, with the message saying what the first Ctrl-C does.
pub fn catch_for_steps(threads: Option<usize>, step: &str) {
    catch();
    let running = threads.unwrap_or_else(rayon::current_num_threads).max(1);
    say_when_requested(format!(
        "Ctrl-C: finishing the running {step}{} (up to {running}), then stopping (finished \
         {step}s are saved); Ctrl-C again stops at once",
        if running == 1 { "" } else { "s" }
    ));
}

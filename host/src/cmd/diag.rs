//! Diagnostics and progress lines on standard error that never fail a command.
//!
//! `eprintln!` panics when a write to stderr fails: a pipe whose reader has gone
//! (`kairos experiment x.toml 2>&1 | head -1`, or stderr sent to a closed pipe), a full disk
//! behind `2>log`. A warning or a progress line is not worth a run: [`diag!`](crate::diag)
//! writes the line and drops any error, so the command goes on and its results and exit
//! code are what they would have been. (A stderr closed outright, `2>&-`, is reopened on
//! `/dev/null` by Rust's runtime before `main`, so it writes nowhere rather than into the
//! first file the command opens.)

/// Writes one line to standard error, ignoring any failure (see the module doc); progress
/// bars on the terminal are cleared for it and drawn again below it.
pub fn line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    crate::progress::line_between_bars(|| {
        let mut e = std::io::stderr().lock();
        let _ = e.write_fmt(args).and_then(|()| e.write_all(b"\n"));
    });
}

/// As `eprintln!`, but a failed write to stderr is ignored rather than a panic
/// ([`cmd::diag`](crate::cmd::diag)).
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {
        $crate::cmd::diag::line(format_args!($($arg)*))
    };
}

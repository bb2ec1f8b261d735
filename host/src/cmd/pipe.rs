//! Standard output for a command's results, and the broken pipe that ends a command quietly.
//!
//! `println!` panics when the reader has gone (`kairos replay log.swf | head -3`). Commands
//! write with `writeln!(pipe::stdout(), ..)?` instead, so the error comes back to `main`,
//! which exits with 0 and prints nothing on a broken pipe, as `cat` or `grep` do: the reader
//! asked for no more.

/// Standard output, locked.
pub(crate) fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

/// Whether `e` (or any error it wraps) is a write to a pipe whose reader has closed it.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::is_broken_pipe;
    use anyhow::Context;
    use std::io::{Error, ErrorKind};

    #[test]
    fn broken_pipe_is_found_under_context() {
        let e: anyhow::Result<()> = Err(Error::from(ErrorKind::BrokenPipe)).context("writing");
        assert!(is_broken_pipe(&e.unwrap_err()));
        let e: anyhow::Result<()> = Err(Error::from(ErrorKind::NotFound)).context("reading");
        assert!(!is_broken_pipe(&e.unwrap_err()));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
    }
}

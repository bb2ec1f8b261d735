//! The byte link to a live controller: whatever carries the frames (a QEMU serial socket, a
//! serial device, a thread in this process), as one [`Link`] that sends bytes and receives
//! them with a timeout. A reader thread per link turns a blocking `Read` into a channel, so
//! that a silent controller is a timeout, never a hang.

use std::io::{self, Read, Write};
use std::process::Child;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::Duration;

/// A byte link: what goes out is written at once, what comes in waits in a channel.
pub struct Link {
    out: Box<dyn Write + Send>,
    inbox: Receiver<Vec<u8>>,
    /// A process to end with the link (QEMU).
    child: Option<Child>,
}

/// What [`Link::recv`] got.
pub enum Received {
    /// Some bytes.
    Bytes(Vec<u8>),
    /// Nothing within the timeout.
    Nothing,
    /// The other side closed the link.
    Closed,
}

impl Link {
    /// A link over a reader and a writer (a socket's two halves, a device opened twice).
    pub fn over(input: impl Read + Send + 'static, out: impl Write + Send + 'static) -> Link {
        let (tx, inbox) = mpsc::channel();
        thread::spawn(move || pump(input, tx));
        Link {
            out: Box::new(out),
            inbox,
            child: None,
        }
    }

    /// A link whose two directions are channels (an in-process controller's).
    pub fn channels(out: Sender<Vec<u8>>, inbox: Receiver<Vec<u8>>) -> Link {
        Link {
            out: Box::new(ChannelWriter(out)),
            inbox,
            child: None,
        }
    }

    /// Ends `child` when the link is dropped.
    pub fn with_child(mut self, child: Child) -> Link {
        self.child = Some(child);
        self
    }

    /// Sends `bytes`.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.out.flush()
    }

    /// Closes the sending direction (a child's stdin: it reads its end).
    pub fn close(&mut self) {
        self.out = Box::new(io::sink());
    }

    /// Bytes that arrive within `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> Received {
        match self.inbox.recv_timeout(timeout) {
            Ok(b) => Received::Bytes(b),
            Err(RecvTimeoutError::Timeout) => Received::Nothing,
            Err(RecvTimeoutError::Disconnected) => Received::Closed,
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Reads until end of stream or error, sending each chunk on.
fn pump(mut input: impl Read, tx: Sender<Vec<u8>>) {
    let mut buf = [0u8; 4096];
    loop {
        match input.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if tx.send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
        }
    }
}

/// A `Write` into a channel.
struct ChannelWriter(Sender<Vec<u8>>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the controller is gone"))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

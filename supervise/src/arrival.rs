//! Reading a bot's stdout on a thread of its own, so that each chunk is stamped with the moment
//! it arrived — when the kernel woke the reader — however busy the event loop is.
//!
//! A referee runs every game on one event-loop thread; a line read by that thread is read as
//! late as the thread is busy (another game's work, the machine's load). The bot is charged up
//! to its reply's arrival, so the arrival must not depend on that thread: a small reader thread
//! per bot waits in `poll(2)` on the pipe, reads what is there at once, stamps it with a
//! monotonic clock, and hands it to the bot's supervisor task through a bounded channel (when
//! the channel is full the thread stops reading, and the bot blocks on its own write, as
//! before). The thread ends at end of file, on an error, or within [`STOP_POLL`] of the
//! supervisor dropping its end (a pipe held open by an escaped process does not keep it).

use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc;

/// How often the reader thread checks that its supervisor still listens.
const STOP_POLL: u16 = 100;
/// The read size.
const CHUNK: usize = 64 * 1024;
/// Chunks buffered between the thread and the supervisor.
const CHUNKS: usize = 4;

/// The moment the latest chunk arrived, shared with the supervisor.
pub(crate) type LastArrival = Arc<Mutex<Option<Instant>>>;

/// The bot's stdout as an [`AsyncRead`] fed by the reader thread; [`LastArrival`] holds when the
/// chunk last returned by `poll_read` arrived.
pub(crate) struct TimedStdout {
    chunks: mpsc::Receiver<io::Result<(Vec<u8>, Instant)>>,
    /// The rest of a chunk larger than the caller's buffer.
    rest: Vec<u8>,
    offset: usize,
    last: LastArrival,
}

impl TimedStdout {
    /// Starts the reader thread on `pipe` (the bot's stdout).
    pub(crate) fn start(pipe: OwnedFd) -> io::Result<(TimedStdout, LastArrival)> {
        let (sender, chunks) = mpsc::channel(CHUNKS);
        std::thread::Builder::new().name("bot stdout".to_owned()).spawn(move || read_loop(pipe, &sender))?;
        let last = LastArrival::default();
        let stdout = TimedStdout { chunks, rest: Vec::new(), offset: 0, last: Arc::clone(&last) };
        Ok((stdout, last))
    }
}

fn read_loop(pipe: OwnedFd, sender: &mpsc::Sender<io::Result<(Vec<u8>, Instant)>>) {
    let mut file = std::fs::File::from(pipe);
    let mut buf = vec![0u8; CHUNK];
    loop {
        let ready = {
            let mut fds = [nix::poll::PollFd::new(file.as_fd(), nix::poll::PollFlags::POLLIN)];
            nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(STOP_POLL))
        };
        match ready {
            Ok(0) | Err(nix::errno::Errno::EINTR) => {
                if sender.is_closed() {
                    return;
                }
                continue;
            }
            Ok(_) => {}
            Err(e) => {
                let _ = sender.blocking_send(Err(io::Error::from(e)));
                return;
            }
        }
        match file.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                let arrived = Instant::now();
                if sender.blocking_send(Ok((buf[..n].to_vec(), arrived))).is_err() {
                    return;
                }
            }
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {}
            Err(e) => {
                let _ = sender.blocking_send(Err(e));
                return;
            }
        }
    }
}

impl AsyncRead for TimedStdout {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.offset >= self.rest.len() {
            match self.chunks.poll_recv(cx) {
                Poll::Pending => return Poll::Pending,
                // End of file: the thread is done.
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e)),
                Poll::Ready(Some(Ok((chunk, arrived)))) => {
                    *self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(arrived);
                    self.rest = chunk;
                    self.offset = 0;
                }
            }
        }
        let this = &mut *self;
        let n = buf.remaining().min(this.rest.len() - this.offset);
        buf.put_slice(&this.rest[this.offset..this.offset + n]);
        this.offset += n;
        Poll::Ready(Ok(()))
    }
}

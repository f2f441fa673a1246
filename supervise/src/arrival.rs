//! Reading a bot's stdout on a thread of its own, so that each line is stamped with the moment
//! it arrived — when the kernel woke the reader — however busy the event loop is.
//!
//! A referee runs every game on one event-loop thread; a line read by that thread is read as
//! late as the thread is busy (another game's work, the machine's load). The bot is charged up
//! to its reply's arrival, so the arrival must not depend on that thread: a small reader thread
//! per bot waits in `poll(2)` on the pipe, reads what is there at once, stamps it with a
//! monotonic clock, splits it into bounded lines ([`BoundedLines`]) and hands each complete
//! line straight to the channel that [`recv_line`](crate::BotProcess::recv_line) reads. The
//! event loop sees a reply once, when the game's task wakes with the line in hand: there is no
//! supervisor task between them, and no copy of the raw chunks.
//!
//! Bounded memory: the line channel holds at most [`LINE_CHANNEL_CAPACITY`] lines; when it is
//! full the thread holds one more and stops reading, and the bot blocks on its own write. The
//! bytes not yet split are at most the line limit plus one read ([`CHUNK`]).
//!
//! How the stream ends (end of file, a line too long, invalid UTF-8, a read error) is not the
//! thread's to decide: it tells the bot's supervisor task (the pump), which decides the fault
//! with the exit in view and then closes the line channel through the [`LineOutlet`]. After
//! that the thread reads nothing more but keeps the pipe open until the pump has finished (a
//! bot that writes on is not sent `SIGPIPE` for it; it blocks once the pipe is full). The
//! thread ends within [`STOP_POLL`] of the pump finishing (a pipe held open by an escaped
//! process does not keep it).

use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_util::codec::Decoder;

use super::lines::{BoundedLines, LineError};
use super::pump::lock;

/// How often the reader thread checks that its supervisor still listens, in milliseconds.
const STOP_POLL: u16 = 100;
/// The read size.
const CHUNK: usize = 64 * 1024;
/// Complete stdout lines buffered between the reader thread and `recv_line`.
pub(crate) const LINE_CHANNEL_CAPACITY: usize = 16;
/// Events from the reader thread to the pump: at most one output-limit notice and one end.
const EVENT_CAPACITY: usize = 2;

/// A complete stdout line (without its `'\n'`) and the moment the reader thread read the chunk
/// that completed it (its arrival, by which the referee charges a bot's clock).
pub(crate) type TimedLine = (String, Instant);

/// What the reader thread tells the pump.
#[derive(Debug)]
pub(crate) enum StdoutEvent {
    /// The bot's output (stdout and stderr together) went past `max_output_bytes`.
    OverOutputLimit,
    /// The stream of lines ended: `None` at end of file, otherwise why.
    End(Option<LineError>),
}

/// Where the reader thread delivers lines: the sending end of the line channel, which the pump
/// closes once it has decided how the stream ends.
#[derive(Debug)]
pub(crate) struct LineOutlet {
    sender: Mutex<Option<mpsc::Sender<TimedLine>>>,
}

impl LineOutlet {
    pub(crate) fn new(sender: mpsc::Sender<TimedLine>) -> Arc<LineOutlet> {
        Arc::new(LineOutlet { sender: Mutex::new(Some(sender)) })
    }

    /// Delivers no more lines: the channel closes once the line the reader thread may be
    /// holding (a full channel) is in it; the lines in it can still be received.
    pub(crate) fn close(&self) {
        lock(&self.sender).take();
    }

    /// Whether lines are still delivered to a receiver that listens.
    pub(crate) fn delivering(&self) -> bool {
        lock(&self.sender).as_ref().is_some_and(|sender| !sender.is_closed())
    }

    /// Hands one line to `recv_line`, waiting while the channel is full (back-pressure).
    /// `false` when no more lines are wanted.
    fn deliver(&self, line: TimedLine) -> bool {
        let (sender, line) = {
            let guard = lock(&self.sender);
            let Some(sender) = guard.as_ref() else { return false };
            match sender.try_send(line) {
                Ok(()) => return true,
                Err(TrySendError::Closed(_)) => return false,
                // Wait outside the lock: the pump must be able to close the outlet meanwhile.
                Err(TrySendError::Full(line)) => (sender.clone(), line),
            }
        };
        sender.blocking_send(line).is_ok()
    }
}

/// The reader thread of one bot's stdout.
pub(crate) struct StdoutReader {
    pub(crate) pipe: OwnedFd,
    pub(crate) outlet: Arc<LineOutlet>,
    pub(crate) events: mpsc::Sender<StdoutEvent>,
    /// Bytes read from stdout and stderr together.
    pub(crate) output_bytes: Arc<AtomicU64>,
    pub(crate) max_output_bytes: Option<u64>,
    /// The longest line.
    pub(crate) max_line: usize,
}

impl StdoutReader {
    /// The channel for the reader's events (its receiving end is the pump's).
    pub(crate) fn event_channel() -> (mpsc::Sender<StdoutEvent>, mpsc::Receiver<StdoutEvent>) {
        mpsc::channel(EVENT_CAPACITY)
    }

    /// Starts the reader thread.
    pub(crate) fn start(self) -> io::Result<()> {
        std::thread::Builder::new().name("bot stdout".to_owned()).spawn(move || self.run()).map(drop)
    }

    fn run(self) {
        let events = self.events.clone();
        let pipe = self.read_lines(&events);
        // Keep the pipe open until the pump has finished (it drops the events' receiver).
        while !events.is_closed() {
            std::thread::sleep(Duration::from_millis(u64::from(STOP_POLL)));
        }
        drop(pipe);
    }

    /// Reads, stamps and delivers lines until the stream ends (reported to the pump) or no more
    /// lines are wanted. Returns the pipe, to be kept open for a while.
    fn read_lines(self, events: &mpsc::Sender<StdoutEvent>) -> std::fs::File {
        let mut file = std::fs::File::from(self.pipe);
        let mut chunk = vec![0u8; CHUNK];
        let mut pending = BytesMut::new();
        let mut decoder = BoundedLines::new(self.max_line);
        let mut over_limit = false;
        let end = |error: Option<LineError>| {
            // Never blocks: the channel has room for every event the thread sends.
            let _ = events.try_send(StdoutEvent::End(error));
        };
        loop {
            if !self.outlet.delivering() || events.is_closed() {
                return file;
            }
            let ready = {
                let mut fds = [nix::poll::PollFd::new(file.as_fd(), nix::poll::PollFlags::POLLIN)];
                nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(STOP_POLL))
            };
            match ready {
                Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
                Ok(_) => {}
                Err(e) => {
                    end(Some(LineError::Io(io::Error::from(e))));
                    return file;
                }
            }
            let n = match file.read(&mut chunk) {
                // End of file: an unterminated last line is dropped (only complete lines count).
                Ok(0) => {
                    end(None);
                    return file;
                }
                Ok(n) => n,
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
                    continue;
                }
                Err(e) => {
                    end(Some(LineError::Io(e)));
                    return file;
                }
            };
            let arrived = Instant::now();
            let total = self.output_bytes.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
            if !over_limit && self.max_output_bytes.is_some_and(|limit| total > limit) {
                over_limit = true;
                let _ = events.try_send(StdoutEvent::OverOutputLimit);
            }
            pending.extend_from_slice(&chunk[..n]);
            loop {
                match decoder.decode(&mut pending) {
                    Ok(Some(line)) => {
                        if !self.outlet.deliver((line, arrived)) {
                            return file;
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        end(Some(error));
                        return file;
                    }
                }
            }
        }
    }
}

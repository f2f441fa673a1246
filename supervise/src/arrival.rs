//! Reading a bot's stdout on a thread of its own, so that each line is stamped with the moment
//! it arrived — when the kernel woke the reader — however busy the event loop is.
//!
//! A referee runs every game on one event-loop thread; a line read by that thread is read as
//! late as the thread is busy (another game's work, the machine's load). The bot is charged up
//! to its reply's arrival, so the arrival must not depend on that thread: a small reader thread
//! per bot waits in `read(2)` on the pipe, which returns what is there at once, stamps it with
//! a monotonic clock, splits it into bounded lines ([`BoundedLines`]) and hands each complete
//! line straight to the channel that [`recv_line`](crate::BotProcess::recv_line) reads. The
//! event loop sees a reply once, when the game's task wakes with the line in hand: there is no
//! supervisor task between them, and no copy of the raw chunks.
//!
//! The threads are reused: when a bot's pump has finished, its reader thread waits (up to
//! [`IDLE_THREAD_WAIT`]) to read the next bot's stdout, so starting a bot creates no thread.
//!
//! The thread waits in a blocking `read(2)`, not in `poll(2)` then `read`: one system call a
//! reply. A blocking read returns at end of file, or when bytes come; to stop a thread whose
//! pipe is held open by an escaped process that writes nothing, the pump, when it finishes
//! (the events' receiver is dropped, also when the pump is aborted), marks the reader stopped
//! and writes one byte into the pipe through a write end of its own (`/proc/self/fd/N` opened
//! for writing); the thread wakes, sees the mark and reads no more. The reader's descriptor is
//! closed only after the pump has finished, so `N` is still the pipe when the pump opens it.
//!
//! Bounded memory: the line channel holds at most [`LINE_CHANNEL_CAPACITY`] lines; when it is
//! full the thread holds one more and stops reading, and the bot blocks on its own write. The
//! bytes not yet split are at most the line limit plus one read ([`CHUNK`]).
//!
//! How the stream ends (end of file, a line too long, invalid UTF-8, a read error) is not the
//! thread's to decide: it tells the bot's supervisor task (the pump), which decides the fault
//! with the exit in view and then closes the line channel through the [`LineOutlet`]. After
//! that the thread delivers nothing more (it may read one more chunk, dropped) but keeps the
//! pipe open until the pump has finished (a bot that writes on is not sent `SIGPIPE` for it; it
//! blocks once the pipe is full). The thread closes the pipe as soon as the pump has finished
//! (a pipe held open by an escaped process does not keep it: see the wake above).

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
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

/// Where the reader thread is, for the pump's wake when it finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Not started yet.
    Starting,
    /// Reading (maybe blocked in `read`) the pipe with this descriptor.
    Reading(RawFd),
    /// No longer reading; the pipe is still open.
    Holding,
    /// The pipe is closed (or about to be).
    Closed,
}

/// The state the reader thread and the pump share about the thread's pipe.
#[derive(Debug)]
struct ReaderState {
    /// Where the thread is (changed under the lock; the pump wakes it under the lock, so the
    /// descriptor stays the pipe while the pump opens it).
    phase: Mutex<Phase>,
    /// Signalled when the pump finishes (for a thread holding the pipe).
    finished: Condvar,
    /// The pump has finished: nothing more is wanted.
    stopped: std::sync::atomic::AtomicBool,
}

impl ReaderState {
    fn set_phase(&self, phase: Phase) {
        *lock(&self.phase) = phase;
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Marks the reader stopped and, if it may be blocked in `read`, wakes it with one byte
    /// written through a write end of its pipe opened for the purpose.
    fn stop(&self) {
        let phase = lock(&self.phase);
        self.stopped.store(true, Ordering::Release);
        if let Phase::Reading(fd) = *phase {
            let opened = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(nix::libc::O_NONBLOCK)
                .open(format!("/proc/self/fd/{fd}"));
            // A full pipe (the write fails) has bytes for the thread to read: it wakes anyway.
            match opened {
                Ok(mut end) => drop(end.write(b"\n")),
                Err(e) => tracing::debug!("cannot wake a bot's stdout reader: {e}"),
            }
        }
        self.finished.notify_all();
    }

    /// Holds the pipe (no longer read) until the pump has finished, then marks it closed.
    fn hold_until_finished(&self, events: &EventSender) {
        let mut phase = lock(&self.phase);
        *phase = Phase::Holding;
        while !events.is_closed() {
            // The pump signals its end; the timeout is only a backstop.
            phase = self
                .finished
                .wait_timeout(phase, Duration::from_millis(u64::from(STOP_POLL)))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *phase = Phase::Closed;
    }
}

/// The reader thread's end of the event channel.
#[derive(Debug, Clone)]
pub(crate) struct EventSender {
    sender: mpsc::Sender<StdoutEvent>,
    state: Arc<ReaderState>,
}

impl EventSender {
    fn try_send(&self, event: StdoutEvent) {
        // Never blocks: the channel has room for every event the thread sends.
        let _ = self.sender.try_send(event);
    }

    /// The pump has finished (or been dropped).
    fn is_closed(&self) -> bool {
        self.sender.is_closed() || self.state.stopped()
    }
}

/// The pump's end of the event channel; dropping it (the pump has finished) stops the reader.
#[derive(Debug)]
pub(crate) struct EventReceiver {
    receiver: mpsc::Receiver<StdoutEvent>,
    state: Arc<ReaderState>,
}

impl EventReceiver {
    /// The next event, `None` once the thread has ended without a word.
    pub(crate) async fn recv(&mut self) -> Option<StdoutEvent> {
        self.receiver.recv().await
    }
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        // Before the receiver itself is dropped: until then the thread keeps its descriptor.
        self.state.stop();
    }
}

/// The reader thread of one bot's stdout.
pub(crate) struct StdoutReader {
    pub(crate) pipe: OwnedFd,
    pub(crate) outlet: Arc<LineOutlet>,
    pub(crate) events: EventSender,
    /// Bytes read from stdout and stderr together.
    pub(crate) output_bytes: Arc<AtomicU64>,
    pub(crate) max_output_bytes: Option<u64>,
    /// The longest line.
    pub(crate) max_line: usize,
}

impl StdoutReader {
    /// The channel for the reader's events (its receiving end is the pump's).
    pub(crate) fn event_channel() -> (EventSender, EventReceiver) {
        let (sender, receiver) = mpsc::channel(EVENT_CAPACITY);
        let state = Arc::new(ReaderState {
            phase: Mutex::new(Phase::Starting),
            finished: Condvar::new(),
            stopped: std::sync::atomic::AtomicBool::new(false),
        });
        (EventSender { sender, state: Arc::clone(&state) }, EventReceiver { receiver, state })
    }

    /// Starts reading, on an idle reader thread if there is one (see [`IDLE_THREADS`]), else
    /// on a new one.
    pub(crate) fn start(self) -> io::Result<()> {
        let mut reader = self;
        loop {
            let idle = lock(&IDLE_THREADS).pop();
            let Some(idle) = idle else { break };
            match idle.next.send(reader) {
                Ok(()) => return Ok(()),
                // That thread has just ended: try another.
                Err(std::sync::mpsc::SendError(back)) => reader = back,
            }
        }
        std::thread::Builder::new()
            .name("bot stdout".to_owned())
            .spawn(move || reader_thread(reader))
            .map(drop)
    }

    fn run(self, chunk: &mut [u8]) {
        let events = self.events.clone();
        let pipe = self.read_lines(&events, chunk);
        // Keep the pipe open until the pump has finished (it drops the events' receiver).
        events.state.hold_until_finished(&events);
        drop(pipe);
    }

    /// Reads, stamps and delivers lines until the stream ends (reported to the pump) or no more
    /// lines are wanted. Returns the pipe, to be kept open for a while.
    fn read_lines(self, events: &EventSender, chunk: &mut [u8]) -> std::fs::File {
        let file = std::fs::File::from(self.pipe);
        let mut pending = BytesMut::new();
        let mut decoder = BoundedLines::new(self.max_line);
        let mut over_limit = false;
        let end = |error: Option<LineError>| events.try_send(StdoutEvent::End(error));
        // Blocking reads: the thread waits in `read` itself (the runtime made the pipe
        // non-blocking; this descriptor is the thread's alone).
        if let Err(e) = set_blocking(&file) {
            end(Some(LineError::Io(io::Error::from(e))));
            return file;
        }
        events.state.set_phase(Phase::Reading(file.as_raw_fd()));
        let mut reader = &file;
        loop {
            if !self.outlet.delivering() || events.is_closed() {
                return file;
            }
            let read = reader.read(chunk);
            let arrived = Instant::now();
            if events.is_closed() {
                // Woken to stop, or read after the pump finished: nothing more is wanted.
                return file;
            }
            let n = match read {
                // End of file: an unterminated last line is dropped (only complete lines count).
                Ok(0) => {
                    end(None);
                    return file;
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // Not expected of a blocking descriptor; wait as a non-blocking reader would.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let mut fds = [nix::poll::PollFd::new(file.as_fd(), nix::poll::PollFlags::POLLIN)];
                    let _ = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(STOP_POLL));
                    continue;
                }
                Err(e) => {
                    end(Some(LineError::Io(e)));
                    return file;
                }
            };
            let total = self.output_bytes.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
            if !over_limit && self.max_output_bytes.is_some_and(|limit| total > limit) {
                over_limit = true;
                events.try_send(StdoutEvent::OverOutputLimit);
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

/// How long a reader thread with nothing to read waits for another bot before it ends.
const IDLE_THREAD_WAIT: Duration = Duration::from_secs(5);

/// Reader threads waiting for another bot's stdout: a thread is kept for the next bot when its
/// bot's pump has finished (a tournament starts two bots a game), so that a bot costs no
/// thread creation, no new stack or malloc arena and no new read buffer.
static IDLE_THREADS: Mutex<Vec<IdleThread>> = Mutex::new(Vec::new());

/// Tells idle threads apart.
static NEXT_IDLE: AtomicU64 = AtomicU64::new(0);

/// An idle reader thread: where to send it the next bot's reader.
struct IdleThread {
    id: u64,
    next: std::sync::mpsc::SyncSender<StdoutReader>,
}

/// A reader thread: reads one bot's stdout, then waits for the next bot while one comes within
/// [`IDLE_THREAD_WAIT`].
fn reader_thread(first: StdoutReader) {
    let mut chunk = vec![0u8; CHUNK];
    let mut reader = first;
    loop {
        reader.run(&mut chunk);
        let Some(next) = next_reader() else { return };
        reader = next;
    }
}

/// Waits as an idle thread for another bot's reader; `None` after [`IDLE_THREAD_WAIT`].
fn next_reader() -> Option<StdoutReader> {
    let id = NEXT_IDLE.fetch_add(1, Ordering::Relaxed);
    // Room for one: `start` never blocks on it.
    let (next, incoming) = std::sync::mpsc::sync_channel(1);
    lock(&IDLE_THREADS).push(IdleThread { id, next });
    if let Ok(reader) = incoming.recv_timeout(IDLE_THREAD_WAIT) {
        return Some(reader);
    }
    let mut idle = lock(&IDLE_THREADS);
    if let Some(at) = idle.iter().position(|thread| thread.id == id) {
        idle.swap_remove(at);
        return None;
    }
    drop(idle);
    // A `start` took this thread just as it timed out: its reader is on the way.
    incoming.recv().ok()
}

/// Clears `O_NONBLOCK` on the pipe's (unshared) file description.
fn set_blocking(file: &std::fs::File) -> nix::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = OFlag::from_bits_truncate(fcntl(file, FcntlArg::F_GETFL)?);
    if flags.contains(OFlag::O_NONBLOCK) {
        fcntl(file, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    /// A reader thread on a pipe whose write end the test holds (as an escaped process would).
    fn reader() -> (std::io::PipeWriter, mpsc::Receiver<TimedLine>, EventReceiver) {
        let (read_end, write_end) = std::io::pipe().expect("a pipe");
        let (lines, received) = mpsc::channel(LINE_CHANNEL_CAPACITY);
        let (events, event_receiver) = StdoutReader::event_channel();
        StdoutReader {
            pipe: OwnedFd::from(read_end),
            outlet: LineOutlet::new(lines),
            events,
            output_bytes: Arc::new(AtomicU64::new(0)),
            max_output_bytes: None,
            max_line: 1000,
        }
        .start()
        .expect("a thread");
        (write_end, received, event_receiver)
    }

    /// Whether the reader has closed its end within about two seconds (seen without writing:
    /// a write would wake a blocked reader by itself).
    fn read_end_closes(write_end: &std::io::PipeWriter) -> bool {
        let mut fds = [nix::poll::PollFd::new(write_end.as_fd(), nix::poll::PollFlags::empty())];
        let ready = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(2000u16));
        ready == Ok(1) && fds[0].revents().is_some_and(|r| r.contains(nix::poll::PollFlags::POLLERR))
    }

    #[test]
    fn lines_are_delivered_stamped_when_they_are_read() {
        let (mut write_end, mut lines, _events) = reader();
        let before = Instant::now();
        write_end.write_all(b"one\ntwo\n").expect("written");
        let (line, arrived) = lines.blocking_recv().expect("a line");
        assert_eq!(line, "one");
        assert!(arrived >= before);
        assert_eq!(lines.blocking_recv().expect("a line").0, "two");
    }

    #[test]
    fn a_reader_blocked_on_a_silent_pipe_ends_when_the_pump_finishes() {
        let (write_end, lines, events) = reader();
        // Let the thread block in its read, then the pump finishes while the pipe stays open.
        std::thread::sleep(Duration::from_millis(50));
        drop(events);
        assert!(read_end_closes(&write_end), "the reader thread still holds the pipe");
        drop(lines);
    }

    #[test]
    fn a_reader_whose_lines_are_no_longer_wanted_ends_when_the_pump_finishes() {
        let (mut write_end, lines, events) = reader();
        drop(lines);
        write_end.write_all(b"unwanted\n").expect("written");
        std::thread::sleep(Duration::from_millis(50));
        drop(events);
        assert!(read_end_closes(&write_end), "the reader thread still holds the pipe");
    }
}

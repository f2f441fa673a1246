//! What can go wrong with a running bot ([`BotFault`]), how a bot ended ([`ExitReport`]),
//! and why a bot could not be started ([`SpawnError`]).

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use nix::sys::signal::Signal;

/// Who ended the bot's main process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EndedBy {
    /// It exited (or crashed) by itself; the referee had sent no signal.
    #[default]
    Itself,
    /// It ended after the referee sent SIGTERM.
    Terminate,
    /// It ended after the referee sent SIGKILL (on shutdown, or because it broke a limit).
    Kill,
}

/// How a bot's main process ended.
///
/// `Display` gives `exit code 3` or `killed by signal 9 (SIGKILL)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExitReport {
    /// The exit code, if it exited normally.
    pub code: Option<i32>,
    /// The signal that ended it, if a signal did.
    pub signal: Option<i32>,
    /// Whether it dumped core (only with `signal`).
    pub core_dumped: bool,
    /// Whether the referee's signals ended it.
    pub ended_by: EndedBy,
    /// CPU time (user + system) of the whole process tree when it ended, if measurable.
    pub cpu_time: Option<Duration>,
}

impl ExitReport {
    /// A report from a wait status.
    #[must_use]
    pub fn from_status(status: std::process::ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        Self {
            code: status.code(),
            signal: status.signal(),
            core_dumped: status.core_dumped(),
            ended_by: EndedBy::Itself,
            cpu_time: None,
        }
    }

    /// Whether it exited by itself with code 0.
    #[must_use]
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// The conventional name of a signal number (`SIGKILL`), or `None` for an unknown number.
#[must_use]
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Signal::try_from(signal).ok().map(Signal::as_str)
}

impl fmt::Display for ExitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exit code {code}"),
            (None, Some(signal)) => {
                write!(f, "killed by signal {signal}")?;
                if let Some(name) = signal_name(signal) {
                    write!(f, " ({name})")?;
                }
                if self.core_dumped {
                    write!(f, ", core dumped")?;
                }
                Ok(())
            }
            (None, None) => write!(f, "did not exit even after SIGKILL"),
        }
    }
}

/// Why a bot failed to answer: the error of [`send_line`](super::BotProcess::send_line) and
/// [`recv_line`](super::BotProcess::recv_line).
///
/// Every fault except [`BotFault::Timeout`] is final: once `recv_line` has returned it, it
/// returns it again (a [`BotFault::StdoutClosed`] becomes [`BotFault::Exited`] once the bot has
/// exited).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotFault {
    /// The deadline passed before a complete line arrived (or before the write finished).
    #[error("the bot did not answer before the deadline")]
    Timeout,
    /// A stdout line was longer than the limit.
    #[error("the bot wrote a line longer than {limit} bytes")]
    LineTooLong {
        /// The longest allowed line, in bytes, without the `'\n'`.
        limit: usize,
    },
    /// A stdout line was not valid UTF-8.
    #[error("the bot wrote a line that is not valid UTF-8")]
    InvalidUtf8,
    /// The bot's main process ended.
    #[error("the bot ended: {0}")]
    Exited(ExitReport),
    /// The bot closed its stdout (end of file) but is still running.
    #[error("the bot closed its standard output but is still running")]
    StdoutClosed,
    /// The bot wrote more bytes to stdout and stderr together than allowed; it was killed.
    #[error("the bot wrote more than {limit} bytes of output and was killed")]
    OutputLimit {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The bot used more memory than allowed; it was killed.
    #[error("the bot exceeded its memory limit and was killed")]
    MemoryLimit,
    /// The bot used more CPU time than allowed; it was killed.
    #[error("the bot exceeded its CPU time limit and was killed")]
    CpuLimit,
    /// The bot ran more processes than allowed; it was killed.
    #[error("the bot ran more processes than allowed and was killed")]
    ProcessLimit,
    /// An I/O error on the pipes to the bot (or the bot closed its stdin while running).
    #[error("I/O error talking to the bot: {0}")]
    Io(String),
}

/// Why a bot could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The program was not found (on `PATH`, or at the given path).
    #[error("bot program `{program}` not found{}", searched_in(.searched))]
    NotFound {
        /// The program as given.
        program: String,
        /// Where it was looked for.
        searched: Vec<PathBuf>,
    },
    /// The program exists but is not an executable file.
    #[error("bot program `{}` is not an executable file", .path.display())]
    NotExecutable {
        /// The resolved path.
        path: PathBuf,
    },
    /// The working directory does not exist or is not a directory.
    #[error("bot working directory `{}` is not a directory", .dir.display())]
    BadDirectory {
        /// The directory as given.
        dir: PathBuf,
    },
    /// The bot cannot run under the isolation asked for.
    #[error("bot program `{program}` cannot be isolated: {reason}")]
    Isolation {
        /// The program as given.
        program: String,
        /// Why.
        reason: String,
    },
    /// The operating system refused to start the process.
    #[error("could not start bot program `{program}`: {source}")]
    Spawn {
        /// The program as given.
        program: String,
        /// The error from the operating system.
        source: std::io::Error,
    },
}

impl SpawnError {
    /// Whether the bot could not be started because of the referee or the machine, not the
    /// bot: no file descriptors (`EMFILE`, `ENFILE`), no memory (`ENOMEM`), no disk (`ENOSPC`,
    /// `EDQUOT`), no process (`EAGAIN` on fork), no buffers (`ENOBUFS`), or a sandbox this
    /// machine cannot set up. A missing or unusable program or directory is the bot's.
    /// Callers must not charge such a failure to the bot (a game is aborted, not lost).
    #[must_use]
    pub fn is_referee_fault(&self) -> bool {
        match self {
            SpawnError::NotFound { .. }
            | SpawnError::NotExecutable { .. }
            | SpawnError::BadDirectory { .. } => false,
            SpawnError::Isolation { .. } => true,
            SpawnError::Spawn { source, .. } => is_resource_shortage(source),
        }
    }
}

/// Whether an OS error says the machine or the process ran out of something (descriptors,
/// memory, disk, processes), including an errno the spawn server reported.
#[must_use]
pub fn is_resource_shortage(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    let errno = error
        .raw_os_error()
        .or_else(|| error.get_ref().and_then(|e| e.downcast_ref::<WordedOsError>()).map(|r| r.errno))
        .filter(|&errno| errno != 0);
    if let Some(errno) = errno {
        return matches!(
            nix::errno::Errno::from_raw(errno),
            nix::errno::Errno::EMFILE
                | nix::errno::Errno::ENFILE
                | nix::errno::Errno::ENOMEM
                | nix::errno::Errno::ENOSPC
                | nix::errno::Errno::EDQUOT
                | nix::errno::Errno::EAGAIN
                | nix::errno::Errno::ENOBUFS
        );
    }
    matches!(
        error.kind(),
        ErrorKind::OutOfMemory | ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::WouldBlock
    )
}

/// An OS error worded with its context (or reported by the spawn server): its errno, kept so
/// that [`is_resource_shortage`] can tell, and its message, shown.
#[derive(Debug)]
pub(crate) struct WordedOsError {
    /// The errno (0 when unknown).
    pub(crate) errno: i32,
    /// The message.
    pub(crate) message: String,
}

impl fmt::Display for WordedOsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WordedOsError {}

fn searched_in(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    format!(" (searched {})", shown.join(":"))
}

#[cfg(test)]
mod shortage_tests {
    use super::*;
    use nix::errno::Errno;

    #[test]
    fn running_out_of_descriptors_memory_or_disk_is_the_referees_fault() {
        for errno in [Errno::EMFILE, Errno::ENFILE, Errno::ENOMEM, Errno::ENOSPC, Errno::EAGAIN] {
            let source = std::io::Error::from_raw_os_error(errno as i32);
            assert!(is_resource_shortage(&source), "{source}");
            let spawn = SpawnError::Spawn { program: "bot".into(), source };
            assert!(spawn.is_referee_fault(), "{spawn}");
        }
        // As the spawn server reports it: the errno travels beside the message.
        let worded = WordedOsError { errno: Errno::EMFILE as i32, message: "fork: too many".into() };
        let source = std::io::Error::other(worded);
        assert!(is_resource_shortage(&source));
    }

    #[test]
    fn a_missing_or_broken_program_is_the_bots_fault() {
        let source = std::io::Error::from_raw_os_error(Errno::ENOENT as i32);
        assert!(!SpawnError::Spawn { program: "bot".into(), source }.is_referee_fault());
        let source = std::io::Error::from_raw_os_error(Errno::EACCES as i32);
        assert!(!SpawnError::Spawn { program: "bot".into(), source }.is_referee_fault());
        assert!(!SpawnError::NotFound { program: "bot".into(), searched: Vec::new() }.is_referee_fault());
        assert!(!SpawnError::NotExecutable { path: "bot".into() }.is_referee_fault());
    }
}

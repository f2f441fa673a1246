//! Why a `rules` subcommand failed, and the exit code for it.

use std::io::{self, Write};

use crate::exit;

/// A failed `rules` subcommand. The messages are complete sentences for
/// stderr, without the leading `error: `.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A move that is not legal where it was played: exit code 1.
    Illegal(String),
    /// Malformed input (position, move, depth, variant, line): exit code 2.
    Malformed(String),
    /// Reading stdin failed: exit code 3.
    Input(io::Error),
    /// Writing stdout failed: exit code 3, except a closed pipe, which ends
    /// the command quietly with exit code 0 (the reader wanted no more).
    Output(io::Error),
}

impl Failure {
    /// Prints the message to stderr and returns the exit code.
    pub(crate) fn report(self) -> u8 {
        let (code, message) = match self {
            Failure::Illegal(message) => (exit::REJECTED, message),
            Failure::Malformed(message) => (exit::MALFORMED, message),
            Failure::Input(e) => (exit::INTERNAL, format!("could not read stdin: {e}")),
            Failure::Output(e) if e.kind() == io::ErrorKind::BrokenPipe => return exit::SUCCESS,
            Failure::Output(e) => (exit::INTERNAL, format!("could not write stdout: {e}")),
        };
        // If stderr itself is gone there is nobody left to tell.
        let _ = writeln!(io::stderr().lock(), "error: {message}");
        code
    }

    /// The same failure with `prefix` in front of its message (e.g. `line 3: `).
    pub(crate) fn prefixed(self, prefix: &str) -> Failure {
        match self {
            Failure::Illegal(message) => Failure::Illegal(format!("{prefix}{message}")),
            Failure::Malformed(message) => Failure::Malformed(format!("{prefix}{message}")),
            other => other,
        }
    }
}

//! Everything the subcommands print on stdout goes through here, so that a closed pipe
//! (`bao-referee check --json BOT | head -1`) ends the output quietly instead of panicking
//! ("failed printing to stdout: Broken pipe", which is what `println!` does).
//!
//! The choice: Rust starts every program with SIGPIPE ignored, so a write to a closed pipe
//! returns `EPIPE`. Resetting SIGPIPE to its default would need unsafe code (denied in this
//! workspace) and would kill the referee in the middle of a game, its bots and log left
//! behind. Instead, once stdout is found closed, further output is dropped silently and the
//! command finishes its work (bots ended, logs written) and exits with its usual code. Any
//! other write error (a full disk: `> /dev/full`) is reported once on stderr and turns a
//! successful exit into exit 3 ([`failed`]).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);
static FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to stdout and flushes; see the module documentation for errors.
pub fn text(text: &str) {
    if CLOSED.load(Ordering::Relaxed) || FAILED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => CLOSED.store(true, Ordering::Relaxed),
        Err(e) => {
            FAILED.store(true, Ordering::Relaxed);
            let _ = writeln!(std::io::stderr().lock(), "error: cannot write to standard output: {e}");
        }
    }
}

/// Writes `line` and a newline to stdout.
pub fn line(line: &str) {
    text(&format!("{line}\n"));
}

/// Whether a write to stdout failed for a reason other than a closed pipe.
#[must_use]
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// `println!` through [`line`].
macro_rules! outln {
    () => {
        $crate::out::line("")
    };
    ($($arg:tt)*) => {
        $crate::out::line(&format!($($arg)*))
    };
}
pub(crate) use outln;

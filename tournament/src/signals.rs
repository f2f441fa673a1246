//! SIGINT (Ctrl-C), SIGTERM and SIGHUP, the same way for every long-running command: the
//! referee's `match`, `tournament`, `check` and `serve`, and the competition server's binary.
//! This is the one place the process's stop signals are caught.
//!
//! Any of the three stops the command at once: the running games end as `aborted` (their logs
//! complete up to that point, a tournament journals them as aborted and plays them again on
//! resume; the server records them aborted), every bot's whole process tree is ended, and the
//! command exits with 130 (README, "Exit codes"). Further signals while it stops are ignored:
//! stopping takes at most the bots' shutdown grace, and the handlers stay installed so that a
//! second Ctrl-C cannot kill the process half-way and leave bots behind.
//!
//! It lives in this crate because every long-running command already depends on it (the
//! referee for tournaments, the server for the game executor): a crate of its own would add a
//! crate for sixty lines.

use std::sync::OnceLock;

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio_util::sync::CancellationToken;

/// The signal that stopped this process, once one has.
static RECEIVED: OnceLock<&'static str> = OnceLock::new();

/// The name of the signal that stopped the command (`SIGTERM`), if one did.
#[must_use]
pub fn received() -> Option<&'static str> {
    RECEIVED.get().copied()
}

/// Installs the handlers on the current tokio runtime: the first SIGINT, SIGTERM or SIGHUP
/// records its name (see [`received`]) and cancels `stop`.
///
/// # Errors
/// When a handler cannot be installed.
pub fn install(stop: CancellationToken) -> std::io::Result<()> {
    let mut handlers: Vec<(Signal, &'static str)> = vec![
        (signal(SignalKind::interrupt())?, "SIGINT"),
        (signal(SignalKind::terminate())?, "SIGTERM"),
        (signal(SignalKind::hangup())?, "SIGHUP"),
    ];
    tokio::spawn(async move {
        let first = {
            let waits = handlers.iter_mut().map(|(handler, name)| {
                let name = *name;
                Box::pin(async move {
                    handler.recv().await;
                    name
                })
            });
            futures_util::future::select_all(waits).await.0
        };
        let _ = RECEIVED.set(first);
        stop.cancel();
        // Keep the handlers (and so the signals caught) until the process exits.
        std::future::pending::<()>().await;
        drop(handlers);
    });
    Ok(())
}

/// What the signals have asked of a tournament's run so far.
#[derive(Debug, Clone, Default)]
pub struct StopTokens {
    /// Start no new game.
    pub no_new_games: CancellationToken,
    /// Abort the running games.
    pub abort_running: CancellationToken,
    /// Set when the stop came from a signal (not from an SPRT decision or an error).
    pub interrupted: CancellationToken,
}

impl StopTokens {
    /// Stops and aborts everything (a signal or the run's own failure).
    pub fn abort(&self) {
        self.no_new_games.cancel();
        self.abort_running.cancel();
    }
}

/// [`install`] for a tournament's run: the first signal starts no new game, aborts the
/// running ones (each ends, its bots are stopped, and it is journaled as `aborted`: not
/// counted, played again on resume) and marks the stop as interrupted.
///
/// # Errors
/// When the signal handlers cannot be installed.
pub fn install_stop_tokens(tokens: &StopTokens) -> std::io::Result<()> {
    let received = CancellationToken::new();
    install(received.clone())?;
    let tokens = tokens.clone();
    tokio::spawn(async move {
        received.cancelled().await;
        tokens.abort();
        tokens.interrupted.cancel();
    });
    Ok(())
}

/// A message for stderr: what stopped the command.
#[must_use]
pub fn stopped_message() -> String {
    match received() {
        Some(name) => format!("interrupted by {name}: the running games were aborted and their bots ended"),
        None => "interrupted".to_owned(),
    }
}

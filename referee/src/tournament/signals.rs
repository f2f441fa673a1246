//! Ctrl-C and SIGTERM during a tournament.
//!
//! The first Ctrl-C (SIGINT) stops the tournament gracefully: no new game
//! starts, running games play to their end and count. A second Ctrl-C aborts
//! the running games: each ends at once, its bots are stopped, and it is
//! journaled as `aborted` (not counted; played again on resume). SIGTERM
//! (what Kubernetes and Slurm send) does both at once.

use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

/// What the signals have asked for so far.
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
    /// Stops and aborts everything (a signal or the referee's own failure).
    pub fn abort(&self) {
        self.no_new_games.cancel();
        self.abort_running.cancel();
    }
}

/// Listens for SIGINT and SIGTERM on the current runtime and cancels the tokens.
///
/// # Errors
/// When the signal handlers cannot be installed.
pub fn install(tokens: &StopTokens) -> std::io::Result<()> {
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let tokens = tokens.clone();
    tokio::spawn(async move {
        let mut interrupts = 0u32;
        loop {
            tokio::select! {
                Some(()) = interrupt.recv() => {
                    interrupts += 1;
                    tokens.interrupted.cancel();
                    tokens.no_new_games.cancel();
                    if interrupts >= 2 {
                        tokens.abort_running.cancel();
                    }
                }
                Some(()) = terminate.recv() => {
                    tokens.interrupted.cancel();
                    tokens.abort();
                }
                else => break,
            }
        }
    });
    Ok(())
}

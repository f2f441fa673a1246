//! SIGINT, SIGTERM and SIGHUP during a tournament ([`crate::signals`], the same for every
//! subcommand): no new game starts, the running games are aborted at once (each ends, its
//! bots are stopped, and it is journaled as `aborted`: not counted, played again on resume).

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

/// Listens for SIGINT, SIGTERM and SIGHUP on the current runtime: the first one aborts
/// everything and marks the stop as interrupted.
///
/// # Errors
/// When the signal handlers cannot be installed.
pub fn install(tokens: &StopTokens) -> std::io::Result<()> {
    let received = CancellationToken::new();
    crate::signals::install(received.clone())?;
    let tokens = tokens.clone();
    tokio::spawn(async move {
        received.cancelled().await;
        tokens.abort();
        tokens.interrupted.cancel();
    });
    Ok(())
}

//! SIGINT (Ctrl-C), SIGTERM and SIGHUP, the same way for every subcommand that runs bots
//! (`match`, `tournament`, `check`).
//!
//! Any of the three stops the command at once: the running games end as `aborted` (their logs
//! complete up to that point, a tournament journals them as aborted and plays them again on
//! resume), every bot's whole process tree is ended, and the command exits with
//! [`crate::exit::INTERRUPTED`] (130). Further signals while it stops are ignored: stopping
//! takes at most the bots' shutdown grace, and the handlers stay installed so that a second
//! Ctrl-C cannot kill the referee half-way and leave bots behind.

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

/// A message for stderr: what stopped the command.
#[must_use]
pub fn stopped_message() -> String {
    match received() {
        Some(name) => format!("interrupted by {name}: the running games were aborted and their bots ended"),
        None => "interrupted".to_owned(),
    }
}

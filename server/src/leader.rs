//! Which server leads the arena's background work — the builds, the matchmaker (and so every
//! ladder game) and the rating rounds — when several `serve` processes share one PostgreSQL
//! database behind a load balancer. Every server answers HTTP; exactly one leads.
//!
//! The leader holds a PostgreSQL session advisory lock on a connection of its own. The lock
//! ends with that connection: when the leader dies (or its connection does), another server
//! takes the lock within [`POLL`]. A leader that finds its connection gone steps down in place
//! (`serve.rs`: its term's builds, matchmaker and rating rounds stop, its own games are
//! aborted) rather than go on beside a new leader, and tries for the lead again as a follower.
//! A SQLite arena has one server, which leads at once.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::db::{Conn, Location};
use crate::error::ServerError;

/// How often a follower tries to take the lead, and a leader checks that it still holds it.
pub const POLL: Duration = Duration::from_secs(2);

/// The advisory lock (a PostgreSQL session lock on this key) that makes a server the leader.
pub const LEADER_LOCK: i64 = 0x0042_616f_4c64;

/// This server leads: on PostgreSQL, the connection that holds the lock.
pub struct Leadership {
    conn: Option<Arc<Mutex<Conn>>>,
}

/// Takes the lead if it is free: at once on SQLite; on PostgreSQL if no other server holds it.
pub async fn try_acquire(location: &Location) -> Result<Option<Leadership>, ServerError> {
    if let Location::Sqlite(_) = location {
        return Ok(Some(Leadership { conn: None }));
    }
    let location = location.clone();
    blocking(move || {
        let conn = location.connect(false)?;
        let got: bool = conn.query_row("SELECT pg_try_advisory_lock(?1)", [LEADER_LOCK], |r| r.get(0))?;
        Ok(got.then(|| Leadership { conn: Some(Arc::new(Mutex::new(conn))) }))
    })
    .await
}

/// Waits until this server leads, trying every [`POLL`]; `None` if `shutdown` comes first.
/// A database that cannot be reached is tried again at the next poll.
pub async fn acquire(location: &Location, shutdown: &CancellationToken) -> Option<Leadership> {
    loop {
        match try_acquire(location).await {
            Ok(Some(l)) => return Some(l),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "cannot ask the database who leads; trying again"),
        }
        tokio::select! {
            () = shutdown.cancelled() => return None,
            () = tokio::time::sleep(POLL) => {}
        }
    }
}

impl Leadership {
    /// Resolves when this server no longer leads (its lock's connection failed a check),
    /// or never on SQLite. Checks every [`POLL`].
    pub async fn lost(&self) {
        let Some(conn) = &self.conn else { return std::future::pending().await };
        loop {
            tokio::time::sleep(POLL).await;
            let conn = conn.clone();
            let alive = blocking(move || {
                let c = conn
                    .lock()
                    .map_err(|_| ServerError::Internal("leader connection lock poisoned".into()))?;
                Ok(!c.is_broken() && c.execute_batch("SELECT 1").is_ok())
            })
            .await;
            if !matches!(alive, Ok(true)) {
                return;
            }
        }
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ServerError> + Send + 'static,
) -> Result<T, ServerError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ServerError::Internal(format!("leader task failed: {e}")))?
}

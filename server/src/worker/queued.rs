//! The leader's side of `games.executor = "workers"`: instead of playing a game in its engine,
//! the scheduler stores both bots' built folders (once per version), records the game
//! `running` with its task in the queue (one transaction), and waits until a worker has
//! recorded it. Pair and slot accounting stay the scheduler's own: a pair holds its versions
//! until both of its games are recorded.

use std::time::Duration;

use crate::arena::Arena;
use crate::db::now_ms;
use crate::domain::{GameState, Purpose};
use crate::error::ServerError;
use crate::games::{self, NewGame};
use crate::versions::Version;

/// How often the scheduler looks whether a queued game is recorded.
const POLL: Duration = Duration::from_millis(250);

/// Writes the leader's `arena.toml` for the workers, who play by it.
pub async fn publish_settings(arena: &Arena) -> Result<(), ServerError> {
    let path = arena.dir.join("arena.toml");
    let text = tokio::fs::read_to_string(&path)
        .await
        .map_err(|e| ServerError::io(format!("cannot read {}", path.display()), e))?;
    arena
        .db
        .write(move |c| {
            c.execute(
                "INSERT INTO worker_settings (id, arena_toml, updated_at) VALUES (1, ?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET arena_toml = excluded.arena_toml, updated_at = excluded.updated_at",
                crate::db::params![text, now_ms()],
            )?;
            Ok(())
        })
        .await
}

/// The arena's `arena.toml` as the leader published it, if it did.
pub fn settings(conn: &crate::db::Conn) -> Result<Option<String>, ServerError> {
    use crate::db::OptionalExtension;
    Ok(conn.query_row("SELECT arena_toml FROM worker_settings WHERE id = 1", [], |r| r.get(0)).optional()?)
}

/// Has one game played by a worker: true when it is recorded finished, false when it was
/// aborted or this server is stopping (the game then stays with the workers).
pub async fn play_one(
    arena: &Arena,
    south: &Version,
    north: &Version,
    pair_key: &str,
    seed: u32,
    purpose: Purpose,
) -> Result<bool, ServerError> {
    for v in [south, north] {
        super::artifacts::ensure(arena, v.id, arena.version_dir(v.bot_id, v.number)).await?;
    }
    let new = NewGame {
        south_id: south.id,
        north_id: north.id,
        pair_key: pair_key.to_owned(),
        opening_seed: i64::from(seed),
        purpose,
    };
    let id = arena.db.write(move |c| games::insert_queued(c, &new, now_ms())).await?;
    arena.metrics.games_running.inc();
    arena.leaderboard.changed();
    let state = loop {
        tokio::select! {
            () = arena.shutdown.cancelled() => break None,
            () = tokio::time::sleep(POLL) => {}
        }
        match arena.db.read(move |c| games::state(c, id)).await {
            Ok(Some(GameState::Running)) => {}
            Ok(other) => break other,
            // The database away for a moment: the game is the workers' meanwhile.
            Err(e) => tracing::warn!(game = id.get(), error = %e, "cannot read a queued game's state"),
        }
    };
    arena.metrics.games_running.dec();
    arena.leaderboard.changed();
    match state {
        Some(GameState::Finished) => {
            arena.metrics.games_finished.inc();
            Ok(true)
        }
        Some(GameState::Aborted) => {
            arena.metrics.games_aborted.inc();
            Ok(false)
        }
        _ => Ok(false),
    }
}

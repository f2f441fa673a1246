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

/// How often the scheduler looks whether a game queued longer than
/// `games.unclaimable_abort_secs` can still be claimed by a live worker.
const UNCLAIMABLE_LOOK: Duration = Duration::from_secs(2);

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

/// Aborts (not counted) the queued game `id`, queued at `queued_at` (this server's clock), if
/// nobody holds it and no live worker can claim it ([`super::reach`]), once it has waited
/// `wait_secs`: a look outside the write lock first, then the abort under it.
async fn abort_if_unclaimable(
    arena: &Arena,
    id: crate::domain::GameId,
    queued_at: i64,
    wait_secs: u64,
) -> Result<(), ServerError> {
    let leader = super::artifacts::arch();
    // Queued at this time or before: it has waited long enough.
    let queued_by =
        now_ms().saturating_sub(i64::try_from(wait_secs.saturating_mul(1000)).unwrap_or(i64::MAX));
    if queued_by < queued_at
        || !arena.db.read(move |c| super::reach::is_unclaimable(c, id, queued_by, leader)).await?
    {
        return Ok(());
    }
    let waited = u64::try_from((now_ms() - queued_at) / 1000).unwrap_or(wait_secs);
    if arena.db.write(move |c| super::reach::abort_if_unclaimable(c, id, queued_by, leader, waited)).await? {
        tracing::warn!(
            game = id.get(),
            waited_secs = waited,
            "no live worker can play a queued game: aborted"
        );
    }
    Ok(())
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
    let queued_at = now_ms();
    let id = arena.db.write(move |c| games::insert_queued(c, &new, queued_at)).await?;
    arena.metrics.games_running.inc();
    arena.leaderboard.changed();
    let wait_secs = arena.config.games.unclaimable_abort_secs;
    let wait = Duration::from_secs(wait_secs);
    let mut next_look = tokio::time::Instant::now() + wait;
    let state = loop {
        tokio::select! {
            () = arena.shutdown.cancelled() => break None,
            () = tokio::time::sleep(POLL) => {}
        }
        if tokio::time::Instant::now() >= next_look {
            next_look = tokio::time::Instant::now() + UNCLAIMABLE_LOOK;
            if let Err(e) = abort_if_unclaimable(arena, id, queued_at, wait_secs).await {
                tracing::warn!(game = id.get(), error = %e, "cannot look whether a queued game can be claimed");
            }
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

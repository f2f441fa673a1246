//! The rating history of each version, kept bounded: every point of the
//! newest [`RECENT`] is kept, and whenever a version's history passes
//! [`MAX_POINTS`] every second point older than those is dropped. The older a
//! stretch of history, the more often it has been halved, so the history of a
//! version that plays for months stays under [`MAX_POINTS`] rows and still
//! spans its whole life. The bot page plots the newest points.

use crate::db::{Conn, params};

use crate::domain::{BotId, VersionId};
use crate::error::ServerError;

/// Points of a version's history always kept, the newest.
pub const RECENT: i64 = 600;

/// The most points of one version's history.
pub const MAX_POINTS: i64 = 1000;

/// Adds a point to a version's history and thins it if it has grown past [`MAX_POINTS`].
pub fn add(conn: &Conn, version_id: VersionId, at: i64, elo: f64, games: i64) -> Result<(), ServerError> {
    conn.execute(
        "INSERT INTO rating_history (version_id, at, elo, games) VALUES (?1, ?2, ?3, ?4)",
        params![version_id, at, elo, games],
    )?;
    let count: i64 =
        conn.query_row("SELECT count(*) FROM rating_history WHERE version_id = ?1", [version_id], |r| {
            r.get(0)
        })?;
    if count > MAX_POINTS {
        thin(conn, version_id)?;
    }
    Ok(())
}

/// Drops every second point older than the newest [`RECENT`] of a version.
fn thin(conn: &Conn, version_id: VersionId) -> Result<usize, ServerError> {
    Ok(conn.execute(
        "DELETE FROM rating_history WHERE rowid IN (
           SELECT rowid FROM (
             SELECT rowid, row_number() OVER (ORDER BY at DESC, rowid DESC) AS n
             FROM rating_history WHERE version_id = ?1) AS numbered
           WHERE n > ?2 AND n % 2 = 0)",
        params![version_id, RECENT],
    )?)
}

/// The newest `limit` points of every version of a bot, oldest first: (time, Elo).
pub fn newest_of_bot(conn: &Conn, bot_id: BotId, limit: i64) -> Result<Vec<(i64, f64)>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT at, elo FROM (
           SELECT h.at, h.elo, h.rowid AS r FROM rating_history h JOIN versions v ON v.id = h.version_id
           WHERE v.bot_id = ?1 ORDER BY h.at DESC, h.rowid DESC LIMIT ?2) AS newest
         ORDER BY at, r",
    )?;
    let rows = stmt.query_map(params![bot_id, limit], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_stays_bounded_spans_its_life_and_the_plot_gets_the_newest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut conn = crate::db::open(&dir.path().join("a.sqlite3")).expect("db");
        conn.execute_batch(
            "INSERT INTO users (id, name, created_at) VALUES (1, 'u', 0);
             INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, 'b', 1, 0);
             INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
             VALUES (1, 1, 1, 'python', 'a.py', 1, 'active', 0, 0);",
        )
        .expect("rows");
        let total = 20_000;
        // One transaction (the recomputation adds its points in one, too).
        let tx = conn.transaction().expect("tx");
        for i in 0..total {
            add(&tx, VersionId::new(1), i, 1500.0 + i as f64, i).expect("add");
        }
        tx.commit().expect("commit");
        let count: i64 =
            conn.query_row("SELECT count(*) FROM rating_history", [], |r| r.get(0)).expect("count");
        assert!(count <= MAX_POINTS && count > RECENT, "{count} points kept of {total}");
        let first: i64 = conn.query_row("SELECT min(at) FROM rating_history", [], |r| r.get(0)).expect("min");
        assert!(first < 100, "the oldest stretch is still there (first point at {first})");
        let plot = newest_of_bot(&conn, BotId::new(1), 500).expect("plot");
        assert_eq!(plot.len(), 500);
        assert_eq!(plot.last().map(|p| p.0), Some(total - 1), "the plot ends with the newest point");
        assert!(plot.windows(2).all(|w| w[0].0 < w[1].0), "oldest first");
        assert_eq!(plot[0].0, total - 500, "the newest 500 are all there");
    }
}

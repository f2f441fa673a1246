//! A bot's score against each other bot, over all its finished games (one
//! aggregate query: as many rows as opponents, however many games).

use crate::db::{Conn, params};
use serde::Serialize;

use crate::domain::{BotId, BotName, GameResult, GameState};
use crate::error::ServerError;

/// One row of a bot's head-to-head table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeadToHead {
    /// The other bot.
    pub opponent: BotName,
    /// Finished games between them.
    pub games: u32,
    /// The bot's wins.
    pub wins: u32,
    /// The bot's losses.
    pub losses: u32,
    /// Draws.
    pub draws: u32,
    /// The bot's score: (wins + draws / 2) / games.
    pub score: f64,
}

/// The head-to-head rows of a bot, by opponent name (games between its own versions left out).
pub fn of_bot(conn: &Conn, bot_id: BotId) -> Result<Vec<HeadToHead>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "WITH mine AS (SELECT id FROM versions WHERE bot_id = ?1),
         sides AS (
           SELECT g.north_id AS opp, CASE g.result WHEN ?3 THEN 1 WHEN ?4 THEN 0 ELSE 2 END AS r
           FROM games g WHERE g.state = ?2 AND g.south_id IN (SELECT id FROM mine) AND g.north_id NOT IN (SELECT id FROM mine)
           UNION ALL
           SELECT g.south_id, CASE g.result WHEN ?4 THEN 1 WHEN ?3 THEN 0 ELSE 2 END
           FROM games g WHERE g.state = ?2 AND g.north_id IN (SELECT id FROM mine) AND g.south_id NOT IN (SELECT id FROM mine))
         SELECT b.name, count(*), sum(CASE WHEN s.r = 1 THEN 1 ELSE 0 END), sum(CASE WHEN s.r = 0 THEN 1 ELSE 0 END),
                sum(CASE WHEN s.r = 2 THEN 1 ELSE 0 END)
         FROM sides s JOIN versions v ON v.id = s.opp JOIN bots b ON b.id = v.bot_id
         GROUP BY b.id ORDER BY b.name",
    )?;
    let rows =
        stmt.query_map(params![bot_id, GameState::Finished, GameResult::South, GameResult::North], |r| {
            let games: u32 = r.get(1)?;
            let (wins, losses, draws): (u32, u32, u32) = (r.get(2)?, r.get(3)?, r.get(4)?);
            Ok(HeadToHead {
                opponent: r.get(0)?,
                games,
                wins,
                losses,
                draws,
                score: (f64::from(wins) + 0.5 * f64::from(draws)) / f64::from(games.max(1)),
            })
        })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_count_every_finished_game_from_the_bots_side() {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = crate::db::open(&dir.path().join("a.sqlite3")).expect("db");
        conn.execute_batch(
            "INSERT INTO users (id, name, created_at) VALUES (1, 'u', 0);
             INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, 'me', 1, 0), (2, 'zed', 1, 0), (3, 'amy', 1, 0);
             INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
             VALUES (1, 1, 1, 'python', 'a.py', 1, 'retired', 0, 0), (2, 1, 2, 'python', 'a.py', 1, 'active', 0, 0),
                    (3, 2, 1, 'python', 'a.py', 1, 'active', 0, 0), (4, 3, 1, 'python', 'a.py', 1, 'active', 0, 0);
             INSERT INTO games (south_id, north_id, pair_key, opening_seed, purpose, state, result, reason, started_at, log_path) VALUES
               (1, 3, 'k', 0, 'ladder', 'finished', 'south', '', 0, ''),
               (3, 2, 'k', 0, 'ladder', 'finished', 'south', '', 0, ''),
               (3, 2, 'k', 0, 'ladder', 'finished', 'draw', '', 0, ''),
               (2, 3, 'k', 0, 'ladder', 'running', NULL, '', 0, ''),
               (2, 4, 'k', 0, 'ladder', 'finished', 'north', '', 0, ''),
               (1, 2, 'k', 0, 'candidate', 'finished', 'south', '', 0, '');",
        )
        .expect("rows");
        let rows = of_bot(&conn, BotId::new(1)).expect("head to head");
        let short: Vec<(&str, u32, u32, u32, u32)> =
            rows.iter().map(|h| (h.opponent.as_str(), h.games, h.wins, h.losses, h.draws)).collect();
        assert_eq!(short, vec![("amy", 1, 0, 1, 0), ("zed", 3, 1, 1, 1)]);
        assert!((rows[1].score - 0.5).abs() < 1e-9);
        let theirs = of_bot(&conn, BotId::new(2)).expect("zed's");
        assert_eq!((theirs[0].wins, theirs[0].losses, theirs[0].draws), (1, 1, 1));
    }
}

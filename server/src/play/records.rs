//! People's games in the database (`human_games`, apart from the ladder's `games`: never
//! rated), and the per-bot setting that lets people play a bot.

use crate::db::{Conn, OptionalExtension, params};
use serde::Serialize;

use crate::db::now_ms;
use crate::domain::{BotId, GameResult, VersionId};
use crate::error::ServerError;

/// A game with a person in it, to record as running.
#[derive(Debug, Clone)]
pub struct NewHumanGame {
    /// Its public id.
    pub token: String,
    /// `kiswahili` or `kujifunza`.
    pub variant: String,
    /// A rung's name, `friend` or `bot`.
    pub opponent: String,
    /// The bot's version, when the opponent is a ladder bot.
    pub version_id: Option<VersionId>,
    /// `S` or `N`: the side of the person who started the game.
    pub person_side: &'static str,
    /// `none` or `10+5`.
    pub clock: String,
    /// Where its log is written.
    pub log_path: String,
}

/// Records a game as running; returns its row id.
pub fn insert_running(conn: &Conn, g: &NewHumanGame) -> Result<i64, ServerError> {
    Ok(conn.query_row(
        "INSERT INTO human_games (token, variant, opponent, version_id, person_side, clock, state, started_at, log_path)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, ?8) RETURNING id",
        params![g.token, g.variant, g.opponent, g.version_id, g.person_side, g.clock, now_ms(), g.log_path],
        |r| r.get(0),
    )?)
}

/// How a game with people ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Played to its result.
    Finished(GameResult),
    /// Left unplayed too long (not counted).
    Abandoned,
    /// The server stopped or failed (not counted).
    Aborted,
}

/// Records the end of a running game, once.
pub fn finish(conn: &Conn, token: &str, ending: Ending, reason: &str, plies: u32) -> Result<(), ServerError> {
    let (state, result) = match ending {
        Ending::Finished(result) => ("finished", Some(result)),
        Ending::Abandoned => ("abandoned", None),
        Ending::Aborted => ("aborted", None),
    };
    conn.execute(
        "UPDATE human_games SET state = ?2, result = ?3, reason = ?4, plies = ?5, finished_at = ?6
         WHERE token = ?1 AND state = 'running'",
        params![token, state, result, reason, plies, now_ms()],
    )?;
    Ok(())
}

/// Games found running at start-up were cut by a stop: aborted (not counted). Returns how many.
pub fn abort_running(conn: &Conn) -> Result<usize, ServerError> {
    Ok(conn.execute(
        "UPDATE human_games SET state = 'aborted', reason = 'the server stopped during the game', finished_at = ?1
         WHERE state = 'running'",
        [now_ms()],
    )?)
}

/// A stored game with people, as its page and the API show it.
#[derive(Debug, Clone, Serialize)]
pub struct HumanGame {
    /// Its public id.
    pub token: String,
    /// The variant.
    pub variant: String,
    /// A rung's name, `friend` or `bot`.
    pub opponent: String,
    /// The side of the person who started it.
    pub person_side: String,
    /// The clock.
    pub clock: String,
    /// running, finished, abandoned or aborted.
    pub state: String,
    /// south, north or draw.
    pub result: Option<String>,
    /// How it ended.
    pub reason: String,
    /// Plies played.
    pub plies: i64,
    /// Where its log is.
    #[serde(skip)]
    pub log_path: String,
}

/// The game `token`.
pub fn game(conn: &Conn, token: &str) -> Result<Option<HumanGame>, ServerError> {
    Ok(conn
        .query_row(
            "SELECT token, variant, opponent, person_side, clock, state, result, reason, plies, log_path
             FROM human_games WHERE token = ?1",
            [token],
            |r| {
                Ok(HumanGame {
                    token: r.get(0)?,
                    variant: r.get(1)?,
                    opponent: r.get(2)?,
                    person_side: r.get(3)?,
                    clock: r.get(4)?,
                    state: r.get(5)?,
                    result: r.get(6)?,
                    reason: r.get(7)?,
                    plies: r.get(8)?,
                    log_path: r.get(9)?,
                })
            },
        )
        .optional()?)
}

/// A bot's finished games against people: wins, losses, draws (the bot's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ScoreAgainstPeople {
    /// Games the bot won.
    pub wins: i64,
    /// Games the bot lost.
    pub losses: i64,
    /// Draws.
    pub draws: i64,
}

/// The score of every version of `bot` against people (for the bot's page).
pub fn score_against_people(conn: &Conn, bot: BotId) -> Result<ScoreAgainstPeople, ServerError> {
    // The person sat at person_side; the bot at the other.
    Ok(conn.query_row(
        "SELECT
           coalesce(sum(CASE WHEN (result = 'south' AND person_side = 'N') OR (result = 'north' AND person_side = 'S') THEN 1 ELSE 0 END), 0),
           coalesce(sum(CASE WHEN (result = 'south' AND person_side = 'S') OR (result = 'north' AND person_side = 'N') THEN 1 ELSE 0 END), 0),
           coalesce(sum(CASE WHEN result = 'draw' THEN 1 ELSE 0 END), 0)
         FROM human_games WHERE state = 'finished'
           AND version_id IN (SELECT id FROM versions WHERE bot_id = ?1)",
        [bot],
        |r| Ok(ScoreAgainstPeople { wins: r.get(0)?, losses: r.get(1)?, draws: r.get(2)? }),
    )?)
}

/// Lets people play the bot (or not).
pub fn set_playable(conn: &Conn, bot: BotId, playable: bool) -> Result<(), ServerError> {
    conn.execute("UPDATE bots SET playable = ?2 WHERE id = ?1", params![bot, playable])?;
    Ok(())
}

/// A ladder bot people may play.
#[derive(Debug, Clone, Serialize)]
pub struct PlayableBot {
    /// The bot's name.
    pub name: String,
    /// Its active version.
    pub version_id: VersionId,
    /// Its rating, if rated.
    pub elo: Option<f64>,
}

/// The bots people may play: those whose owner allows it, with an active version.
pub fn playable_bots(conn: &Conn) -> Result<Vec<PlayableBot>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT b.name, v.id, r.elo FROM bots b JOIN versions v ON v.bot_id = b.id AND v.state = 'active'
         LEFT JOIN ratings r ON r.version_id = v.id WHERE b.playable = 1 ORDER BY b.name",
    )?;
    let rows =
        stmt.query_map([], |r| Ok(PlayableBot { name: r.get(0)?, version_id: r.get(1)?, elo: r.get(2)? }))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The active version of the bot `name` if people may play it.
pub fn playable_bot(conn: &Conn, name: &str) -> Result<Option<PlayableBot>, ServerError> {
    Ok(playable_bots(conn)?.into_iter().find(|b| b.name.eq_ignore_ascii_case(name)))
}

/// Whether people may play the bot.
pub fn is_playable(conn: &Conn, bot: BotId) -> Result<bool, ServerError> {
    Ok(conn.query_row("SELECT playable FROM bots WHERE id = ?1", [bot], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_recorded_apart_and_scored_from_the_bot_s_side() {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = crate::db::open(&dir.path().join("a.sqlite3")).expect("db");
        conn.execute_batch(
            "INSERT INTO users (id, name, created_at) VALUES (1, 'ann', 0);
             INSERT INTO bots (id, name, owner_id, created_at) VALUES (7, 'b', 1, 0);
             INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
               VALUES (70, 7, 1, 'python', 'main.py', 1, 'active', 0, 0);",
        )
        .expect("fixtures");
        assert!(!is_playable(&conn, BotId::new(7)).expect("flag"), "off by default");
        assert!(playable_bots(&conn).expect("list").is_empty());
        set_playable(&conn, BotId::new(7), true).expect("set");
        assert_eq!(playable_bot(&conn, "B").expect("one").map(|b| b.version_id), Some(VersionId::new(70)));
        for (token, side, result) in [
            ("a", "S", GameResult::South),
            ("b", "S", GameResult::North),
            ("c", "N", GameResult::North),
            ("d", "N", GameResult::Draw),
        ] {
            let g = NewHumanGame {
                token: token.into(),
                variant: "kiswahili".into(),
                opponent: "bot".into(),
                version_id: Some(VersionId::new(70)),
                person_side: side,
                clock: "none".into(),
                log_path: String::new(),
            };
            insert_running(&conn, &g).expect("insert");
            finish(&conn, token, Ending::Finished(result), "", 10).expect("finish");
        }
        let score = score_against_people(&conn, BotId::new(7)).expect("score");
        assert_eq!(score, ScoreAgainstPeople { wins: 1, losses: 2, draws: 1 });
        let ladder: i64 = conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0)).expect("count");
        assert_eq!(ladder, 0, "never in the ladder's games");
        assert_eq!(game(&conn, "a").expect("read").map(|g| g.state), Some("finished".to_owned()));
    }
}

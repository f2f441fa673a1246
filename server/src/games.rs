//! Games in the database: a game is recorded `running` before it starts and
//! `finished` (exactly once, in one statement) after its log is on disk;
//! a game found `running` at start-up was cut by a stop and becomes `aborted`.

use crate::db::{Conn, OptionalExtension, Row, params};
use bao_rules::Side;
use serde::Serialize;

use crate::db::now_ms;
use crate::domain::{
    BotId, BotName, GameChange, GameId, GameResult, GameState, Purpose, UserId, UserName, VersionId,
};
use crate::error::ServerError;

/// One side of a game.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct GameSide {
    /// The version's id.
    pub version_id: VersionId,
    /// The bot's id.
    pub bot_id: BotId,
    /// The bot's name.
    pub bot: BotName,
    /// The version's number.
    pub number: i64,
    /// The owner's name.
    pub owner: UserName,
    /// The owner's user id.
    pub owner_id: UserId,
}

/// A game, as the API and pages show it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Game {
    /// Database id.
    pub id: GameId,
    /// South (moves first).
    pub south: GameSide,
    /// North.
    pub north: GameSide,
    /// The two games of a colour-swapped pair share this key (and their opening).
    pub pair_key: String,
    /// The seed of the shared random opening.
    pub opening_seed: i64,
    /// Why it was played.
    pub purpose: Purpose,
    /// Running, finished or aborted.
    pub state: GameState,
    /// Who won (finished games).
    pub result: Option<GameResult>,
    /// How it ended.
    pub reason: String,
    /// Plies played.
    pub plies: i64,
    /// Start (Unix ms).
    pub started_at: i64,
    /// End (Unix ms).
    pub finished_at: Option<i64>,
}

const GAME_SELECT: &str = "SELECT g.id, g.pair_key, g.opening_seed, g.purpose, g.state, g.result, g.reason, g.plies,
        g.started_at, g.finished_at,
        s.id, sb.name, s.number, su.name, su.id, n.id, nb.name, n.number, nu.name, nu.id, sb.id, nb.id
     FROM games g
     JOIN versions s ON s.id = g.south_id JOIN bots sb ON sb.id = s.bot_id JOIN users su ON su.id = sb.owner_id
     JOIN versions n ON n.id = g.north_id JOIN bots nb ON nb.id = n.bot_id JOIN users nu ON nu.id = nb.owner_id";

fn game_from_row(r: &Row<'_>) -> rusqlite::Result<Game> {
    Ok(Game {
        id: r.get(0)?,
        pair_key: r.get(1)?,
        opening_seed: r.get(2)?,
        purpose: r.get(3)?,
        state: r.get(4)?,
        result: r.get(5)?,
        reason: r.get(6)?,
        plies: r.get(7)?,
        started_at: r.get(8)?,
        finished_at: r.get(9)?,
        south: GameSide {
            bot_id: r.get(20)?,
            version_id: r.get(10)?,
            bot: r.get(11)?,
            number: r.get(12)?,
            owner: r.get(13)?,
            owner_id: r.get(14)?,
        },
        north: GameSide {
            bot_id: r.get(21)?,
            version_id: r.get(15)?,
            bot: r.get(16)?,
            number: r.get(17)?,
            owner: r.get(18)?,
            owner_id: r.get(19)?,
        },
    })
}

/// A game to start.
#[derive(Debug, Clone)]
pub struct NewGame {
    /// South's version.
    pub south_id: VersionId,
    /// North's version.
    pub north_id: VersionId,
    /// The pair it belongs to.
    pub pair_key: String,
    /// The opening's seed.
    pub opening_seed: i64,
    /// Why it is played.
    pub purpose: Purpose,
}

/// Records a game as running (one transaction); returns its id. Its log goes to `log_path(id)`.
pub fn insert_running(
    conn: &mut Conn,
    g: &NewGame,
    log_path: impl Fn(GameId) -> String,
) -> Result<GameId, ServerError> {
    let tx = conn.transaction()?;
    let id: GameId = tx.query_row(
        "INSERT INTO games (south_id, north_id, pair_key, opening_seed, purpose, state, started_at, log_path)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '') RETURNING id",
        params![g.south_id, g.north_id, g.pair_key, g.opening_seed, g.purpose, GameState::Running, now_ms()],
        |r| r.get(0),
    )?;
    tx.execute("UPDATE games SET log_path = ?2 WHERE id = ?1", params![id, log_path(id)])?;
    tx.commit()?;
    Ok(id)
}

/// Records a game as running and queues it for the workers (one transaction); returns its
/// id. Its log will be in the database (`game_logs`), written by the worker that plays it.
pub fn insert_queued(conn: &mut Conn, g: &NewGame, now: i64) -> Result<GameId, ServerError> {
    let tx = conn.transaction()?;
    let id: GameId = tx.query_row(
        "INSERT INTO games (south_id, north_id, pair_key, opening_seed, purpose, state, started_at, log_path)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '') RETURNING id",
        params![g.south_id, g.north_id, g.pair_key, g.opening_seed, g.purpose, GameState::Running, now],
        |r| r.get(0),
    )?;
    crate::worker::queue::enqueue(&tx, id, now)?;
    tx.commit()?;
    Ok(id)
}

/// A game's state, if it exists.
pub fn state(conn: &Conn, id: GameId) -> Result<Option<GameState>, ServerError> {
    Ok(conn.query_row("SELECT state FROM games WHERE id = ?1", [id], |r| r.get(0)).optional()?)
}

/// Records the end of a running game, once: false if it was not running.
pub fn finish(
    conn: &Conn,
    id: GameId,
    result: GameResult,
    reason: &str,
    plies: u32,
) -> Result<bool, ServerError> {
    let change = GameChange::FINISH;
    let n = conn.execute(
        "UPDATE games SET state = ?6, result = ?2, reason = ?3, plies = ?4, finished_at = ?5
         WHERE id = ?1 AND state = ?7",
        params![id, result, reason, plies, now_ms(), change.to(), change.from()],
    )?;
    Ok(n == 1)
}

/// Records a running game as aborted (not counted).
pub fn abort(conn: &Conn, id: GameId, reason: &str) -> Result<(), ServerError> {
    let change = GameChange::ABORT;
    conn.execute(
        "UPDATE games SET state = ?4, reason = ?2, finished_at = ?3 WHERE id = ?1 AND state = ?5",
        params![id, reason, now_ms(), change.to(), change.from()],
    )?;
    Ok(())
}

/// One game.
pub fn game(conn: &Conn, id: GameId) -> Result<Option<Game>, ServerError> {
    Ok(conn.query_row(&format!("{GAME_SELECT} WHERE g.id = ?1"), [id], game_from_row).optional()?)
}

/// The log path of a game.
pub fn log_path(conn: &Conn, id: GameId) -> Result<Option<String>, ServerError> {
    Ok(conn.query_row("SELECT log_path FROM games WHERE id = ?1", [id], |r| r.get(0)).optional()?)
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    /// Only games of this bot (any version).
    pub bot_id: Option<BotId>,
    /// Only games in this state.
    pub state: Option<GameState>,
    /// At most this many, newest first.
    pub limit: u32,
    /// Only games with an id below this (paging).
    pub before: Option<GameId>,
    /// Skip this many of the newest first (the pages' page numbers).
    pub offset: u32,
}

/// The `WHERE` clause of a filter and its arguments. The SQL holds only the
/// filters given, so that SQLite can use the indexes (a bot's games through
/// its versions' ids).
fn filter_sql(f: &GameFilter) -> (String, Vec<crate::db::Value>) {
    let mut clauses: Vec<&str> = Vec::new();
    let mut args: Vec<crate::db::Value> = Vec::new();
    if let Some(bot) = f.bot_id {
        clauses.push(
            "(g.south_id IN (SELECT id FROM versions WHERE bot_id = ?) OR g.north_id IN (SELECT id FROM versions WHERE bot_id = ?))",
        );
        args.push(bot.get().into());
        args.push(bot.get().into());
    }
    if let Some(state) = f.state {
        clauses.push("g.state = ?");
        args.push(state.as_str().to_owned().into());
    }
    if let Some(before) = f.before {
        clauses.push("g.id < ?");
        args.push(before.get().into());
    }
    let filter = if clauses.is_empty() { String::new() } else { format!("WHERE {}", clauses.join(" AND ")) };
    (filter, args)
}

/// Games, newest first: at most `limit` (and never more than 1000), after skipping `offset`.
pub fn list(conn: &Conn, f: &GameFilter) -> Result<Vec<Game>, ServerError> {
    let (filter, args) = filter_sql(f);
    let sql =
        format!("{GAME_SELECT} {filter} ORDER BY g.id DESC LIMIT {} OFFSET {}", f.limit.min(1000), f.offset);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(args, game_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How many games the filter matches (its `limit` and `offset` aside).
pub fn count(conn: &Conn, f: &GameFilter) -> Result<u64, ServerError> {
    let (filter, args) = filter_sql(f);
    let sql = format!("SELECT count(*) FROM games g {filter}");
    let n: i64 = conn.prepare_cached(&sql)?.query_row(args, |r| r.get(0))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// A finished game's result, for ratings and tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// South's version.
    pub south: VersionId,
    /// North's version.
    pub north: VersionId,
    /// South's score: 1, ½ or 0.
    pub south_score: f64,
}

/// Finished games with their ids, and the smallest id of a game still running.
pub type OutcomesAfter = (Vec<(GameId, Outcome)>, Option<GameId>);

/// Finished ladder and placement games with an id above `after`, and the
/// smallest id of a game still running (all in one snapshot).
pub fn outcomes_after(conn: &mut Conn, after: GameId) -> Result<OutcomesAfter, ServerError> {
    let tx = conn.transaction()?;
    let rows = {
        let mut stmt = tx.prepare_cached(
            "SELECT id, south_id, north_id, result FROM games
             WHERE id > ?1 AND state = ?2 AND purpose != ?3 ORDER BY id",
        )?;
        let rows = stmt.query_map(params![after, GameState::Finished, Purpose::Candidate], |r| {
            let result: GameResult = r.get(3)?;
            Ok((
                r.get(0)?,
                Outcome { south: r.get(1)?, north: r.get(2)?, south_score: result.score_of(Side::South) },
            ))
        })?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    let running: Option<GameId> =
        tx.query_row("SELECT min(id) FROM games WHERE state = ?1", [GameState::Running], |r| r.get(0))?;
    tx.commit()?;
    Ok((rows, running))
}

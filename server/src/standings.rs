//! The leaderboard: the stored ratings of the active versions, ranked.

use crate::db::Conn;
use serde::Serialize;

use crate::error::ServerError;

/// One row of the leaderboard.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Standing {
    /// 1 for the best.
    pub rank: usize,
    /// The bot's name.
    pub bot: crate::domain::BotName,
    /// The owner's name.
    pub owner: crate::domain::UserName,
    /// The active version's id.
    pub version_id: crate::domain::VersionId,
    /// The active version's number.
    pub version: i64,
    /// The rating, on the Elo scale (the mean over the active versions is 1500).
    pub rating: f64,
    /// The lower end of the 95 % interval.
    pub rating_low: f64,
    /// The upper end of the 95 % interval.
    pub rating_high: f64,
    /// Games counted.
    pub games: i64,
    /// Wins.
    pub wins: i64,
    /// Losses.
    pub losses: i64,
    /// Draws.
    pub draws: i64,
    /// The probability that this bot is stronger than the one ranked below it
    /// (1 for the last), from the ratings' uncertainties.
    pub rank_sure: f64,
}

/// The leaderboard, best first (active versions that have no rating yet come last).
pub fn leaderboard(conn: &Conn) -> Result<Vec<Standing>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT b.name, u.name, v.id, v.number, r.elo, r.elo_low, r.elo_high, r.games, r.wins, r.losses,
                r.draws, r.rank_sure
         FROM versions v JOIN bots b ON b.id = v.bot_id JOIN users u ON u.id = b.owner_id
         LEFT JOIN ratings r ON r.version_id = v.id
         WHERE v.state = ?1
         ORDER BY r.elo IS NULL, r.elo DESC, v.id",
    )?;
    let rows = stmt.query_map([crate::domain::VersionState::Active], |r| {
        Ok(Standing {
            rank: 0,
            bot: r.get(0)?,
            owner: r.get(1)?,
            version_id: r.get(2)?,
            version: r.get(3)?,
            rating: r.get::<_, Option<f64>>(4)?.unwrap_or(1500.0),
            rating_low: r.get::<_, Option<f64>>(5)?.unwrap_or(f64::NEG_INFINITY).max(-1e9),
            rating_high: r.get::<_, Option<f64>>(6)?.unwrap_or(f64::INFINITY).min(1e9),
            games: r.get::<_, Option<i64>>(7)?.unwrap_or(0),
            wins: r.get::<_, Option<i64>>(8)?.unwrap_or(0),
            losses: r.get::<_, Option<i64>>(9)?.unwrap_or(0),
            draws: r.get::<_, Option<i64>>(10)?.unwrap_or(0),
            rank_sure: r.get::<_, Option<f64>>(11)?.unwrap_or(0.0),
        })
    })?;
    let mut out: Vec<Standing> = rows.collect::<Result<_, _>>()?;
    for (i, s) in out.iter_mut().enumerate() {
        s.rank = i + 1;
    }
    Ok(out)
}

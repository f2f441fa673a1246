//! Ratings: the server's glue to the rating model of `bao-stats`
//! ([`bao_stats::rating::BradleyTerry`], fitted over every game between
//! active versions, see its documentation), shown on the Elo scale (mean
//! 1500) with 95 % intervals.
//!
//! [`recompute`] reads the games, fits, and stores the `ratings` table and
//! the rating history; [`run`] does it on a timer, off the game loop.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::db::params;
use bao_stats::rating::{BradleyTerry, RatingModel, Strengths, rank_confidence};

use crate::arena::Arena;
use crate::db::now_ms;
use crate::domain::{GameId, VersionId};
use crate::error::ServerError;
use crate::games::Outcome;

pub use bao_stats::rating::MEAN_RATING;

/// The fitted rating of one version.
pub type Rating = bao_stats::rating::Rating<VersionId>;

/// Results between versions, per pair.
pub type PairResults = bao_stats::rating::PairResults<VersionId>;

/// Adds game results to a table of pair results.
pub fn add_outcomes(table: &mut PairResults, outcomes: impl IntoIterator<Item = Outcome>) {
    for o in outcomes {
        table.add(o.south, o.north, o.south_score);
    }
}

/// What the rating task has read so far: the results of every finished game
/// up to a watermark, aggregated per pair, so that each round reads only the
/// games that ended since the last one.
#[derive(Debug)]
pub struct RatingState {
    table: PairResults,
    /// Every game with an id at or below this is counted (or was aborted).
    watermark: GameId,
    /// Games above the watermark already counted.
    counted: std::collections::HashSet<GameId>,
    /// The last fitted strengths, to start the next fit from.
    gamma: Strengths<VersionId>,
}

impl Default for RatingState {
    /// Nothing read yet: the watermark below every game's id.
    fn default() -> Self {
        RatingState {
            table: PairResults::default(),
            watermark: GameId::new(0),
            counted: std::collections::HashSet::new(),
            gamma: Strengths::default(),
        }
    }
}

impl RatingState {
    /// Games counted so far.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.table.games()
    }
}

/// Reads the games that ended since the last round, fits the active versions,
/// stores the ratings and appends to the history the versions whose rating or
/// game count changed. Returns the number of versions rated.
pub async fn recompute(arena: &Arena, state: &mut RatingState) -> Result<usize, ServerError> {
    let started = Instant::now();
    let after = state.watermark;
    let (players, (rows, running)) = arena
        .db
        .read(move |c| {
            let players: Vec<VersionId> = {
                let mut stmt = c.prepare_cached("SELECT id FROM versions WHERE state = ?1 ORDER BY id")?;
                stmt.query_map([crate::domain::VersionState::Active], |r| r.get(0))?
                    .collect::<Result<_, _>>()?
            };
            Ok((players, crate::games::outcomes_after(c, after)?))
        })
        .await?;
    let max_seen = rows.last().map_or(after, |r| r.0);
    let fresh: Vec<Outcome> =
        rows.iter().filter(|(id, _)| state.counted.insert(*id)).map(|(_, o)| *o).collect();
    add_outcomes(&mut state.table, fresh);
    state.watermark = running.map_or(max_seen, |r| GameId::new(r.get() - 1).max(after));
    let mark = state.watermark;
    state.counted.retain(|&id| id > mark);
    let table = std::mem::take(&mut state.table);
    let mut gamma = std::mem::take(&mut state.gamma);
    let model = arena.config.rating.model;
    let (table, gamma, mut ratings) = tokio::task::spawn_blocking(move || {
        let r = match model {
            crate::domain::RatingModel::BradleyTerry => BradleyTerry.fit(&players, &table, &mut gamma),
        };
        (table, gamma, r)
    })
    .await
    .map_err(|e| ServerError::Internal(format!("rating task: {e}")))?;
    state.table = table;
    state.gamma = gamma;
    ratings.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let sure = rank_confidence(&ratings);
    let count = ratings.len();
    arena
        .db
        .write(move |c| {
            let tx = c.transaction()?;
            let old: HashMap<VersionId, (f64, i64)> = {
                let mut stmt = tx.prepare_cached("SELECT version_id, elo, games FROM ratings")?;
                stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?.collect::<Result<_, _>>()?
            };
            tx.execute("DELETE FROM ratings", [])?;
            let now = now_ms();
            let z = bao_stats::Z_95;
            for (r, s) in ratings.iter().zip(sure) {
                tx.execute(
                    "INSERT INTO ratings (version_id, elo, elo_low, elo_high, games, wins, losses, draws, rank_sure,
                     computed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![
                        r.player,
                        r.elo,
                        r.elo - z * r.sd,
                        r.elo + z * r.sd,
                        r.games,
                        r.wins,
                        r.losses,
                        r.draws,
                        s,
                        now
                    ],
                )?;
                let changed = old
                    .get(&r.player)
                    .is_none_or(|&(elo, games)| (elo - r.elo).abs() > 0.5 || games != i64::from(r.games));
                if changed && r.games > 0 {
                    crate::rating_history::add(&tx, r.player, now, r.elo, i64::from(r.games))?;
                }
            }
            tx.commit()?;
            Ok(())
        })
        .await?;
    arena.metrics.rating_seconds.observe(started.elapsed().as_secs_f64());
    arena.leaderboard.changed();
    Ok(count)
}

/// Recomputes the ratings after games end (at most every `rating.recompute_secs`,
/// at least every minute), until `term` ends (shutdown, or this server no longer leads).
pub async fn run(arena: Arc<Arena>, term: tokio_util::sync::CancellationToken) {
    let period = Duration::from_secs(arena.config.rating.recompute_secs);
    let mut state = RatingState::default();
    loop {
        if let Err(e) = recompute(&arena, &mut state).await {
            tracing::error!(error = %e, "rating recomputation failed");
        }
        tokio::select! {
            () = term.cancelled() => break,
            () = tokio::time::sleep(period) => {}
        }
        tokio::select! {
            () = term.cancelled() => break,
            () = arena.rating_wake.notified() => {}
            () = tokio::time::sleep(Duration::from_secs(60)) => {}
        }
    }
    // The engine records the games it aborts on shutdown; the serve loop runs
    // the last round after the engine has stopped.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_counted_per_pair_and_self_play_is_ignored() {
        let v = VersionId::new;
        let mut table = PairResults::new();
        add_outcomes(
            &mut table,
            [
                Outcome { south: v(1), north: v(2), south_score: 1.0 },
                Outcome { south: v(2), north: v(1), south_score: 0.5 },
                Outcome { south: v(2), north: v(1), south_score: 1.0 },
                Outcome { south: v(3), north: v(3), south_score: 1.0 },
            ],
        );
        assert_eq!(table.iter().collect::<Vec<_>>(), vec![((v(1), v(2)), [1, 1, 1])]);
        let state = RatingState { table, ..RatingState::default() };
        assert_eq!(state.games(), 3);
    }
}

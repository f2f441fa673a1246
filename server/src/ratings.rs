//! Ratings: a Bradley–Terry model fitted by maximum likelihood (Hunter's MM
//! algorithm) over every game between active versions, a draw counting half a
//! win to each side, shown on the Elo scale (mean 1500) with 95 % intervals
//! from the Fisher information. A weak prior, one virtual draw of every
//! version against an average opponent, keeps ratings finite for a version
//! that has won or lost every game.
//!
//! [`recompute`] reads the games, fits, and stores the `ratings` table and
//! the rating history; [`run`] does it on a timer, off the game loop.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::params;

use crate::arena::Arena;
use crate::db::now_ms;
use crate::error::ServerError;
use crate::games::Outcome;

/// Elo points per natural-log unit of strength.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;
/// The mean rating.
pub const MEAN_RATING: f64 = 1500.0;

/// The fitted rating of one version.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    /// The version.
    pub version_id: i64,
    /// Elo-scale rating.
    pub elo: f64,
    /// Standard error on the Elo scale.
    pub sd: f64,
    /// Games, wins, losses, draws.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Losses.
    pub losses: u32,
    /// Draws.
    pub draws: u32,
}

/// Results between two versions `lo < hi`: `lo`'s wins, draws, `hi`'s wins.
pub type PairResults = HashMap<(i64, i64), [u32; 3]>;

/// Adds game results to a table of pair results.
pub fn add_outcomes(table: &mut PairResults, outcomes: impl IntoIterator<Item = Outcome>) {
    for o in outcomes {
        if o.south == o.north {
            continue;
        }
        let (lo, hi, lo_score) = if o.south < o.north {
            (o.south, o.north, o.south_score)
        } else {
            (o.north, o.south, 1.0 - o.south_score)
        };
        let e = table.entry((lo, hi)).or_insert([0; 3]);
        match lo_score {
            x if x > 0.75 => e[0] += 1,
            x if x < 0.25 => e[2] += 1,
            _ => e[1] += 1,
        }
    }
}

/// Fits ratings for `players` from the pair results (pairs with others are ignored).
#[must_use]
pub fn fit(players: &[i64], table: &PairResults) -> Vec<Rating> {
    fit_from(players, table, &mut HashMap::new())
}

/// [`fit`], starting from the strengths in `start` (by version; 1 for others) and
/// leaving the fitted ones there: after a few more games the fit converges in a
/// few iterations.
#[must_use]
pub fn fit_from(players: &[i64], table: &PairResults, start: &mut HashMap<i64, f64>) -> Vec<Rating> {
    let n = players.len();
    let index: HashMap<i64, usize> = players.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    // Per pair of indices: games and points of the first.
    let mut pairs: Vec<(usize, usize, f64, f64)> = Vec::new();
    let mut wld = vec![(0u32, 0u32, 0u32); n];
    for (&(lo, hi), &[w, d, l]) in table {
        let (Some(&a), Some(&b)) = (index.get(&lo), index.get(&hi)) else { continue };
        let games = f64::from(w + d + l);
        if games == 0.0 {
            continue;
        }
        pairs.push((a, b, games, f64::from(w) + 0.5 * f64::from(d)));
        wld[a].0 += w;
        wld[a].1 += l;
        wld[a].2 += d;
        wld[b].0 += l;
        wld[b].1 += w;
        wld[b].2 += d;
    }
    // Points of each player, plus the prior's half point.
    let mut points = vec![0.5; n];
    for &(a, b, games, pa) in &pairs {
        points[a] += pa;
        points[b] += games - pa;
    }
    let mut gamma: Vec<f64> = players.iter().map(|p| start.get(p).copied().unwrap_or(1.0)).collect();
    for _ in 0..10_000 {
        // The prior's virtual game against an opponent of strength 1.
        let mut denom: Vec<f64> = gamma.iter().map(|g| 1.0 / (g + 1.0)).collect();
        for &(a, b, games, _) in &pairs {
            let d = games / (gamma[a] + gamma[b]);
            denom[a] += d;
            denom[b] += d;
        }
        let mut change = 0.0f64;
        for i in 0..n {
            let next = points[i] / denom[i];
            change = change.max((next.ln() - gamma[i].ln()).abs());
            gamma[i] = next;
        }
        if change < 1e-8 {
            break;
        }
    }
    start.clear();
    start.extend(players.iter().copied().zip(gamma.iter().copied()));
    let theta: Vec<f64> = gamma.iter().map(|g| g.ln()).collect();
    let mean = if n == 0 { 0.0 } else { theta.iter().sum::<f64>() / n as f64 };
    // Fisher information (diagonal): Σ n p (1 − p), with the prior's virtual game.
    let mut info: Vec<f64> = gamma.iter().map(|&g| g / ((g + 1.0) * (g + 1.0))).collect();
    for &(a, b, games, _) in &pairs {
        let p = gamma[a] / (gamma[a] + gamma[b]);
        let v = games * p * (1.0 - p);
        info[a] += v;
        info[b] += v;
    }
    (0..n)
        .map(|i| Rating {
            version_id: players[i],
            elo: MEAN_RATING + (theta[i] - mean) * ELO_PER_NAT,
            sd: ELO_PER_NAT / info[i].sqrt(),
            games: wld[i].0 + wld[i].1 + wld[i].2,
            wins: wld[i].0,
            losses: wld[i].1,
            draws: wld[i].2,
        })
        .collect()
}

/// The probability that each rating (best first) is above the next one, from their
/// standard errors (normal approximation); the last gets 1.
#[must_use]
pub fn rank_confidence(sorted: &[Rating]) -> Vec<f64> {
    (0..sorted.len())
        .map(|i| match sorted.get(i + 1) {
            Some(next) => {
                let sd = (sorted[i].sd.powi(2) + next.sd.powi(2)).sqrt();
                bao_stats::normal_cdf((sorted[i].elo - next.elo) / sd.max(1e-9))
            }
            None => 1.0,
        })
        .collect()
}

/// What the rating task has read so far: the results of every finished game
/// up to a watermark, aggregated per pair, so that each round reads only the
/// games that ended since the last one.
#[derive(Debug, Default)]
pub struct RatingState {
    table: PairResults,
    /// Every game with an id at or below this is counted (or was aborted).
    watermark: i64,
    /// Games above the watermark already counted.
    counted: std::collections::HashSet<i64>,
    /// The last fitted strengths, to start the next fit from.
    gamma: HashMap<i64, f64>,
}

impl RatingState {
    /// Games counted so far.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.table.values().map(|r| u64::from(r[0] + r[1] + r[2])).sum()
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
            let players: Vec<i64> = {
                let mut stmt =
                    c.prepare_cached("SELECT id FROM versions WHERE state = 'active' ORDER BY id")?;
                stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?
            };
            Ok((players, crate::games::outcomes_after(c, after)?))
        })
        .await?;
    let max_seen = rows.last().map_or(after, |r| r.0);
    let fresh: Vec<Outcome> =
        rows.iter().filter(|(id, _)| state.counted.insert(*id)).map(|(_, o)| *o).collect();
    add_outcomes(&mut state.table, fresh);
    state.watermark = running.map_or(max_seen, |r| (r - 1).max(after));
    let mark = state.watermark;
    state.counted.retain(|&id| id > mark);
    let table = std::mem::take(&mut state.table);
    let mut gamma = std::mem::take(&mut state.gamma);
    let (table, gamma, mut ratings) = tokio::task::spawn_blocking(move || {
        let r = fit_from(&players, &table, &mut gamma);
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
            let old: HashMap<i64, (f64, i64)> = {
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
                        r.version_id,
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
                    .get(&r.version_id)
                    .is_none_or(|&(elo, games)| (elo - r.elo).abs() > 0.5 || games != i64::from(r.games));
                if changed && r.games > 0 {
                    crate::rating_history::add(&tx, r.version_id, now, r.elo, i64::from(r.games))?;
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
/// at least every minute), until shutdown; once more at the end.
pub async fn run(arena: Arc<Arena>) {
    let period = Duration::from_secs(arena.config.rating.recompute_secs);
    let mut state = RatingState::default();
    loop {
        if let Err(e) = recompute(&arena, &mut state).await {
            tracing::error!(error = %e, "rating recomputation failed");
        }
        tokio::select! {
            () = arena.shutdown.cancelled() => break,
            () = tokio::time::sleep(period) => {}
        }
        tokio::select! {
            () = arena.shutdown.cancelled() => break,
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

    fn table(outcomes: Vec<Outcome>) -> PairResults {
        let mut t = PairResults::new();
        add_outcomes(&mut t, outcomes);
        t
    }

    fn games(a: i64, b: i64, a_wins: u32, draws: u32, b_wins: u32) -> Vec<Outcome> {
        let mut v = Vec::new();
        for i in 0..(a_wins + draws + b_wins) {
            let score = if i < a_wins {
                1.0
            } else if i < a_wins + draws {
                0.5
            } else {
                0.0
            };
            // Alternate colours.
            if i % 2 == 0 {
                v.push(Outcome { south: a, north: b, south_score: score });
            } else {
                v.push(Outcome { south: b, north: a, south_score: 1.0 - score });
            }
        }
        v
    }

    #[test]
    fn equal_results_give_equal_ratings_around_the_mean() {
        let r = fit(&[1, 2], &table(games(1, 2, 10, 0, 10)));
        assert!((r[0].elo - 1500.0).abs() < 1e-6 && (r[1].elo - 1500.0).abs() < 1e-6, "{r:?}");
        assert_eq!((r[0].wins, r[0].losses, r[0].draws, r[0].games), (10, 10, 0, 20));
    }

    #[test]
    fn a_75_percent_score_is_about_190_elo_with_a_weak_prior() {
        let r = fit(&[1, 2], &table(games(1, 2, 300, 0, 100)));
        let diff = r[0].elo - r[1].elo;
        // 75 % is 190.8 Elo; the prior pulls a little towards 0.
        assert!((185.0..191.0).contains(&diff), "{diff}");
        // 400 games: the standard error of each is about 35 Elo / sqrt(2)... well under 40.
        assert!(r[0].sd < 40.0 && r[0].sd > 10.0, "{}", r[0].sd);
    }

    #[test]
    fn all_wins_stay_finite_and_order_is_transitive() {
        let mut g = games(1, 2, 10, 0, 0);
        g.extend(games(2, 3, 10, 0, 0));
        let r = fit(&[1, 2, 3], &table(g.clone()));
        assert!(r.iter().all(|x| x.elo.is_finite() && x.sd.is_finite()));
        assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo, "{r:?}");
        let mean = r.iter().map(|x| x.elo).sum::<f64>() / 3.0;
        assert!((mean - 1500.0).abs() < 1e-6);
    }

    #[test]
    fn a_warm_start_gives_the_same_fit() {
        let mut g = games(1, 2, 30, 5, 10);
        g.extend(games(2, 3, 20, 0, 20));
        let cold = fit(&[1, 2, 3], &table(g.clone()));
        let mut start = HashMap::new();
        let _ = fit_from(&[1, 2, 3], &table(games(1, 2, 3, 0, 1)), &mut start);
        let warm = fit_from(&[1, 2, 3], &table(g), &mut start);
        for (c, w) in cold.iter().zip(&warm) {
            assert!((c.elo - w.elo).abs() < 0.01, "{c:?} vs {w:?}");
        }
    }

    #[test]
    fn more_games_narrow_the_interval() {
        let few = fit(&[1, 2], &table(games(1, 2, 5, 0, 5)));
        let many = fit(&[1, 2], &table(games(1, 2, 500, 0, 500)));
        assert!(many[0].sd < few[0].sd / 5.0, "{} vs {}", many[0].sd, few[0].sd);
    }

    #[test]
    fn unplayed_versions_sit_at_the_mean_with_a_wide_interval() {
        let r = fit(&[1, 2, 3], &table(games(1, 2, 10, 0, 10)));
        assert!((r[2].elo - 1500.0).abs() < 1e-6);
        assert!(r[2].sd > 300.0, "{}", r[2].sd);
        assert_eq!(r[2].games, 0);
    }

    #[test]
    fn rank_confidence_reflects_the_gap() {
        let mk =
            |elo: f64, sd: f64| Rating { version_id: 0, elo, sd, games: 0, wins: 0, losses: 0, draws: 0 };
        let c = rank_confidence(&[mk(1700.0, 20.0), mk(1500.0, 20.0), mk(1499.0, 20.0)]);
        assert!(c[0] > 0.99, "{c:?}");
        assert!((c[1] - 0.5).abs() < 0.05, "{c:?}");
        assert_eq!(c[2], 1.0);
    }
}

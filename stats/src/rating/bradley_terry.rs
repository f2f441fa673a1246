//! The Bradley–Terry model fitted by maximum likelihood (Hunter's MM algorithm), a draw counting
//! half a win to each side, shown on the Elo scale (mean [`MEAN_RATING`]) with standard errors from
//! the Fisher information. A weak prior, one virtual draw of every player against an average
//! opponent, keeps ratings finite for a player that has won or lost every game.

use std::collections::HashMap;
use std::hash::Hash;

use super::{MEAN_RATING, PairResults, Rating, RatingModel, Strengths};

/// Elo points per natural-log unit of strength.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The most MM iterations of one fit.
const MAX_ITERATIONS: usize = 10_000;

/// A fit stops when no log-strength changes by more than this in one iteration.
const TOLERANCE: f64 = 1e-8;

/// The Bradley–Terry model (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BradleyTerry;

impl<P: Copy + Ord + Hash> RatingModel<P> for BradleyTerry {
    /// The fitted strengths by player (1 for a player not fitted before).
    type Warm = Strengths<P>;

    fn fit(&self, players: &[P], results: &PairResults<P>, warm: &mut Strengths<P>) -> Vec<Rating<P>> {
        let n = players.len();
        let index: HashMap<P, usize> = players.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        // Per pair of indices: games and points of the first.
        let mut pairs: Vec<(usize, usize, f64, f64)> = Vec::new();
        let mut wld = vec![(0u32, 0u32, 0u32); n];
        for ((lo, hi), [w, d, l]) in results.iter() {
            let (Some(&a), Some(&b)) = (index.get(&lo), index.get(&hi)) else { continue };
            let games = f64::from(w) + f64::from(d) + f64::from(l);
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
        let mut gamma: Vec<f64> = players.iter().map(|p| warm.get(p).copied().unwrap_or(1.0)).collect();
        for _ in 0..MAX_ITERATIONS {
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
            if change < TOLERANCE {
                break;
            }
        }
        warm.clear();
        warm.extend(players.iter().copied().zip(gamma.iter().copied()));
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
                player: players[i],
                elo: MEAN_RATING + (theta[i] - mean) * ELO_PER_NAT,
                sd: ELO_PER_NAT / info[i].sqrt(),
                games: wld[i].0 + wld[i].1 + wld[i].2,
                wins: wld[i].0,
                losses: wld[i].1,
                draws: wld[i].2,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit(players: &[i64], table: &PairResults<i64>) -> Vec<Rating<i64>> {
        BradleyTerry.fit(players, table, &mut Strengths::new())
    }

    /// `a_wins`, `draws` and `b_wins` games between `a` and `b`, alternating colours.
    fn games(a: i64, b: i64, a_wins: u32, draws: u32, b_wins: u32) -> Vec<(i64, i64, f64)> {
        let mut v = Vec::new();
        for i in 0..(a_wins + draws + b_wins) {
            let score = if i < a_wins {
                1.0
            } else if i < a_wins + draws {
                0.5
            } else {
                0.0
            };
            if i % 2 == 0 {
                v.push((a, b, score));
            } else {
                v.push((b, a, 1.0 - score));
            }
        }
        v
    }

    fn table(games: Vec<(i64, i64, f64)>) -> PairResults<i64> {
        let mut t = PairResults::new();
        for (south, north, south_score) in games {
            t.add(south, north, south_score);
        }
        t
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
        let r = fit(&[1, 2, 3], &table(g));
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
        let mut start = Strengths::new();
        let _ = BradleyTerry.fit(&[1, 2, 3], &table(games(1, 2, 3, 0, 1)), &mut start);
        let warm = BradleyTerry.fit(&[1, 2, 3], &table(g), &mut start);
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
    fn unplayed_players_sit_at_the_mean_with_a_wide_interval() {
        let r = fit(&[1, 2, 3], &table(games(1, 2, 10, 0, 10)));
        assert!((r[2].elo - 1500.0).abs() < 1e-6);
        assert!(r[2].sd > 300.0, "{}", r[2].sd);
        assert_eq!(r[2].games, 0);
    }
}

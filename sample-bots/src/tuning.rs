//! Texel tuning of the evaluation weights: self-play positions labelled with the games'
//! results, and a logistic regression of the results on the evaluation's features.
//!
//! The evaluation is linear in its features, so fitting "the probability that the side
//! to move wins is `1 / (1 + e^(-eval / 1000))`" is a logistic regression per stage,
//! solved by gradient descent on standardised features. `bao-tune generate` writes the
//! data, `bao-tune fit` prints the weights to paste into `src/weights.rs`.

use bao_rules::{Position, Variant};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::alphabeta::search::{Limits, Searcher};
use crate::eval::{FEATURES, Weights, features, phase};

/// One labelled position: the game's result for the side to move (1 win, 0 loss, ½ draw).
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The position.
    pub position: Position,
    /// The result for its side to move.
    pub result: f64,
}

/// How self-play data are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    /// Games to play.
    pub games: u32,
    /// The seed of game 0 (game `g` uses `seed + g`).
    pub seed: u64,
    /// Search depth of both players.
    pub depth: u32,
    /// Keep one position in this many.
    pub keep_one_in: u32,
    /// A game longer than this is a draw.
    pub max_plies: u32,
}

/// Plays the self-play games of `generation` with `weights` and returns the kept positions.
#[must_use]
pub fn generate(generation: &Generation, weights: Weights) -> Vec<Sample> {
    let mut samples = Vec::new();
    let mut searcher = Searcher::new(16, weights);
    for g in 0..generation.games {
        let mut rng = ChaCha8Rng::seed_from_u64(generation.seed.wrapping_add(u64::from(g)));
        searcher.clear();
        let mut position = Position::start(Variant::Kiswahili);
        let opening = rng.random_range(2..=12);
        let mut seen: Vec<Position> = Vec::new();
        let mut winner = None;
        for ply in 0..generation.max_plies {
            let moves = position.legal_moves();
            let Some(&random) = moves.choose(&mut rng) else {
                winner = Some(position.side_to_move().opponent());
                break;
            };
            let m = if ply < opening || rng.random_bool(0.03) {
                random
            } else {
                if rng.random_range(0..generation.keep_one_in.max(1)) == 0 {
                    seen.push(position);
                }
                searcher
                    .search(&position, Limits::depth(generation.depth), |_| {}, |_| true)
                    .map_or(random, |i| i.best)
            };
            let Ok((next, outcome)) = position.play(m) else { break };
            position = next;
            if let bao_rules::Outcome::Win { winner: w, .. } = outcome {
                winner = Some(w);
                break;
            }
        }
        for p in seen {
            let result = match winner {
                Some(w) if w == p.side_to_move() => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            samples.push(Sample { position: p, result });
        }
    }
    samples
}

/// The samples as data lines: `RESULT<TAB>POSITION`.
#[must_use]
pub fn to_lines(samples: &[Sample]) -> String {
    samples.iter().map(|s| format!("{}\t{}\n", s.result, s.position)).collect()
}

/// Reads data lines (blank lines and `#` comments skipped).
///
/// # Errors
/// The line number and what is wrong with it.
pub fn parse_lines(text: &str) -> Result<Vec<Sample>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (result, position) =
            line.split_once('\t').ok_or_else(|| format!("line {}: expected RESULT<TAB>POSITION", i + 1))?;
        let result: f64 = result.parse().map_err(|e| format!("line {}: result {result:?}: {e}", i + 1))?;
        if !(0.0..=1.0).contains(&result) {
            return Err(format!("line {}: result {result} is not in 0..1", i + 1));
        }
        let position = position.parse().map_err(|e| format!("line {}: {e}", i + 1))?;
        out.push(Sample { position, result });
    }
    Ok(out)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The mean log-loss of `weights` (thousandths of a logit) on `samples`.
#[must_use]
pub fn log_loss(samples: &[Sample], weights: &Weights) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let f = features(&s.position);
            let w = &weights[phase(&s.position)];
            let x: f64 = f.iter().zip(w).map(|(&f, &w)| f64::from(f) * f64::from(w) / 1000.0).sum();
            let p = sigmoid(x).clamp(1e-9, 1.0 - 1e-9);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// Fits the weights by logistic regression (L2 penalty `l2`), `epochs` full-batch
/// gradient steps per stage. A stage without samples keeps `fallback`'s weights.
#[must_use]
pub fn fit(samples: &[Sample], epochs: u32, l2: f64, fallback: &Weights) -> Weights {
    let mut out = *fallback;
    for (stage, stage_weights) in out.iter_mut().enumerate() {
        let rows: Vec<([f64; FEATURES], f64)> = samples
            .iter()
            .filter(|s| phase(&s.position) == stage)
            .map(|s| (features(&s.position).map(f64::from), s.result))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let n = rows.len() as f64;
        // Standardise each feature (no intercept: the evaluation is symmetric but for
        // the side-to-move features, which carry their own weights).
        let mut scale = [0.0f64; FEATURES];
        for (f, _) in &rows {
            for (k, v) in f.iter().enumerate() {
                scale[k] += v * v;
            }
        }
        for s in &mut scale {
            *s = (*s / n).sqrt().max(1e-9);
        }
        let mut w = [0.0f64; FEATURES];
        let (mut m, mut v) = ([0.0f64; FEATURES], [0.0f64; FEATURES]);
        let (beta1, beta2, rate) = (0.9, 0.999, 0.05);
        for t in 1..=epochs {
            let mut grad = [0.0f64; FEATURES];
            for (f, y) in &rows {
                let x: f64 = (0..FEATURES).map(|k| w[k] * f[k] / scale[k]).sum();
                let err = sigmoid(x) - y;
                for k in 0..FEATURES {
                    grad[k] += err * f[k] / scale[k];
                }
            }
            for k in 0..FEATURES {
                let g = grad[k] / n + l2 * w[k];
                m[k] = beta1 * m[k] + (1.0 - beta1) * g;
                v[k] = beta2 * v[k] + (1.0 - beta2) * g * g;
                let mh = m[k] / (1.0 - beta1.powi(t.min(10_000) as i32));
                let vh = v[k] / (1.0 - beta2.powi(t.min(10_000) as i32));
                w[k] -= rate * mh / (vh.sqrt() + 1e-8);
            }
        }
        for k in 0..FEATURES {
            stage_weights[k] = (w[k] / scale[k] * 1000.0).round() as i32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_data_round_trip_and_fitting_lowers_the_loss() {
        let generation = Generation { games: 6, seed: 1, depth: 1, keep_one_in: 2, max_plies: 200 };
        let samples = generate(&generation, crate::weights::HAND_SET);
        assert!(samples.len() > 20, "{} samples", samples.len());
        let text = to_lines(&samples);
        assert_eq!(parse_lines(&text).expect("parses"), samples);
        let zero = [[0; FEATURES]; 2];
        let fitted = fit(&samples, 200, 1e-3, &zero);
        assert!(log_loss(&samples, &fitted) < log_loss(&samples, &zero), "{fitted:?}");
    }

    #[test]
    fn bad_lines_are_named() {
        assert!(parse_lines("x\ty").unwrap_err().starts_with("line 1: result"));
        assert!(parse_lines("# c\n\n2\tkiswahili").unwrap_err().contains("line 3: result 2 is not in 0..1"));
        assert!(parse_lines("1 kiswahili").unwrap_err().contains("expected RESULT<TAB>POSITION"));
    }
}

//! The benchmark's native baseline: the random-play loop of `bench/random_play.py`, run
//! inside Rust, so that the binding's overhead is measured against the same engine, the
//! same build and the same moment.

use bao_rules::{Position, Variant};
use pyo3::prelude::*;

use crate::errors;

/// Plays uniformly random games of `variant` from its start with the moves `legal_moves`
/// lists and `play_without_outcome` (what `Position.legal_moves` and `Position.play`
/// call) until `plies` plies are played; returns the seconds taken (monotonic clock).
/// Not part of the API: used by the benchmark script only.
#[pyfunction]
pub(crate) fn _native_random_play(py: Python<'_>, variant: &str, plies: u64, seed: u64) -> PyResult<f64> {
    let variant = variant.parse::<Variant>().map_err(|e| errors::bao_error(e.to_string()))?;
    py.detach(move || {
        let mut state = seed;
        let start = std::time::Instant::now();
        let mut position = Position::start(variant);
        let mut played = 0;
        while played < plies {
            let moves = position.legal_moves();
            if moves.is_empty() {
                position = Position::start(variant);
                continue;
            }
            let index = usize::try_from(splitmix64(&mut state) % moves.len() as u64).unwrap_or(0);
            match position.play_without_outcome(moves[index]) {
                Ok(next) => position = next,
                Err(e) => return Err(errors::bao_error(format!("internal: a listed move is illegal: {e}"))),
            }
            played += 1;
        }
        Ok(start.elapsed().as_secs_f64())
    })
}

/// One step of SplitMix64, a small well-known generator: enough to pick moves.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

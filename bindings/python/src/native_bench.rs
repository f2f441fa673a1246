//! The benchmark's native baseline: the random-play loop of `bench/random_play.py`, run
//! inside Rust, so that the binding's overhead is measured against the same engine, the
//! same build and the same moment.

use bao_rules::{Position, Variant};
use pyo3::prelude::*;

use crate::errors;

/// Plays uniformly random games of `variant` from its start until `plies` plies are
/// played, each ply as `Position.legal_moves` + `Position.play` do it: the legal moves
/// with their successors (`bao_rules::Position::successors`), then the chosen one's.
/// Returns the number of games finished. The caller times it (its own thread's CPU clock
/// covers this call: the GIL is released but the thread is the same). Not part of the
/// API: used by the benchmark script only.
#[pyfunction]
pub(crate) fn _native_random_play(py: Python<'_>, variant: &str, plies: u64, seed: u64) -> PyResult<u64> {
    let variant = variant.parse::<Variant>().map_err(|e| errors::bao_error(e.to_string()))?;
    Ok(py.detach(move || {
        let mut state = seed;
        let mut position = Position::start(variant);
        let (mut played, mut games) = (0, 0);
        while played < plies {
            let successors = position.successors();
            if successors.is_empty() {
                position = Position::start(variant);
                games += 1;
                continue;
            }
            let index = usize::try_from(splitmix64(&mut state) % successors.len() as u64).unwrap_or(0);
            position = successors[index].1;
            played += 1;
        }
        games
    }))
}

/// One step of SplitMix64, a small well-known generator: enough to pick moves.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

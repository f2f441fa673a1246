//! The rules of Bao la Kiswahili and its learners' variant Bao la Kujifunza.
//!
//! It follows the project's rules reference (RULES.md, summarised in
//! `docs/rules.md`) exactly, including every decision that reference makes
//! where the traditional descriptions are silent.
//!
//! What it owns: positions and their notation, moves and theirs, legal moves,
//! playing a move ([`Position::play`], [`Position::play_without_outcome`],
//! [`Position::play_unchecked`]), outcomes, the atomic steps of a move for
//! replay ([`Position::sowing_steps`], [`SowStep`], absolute pit names
//! [`BoardPit`]), Zobrist hashing ([`Position::hash_key`]) and [`perft`].
//!
//! What it must not know: anything outside one game's rules. It does no I/O
//! (no files, processes, clocks or randomness); its dependencies are
//! `thiserror`, `arrayvec` and `serde` (derives only: the JSON form of
//! [`SowStep`], [`BoardPit`] and [`Side`]; serialising is the caller's job).
//!
//! The shape follows the good chess rules libraries: text is first *parsed*
//! into a plain [`Setup`] (any counts, no rules checked), which becomes a
//! [`Position`] only through a checked conversion; a move written in notation
//! is parsed into a [`MoveText`] and becomes a [`Move`] only against a
//! position.
//!
//! ```
//! use bao_rules::{Position, Variant, Outcome};
//! let start = Position::start(Variant::Kiswahili);
//! let moves = start.legal_moves();
//! assert_eq!(moves.len(), 4);
//! let (next, outcome) = start.play(moves[0]).unwrap();
//! assert_eq!(outcome, Outcome::Ongoing);
//! assert_eq!(next.to_string().parse::<Position>().unwrap(), next);
//! ```

mod board_pit;
mod direction;
mod illegal;
mod movegen;
mod moves;
mod outcome;
mod perft;
mod pit;
mod position;
mod revision;
mod setup;
mod side;
mod sow_step;
mod sowing;
mod variant;
mod zobrist;

pub use board_pit::{BoardPit, ParseBoardPitError};
pub use direction::Direction;
pub use illegal::IllegalMove;
pub use moves::{Move, MoveList, MoveText, ParseMoveError};
pub use outcome::{Outcome, WinReason};
pub use perft::perft;
pub use pit::{Pit, Row};
pub use position::{Position, PositionError, Stage};
pub use revision::RULES_REVISION;
pub use setup::{ParseSetupError, Setup, SetupField};
pub use side::{ParseSideError, Side};
pub use sow_step::SowStep;
pub use sowing::MAX_LAPS;
pub use variant::{ParseVariantError, Variant};

/// The largest number of seeds a position may hold in all (pits and hands).
///
/// The standard game has 64; studies may hold fewer. Counts are stored in
/// bytes, so a position with more than this many seeds is rejected.
pub const MAX_SEEDS: u32 = 255;

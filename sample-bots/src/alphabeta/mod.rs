//! `alphabeta`: the strongest reference bot. Iterative-deepening alpha-beta search
//! ([`search`]) on the tuned evaluation ([`crate::eval`]), with time management from the
//! protocol's clocks ([`bot`]).

pub mod bot;
pub mod search;
pub mod tt;

pub use bot::{AlphaBetaBot, Level};
pub use search::{Iteration, Limits, Searcher};

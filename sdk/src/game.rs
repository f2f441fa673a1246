//! The facts of `hello` and `game_over`, as bao-rules types.

use bao_protocol::{GameOver, Hello, TimeControl};
use bao_rules::{Position, Side, Variant};

/// A new game (from `hello`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    /// The side this bot plays.
    pub side: Side,
    /// The variant.
    pub variant: Variant,
    /// The start position.
    pub start: Position,
    /// The clocks of the game.
    pub time_control: TimeControl,
}

/// The end of a game (from `game_over`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameEnd {
    /// The winner, or `None` for a draw or an aborted game.
    pub winner: Option<Side>,
    /// Why the game ended: one of `bao_protocol::reason::ALL`.
    pub reason: String,
    /// The result in words, e.g. `"S wins (front_row_empty)"`.
    pub result: String,
    /// Plies played.
    pub plies: u32,
}

impl NewGame {
    /// The game `hello` announces, or why its start position or variant is unreadable.
    pub(crate) fn from_hello(hello: &Hello) -> Result<NewGame, String> {
        let variant =
            hello.variant.parse::<Variant>().map_err(|e| format!("hello: field \"variant\": {e}"))?;
        let start = hello
            .start
            .parse::<Position>()
            .map_err(|e| format!("hello: field \"start\" {:?}: {e}", hello.start))?;
        Ok(NewGame { side: hello.side, variant, start, time_control: hello.time_control })
    }
}

impl From<&GameOver> for GameEnd {
    fn from(game_over: &GameOver) -> GameEnd {
        GameEnd {
            winner: game_over.winner,
            reason: game_over.reason.clone(),
            result: game_over.result.clone(),
            plies: game_over.plies,
        }
    }
}

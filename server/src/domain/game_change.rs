//! The end of a game, the only state change a game has: `running → finished`
//! or `running → aborted`. [`crate::games`] writes a game's state only through
//! one of these.

use super::{GameState, ImpossibleTransition};

/// An allowed change of a game's state.
///
/// ```compile_fail
/// use bao_server::domain::{GameChange, GameState};
/// let _ = GameChange { from: GameState::Finished, to: GameState::Running };
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameChange {
    from: GameState,
    to: GameState,
}

impl GameChange {
    /// A running game played to its end.
    pub const FINISH: GameChange = GameChange::known(GameState::Running, GameState::Finished);
    /// A running game stopped before its end.
    pub const ABORT: GameChange = GameChange::known(GameState::Running, GameState::Aborted);

    /// The change `from → to`, refused when a game cannot make it.
    pub fn new(from: GameState, to: GameState) -> Result<GameChange, ImpossibleTransition> {
        if from.may_become(to) {
            Ok(GameChange { from, to })
        } else {
            Err(ImpossibleTransition { what: "game", from: from.as_str(), to: to.as_str() })
        }
    }

    const fn known(from: GameState, to: GameState) -> GameChange {
        assert!(from.may_become(to), "a game cannot make this change");
        GameChange { from, to }
    }

    /// The state the game must be in.
    #[must_use]
    pub const fn from(self) -> GameState {
        self.from
    }

    /// The state it goes to.
    #[must_use]
    pub const fn to(self) -> GameState {
        self.to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_ends_once() {
        assert_eq!(GameChange::new(GameState::Running, GameState::Finished), Ok(GameChange::FINISH));
        assert_eq!(GameChange::ABORT.to(), GameState::Aborted);
        let e = GameChange::new(GameState::Finished, GameState::Aborted).expect_err("already ended");
        assert_eq!(e.to_string(), "a game cannot go from finished to aborted");
        assert!(GameChange::new(GameState::Aborted, GameState::Running).is_err());
        assert!(GameChange::new(GameState::Running, GameState::Running).is_err());
    }
}

//! The state of a game: recorded `running` before its bots start, then
//! `finished` (with a result) or `aborted` (not counted).

stored_text! {
    /// The state of a game.
    pub enum GameState ("game state") {
        /// Recorded before its bots start; being played.
        Running = "running",
        /// Played to the end, with a result.
        Finished = "finished",
        /// Stopped before its end (the server stopped, or failed): not counted.
        Aborted = "aborted",
    }
}

impl GameState {
    /// Whether a game may go from `self` to `to`: only a running game ends.
    #[must_use]
    pub const fn may_become(self, to: GameState) -> bool {
        matches!((self, to), (GameState::Running, GameState::Finished | GameState::Aborted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_running_game_ends() {
        assert!(GameState::Running.may_become(GameState::Finished));
        assert!(GameState::Running.may_become(GameState::Aborted));
        for from in [GameState::Finished, GameState::Aborted] {
            for to in GameState::ALL {
                assert!(!from.may_become(*to), "{from} -> {to}");
            }
        }
        assert!(!GameState::Running.may_become(GameState::Running));
    }

    #[test]
    fn an_unknown_state_is_named() {
        assert_eq!("finished".parse(), Ok(GameState::Finished));
        let e = "paused".parse::<GameState>().expect_err("unknown");
        assert_eq!(e.to_string(), "unknown game state \"paused\": expected running, finished or aborted");
    }

    #[test]
    fn the_database_boundary_refuses_an_unknown_text() {
        let conn = rusqlite::Connection::open_in_memory().expect("db");
        let stored: String = conn.query_row("SELECT ?1", [GameState::Aborted], |r| r.get(0)).expect("row");
        assert_eq!(stored, "aborted", "the text in the database is unchanged");
        let read: GameState = conn.query_row("SELECT 'finished'", [], |r| r.get(0)).expect("row");
        assert_eq!(read, GameState::Finished);
        let e = conn.query_row("SELECT 'paused'", [], |r| r.get::<_, GameState>(0)).expect_err("refused");
        assert!(e.to_string().contains("unknown game state \"paused\""), "{e}");
    }
}

//! The trait a typed bot implements.

use crate::Identity;
use bao_protocol::Info;
use bao_rules::{Move, MoveList, Position};

use crate::{Deadline, GameEnd, NewGame};

/// A bot: a function from a position, its legal moves and a deadline to a move, with
/// optional hooks for the start and the end of a game and for `info` lines.
pub trait Bot {
    /// The name, author and version sent in `ready`.
    fn identity(&self) -> Identity;

    /// Called on every `hello`, before `ready` is sent (the startup time counts): a new game.
    ///
    /// A process may play many games (protocol 1.1: [`Identity::new`] declares
    /// `"games":"many"`, and after `game_over` the referee may send the next game's `hello`
    /// instead of `quit`). The default does nothing, which is right for a bot that keeps no
    /// state from one game to the next. A bot may keep anything across games (a
    /// transposition table, an opening book loaded once, caches), but must take its side, the
    /// variant, the start and the clock from `game` and the positions it is given: the next
    /// game may give it the other side, another variant and another opponent. State that
    /// belongs to one game (a seeded generator to replay, a move history, counters) is reset
    /// here. A bot that cannot do that says so with [`Identity::one_game_per_process`].
    fn new_game(&mut self, _game: &NewGame) {}

    /// The move to play in `position`: one of `legal`, which is never empty and is in
    /// byte order of the moves' notation. `deadline` says how long the bot may think.
    ///
    /// Returning a move that is not in `legal` is a bug: the runner stops with
    /// [`crate::SdkError::IllegalChoice`] instead of sending it.
    fn choose_move(&mut self, position: &Position, legal: &MoveList, deadline: &Deadline) -> Move;

    /// The `info` lines to send with the move just chosen, sent before the `move` line
    /// (the referee logs at most 100 per move). Called once after each
    /// [`Bot::choose_move`]; the default sends none.
    fn take_info(&mut self) -> Vec<Info> {
        Vec::new()
    }

    /// Called on every `game_over`. A `quit` follows, or the next game's `hello` (then
    /// [`Bot::new_game`] is called again).
    fn game_over(&mut self, _end: &GameEnd) {}
}

impl<B: Bot + ?Sized> Bot for &mut B {
    fn identity(&self) -> Identity {
        (**self).identity()
    }

    fn new_game(&mut self, game: &NewGame) {
        (**self).new_game(game);
    }

    fn choose_move(&mut self, position: &Position, legal: &MoveList, deadline: &Deadline) -> Move {
        (**self).choose_move(position, legal, deadline)
    }

    fn take_info(&mut self) -> Vec<Info> {
        (**self).take_info()
    }

    fn game_over(&mut self, end: &GameEnd) {
        (**self).game_over(end);
    }
}

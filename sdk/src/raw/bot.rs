//! The trait a raw bot implements, and the identity every bot announces.

use bao_protocol::{GameOver, GamesPerProcess, Hello, MoveRequest, Ready};

use super::InfoSink;

/// Who a bot is, and how many games its process can play: sent in `ready`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The bot's name (non-empty, at most [`bao_protocol::MAX_NAME_CHARS`] characters).
    pub name: String,
    /// Who wrote it.
    pub author: Option<String>,
    /// Its version.
    pub version: Option<String>,
    /// `ready`'s `"games"` (protocol 1.1): [`GamesPerProcess::Many`] unless the bot opts out
    /// with [`Identity::one_game_per_process`]. The SDK's protocol loop plays any number of
    /// games in one process (each starts with its own `hello`), so a bot needs nothing more
    /// than a [`crate::Bot::new_game`] (or [`Bot::hello`]) that resets its per-game state.
    pub games: GamesPerProcess,
}

impl Identity {
    /// An identity with only a name, for a process that may play many games.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Identity {
        Identity { name: name.into(), author: None, version: None, games: GamesPerProcess::Many }
    }

    /// This identity for a bot that can play only one game per process: `ready` leaves
    /// `"games"` out, and the referee sends `quit` after every game (protocol 1).
    #[must_use]
    pub fn one_game_per_process(mut self) -> Identity {
        self.games = GamesPerProcess::One;
        self
    }

    /// This identity with an author.
    #[must_use]
    pub fn with_author(mut self, author: impl Into<String>) -> Identity {
        self.author = Some(author.into());
        self
    }

    /// This identity with a version.
    #[must_use]
    pub fn with_version(mut self, version: impl Into<String>) -> Identity {
        self.version = Some(version.into());
        self
    }

    /// The `ready` message announcing this identity.
    #[must_use]
    pub fn to_ready(&self) -> Ready {
        Ready {
            name: self.name.clone(),
            author: self.author.clone(),
            version: self.version.clone(),
            games: self.games,
        }
    }
}

/// A raw bot: a function from a wire move request to a move in notation, with optional hooks.
pub trait Bot {
    /// The name, author and version sent in `ready`.
    fn identity(&self) -> Identity;

    /// Called on every `hello`, before `ready` is sent (startup time counts). A process may
    /// play several games (see [`Identity::games`]): each starts with its own `hello`, with
    /// its own side, variant, start and clock, and request ids counted from 1 again.
    fn hello(&mut self, _hello: &Hello) {}

    /// The move to play, in RULES.md notation (normally one of `request.legal`).
    /// `info` sends optional `info` lines while thinking.
    fn choose_move(&mut self, request: &MoveRequest, info: &mut InfoSink<'_>) -> String;

    /// Called on `game_over`.
    fn game_over(&mut self, _game_over: &GameOver) {}
}

impl<B: Bot + ?Sized> Bot for &mut B {
    fn identity(&self) -> Identity {
        (**self).identity()
    }

    fn hello(&mut self, hello: &Hello) {
        (**self).hello(hello);
    }

    fn choose_move(&mut self, request: &MoveRequest, info: &mut InfoSink<'_>) -> String {
        (**self).choose_move(request, info)
    }

    fn game_over(&mut self, game_over: &GameOver) {
        (**self).game_over(game_over);
    }
}

//! The trait a raw bot implements, and the identity every bot announces.

use bao_protocol::{GameOver, Hello, MoveRequest, Ready};

use super::InfoSink;

/// Who a bot is: sent in `ready`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The bot's name (non-empty, at most [`bao_protocol::MAX_NAME_CHARS`] characters).
    pub name: String,
    /// Who wrote it.
    pub author: Option<String>,
    /// Its version.
    pub version: Option<String>,
}

impl Identity {
    /// An identity with only a name.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Identity {
        Identity { name: name.into(), author: None, version: None }
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
            games: bao_protocol::GamesPerProcess::One,
        }
    }
}

/// A raw bot: a function from a wire move request to a move in notation, with optional hooks.
pub trait Bot {
    /// The name, author and version sent in `ready`.
    fn identity(&self) -> Identity;

    /// Called on `hello`, before `ready` is sent (startup time counts).
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

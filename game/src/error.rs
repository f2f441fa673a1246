//! The game crate's own failures: the referee could not do its job (a bot's misbehaviour is
//! never an error, it is a verdict in the result).

use std::path::PathBuf;

/// Why a game could not be played or recorded.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The game log could not be created or written. The message names the path once and the
    /// operating system's reason once.
    #[error("cannot write the game log {}: {reason}", path.display())]
    Log {
        /// The log file.
        path: PathBuf,
        /// What the operating system said.
        reason: std::io::Error,
    },
}

impl GameError {
    /// A log error at `path` (or `(no log)` for a log that writes nothing).
    pub(crate) fn log(path: Option<&std::path::Path>, reason: std::io::Error) -> GameError {
        GameError::Log {
            path: path.map_or_else(|| PathBuf::from("(no log)"), std::path::Path::to_path_buf),
            reason,
        }
    }
}

//! The game log: JSON Lines, one record per line, written as the game goes.
//!
//! Every record is written with a single `write` of a complete line to an
//! unbuffered file, so a referee killed at any moment leaves every finished
//! line intact. The format is documented in `docs/game-log.md`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::GameError;

use crate::{Reason, TimeControl};
use bao_supervise::ResourceLimits;

/// The version of the log format written in every header.
pub const LOG_VERSION: u32 = 1;

/// One line of a game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[expect(clippy::large_enum_variant, reason = "records are built one at a time and written at once")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogRecord {
    /// The first line: who plays what, under which rules and clocks.
    Header(Header),
    /// One ply.
    Ply(PlyRecord),
    /// A bot's captured stderr (written at the end of the game).
    Stderr(StderrRecord),
    /// The last line: the result.
    Result(ResultRecord),
}

/// The first line of a game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// [`LOG_VERSION`].
    pub log_version: u32,
    /// `bao-referee 0.1.0`.
    pub referee: String,
    /// `kiswahili` or `kujifunza`.
    pub variant: String,
    /// The start position in notation.
    pub start: String,
    /// The South bot.
    pub south: BotRecord,
    /// The North bot.
    pub north: BotRecord,
    /// The clocks.
    pub time_control: TimeControl,
    /// Draw adjudication after this many plies.
    pub max_plies: Option<u32>,
    /// The seed of the run (schedules, openings).
    pub seed: u64,
    /// Resource limits applied to each bot.
    pub limits: ResourceLimits,
    /// Wall-clock start time, RFC 3339 UTC.
    pub started_at: String,
}

/// A bot as the log records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRecord {
    /// The display name given on the command line (or the program's name).
    pub name: String,
    /// The command line: program and arguments.
    pub command: Vec<String>,
    /// The working directory, if one was given.
    pub dir: Option<String>,
    /// What the bot said in its ready message, if it got that far.
    pub reported: Option<Reported>,
}

/// The identity a bot reports in its ready message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reported {
    /// The bot's name.
    pub name: String,
    /// Its author.
    pub author: Option<String>,
    /// Its version.
    pub version: Option<String>,
}

/// One ply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlyRecord {
    /// 1 for the first move of the game.
    pub ply: u32,
    /// `S` or `N`.
    pub side: String,
    /// The move, in canonical notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Wall time from the request written to the reply read, in microseconds.
    pub time_us: u64,
    /// CPU time of the bot's process tree during the move, in microseconds, if measurable.
    pub cpu_us: Option<u64>,
    /// Both clocks after the move, in milliseconds: South, North.
    pub clock_ms: [u64; 2],
    /// The position after the move.
    pub position: String,
    /// When the move was late by no more than the referee's own event-loop
    /// lag during it: that lag, in microseconds (the move was not forfeited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_excused_us: Option<u64>,
    /// The bot's info lines for this move, as sent (at most the protocol's cap).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub info: Vec<bao_protocol::Info>,
}

/// A bot's stderr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StderrRecord {
    /// `S` or `N`.
    pub side: String,
    /// Bytes the bot wrote to stderr in all.
    pub bytes_total: u64,
    /// Whether `text` holds less than all of it.
    pub truncated: bool,
    /// The kept stderr, lossy UTF-8: all of it under the cap (1 MiB); past it, the first and
    /// the last half-cap with a marker line between them.
    pub text: String,
}

/// The last line of a game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// `S wins (front_row_empty)`, `draw (max_plies)`, `aborted`.
    pub result: String,
    /// `S`, `N`, or null.
    pub winner: Option<String>,
    /// Why the game ended.
    pub reason: Reason,
    /// What happened, for people.
    pub detail: String,
    /// Plies played.
    pub plies: u32,
    /// Wall time of the game, milliseconds.
    pub duration_ms: u64,
    /// The position at the end of the game.
    pub final_position: String,
    /// For a verdict against a bot: what it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offense: Option<Offense>,
    /// How each bot's process ended: South, North.
    pub exits: [String; 2],
}

/// What a faulty bot did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offense {
    /// `S` or `N`.
    pub side: String,
    /// The offending line (truncated to 512 bytes), if there was one.
    pub line: Option<String>,
    /// The move it sent, if it sent one that was illegal.
    #[serde(rename = "move")]
    pub mv: Option<String>,
}

/// Writes a game log line by line.
#[derive(Debug)]
pub struct GameLog {
    file: Option<File>,
    path: Option<PathBuf>,
}

impl GameLog {
    /// Creates (truncates) the log at `path`, creating missing directories.
    ///
    /// # Errors
    /// Any I/O error, with the path in the message.
    pub fn create(path: &Path) -> Result<GameLog, GameError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| GameError::log(Some(path), e))?;
        }
        let file = File::create(path).map_err(|e| GameError::log(Some(path), e))?;
        Ok(GameLog { file: Some(file), path: Some(path.to_path_buf()) })
    }

    /// A log that writes nothing (for benchmarks).
    #[must_use]
    pub fn discard() -> GameLog {
        GameLog { file: None, path: None }
    }

    /// The path written to, if any.
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Appends one record as one complete line.
    ///
    /// # Errors
    /// Any I/O error, with the path.
    pub fn write(&mut self, record: &LogRecord) -> Result<(), GameError> {
        let Some(file) = &mut self.file else { return Ok(()) };
        let mut line =
            serde_json::to_vec(record).map_err(|e| GameError::log(self.path.as_deref(), e.into()))?;
        line.push(b'\n');
        file.write_all(&line).map_err(|e| GameError::log(self.path.as_deref(), e))
    }

    /// Flushes the file to disk (fsync).
    ///
    /// # Errors
    /// Any I/O error.
    pub fn sync(&mut self) -> Result<(), GameError> {
        match &mut self.file {
            Some(file) => file.sync_all().map_err(|e| GameError::log(self.path.as_deref(), e)),
            None => Ok(()),
        }
    }
}

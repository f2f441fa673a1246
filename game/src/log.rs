//! The game log: JSON Lines, one record per line, written as the game goes.
//!
//! Every record is written with a single `write` of a complete line to an
//! unbuffered file as soon as it is made, so a referee killed at any moment leaves every
//! finished line intact. The game's own thread writes it (one `write` into the page cache, a
//! few microseconds with the serialisation); that thread does not time the bots' replies (their reader threads stamp
//! them, see `bao-supervise`), so a slow write delays the next request, never what a bot is
//! charged. The fsync at the end runs on a blocking task. The format is documented in
//! `docs/game-log.md`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::GameError;

use crate::{Reason, TimeControl};
use bao_rules::Side;
use bao_supervise::ResourceLimits;

/// The version of the log format written in every header. Version 2: the header comes before
/// the bots are started (their `ready` records follow it), each move is charged to its reply's
/// arrival in exact microseconds (no lag is excused), so `verify` can replay the clocks.
/// Version 3: the header records the rules revision the game was played under
/// ([`Header::rules_revision`]); a version 2 log was played under rules revision 1.
pub const LOG_VERSION: u32 = 3;

/// The rules revision of every log of format version 2, which did not record it.
pub const LOG_VERSION_2_RULES_REVISION: u32 = 1;

/// One line of a game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[expect(clippy::large_enum_variant, reason = "records are built one at a time and written at once")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogRecord {
    /// The first line: who plays what, under which rules and clocks.
    Header(Header),
    /// What a bot said in its ready message (after the header, before the first ply).
    Ready(ReadyRecord),
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
    /// The revision of the rules the game was played under ([`bao_rules::RULES_REVISION`] of
    /// the referee that wrote it). Absent (`None`) only in logs of version 2, which were
    /// played under revision [`LOG_VERSION_2_RULES_REVISION`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_revision: Option<u32>,
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
    /// South's and North's own time controls, when they differ (per-bot time controls of a
    /// tournament); `time_control` is then not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_controls: Option<[TimeControl; 2]>,
    /// Draw adjudication after this many plies.
    pub max_plies: Option<u32>,
    /// The seed of the run (schedules, openings).
    pub seed: u64,
    /// Resource limits applied to each bot.
    pub limits: ResourceLimits,
    /// Wall-clock start time, RFC 3339 UTC.
    pub started_at: String,
    /// How the bots' CPU was held: whether the CPU limit of `limits` was enforced here, and
    /// whether pondering was off (absent in logs written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuRecord>,
    /// Lag compensation: the most of a person's measured network lag credited to one move, in
    /// µs, South's and North's (0 for a bot: bots never get lag credit). Written when a
    /// person's seat has it; absent: no credit for anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lag_credit_us: Option<[u64; 2]>,
}

/// How the bots' CPU was held in a game (see `docs/supervision.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuRecord {
    /// Whether the kernel held each bot's whole tree to the CPU limit (`limits.cpus`).
    pub confined: bool,
    /// How (`cgroup v2 cpu.max`…) when confined; why not otherwise.
    pub detail: String,
    /// Whether the bot not to move was frozen (`--no-ponder`): a bot got CPU only while its
    /// own clock ran.
    pub no_ponder: bool,
}

/// A bot's ready message, as the log records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadyRecord {
    /// The bot's side, `S` or `N`.
    #[serde(deserialize_with = "side_letter::side")]
    pub side: Side,
    /// What it reported.
    #[serde(flatten)]
    pub reported: Reported,
    /// Whether its process was new for this game or kept from earlier games (protocol 1.1):
    /// written in the games of a run that may keep processes (`--restart on-fault`), absent
    /// otherwise (every process new, as in every log written before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<crate::kept::ProcessRecord>,
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
    /// What the bot said in its ready message: always null in a version 2 header, which is
    /// written before the bots start (see the `ready` records).
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
    /// What its `ready` said of the games per process (protocol 1.1; absent: one).
    #[serde(default, skip_serializing_if = "bao_protocol::GamesPerProcess::is_one")]
    pub games: bao_protocol::GamesPerProcess,
}

/// One ply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlyRecord {
    /// 1 for the first move of the game.
    pub ply: u32,
    /// The side that moved, `S` or `N`.
    #[serde(deserialize_with = "side_letter::side")]
    pub side: Side,
    /// The move, in canonical notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Wall time from the request's write to the reply's arrival, in microseconds.
    pub time_us: u64,
    /// CPU time of the bot's process tree during the move, in microseconds, if measurable.
    pub cpu_us: Option<u64>,
    /// Both clocks after the move, in milliseconds: South, North.
    pub clock_ms: [u64; 2],
    /// The position after the move.
    pub position: String,
    /// Version 1 only: lag excused to a late move. A version 2 referee charges every move to
    /// its reply's arrival and excuses nothing, so it never writes this field; `verify`
    /// rejects a version 2 log that has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_excused_us: Option<u64>,
    /// A person's move: the part of its network lag credited to it (lag compensation), µs.
    /// The clock is charged `time_us - lag_credit_us`; never more than the header's
    /// `max_lag_credit_us` for the side, nor than `time_us`. Absent for a bot's move (and in
    /// games without lag compensation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_credit_us: Option<u64>,
    /// The bot's info lines for this move, as sent (at most the protocol's cap).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub info: Vec<bao_protocol::Info>,
}

/// A bot's stderr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StderrRecord {
    /// The bot's side, `S` or `N`.
    #[serde(deserialize_with = "side_letter::side")]
    pub side: Side,
    /// Bytes the bot wrote to stderr in all.
    pub bytes_total: u64,
    /// Whether `text` holds less than all of it.
    pub truncated: bool,
    /// The kept stderr, lossy UTF-8: all of it when it takes at most the cap (1 MiB) in
    /// the log, escapes counted (a control character is six bytes, `\u0000`); past it, about
    /// the first and the last half-cap with a marker line between them that says how many
    /// bytes of stderr are left out.
    pub text: String,
}

/// The last line of a game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// `S wins (front_row_empty)`, `draw (max_plies)`, `aborted`.
    pub result: String,
    /// `S`, `N`, or null.
    #[serde(default, deserialize_with = "side_letter::winner")]
    pub winner: Option<Side>,
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
    /// The faulty bot's side, `S` or `N`.
    #[serde(deserialize_with = "side_letter::offense_side")]
    pub side: Side,
    /// The offending line (truncated to 512 bytes), if there was one.
    pub line: Option<String>,
    /// The move it sent, if it sent one that was illegal.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// For a timeout: the time the bot had taken when the verdict came, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_us: Option<u64>,
}

/// The log's sides read back: exactly `"S"` or `"N"` (as [`Side`] writes them), and an error
/// that names the field otherwise.
mod side_letter {
    use bao_rules::Side;
    use serde::de::Error;
    use serde::{Deserialize, Deserializer};

    /// A record's `side`.
    pub fn side<'de, D: Deserializer<'de>>(d: D) -> Result<Side, D::Error> {
        letter(&String::deserialize(d)?, "side")
    }

    /// The `side` of a result's `offense`.
    pub fn offense_side<'de, D: Deserializer<'de>>(d: D) -> Result<Side, D::Error> {
        letter(&String::deserialize(d)?, "offense.side")
    }

    /// A result's `winner`: a side or null.
    pub fn winner<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Side>, D::Error> {
        Option::<String>::deserialize(d)?.map(|text| letter(&text, "winner")).transpose()
    }

    fn letter<E: Error>(text: &str, field: &str) -> Result<Side, E> {
        Side::from_letter_text(text)
            .ok_or_else(|| E::custom(format!("{field} is {text:?}, expected \"S\" or \"N\"")))
    }
}

/// Writes a game log line by line: each record is serialised into a buffer the log keeps
/// and written with one `write` of the complete line, at once, by the caller's thread.
///
/// The line reaches the file (the page cache) before [`GameLog::write`] returns, so a
/// referee killed at any moment leaves every record written so far. A write error is
/// returned by that `write` and by every later `write`, [`GameLog::sync`] and
/// [`GameLog::finish`]: nothing is written after it.
#[derive(Debug)]
pub struct GameLog {
    file: Option<File>,
    path: Option<PathBuf>,
    /// The line being written, reused from record to record.
    line: Vec<u8>,
    /// The first write error (kind and message).
    error: Option<(std::io::ErrorKind, String)>,
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
        Ok(GameLog { file: Some(file), path: Some(path.to_path_buf()), line: Vec::new(), error: None })
    }

    /// A log that writes nothing (for benchmarks).
    #[must_use]
    pub fn discard() -> GameLog {
        GameLog { file: None, path: None, line: Vec::new(), error: None }
    }

    /// The path written to, if any.
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Appends one record as one complete line, written before this returns.
    ///
    /// # Errors
    /// This write's or an earlier write's I/O error, with the path.
    pub fn write(&mut self, record: &LogRecord) -> Result<(), GameError> {
        let Some(file) = &mut self.file else { return Ok(()) };
        if let Some(error) = &self.error {
            return Err(GameError::log(self.path.as_deref(), broken(error)));
        }
        self.line.clear();
        // A ply record (one per ply) is written without the serialiser when it can be.
        let encoded = matches!(record, LogRecord::Ply(ply) if crate::ply_line::encode(ply, &mut self.line));
        if !encoded {
            serde_json::to_writer(&mut self.line, record)
                .map_err(|e| GameError::log(self.path.as_deref(), e.into()))?;
        }
        self.line.push(b'\n');
        file.write_all(&self.line).map_err(|e| {
            self.error = Some((e.kind(), e.to_string()));
            GameError::log(self.path.as_deref(), e)
        })
    }

    /// Flushes the file to disk (`fdatasync`: the lines and the length, not the times). Blocks:
    /// call it from a blocking task.
    ///
    /// # Errors
    /// Any I/O error, with the path (an earlier write's too).
    pub fn sync(&mut self) -> Result<(), GameError> {
        let Some(file) = &self.file else { return Ok(()) };
        if let Some(error) = &self.error {
            return Err(GameError::log(self.path.as_deref(), broken(error)));
        }
        file.sync_data().map_err(|e| GameError::log(self.path.as_deref(), e))
    }

    /// Closes the log.
    ///
    /// # Errors
    /// An I/O error of an earlier write, with the path.
    pub fn finish(self) -> Result<(), GameError> {
        match &self.error {
            Some(error) => Err(GameError::log(self.path.as_deref(), broken(error))),
            None => Ok(()),
        }
    }
}

/// The error of a log whose earlier write failed.
fn broken((kind, message): &(std::io::ErrorKind, String)) -> std::io::Error {
    std::io::Error::new(*kind, format!("an earlier write failed: {message}"))
}

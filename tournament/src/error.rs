//! Every error of the library, in one place: what went wrong, said once, with the file or the
//! game it concerns. Each module re-exports its own (`journal::JournalError`, ...); a caller
//! that runs a whole tournament sees [`Error`], which says whether the input was at fault
//! ([`Error::is_input`]) or the machine.

use std::path::PathBuf;

use bao_game::opening::NoRandomOpening;

use crate::bots::KEYS;
use crate::schedule::MAX_GAMES;
use crate::shard::{COUNT_VAR, K8S_INDEX, SLURM_INDEX};

// ---- bots ----
/// Why the bots cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BotListError {
    /// A `--bot` word that is not `KEY=VALUE`.
    #[error("--bot #{bot}: {word:?} is not KEY=VALUE (keys: {KEYS})")]
    NotKeyValue {
        /// The 1-based `--bot` occurrence.
        bot: usize,
        /// The word.
        word: String,
    },
    /// An unknown key.
    #[error("--bot #{bot}: unknown key {key:?} (keys: {KEYS})")]
    UnknownKey {
        /// The 1-based `--bot` occurrence.
        bot: usize,
        /// The key.
        key: String,
    },
    /// A key given twice.
    #[error("--bot #{bot}: {key}= is given twice")]
    Repeated {
        /// The 1-based `--bot` occurrence.
        bot: usize,
        /// The key.
        key: &'static str,
    },
    /// No command.
    #[error("{what}: no command (cmd=...)")]
    NoCommand {
        /// Which bot.
        what: String,
    },
    /// A command line that cannot be split or is empty.
    #[error("{what}: cmd {command:?}: {message}")]
    BadCommand {
        /// Which bot.
        what: String,
        /// The command line.
        command: String,
        /// Why.
        message: String,
    },
    /// The config file could not be read.
    #[error("cannot read the config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The config file is not valid.
    #[error("the config file {path} is not valid {format}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// JSON or TOML.
        format: &'static str,
        /// The parser's message.
        message: String,
    },
    /// The config file's extension is neither .json nor .toml.
    #[error("the config file {0} must end in .json or .toml")]
    UnknownFormat(PathBuf),
    /// A `tc=`, `st=` or `option.` value that is not valid.
    #[error("{what}: {message}")]
    BadValue {
        /// Which bot and key.
        what: String,
        /// Why.
        message: String,
    },
    /// Two bots with the same name.
    #[error("two bots are named {0:?}: give each bot its own name=")]
    DuplicateName(String),
}

// ---- folder ----
/// The folder is in use by another referee.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error("{0} is in use by another referee (its .lock is held); wait for it or use another --out")]
    Busy(PathBuf),
    /// I/O.
    #[error("cannot lock {path}: {reason}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The error (in the message, not a source: said once).
        reason: std::io::Error,
    },
}

// ---- journal ----
/// Why a journal cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// I/O.
    #[error("{path}: {reason}")]
    Io {
        /// The journal.
        path: PathBuf,
        /// The error (in the message, not a source: said once).
        reason: std::io::Error,
    },
    /// A complete line that is not an entry: the journal was damaged.
    #[error("{path}:{line}: not a journal entry ({message}); the journal is damaged")]
    Damaged {
        /// The journal.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The parser's message.
        message: String,
    },
}

// ---- openings ----
/// Why the openings cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    /// The file could not be read.
    #[error("cannot read the openings file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line of the file is not a position.
    #[error("{path}:{line}: not a position: {message}")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// Why.
        message: String,
    },
    /// The file holds no positions.
    #[error("the openings file {0} holds no positions")]
    Empty(PathBuf),
    /// No random opening of that many plies could be found.
    #[error(transparent)]
    NoRandomOpening(#[from] NoRandomOpening),
}

// ---- plan ----
/// Why a plan cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// I/O.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error (in the message, not a source: the path and the reason are said once).
        reason: std::io::Error,
    },
    /// Not a plan.
    #[error("{path} is not a tournament plan: {message}")]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        message: String,
    },
    /// A plan that is not consistent (only a hand-edited one): its fields, schedule, openings
    /// or bots disagree; the message says where.
    #[error("{0}")]
    Inconsistent(String),
}

// ---- schedule ----
/// Why a schedule cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// Fewer than two bots.
    #[error("a tournament needs at least two bots, {0} given")]
    TooFewBots(usize),
    /// An odd number of games per pairing and round.
    #[error("--games {0}: must be even and at least 2 (each opening is played twice, colours swapped)")]
    OddGames(u32),
    /// No rounds.
    #[error("--rounds must be at least 1")]
    NoRounds,
    /// Too many games.
    #[error(
        "the schedule would hold {0} games (pairings × --games × --rounds), more than the limit of {MAX_GAMES}"
    )]
    TooLarge(u64),
}

// ---- shard ----
/// Why a shard cannot be determined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not `I/N`, `auto` or `auto/N`.
    #[error("--shard {0:?}: expected I/N (1 <= I <= N), auto or auto/N")]
    Syntax(String),
    /// `auto` outside a job array.
    #[error(
        "--shard auto: neither {K8S_INDEX} (Kubernetes Indexed Job) nor {SLURM_INDEX} (Slurm job array) is set"
    )]
    NoJobIndex,
    /// `auto` without a known count.
    #[error("--shard auto: the number of shards is unknown; write --shard auto/N or set {COUNT_VAR}")]
    NoCount,
    /// An environment variable that is not a number.
    #[error("--shard auto: {name}={value:?} is not a non-negative integer")]
    BadVariable {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// The index from the environment is outside 1..=N.
    #[error("--shard auto: the job index gives shard {index}, outside 1..={count}")]
    OutOfRange {
        /// The 1-based shard from the environment.
        index: u64,
        /// The shard count.
        count: u32,
    },
}
// ---- executor ----
/// Why the game executor could not play or record a game (the game's verdicts, bots' faults
/// and the referee's faults alike, are in its result, not here).
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    /// The log could not be created, written or synced.
    #[error(transparent)]
    Log(#[from] bao_game::GameError),
    /// The log's folder could not be synced.
    #[error("cannot sync {}: {reason}", dir.display())]
    SyncDir {
        /// The folder.
        dir: PathBuf,
        /// The I/O error.
        reason: std::io::Error,
    },
    /// The blocking task that persists the log failed.
    #[error("the task persisting the log failed: {0}")]
    Blocking(String),
}

// ---- pages ----
/// Why a page (a game's replay, the index, their shared files) was not written. Pages are
/// derived from the logs: a page that cannot be written is a warning, never a stop.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The page cannot be written.
    #[error("cannot write {}: {reason}", path.display())]
    Write {
        /// The page.
        path: PathBuf,
        /// The I/O error.
        reason: std::io::Error,
    },
    /// The log cannot be shown as a full replay.
    #[error("{}: {reason}", log.display())]
    Log {
        /// The log.
        log: PathBuf,
        /// Why.
        reason: bao_viewer::FromLogError,
    },
}

// ---- preflight ----
/// A bot cannot run under the isolation asked for (an error before the game, not a forfeit).
#[derive(Debug, thiserror::Error)]
#[error("cannot start the bot {bot}: {source}")]
pub struct IsolationError {
    /// The bot's display name.
    pub bot: String,
    /// Why it cannot be isolated.
    #[source]
    pub source: bao_supervise::SpawnError,
}

// ---- a whole tournament ----
/// Why a tournament (or a merge of shards) could not go on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is not something this library can play or merge: the message says what and
    /// how to fix it (a folder holding another tournament, a journal entry of another plan...).
    #[error("{0}")]
    Input(String),
    /// A plan cannot be read or is not consistent.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The output folder is in use or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A schedule's parameters are impossible.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// The openings cannot be made (an unreadable file, random plies that always end the game).
    #[error(transparent)]
    Openings(#[from] OpeningError),
    /// The journal cannot be read or written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// A game could not be played or recorded.
    #[error("game {game}: {source}")]
    Game {
        /// The game's number.
        game: u32,
        /// Why.
        #[source]
        source: ExecutorError,
    },
    /// A file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What could not be done, naming the file (`cannot write results.json`).
        what: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The async runtime could not be started.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The signal handlers could not be installed.
    #[error("cannot install the signal handlers: {0}")]
    Signals(std::io::Error),
    /// The library's own failure (a task that panicked, a poisoned lock).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// Whether the caller's input is at fault (a plan, a folder, a journal that does not fit),
    /// rather than the machine (a disk, the runtime).
    #[must_use]
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Error::Input(_) | Error::Plan(_) | Error::Lock(_) | Error::Schedule(_) | Error::Openings(_)
        )
    }

    /// An I/O error with what could not be done.
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let what = what.into();
        move |source| Error::Io { what, source }
    }
}

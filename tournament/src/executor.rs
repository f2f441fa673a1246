//! Playing one game into a folder of logs: the one game executor of a tournament's games
//! ([`crate::execute`]) and of the competition server's engine.
//!
//! [`play`] creates the log (a log left by a killed run is overwritten from scratch) and plays
//! the game, handing every record and protocol line to the caller's observer (a tournament's
//! trace, the server's live pages); the bots are gone when it returns. [`Played::persist`] then
//! makes the log durable, in the one order both callers rely on: the log is fsynced
//! (`fdatasync`), closed, and its folder is fsynced (the log's new entry), so that a line that
//! records the game elsewhere (a tournament's journal, the server's database row) is never
//! durable before the log it points at.
//!
//! What the game was played with (bots, sandbox, limits, clocks) is the caller's
//! [`GameConfig`]; how it ended, including the referee's own failures
//! ([`bao_game::AbortCause::RefereeFault`]: never charged to a bot) and aborts on `abort`, is
//! in the [`GameResult`]. A failure of the executor itself (the log cannot be written) is an
//! [`ExecutorError`], never a result.

use std::path::{Path, PathBuf};

use bao_game::log::GameLog;
use bao_game::runner::GameObserver;
use bao_game::{GameConfig, GameResult, KeptProcess};
use tokio_util::sync::CancellationToken;

pub use crate::error::ExecutorError;
use crate::folder::sync_dir;

/// A game played to its end (or aborted), its log written but not yet durable.
#[derive(Debug)]
pub struct Played {
    /// How the game ended.
    pub result: GameResult,
    log: GameLog,
    path: PathBuf,
}

impl Played {
    /// The log's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Makes the log durable: fsyncs it, closes it, and fsyncs its folder. Blocking: call it
    /// off the games' event loop (`tokio::task::spawn_blocking`), or use [`play_durably`].
    ///
    /// # Errors
    /// The log or its folder cannot be written or synced (an earlier failed write included).
    pub fn persist(self) -> Result<GameResult, ExecutorError> {
        let Played { result, mut log, path } = self;
        log.sync()?;
        log.finish()?;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        sync_dir(&dir).map_err(|reason| ExecutorError::SyncDir { dir, reason })?;
        Ok(result)
    }
}

/// Plays the game of `config`, writing its log to `path` (its folder is created if need be);
/// `observer` sees every record and protocol line, `abort` ends the game at once (recorded as
/// aborted). The log is complete but not yet durable: see [`Played::persist`].
///
/// # Errors
/// The log cannot be created or written.
pub async fn play(
    config: &GameConfig,
    path: &Path,
    observer: &mut dyn GameObserver,
    abort: &CancellationToken,
) -> Result<Played, ExecutorError> {
    let mut log = GameLog::create(path)?;
    let result = bao_game::play_game(config, &mut log, observer, abort).await?;
    Ok(Played { result, log, path: path.to_path_buf() })
}

/// [`play`], in the bots' kept processes where given (South's, North's: see
/// [`bao_game::kept`]); returns, with the game, the processes that may play their bot's next
/// game.
///
/// # Errors
/// The log cannot be created or written (the kept processes given are then ended).
pub async fn play_keeping(
    config: &GameConfig,
    kept: [Option<KeptProcess>; 2],
    path: &Path,
    observer: &mut dyn GameObserver,
    abort: &CancellationToken,
) -> Result<(Played, [Option<KeptProcess>; 2]), ExecutorError> {
    let mut log = GameLog::create(path)?;
    let outcome = bao_game::play_game_keeping(config, kept, &mut log, observer, abort).await?;
    Ok((Played { result: outcome.result, log, path: path.to_path_buf() }, outcome.kept))
}

/// [`play`], then [`Played::persist`] on tokio's blocking pool: when this returns `Ok`, the
/// log and its folder entry are on disk.
///
/// # Errors
/// As [`play`] and [`Played::persist`].
pub async fn play_durably(
    config: &GameConfig,
    path: &Path,
    observer: &mut dyn GameObserver,
    abort: &CancellationToken,
) -> Result<GameResult, ExecutorError> {
    let played = play(config, path, observer, abort).await?;
    tokio::task::spawn_blocking(move || played.persist())
        .await
        .map_err(|e| ExecutorError::Blocking(e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game whose bot cannot start still ends with a result and a durable log; the log's
    /// folder is created.
    #[test]
    fn a_game_is_played_into_a_new_folder_and_persisted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games").join("00000.jsonl");
        let bot = bao_supervise::BotSpec {
            name: Some("missing".into()),
            program: dir.path().join("no-such-bot").display().to_string(),
            args: Vec::new(),
            dir: None,
        };
        let config = GameConfig::new(bot.clone(), bot, bao_rules::Variant::Kiswahili);
        let mut observer = bao_game::runner::Silent;
        let runtime = bao_game::runtime::build().unwrap();
        let result =
            runtime.block_on(play_durably(&config, &path, &mut observer, &CancellationToken::new())).unwrap();
        assert!(result.plies == 0, "{result:?}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.lines().count() >= 2, "{text}");
    }

    #[test]
    fn a_log_that_cannot_be_created_is_the_executor_s_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "").unwrap();
        let bot = bao_supervise::BotSpec { name: None, program: "x".into(), args: Vec::new(), dir: None };
        let config = GameConfig::new(bot.clone(), bot, bao_rules::Variant::Kiswahili);
        let runtime = bao_game::runtime::build().unwrap();
        let mut observer = bao_game::runner::Silent;
        let path = dir.path().join("file").join("00000.jsonl");
        let error = runtime
            .block_on(play(&config, &path, &mut observer, &CancellationToken::new()))
            .expect_err("a log under a file");
        assert!(error.to_string().contains("00000.jsonl"), "{error}");
    }
}

//! Playing one game on the engine thread: the log goes to disk (synced before
//! the answer), each record is published to the live hub.

use std::path::Path;

use bao_game::log::{GameLog, LogRecord};
use bao_game::runner::GameObserver;
use bao_game::{GameConfig, GameResult};
use tokio_util::sync::CancellationToken;

use crate::live::LiveHub;

/// Publishes a running game's moves.
struct LiveObserver<'a> {
    game_id: i64,
    live: &'a LiveHub,
}

impl GameObserver for LiveObserver<'_> {
    fn on_record(&mut self, record: &LogRecord) {
        self.live.record(self.game_id, record);
    }
}

/// Plays the game; the log is complete and synced to disk when this returns Ok.
pub async fn play(
    config: &GameConfig,
    log_path: &Path,
    game_id: i64,
    live: &LiveHub,
    cancel: &CancellationToken,
) -> Result<GameResult, String> {
    let mut log = GameLog::create(log_path)
        .map_err(|e| format!("cannot create the log {}: {e}", log_path.display()))?;
    let mut observer = LiveObserver { game_id, live };
    let result = bao_game::play_game(config, &mut log, &mut observer, cancel)
        .await
        .map_err(|e| format!("game {game_id} failed: {e}"))?;
    log.sync().map_err(|e| format!("cannot sync the log {}: {e}", log_path.display()))?;
    Ok(result)
}

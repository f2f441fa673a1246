//! Playing one game on the engine thread with the one game executor, `bao-tournament`'s (the
//! tournament's own): the log and its folder are fsynced before the answer, and each record is
//! published to the live hub. The sandbox is the game's configuration; a referee fault or an
//! abort is in the result.

use std::path::Path;

use bao_game::log::LogRecord;
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

/// Plays the game; the log is complete and durable (it and its folder synced) when this
/// returns Ok.
pub async fn play(
    config: &GameConfig,
    log_path: &Path,
    game_id: i64,
    live: &LiveHub,
    cancel: &CancellationToken,
) -> Result<GameResult, String> {
    let mut observer = LiveObserver { game_id, live };
    bao_tournament::executor::play_durably(config, log_path, &mut observer, cancel)
        .await
        .map_err(|e| format!("game {game_id} failed: {e}"))
}

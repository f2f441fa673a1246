//! What every check runs with: the bot, the clocks, the grace periods and the game lengths.

use std::time::Duration;

use bao_game::TimeControl;
use bao_supervise::BotSpec;

/// The longest game of the `long-game` check, in plies.
pub const LONG_GAME_PLIES: u32 = 400;
/// The requests of the `ids-increase` check.
pub const ID_REQUESTS: u64 = 5;
/// The seed of the checker's random opponent (fixed: the same bot gets the same games).
pub const OPPONENT_SEED: u64 = 1;
/// How long a bot has to exit after `quit` or the end of its input: the referee's grace period.
pub const QUIT_GRACE: Duration = Duration::from_millis(bao_protocol::DEFAULT_QUIT_GRACE_MS);
/// How long a bot has to exit when a check is over and its result no longer depends on it.
pub const CLEANUP_GRACE: Duration = Duration::from_millis(300);
/// Lateness forgiven on every move, as `bao-referee match` does by default.
pub const MARGIN: Duration = Duration::from_millis(bao_protocol::DEFAULT_MARGIN_MS);

/// The settings of one run of the checks.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The bot under test.
    pub spec: BotSpec,
    /// The time control announced in `hello` and enforced: a fixed time per move.
    pub time: TimeControl,
}

impl Settings {
    /// Settings for `spec` with a fixed time per move (plus [`MARGIN`]) and a startup time.
    /// The caller checks that neither is zero.
    #[must_use]
    pub fn new(spec: BotSpec, move_time: Duration, startup: Duration) -> Settings {
        let time = TimeControl {
            base: None,
            increment: Duration::ZERO,
            move_time: Some(move_time),
            startup,
            margin: MARGIN,
        };
        Settings { spec, time }
    }

    /// The time a move may take before it is late: the move time plus the margin.
    #[must_use]
    pub fn allowed(&self) -> Duration {
        self.time.move_time.unwrap_or_default() + self.time.margin
    }

    /// The move time.
    #[must_use]
    pub fn move_time(&self) -> Duration {
        self.time.move_time.unwrap_or_default()
    }
}

//! The referee's defaults: the one place each of them is defined. `bao-referee match`,
//! `tournament` and `check` show them in `--help`, [`TimeControl::default`] and
//! [`GameConfig::new`] start from them, and the docs (README.md, docs/check.md,
//! docs/game-log.md) quote them. They are the referee's policy, not the protocol's: the wire
//! carries whatever values a game uses.
//!
//! [`TimeControl::default`]: crate::TimeControl
//! [`GameConfig::new`]: crate::GameConfig::new

use std::time::Duration;

/// The starting time on each Fischer clock: 10 s (the `10` of `--tc 10+0.1`).
pub const BASE: Duration = Duration::from_secs(10);

/// The Fischer increment added after each move: 0.1 s (the `0.1` of `--tc 10+0.1`).
pub const INCREMENT: Duration = Duration::from_millis(100);

/// The time a bot has to start and answer `hello` with `ready` (`--startup-time`): 5 s.
pub const STARTUP: Duration = Duration::from_secs(5);

/// The lateness forgiven on every move, for scheduling and pipes (`--margin`): 100 ms.
pub const MARGIN: Duration = Duration::from_millis(100);

/// A game is adjudicated a draw after this many plies (`--max-plies`).
pub const MAX_PLIES: u32 = 1000;

/// How long a bot may take to exit after `quit`, and again after SIGTERM: 1 s.
pub const QUIT_GRACE: Duration = Duration::from_millis(1000);

/// How much of each bot's stderr is kept, in bytes (1 MiB). Defined by the supervision crate,
/// which keeps it.
pub use bao_supervise::DEFAULT_STDERR_CAP_BYTES as STDERR_CAP_BYTES;

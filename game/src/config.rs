//! What a game is played with: the bots, the variant and start, the time
//! control, adjudication and limits.

use std::time::Duration;

use bao_rules::{Position, Variant};
use serde::{Deserialize, Serialize};

use bao_supervise::{BotSpec, ResourceLimits};

use crate::defaults;

/// The time control of a game.
///
/// Either a Fischer clock (`base` plus `increment` after each move) or a
/// fixed time per move (`move_time`). A move is late when the time it used
/// exceeds the time left (or the move time) plus `margin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// The starting time on each clock (Fischer mode).
    #[serde(with = "millis_opt")]
    pub base: Option<Duration>,
    /// Added to a bot's clock after each of its moves (Fischer mode).
    #[serde(with = "millis")]
    pub increment: Duration,
    /// The time for every move (fixed move-time mode; `base` is `None`).
    #[serde(with = "millis_opt")]
    pub move_time: Option<Duration>,
    /// The time a bot has to answer the hello with ready.
    #[serde(with = "millis")]
    pub startup: Duration,
    /// Tolerance added to every deadline (process scheduling, pipes).
    #[serde(with = "millis")]
    pub margin: Duration,
}

impl Default for TimeControl {
    /// The [`defaults`]: 10 s + 0.1 s Fischer, 5 s startup, 100 ms margin.
    fn default() -> Self {
        TimeControl {
            base: Some(defaults::BASE),
            increment: defaults::INCREMENT,
            move_time: None,
            startup: defaults::STARTUP,
            margin: defaults::MARGIN,
        }
    }
}

/// Everything one game needs.
#[derive(Debug, Clone)]
pub struct GameConfig {
    /// The bot playing South (moves first).
    pub south: BotSpec,
    /// The bot playing North.
    pub north: BotSpec,
    /// The start position (its variant is the game's).
    pub start: Position,
    /// Clocks.
    pub time: TimeControl,
    /// A time control for one side instead of `time` (South's, North's): the per-bot time
    /// controls of a tournament (`--bot ... tc=`).
    pub side_time: [Option<TimeControl>; 2],
    /// Adjudicate a draw after this many plies.
    pub max_plies: Option<u32>,
    /// Recorded in the log (and passed to nothing else: bots get no seed).
    pub seed: u64,
    /// Resource limits for each bot.
    pub limits: ResourceLimits,
    /// At most this many bytes of each bot's stderr are kept, and at most this many bytes
    /// of the log (escapes counted) hold them.
    pub stderr_cap: usize,
    /// How long a bot may take to exit after quit (and after SIGTERM).
    pub quit_grace: Duration,
    /// Optional isolation of each bot (Linux namespaces; see docs/supervision.md).
    pub isolation: bao_supervise::Isolation,
    /// What the sandbox of each bot shows and allows under `--isolation full` (ignored
    /// otherwise): the competition server's `arena.toml` settings.
    pub sandbox: bao_supervise::SandboxProfile,
    /// Freeze the bot not to move (cgroup `cgroup.freeze`) from the arrival of its move until
    /// its next request is written: no pondering, a bot gets CPU only while its clock runs.
    pub no_ponder: bool,
    /// Whether a bot that declared `"games":"many"` may keep its process for its next game
    /// ([`crate::kept`]; default: never, a new process for every game).
    pub keep: crate::kept::KeepPolicy,
}

impl GameConfig {
    /// A configuration with the [`defaults`] for everything but the bots.
    #[must_use]
    pub fn new(south: BotSpec, north: BotSpec, variant: Variant) -> GameConfig {
        GameConfig {
            south,
            north,
            start: Position::start(variant),
            time: TimeControl::default(),
            side_time: [None, None],
            max_plies: Some(defaults::MAX_PLIES),
            seed: 0,
            limits: ResourceLimits { cpus: Some(bao_supervise::CpuShare::ONE), ..ResourceLimits::default() },
            stderr_cap: defaults::STDERR_CAP_BYTES,
            quit_grace: defaults::QUIT_GRACE,
            isolation: bao_supervise::Isolation::default(),
            sandbox: bao_supervise::SandboxProfile::default(),
            no_ponder: false,
            keep: crate::kept::KeepPolicy::default(),
        }
    }
}

impl GameConfig {
    /// The time control of `side`'s bot: its own, or the game's.
    #[must_use]
    pub fn time_for(&self, side: bao_rules::Side) -> TimeControl {
        self.side_time[side.index()].unwrap_or(self.time)
    }

    /// Each side's time control when they differ (for the log's header), `None` when equal.
    #[must_use]
    pub fn distinct_times(&self) -> Option<[TimeControl; 2]> {
        let both = [self.time_for(bao_rules::Side::South), self.time_for(bao_rules::Side::North)];
        (both[0] != both[1]).then_some(both)
    }
}

/// Serde for a `Duration` as whole milliseconds.
pub(crate) mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialises as milliseconds.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    /// Deserialises from milliseconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

/// Serde for an `Option<Duration>` as whole milliseconds or null.
pub(crate) mod millis_opt {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialises as milliseconds or null.
    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    /// Deserialises from milliseconds or null.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

//! Bot processes kept from one game to the next (protocol 1.1, PROTOCOL.md "Protocol 1.1").
//!
//! A bot whose `ready` says `"games":"many"` may play its next game in the same process: after
//! `game_over` it is sent the next game's `hello` instead of `quit`. The caller (a tournament's
//! worker slot) holds the [`KeptProcess`] between games and hands it to
//! [`crate::runner::play_game_keeping`] for the bot's next game; the game decides at its end
//! whether the process may be kept ([`KeepPolicy`], the bot's declaration, its conduct) and
//! returns it if so.
//!
//! A process is never kept after a fault of its bot (any verdict against it, a limit, a
//! timeout), after an abort, after [`KeepPolicy::max_games_per_process`] games, or when the
//! game has a CPU-time or output limit: the supervisor counts those over the life of a process,
//! and they are per game (so such games start every bot anew). The memory and process limits
//! hold the process whatever game it is in.

use std::time::Duration;

use bao_supervise::{BotProcess, BotSpec, ExitReport, ResourceLimits};

/// When a bot's process is started anew (`--restart`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Restart {
    /// A new process for every game, whatever the bot declares (protocol 1 behaviour).
    #[default]
    Always,
    /// A bot that declared `"games":"many"` keeps its process until a fault (or the limit of
    /// games per process).
    OnFault,
}

impl Restart {
    /// `always` or `on-fault`, as the command line spells it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Restart::Always => "always",
            Restart::OnFault => "on-fault",
        }
    }
}

/// Whether and how long processes are kept across games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeepPolicy {
    /// When processes are restarted.
    pub restart: Restart,
    /// At most this many games in one process (`None`: no limit).
    pub max_games_per_process: Option<u32>,
}

impl KeepPolicy {
    /// Whether a process may be kept at all in games with these limits: not with
    /// [`Restart::Always`], and not with a CPU-time or output limit (counted per process by the
    /// supervisor, but per game by the rules).
    #[must_use]
    pub fn allows(&self, limits: &ResourceLimits) -> bool {
        self.restart == Restart::OnFault && limits.max_cpu_secs.is_none() && limits.max_output_bytes.is_none()
    }

    /// Whether a process that has now played `games_played` games may play another.
    #[must_use]
    pub fn room_for_another(&self, games_played: u32) -> bool {
        self.max_games_per_process.is_none_or(|max| games_played < max)
    }
}

/// How a game's bot process came to it, as the log's `ready` record says (`process`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProcessRecord {
    /// Whether the process was started for this game (`games_before` is then 0).
    pub fresh: bool,
    /// Games the process had played before this one.
    pub games_before: u32,
    /// Its process id (the referee's view), with `spawned_at` the process's identity.
    pub pid: u32,
    /// When it was started, RFC 3339 UTC with milliseconds.
    pub spawned_at: String,
}

/// A bot process between two games: still running, waiting for its next `hello`.
#[derive(Debug)]
pub struct KeptProcess {
    pub(crate) process: Box<BotProcess>,
    pub(crate) spec: BotSpec,
    pub(crate) games_played: u32,
    pub(crate) spawned_at: String,
}

impl KeptProcess {
    /// Games it has played.
    #[must_use]
    pub fn games_played(&self) -> u32 {
        self.games_played
    }

    /// Its process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The bot it runs.
    #[must_use]
    pub fn spec(&self) -> &BotSpec {
        &self.spec
    }

    /// Ends it as a game's end does: `quit`, then the process tree is ended (waiting `grace`
    /// for it to exit, then SIGTERM, then SIGKILL).
    pub async fn retire(self, grace: Duration) -> ExitReport {
        let mut process = self.process;
        let deadline = tokio::time::Instant::now() + grace;
        let _ = process.send_line(&crate::wire::quit_line(), deadline).await;
        process.shutdown(grace).await
    }
}

//! Why a game ended (the wire vocabulary [`Reason`] of `bao-protocol`), how a process fault
//! becomes one, and a game's result.

use std::time::Duration;

use bao_rules::Side;

pub use bao_protocol::Reason;

/// The verdict for a fault of the process layer during play: the one mapping from what the
/// supervisor saw to the verdict, used by the game loop and by `check`.
#[must_use]
pub const fn for_fault(fault: &bao_supervise::BotFault) -> Reason {
    use bao_supervise::BotFault;
    match fault {
        BotFault::Timeout => Reason::Timeout,
        BotFault::LineTooLong { .. } => Reason::LineTooLong,
        BotFault::InvalidUtf8 => Reason::MalformedLine,
        BotFault::StdoutClosed => Reason::StdoutClosed,
        BotFault::OutputLimit { .. } => Reason::OutputLimit,
        BotFault::MemoryLimit => Reason::MemoryLimit,
        BotFault::CpuLimit => Reason::CpuLimit,
        BotFault::ProcessLimit => Reason::ProcessLimit,
        BotFault::Exited(_) | BotFault::Io(_) => Reason::BotExited,
    }
}

/// The verdict for a fault of the process layer while the bot starts (before its `ready`):
/// a resource limit it broke keeps its own verdict (`memory_limit`: a bot OOM-killed while
/// loading is told so, not "handshake failed"); anything else is `handshake_failed`.
#[must_use]
pub const fn for_startup_fault(fault: &bao_supervise::BotFault) -> Reason {
    let reason = for_fault(fault);
    if is_resource_limit(reason) { reason } else { Reason::HandshakeFailed }
}

/// Whether `reason` is the verdict for a resource limit set by the operator (memory, CPU time,
/// processes, output): the verdicts that can end a game before the bot's `ready` as well as
/// during it.
#[must_use]
pub const fn is_resource_limit(reason: Reason) -> bool {
    matches!(reason, Reason::MemoryLimit | Reason::CpuLimit | Reason::ProcessLimit | Reason::OutputLimit)
}

/// The end of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// The winner; `None` for a draw (adjudication) or an aborted game.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub reason: Reason,
    /// A sentence for people: what happened (the bot's line, its exit status...).
    pub detail: String,
    /// Plies played.
    pub plies: u32,
    /// Wall time of the whole game.
    pub duration: Duration,
    /// The names the bots reported (or their display names), South then North.
    pub names: [String; 2],
    /// The position at the end of the game.
    pub final_position: bao_rules::Position,
    /// For an aborted game, why (`None` for every other result).
    pub aborted: Option<AbortCause>,
}

/// Why a game was aborted: never a verdict on either bot, never counted or rated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbortCause {
    /// The referee was interrupted (Ctrl-C, SIGTERM, a server stopping).
    Interrupted,
    /// The referee or the machine failed, not a bot: no descriptors, memory, disk or
    /// processes to start a bot, a sandbox this machine cannot set up (the sentence says which).
    /// The game should be played again later.
    RefereeFault(String),
}

impl GameResult {
    /// `S wins (front_row_empty)`, `draw (max_plies)` or `aborted`.
    #[must_use]
    pub fn summary(&self) -> String {
        match (self.winner, self.reason) {
            (_, Reason::Aborted) => "aborted".to_owned(),
            (Some(w), r) => format!("{w} wins ({r})"),
            (None, r) => format!("draw ({r})"),
        }
    }
}

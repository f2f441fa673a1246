//! The command line of `bao-referee check`.

use std::path::PathBuf;
use std::time::Duration;

use bao_check::CheckKind;

/// The arguments of `bao-referee check`.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckArgs {
    /// The bot's command line (program and arguments), shell-quoted as one argument,
    /// e.g. "python3 bot.py --fast".
    pub command: String,
    /// The bot's working directory (default: the current directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The Fischer clock of the checks, BASE+INC in seconds (default 10+0.1, as `match`); the
    /// `move-time-clock` check always uses a fixed move time.
    #[arg(long, value_parser = crate::options::parse_tc, conflicts_with = "move_time")]
    pub tc: Option<(Duration, Duration)>,
    /// A fixed time for every move instead of the clock (plus a 100 ms margin): seconds (0.5)
    /// or with a unit (500ms, 2s); the `fischer-clock` check always uses a Fischer clock.
    #[arg(long, value_parser = crate::options::parse_positive_duration)]
    pub move_time: Option<Duration>,
    /// The time the bot has to start and answer hello.
    #[arg(long, default_value = crate::default_text::startup(), value_parser = crate::options::parse_positive_duration)]
    pub startup_time: Duration,
    /// Run only these checks (comma-separated or repeated); the handshake always runs first.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<CheckKind>,
    /// Print one JSON object with every check instead of the report for people.
    #[arg(long)]
    pub json: bool,
    /// How the bot is isolated: none, pid (the default) or full (docs/supervision.md).
    #[arg(long, value_enum, default_value = "pid")]
    pub isolation: bao_supervise::IsolationLevel,
}

impl CheckArgs {
    /// The checks to run, in their fixed order: the handshake, then those chosen by `--only`
    /// (all of them without it).
    #[must_use]
    pub fn selected(&self) -> Vec<CheckKind> {
        CheckKind::ALL
            .into_iter()
            .filter(|kind| *kind == CheckKind::Handshake || self.only.is_empty() || self.only.contains(kind))
            .collect()
    }
}

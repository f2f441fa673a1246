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
    /// The time the bot has for every move (plus a 100 ms margin): seconds (0.5) or with a unit (500ms, 2s).
    #[arg(long, default_value = "2s", value_parser = crate::options::parse_duration)]
    pub move_time: Duration,
    /// The time the bot has to start and answer hello.
    #[arg(long, default_value = "5s", value_parser = crate::options::parse_duration)]
    pub startup_time: Duration,
    /// Run only these checks (comma-separated or repeated); the handshake always runs first.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<CheckKind>,
    /// Print one JSON object with every check instead of the report for people.
    #[arg(long)]
    pub json: bool,
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

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
    pub only: Vec<CheckName>,
    /// Print one JSON object with every check instead of the report for people.
    #[arg(long)]
    pub json: bool,
    /// How the bot is isolated: none, pid (the default) or full (docs/supervision.md).
    #[arg(long, value_enum, default_value = "pid")]
    pub isolation: crate::isolation_arg::IsolationArg,
    /// Pass this variable of the referee's environment on to the bot under `--isolation
    /// full` (repeatable), as in `match`.
    #[arg(long = "pass-env", value_name = "NAME", value_parser = crate::options::parse_env_name)]
    pub pass_env: Vec<String>,
    /// The CPUs the bot's whole process tree may use at once, as in `match` (a number, or
    /// `none`).
    #[arg(long, value_name = "CPUS", default_value = "1", value_parser = crate::options::parse_cpus_per_bot)]
    pub cpus_per_bot: crate::options::CpusPerBot,
}

impl CheckArgs {
    /// The checks to run, in their fixed order: the handshake, then those chosen by `--only`
    /// (all of them without it).
    #[must_use]
    pub fn selected(&self) -> Vec<CheckKind> {
        CheckKind::ALL
            .into_iter()
            .filter(|kind| {
                *kind == CheckKind::Handshake || self.only.is_empty() || self.only.contains(&CheckName(*kind))
            })
            .collect()
    }
}

/// A check as `--only` names it: the command-line glue of [`CheckKind`] (bao-check knows
/// nothing of clap). The values are [`CheckKind::name`]s, each with its [`CheckKind::summary`]
/// in `--help`; a wrong one is refused with the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckName(pub CheckKind);

/// Every check's [`CheckName`], in [`CheckKind::ALL`]'s order.
static NAMES: [CheckName; CheckKind::ALL.len()] = {
    let mut names = [CheckName(CheckKind::Handshake); CheckKind::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = CheckName(CheckKind::ALL[i]);
        i += 1;
    }
    names
};

impl clap::ValueEnum for CheckName {
    fn value_variants<'a>() -> &'a [Self] {
        &NAMES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()).help(self.0.summary()))
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    #[test]
    fn every_check_is_a_value_of_only_under_its_name() {
        assert_eq!(CheckName::value_variants().len(), CheckKind::ALL.len());
        for (name, kind) in CheckName::value_variants().iter().zip(CheckKind::ALL) {
            assert_eq!(name.0, kind);
            let value = name.to_possible_value().expect("every check is selectable");
            assert_eq!(value.get_name(), kind.name());
            assert_eq!(CheckName::from_str(kind.name(), false), Ok(*name));
        }
    }
}

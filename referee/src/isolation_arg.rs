//! `--isolation none|pid|full`: the command line's names for [`IsolationLevel`] (clap lives
//! here, not in `bao-supervise`, which knows no command line).

use bao_supervise::IsolationLevel;

/// How far a bot is kept from everything else on the machine (docs/supervision.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum IsolationArg {
    /// A process group (and a cgroup) only: the bot runs beside the referee.
    None,
    /// Its own user, PID and mount namespaces and `/proc` (the default).
    #[default]
    Pid,
    /// The sandbox: `pid`, no network, a new root, seccomp, Landlock.
    Full,
}

impl From<IsolationArg> for IsolationLevel {
    fn from(arg: IsolationArg) -> Self {
        match arg {
            IsolationArg::None => Self::None,
            IsolationArg::Pid => Self::Pid,
            IsolationArg::Full => Self::Full,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    #[test]
    fn every_level_has_its_own_name_on_the_command_line() {
        let levels: Vec<IsolationLevel> = IsolationArg::value_variants().iter().map(|&a| a.into()).collect();
        assert_eq!(levels, IsolationLevel::ALL);
        for arg in IsolationArg::value_variants() {
            let name = arg.to_possible_value().expect("not skipped");
            assert_eq!(name.get_name(), IsolationLevel::from(*arg).name());
        }
        assert_eq!(IsolationLevel::from(IsolationArg::default()), IsolationLevel::default());
    }
}

//! Command-line options shared by `match` and `tournament`: variant, start,
//! time control, adjudication and resource limits.

use std::time::Duration;

use bao_rules::{Position, Variant};

use bao_game::TimeControl;
use bao_supervise::ResourceLimits;

/// Game options common to `match` and `tournament`.
#[derive(Debug, Clone, clap::Args)]
pub struct GameOptions {
    /// The variant: kiswahili (default) or kujifunza; with --start, it must be the position's.
    #[arg(long, value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// Start from this position (notation of docs/rules.md) instead of the variant's start.
    #[arg(long, value_parser = parse_position)]
    pub start: Option<Position>,
    /// Fischer time control BASE+INC in seconds, e.g. 10+0.1 (default), 60+1, 0.5+0.
    #[arg(long, value_parser = parse_tc, conflicts_with = "move_time")]
    pub tc: Option<(Duration, Duration)>,
    /// A fixed time per move instead of a clock: seconds (0.2) or with a unit (200ms).
    #[arg(long, value_parser = parse_positive_duration)]
    pub move_time: Option<Duration>,
    /// Time for a bot to start and answer the hello.
    #[arg(long, default_value = crate::default_text::startup(), value_parser = parse_positive_duration)]
    pub startup_time: Duration,
    /// Tolerance added to every deadline, for scheduling and pipes.
    #[arg(long, default_value = crate::default_text::margin(), value_parser = parse_duration)]
    pub margin: Duration,
    /// Adjudicate a draw after this many plies (0: never).
    #[arg(long, default_value_t = bao_game::defaults::MAX_PLIES)]
    pub max_plies: u32,
    /// Limit each bot's memory (bytes, or with a unit: 512M, 2G).
    #[arg(long, value_parser = parse_positive_bytes)]
    pub max_memory: Option<u64>,
    /// Limit each bot's CPU time for the whole game, in seconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_DURATION.as_secs()))]
    pub max_cpu: Option<u64>,
    /// Limit the number of processes each bot may run (itself included).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_PROCESSES))]
    pub max_processes: Option<u64>,
    /// Limit the bytes each bot may write to stdout and stderr together (bytes, or 10M).
    #[arg(long, value_parser = parse_positive_bytes)]
    pub max_output: Option<u64>,
    /// Run each bot without network access (a new network namespace; Linux, needs privileges).
    #[arg(long)]
    pub no_network: bool,
    /// How far each bot is kept from the referee, its opponent and other games: none (process
    /// group only), pid (own user, PID and mount namespaces and /proc; the default) or full
    /// (the sandbox: pid, no network, a new root with only the system folders and the bot's
    /// folder read-only, a private /tmp, seccomp, Landlock, a separate uid per bot when run
    /// as root, an environment of PATH, LANG, HOME and TMPDIR only, and at most 256 tasks
    /// unless --max-processes says otherwise). See docs/supervision.md.
    #[arg(long, value_enum, default_value = "pid")]
    pub isolation: crate::isolation_arg::IsolationArg,
    /// Pass this variable of the referee's environment on to each bot under `--isolation
    /// full`, whose bots otherwise get only PATH, LANG, HOME and TMPDIR (repeatable, e.g.
    /// --pass-env JAVA_OPTS; the other levels pass the whole environment).
    #[arg(long = "pass-env", value_name = "NAME", value_parser = parse_env_name)]
    pub pass_env: Vec<String>,
    /// The CPUs each bot's whole process tree may use at once, however many processes it
    /// starts (cgroup cpu.max): a number (1, 0.5, 2) or `none`. Where enough CPUs are free a
    /// bot also gets whole CPUs of its own. See docs/supervision.md.
    #[arg(long, value_name = "CPUS", default_value = "1", value_parser = parse_cpus_per_bot)]
    pub cpus_per_bot: CpusPerBot,
    /// Freeze the bot whose turn it is not (cgroup.freeze): a bot gets CPU only while its own
    /// clock runs (no pondering). See PROTOCOL.md.
    #[arg(long)]
    pub no_ponder: bool,
}

/// A sandbox profile passing `names` on (`--pass-env`), which only `--isolation full` takes.
///
/// # Errors
/// `--pass-env` with another isolation level (which passes the whole environment anyway).
pub fn pass_env_profile(
    names: &[String],
    isolation: bao_supervise::IsolationLevel,
) -> Result<bao_supervise::SandboxProfile, String> {
    if !names.is_empty() && isolation != bao_supervise::IsolationLevel::Full {
        return Err(format!(
            "--pass-env applies to --isolation full only (--isolation {} passes the whole environment)",
            isolation.name()
        ));
    }
    Ok(bao_supervise::SandboxProfile { pass_env: names.to_vec(), ..bao_supervise::SandboxProfile::default() })
}

/// `--pass-env`: the name of an environment variable (not empty, no `=`, no NUL).
///
/// # Errors
/// A message naming what is wrong with it.
pub fn parse_env_name(s: &str) -> Result<String, String> {
    if s.is_empty() || s.contains(['=', '\0']) {
        return Err(format!("{s:?} is not the name of an environment variable (not empty, no '=')"));
    }
    Ok(s.to_owned())
}

/// `--cpus-per-bot`: a CPU share, or `None` for no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpusPerBot(pub Option<bao_supervise::CpuShare>);

/// A number of CPUs (`0.5`, `1`, `2`), or `none`.
///
/// # Errors
/// A message naming the text that is neither.
pub fn parse_cpus_per_bot(s: &str) -> Result<CpusPerBot, String> {
    if s == "none" {
        return Ok(CpusPerBot(None));
    }
    s.parse().map(|cpus| CpusPerBot(Some(cpus))).map_err(|e| format!("{e}, or none for no limit"))
}

impl GameOptions {
    /// The time control these options describe.
    #[must_use]
    pub fn time_control(&self) -> TimeControl {
        let default = TimeControl::default();
        let (base, increment) = match (self.move_time, self.tc) {
            (Some(_), _) => (None, Duration::ZERO),
            (None, Some((base, inc))) => (Some(base), inc),
            (None, None) => (default.base, default.increment),
        };
        TimeControl {
            base,
            increment,
            move_time: self.move_time,
            startup: self.startup_time,
            margin: self.margin,
        }
    }

    /// The variant: the start position's, else --variant's, else Kiswahili.
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.start.map_or_else(|| self.variant.unwrap_or(Variant::Kiswahili), |p| p.variant())
    }

    /// The start position.
    ///
    /// # Errors
    /// When --variant names another variant than the --start position's.
    pub fn start_position(&self) -> Result<Position, String> {
        match (self.variant, self.start) {
            (Some(variant), Some(start)) if start.variant() != variant => Err(format!(
                "--variant {variant} conflicts with --start, a {} position: give one of them",
                start.variant()
            )),
            (_, Some(start)) => Ok(start),
            (variant, None) => Ok(Position::start(variant.unwrap_or(Variant::Kiswahili))),
        }
    }

    /// The resource limits.
    #[must_use]
    pub fn limits(&self) -> ResourceLimits {
        ResourceLimits {
            max_memory_bytes: self.max_memory,
            max_cpu_secs: self.max_cpu,
            max_processes: self.max_processes,
            max_output_bytes: self.max_output,
            cpus: self.cpus_per_bot.0,
        }
    }

    /// Refuses `--no-ponder` where a bot cannot be frozen, and says at start (on stderr) when
    /// a bot's CPU cannot be confined here.
    ///
    /// # Errors
    /// `--no-ponder` on a machine that cannot freeze a bot, with why.
    pub fn check_cpu_confinement(&self) -> Result<(), String> {
        let machine = bao_supervise::cpu_confinement();
        if self.no_ponder
            && let Err(why) = &machine.freeze
        {
            return Err(format!("--no-ponder: the bots cannot be frozen on this machine: {why}"));
        }
        if self.cpus_per_bot.0.is_some() && !machine.limited() {
            eprintln!("warning: {}", machine.summary());
        }
        Ok(())
    }

    /// The sandbox's profile (`--pass-env`).
    ///
    /// # Errors
    /// `--pass-env` without `--isolation full`.
    pub fn sandbox(&self) -> Result<bao_supervise::SandboxProfile, String> {
        pass_env_profile(&self.pass_env, self.isolation.into())
    }

    /// The isolation asked for.
    #[must_use]
    pub fn isolation(&self) -> bao_supervise::Isolation {
        bao_supervise::Isolation { level: self.isolation.into(), no_network: self.no_network }
    }

    /// The ply limit, `None` for 0.
    #[must_use]
    pub fn max_plies(&self) -> Option<u32> {
        (self.max_plies > 0).then_some(self.max_plies)
    }
}

fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse::<Variant>().map_err(|e| e.to_string())
}

fn parse_position(s: &str) -> Result<Position, String> {
    s.parse::<Position>().map_err(|e| e.to_string())
}

/// The most processes `--max-processes` accepts.
pub const MAX_PROCESSES: u64 = 1 << 20;

pub use bao_tournament::units::{
    MAX_BYTES, MAX_DURATION, parse_bytes, parse_duration, parse_positive_bytes, parse_positive_duration,
    parse_tc,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_per_bot() {
        assert_eq!(parse_cpus_per_bot("none").unwrap(), CpusPerBot(None));
        assert_eq!(parse_cpus_per_bot("0.5").unwrap().0.unwrap().millis(), 500);
        assert!(parse_cpus_per_bot("0").unwrap_err().contains("none for no limit"));
        assert!(parse_cpus_per_bot("many").unwrap_err().contains("many"));
    }
}

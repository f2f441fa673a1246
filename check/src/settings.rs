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
pub const QUIT_GRACE: Duration = bao_game::defaults::QUIT_GRACE;
/// How long a bot has to exit when a check is over and its result no longer depends on it.
pub const CLEANUP_GRACE: Duration = Duration::from_millis(300);
/// Lateness forgiven on every move, as `bao-referee match` does by default.
pub const MARGIN: Duration = bao_game::defaults::MARGIN;

/// The Fischer clock of the `fischer-clock` check when the run uses a fixed move time.
pub const FISCHER_BASE: Duration = bao_game::defaults::BASE;
/// The increment of that clock.
pub const FISCHER_INCREMENT: Duration = bao_game::defaults::INCREMENT;
/// The move time of the `move-time-clock` check when the run uses a Fischer clock.
pub const MOVE_TIME: Duration = Duration::from_secs(2);

/// The settings of one run of the checks.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The bot under test.
    pub spec: BotSpec,
    /// The time control announced in `hello` and enforced: a Fischer clock (the default of
    /// `bao-referee match`) or a fixed time per move.
    pub time: TimeControl,
    /// How the bot is isolated (default: [`bao_supervise::IsolationLevel::Pid`]).
    pub isolation: bao_supervise::Isolation,
    /// The bot's resource limits (default: none); the competition server gives the games'.
    pub limits: bao_supervise::ResourceLimits,
    /// What the bot's sandbox shows and allows under `--isolation full` (ignored otherwise).
    pub sandbox: bao_supervise::SandboxProfile,
}

impl Settings {
    /// Settings for `spec` with a fixed time per move (plus [`MARGIN`]) and a startup time.
    /// The caller checks that neither is zero.
    #[must_use]
    pub fn new(spec: BotSpec, move_time: Duration, startup: Duration) -> Settings {
        Settings {
            spec,
            time: move_time_control(move_time, startup),
            isolation: bao_supervise::Isolation::default(),
            limits: bao_supervise::ResourceLimits {
                cpus: Some(bao_supervise::CpuShare::ONE),
                ..bao_supervise::ResourceLimits::default()
            },
            sandbox: bao_supervise::SandboxProfile::default(),
        }
    }

    /// Settings for `spec` with a Fischer clock of `base` plus `increment` per move (plus
    /// [`MARGIN`]) and a startup time. The caller checks that `base` and `startup` are not zero.
    #[must_use]
    pub fn fischer(spec: BotSpec, base: Duration, increment: Duration, startup: Duration) -> Settings {
        Settings {
            spec,
            time: fischer_control(base, increment, startup),
            isolation: bao_supervise::Isolation::default(),
            limits: bao_supervise::ResourceLimits {
                cpus: Some(bao_supervise::CpuShare::ONE),
                ..bao_supervise::ResourceLimits::default()
            },
            sandbox: bao_supervise::SandboxProfile::default(),
        }
    }

    /// The settings `kind` runs with: those of the run, except for the two clock checks, which
    /// each use their own mode (the run's figures when the run uses that mode).
    #[must_use]
    pub fn for_check(&self, kind: crate::CheckKind) -> Settings {
        let startup = self.time.startup;
        let time = match kind {
            crate::CheckKind::FischerClock if self.time.base.is_none() => {
                fischer_control(FISCHER_BASE, FISCHER_INCREMENT, startup)
            }
            crate::CheckKind::MoveTimeClock if self.time.move_time.is_none() => {
                move_time_control(MOVE_TIME, startup)
            }
            _ => self.time,
        };
        Settings {
            spec: self.spec.clone(),
            time,
            isolation: self.isolation,
            limits: self.limits,
            sandbox: self.sandbox.clone(),
        }
    }

    /// The time control of the second game of the `two-games` check: the other clock mode
    /// than the run's (a move time of [`MOVE_TIME`] after a Fischer clock, a Fischer clock of
    /// [`FISCHER_BASE`] + [`FISCHER_INCREMENT`] after a move time), with the run's startup time.
    #[must_use]
    pub fn other_mode(&self) -> TimeControl {
        match self.time.move_time {
            Some(_) => fischer_control(FISCHER_BASE, FISCHER_INCREMENT, self.time.startup),
            None => move_time_control(MOVE_TIME, self.time.startup),
        }
    }

    /// The time a move may take before it is late: the time on the clock plus the margin.
    #[must_use]
    pub fn allowed(&self) -> Duration {
        self.move_time() + self.time.margin
    }

    /// The time on the bot's clock when a move is requested: the fixed move time, or the base
    /// of a Fischer clock (every check's request is judged on a fresh clock).
    #[must_use]
    pub fn move_time(&self) -> Duration {
        self.time.move_time.or(self.time.base).unwrap_or_default()
    }

    /// The time control in words: `Fischer clock 10000+100 ms` or `move time 2000 ms`.
    #[must_use]
    pub fn time_control_text(&self) -> String {
        match (self.time.move_time, self.time.base) {
            (Some(move_time), _) => format!("move time {} ms", move_time.as_millis()),
            (None, base) => format!(
                "Fischer clock {}+{} ms",
                base.unwrap_or_default().as_millis(),
                self.time.increment.as_millis()
            ),
        }
    }
}

fn move_time_control(move_time: Duration, startup: Duration) -> TimeControl {
    TimeControl { base: None, increment: Duration::ZERO, move_time: Some(move_time), startup, margin: MARGIN }
}

fn fischer_control(base: Duration, increment: Duration, startup: Duration) -> TimeControl {
    TimeControl { base: Some(base), increment, move_time: None, startup, margin: MARGIN }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckKind;

    fn spec() -> BotSpec {
        BotSpec { name: None, program: "bot".to_owned(), args: Vec::new(), dir: None }
    }

    #[test]
    fn each_clock_check_uses_its_own_mode_and_the_others_the_run_s() {
        let startup = Duration::from_secs(3);
        let fischer = Settings::fischer(spec(), Duration::from_secs(60), Duration::from_secs(1), startup);
        assert_eq!(fischer.move_time(), Duration::from_secs(60));
        assert_eq!(fischer.time_control_text(), "Fischer clock 60000+1000 ms");
        assert_eq!(fischer.for_check(CheckKind::FischerClock).time, fischer.time);
        assert_eq!(fischer.for_check(CheckKind::FirstMove).time, fischer.time);
        let timed = fischer.for_check(CheckKind::MoveTimeClock);
        assert_eq!((timed.time.base, timed.time.move_time), (None, Some(MOVE_TIME)));
        assert_eq!(timed.time.startup, startup);

        let per_move = Settings::new(spec(), Duration::from_millis(500), startup);
        assert_eq!(per_move.time_control_text(), "move time 500 ms");
        assert_eq!(per_move.allowed(), Duration::from_millis(500) + MARGIN);
        assert_eq!(per_move.for_check(CheckKind::MoveTimeClock).time, per_move.time);
        let clock = per_move.for_check(CheckKind::FischerClock);
        assert_eq!((clock.time.base, clock.time.increment), (Some(FISCHER_BASE), FISCHER_INCREMENT));
        assert_eq!(clock.time.move_time, None);
        assert_eq!(per_move.other_mode(), clock.time, "two-games' second game: the other mode");
        assert_eq!(fischer.other_mode(), timed.time);
    }
}

//! How long a bot may think about one move, from the clock of its `move_request`.
//!
//! # The formula
//!
//! All times are measured from the moment the runner read the request line (the
//! referee's clock started a little earlier: pipe latency is covered by the safety
//! margin). With `safety(t) = min(t / 2, 5 ms + t / 20)`:
//!
//! | mode | soft budget | hard budget |
//! |---|---|---|
//! | Fischer, `R` left, increment `I` | `min(R / 30 + 3·I / 4, hard)` | `min(R − safety(R), 4 × (R / 30 + 3·I / 4))` |
//! | fixed move time `T` | `hard / 2` | `T − safety(T)` |
//! | unlimited (tests, analysis) | unlimited | unlimited |
//!
//! The **hard** budget is the time the bot must have answered by: going past it risks
//! losing on time. The **soft** budget is the time a bot should aim to use; an
//! iterative-deepening search does not start a new iteration past it. A bot may spend
//! more in a critical position with [`Deadline::extend_soft`], never past the hard budget.
//!
//! The referee's own tolerance (`margin_ms`) is not counted on: it is there for
//! scheduling noise, not for thinking.

use std::time::{Duration, Instant};

use bao_protocol::Clock;

/// The shortest safety margin kept in hand before the clock runs out.
pub const MIN_SAFETY: Duration = Duration::from_millis(5);

/// Fischer: the number of moves the remaining time is planned over.
pub const MOVES_TO_GO: u32 = 30;

/// The hard budget is at most this many soft budgets (Fischer).
pub const HARD_PER_SOFT: u32 = 4;

/// The time control a deadline was computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeMode {
    /// A Fischer clock: time left for this move, and the increment added after it.
    Fischer {
        /// Time left on the bot's clock.
        remaining: Duration,
        /// Added to the clock after this move.
        increment: Duration,
    },
    /// A fixed time for every move.
    MoveTime(Duration),
    /// No limit (analysis, tests, benchmarks).
    Unlimited,
}

/// The time budgets for one move. See the module documentation for the formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
    mode: TimeMode,
}

/// `min(t / 2, 5 ms + t / 20)`.
#[must_use]
pub fn safety(t: Duration) -> Duration {
    (t / 2).min(MIN_SAFETY + t / 20)
}

impl Deadline {
    /// The budgets for a request with `clock`, read at `start`.
    #[must_use]
    pub fn from_clock(clock: &Clock, start: Instant) -> Deadline {
        let mode = match clock.move_time_ms {
            Some(ms) => TimeMode::MoveTime(Duration::from_millis(ms)),
            None => TimeMode::Fischer {
                remaining: Duration::from_millis(clock.you_ms),
                increment: Duration::from_millis(clock.increment_ms),
            },
        };
        Deadline::for_mode(mode, start)
    }

    /// The budgets for `mode`, starting at `start`.
    #[must_use]
    pub fn for_mode(mode: TimeMode, start: Instant) -> Deadline {
        let (soft, hard) = match mode {
            TimeMode::Fischer { remaining, increment } => {
                let target = remaining / MOVES_TO_GO + increment * 3 / 4;
                let hard = remaining.saturating_sub(safety(remaining)).min(target * HARD_PER_SOFT);
                (Some(target.min(hard)), Some(hard))
            }
            TimeMode::MoveTime(t) => {
                let hard = t.saturating_sub(safety(t));
                (Some(hard / 2), Some(hard))
            }
            TimeMode::Unlimited => (None, None),
        };
        Deadline { start, soft, hard, mode }
    }

    /// A deadline with no limit, starting now.
    #[must_use]
    pub fn unlimited() -> Deadline {
        Deadline::for_mode(TimeMode::Unlimited, Instant::now())
    }

    /// A deadline of exactly `soft` and `hard` from now (`soft` is cut to `hard`).
    #[must_use]
    pub fn fixed(soft: Duration, hard: Duration) -> Deadline {
        let mode = TimeMode::MoveTime(hard);
        Deadline { start: Instant::now(), soft: Some(soft.min(hard)), hard: Some(hard), mode }
    }

    /// The time control the budgets come from.
    #[must_use]
    pub const fn mode(&self) -> TimeMode {
        self.mode
    }

    /// When the request was read.
    #[must_use]
    pub const fn start(&self) -> Instant {
        self.start
    }

    /// Time since the request was read.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The soft budget (from the start), or `None` when unlimited.
    #[must_use]
    pub const fn soft(&self) -> Option<Duration> {
        self.soft
    }

    /// The hard budget (from the start), or `None` when unlimited.
    #[must_use]
    pub const fn hard(&self) -> Option<Duration> {
        self.hard
    }

    /// Time left until the hard budget runs out (zero once it has; `Duration::MAX` when unlimited).
    #[must_use]
    pub fn remaining(&self) -> Duration {
        self.hard.map_or(Duration::MAX, |hard| hard.saturating_sub(self.elapsed()))
    }

    /// Whether the hard budget has run out: answer now.
    #[must_use]
    pub fn expired(&self) -> bool {
        self.hard.is_some_and(|hard| self.elapsed() >= hard)
    }

    /// Whether the soft budget has run out: start no new work.
    #[must_use]
    pub fn soft_expired(&self) -> bool {
        self.soft.is_some_and(|soft| self.elapsed() >= soft)
    }

    /// This deadline with the soft budget multiplied by `numerator / denominator`
    /// (more time in a critical position, less in an easy one), never past the hard budget.
    #[must_use]
    pub fn extend_soft(&self, numerator: u32, denominator: u32) -> Deadline {
        let soft = match (self.soft, self.hard) {
            (Some(soft), Some(hard)) => Some((soft * numerator / denominator.max(1)).min(hard)),
            (soft, _) => soft,
        };
        Deadline { soft, ..*self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn clock(you_ms: u64, increment_ms: u64, move_time_ms: Option<u64>) -> Clock {
        Clock { you_ms, opponent_ms: you_ms, increment_ms, move_time_ms }
    }

    #[test]
    fn fischer_budgets_follow_the_formula() {
        let now = Instant::now();
        // 10 s + 0.1 s: target 333 + 75 = 408 ms; hard 4 × 408 ms, well inside 10 s − 505 ms.
        let d = Deadline::from_clock(&clock(10_000, 100, None), now);
        assert_eq!(d.soft(), Some(ms(10_000) / 30 + ms(75)));
        assert_eq!(d.hard(), Some((ms(10_000) / 30 + ms(75)) * 4));
        assert_eq!(d.mode(), TimeMode::Fischer { remaining: ms(10_000), increment: ms(100) });
        // 50 ms left, no increment: hard is 4 × 1.67 ms, soft 1.67 ms.
        let d = Deadline::from_clock(&clock(50, 0, None), now);
        assert_eq!(d.soft(), Some(ms(50) / 30));
        assert_eq!(d.hard(), Some(ms(50) / 30 * 4));
        // 50 ms left, 100 ms increment: the target exceeds the clock, so both are 50 − 7.5 ms.
        let d = Deadline::from_clock(&clock(50, 100, None), now);
        assert_eq!(d.hard(), Some(Duration::from_micros(42_500)));
        assert_eq!(d.soft(), d.hard());
        // An empty clock: nothing to spend.
        assert_eq!(Deadline::from_clock(&clock(0, 0, None), now).hard(), Some(Duration::ZERO));
    }

    #[test]
    fn move_time_budgets_follow_the_formula() {
        let d = Deadline::from_clock(&clock(50, 0, Some(50)), Instant::now());
        assert_eq!(d.hard(), Some(Duration::from_micros(42_500)));
        assert_eq!(d.soft(), Some(Duration::from_micros(21_250)));
        let d = Deadline::from_clock(&clock(4, 0, Some(4)), Instant::now());
        assert_eq!(d.hard(), Some(ms(2)), "the margin is at most half the time");
    }

    #[test]
    fn safety_is_five_ms_plus_five_percent_at_most_half() {
        assert_eq!(safety(ms(1000)), ms(55));
        assert_eq!(safety(ms(6)), ms(3));
        assert_eq!(safety(Duration::ZERO), Duration::ZERO);
    }

    #[test]
    fn expiry_and_remaining() {
        let past = Instant::now().checked_sub(ms(100)).expect("the clock is past 100 ms");
        let d = Deadline::for_mode(TimeMode::MoveTime(ms(60)), past);
        assert!(d.expired() && d.soft_expired());
        assert_eq!(d.remaining(), Duration::ZERO);
        let open = Deadline::unlimited();
        assert!(!open.expired() && !open.soft_expired());
        assert_eq!(open.remaining(), Duration::MAX);
        assert_eq!(open.soft(), None);
        let fresh = Deadline::fixed(ms(3_600_000), ms(7_200_000));
        assert!(!fresh.expired() && fresh.remaining() > ms(3_600_000));
    }

    #[test]
    fn extending_the_soft_budget_stops_at_the_hard_one() {
        let d = Deadline::fixed(ms(100), ms(250));
        assert_eq!(d.extend_soft(2, 1).soft(), Some(ms(200)));
        assert_eq!(d.extend_soft(5, 1).soft(), Some(ms(250)));
        assert_eq!(d.extend_soft(1, 2).soft(), Some(ms(50)));
        assert_eq!(d.extend_soft(1, 0).soft(), Some(ms(100)), "a zero denominator counts as 1");
        assert_eq!(Deadline::unlimited().extend_soft(2, 1).soft(), None);
    }
}

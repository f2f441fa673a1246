//! A bot's clock: Fischer or fixed time per move.

use std::time::Duration;

use crate::TimeControl;

/// One bot's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Time left (Fischer mode); the move time (fixed mode).
    left: Duration,
    control: TimeControl,
}

/// A move that took longer than allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overrun {
    /// The time the move used.
    pub used: Duration,
    /// The time it was allowed, margin included.
    pub allowed: Duration,
}

impl Clock {
    /// A full clock for `control`.
    #[must_use]
    pub fn new(control: TimeControl) -> Clock {
        let left = control.move_time.or(control.base).unwrap_or(Duration::ZERO);
        Clock { left, control }
    }

    /// The time left for the next move, without the margin (what the bot is told).
    #[must_use]
    pub fn left(&self) -> Duration {
        self.left
    }

    /// The longest the next move may take before it is late: time left plus margin.
    #[must_use]
    pub fn allowed(&self) -> Duration {
        self.left + self.control.margin
    }

    /// Charges a move that used `used`. Late moves are an [`Overrun`]; otherwise
    /// the clock is updated (Fischer: minus used, plus increment).
    ///
    /// # Errors
    /// [`Overrun`] when `used` exceeds [`Clock::allowed`].
    pub fn charge(&mut self, used: Duration) -> Result<(), Overrun> {
        let allowed = self.allowed();
        if used > allowed {
            return Err(Overrun { used, allowed });
        }
        if self.control.move_time.is_none() {
            // A move within the margin leaves zero on the clock, not less.
            self.left = self.left.saturating_sub(used) + self.control.increment;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fischer(base_ms: u64, inc_ms: u64, margin_ms: u64) -> TimeControl {
        TimeControl {
            base: Some(Duration::from_millis(base_ms)),
            increment: Duration::from_millis(inc_ms),
            move_time: None,
            startup: Duration::from_secs(1),
            margin: Duration::from_millis(margin_ms),
        }
    }

    #[test]
    fn fischer_subtracts_used_and_adds_increment() {
        let mut c = Clock::new(fischer(1000, 100, 50));
        c.charge(Duration::from_millis(300)).unwrap();
        assert_eq!(c.left(), Duration::from_millis(800));
        assert_eq!(c.allowed(), Duration::from_millis(850));
    }

    #[test]
    fn the_margin_is_tolerated_and_leaves_zero() {
        let mut c = Clock::new(fischer(100, 0, 50));
        c.charge(Duration::from_millis(140)).unwrap();
        assert_eq!(c.left(), Duration::ZERO);
    }

    #[test]
    fn past_time_and_margin_is_an_overrun() {
        let mut c = Clock::new(fischer(100, 0, 50));
        let e = c.charge(Duration::from_millis(151)).unwrap_err();
        assert_eq!(e.allowed, Duration::from_millis(150));
        assert_eq!(e.used, Duration::from_millis(151));
    }

    #[test]
    fn fixed_move_time_resets_every_move() {
        let tc = TimeControl { base: None, move_time: Some(Duration::from_millis(200)), ..fischer(0, 0, 10) };
        let mut c = Clock::new(tc);
        c.charge(Duration::from_millis(190)).unwrap();
        assert_eq!(c.left(), Duration::from_millis(200));
        assert!(c.charge(Duration::from_millis(211)).is_err());
    }
}

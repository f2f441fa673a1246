//! Measuring the referee's own event-loop stalls, so that a bot is never forfeited on time for
//! a delay that was the referee's, and never given time for one that was not.
//!
//! A monitor task asks to wake every [`TICK`]; how late it actually wakes is the stall of the
//! runtime just before that moment (an overloaded machine, a busy thread). A bot is charged up
//! to the moment its reply line *arrived* (stamped by its supervisor when the line was read),
//! so the only referee delay that can make a bot look late is a stall in progress when its
//! line was due to be read: [`LagMonitor::stall_at`] measures exactly that, and nothing the
//! referee does after the line arrived counts. What [`ExcuseLimits`] allows of it is excused,
//! per move and per game, and logged (`lag_excused_us`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How often the monitor wakes.
pub const TICK: Duration = Duration::from_millis(5);

/// Wake-ups later than this are stalls; below it is timer granularity and the order in which
/// the tasks of one pass run.
pub const MIN_STALL: Duration = Duration::from_millis(5);

/// Tokio's timers round a deadline up to the next millisecond.
const TIMER_ROUNDING: Duration = Duration::from_millis(1);

/// A line read this long after the monitor's wake that ended a stall was still read in the
/// pass of the event loop that followed the stall (the tasks of one pass run one after another).
const SLACK: Duration = Duration::from_millis(2);

/// How many of the newest wake-ups a look-up reads at most: the cost of a look-up does not
/// grow with the history (a stall in progress at a moment is always among the newest records
/// by the time a game asks about it).
const LOOKBACK: usize = 64;

/// The ring of wake-ups (about 20 s of history at [`TICK`]).
const SLOTS: usize = 4096;

/// How much referee lag may be excused: at most `per_move` of one move and `per_game` in all of
/// one bot's moves of a game. Both are in the log's header, so `verify` can check every excuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcuseLimits {
    /// The most excused of one move, µs.
    pub per_move_us: u64,
    /// The most excused of one bot's moves in one game, µs.
    pub per_game_us: u64,
}

impl Default for ExcuseLimits {
    /// 250 ms per move, 1 s per bot and game.
    fn default() -> Self {
        ExcuseLimits { per_move_us: 250_000, per_game_us: 1_000_000 }
    }
}

/// Lag samples, shared between the monitor task and the game loops.
#[derive(Debug, Clone)]
pub struct LagMonitor {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    origin: Instant,
    /// A ring of (time of wake in µs since origin, lag in µs); written in time order.
    slots: Vec<(AtomicU64, AtomicU64)>,
    /// How many wake-ups were recorded in all.
    next: AtomicU64,
    worst_us: AtomicU64,
    /// When the monitor last woke, µs since `origin`.
    last_wake_us: AtomicU64,
}

impl LagMonitor {
    /// Starts a monitor task on the current tokio runtime. It runs until the runtime shuts down.
    #[must_use]
    pub fn start() -> LagMonitor {
        let monitor = LagMonitor::unstarted();
        let inner = Arc::clone(&monitor.inner);
        tokio::spawn(async move {
            loop {
                let asked = Instant::now();
                tokio::time::sleep(TICK).await;
                let lag = asked.elapsed().saturating_sub(TICK);
                inner.record(Instant::now(), lag);
            }
        });
        monitor
    }

    /// A monitor without its task (its records are written by hand in tests).
    fn unstarted() -> LagMonitor {
        LagMonitor {
            inner: Arc::new(Inner {
                origin: Instant::now(),
                slots: (0..SLOTS).map(|_| (AtomicU64::new(0), AtomicU64::new(0))).collect(),
                next: AtomicU64::new(0),
                worst_us: AtomicU64::new(0),
                last_wake_us: AtomicU64::new(0),
            }),
        }
    }

    /// The part after `since` of a referee stall in progress at `at` (zero if there was none):
    /// the time by which the stall may have delayed reading a line stamped at `at`.
    ///
    /// A stall is known from the wake-up that ended it (a wake at `w`, `lag` late, means the
    /// loop could not run from `w - lag` to `w`); a stall that has not ended yet (the monitor
    /// has not woken since) counts up to `at`. Reads at most a fixed number of records.
    #[must_use]
    pub fn stall_at(&self, since: Instant, at: Instant) -> Duration {
        let origin = self.inner.origin;
        let since_us = micros(since.saturating_duration_since(origin));
        let at_us = micros(at.saturating_duration_since(origin));
        let slack = micros(SLACK);
        let min = micros(MIN_STALL);
        let part = |start_us: u64, lag_us: u64| -> u64 {
            if lag_us < min {
                return 0;
            }
            at_us.saturating_sub(start_us.max(since_us)).min(lag_us)
        };
        let mut worst = 0;
        // A stall still in progress: the monitor is late right now.
        let last_wake = self.inner.last_wake_us.load(Ordering::Relaxed);
        let open_from = last_wake + micros(TICK + TIMER_ROUNDING);
        if at_us > open_from {
            worst = part(open_from, at_us - open_from);
        }
        let recorded = self.inner.next.load(Ordering::Relaxed);
        let newest = usize::try_from(recorded).unwrap_or(usize::MAX);
        for back in 1..=LOOKBACK.min(newest).min(SLOTS) {
            let (slot_at, slot_lag) = &self.inner.slots[(newest - back) % SLOTS];
            let wake = slot_at.load(Ordering::Relaxed);
            if wake + slack < at_us {
                break; // this and every older stall ended before `at`
            }
            let lag = slot_lag.load(Ordering::Relaxed);
            if wake.saturating_sub(lag) <= at_us {
                worst = worst.max(part(wake.saturating_sub(lag), lag));
            }
        }
        Duration::from_micros(worst)
    }

    /// The largest lag recorded by wake-ups after `since` (zero if none), reading back from the
    /// newest record only as far as `since` (for periodic summaries, not per move).
    #[must_use]
    pub fn worst_since(&self, since: Instant) -> Duration {
        let since_us = micros(since.saturating_duration_since(self.inner.origin));
        let newest = usize::try_from(self.inner.next.load(Ordering::Acquire)).unwrap_or(usize::MAX);
        let mut worst = 0;
        for back in 1..=newest.min(SLOTS) {
            let (slot_at, slot_lag) = &self.inner.slots[(newest - back) % SLOTS];
            if slot_at.load(Ordering::Relaxed) < since_us {
                break;
            }
            worst = worst.max(slot_lag.load(Ordering::Relaxed));
        }
        Duration::from_micros(worst)
    }

    /// The largest lag seen since the monitor started.
    #[must_use]
    pub fn worst(&self) -> Duration {
        Duration::from_micros(self.inner.worst_us.load(Ordering::Relaxed))
    }
}

impl Inner {
    fn record(&self, at: Instant, lag: Duration) {
        let at_us = micros(at.saturating_duration_since(self.origin));
        let i = usize::try_from(self.next.load(Ordering::Relaxed)).unwrap_or(0) % SLOTS;
        let (slot_at, slot_lag) = &self.slots[i];
        slot_lag.store(micros(lag), Ordering::Relaxed);
        slot_at.store(at_us, Ordering::Relaxed);
        self.next.fetch_add(1, Ordering::Release);
        self.last_wake_us.store(at_us, Ordering::Relaxed);
        self.worst_us.fetch_max(micros(lag), Ordering::Relaxed);
    }
}

/// A duration in whole microseconds (saturating).
#[must_use]
pub fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A monitor whose records are written by hand: a wake at `ms`, `lag_ms` late.
    fn with_wakes(wakes: &[(u64, u64)]) -> LagMonitor {
        let monitor = LagMonitor::unstarted();
        for &(at, lag) in wakes {
            monitor.inner.record(
                monitor.inner.origin + MS * u32::try_from(at).unwrap(),
                MS * u32::try_from(lag).unwrap(),
            );
        }
        monitor
    }

    fn at(monitor: &LagMonitor, ms: u64) -> Instant {
        monitor.inner.origin + MS * u32::try_from(ms).unwrap()
    }

    #[test]
    fn a_stall_counts_for_a_line_read_when_it_ended_and_only_after_the_request() {
        // The loop could not run from 100 ms to 160 ms.
        let m = with_wakes(&[(95, 0), (160, 60), (165, 0), (170, 0)]);
        assert_eq!(m.stall_at(at(&m, 50), at(&m, 158)), MS * 58);
        assert_eq!(m.stall_at(at(&m, 50), at(&m, 161)), MS * 60, "read in the pass after the stall");
        assert_eq!(m.stall_at(at(&m, 130), at(&m, 160)), MS * 30, "only the part after the request");
        assert_eq!(m.stall_at(at(&m, 50), at(&m, 170)), Duration::ZERO, "read after the loop ran again");
        assert_eq!(m.stall_at(at(&m, 50), at(&m, 90)), Duration::ZERO, "read before the stall");
        assert_eq!(m.worst(), MS * 60);
        assert_eq!(m.worst_since(at(&m, 150)), MS * 60);
        assert_eq!(m.worst_since(at(&m, 161)), Duration::ZERO);
    }

    #[test]
    fn a_stall_in_progress_counts_up_to_the_read() {
        // The last wake was at 200 ms: at 260 ms the loop has been stalled since about 206 ms.
        let m = with_wakes(&[(195, 0), (200, 0)]);
        assert_eq!(m.stall_at(at(&m, 100), at(&m, 260)), MS * 54);
        assert_eq!(m.stall_at(at(&m, 100), at(&m, 208)), Duration::ZERO, "timer noise is no stall");
    }

    #[test]
    fn an_old_stall_is_not_found_through_a_long_history() {
        let mut wakes = vec![(10, 8)];
        wakes.extend((0..2 * SLOTS as u64).map(|i| (20 + 5 * i, 0)));
        let m = with_wakes(&wakes);
        let end = 20 + 5 * (2 * SLOTS as u64 - 1);
        assert_eq!(m.stall_at(at(&m, 0), at(&m, 5)), Duration::ZERO);
        assert_eq!(m.stall_at(at(&m, 0), at(&m, end)), Duration::ZERO);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_blocked_runtime_shows_as_a_stall_at_the_read() {
        let monitor = LagMonitor::start();
        tokio::time::sleep(TICK * 3).await;
        let before = Instant::now();
        // Block the only worker thread: the monitor cannot wake on time. A line read right
        // after the block was delayed by it.
        std::thread::sleep(Duration::from_millis(60));
        let read_at = Instant::now();
        let open = monitor.stall_at(before, read_at);
        assert!(open >= Duration::from_millis(50), "in progress: {open:?}");
        tokio::time::sleep(TICK * 3).await;
        let ended = monitor.stall_at(before, read_at);
        assert!(ended >= Duration::from_millis(50), "recorded: {ended:?}");
        assert!(monitor.worst() >= Duration::from_millis(50));
    }
}

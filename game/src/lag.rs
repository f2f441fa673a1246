//! Measuring the referee's own event-loop lag, for the record: how late the loop that runs
//! every game could run its tasks (`worst_lag_us` in the journal, `worst_lag_ms` in results).
//!
//! Lag is never charged to a bot, and never excused either: a bot is charged from the write of
//! its request to the *arrival* of its reply, stamped by a reader thread of its own in
//! `bao-supervise` whatever the loop is doing, so the loop's lag cannot change what a bot is
//! charged. A monitor task asks to wake every [`TICK`]; how late it actually wakes is the lag
//! of the loop at that moment. Reading the lag costs nothing per move.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often the monitor wakes.
pub const TICK: Duration = Duration::from_millis(5);

/// The ring of wake-ups (about 20 s of history at [`TICK`]).
const SLOTS: usize = 4096;

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

    #[test]
    fn the_worst_lag_since_a_moment_reads_back_only_to_it() {
        let m = LagMonitor::unstarted();
        for (at, lag) in [(95, 0), (160, 60), (165, 0), (170, 3)] {
            m.inner.record(m.inner.origin + MS * at, MS * lag);
        }
        assert_eq!(m.worst_since(m.inner.origin + MS * 150), MS * 60);
        assert_eq!(m.worst_since(m.inner.origin + MS * 161), MS * 3);
        assert_eq!(m.worst_since(m.inner.origin + MS * 171), Duration::ZERO);
        assert_eq!(m.worst(), MS * 60);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_blocked_runtime_shows_as_lag() {
        let monitor = LagMonitor::start();
        tokio::time::sleep(TICK * 3).await;
        let before = Instant::now();
        // Block the only worker thread: the monitor cannot wake on time.
        std::thread::sleep(Duration::from_millis(60));
        tokio::time::sleep(TICK * 3).await;
        let lag = monitor.worst_since(before);
        assert!(lag >= Duration::from_millis(40), "lag {lag:?}");
        assert!(monitor.worst() >= lag);
    }
}

//! Measuring the referee's own event-loop lag, so that a bot is never
//! forfeited on time for a delay that was the referee's.
//!
//! A monitor task asks to wake every [`TICK`]; how late it actually wakes is
//! the lag of the runtime at that moment (an overloaded machine, a busy
//! worker thread). The game loop reads the largest lag seen while a bot was
//! thinking; see [`LagMonitor::max_since`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often the monitor wakes.
pub const TICK: Duration = Duration::from_millis(5);

/// Lag samples, shared between the monitor task and the game loops.
#[derive(Debug, Clone)]
pub struct LagMonitor {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    origin: Instant,
    /// A ring of (time of wake in µs since origin, lag in µs), packed in two u64s per slot.
    slots: Vec<(AtomicU64, AtomicU64)>,
    next: AtomicU64,
    worst_us: AtomicU64,
    /// When the monitor last woke, µs since `origin`.
    last_wake_us: AtomicU64,
}

const SLOTS: usize = 4096;

impl LagMonitor {
    /// Starts a monitor task on the current tokio runtime. It runs until the
    /// runtime shuts down.
    #[must_use]
    pub fn start() -> LagMonitor {
        let monitor = LagMonitor {
            inner: Arc::new(Inner {
                origin: Instant::now(),
                slots: (0..SLOTS).map(|_| (AtomicU64::new(0), AtomicU64::new(0))).collect(),
                next: AtomicU64::new(0),
                worst_us: AtomicU64::new(0),
                last_wake_us: AtomicU64::new(0),
            }),
        };
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

    /// The largest lag observed by wake-ups after `since` (zero if none),
    /// including the lag building up right now: a monitor that has not woken
    /// for longer than its tick shows that the loop is stalled at this moment
    /// (the caller may be polled before the monitor after a stall).
    #[must_use]
    pub fn max_since(&self, since: Instant) -> Duration {
        let since_us = micros(since.saturating_duration_since(self.inner.origin));
        let now_us = micros(self.inner.origin.elapsed());
        let last_wake = self.inner.last_wake_us.load(Ordering::Relaxed).max(since_us);
        let mut worst = now_us.saturating_sub(last_wake).saturating_sub(micros(TICK));
        for (at, lag) in &self.inner.slots {
            if at.load(Ordering::Relaxed) >= since_us {
                worst = worst.max(lag.load(Ordering::Relaxed));
            }
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
        self.last_wake_us.store(micros(at.saturating_duration_since(self.origin)), Ordering::Relaxed);
        let i = usize::try_from(self.next.fetch_add(1, Ordering::Relaxed)).unwrap_or(0) % SLOTS;
        let (slot_at, slot_lag) = &self.slots[i];
        slot_lag.store(micros(lag), Ordering::Relaxed);
        slot_at.store(micros(at.saturating_duration_since(self.origin)), Ordering::Relaxed);
        self.worst_us.fetch_max(micros(lag), Ordering::Relaxed);
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn a_blocked_runtime_shows_as_lag() {
        let monitor = LagMonitor::start();
        tokio::time::sleep(TICK * 3).await;
        let before = Instant::now();
        // Block the only worker thread: the monitor cannot wake on time.
        std::thread::sleep(Duration::from_millis(60));
        tokio::time::sleep(TICK * 3).await;
        let lag = monitor.max_since(before);
        assert!(lag >= Duration::from_millis(40), "lag {lag:?}");
        assert!(monitor.worst() >= lag);
    }
}

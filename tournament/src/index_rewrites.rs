//! Rewriting `index.html` while a tournament runs: on **one thread of its own**, at most every
//! [`INDEX_EVERY`], and never while the previous rewrite is still running.
//!
//! A rewrite works on its own copy of the counts and of the newest games, and builds a page of
//! about half a megabyte with [`crate::index_page::MAX_GAMES_LISTED`] games: a few megabytes
//! allocated and freed. Run on tokio's blocking pool, each rewrite landed on whichever pool
//! thread was free, and glibc's allocator gives threads separate arenas (up to 8 a core), each
//! of which kept the high-water mark of the rewrites it had hosted: the referee's memory grew
//! with the games played, one arena after the other, faster the faster games finished (issue
//! 27: 14.8 MB after 1,000 one-ply games, 29.4 MB after 10,000; flat with `MALLOC_ARENA_MAX=1`).
//! One thread reuses one arena, so a rewrite's memory is held once, whatever the rate or the
//! length of the run. The games finished during a rewrite are shown by the next one, and the
//! run's end writes the final page ([`crate::Tournament`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The least time between two rewrites of `index.html` while games finish.
pub const INDEX_EVERY: Duration = Duration::from_secs(2);

/// A rewrite: builds and writes the page from the copies it owns.
pub type Rewrite = Box<dyn FnOnce() + Send>;

/// The index's own thread and when it may rewrite (see the module docs). Dropping it waits for
/// the rewrite in progress, so that nothing writes the page after the run's final one.
#[derive(Debug, Default)]
pub struct IndexRewrites {
    /// Where rewrites go: `None` before the first or when the thread could not be started.
    thread: Option<(mpsc::SyncSender<Rewrite>, std::thread::JoinHandle<()>)>,
    /// Whether the thread could not be started (then no rewrite during the run).
    no_thread: bool,
    /// When the last rewrite started.
    started: Option<Instant>,
    /// Whether a rewrite is running (cleared by the thread when it ends).
    running: Arc<AtomicBool>,
}

impl IndexRewrites {
    /// Whether a rewrite may start at `now`: none is running and the last one started at least
    /// [`INDEX_EVERY`] ago. Build the rewrite's copies only then, and hand it to [`Self::start`].
    #[must_use]
    pub fn due(&self, now: Instant) -> bool {
        !self.no_thread
            && !self.running.load(Ordering::Acquire)
            && self.started.is_none_or(|at| now.saturating_duration_since(at) >= INDEX_EVERY)
    }

    /// Runs `rewrite` on the index's thread (started on the first call) if [`Self::due`] at
    /// `now`; true if it was handed over.
    pub fn start(&mut self, now: Instant, rewrite: Rewrite) -> bool {
        if !self.due(now) {
            return false;
        }
        if self.thread.is_none() {
            match self.spawn() {
                Ok(thread) => self.thread = Some(thread),
                Err(e) => {
                    tracing::warn!(
                        "cannot start the index page's thread ({e}): index.html is written at the end only"
                    );
                    self.no_thread = true;
                    return false;
                }
            }
        }
        let Some((sender, _)) = &self.thread else { return false };
        self.running.store(true, Ordering::Release);
        if sender.try_send(rewrite).is_err() {
            // The thread has ended (a rewrite panicked): no more rewrites during the run.
            self.running.store(false, Ordering::Release);
            self.no_thread = true;
            return false;
        }
        self.started = Some(now);
        true
    }

    fn spawn(&self) -> std::io::Result<(mpsc::SyncSender<Rewrite>, std::thread::JoinHandle<()>)> {
        // Room for one: `start` hands a rewrite over only when the thread is idle.
        let (sender, rewrites) = mpsc::sync_channel::<Rewrite>(1);
        let running = Arc::clone(&self.running);
        let thread = std::thread::Builder::new().name("bao index page".to_owned()).spawn(move || {
            for rewrite in rewrites {
                rewrite();
                running.store(false, Ordering::Release);
            }
        })?;
        Ok((sender, thread))
    }
}

impl Drop for IndexRewrites {
    fn drop(&mut self) {
        if let Some((sender, thread)) = self.thread.take() {
            drop(sender);
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// However long a rewrite takes, and however many games finish meanwhile, no second rewrite
    /// starts (nor is queued) until the first has ended; all of them run on one thread.
    #[test]
    fn one_rewrite_at_a_time_on_one_thread() {
        let mut rewrites = IndexRewrites::default();
        let (release, hold) = mpsc::channel::<()>();
        let (report, threads) = mpsc::channel::<std::thread::ThreadId>();
        let t0 = Instant::now();
        let first = report.clone();
        assert!(rewrites.start(
            t0,
            Box::new(move || {
                first.send(std::thread::current().id()).unwrap();
                hold.recv().unwrap();
            })
        ));
        let first_thread = threads.recv().unwrap();
        for second in 1..1_000 {
            let at = t0 + Duration::from_secs(second);
            assert!(!rewrites.due(at), "{second} s: a second rewrite while the first runs");
            assert!(!rewrites.start(at, Box::new(|| panic!("not to be run"))));
        }
        release.send(()).unwrap();
        let later = t0 + Duration::from_secs(1_000);
        // The first rewrite clears `running` just after it returns.
        while !rewrites.due(later) {
            std::thread::yield_now();
        }
        let second = report.clone();
        assert!(rewrites.start(later, Box::new(move || second.send(std::thread::current().id()).unwrap())));
        assert_eq!(threads.recv().unwrap(), first_thread, "the same thread");
        drop(rewrites);
        assert!(threads.try_recv().is_err(), "nothing else ran");
    }

    /// A rewrite that ended quickly still leaves [`INDEX_EVERY`] before the next one.
    #[test]
    fn at_most_one_rewrite_per_interval() {
        let mut rewrites = IndexRewrites::default();
        let t0 = Instant::now();
        assert!(rewrites.start(t0, Box::new(|| {})));
        let soon = t0 + INDEX_EVERY / 2;
        assert!(!rewrites.start(soon, Box::new(|| {})));
        while rewrites.running.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        assert!(!rewrites.due(soon));
        assert!(rewrites.due(t0 + INDEX_EVERY));
    }
}

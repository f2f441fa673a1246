//! The part of ending a bot that nobody waits for: once its end is known and every process
//! left in its cgroup has been sent SIGKILL (`cgroup.kill`), [`in_background`] waits (on
//! tokio's blocking pool, bounded) until the cgroup is empty, reaps the adopted orphans (the
//! namespace's init, whose exit tears down the bot's mount namespaces), removes the cgroup
//! and the bot's `TMPDIR`. [`wait_for_cleanups`] waits for all of them.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::Signal;

use crate::cgroup;
use crate::private_tmp::PrivateTmp;
use crate::pump::{Shared, lock};

/// How long the tree walk keeps killing leftover processes of a tree.
const LEFTOVER_KILL_WAIT: Duration = Duration::from_secs(1);
/// How long a cleanup waits for the cgroup to empty after each `cgroup.kill`.
const EMPTY_WAIT: Duration = Duration::from_secs(1);

/// Cleanups started and not finished.
static PENDING: Mutex<usize> = Mutex::new(0);
/// Signalled whenever a cleanup finishes.
static FINISHED: Condvar = Condvar::new();

/// Counts one cleanup as pending for as long as it lives (a panic included).
struct Pending;

impl Pending {
    fn new() -> Self {
        *PENDING.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        Self
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
        *pending = pending.saturating_sub(1);
        FINISHED.notify_all();
    }
}

/// Finishes ending a bot whose cgroup has been killed: waits until the cgroup is empty
/// (killing it once more after [`EMPTY_WAIT`]; a warning if processes are still there after
/// twice that), sweeps what the tree walk still finds (nothing, normally: see
/// [`kill_leftovers`]), reaps the bot's orphans, removes the cgroup, then the `TMPDIR` (or
/// keeps it for the next bot, see [`crate::PrivateTmpReuse`]).
pub(crate) fn in_background(shared: Arc<Shared>, tmp: Option<PrivateTmp>, pid: u32) {
    let pending = Pending::new();
    let job = move || {
        // Not locked while waiting: the pump may still need the tree (after a drop).
        let dir = lock(&shared.tree).cgroup().map(|c| c.dir().to_path_buf());
        let mut ended = true;
        if let Some(dir) = &dir {
            let empty = cgroup::wait_until_empty(dir, EMPTY_WAIT) || {
                cgroup::kill_dir(dir);
                cgroup::wait_until_empty(dir, EMPTY_WAIT)
            };
            if !empty {
                tracing::warn!(
                    "bot {pid}: processes still in {} {:?} after SIGKILL",
                    dir.display(),
                    EMPTY_WAIT * 2
                );
            }
            ended = empty;
        }
        let leftovers_gone = kill_leftovers(&shared);
        ended &= leftovers_gone;
        let mut tree = lock(&shared.tree);
        if !leftovers_gone {
            tree.reap_orphans();
        }
        tree.remove_cgroup();
        drop(tree);
        // Kept for the next bot only when nothing of this one can write in it any more.
        match tmp {
            Some(tmp) if ended => tmp.recycle(),
            other => drop(other),
        }
        drop(pending);
    };
    match tokio::runtime::Handle::try_current() {
        // Dropping the runtime waits for the blocking tasks that have started (one that had
        // not is dropped: its `TMPDIR` is removed all the same, an empty cgroup directory may be
        // left for the next referee's sweep, and every process was already killed).
        Ok(runtime) => drop(runtime.spawn_blocking(job)),
        Err(_) => drop(std::thread::spawn(job)),
    }
}

/// SIGKILLs whatever the tree walk still finds of the tree until nothing is (at most
/// [`LEFTOVER_KILL_WAIT`]), reaping adopted orphans; true if nothing is left. Blocking.
///
/// This is the only way to end a tree that no cgroup holds (the `/proc` walk has nothing to
/// wait on, so it looks again every 5 ms); with a cgroup that the whole tree was born in, it
/// runs after the cgroup is empty and finds nothing.
pub(crate) fn kill_leftovers(shared: &Shared) -> bool {
    let until = std::time::Instant::now() + LEFTOVER_KILL_WAIT;
    loop {
        let alive = {
            let mut tree = lock(&shared.tree);
            let alive = tree.reap_and_any_alive();
            if alive {
                tree.signal(Signal::SIGKILL);
            }
            alive
        };
        if !alive {
            return true;
        }
        if std::time::Instant::now() >= until {
            tracing::warn!("some processes of a bot survived SIGKILL for {LEFTOVER_KILL_WAIT:?}");
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until every bot's background cleanup has finished (its cgroup empty and removed, its
/// orphans reaped, its `TMPDIR` removed), at most `within`; true if they all have.
///
/// [`BotProcess::shutdown`](crate::BotProcess::shutdown) returns once the bot's end is known
/// and its whole tree has been sent SIGKILL; call this where it matters that everything is
/// gone (a test, or before a process exits without dropping its tokio runtime). Blocks the
/// calling thread.
pub fn wait_for_cleanups(within: Duration) -> bool {
    let pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
    let (pending, _) = FINISHED
        .wait_timeout_while(pending, within, |pending| *pending > 0)
        .unwrap_or_else(PoisonError::into_inner);
    *pending == 0
}

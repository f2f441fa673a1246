//! The game loop's running pair tasks and the versions they hold: a version is
//! busy from the moment its pair is scheduled until its task ends, however it
//! ends — done, failed, or panicked (a panic's `JoinError` still names its task).

use std::collections::{HashMap, HashSet};
use std::future::Future;

use tokio::task::{Id, JoinSet};

/// The running pair tasks, each answering a `T`.
pub struct PairTasks<T> {
    set: JoinSet<T>,
    holds: HashMap<Id, [i64; 2]>,
    busy: HashSet<i64>,
}

impl<T> Default for PairTasks<T> {
    fn default() -> Self {
        PairTasks { set: JoinSet::new(), holds: HashMap::new(), busy: HashSet::new() }
    }
}

impl<T: Send + 'static> PairTasks<T> {
    /// Runs `task`, holding the versions `ids` until it ends.
    pub fn spawn(&mut self, ids: [i64; 2], task: impl Future<Output = T> + Send + 'static) {
        let handle = self.set.spawn(task);
        self.busy.extend(ids);
        self.holds.insert(handle.id(), ids);
    }

    /// The versions held by running tasks.
    #[must_use]
    pub fn busy(&self) -> &HashSet<i64> {
        &self.busy
    }

    /// Tasks running.
    #[must_use]
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether none runs.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Waits for a task to end and frees its versions: the versions and the
    /// task's answer (`None` if it panicked); `None` when no task runs.
    pub async fn join_next(&mut self) -> Option<([i64; 2], Option<T>)> {
        let (id, answer) = match self.set.join_next_with_id().await? {
            Ok((id, answer)) => (id, Some(answer)),
            Err(e) => {
                tracing::error!(error = %e, "a pair task panicked: its versions are free again");
                (e.id(), None)
            }
        };
        let ids = self.holds.remove(&id).unwrap_or_default();
        for v in ids {
            self.busy.remove(&v);
        }
        Some((ids, answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_task_that_panics_or_ends_frees_its_versions() {
        let mut tasks = PairTasks::default();
        tasks.spawn([1, 2], async { panic!("a pair task fails badly") });
        tasks.spawn([3, 4], async { 7 });
        assert_eq!(tasks.busy().len(), 4);
        let mut freed = vec![tasks.join_next().await.expect("one"), tasks.join_next().await.expect("two")];
        freed.sort_unstable();
        assert_eq!(freed, vec![([1, 2], None), ([3, 4], Some(7))]);
        assert!(tasks.busy().is_empty(), "{:?}", tasks.busy());
        assert!(tasks.is_empty());
        assert_eq!(tasks.join_next().await, None);
    }
}

//! The game loop's running pair tasks and the versions they hold: a version is
//! busy from the moment its pair is scheduled until its task ends, however it
//! ends — done, failed, or panicked (a panic's `JoinError` still names its task).

use std::collections::{HashMap, HashSet};
use std::future::Future;

use tokio::task::{Id, JoinSet};

use crate::domain::VersionId;

/// The running pair tasks, each answering a `T`.
pub struct PairTasks<T> {
    set: JoinSet<T>,
    holds: HashMap<Id, [VersionId; 2]>,
    busy: HashSet<VersionId>,
}

impl<T> Default for PairTasks<T> {
    fn default() -> Self {
        PairTasks { set: JoinSet::new(), holds: HashMap::new(), busy: HashSet::new() }
    }
}

impl<T: Send + 'static> PairTasks<T> {
    /// Runs `task`, holding the versions `ids` until it ends.
    pub fn spawn(&mut self, ids: [VersionId; 2], task: impl Future<Output = T> + Send + 'static) {
        let handle = self.set.spawn(task);
        self.busy.extend(ids);
        self.holds.insert(handle.id(), ids);
    }

    /// The versions held by running tasks.
    #[must_use]
    pub fn busy(&self) -> &HashSet<VersionId> {
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
    pub async fn join_next(&mut self) -> Option<([VersionId; 2], Option<T>)> {
        loop {
            let (id, answer) = match self.set.join_next_with_id().await? {
                Ok((id, answer)) => (id, Some(answer)),
                Err(e) => {
                    tracing::error!(error = %e, "a pair task panicked: its versions are free again");
                    (e.id(), None)
                }
            };
            // Every task was spawned by `spawn`, with its versions.
            if let Some(ids) = self.holds.remove(&id) {
                for v in ids {
                    self.busy.remove(&v);
                }
                return Some((ids, answer));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_task_that_panics_or_ends_frees_its_versions() {
        let v = VersionId::new;
        let mut tasks = PairTasks::default();
        tasks.spawn([v(1), v(2)], async { panic!("a pair task fails badly") });
        tasks.spawn([v(3), v(4)], async { 7 });
        assert_eq!(tasks.busy().len(), 4);
        let mut freed = vec![tasks.join_next().await.expect("one"), tasks.join_next().await.expect("two")];
        freed.sort_unstable();
        assert_eq!(freed, vec![([v(1), v(2)], None), ([v(3), v(4)], Some(7))]);
        assert!(tasks.busy().is_empty(), "{:?}", tasks.busy());
        assert!(tasks.is_empty());
        assert_eq!(tasks.join_next().await, None);
    }
}

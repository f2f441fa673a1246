//! The game loop's running pair tasks and the versions they hold: a version is
//! busy from the moment its pair is scheduled until its task ends, however it
//! ends — done, failed, or panicked (a panic's `JoinError` still names its task).

use std::collections::{HashMap, HashSet};
use std::future::Future;

use tokio::task::{Id, JoinSet};

/// The running pair tasks.
#[derive(Default)]
pub struct PairTasks {
    set: JoinSet<()>,
    holds: HashMap<Id, [i64; 2]>,
    busy: HashSet<i64>,
}

impl PairTasks {
    /// Runs `task`, holding the versions `ids` until it ends.
    pub fn spawn(&mut self, ids: [i64; 2], task: impl Future<Output = ()> + Send + 'static) {
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

    /// Waits for a task to end and frees its versions; `None` when none runs.
    pub async fn join_next(&mut self) -> Option<[i64; 2]> {
        let id = match self.set.join_next_with_id().await? {
            Ok((id, ())) => id,
            Err(e) => {
                tracing::error!(error = %e, "a pair task panicked: its versions are free again");
                e.id()
            }
        };
        let ids = self.holds.remove(&id)?;
        for v in ids {
            self.busy.remove(&v);
        }
        Some(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_task_that_panics_or_ends_frees_its_versions() {
        let mut tasks = PairTasks::default();
        tasks.spawn([1, 2], async { panic!("a pair task fails badly") });
        tasks.spawn([3, 4], async {});
        assert_eq!(tasks.busy().len(), 4);
        let mut freed = vec![tasks.join_next().await.expect("one"), tasks.join_next().await.expect("two")];
        freed.sort_unstable();
        assert_eq!(freed, vec![[1, 2], [3, 4]]);
        assert!(tasks.busy().is_empty(), "{:?}", tasks.busy());
        assert!(tasks.is_empty());
        assert_eq!(tasks.join_next().await, None);
    }
}

//! CPUs of its own for a bot, where the machine has them: a lease on whole CPUs that no
//! other bot of this referee holds, for the bot's cpuset (`cpuset.cpus`). A hog then spins on
//! its own CPUs only, and the bot it plays, or a bot of another game, keeps its own.
//!
//! The CPUs are those this process may run on (its affinity, read once). A bot gets a lease
//! only when enough CPUs are free; otherwise it gets none and runs on all of them, held only
//! by its CPU limit (`cpu.max`): two bots never share a cpuset, where the pairing would be
//! fixed for a whole game.

use std::sync::Mutex;

/// Which CPUs are leased: `(cpu, leased)`, in the order of the affinity mask.
static CPUS: Mutex<Option<Vec<(usize, bool)>>> = Mutex::new(None);

/// Whole CPUs held by one bot; given back by [`CpuLease::release`] or on drop.
#[derive(Debug)]
pub(crate) struct CpuLease {
    cpus: Vec<usize>,
}

impl CpuLease {
    /// `count` free CPUs, if there are that many.
    pub(crate) fn take(count: u32) -> Option<Self> {
        let mut guard = CPUS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let table = guard.get_or_insert_with(|| allowed_cpus().into_iter().map(|cpu| (cpu, false)).collect());
        let count = usize::try_from(count).ok()?;
        let free: Vec<usize> =
            table.iter().filter(|(_, leased)| !leased).map(|(cpu, _)| *cpu).take(count).collect();
        if free.len() < count || count == 0 {
            return None;
        }
        for entry in table.iter_mut().filter(|(cpu, _)| free.contains(cpu)) {
            entry.1 = true;
        }
        Some(Self { cpus: free })
    }

    /// The CPUs as `cpuset.cpus` lists them (`2`, `0,1`).
    pub(crate) fn list(&self) -> String {
        self.cpus.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
    }

    /// Gives the CPUs back (once the bot's processes are killed).
    pub(crate) fn release(&mut self) {
        if self.cpus.is_empty() {
            return;
        }
        let mut guard = CPUS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(table) = guard.as_mut() {
            for entry in table.iter_mut().filter(|(cpu, _)| self.cpus.contains(cpu)) {
                entry.1 = false;
            }
        }
        self.cpus.clear();
    }
}

impl Drop for CpuLease {
    fn drop(&mut self) {
        self.release();
    }
}

/// The CPUs this process may run on (its affinity): what bots may be given of their own.
pub fn allowed_cpus() -> Vec<usize> {
    match nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)) {
        Ok(set) => (0..nix::sched::CpuSet::count()).filter(|&cpu| set.is_set(cpu).unwrap_or(false)).collect(),
        Err(_) => (0..std::thread::available_parallelism().map_or(1, std::num::NonZero::get)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_are_exclusive_and_given_back() {
        let cpus = allowed_cpus().len();
        assert!(cpus >= 1);
        let all = CpuLease::take(u32::try_from(cpus).unwrap()).expect("every CPU is free at first");
        assert_eq!(all.list().split(',').count(), cpus);
        assert!(CpuLease::take(1).is_none(), "no CPU is left while all are leased");
        drop(all);
        let mut one = CpuLease::take(1).expect("the CPUs came back");
        one.release();
        one.release();
        assert!(CpuLease::take(u32::try_from(cpus).unwrap()).is_some());
        assert!(CpuLease::take(u32::try_from(cpus + 1).unwrap()).is_none());
    }
}

//! A bot's whole process tree: finding its members, signalling them all, measuring their
//! CPU time and memory, and reaping the orphans that the referee adopts as subreaper.
//!
//! With a [`BotCgroup`] the members are exactly the cgroup's processes. Without one they are
//! found by walking `/proc` down from the bot's main process, plus the referee's own children
//! that belong to the bot (orphans re-parented to the referee, recognised by a pid, process
//! group or session id seen in the tree before, or — only when neither a cgroup nor a PID
//! namespace holds the tree — by the `BAO_REFEREE_BOT` variable that every bot process then
//! inherits in its environment). See `docs/supervision.md` for what that
//! fallback misses.
//!
//! Orphans are re-parented to the first live thread of the subreaper (`kernel/exit.c`:
//! `find_new_reaper` → `find_alive_thread`, which starts at the thread-group leader): the
//! referee's main thread, whose `/proc/PID/task/PID/children` is therefore the one file that
//! lists them — not the children files of every referee thread (a dozen in a tournament: the
//! stdout readers, the blocking pool), which the lead's profile found reading 5 % of the
//! referee's CPU. `tests::shutdown_ends_the_whole_tree_without_a_cgroup` checks it: its bot,
//! started from a test thread, leaves an orphan that must be found and reaped.
//!
//! **A tree sealed in a PID namespace** ([`Containment::Namespace`]: the stub's init was born
//! in the bot's cgroup and is pid 1 of a namespace holding every bot process) needs no walk
//! at all. An orphan inside the namespace is re-parented to the namespace's init, never to a
//! subreaper outside it (`find_new_reaper` only looks for one at the orphan's own namespace
//! level), and when the init exits the kernel kills and reaps the whole namespace
//! (`zap_pid_ns_processes`). The outer stub starts nothing but the init. So the members are
//! the outer stub (the main process) and the cgroup's processes, and the one process the
//! referee can ever adopt from the tree is the init, once the outer stub has exited: until
//! then there is nothing to look for, and afterwards one children file, read at the end.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Mutex, Once, PoisonError};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

use super::cgroup::BotCgroup;
use super::procfs::{self, ProcStat};

/// Main processes of live bots: `tokio` owns their wait status, so they are never reaped here.
static LEADERS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn leaders() -> std::sync::MutexGuard<'static, Vec<i32>> {
    LEADERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The environment variable that marks a bot's processes: `BAO_REFEREE_BOT=<referee pid>.<n>`.
pub(crate) const MARKER_VARIABLE: &str = "BAO_REFEREE_BOT";

/// A fresh marker value for one bot.
pub(crate) fn new_marker_value() -> String {
    static SEQUENCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SEQUENCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}.{n}", std::process::id())
}

/// Makes the referee a child subreaper (once per process), so that the orphans of a bot's
/// processes are re-parented to the referee instead of to init, where the referee can still
/// find, kill and reap them.
pub(crate) fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
            tracing::warn!("cannot become a child subreaper ({e}); orphaned bot processes go to init");
        }
    });
}

/// What one look at the tree found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TreeSample {
    /// Live (non-zombie) processes.
    pub(crate) processes: u64,
    /// Their private resident memory, summed.
    pub(crate) memory_bytes: u64,
}

/// What holds a bot's processes, besides its process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Containment {
    /// Nothing but what the `/proc` walk finds (and the cgroup, if there is one).
    Walk,
    /// A PID namespace whose init was born in the bot's cgroup (see the module docs): the
    /// members are the main process and the cgroup's processes, and the init is the one
    /// process the referee can adopt.
    Namespace,
}

/// One bot's process tree.
#[derive(Debug)]
pub(crate) struct ProcessTree {
    leader: i32,
    leader_exited: bool,
    containment: Containment,
    /// `NAME=value` in the bot's environment, inherited by its descendants (set only when
    /// neither a cgroup nor a PID namespace holds the tree).
    marker: Option<String>,
    cgroup: Option<BotCgroup>,
    referee_pid: i32,
    referee_pgid: i32,
    /// Every process seen in the tree: pid -> start time (to tell a reused pid apart).
    known: HashMap<i32, u64>,
    /// The highest CPU time reported, so that measurements never go backwards.
    cpu_high_water: Duration,
}

impl ProcessTree {
    /// Starts tracking the tree of `leader`, a child just spawned by `tokio`.
    /// [`Containment::Namespace`] is ignored without a cgroup.
    pub(crate) fn new(
        leader: u32,
        marker: Option<String>,
        cgroup: Option<BotCgroup>,
        containment: Containment,
    ) -> Self {
        let leader = i32::try_from(leader).unwrap_or(i32::MAX);
        leaders().push(leader);
        let referee_pid = nix::unistd::getpid().as_raw();
        let referee_pgid = nix::unistd::getpgrp().as_raw();
        let mut known = HashMap::new();
        if let Some(stat) = procfs::stat(leader) {
            known.insert(leader, stat.start_time);
        }
        let containment = if cgroup.is_some() { containment } else { Containment::Walk };
        Self {
            leader,
            leader_exited: false,
            containment,
            marker,
            cgroup,
            referee_pid,
            referee_pgid,
            known,
            cpu_high_water: Duration::ZERO,
        }
    }

    pub(crate) fn cgroup(&self) -> Option<&BotCgroup> {
        self.cgroup.as_ref()
    }

    /// Records that `tokio` has reaped the main process (its pid may now be reused).
    pub(crate) fn mark_leader_exited(&mut self) {
        if !self.leader_exited {
            self.leader_exited = true;
            leaders().retain(|&p| p != self.leader);
        }
    }

    /// The processes of the tree now, zombies included.
    pub(crate) fn members(&mut self) -> Vec<ProcStat> {
        // The walk finds zombies and processes in the middle of exiting (which have left the
        // cgroup but are still ours to wait for and reap), and anything forked before the bot
        // was moved into its cgroup (when it was started without the stub).
        let mut members = self.walk();
        if let Some(cgroup) = &self.cgroup {
            let listed: HashSet<i32> = members.iter().map(|m| m.pid).collect();
            let in_cgroup = cgroup.procs().into_iter().filter(|p| !listed.contains(p));
            members.extend(in_cgroup.filter_map(procfs::stat));
        }
        for m in &members {
            self.known.insert(m.pid, m.start_time);
        }
        members
    }

    /// Moves the processes of the tree that are not in the cgroup yet into it (after a spawn
    /// without the stub, whose children may have forked before the bot was moved).
    pub(crate) fn sweep_into_cgroup(&mut self) {
        for _ in 0..3 {
            let outside: Vec<i32> = match &self.cgroup {
                Some(cgroup) => {
                    let inside: HashSet<i32> = cgroup.procs().into_iter().collect();
                    self.walk()
                        .iter()
                        .filter(|m| !m.is_zombie() && !inside.contains(&m.pid))
                        .map(|m| m.pid)
                        .collect()
                }
                None => return,
            };
            if outside.is_empty() {
                return;
            }
            if let Some(cgroup) = &self.cgroup {
                for pid in outside {
                    let _ = cgroup.add(pid.unsigned_abs());
                }
            }
        }
    }

    /// Members down from the leader and from adopted orphans, via `/proc`. In a namespace:
    /// the leader and the adopted init only (everything else is in the cgroup).
    fn walk(&mut self) -> Vec<ProcStat> {
        let mut roots: Vec<ProcStat> = self.adopted_children();
        if !self.leader_exited {
            roots.extend(procfs::stat(self.leader));
        }
        if self.containment == Containment::Namespace {
            return roots;
        }
        let by_parent = (!procfs::children_files_available()).then(|| {
            let mut map: HashMap<i32, Vec<i32>> = HashMap::new();
            for s in procfs::all_stats() {
                map.entry(s.ppid).or_default().push(s.pid);
            }
            map
        });
        let mut seen: HashSet<i32> = HashSet::new();
        let mut out = Vec::new();
        let mut queue: VecDeque<ProcStat> = roots.into();
        while let Some(stat) = queue.pop_front() {
            if !seen.insert(stat.pid) {
                continue;
            }
            let children = match &by_parent {
                Some(map) => map.get(&stat.pid).cloned().unwrap_or_default(),
                None => procfs::children(stat.pid),
            };
            queue.extend(children.into_iter().filter_map(procfs::stat));
            out.push(stat);
        }
        out
    }

    /// The referee's children that belong to this bot: orphans re-parented to the referee
    /// (to its main thread, see the module docs). In a namespace, nothing while the outer
    /// stub lives (the init is its child until it exits).
    fn adopted_children(&self) -> Vec<ProcStat> {
        if self.containment == Containment::Namespace && !self.leader_exited {
            return Vec::new();
        }
        let others = leaders().clone();
        let ours = |pid: &i32| *pid != self.leader && !others.contains(pid);
        let children = if procfs::children_files_available() {
            procfs::thread_children(self.referee_pid, self.referee_pid)
                .into_iter()
                .filter(ours)
                .filter_map(procfs::stat)
                .collect()
        } else {
            procfs::all_stats()
                .into_iter()
                .filter(|s| s.ppid == self.referee_pid && ours(&s.pid))
                .collect::<Vec<_>>()
        };
        children.into_iter().filter(|s| self.belongs(s)).collect()
    }

    /// Whether a process that is not under the leader any more is one of ours.
    fn belongs(&self, stat: &ProcStat) -> bool {
        self.known.get(&stat.pid) == Some(&stat.start_time)
            || stat.pgid == self.leader
            || (stat.pgid != self.referee_pgid && self.known.contains_key(&stat.pgid))
            || self.known.contains_key(&stat.sid)
            || self
                .marker
                .as_ref()
                .is_some_and(|marker| !stat.is_zombie() && procfs::environ_contains(stat.pid, marker))
    }

    /// Sends `signal` to every live process of the tree and to the process groups they lead
    /// (never to the referee's own group). For SIGKILL, also `cgroup.kill`.
    /// Returns the number of live processes signalled.
    pub(crate) fn signal(&mut self, signal: Signal) -> usize {
        if signal == Signal::SIGKILL
            && let Some(cgroup) = &self.cgroup
        {
            cgroup.kill();
        }
        let members = self.members();
        let live: Vec<&ProcStat> = members.iter().filter(|m| !m.is_zombie()).collect();
        let member_pids: HashSet<i32> = live.iter().map(|m| m.pid).collect();
        let mut groups: HashSet<i32> =
            live.iter().map(|m| m.pgid).filter(|g| member_pids.contains(g) || *g == self.leader).collect();
        if !self.leader_exited {
            groups.insert(self.leader);
        }
        groups.remove(&self.referee_pgid);
        groups.remove(&0);
        // Each process once: a bot that handles SIGTERM by exiting must not get a second one
        // while it exits (an interpreter restores the default action as it shuts down).
        for m in live.iter().filter(|m| !groups.contains(&m.pgid)) {
            let _ = kill(Pid::from_raw(m.pid), signal);
        }
        for g in groups {
            let _ = kill(Pid::from_raw(-g), signal);
        }
        live.len()
    }

    /// Reaps the bot's orphans that have become zombie children of the referee.
    /// Never touches a bot's main process (`tokio` reaps those).
    pub(crate) fn reap_orphans(&mut self) {
        let _ = self.reap_adopted();
    }

    /// Reaps the adopted orphans that are zombies; true if an adopted orphan is not one yet.
    fn reap_adopted(&mut self) -> bool {
        let mut alive = false;
        for orphan in self.adopted_children() {
            self.known.insert(orphan.pid, orphan.start_time);
            if orphan.is_zombie() {
                let _ = waitpid(Pid::from_raw(orphan.pid), Some(WaitPidFlag::WNOHANG));
            } else {
                alive = true;
            }
        }
        alive
    }

    /// Counts the live processes and, with `memory`, their memory. Without `memory` and with
    /// a cgroup this is one read of `cgroup.procs` (plus the main process if it is not in
    /// the cgroup), not a walk of the tree's `/proc` entries.
    pub(crate) fn sample(&mut self, memory: bool) -> TreeSample {
        let mut sample = TreeSample::default();
        if !memory && let Some(cgroup) = &self.cgroup {
            // The main process (the outer stub) is counted wherever it is: under a PID
            // namespace only the init was born in the cgroup, the outer stub stayed out.
            let procs = cgroup.procs();
            let leader_outside = !self.leader_exited && !procs.contains(&self.leader);
            sample.processes = procs.len() as u64 + u64::from(leader_outside);
            return sample;
        }
        for m in self.members().iter().filter(|m| !m.is_zombie()) {
            sample.processes += 1;
            if memory {
                sample.memory_bytes += procfs::anon_rss_bytes(m.pid).unwrap_or(0);
            }
        }
        sample
    }

    /// Whether any process of the tree is still alive.
    pub(crate) fn any_alive(&mut self) -> bool {
        // Until the main process has exited, its children may not be re-parented yet; once it
        // is a zombie they are (the kernel re-parents them before the zombie state), so a
        // zombie that tokio has not reaped (its task gone with the runtime) does not count.
        let leader_running = !self.leader_exited && procfs::stat(self.leader).is_some_and(|s| !s.is_zombie());
        leader_running
            || self.cgroup.as_ref().is_some_and(BotCgroup::populated)
            || self.members().iter().any(|m| !m.is_zombie())
    }

    /// Reaps the tree's zombie orphans and says whether any process of the tree is still
    /// alive, as [`Self::any_alive`] then [`Self::reap_orphans`] do — in a namespace with one
    /// look at the adopted children instead of two (the other members are the outer stub and
    /// the cgroup's processes, which `populated` covers).
    pub(crate) fn reap_and_any_alive(&mut self) -> bool {
        if self.containment == Containment::Walk {
            let alive = self.any_alive();
            // After `any_alive`, so that processes that were dying then are zombies by now.
            self.reap_orphans();
            return alive;
        }
        // An adopted orphan not yet a zombie (exiting, having left the cgroup, or not) is
        // looked at again after a SIGKILL.
        let adopted_alive = self.reap_adopted();
        let leader_running = !self.leader_exited && procfs::stat(self.leader).is_some_and(|s| !s.is_zombie());
        leader_running || adopted_alive || self.cgroup.as_ref().is_some_and(BotCgroup::populated)
    }

    /// CPU time (user + system) of the whole tree so far; never decreases.
    ///
    /// With a cgroup: `cpu.stat`, exact, including exited processes. Without: the live
    /// processes' CPU clocks plus the time of the children they have waited for (the time of
    /// processes that exit unwaited-for is lost).
    pub(crate) fn cpu_time(&mut self) -> Option<Duration> {
        let measured = match self.cgroup.as_ref().and_then(BotCgroup::cpu_usage) {
            Some(usage) => Some(usage),
            None => {
                let members = self.members();
                if members.is_empty() && self.cpu_high_water.is_zero() {
                    None
                } else {
                    Some(
                        members
                            .iter()
                            .map(|m| procfs::process_cpu(m) + procfs::ticks(m.children_cpu_ticks))
                            .sum(),
                    )
                }
            }
        };
        if let Some(time) = measured {
            self.cpu_high_water = self.cpu_high_water.max(time);
        }
        measured
            .map(|_| self.cpu_high_water)
            .or((!self.cpu_high_water.is_zero()).then_some(self.cpu_high_water))
    }

    /// Removes the cgroup (once the tree is empty).
    pub(crate) fn remove_cgroup(&mut self) {
        if let Some(cgroup) = self.cgroup.take() {
            cgroup.remove();
        }
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        self.mark_leader_exited();
        self.remove_cgroup();
    }
}

//! A cgroup v2 per bot: exact membership of the whole process tree (a `setsid` cannot leave
//! it), `cgroup.kill`, tree CPU time from `cpu.stat`, and — when the memory and pids
//! controllers are available to us — `memory.max` and `pids.max`.
//!
//! Two levels when there are kernel limits to set: the limits are set on `bao-bot-PID-N/`,
//! and the bot runs in its child `bao-bot-PID-N/bot/`. A bot that creates a cgroup namespace
//! and mounts the cgroup file system sees only the leaf as its root, so it cannot raise its
//! own limits, which live one level up, out of its sight. Without a memory or process limit
//! there is nothing up there to protect, and the bot runs in `bao-bot-PID-N/` itself: one
//! `mkdir` and one `rmdir` on cgroupfs less per bot (each a few dozen kernfs files).
//!
//! The CPU counter (`cpu.stat`) is opened once, when the cgroup is made, and re-read with
//! `pread` at offset 0 (the kernel regenerates the text on each read from the start): one
//! system call per reading instead of `open` + `read` + `close` on cgroupfs, read twice a ply.
//!
//! CPU confinement (see `docs/supervision.md`): with [`ResourceLimits::cpus`], `cpu.max` on
//! `bao-bot-PID-N/` (or, where the v2 hierarchy has no `cpu` controller, the v1 CFS quota of
//! [`crate::cgroup_v1`]), and, when enough CPUs are free, a cpuset of the bot's own
//! ([`CpuLease`]). `cgroup.freeze` is kept open, so that freezing or thawing the whole tree is
//! one `pwrite` ([`BotCgroup::freeze`]).
//!
//! The cgroup is created as a child of the referee's own cgroup (`/proc/self/cgroup`, line
//! `0::PATH`) under the cgroup2 mount found in `/proc/self/mountinfo`. Anything that fails
//! (no cgroup2 mount, not writable, no `cgroup.kill`) makes [`BotCgroup::create`] return an
//! error and the supervisor falls back to process groups and `/proc` walks.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Once, OnceLock};
use std::time::Duration;

use super::ResourceLimits;
use super::cgroup_v1::{Controller, V1Group};
use super::cpu_lease::CpuLease;
use super::memory_v1::MemoryV1;

/// One bot's cgroup; removed by [`BotCgroup::remove`] once empty.
#[derive(Debug)]
pub(crate) struct BotCgroup {
    /// `bao-bot-PID-N/`: the limits, `cgroup.kill`, the counters of the whole tree.
    dir: PathBuf,
    /// `bao-bot-PID-N/bot/`, or `bao-bot-PID-N/` itself without kernel limits: where the
    /// bot's processes are.
    leaf: PathBuf,
    /// `bao-bot-PID-N/cpu.stat`, kept open and re-read with `pread`.
    cpu_stat: Option<File>,
    /// The memory limit in the v1 hierarchy, where v2 has no memory controller.
    memory_v1: Option<MemoryV1>,
    memory_limited: bool,
    pids_limited: bool,
    /// How the kernel holds the tree to its CPU limit, if it does.
    cpu_limit_by: Option<&'static str>,
    /// The v1 cgroups of the CPU limit and the cpuset, where v2 has no such controller.
    cpu_v1: Vec<V1Group>,
    /// The bot's own CPUs (`cpuset.cpus`), given back when its processes are killed.
    lease: std::sync::Mutex<Option<CpuLease>>,
    /// The CPUs of the lease as `cpuset.cpus` lists them, once set.
    cpuset: Option<String>,
    /// `bao-bot-PID-N/cgroup.freeze`, kept open for writing.
    freeze: Option<File>,
}

/// The `cpu.max` period, in microseconds (the kernel's default).
const CPU_PERIOD_US: u64 = 100_000;

const PREFIX: &str = "bao-bot-";
/// The leaf's name.
const LEAF: &str = "bot";
/// The read buffer for `cpu.stat` (a few short lines: `usage_usec` comes first).
const CPU_STAT_BYTES: usize = 1024;
/// How long the cleanup of a dead referee's cgroup waits for its processes to die.
const STALE_KILL_WAIT: Duration = Duration::from_secs(2);

impl BotCgroup {
    /// Creates a cgroup for one bot and sets the limits it can enforce. `task_backstop` is the
    /// `pids.max` to use if `limits.max_processes` is set (pids.max counts threads too).
    /// With `own_cpus`, a bot with a CPU limit also gets CPUs of its own when enough are free.
    pub(crate) fn create(
        limits: &ResourceLimits,
        task_backstop: Option<u64>,
        own_cpus: bool,
    ) -> Result<Self, String> {
        let parent = own_cgroup_dir().ok_or("no cgroup v2 hierarchy found for this process")?;
        static CLEAN_STALE: Once = Once::new();
        CLEAN_STALE.call_once(|| remove_stale(parent));
        static SEQUENCE: AtomicU64 = AtomicU64::new(0);
        let name = format!("{PREFIX}{}-{}", std::process::id(), SEQUENCE.fetch_add(1, Ordering::Relaxed));
        let path = parent.join(name);
        std::fs::create_dir(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let two_levels =
            limits.max_memory_bytes.is_some() || task_backstop.is_some() || limits.cpus.is_some();
        let leaf = if two_levels { path.join(LEAF) } else { path.clone() };
        let mut cgroup = Self {
            dir: path,
            leaf,
            cpu_stat: None,
            memory_v1: None,
            memory_limited: false,
            pids_limited: false,
            cpu_limit_by: None,
            cpu_v1: Vec::new(),
            lease: std::sync::Mutex::new(None),
            cpuset: None,
            freeze: None,
        };
        // The kernel's, not the directory's: asked once per process.
        static HAS_KILL: OnceLock<bool> = OnceLock::new();
        if !*HAS_KILL.get_or_init(|| cgroup.dir.join("cgroup.kill").exists()) {
            cgroup.remove();
            return Err("cgroup.kill is missing (Linux before 5.14)".to_owned());
        }
        if two_levels && let Err(e) = std::fs::create_dir(&cgroup.leaf) {
            let message = format!("cannot create {}: {e}", cgroup.leaf.display());
            cgroup.remove();
            return Err(message);
        }
        cgroup.cpu_stat = File::open(cgroup.dir.join("cpu.stat"))
            .inspect_err(|e| tracing::debug!("cannot open {}/cpu.stat: {e}", cgroup.dir.display()))
            .ok();
        if let Some(bytes) = limits.max_memory_bytes {
            enable_controller(parent, "memory");
            cgroup.memory_limited = cgroup.write("memory.max", &bytes.to_string()).is_ok();
            if cgroup.memory_limited {
                // No escape into swap, and an OOM kill takes the whole bot, not one helper.
                let _ = cgroup.write("memory.swap.max", "0");
                let _ = cgroup.write("memory.oom.group", "1");
            }
        }
        if let (false, Some(bytes)) = (cgroup.memory_limited, limits.max_memory_bytes) {
            let name = cgroup.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            match MemoryV1::create(&name, bytes) {
                Ok(v1) => {
                    cgroup.memory_v1 = Some(v1);
                    cgroup.memory_limited = true;
                }
                Err(reason) => tracing::debug!("no kernel memory limit for the bot: {reason}"),
            }
        }
        if let Some(tasks) = task_backstop {
            enable_controller(parent, "pids");
            cgroup.pids_limited = cgroup.write("pids.max", &tasks.to_string()).is_ok();
        }
        if let Some(cpus) = limits.cpus {
            cgroup.confine_cpu(parent, cpus, own_cpus);
        }
        cgroup.freeze = std::fs::OpenOptions::new()
            .write(true)
            .open(cgroup.dir.join("cgroup.freeze"))
            .inspect_err(|e| tracing::debug!("cannot open {}/cgroup.freeze: {e}", cgroup.dir.display()))
            .ok();
        Ok(cgroup)
    }

    /// Sets the CPU limit (`cpu.max`, else the v1 CFS quota) and, with `own_cpus` and enough
    /// free CPUs, the bot's own cpuset (v2, else v1). What cannot be set is left out and said
    /// by [`BotCgroup::cpu_limit_by`] and [`BotCgroup::cpuset`].
    fn confine_cpu(&mut self, parent: &Path, cpus: crate::CpuShare, own_cpus: bool) {
        let quota = cpus.quota_us(CPU_PERIOD_US);
        let name = self.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        enable_controller(parent, "cpu");
        if self.write("cpu.max", &format!("{quota} {CPU_PERIOD_US}")).is_ok() {
            self.cpu_limit_by = Some("cgroup v2 cpu.max");
        } else {
            let settings =
                [("cpu.cfs_period_us", CPU_PERIOD_US.to_string()), ("cpu.cfs_quota_us", quota.to_string())];
            match V1Group::create(Controller::Cpu, &name, &settings) {
                Ok(group) => {
                    self.cpu_v1.push(group);
                    self.cpu_limit_by = Some("cgroup v1 cpu.cfs_quota_us");
                }
                Err(reason) => tracing::debug!("no kernel CPU limit for the bot: {reason}"),
            }
        }
        if !own_cpus {
            return;
        }
        let Some(lease) = CpuLease::take(cpus.whole_cpus()) else { return };
        let list = lease.list();
        enable_controller(parent, "cpuset");
        let set = if self.write("cpuset.cpus", &list).is_ok() {
            true
        } else {
            let mems = super::cgroup_v1::own_cpuset_mems().unwrap_or_else(|| "0".to_owned());
            let settings = [("cpuset.mems", mems), ("cpuset.cpus", list.clone())];
            V1Group::create(Controller::Cpuset, &name, &settings)
                .inspect_err(|reason| tracing::debug!("no cpuset of its own for the bot: {reason}"))
                .map(|group| self.cpu_v1.push(group))
                .is_ok()
        };
        if set {
            self.cpuset = Some(list);
            *self.lease.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(lease);
        }
    }

    /// How the kernel holds the tree to its CPU limit (`cgroup v2 cpu.max`…), if it does.
    pub(crate) fn cpu_limit_by(&self) -> Option<&'static str> {
        self.cpu_limit_by
    }

    /// The bot's own CPUs, as `cpuset.cpus` lists them, if it has some.
    pub(crate) fn cpuset(&self) -> Option<&str> {
        self.cpuset.as_deref()
    }

    /// Whether the tree can be frozen ([`BotCgroup::freeze`]).
    pub(crate) fn freezable(&self) -> bool {
        self.freeze.is_some()
    }

    /// Freezes (`true`) or thaws (`false`) every process of the tree: one `pwrite` of
    /// `cgroup.freeze`. The kernel freezes asynchronously: this returns once every task has
    /// been told to stop (a running one is interrupted at once), not once all have;
    /// [`BotCgroup::wait_frozen`] waits for that.
    pub(crate) fn freeze(&self, frozen: bool) -> io::Result<()> {
        let file =
            self.freeze.as_ref().ok_or_else(|| io::Error::other("the bot's cgroup cannot be frozen"))?;
        file.write_at(if frozen { b"1" } else { b"0" }, 0).map(drop)
    }

    /// Waits until the kernel reports the tree frozen (`cgroup.events` `frozen 1`), at most
    /// `within`; true if it is.
    pub(crate) fn wait_frozen(&self, within: Duration) -> bool {
        wait_for_event(&self.dir, "frozen", 1, within)
    }

    /// The cgroup the bot's processes are in (the leaf).
    pub(crate) fn path(&self) -> &Path {
        &self.leaf
    }

    /// Whether the kernel enforces the memory limit (`memory.max` was set).
    pub(crate) fn memory_limited(&self) -> bool {
        self.memory_limited
    }

    /// Whether the kernel caps the number of tasks (`pids.max` was set).
    pub(crate) fn pids_limited(&self) -> bool {
        self.pids_limited
    }

    /// Every cgroup directory the bot's processes must join (the v2 leaf, and the v1 memory,
    /// cpu and cpuset cgroups if there are some).
    pub(crate) fn join_paths(&self) -> Vec<PathBuf> {
        std::iter::once(self.leaf.clone())
            .chain(self.memory_v1.as_ref().map(|v1| v1.path().to_path_buf()))
            .chain(self.cpu_v1.iter().map(|v1| v1.path().to_path_buf()))
            .collect()
    }

    /// Moves a process into this cgroup.
    pub(crate) fn add(&self, pid: u32) -> io::Result<()> {
        if let Some(v1) = &self.memory_v1 {
            v1.add(pid)?;
        }
        for v1 in &self.cpu_v1 {
            v1.add(pid)?;
        }
        std::fs::write(self.leaf.join("cgroup.procs"), pid.to_string())
    }

    /// The live processes in the cgroup.
    pub(crate) fn procs(&self) -> Vec<i32> {
        std::fs::read_to_string(self.leaf.join("cgroup.procs"))
            .map(|t| t.split_whitespace().filter_map(|p| p.parse().ok()).collect())
            .unwrap_or_default()
    }

    /// CPU time used by every process that ever ran in the cgroup (`cpu.stat` `usage_usec`):
    /// one `pread` of the descriptor kept open since [`BotCgroup::create`], into a buffer on
    /// the stack (no allocation).
    pub(crate) fn cpu_usage(&self) -> Option<Duration> {
        let file = self.cpu_stat.as_ref()?;
        let mut buf = [0u8; CPU_STAT_BYTES];
        let n = file.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        keyed_value(text, "usage_usec").map(Duration::from_micros)
    }

    /// Whether the kernel's OOM killer acted in this cgroup (`memory.events`, or the v1
    /// `memory.oom_control`).
    pub(crate) fn oom_killed(&self) -> bool {
        if self.memory_v1.as_ref().is_some_and(MemoryV1::oom_killed) {
            return true;
        }
        std::fs::read_to_string(self.dir.join("memory.events")).is_ok_and(|text| {
            keyed_value(&text, "oom_kill").unwrap_or(0) > 0
                || keyed_value(&text, "oom_group_kill").unwrap_or(0) > 0
        })
    }

    /// Whether any process is still in the cgroup (`cgroup.events` `populated`).
    pub(crate) fn populated(&self) -> bool {
        std::fs::read_to_string(self.dir.join("cgroup.events"))
            .is_ok_and(|text| keyed_value(&text, "populated").unwrap_or(0) > 0)
    }

    /// The cgroup's own directory (`bao-bot-PID-N/`, the leaf's parent), for
    /// [`wait_until_empty`] and [`kill_dir`].
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// SIGKILLs every process in the cgroup, atomically with respect to forks (a frozen
    /// tree too: SIGKILL reaches frozen tasks). The bot's own CPUs are free again.
    pub(crate) fn kill(&self) -> bool {
        let killed = self.write("cgroup.kill", "1").is_ok();
        self.release_cpus();
        killed
    }

    /// Gives the bot's own CPUs back for the next bot.
    pub(crate) fn release_cpus(&self) {
        if let Some(mut lease) = self.lease.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            lease.release();
        }
    }

    /// Removes the (empty) cgroup directories; a failure is only logged.
    pub(crate) fn remove(&self) {
        self.release_cpus();
        if let Some(v1) = &self.memory_v1 {
            v1.remove();
        }
        for v1 in &self.cpu_v1 {
            v1.remove();
        }
        let leaf = (self.leaf != self.dir).then_some(&self.leaf);
        for dir in leaf.into_iter().chain([&self.dir]) {
            if let Err(e) = std::fs::remove_dir(dir)
                && e.kind() != io::ErrorKind::NotFound
            {
                tracing::debug!("could not remove cgroup {}: {e}", dir.display());
            }
        }
    }

    fn write(&self, file: &str, value: &str) -> io::Result<()> {
        std::fs::write(self.dir.join(file), value)
    }
}

/// Waits until no process is left in the cgroup `dir` (or its children), at most `within`;
/// true if none is.
///
/// No sleep-polling: the kernel notifies a change of `cgroup.events` to `poll` (as
/// `POLLPRI`), so this wakes up when the last process has left.
pub(crate) fn wait_until_empty(dir: &Path, within: Duration) -> bool {
    wait_for_event(dir, "populated", 0, within)
}

/// Waits until `key` of `dir/cgroup.events` is `value`, at most `within` (woken by the
/// kernel's `POLLPRI`); true if it is (or the file cannot be read).
fn wait_for_event(dir: &Path, key: &str, value: u64, within: Duration) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let Ok(events) = File::open(dir.join("cgroup.events")) else { return true };
    let until = std::time::Instant::now() + within;
    loop {
        let mut buf = [0u8; 256];
        let text = events.read_at(&mut buf, 0).ok().and_then(|n| std::str::from_utf8(&buf[..n]).ok());
        if text.is_none_or(|text| keyed_value(text, key) == Some(value)) {
            return true;
        }
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return false;
        }
        let mut fds = [PollFd::new(events.as_fd(), PollFlags::POLLPRI)];
        match poll(&mut fds, PollTimeout::try_from(left).unwrap_or(PollTimeout::MAX)) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return false,
        }
    }
}

/// SIGKILLs every process in the cgroup `dir` (`cgroup.kill`).
pub(crate) fn kill_dir(dir: &Path) -> bool {
    std::fs::write(dir.join("cgroup.kill"), "1").is_ok()
}

/// The value after `key ` in a flat-keyed cgroup file.
fn keyed_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(' ')?;
        if k == key { v.trim().parse().ok() } else { None }
    })
}

/// The directory of this process's cgroup in the cgroup2 hierarchy, if there is one.
fn own_cgroup_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let (mount_root, mount_point) = mountinfo.lines().find_map(cgroup2_mount)?;
        let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let own = cgroups.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
        let relative = own.strip_prefix(mount_root.as_str()).unwrap_or(own).trim_start_matches('/');
        let dir = PathBuf::from(mount_point).join(relative);
        dir.is_dir().then_some(dir)
    })
    .as_deref()
}

/// `(root, mount point)` of a `cgroup2` line of `/proc/self/mountinfo`.
fn cgroup2_mount(line: &str) -> Option<(String, String)> {
    let (before, after) = line.split_once(" - ")?;
    if after.split_whitespace().next()? != "cgroup2" {
        return None;
    }
    let mut fields = before.split_whitespace().skip(3);
    let root = fields.next()?.to_owned();
    let mount_point = fields.next()?.replace("\\040", " ");
    Some((root, mount_point))
}

/// Asks the parent to delegate a controller to its children; fails quietly (for example with
/// EBUSY when the parent holds processes itself, the cgroup v2 "no internal processes" rule).
/// Asked once per process, parent and controller (the answer does not change while the
/// referee runs; before, every bot read two cgroupfs files for it).
fn enable_controller(parent: &Path, controller: &str) {
    static ASKED: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());
    let mut asked = ASKED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if asked.iter().any(|(p, c)| p == parent && c == controller) {
        return;
    }
    asked.push((parent.to_path_buf(), controller.to_owned()));
    let listed = |file: &str| {
        std::fs::read_to_string(parent.join(file))
            .is_ok_and(|t| t.split_whitespace().any(|c| c == controller))
    };
    if listed("cgroup.controllers")
        && !listed("cgroup.subtree_control")
        && let Err(e) = std::fs::write(parent.join("cgroup.subtree_control"), format!("+{controller}"))
    {
        tracing::debug!("cannot enable the {controller} controller in {}: {e}", parent.display());
    }
}

/// Ends what referee processes that no longer exist (killed by SIGKILL, say) left behind:
/// SIGKILLs every process still in their bots' cgroups (`cgroup.kill`), waits for them to
/// die, and removes the cgroups.
fn remove_stale(parent: &Path) {
    if let Ok(entries) = std::fs::read_dir(parent) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(owner) = name.to_str().and_then(dead_owner) else { continue };
            remove_stale_cgroup(&entry.path(), owner);
            if let Some(v1) = crate::memory_v1::own_memory_dir() {
                let _ = std::fs::remove_dir(v1.join(&name));
            }
        }
    }
    crate::cgroup_v1::remove_stale(|name| dead_owner(name).is_some());
}

/// The referee process id in a bot cgroup's name (`bao-bot-PID-N`), if that process no longer
/// exists.
fn dead_owner(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(PREFIX)?;
    let owner = rest.split('-').next().filter(|o| !o.is_empty() && o.bytes().all(|b| b.is_ascii_digit()))?;
    (!Path::new("/proc").join(owner).exists()).then_some(owner)
}

/// SIGKILLs what is left in the stale cgroup `dir` of the dead referee `owner`, waits for it
/// to die, and removes the cgroup.
fn remove_stale_cgroup(dir: &Path, owner: &str) {
    let populated = |dir: &Path| {
        std::fs::read_to_string(dir.join("cgroup.events"))
            .is_ok_and(|text| keyed_value(&text, "populated").unwrap_or(0) > 0)
    };
    if populated(dir) {
        let _ = std::fs::write(dir.join("cgroup.kill"), "1");
        let until = std::time::Instant::now() + STALE_KILL_WAIT;
        while populated(dir) && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        tracing::warn!(
            "killed the processes left in {} by referee process {owner}, which no longer exists",
            dir.display()
        );
    }
    let _ = std::fs::remove_dir(dir.join(LEAF));
    if let Err(e) = std::fs::remove_dir(dir) {
        tracing::warn!("cannot remove the stale cgroup {}: {e}", dir.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_cgroup2_mountinfo_line() {
        let line = "35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate";
        assert_eq!(cgroup2_mount(line), Some(("/".to_owned(), "/sys/fs/cgroup".to_owned())));
        let v1 = "36 24 0:31 / /sys/fs/cgroup/memory rw shared:10 - cgroup cgroup rw,memory";
        assert_eq!(cgroup2_mount(v1), None);
    }

    #[test]
    fn stale_cgroups_are_those_of_dead_referees() {
        assert_eq!(dead_owner("bao-bot-1-3"), None, "pid 1 always exists");
        assert_eq!(dead_owner(&format!("bao-bot-{}-0", std::process::id())), None);
        assert_eq!(dead_owner("bao-bot-4194305-7"), Some("4194305"), "beyond the largest pid");
        assert_eq!(dead_owner("bao-bot--1"), None);
        assert_eq!(dead_owner("user.slice"), None);
    }

    #[test]
    fn reads_keyed_values() {
        let text = "usage_usec 3594\nuser_usec 3000\nsystem_usec 594\n";
        assert_eq!(keyed_value(text, "usage_usec"), Some(3594));
        assert_eq!(keyed_value(text, "system_usec"), Some(594));
        assert_eq!(keyed_value(text, "nope"), None);
    }
}

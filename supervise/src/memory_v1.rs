//! The cgroup v1 memory controller, for the memory limit where cgroup v2 has no memory
//! controller (a *hybrid* hierarchy, where the controllers are bound to v1, as on this
//! project's CI machine). A bot with `--max-memory` gets `…/memory/<referee's group>/
//! bao-bot-PID-N` with `memory.limit_in_bytes` (and `memory.memsw.limit_in_bytes` where swap
//! is accounted): the kernel then enforces the limit, and its OOM kill — including one at
//! start-up, before any sample could be taken — is read from `memory.oom_control`
//! (`oom_kill`), so the verdict is `MemoryLimit`, not an exit or a handshake failure.
//!
//! Only used when the v2 hierarchy cannot limit memory; everything that fails here leaves
//! the sampling and `RLIMIT_DATA` fallbacks in place.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One bot's v1 memory cgroup; removed by [`MemoryV1::remove`] once empty.
#[derive(Debug)]
pub(crate) struct MemoryV1 {
    dir: PathBuf,
}

impl MemoryV1 {
    /// Creates the cgroup `name` with the limit, or says why not.
    pub(crate) fn create(name: &str, bytes: u64) -> Result<Self, String> {
        let parent = own_memory_dir().ok_or("no cgroup v1 memory controller for this process")?;
        let dir = parent.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let cgroup = Self { dir };
        if let Err(e) = std::fs::write(cgroup.dir.join("memory.limit_in_bytes"), bytes.to_string()) {
            let message = format!("cannot set {}/memory.limit_in_bytes: {e}", cgroup.dir.display());
            cgroup.remove();
            return Err(message);
        }
        // No escape into swap, where swap is accounted (absent without swap accounting).
        let _ = std::fs::write(cgroup.dir.join("memory.memsw.limit_in_bytes"), bytes.to_string());
        Ok(cgroup)
    }

    /// The directory (the stub joins it through its `cgroup.procs`).
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// Moves a process into this cgroup.
    pub(crate) fn add(&self, pid: u32) -> std::io::Result<()> {
        std::fs::write(self.dir.join("cgroup.procs"), pid.to_string())
    }

    /// Whether the kernel's OOM killer acted in this cgroup.
    pub(crate) fn oom_killed(&self) -> bool {
        std::fs::read_to_string(self.dir.join("memory.oom_control")).is_ok_and(|text| {
            text.lines().any(|line| {
                line.strip_prefix("oom_kill ")
                    .and_then(|n| n.trim().parse::<u64>().ok())
                    .is_some_and(|n| n > 0)
            })
        })
    }

    /// Removes the (empty) directory; a failure is only logged.
    pub(crate) fn remove(&self) {
        if let Err(e) = std::fs::remove_dir(&self.dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::debug!("could not remove cgroup {}: {e}", self.dir.display());
        }
    }
}

/// The directory of this process's cgroup in the v1 memory hierarchy, if there is one.
pub(crate) fn own_memory_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let (root, mount_point) = mountinfo.lines().find_map(memory_mount)?;
        let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let own = cgroups.lines().find_map(memory_line)?;
        let relative = own.strip_prefix(root.as_str()).unwrap_or(own).trim_start_matches('/');
        let dir = PathBuf::from(mount_point).join(relative);
        dir.join("memory.limit_in_bytes").exists().then_some(dir)
    })
    .as_deref()
}

/// `(root, mount point)` of the v1 `memory` line of `/proc/self/mountinfo`.
fn memory_mount(line: &str) -> Option<(String, String)> {
    let (before, after) = line.split_once(" - ")?;
    let mut after = after.split_whitespace();
    if after.next()? != "cgroup" {
        return None;
    }
    let options = after.nth(1)?;
    if !options.split(',').any(|o| o == "memory") {
        return None;
    }
    let mut fields = before.split_whitespace().skip(3);
    let root = fields.next()?.to_owned();
    let mount_point = fields.next()?.replace("\\040", " ");
    Some((root, mount_point))
}

/// The path of a `N:memory:/path` line of `/proc/self/cgroup`.
fn memory_line(line: &str) -> Option<&str> {
    let mut parts = line.splitn(3, ':');
    let _id = parts.next()?;
    let controllers = parts.next()?;
    let path = parts.next()?;
    controllers.split(',').any(|c| c == "memory").then_some(path.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_memory_lines() {
        let mount = "38 30 0:33 / /sys/fs/cgroup/memory rw,relatime shared:14 - cgroup cgroup rw,memory";
        assert_eq!(memory_mount(mount), Some(("/".to_owned(), "/sys/fs/cgroup/memory".to_owned())));
        let cpu = "39 30 0:34 / /sys/fs/cgroup/cpu rw,relatime shared:15 - cgroup cgroup rw,cpu";
        assert_eq!(memory_mount(cpu), None);
        let v2 = "35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate";
        assert_eq!(memory_mount(v2), None);
        assert_eq!(memory_line("4:memory:/process_api/b1"), Some("/process_api/b1"));
        assert_eq!(memory_line("0::/"), None);
        assert_eq!(memory_line("7:cpu,cpuacct:/x"), None);
    }
}

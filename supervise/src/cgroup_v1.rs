//! The cgroup v1 `cpu` and `cpuset` controllers, for a bot's CPU confinement where cgroup v2
//! has no `cpu` or `cpuset` controller: a *hybrid* hierarchy, where the controllers are bound
//! to v1 (as on this project's CI machine; see `memory_v1` for memory). A bot then gets
//! `…/cpu/<referee's group>/bao-bot-PID-N` with `cpu.cfs_quota_us` over `cpu.cfs_period_us`
//! (the v1 spelling of `cpu.max`), and `…/cpuset/<referee's group>/bao-bot-PID-N` with its
//! own `cpuset.cpus`. The stub joins both before it starts the bot, so every process of the
//! tree is born in them.
//!
//! Only used when the v2 hierarchy cannot do it; anything that fails here leaves the bot
//! without that part of its confinement, which [`crate::Supervision`] then says.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A v1 controller this module handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Controller {
    /// CFS bandwidth: `cpu.cfs_quota_us` and `cpu.cfs_period_us`.
    Cpu,
    /// `cpuset.cpus` (and the `cpuset.mems` a cpuset needs before anything can join it).
    Cpuset,
}

impl Controller {
    fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Cpuset => "cpuset",
        }
    }

    /// A file every directory of this controller's hierarchy has.
    fn marker(self) -> &'static str {
        match self {
            Self::Cpu => "cpu.cfs_quota_us",
            Self::Cpuset => "cpuset.cpus",
        }
    }
}

/// One bot's v1 cgroup of one controller; removed by [`V1Group::remove`] once empty.
#[derive(Debug)]
pub(crate) struct V1Group {
    dir: PathBuf,
}

impl V1Group {
    /// Creates the cgroup `name` under this process's own cgroup of `controller`, and writes
    /// `settings` (file, value) in order; or says why not.
    pub(crate) fn create(
        controller: Controller,
        name: &str,
        settings: &[(&str, String)],
    ) -> Result<Self, String> {
        let parent = own_dir(controller)
            .ok_or_else(|| format!("no cgroup v1 {} controller for this process", controller.name()))?;
        let dir = parent.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let group = Self { dir };
        for (file, value) in settings {
            if let Err(e) = std::fs::write(group.dir.join(file), value) {
                let message = format!("cannot set {}/{file} to {value}: {e}", group.dir.display());
                group.remove();
                return Err(message);
            }
        }
        Ok(group)
    }

    /// The directory (the stub joins it through its `cgroup.procs`).
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// Moves a process into this cgroup.
    pub(crate) fn add(&self, pid: u32) -> std::io::Result<()> {
        std::fs::write(self.dir.join("cgroup.procs"), pid.to_string())
    }

    /// Removes the (empty) directory; a failure is only logged. A v1 cgroup stays busy until
    /// its killed tasks are released, which may come a moment after the v2 cgroup is empty:
    /// up to 10 tries 5 ms apart (what is left is removed by the next referee's stale sweep).
    pub(crate) fn remove(&self) {
        for attempt in 0..10 {
            match std::fs::remove_dir(&self.dir) {
                Ok(()) => return,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) && attempt < 9 => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(e) => {
                    tracing::debug!("could not remove cgroup {}: {e}", self.dir.display());
                    return;
                }
            }
        }
    }
}

/// The memory nodes of this process's v1 cpuset (what a new cpuset must be given before a
/// process can join it).
pub(crate) fn own_cpuset_mems() -> Option<String> {
    let dir = own_dir(Controller::Cpuset)?;
    let mems = std::fs::read_to_string(dir.join("cpuset.mems")).ok()?;
    let mems = mems.trim();
    (!mems.is_empty()).then(|| mems.to_owned())
}

/// The directory of this process's cgroup in the v1 hierarchy of `controller`, if there is
/// one (found once per process).
pub(crate) fn own_dir(controller: Controller) -> Option<&'static Path> {
    static CPU: OnceLock<Option<PathBuf>> = OnceLock::new();
    static CPUSET: OnceLock<Option<PathBuf>> = OnceLock::new();
    let cell = match controller {
        Controller::Cpu => &CPU,
        Controller::Cpuset => &CPUSET,
    };
    cell.get_or_init(|| {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let (root, mount_point) = mountinfo.lines().find_map(|l| v1_mount(l, controller.name()))?;
        let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let own = cgroups.lines().find_map(|l| cgroup_line(l, controller.name()))?;
        let relative = own.strip_prefix(root.as_str()).unwrap_or(own).trim_start_matches('/');
        let dir = PathBuf::from(mount_point).join(relative);
        dir.join(controller.marker()).exists().then_some(dir)
    })
    .as_deref()
}

/// Removes what referees that no longer exist left in the v1 hierarchies: every empty cgroup
/// of this process's cgroups of each controller whose name `is_stale` says so (their
/// processes were killed through the v2 cgroup; one whose killed tasks were not yet released
/// when the v2 cgroup went is found here the next time).
pub(crate) fn remove_stale(is_stale: impl Fn(&str) -> bool) {
    for controller in [Controller::Cpu, Controller::Cpuset] {
        let Some(parent) = own_dir(controller) else { continue };
        let Ok(entries) = std::fs::read_dir(parent) else { continue };
        for entry in entries.flatten() {
            if entry.file_name().to_str().is_some_and(&is_stale) {
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    }
}

/// `(root, mount point)` of the v1 line of `/proc/self/mountinfo` that holds `controller`.
fn v1_mount(line: &str, controller: &str) -> Option<(String, String)> {
    let (before, after) = line.split_once(" - ")?;
    let mut after = after.split_whitespace();
    if after.next()? != "cgroup" {
        return None;
    }
    let options = after.nth(1)?;
    if !options.split(',').any(|o| o == controller) {
        return None;
    }
    let mut fields = before.split_whitespace().skip(3);
    let root = fields.next()?.to_owned();
    let mount_point = fields.next()?.replace("\\040", " ");
    Some((root, mount_point))
}

/// The path of a `N:…controller…:/path` line of `/proc/self/cgroup`.
fn cgroup_line<'a>(line: &'a str, controller: &str) -> Option<&'a str> {
    let mut parts = line.splitn(3, ':');
    let _id = parts.next()?;
    let controllers = parts.next()?;
    let path = parts.next()?;
    controllers.split(',').any(|c| c == controller).then_some(path.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_cpu_and_cpuset_lines() {
        let cpu = "39 30 0:34 / /sys/fs/cgroup/cpu rw,relatime shared:15 - cgroup cgroup rw,cpu";
        assert_eq!(v1_mount(cpu, "cpu"), Some(("/".to_owned(), "/sys/fs/cgroup/cpu".to_owned())));
        assert_eq!(v1_mount(cpu, "cpuset"), None);
        let both = "39 30 0:34 /x /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct";
        assert_eq!(v1_mount(both, "cpu"), Some(("/x".to_owned(), "/sys/fs/cgroup/cpu,cpuacct".to_owned())));
        let v2 = "35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate";
        assert_eq!(v1_mount(v2, "cpu"), None);
        assert_eq!(cgroup_line("1:cpu:/", "cpu"), Some("/"));
        assert_eq!(cgroup_line("2:cpu,cpuacct:/a/b", "cpu"), Some("/a/b"));
        assert_eq!(cgroup_line("2:cpuacct:/a", "cpu"), None);
        assert_eq!(cgroup_line("0::/", "cpu"), None);
    }
}

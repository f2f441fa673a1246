//! What a program run in the sandbox ([`IsolationLevel::Full`](crate::IsolationLevel::Full))
//! sees and may do, beyond what every sandbox gets: the one profile per use (a build, the
//! conformance gate, a game), passed as [`SpawnOptions::sandbox`](crate::SpawnOptions).
//!
//! Every sandbox (see `docs/supervision.md`, "The sandbox") gets a new root holding only
//! read-only binds of `/usr`, `/lib*`, `/bin`, `/sbin`, `/etc` (its secrets masked), the
//! program's folder, a private size-limited `/tmp` (`TMPDIR`), a minimal `/dev` and its own
//! `/proc`; no network; a seccomp filter; Landlock where the kernel has it; and, when the
//! caller is root, a uid and gid of its own. The profile chooses the rest.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The sandbox's profile: how the program's folder is mounted, which other host paths it
/// sees, the size of its `/tmp`, its process limit and the ids it may run as.
///
/// [`SandboxProfile::default`] is the profile of a game (and of the gate): the program's
/// folder read-only. [`SandboxProfile::build`] is a build's: the folder writable, within a
/// disk limit.
///
/// ```
/// use bao_supervise::{IdRange, Isolation, IsolationLevel, ProgramDirAccess, SandboxProfile, SpawnOptions};
/// let game = SpawnOptions {
///     isolation: Isolation { level: IsolationLevel::Full, no_network: true },
///     sandbox: SandboxProfile {
///         read_only_paths: vec!["/opt/jdk".into()], // what the language table needs
///         ids: IdRange { first: 1_500_000_000, count: 1_000_000 }, // a root caller's uids
///         ..SandboxProfile::default() // the program's folder read-only, 64 MiB /tmp
///     },
///     ..SpawnOptions::default()
/// };
/// assert_eq!(game.sandbox.program_dir, ProgramDirAccess::ReadOnly);
/// let build = SandboxProfile::build(/* disk_mib */ 200, /* max_tasks */ 256);
/// assert_eq!(build.program_dir, ProgramDirAccess::Writable { disk_mib: 200 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxProfile {
    /// How the program's folder ([`BotSpec::dir`](crate::BotSpec::dir), its working
    /// directory) is seen, at the same path as on the host.
    pub program_dir: ProgramDirAccess,
    /// More host paths (files or folders) the program sees, read-only, at the same place:
    /// what the operator's language table needs beyond the system folders, such as
    /// `/opt/jdk` or an interpreter's install (`/root/.pyenv`). Each must be absolute and
    /// exist; the folder of the program itself is added when it lies outside every path the
    /// sandbox shows.
    pub read_only_paths: Vec<PathBuf>,
    /// The size of the private writable `/tmp` (where `TMPDIR` points), in MiB: a tmpfs,
    /// whose pages count against the sandbox's memory limit too. A write beyond it fails
    /// with `ENOSPC`.
    pub tmp_mib: u64,
    /// The most tasks (processes and threads together) the sandbox may run at once,
    /// enforced by the kernel (cgroup `pids.max`, v2 or v1, or `RLIMIT_NPROC` of the
    /// sandbox's own uid); a `fork` or thread start beyond it fails with `EAGAIN`. `None`:
    /// the process limit of [`ResourceLimits::max_processes`](crate::ResourceLimits) with its
    /// usual allowance of threads, or, without one, [`SandboxProfile::DEFAULT_MAX_TASKS`]: a
    /// sandbox always has a task limit.
    pub max_tasks: Option<u64>,
    /// Variables of the caller's environment passed on to the program (`JAVA_OPTS`), when
    /// set. Without them the program's environment is only `PATH` and `LANG` (the caller's,
    /// when set), `HOME` and `TMPDIR` (both `/tmp`) and the supervisor's own marker: the
    /// caller's other variables (tokens, paths) never reach it.
    pub pass_env: Vec<String>,
    /// The uids (and gids of the same numbers) the sandboxes of a root caller run as: each
    /// sandbox gets one of its own. Unused when the caller is not root (see
    /// `subordinate_ids`).
    pub ids: IdRange,
    /// The ids the sandboxes of an unprivileged caller run as: by default its subordinate ids
    /// (`/etc/subuid`, `/etc/subgid`, mapped by `newuidmap` and `newgidmap`), one uid and gid
    /// of its own per sandbox, where it has them; otherwise the caller's uid outside the
    /// sandbox's user namespace (see `docs/supervision.md`, "Identity"). Unused as root.
    pub subordinate_ids: crate::SubordinateIds,
}

impl Default for SandboxProfile {
    /// A game's (and the gate's) profile: the program's folder read-only, no extra paths,
    /// a 64 MiB `/tmp`, the bot's process limit (or [`SandboxProfile::DEFAULT_MAX_TASKS`]),
    /// the default [`IdRange`], the caller's subordinate ids if it has them.
    fn default() -> Self {
        Self {
            program_dir: ProgramDirAccess::ReadOnly,
            read_only_paths: Vec::new(),
            tmp_mib: Self::DEFAULT_TMP_MIB,
            max_tasks: None,
            pass_env: Vec::new(),
            ids: IdRange::default(),
            subordinate_ids: crate::SubordinateIds::Auto,
        }
    }
}

impl SandboxProfile {
    /// The default size of `/tmp`, in MiB.
    pub const DEFAULT_TMP_MIB: u64 = 64;
    /// The task limit of a sandbox whose profile and limits set none: 256 tasks (processes
    /// and threads together), room for a JVM's threads, not for a fork bomb.
    pub const DEFAULT_MAX_TASKS: u64 = 256;

    /// A build's profile: the program's folder writable, the folder and `/tmp` each limited
    /// to `disk_mib`, and at most `max_tasks` tasks.
    #[must_use]
    pub fn build(disk_mib: u64, max_tasks: u64) -> Self {
        Self {
            program_dir: ProgramDirAccess::Writable { disk_mib },
            tmp_mib: disk_mib,
            max_tasks: Some(max_tasks),
            ..Self::default()
        }
    }
}

/// How the sandbox sees the program's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramDirAccess {
    /// Read-only (a game, the gate): a write fails with `EROFS`.
    #[default]
    ReadOnly,
    /// Writable within `disk_mib` (a build). The folder's contents are copied into a tmpfs
    /// of that size, mounted at the folder's path, before the program starts; when the
    /// program has ended, the tmpfs's contents replace the folder's (regular files, folders
    /// and symbolic links, the links copied as links, never followed, and only those that are
    /// relative and resolve within the folder; modes at most `0o755`; other kinds of file are
    /// left out, a left-out link named on the program's stderr). A write beyond the limit fails with `ENOSPC` and nothing of it reaches the
    /// host's disk. A sandbox killed before its end (a `kill -9` of the caller) leaves the
    /// folder as it was, or partly copied back.
    Writable {
        /// The size of the folder's tmpfs, in MiB.
        disk_mib: u64,
    },
}

/// A range of uids (and the gids of the same numbers) for the sandboxes of a root caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IdRange {
    /// The first id.
    pub first: u32,
    /// How many ids, from `first` on.
    pub count: u32,
}

impl Default for IdRange {
    /// 100,000,000 ids from 1,500,000,000 on: far above the ranges of accounts and of the
    /// subordinate ids of rootless containers (`/etc/subuid` usually starts at 100000).
    fn default() -> Self {
        Self { first: 1_500_000_000, count: 100_000_000 }
    }
}

impl IdRange {
    /// Checks that the range holds at least one id, no id is 0 and none passes `u32::MAX - 1`
    /// (the kernel's `(uid_t) -1` means "no change").
    ///
    /// # Errors
    /// A message naming what is wrong with the range.
    pub fn validate(&self) -> Result<(), String> {
        if self.count == 0 {
            return Err("the sandbox id range is empty (count 0)".to_owned());
        }
        if self.first == 0 {
            return Err("the sandbox id range may not start at 0 (root)".to_owned());
        }
        if self.first.checked_add(self.count).is_none_or(|end| end > u32::MAX - 1) {
            return Err(format!(
                "the sandbox id range {}..{} passes the largest id {}",
                self.first,
                u64::from(self.first) + u64::from(self.count),
                u32::MAX - 2
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_and_ranges() {
        let game = SandboxProfile::default();
        assert_eq!(game.program_dir, ProgramDirAccess::ReadOnly);
        let build = SandboxProfile::build(200, 300);
        assert_eq!(build.program_dir, ProgramDirAccess::Writable { disk_mib: 200 });
        assert_eq!((build.tmp_mib, build.max_tasks), (200, Some(300)));
        assert_eq!(IdRange::default().validate(), Ok(()));
        assert!(IdRange { first: 0, count: 5 }.validate().unwrap_err().contains("root"));
        assert!(IdRange { first: 5, count: 0 }.validate().unwrap_err().contains("empty"));
        assert!(IdRange { first: u32::MAX - 3, count: 5 }.validate().unwrap_err().contains("largest"));
        let read: SandboxProfile =
            serde_json::from_str(r#"{"program_dir":{"writable":{"disk_mib":5}}}"#).unwrap();
        assert_eq!(read.program_dir, ProgramDirAccess::Writable { disk_mib: 5 });
        assert_eq!(read.tmp_mib, SandboxProfile::DEFAULT_TMP_MIB);
    }
}

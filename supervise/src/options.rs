//! How to start a bot beyond its [`ResourceLimits`](super::ResourceLimits): the stderr cap,
//! the re-exec stub, the cgroup, and optional isolation.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::sandbox_profile::SandboxProfile;

/// Where to find the re-exec stub (`EXE __exec-bot`), which applies rlimits, joins
/// the bot's cgroup and creates namespaces in a fresh single-threaded process before it
/// `exec`s the bot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StubChoice {
    /// If the running executable's `main` hosts the stub (it called
    /// [`crate::exec_stub::run_if_requested`] first; a test harness does not): the dedicated
    /// stub executable [`bao-exec-stub`](crate::STUB_EXECUTABLE) next to it when there is
    /// one of this build (cheaper to start), otherwise the running executable itself,
    /// whatever the file is called.
    #[default]
    Auto,
    /// This executable, which hosts the stub (e.g. `bao-referee` or `bao-exec-stub`).
    Path(PathBuf),
    /// No stub: the bot is started directly and only the referee-side limits apply.
    Never,
}

/// How far a bot is kept from everything else on the machine (see `docs/supervision.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IsolationLevel {
    /// Only a process group (and a cgroup where one can be made): the bot runs beside the
    /// referee and can signal, trace and read every process of the same user.
    None,
    /// The default: a user namespace, a PID namespace with the bot as init and its own `/proc`
    /// (a mount namespace, mounts made private first), and the cgroup file system hidden. The
    /// bot can address no process outside its own tree; everything it started dies with it.
    #[default]
    Pid,
    /// The sandbox: [`IsolationLevel::Pid`], no network, a new root holding only the system
    /// folders (read-only, secrets masked), the program's folder, a private size-limited
    /// `/tmp`, a minimal `/dev`; a seccomp filter, Landlock where the kernel has it,
    /// `no_new_privs`; and, when the caller runs as root, a separate unprivileged uid and
    /// gid for every sandbox. Configured by [`SpawnOptions::sandbox`].
    Full,
}

impl IsolationLevel {
    /// Every level, from the least to the most isolated.
    pub const ALL: [Self; 3] = [Self::None, Self::Pid, Self::Full];

    /// The name used on the command line and in logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Pid => "pid",
            Self::Full => "full",
        }
    }
}

/// Isolation of the bot (Linux namespaces, created by the stub).
///
/// Where the kernel allows no namespaces, the supervisor says so once (a warning) and runs
/// the bots with process-group isolation only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Isolation {
    /// The level.
    pub level: IsolationLevel,
    /// A new, empty network namespace: the bot has no network (not even a working loopback).
    /// Implied by [`IsolationLevel::Full`].
    pub no_network: bool,
}

impl Isolation {
    /// Today's process-group supervision, without namespaces.
    pub const NONE: Self = Self { level: IsolationLevel::None, no_network: false };

    /// Whether the bot gets its own PID namespace (and `/proc`). Note that an init process
    /// ignores SIGTERM unless it installs a handler; shutdown then escalates to SIGKILL after
    /// the grace period as usual.
    #[must_use]
    pub fn pid_namespace(&self) -> bool {
        self.level != IsolationLevel::None
    }

    /// Whether the bot gets an empty network namespace.
    #[must_use]
    pub fn no_network(&self) -> bool {
        self.no_network || self.level == IsolationLevel::Full
    }
}

/// How much of each bot's stderr is kept by default, in bytes (1 MiB); the rest is read and
/// dropped. The one definition: `bao_game::defaults` re-exports it.
pub const DEFAULT_STDERR_CAP_BYTES: usize = 1 << 20;

/// The longest stdout line by default, in bytes (64 KiB), without the `'\n'`: a bound for any
/// line-based child. A caller that speaks a protocol passes that protocol's own limit in
/// [`SpawnOptions::max_line_bytes`] (the game passes `bao_protocol::MAX_LINE_BYTES`); this
/// crate knows no protocol.
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 16;

/// Everything about starting a bot besides what to run and its limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnOptions {
    /// How much stderr to keep, in bytes (the rest is read, counted and dropped).
    pub stderr_cap: usize,
    /// The longest stdout line, in bytes, without the `'\n'` (default
    /// [`DEFAULT_MAX_LINE_BYTES`]); longer is [`BotFault::LineTooLong`](crate::BotFault).
    pub max_line_bytes: usize,
    /// The re-exec stub.
    pub stub: StubChoice,
    /// Put the bot in its own cgroup v2 when this process may create one.
    pub cgroup: bool,
    /// Give a bot with a CPU limit ([`crate::ResourceLimits::cpus`]) whole CPUs of its own
    /// (a cpuset) when enough of this process's CPUs are held by no other bot.
    pub own_cpus: bool,
    /// Namespaces.
    pub isolation: Isolation,
    /// What the sandbox shows and allows, under [`IsolationLevel::Full`] (ignored at the
    /// other levels): the program's folder read-only or writable, extra read-only paths,
    /// the size of `/tmp`, the process limit, the uid range (see `docs/supervision.md`,
    /// "The sandbox").
    pub sandbox: SandboxProfile,
}

impl Default for SpawnOptions {
    fn default() -> Self {
        Self {
            stderr_cap: DEFAULT_STDERR_CAP_BYTES,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            stub: StubChoice::Auto,
            cgroup: true,
            own_cpus: true,
            isolation: Isolation::default(),
            sandbox: SandboxProfile::default(),
        }
    }
}

impl StubChoice {
    /// The stub executable to use, if any.
    pub(crate) fn resolve(&self) -> Option<PathBuf> {
        match self {
            Self::Never => None,
            Self::Path(path) => Some(path.clone()),
            Self::Auto => {
                if !crate::exec_stub::hosted_here() {
                    return None;
                }
                // Found once per process (it was a `readlink` of `/proc/self/exe` twice a
                // bot): the running executable does not change while it runs.
                static AUTO: OnceLock<Option<PathBuf>> = OnceLock::new();
                AUTO.get_or_init(|| {
                    let exe = std::env::current_exe().ok()?;
                    Some(crate::sibling_stub::next_to(&exe).map_or(exe, Path::to_path_buf))
                })
                .clone()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_pid_level_and_old_plans_still_read() {
        assert_eq!(Isolation::default().level, IsolationLevel::Pid);
        assert!(Isolation::default().pid_namespace() && !Isolation::default().no_network());
        assert!(!Isolation::NONE.pid_namespace());
        assert!(Isolation { level: IsolationLevel::Full, no_network: false }.no_network());
        // What plans written before the levels hold.
        let old: Isolation = serde_json::from_str(r#"{"no_network":true,"pid_namespace":false}"#).unwrap();
        assert_eq!(old, Isolation { level: IsolationLevel::Pid, no_network: true });
        let none: Isolation = serde_json::from_str(r#"{"level":"none"}"#).unwrap();
        assert_eq!(none, Isolation::NONE);
    }
}

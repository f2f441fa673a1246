//! How to start a bot beyond its [`ResourceLimits`](super::ResourceLimits): the stderr cap,
//! the re-exec stub, the cgroup, and optional isolation.

use std::path::PathBuf;

/// Where to find the re-exec stub (`EXE __exec-bot`), which applies rlimits, joins
/// the bot's cgroup and creates namespaces in a fresh single-threaded process before it
/// `exec`s the bot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StubChoice {
    /// The running executable, if its `main` hosts the stub (it called
    /// [`crate::exec_stub::run_if_requested`] first; a test harness does not), whatever the
    /// file is called.
    #[default]
    Auto,
    /// This executable, which hosts the stub (e.g. `bao-referee`).
    Path(PathBuf),
    /// No stub: the bot is started directly and only the referee-side limits apply.
    Never,
}

/// Optional isolation of the bot (Linux namespaces, created by the stub).
///
/// When a namespace cannot be created, the stub writes a warning to the bot's stderr and runs
/// the bot without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Isolation {
    /// A new, empty network namespace: the bot has no network (not even a working loopback).
    pub no_network: bool,
    /// A new PID namespace with the bot as its init: when the bot's main process ends, the
    /// kernel kills every process it left behind, wherever they moved (`setsid` included).
    /// Note that an init process ignores SIGTERM unless it installs a handler; shutdown then
    /// escalates to SIGKILL after the grace period as usual.
    pub pid_namespace: bool,
}

/// Everything about starting a bot besides what to run and its limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnOptions {
    /// How much stderr to keep, in bytes (the rest is read, counted and dropped).
    pub stderr_cap: usize,
    /// The longest stdout line, in bytes, without the `'\n'`.
    pub max_line_bytes: usize,
    /// The re-exec stub.
    pub stub: StubChoice,
    /// Put the bot in its own cgroup v2 when this process may create one.
    pub cgroup: bool,
    /// Namespaces.
    pub isolation: Isolation,
}

impl Default for SpawnOptions {
    fn default() -> Self {
        Self {
            stderr_cap: bao_protocol::STDERR_CAP_BYTES,
            max_line_bytes: bao_protocol::MAX_LINE_BYTES,
            stub: StubChoice::Auto,
            cgroup: true,
            isolation: Isolation::default(),
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
                if crate::exec_stub::hosted_here() {
                    std::env::current_exe().ok()
                } else {
                    None
                }
            }
        }
    }
}

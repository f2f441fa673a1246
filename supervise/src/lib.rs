//! Running one untrusted program as a supervised child process.
//!
//! This crate owns everything between the referee and one bot's process: the re-exec stub
//! ([`exec_stub`]), limits, isolation, the process tree and its termination, and the pump that
//! reads the bot's output. It must not know what a game, a move or a clock is: it moves lines.
//!
//! [`BotProcess::spawn`] starts the bot in its own process group (through the re-exec stub,
//! `bao-exec-stub __exec-bot` or `bao-referee __exec-bot`, when there are rlimits, a cgroup to
//! join or namespaces to create). By default ([`IsolationLevel::Pid`]) the bot runs in its own user, PID, mount and
//! IPC namespaces with its own `/proc`, under a small init, so that it can neither see nor
//! signal nor trace any process outside its own tree, and with a private `TMPDIR`; where the
//! kernel allows no namespaces this is said once and the bot runs with process-group
//! isolation. The child is handed to one background task (the pump) that:
//! - always drains stdout into a bounded channel of lines (at most
//!   [`SpawnOptions::max_line_bytes`] each, which the caller sets; longer is [`BotFault::LineTooLong`] after reading
//!   about that many bytes, never a big allocation), stopping to read only when the channel is
//!   full (back-pressure);
//! - always drains stderr into a capped buffer, counting what it drops;
//! - watches the exit of the main process and turns it into a verdict;
//! - enforces the limits: output bytes as they are read; CPU time, memory and process count
//!   on a 50 ms tick; kills the whole tree when one is broken.
//!
//! Ending a bot ([`BotProcess::shutdown`]) reaches its whole tree: a cgroup v2 when the
//! referee can create one (`cgroup.kill`), otherwise its process groups and a `/proc` walk,
//! with the referee as child subreaper so that orphans stay within reach. See
//! `docs/supervision.md` for the mechanisms, what each machine supports, and the gaps.
//!
//! Linux only.

mod arrival;
mod bot_child;
mod bot_user;
mod cgroup;
mod cgroup_v1;
mod cleanup;
mod clone_into_cgroup;
mod cpu_lease;
mod cpu_probe;
pub mod exec_stub;
mod fault;
mod id_mapper;
mod isolation_probe;
mod landlock_rules;
pub mod lines;
mod memory_v1;
mod options;
mod private_tmp;
mod process;
mod procfs;
mod pump;
mod sandbox;
mod sandbox_profile;
mod sandbox_root;
mod sandbox_support;
mod sandbox_view;
mod seccomp_filter;
mod seqpacket;
mod shared_user_namespace;
mod sibling_stub;
mod spawn_client;
mod spawn_server;
mod spawn_wire;
pub mod spec;
mod stage_times;
mod stderr;
mod stub_args;
mod subordinate_ids;
mod tree;
mod tree_copy;

#[cfg(test)]
mod cpu_tests;
#[cfg(test)]
mod test_executable;
#[cfg(test)]
mod tests;

pub use cleanup::wait_for_cleanups;
pub use cpu_lease::allowed_cpus;
pub use cpu_probe::{CpuConfinement, cpu_confinement};
pub use fault::{BotFault, EndedBy, ExitReport, SpawnError, is_resource_shortage, signal_name};
pub use options::{
    DEFAULT_MAX_LINE_BYTES, DEFAULT_STDERR_CAP_BYTES, Isolation, IsolationLevel, SpawnOptions, StubChoice,
};
pub use private_tmp::PrivateTmpReuse;
pub use process::{BotProcess, EXEC_STUB_SUBCOMMAND, Supervision};
pub use sandbox_profile::{IdRange, ProgramDirAccess, SandboxProfile};
pub use sandbox_support::{FeatureState, SandboxFeature, SandboxIdentity, SandboxSupport};
pub use sibling_stub::STUB_EXECUTABLE;
pub use spec::{BotSpec, CpuShare, ResourceLimits};
pub use stderr::StderrCapture;
pub use subordinate_ids::SubordinateIds;

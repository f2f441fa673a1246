//! [`BotProcess`]: one bot program running as a supervised child.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::arrival::{LINE_CHANNEL_CAPACITY, TimedLine};
use super::bot_child::BotChild;
use super::cgroup::BotCgroup;
use super::cleanup;
use super::fault::{BotFault, EndedBy, ExitReport, SpawnError};
use super::options::{Isolation, IsolationLevel, SpawnOptions};
use super::private_tmp::PrivateTmp;
use super::pump::{Pump, Shared, Watch, lock};
use super::sandbox::BotUser;
use super::sandbox_view::SandboxArgs;
use super::spawn_client::ServerSpawn;
use super::spawn_wire::SpawnRequest;
use super::stderr::StderrCapture;
use super::tree::{self, ProcessTree};
use super::{BotSpec, ResourceLimits};

/// The hidden subcommand of `bao-referee` that runs the re-exec stub.
pub const EXEC_STUB_SUBCOMMAND: &str = "__exec-bot";

/// Threads allowed per allowed process by the kernel backstops (`pids.max`, `RLIMIT_NPROC`),
/// which count threads; the exact process count is enforced by the watchdog.
const TASKS_PER_PROCESS: u64 = 256;
/// How long `send_line` waits for the exit status after the bot closed its stdin.
const EXIT_AFTER_BROKEN_PIPE: Duration = Duration::from_millis(200);
/// How long `shutdown` waits for the main process after SIGKILL.
const KILL_WAIT: Duration = Duration::from_secs(2);
/// How long `shutdown` waits for the pump to finish draining.
const PUMP_WAIT: Duration = Duration::from_secs(1);

/// The kernel backstop for the number of tasks (processes and threads) of a bot.
fn task_backstop(max_processes: u64) -> u64 {
    max_processes.saturating_add(1).saturating_mul(TASKS_PER_PROCESS)
}

/// Which supervision mechanisms a bot runs under (for logs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Supervision {
    /// The bot's cgroup v2 directory, if it has one (tree membership, `cgroup.kill`, CPU time).
    pub cgroup: Option<PathBuf>,
    /// Whether the kernel enforces the memory limit (cgroup `memory.max`); otherwise the
    /// referee samples the tree's memory and the stub sets `RLIMIT_DATA` as a backstop.
    pub kernel_memory_limit: bool,
    /// Whether the kernel caps the tree's tasks (cgroup `pids.max`).
    pub kernel_task_limit: bool,
    /// Whether the bot was started through the re-exec stub.
    pub stub: bool,
    /// Whether that stub was forked by the spawn server (otherwise it was `exec`'d).
    pub spawn_server: bool,
    /// The isolation the bot runs under: what was asked for, or [`Isolation::NONE`] when the
    /// kernel allows no namespaces here (said once, as a warning) or there is no stub.
    pub isolation: Isolation,
    /// The separate uid the bot runs as (`--isolation full` with a referee running as root).
    pub uid: Option<u32>,
    /// The bot's private temporary directory (`TMPDIR`), removed after the bot has ended.
    pub tmpdir: Option<PathBuf>,
    /// How the kernel holds the tree to [`ResourceLimits::cpus`] (`cgroup v2 cpu.max`,
    /// `cgroup v1 cpu.cfs_quota_us`), or `None` when nothing does.
    pub cpu_limit_by: Option<&'static str>,
    /// The bot's own CPUs (its cpuset, as `cpuset.cpus` lists them), if it has some.
    pub cpuset: Option<String>,
    /// Whether the tree can be frozen ([`BotProcess::freeze`]).
    pub freezable: bool,
}

impl std::fmt::Display for Supervision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cgroup {
            Some(path) => write!(f, "cgroup {}", path.display())?,
            None => write!(f, "process group and /proc tree")?,
        }
        write!(f, "; memory limit by {}", if self.kernel_memory_limit { "cgroup" } else { "sampling" })?;
        let start = match (self.stub, self.spawn_server) {
            (true, true) => "stub forked by the spawn server",
            (true, false) => "re-exec stub",
            (false, _) => "direct spawn",
        };
        write!(f, "; {start}")?;
        write!(f, "; isolation {}", self.isolation.level.name())?;
        if self.isolation.no_network() {
            write!(f, "; no network")?;
        }
        if let Some(uid) = self.uid {
            write!(f, "; uid {uid}")?;
        }
        if let Some(by) = self.cpu_limit_by {
            write!(f, "; CPU limit by {by}")?;
        }
        if let Some(cpus) = &self.cpuset {
            write!(f, "; own CPUs {cpus}")?;
        }
        Ok(())
    }
}

/// A running bot: its stdin, a stream of its stdout lines, its captured stderr, and its
/// whole process tree, supervised by a background task (see the module docs of
/// [`bot`](super)).
///
/// Dropping a `BotProcess` without [`shutdown`](Self::shutdown) SIGKILLs its tree.
#[derive(Debug)]
pub struct BotProcess {
    pid: u32,
    stdin: Option<ChildStdin>,
    /// The line being written with its `'\n'`, reused from line to line (no allocation per
    /// request once it has grown).
    outgoing: Vec<u8>,
    lines: mpsc::Receiver<TimedLine>,
    /// The deadline of [`BotProcess::recv_line_timed`], kept from call to call: moving a
    /// registered timer later costs no timer-wheel update (tokio only notes the new time
    /// and re-files the entry if it fires first), so a move costs no timer registration.
    recv_timer: Option<Pin<Box<tokio::time::Sleep>>>,
    exit: watch::Receiver<Option<(ExitReport, BotFault)>>,
    shared: Arc<Shared>,
    pump: Option<JoinHandle<()>>,
    supervision: Supervision,
    tmp: Option<PrivateTmp>,
    shut_down: bool,
    /// Set by [`BotProcess::freeze_until_next_line`]: the next [`BotProcess::send_line`]
    /// thaws the bot once its line is in the pipe.
    thaw_after_send: bool,
}

impl BotProcess {
    /// Spawns the bot (via the re-exec stub when limits are set), in its own process group.
    ///
    /// Uses [`SpawnOptions::default`] with the given stderr cap.
    pub async fn spawn(
        spec: &BotSpec,
        limits: &ResourceLimits,
        stderr_cap: usize,
    ) -> Result<Self, SpawnError> {
        let options = SpawnOptions { stderr_cap, ..SpawnOptions::default() };
        Self::spawn_with(spec, limits, &options).await
    }

    /// Spawns the bot with explicit options.
    pub async fn spawn_with(
        spec: &BotSpec,
        limits: &ResourceLimits,
        options: &SpawnOptions,
    ) -> Result<Self, SpawnError> {
        let dir = working_dir(spec)?;
        let program = resolve_program(&spec.program, &dir)?;
        tree::become_subreaper();

        let stub_path = options.stub.resolve();
        let decided = decide_isolation(options, stub_path.as_deref(), &program, &dir, spec)?;
        let (isolation, user, id_lease) = (decided.isolation, decided.user, decided.lease);
        let sandboxed = isolation.level == IsolationLevel::Full;
        // In the sandbox the profile's task limit, if it has one, is the kernel's exact limit;
        // without one, the bot's process limit or else the sandbox's default: never none.
        let tasks = match options.sandbox.max_tasks {
            Some(tasks) if sandboxed => Some(tasks),
            None if sandboxed => {
                Some(limits.max_processes.map_or(crate::SandboxProfile::DEFAULT_MAX_TASKS, task_backstop))
            }
            _ => limits.max_processes.map(task_backstop),
        };
        let cgroup = if options.cgroup {
            BotCgroup::create(limits, tasks, options.own_cpus)
                .inspect_err(|reason| tracing::debug!("no cgroup for the bot: {reason}"))
                .ok()
        } else {
            None
        };
        let kernel_memory_limit = cgroup.as_ref().is_some_and(BotCgroup::memory_limited);
        let kernel_task_limit = cgroup.as_ref().is_some_and(BotCgroup::pids_limited);
        // The sandbox has its own /tmp (a tmpfs in its namespace), nothing on the host's disk.
        let tmp = if sandboxed {
            None
        } else {
            Some(PrivateTmp::create(user).map_err(|source| SpawnError::Spawn {
                program: spec.program.clone(),
                source: std::io::Error::new(
                    source.kind(),
                    crate::fault::WordedOsError {
                        errno: source.raw_os_error().unwrap_or(0),
                        message: format!(
                            "cannot create its private temporary directory in {}: {source}",
                            std::env::temp_dir().display()
                        ),
                    },
                ),
            })?)
        };
        let stub_args = StubArgs {
            rlimit_data: if kernel_memory_limit {
                None
            } else {
                limits.max_memory_bytes.map(|m| m.saturating_mul(2))
            },
            // A backstop one second later than the tree-wide check, which decides.
            rlimit_cpu: limits.max_cpu_secs.map(|secs| secs.saturating_add(1)),
            nproc_allowance: tasks,
            cgroups: cgroup.as_ref().map(BotCgroup::join_paths).unwrap_or_default(),
            isolation,
            user,
            sandbox: decided.sandbox,
        };
        let stub = if stub_args.is_needed() { stub_path } else { None };
        if stub.is_none() && stub_args.wants_stub_only_features() {
            tracing::warn!(
                "no re-exec stub available: rlimits and namespaces are not applied to `{}`; \
                 limits are enforced by the referee's sampling only",
                spec.display_name()
            );
        }

        // The marker is only needed (and only set) where neither a cgroup nor a PID namespace
        // holds the tree: a bot under isolation never sees it.
        let marker =
            (cgroup.is_none() && !(stub.is_some() && isolation.pid_namespace())).then(tree::new_marker_value);
        let start = Start {
            program: &program,
            spec,
            dir: &dir,
            marker: marker.as_deref(),
            tmpdir: tmp_path(tmp.as_ref()),
        };
        let spawn_error = |source| SpawnError::Spawn { program: spec.program.clone(), source };
        let (mut child, spawn_server) = match &stub {
            Some(stub) => match server_spawn(stub, &start.server_request(&stub_args)) {
                ServerSpawn::Started(child) => (*child, true),
                ServerSpawn::Failed(source) => return Err(spawn_error(source)),
                ServerSpawn::Unavailable => {
                    (start.command(Some((stub, &stub_args))).map_err(spawn_error)?, false)
                }
            },
            None => (start.command(None).map_err(spawn_error)?, false),
        };
        let pid = child.id();
        if stub.is_none()
            && let Some(cgroup) = &cgroup
        {
            // Racy without the stub: a fork before this write stays outside the cgroup
            // (`sweep_into_cgroup` below moves what it finds; the /proc walk sees the rest).
            if let Err(e) = cgroup.add(pid) {
                tracing::debug!("cannot move bot {pid} into {}: {e}", cgroup.path().display());
            }
        }

        let supervision = Supervision {
            cgroup: cgroup.as_ref().map(|c| c.path().to_path_buf()),
            kernel_memory_limit,
            kernel_task_limit,
            stub: stub.is_some(),
            spawn_server,
            isolation: if stub.is_some() { isolation } else { Isolation::NONE },
            uid: user.map(|u| u.uid),
            tmpdir: Some(tmp_path(tmp.as_ref()).to_path_buf()),
            cpu_limit_by: cgroup.as_ref().and_then(BotCgroup::cpu_limit_by),
            cpuset: cgroup.as_ref().and_then(|c| c.cpuset().map(str::to_owned)),
            freezable: cgroup.as_ref().is_some_and(BotCgroup::freezable),
        };
        tracing::debug!("started bot `{}` as pid {pid}: {supervision}", spec.display_name());

        let stdin = child.stdin.take();
        // Under a PID namespace every bot process is the init's (born in the cgroup) or
        // its descendant: see `tree::Containment::Namespace`.
        let containment = if supervision.stub && supervision.isolation.pid_namespace() {
            tree::Containment::Namespace
        } else {
            tree::Containment::Walk
        };
        let marker = marker.map(|marker| format!("{}={marker}", tree::MARKER_VARIABLE));
        let mut tree = ProcessTree::new(pid, marker, cgroup, containment);
        if stub.is_none() {
            tree.sweep_into_cgroup();
        }
        let shared = Arc::new(Shared::new(options.stderr_cap, tree, Arc::new(AtomicU64::new(0)), id_lease));
        let (sender, lines) = mpsc::channel(LINE_CHANNEL_CAPACITY);
        let watch = Watch {
            limits: *limits,
            sample_memory: !kernel_memory_limit,
            count_processes: limits.max_processes.is_some(),
            // The outer stub and the namespace's init.
            helper_processes: if supervision.stub && supervision.isolation.pid_namespace() { 2 } else { 0 },
            max_line: options.max_line_bytes,
        };
        let pump = Pump::new(child, sender, Arc::clone(&shared), watch).ok_or_else(|| SpawnError::Spawn {
            program: spec.program.clone(),
            source: std::io::Error::other("the bot's stdout or stderr pipe is missing"),
        })?;
        let exit = shared.exit.subscribe();
        let pump = tokio::spawn(pump.run());
        Ok(Self {
            pid,
            stdin,
            outgoing: Vec::new(),
            lines,
            recv_timer: None,
            exit,
            shared,
            pump: Some(pump),
            supervision,
            tmp,
            shut_down: false,
            thaw_after_send: false,
        })
    }

    /// Checks, without starting it, that the bot can be started with these options: its
    /// program and working directory exist, and it can run under the isolation asked for (a
    /// bot whose separate user under `--isolation full` could not reach its program is an
    /// error naming why). Runs the one-time isolation check of this machine.
    ///
    /// # Errors
    /// What would make [`BotProcess::spawn_with`] fail before the bot runs.
    pub fn preflight(spec: &BotSpec, options: &SpawnOptions) -> Result<Isolation, SpawnError> {
        let dir = working_dir(spec)?;
        let program = resolve_program(&spec.program, &dir)?;
        let stub = options.stub.resolve();
        decide_isolation(options, stub.as_deref(), &program, &dir, spec)
            .map(|decided| if stub.is_some() { decided.isolation } else { Isolation::NONE })
    }

    /// The process id of the bot's main process (the stub's, in PID-namespace mode); it is
    /// also the id of the bot's process group.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The supervision mechanisms in use.
    #[must_use]
    pub fn supervision(&self) -> &Supervision {
        &self.supervision
    }

    /// Writes one line (a '\n' is appended) and flushes; fails with a [`BotFault`] if the bot's
    /// stdin is closed or the write does not finish by the deadline (a bot that never reads
    /// stdin must not block the referee).
    ///
    /// Not cancel-safe: a write cut short (by cancellation or the deadline) leaves a partial
    /// line in the pipe, so after an error no further lines should be sent.
    pub async fn send_line(&mut self, line: &str, deadline: Instant) -> Result<(), BotFault> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(BotFault::Io("the bot's stdin is already closed".to_owned()));
        };
        let bytes = &mut self.outgoing;
        bytes.clear();
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let write = async {
            stdin.write_all(bytes).await?;
            stdin.flush().await
        };
        let written = tokio::time::timeout_at(deadline, write).await;
        if std::mem::take(&mut self.thaw_after_send)
            && let Err(e) = self.thaw()
        {
            tracing::warn!("bot {}: cannot thaw it after writing to it: {e}", self.pid);
        }
        match written {
            Ok(Ok(())) => Ok(()),
            Err(_) => Err(BotFault::Timeout),
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                // The bot closed stdin, most likely by exiting: report the exit if it comes.
                let wait_until = deadline.min(Instant::now() + EXIT_AFTER_BROKEN_PIPE);
                let exited = tokio::time::timeout_at(wait_until, self.exit.wait_for(Option::is_some)).await;
                match exited {
                    Ok(Ok(exit)) => {
                        Err(exit.as_ref().map_or(BotFault::StdoutClosed, |(_, fault)| fault.clone()))
                    }
                    _ => Err(BotFault::Io("the bot closed its stdin but is still running".to_owned())),
                }
            }
            Ok(Err(e)) => Err(BotFault::Io(format!("writing to the bot's stdin: {e}"))),
        }
    }

    /// The next complete stdout line (without '\n'), waiting until the deadline.
    ///
    /// Cancel-safe: if the future is dropped, no line is lost. After a fault other than
    /// [`BotFault::Timeout`], every later call returns the same fault at once (a
    /// [`BotFault::StdoutClosed`] turns into the exit's fault once the bot has exited).
    pub async fn recv_line(&mut self, deadline: Instant) -> Result<String, BotFault> {
        self.recv_line_timed(deadline).await.map(|(line, _)| line)
    }

    /// Like [`BotProcess::recv_line`], with the moment the line arrived: when the supervisor
    /// read its `'\n'` from the pipe, not when the caller got round to it (a bot is charged
    /// up to its line's arrival).
    pub async fn recv_line_timed(
        &mut self,
        deadline: Instant,
    ) -> Result<(String, std::time::Instant), BotFault> {
        let timer = self.recv_timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        timer.as_mut().reset(deadline);
        // A line already there is taken even when the deadline has passed.
        tokio::select! {
            biased;
            line = self.lines.recv() => match line {
                Some(line) => Ok(line),
                None => Err(lock(&self.shared.terminal)
                    .clone()
                    .unwrap_or_else(|| BotFault::Io("the bot's supervisor stopped".to_owned()))),
            },
            () = timer.as_mut() => Err(BotFault::Timeout),
        }
    }

    /// CPU time (user+system) used so far by the bot's whole process tree, if measurable.
    ///
    /// With a cgroup this is `cpu.stat` (microseconds, includes exited processes); otherwise
    /// the sum over the live processes of the tree (nanosecond CPU clocks) plus the children
    /// they have waited for. It never decreases.
    #[must_use]
    pub fn cpu_time(&self) -> Option<Duration> {
        lock(&self.shared.tree).cpu_time()
    }

    /// Freezes the bot's whole process tree (cgroup v2 `cgroup.freeze`): none of its processes
    /// runs until [`BotProcess::thaw`]. One `pwrite` on a descriptor kept open: it returns once
    /// every task has been told to stop (running ones are interrupted at once), without
    /// waiting for the kernel to report the whole tree frozen (see `BENCHMARKS.md`).
    ///
    /// A bot frozen in the middle of writing a line finishes it once thawed; the reader stamps
    /// a line when its `'\n'` is read, so what was written before the freeze keeps its time.
    ///
    /// # Errors
    /// When the bot has no cgroup that can be frozen ([`Supervision::freezable`]), or the
    /// kernel refused.
    pub fn freeze(&self) -> std::io::Result<()> {
        self.set_frozen(true)
    }

    /// Freezes the bot (as [`BotProcess::freeze`]) until the next line written to it is in
    /// its stdin pipe: [`BotProcess::send_line`] thaws it then, so that the bot runs again
    /// only once there is something for it to read (the line of a frozen bot waits in the
    /// pipe's buffer, 64 KiB on Linux). A bot woken before the line is written would run
    /// in the time between, which may be long on a busy machine.
    ///
    /// # Errors
    /// As [`BotProcess::freeze`] (the bot is then not frozen, and not thawed by the next line).
    pub fn freeze_until_next_line(&mut self) -> std::io::Result<()> {
        self.set_frozen(true)?;
        self.thaw_after_send = true;
        Ok(())
    }

    /// Lets a frozen bot run again (see [`BotProcess::freeze`]).
    ///
    /// # Errors
    /// As [`BotProcess::freeze`].
    pub fn thaw(&self) -> std::io::Result<()> {
        self.set_frozen(false)
    }

    /// Waits, at most `within`, until the kernel reports every process of the bot frozen
    /// (`cgroup.events` `frozen 1`); true if it does. For tests and benchmarks: the freeze
    /// itself needs no wait.
    #[must_use]
    pub fn wait_frozen(&self, within: Duration) -> bool {
        lock(&self.shared.tree).cgroup().is_some_and(|cgroup| cgroup.wait_frozen(within))
    }

    fn set_frozen(&self, frozen: bool) -> std::io::Result<()> {
        match lock(&self.shared.tree).cgroup() {
            Some(cgroup) => cgroup.freeze(frozen),
            None => Err(std::io::Error::other("the bot has no cgroup to freeze")),
        }
    }

    /// A snapshot of the captured stderr.
    #[must_use]
    pub fn stderr(&self) -> StderrCapture {
        lock(&self.shared.stderr).snapshot()
    }

    /// The captured stderr, and a fresh capture from now on (for a bot kept for another game:
    /// each game's log holds what it wrote during that game). The output limit still counts
    /// everything the process wrote.
    pub fn take_stderr(&self) -> StderrCapture {
        lock(&self.shared.stderr).take()
    }

    /// Bytes the bot has written to stdout and stderr together so far.
    #[must_use]
    pub fn output_bytes(&self) -> u64 {
        self.shared.output_bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How the main process ended, if it has.
    #[must_use]
    pub fn exit_report(&self) -> Option<ExitReport> {
        self.exit.borrow().as_ref().map(|(report, _)| report.clone())
    }

    /// Ends the bot and its whole process tree: closes stdin, waits up to `grace` for it to
    /// exit by itself, then SIGTERM to the group (and tree), `grace` again, then SIGKILL;
    /// never hangs. Returns how it exited.
    ///
    /// Processes of the tree still running after the main process exited are SIGKILLed.
    /// When the tree was born in its cgroup (the stub joined it first), this returns once the
    /// bot's end is known and `cgroup.kill` has been written — every process of the tree has
    /// then been sent SIGKILL, none can run again — and the rest (waiting until the cgroup is
    /// empty, reaping, removing the cgroup and `TMPDIR`) finishes in the background within
    /// about 2 s ([`crate::wait_for_cleanups`] waits for it). Otherwise the tree is walked,
    /// killed and reaped before this returns.
    pub async fn shutdown(mut self, grace: Duration) -> ExitReport {
        self.shut_down = true;
        // A frozen bot is thawed first, to see its stdin close and exit by itself.
        if self.supervision.freezable {
            let _ = self.thaw();
        }
        drop(self.stdin.take());
        let mut report = match self.wait_exit(grace).await {
            Some(report) => report,
            None => {
                self.shared.signal_tree(Signal::SIGTERM, EndedBy::Terminate);
                match self.wait_exit(grace).await {
                    Some(report) => report,
                    None => {
                        self.shared.signal_tree(Signal::SIGKILL, EndedBy::Kill);
                        self.wait_exit(KILL_WAIT).await.unwrap_or_else(|| {
                            tracing::warn!("bot {} did not exit after SIGKILL", self.pid);
                            ExitReport { ended_by: EndedBy::Kill, ..ExitReport::default() }
                        })
                    }
                }
            }
        };
        // Every process of the tree was born in its cgroup when the stub joined it first:
        // one `cgroup.kill` then reaches all of them at once, and nobody needs to wait for
        // them to be gone (the namespace's init may still be tearing down the bot's mount
        // namespaces, which takes milliseconds). Otherwise the tree is walked and killed
        // until nothing is left, as before.
        let born_in_cgroup = self.supervision.stub && self.supervision.cgroup.is_some();
        if born_in_cgroup {
            if let Some(cgroup) = lock(&self.shared.tree).cgroup() {
                cgroup.kill();
            }
        } else {
            let shared = Arc::clone(&self.shared);
            let _ = tokio::task::spawn_blocking(move || cleanup::kill_leftovers(&shared)).await;
        }
        self.lines.close();
        if let Some(mut pump) = self.pump.take()
            && tokio::time::timeout(PUMP_WAIT, &mut pump).await.is_err()
        {
            tracing::warn!("bot {}: an escaped process still holds its output pipes", self.pid);
            pump.abort();
        }
        if let Some(cpu) = lock(&self.shared.tree).cpu_time() {
            report.cpu_time = Some(cpu);
        }
        let tmp = self.tmp.take();
        if born_in_cgroup {
            cleanup::in_background(Arc::clone(&self.shared), tmp, self.pid);
        } else {
            let mut tree = lock(&self.shared.tree);
            tree.reap_orphans();
            tree.remove_cgroup();
            drop(tree);
            drop(tmp);
        }
        report
    }

    /// Like [`BotProcess::shutdown`], and also returns the bot's stderr as it
    /// stood at the very end (after the reader drained the pipe), so that what
    /// a bot writes while it crashes or exits is kept.
    pub async fn shutdown_with_stderr(self, grace: Duration) -> (ExitReport, StderrCapture) {
        let shared = Arc::clone(&self.shared);
        let report = self.shutdown(grace).await;
        let stderr = lock(&shared.stderr).snapshot();
        (report, stderr)
    }

    async fn wait_exit(&mut self, within: Duration) -> Option<ExitReport> {
        match tokio::time::timeout(within, self.exit.wait_for(Option::is_some)).await {
            Ok(Ok(exit)) => exit.as_ref().map(|(report, _)| report.clone()),
            _ => None,
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        if self.shut_down {
            return;
        }
        self.shared.signal_tree(Signal::SIGKILL, EndedBy::Kill);
        cleanup::in_background(Arc::clone(&self.shared), self.tmp.take(), self.pid);
    }
}

/// What starts a bot's main process (the stub, or the bot itself without one).
struct Start<'a> {
    program: &'a Path,
    spec: &'a BotSpec,
    dir: &'a Path,
    /// The value of [`tree::MARKER_VARIABLE`], if the bot is marked.
    marker: Option<&'a str>,
    tmpdir: &'a Path,
}

impl Start<'_> {
    /// Starts it with `Command` (tokio's): through `EXE __exec-bot …` when a stub is given,
    /// otherwise the program itself; in its own process group, with piped stdio.
    fn command(&self, stub: Option<(&Path, &StubArgs)>) -> std::io::Result<BotChild> {
        let mut command = match stub {
            Some((stub, stub_args)) => {
                let mut command = Command::new(stub);
                command.arg(EXEC_STUB_SUBCOMMAND).args(stub_args.to_args()).arg("--").arg(self.program);
                command
            }
            None => Command::new(self.program),
        };
        command.env_remove(tree::MARKER_VARIABLE);
        if let Some(marker) = self.marker {
            command.env(tree::MARKER_VARIABLE, marker);
        }
        command
            .env("TMPDIR", self.tmpdir)
            .args(&self.spec.args)
            .current_dir(self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        BotChild::from_command(command.spawn()?)
            .ok_or_else(|| std::io::Error::other("the process exited before it could be supervised"))
    }

    /// The same start as a request to the spawn server: the stub's arguments, and the
    /// environment and directory `Command` would give the stub (the referee's environment
    /// without its own marker, with the bot's marker and `TMPDIR`, sorted by name as
    /// `Command` passes it).
    fn server_request(&self, stub_args: &StubArgs) -> SpawnRequest {
        let mut args = stub_args.to_args();
        args.push("--".into());
        args.push(self.program.as_os_str().to_owned());
        args.extend(self.spec.args.iter().map(std::ffi::OsString::from));
        let mut environment: std::collections::BTreeMap<std::ffi::OsString, std::ffi::OsString> =
            std::env::vars_os().collect();
        environment.remove(std::ffi::OsStr::new(tree::MARKER_VARIABLE));
        if let Some(marker) = self.marker {
            environment.insert(tree::MARKER_VARIABLE.into(), marker.into());
        }
        environment.insert("TMPDIR".into(), self.tmpdir.as_os_str().to_owned());
        let environment = environment
            .into_iter()
            .map(|(mut name, value)| {
                name.push("=");
                name.push(value);
                name
            })
            .collect();
        SpawnRequest { stub_args: args, environment, dir: self.dir.as_os_str().to_owned() }
    }
}

/// Starts the stub through the spawn server, unless the request holds a NUL byte (the
/// `Command` way then reports it as the spawn error it is).
fn server_spawn(stub: &Path, request: &SpawnRequest) -> ServerSpawn {
    if request.holds_a_nul() {
        return ServerSpawn::Unavailable;
    }
    crate::spawn_client::spawn(stub, request)
}

/// What the stub must do before it `exec`s the bot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct StubArgs {
    rlimit_data: Option<u64>,
    rlimit_cpu: Option<u64>,
    nproc_allowance: Option<u64>,
    cgroups: Vec<PathBuf>,
    isolation: Isolation,
    user: Option<BotUser>,
    /// The sandbox's settings, under `--isolation full`.
    sandbox: Option<SandboxArgs>,
}

/// The `TMPDIR` of a bot: its private directory on the host, or the sandbox's own `/tmp`.
fn tmp_path(tmp: Option<&PrivateTmp>) -> &Path {
    tmp.map_or(Path::new("/tmp"), PrivateTmp::path)
}

impl StubArgs {
    fn is_needed(&self) -> bool {
        !self.cgroups.is_empty() || self.wants_stub_only_features()
    }

    fn wants_stub_only_features(&self) -> bool {
        self.rlimit_data.is_some()
            || self.rlimit_cpu.is_some()
            || self.nproc_allowance.is_some()
            || self.isolation.no_network()
            || self.isolation.pid_namespace()
    }

    /// The stub's options (without `--` and the program, which the caller adds).
    fn to_args(&self) -> Vec<std::ffi::OsString> {
        crate::stub_args::ExecBotArgs {
            rlimit_data: self.rlimit_data,
            rlimit_cpu: self.rlimit_cpu,
            nproc_allowance: self.nproc_allowance,
            parent_pid: i32::try_from(std::process::id()).ok(),
            cgroup: self.cgroups.clone(),
            isolation: self.isolation.level,
            no_network: self.isolation.no_network(),
            uid: self.user.map(|user| user.uid),
            gid: self.user.map(|user| user.gid),
            read_only: self.sandbox.as_ref().map(|s| s.read_only.clone()).unwrap_or_default(),
            writable_mib: self.sandbox.as_ref().and_then(|s| s.writable_mib),
            tmp_mib: self.sandbox.as_ref().map(|s| s.tmp_mib),
            pass_env: self.sandbox.as_ref().map(|s| s.pass_env.clone()).unwrap_or_default(),
            ..crate::stub_args::ExecBotArgs::default()
        }
        .to_args()
    }
}

/// What [`decide_isolation`] decided.
struct Decided {
    isolation: Isolation,
    /// The separate user (a root caller under `--isolation full`).
    user: Option<BotUser>,
    /// The sandbox's settings (`--isolation full`).
    sandbox: Option<SandboxArgs>,
    /// The lease on the separate user's id, held as long as the bot's state.
    lease: Option<crate::bot_user::IdLease>,
}

/// The isolation a bot gets, its separate user and its sandbox if it has them: what was
/// asked for if the stub can set it up here (checked once, see [`crate::isolation_probe`]),
/// otherwise none — except the sandbox (`full`), which is never replaced by less: a machine
/// that cannot set it up is an error naming why. A bot that its sandbox or separate user
/// could not run is an error naming why.
fn decide_isolation(
    options: &SpawnOptions,
    stub: Option<&Path>,
    program: &Path,
    dir: &Path,
    spec: &BotSpec,
) -> Result<Decided, SpawnError> {
    let asked = options.isolation;
    let sandboxed = asked.level == IsolationLevel::Full;
    let refuse = |reason: String| SpawnError::Isolation { program: spec.program.clone(), reason };
    let Some(stub) = stub.filter(|_| asked.pid_namespace() || asked.no_network()) else {
        if sandboxed {
            return Err(refuse(
                "the sandbox is set up by the re-exec stub, and there is none here (see StubChoice)"
                    .to_owned(),
            ));
        }
        return Ok(Decided { isolation: asked, user: None, sandbox: None, lease: None });
    };
    let root = nix::unistd::geteuid().is_root();
    let sandbox = if sandboxed {
        Some(crate::sandbox_view::plan(&options.sandbox, program, &spec.args, dir).map_err(refuse)?)
    } else {
        None
    };
    // Who the sandbox runs as: a root caller's own range, an unprivileged caller's
    // subordinate ids where it has them, or (None) the caller's uid.
    let separate = if !sandboxed {
        None
    } else if root {
        options.sandbox.ids.validate().map_err(refuse)?;
        Some(Separate::Root(options.sandbox.ids))
    } else {
        subordinate_ids(options.sandbox.subordinate_ids, stub, asked)
            .map_err(refuse)?
            .map(Separate::Subordinate)
    };
    let probe_user = separate.map(|separate| match separate {
        Separate::Root(_) => crate::bot_user::probe_user(),
        Separate::Subordinate(range) => range.probe_user(),
    });
    match crate::isolation_probe::check(stub, asked, probe_user) {
        Ok(()) => {}
        // The sandbox was asked for by name: never a silent fallback to less.
        Err(why) if sandboxed => return Err(refuse(format!("the sandbox cannot be set up here: {why}"))),
        Err(_) => return Ok(Decided { isolation: Isolation::NONE, user: None, sandbox: None, lease: None }),
    }
    let Some(separate) = separate else {
        return Ok(Decided { isolation: asked, user: None, sandbox, lease: None });
    };
    let writable = matches!(options.sandbox.program_dir, crate::ProgramDirAccess::Writable { .. });
    if let Some(reason) = crate::bot_user::unreachable_in_sandbox(program, dir, writable) {
        let who = match separate {
            Separate::Root(_) => "as root it runs as a separate unprivileged user",
            Separate::Subordinate(_) => "it runs as a separate user of the caller's subordinate ids",
        };
        return Err(refuse(format!("under --isolation full {who}, and {reason}")));
    }
    let lease = match separate {
        Separate::Root(range) => crate::bot_user::lease(range),
        Separate::Subordinate(range) => crate::bot_user::lease_subordinate(range),
    };
    Ok(Decided { isolation: asked, user: Some(lease.user), sandbox, lease: Some(lease) })
}

/// The separate user of a sandbox, by where its ids come from.
#[derive(Debug, Clone, Copy)]
enum Separate {
    /// A root caller's range.
    Root(crate::IdRange),
    /// An unprivileged caller's subordinate ids.
    Subordinate(crate::subordinate_ids::SubRange),
}

/// The subordinate ids an unprivileged caller's sandboxes use under `choice`, if any: found
/// in `/etc/subuid` and `/etc/subgid` and shown to work by the stub's probe. Where they are
/// not there (or the probe fails) with [`crate::SubordinateIds::Auto`], the sandboxes run as
/// the caller's uid, said once in the log.
///
/// # Errors
/// A [`crate::SubordinateIds::Within`] range that is not the caller's or does not work.
fn subordinate_ids(
    choice: crate::SubordinateIds,
    stub: &Path,
    asked: Isolation,
) -> Result<Option<crate::subordinate_ids::SubRange>, String> {
    // Said once per process: at `info` where the caller has no subordinate ids (the usual
    // case of a machine without them), as a warning where they are there but fail.
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let said_once = |why: &str, failed: bool| {
        if SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let text = format!(
            "sandboxes run as this user's uid outside their user namespace, not as uids of their own: \
             {why} (docs/supervision.md, \"Identity\")"
        );
        if failed {
            tracing::warn!("{text}");
        } else {
            tracing::info!("{text}");
        }
    };
    let range = match crate::subordinate_ids::find(choice)? {
        crate::subordinate_ids::Found::Ranges(range) => range,
        // Asked for by the caller: nothing to say.
        crate::subordinate_ids::Found::Absent(_) if choice == crate::SubordinateIds::Off => return Ok(None),
        crate::subordinate_ids::Found::Absent(why) => {
            said_once(&why, false);
            return Ok(None);
        }
    };
    match crate::isolation_probe::check(stub, asked, Some(range.probe_user())) {
        Ok(()) => Ok(Some(range)),
        Err(why) if matches!(choice, crate::SubordinateIds::Within(_)) => {
            Err(format!("the sandbox cannot run as the subordinate ids asked for: {why}"))
        }
        Err(why) => {
            said_once(&format!("its subordinate ids do not work here: {why}"), true);
            Ok(None)
        }
    }
}

/// The program's path as `exec` will find it: a name without a slash is looked up on `PATH`
/// (relative `PATH` entries from `dir`), a relative path is taken from `dir`.
fn resolve_program(program: &str, dir: &Path) -> Result<PathBuf, SpawnError> {
    if program.is_empty() {
        return Err(SpawnError::NotFound { program: program.to_owned(), searched: Vec::new() });
    }
    let check = |path: PathBuf| -> Result<PathBuf, SpawnError> {
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() && is_executable(&meta) => Ok(path),
            Ok(_) => Err(SpawnError::NotExecutable { path }),
            Err(_) => Err(SpawnError::NotFound { program: program.to_owned(), searched: Vec::new() }),
        }
    };
    if program.contains('/') {
        return check(dir.join(program));
    }
    let search: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).map(|d| dir.join(d)).collect())
        .unwrap_or_default();
    for candidate_dir in &search {
        let candidate = candidate_dir.join(program);
        if std::fs::metadata(&candidate).is_ok_and(|m| m.is_file() && is_executable(&m)) {
            return Ok(candidate);
        }
    }
    Err(SpawnError::NotFound { program: program.to_owned(), searched: search })
}

fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

/// The bot's working directory, canonical: its `dir` (which must be a directory) or ours.
fn working_dir(spec: &BotSpec) -> Result<std::path::PathBuf, SpawnError> {
    match &spec.dir {
        Some(dir) => std::fs::canonicalize(dir)
            .ok()
            .filter(|d| d.is_dir())
            .ok_or_else(|| SpawnError::BadDirectory { dir: dir.clone() }),
        None => std::env::current_dir()
            .map_err(|source| SpawnError::Spawn { program: spec.program.clone(), source }),
    }
}

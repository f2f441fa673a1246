//! The task that supervises one bot: a single `select!` loop that always drains stderr (into a
//! capped buffer), watches for the exit, decides how the stream of stdout lines ends, and on
//! every tick enforces the limits and reaps adopted orphans.
//!
//! Stdout itself does not pass through the pump: the bot's reader thread
//! ([`crate::arrival`]) splits it into lines and hands them straight to `recv_line`, and tells
//! the pump when the stream ends. Back-pressure: when the line channel is full the reader
//! thread holds one line and stops reading stdout (the bot then blocks on its own write); the
//! pump keeps draining stderr and watching the process. Memory is bounded by
//! `LINE_CHANNEL_CAPACITY + 1` lines of at most `max_line` bytes, one read buffer, plus the
//! stderr cap.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, MissedTickBehavior};

use super::ResourceLimits;
use super::arrival::{EventReceiver, LineOutlet, StdoutEvent, StdoutReader, TimedLine};
use super::bot_child::BotChild;
use super::fault::{BotFault, EndedBy, ExitReport};
use super::lines::{CountingReader, LineError};
use super::stderr::StderrBuffer;
use super::tree::{ProcessTree, TreeSample};

/// How long stdout may stay open after the main process exited (a descendant holding it).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(100);
/// How long to wait for the exit after stdout reached end of file, before calling it
/// [`BotFault::StdoutClosed`].
const EXIT_AFTER_EOF: Duration = Duration::from_millis(200);
/// The watchdog period when CPU, memory or process limits are set.
const LIMIT_TICK: Duration = Duration::from_millis(50);
/// The period otherwise (adopted orphans are reaped and the tree is refreshed).
const IDLE_TICK: Duration = Duration::from_millis(250);
/// The stderr read size.
const STDERR_CHUNK: usize = 16 * 1024;

/// State shared by the pump and the [`BotProcess`](super::BotProcess) handle.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) stderr: Mutex<StderrBuffer>,
    /// Why no more lines will come; set before the line channel closes.
    pub(crate) terminal: Mutex<Option<BotFault>>,
    /// The main process's exit and the fault it means, once it has exited.
    pub(crate) exit: watch::Sender<Option<(ExitReport, BotFault)>>,
    /// Whether the referee has signalled the bot.
    pub(crate) ended_by: Mutex<EndedBy>,
    pub(crate) tree: Mutex<ProcessTree>,
    /// Bytes read from stdout and stderr together.
    pub(crate) output_bytes: Arc<AtomicU64>,
    /// The lease on the sandbox's own uid, if it has one: released when the last holder of
    /// this state (the handle, the pump, the cleanup that ends the tree) is gone.
    _id_lease: Option<crate::bot_user::IdLease>,
}

/// Locks a mutex, ignoring poisoning (the data stays consistent: every update is one step).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn new(
        stderr_cap: usize,
        tree: ProcessTree,
        output_bytes: Arc<AtomicU64>,
        id_lease: Option<crate::bot_user::IdLease>,
    ) -> Self {
        Self {
            stderr: Mutex::new(StderrBuffer::new(stderr_cap)),
            terminal: Mutex::new(None),
            exit: watch::Sender::new(None),
            ended_by: Mutex::new(EndedBy::Itself),
            tree: Mutex::new(tree),
            output_bytes,
            _id_lease: id_lease,
        }
    }

    /// Records who is ending the bot, then signals its whole tree.
    pub(crate) fn signal_tree(&self, signal: Signal, by: EndedBy) {
        {
            let mut ended_by = lock(&self.ended_by);
            if *ended_by != EndedBy::Kill {
                *ended_by = by;
            }
        }
        lock(&self.tree).signal(signal);
    }
}

/// What the pump needs to know about the limits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watch {
    pub(crate) limits: ResourceLimits,
    /// Enforce `max_memory_bytes` by sampling (the kernel does not).
    pub(crate) sample_memory: bool,
    /// Enforce `max_processes` by counting.
    pub(crate) count_processes: bool,
    /// Supervisor processes in the tree that do not count against `max_processes`.
    pub(crate) helper_processes: u64,
    /// The longest stdout line.
    pub(crate) max_line: usize,
}

/// The per-bot supervision task.
pub(crate) struct Pump {
    child: BotChild,
    /// How the reader thread's stream of lines is going (dropping it stops the thread).
    stdout: EventReceiver,
    /// The line channel's sending end, closed when the stream's end is decided.
    outlet: Arc<LineOutlet>,
    stderr: CountingReader<ChildStderr>,
    shared: Arc<Shared>,
    watch: Watch,
    exited: bool,
    stdout_open: bool,
    stderr_open: bool,
    /// The terminal fault has been decided: stdout is no longer read.
    decided: bool,
    /// When to decide if stdout is still undecided (after EOF or after the exit).
    stdout_deadline: Option<Instant>,
    /// The limit the bot broke, once it was killed for it.
    limit_fault: Option<BotFault>,
}

impl Pump {
    pub(crate) fn new(
        mut child: BotChild,
        lines: mpsc::Sender<TimedLine>,
        shared: Arc<Shared>,
        watch: Watch,
    ) -> Option<Self> {
        let pipe = child.stdout.take()?.into_owned_fd().ok()?;
        let stderr = child.stderr.take()?;
        let counter = Arc::clone(&shared.output_bytes);
        let outlet = LineOutlet::new(lines);
        let (events, stdout) = StdoutReader::event_channel();
        StdoutReader {
            pipe,
            outlet: Arc::clone(&outlet),
            events,
            output_bytes: Arc::clone(&counter),
            max_output_bytes: watch.limits.max_output_bytes,
            max_line: watch.max_line,
        }
        .start()
        .ok()?;
        Some(Self {
            child,
            stdout,
            outlet,
            stderr: CountingReader::new(stderr, counter),
            shared,
            watch,
            exited: false,
            stdout_open: true,
            stderr_open: true,
            decided: false,
            stdout_deadline: None,
            limit_fault: None,
        })
    }

    /// Runs until the main process has exited, stderr is closed and stdout is decided.
    pub(crate) async fn run(mut self) {
        let mut stderr_buf = vec![0u8; STDERR_CHUNK];
        let limited = self.watch.limits.max_cpu_secs.is_some()
            || self.watch.sample_memory
            || self.watch.count_processes
            || self.watch.limits.max_memory_bytes.is_some();
        let period = if limited { LIMIT_TICK } else { IDLE_TICK };
        // The first tick one period after the start, not at once: a bot just started has no
        // orphans to reap and has used nothing yet (an immediate tick walked the referee's
        // `/proc` children on the games' thread at every bot start).
        let mut ticker = tokio::time::interval_at(Instant::now() + period, period);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        while !self.finished() {
            let deadline = self.stdout_deadline;
            tokio::select! {
                status = self.child.wait(), if !self.exited => self.on_exit(status),
                event = self.stdout.recv(), if self.stdout_open => self.on_stdout(event),
                read = self.stderr.read(&mut stderr_buf), if self.stderr_open => match read {
                    Ok(0) | Err(_) => self.stderr_open = false,
                    Ok(n) => {
                        lock(&self.shared.stderr).push(&stderr_buf[..n]);
                        self.check_output();
                    }
                },
                () = sleep_until(deadline), if deadline.is_some() => self.on_stdout_deadline(),
                _ = ticker.tick() => self.on_tick().await,
            }
        }
    }

    /// The main process has exited, stderr is closed and stdout is decided (or no longer read).
    fn finished(&self) -> bool {
        let stdout_done = self.decided || !self.outlet.delivering();
        self.exited && !self.stderr_open && stdout_done
    }

    fn on_exit(&mut self, status: std::io::Result<std::process::ExitStatus>) {
        self.exited = true;
        let mut report = match status {
            Ok(status) => ExitReport::from_status(status),
            Err(e) => {
                tracing::warn!("waiting for a bot failed: {e}");
                ExitReport::default()
            }
        };
        report.ended_by = *lock(&self.shared.ended_by);
        {
            let mut tree = lock(&self.shared.tree);
            tree.mark_leader_exited();
            report.cpu_time = tree.cpu_time();
        }
        let verdict = self.exit_verdict(&report);
        self.shared.exit.send_replace(Some((report, verdict.clone())));
        if self.decided {
            let mut terminal = lock(&self.shared.terminal);
            if *terminal == Some(BotFault::StdoutClosed) {
                *terminal = Some(verdict);
            }
        } else if self.stdout_open {
            self.stdout_deadline = Some(Instant::now() + DRAIN_AFTER_EXIT);
        } else {
            self.decide(verdict);
        }
    }

    /// The fault that an exit means: a broken limit, or [`BotFault::Exited`].
    fn exit_verdict(&self, report: &ExitReport) -> BotFault {
        if let Some(fault) = &self.limit_fault {
            return fault.clone();
        }
        let oom = lock(&self.shared.tree).cgroup().is_some_and(|c| c.memory_limited() && c.oom_killed());
        if oom {
            return BotFault::MemoryLimit;
        }
        let cpu_limit = self.watch.limits.max_cpu_secs.map(Duration::from_secs);
        match report.signal {
            Some(s) if s == Signal::SIGXCPU as i32 && cpu_limit.is_some() => BotFault::CpuLimit,
            Some(s)
                if s == Signal::SIGKILL as i32
                    && cpu_limit.is_some_and(|limit| report.cpu_time.is_some_and(|used| used >= limit)) =>
            {
                BotFault::CpuLimit
            }
            _ => BotFault::Exited(report.clone()),
        }
    }

    fn on_stdout(&mut self, event: Option<StdoutEvent>) {
        let Some(event) = event else {
            // The reader thread is gone without a word (it cannot be: it reports every end).
            self.stdout_open = false;
            self.decide(BotFault::Io("the bot's stdout reader stopped".to_owned()));
            return;
        };
        let end = match event {
            StdoutEvent::OverOutputLimit => return self.check_output(),
            StdoutEvent::End(end) => end,
        };
        self.stdout_open = false;
        match end {
            Some(LineError::TooLong) => {
                self.check_output();
                self.decide(BotFault::LineTooLong { limit: self.watch.max_line });
            }
            Some(LineError::InvalidUtf8) => self.decide(BotFault::InvalidUtf8),
            Some(LineError::Io(e)) => self.decide(BotFault::Io(format!("reading the bot's stdout: {e}"))),
            None => {
                let exit = self.shared.exit.borrow().clone();
                if let Some((_, verdict)) = exit {
                    self.decide(verdict);
                } else {
                    self.stdout_deadline = Some(Instant::now() + EXIT_AFTER_EOF);
                }
            }
        }
    }

    fn on_stdout_deadline(&mut self) {
        self.stdout_deadline = None;
        let exit = self.shared.exit.borrow().clone();
        let verdict = match exit {
            Some((_, verdict)) => verdict,
            None => BotFault::StdoutClosed,
        };
        self.decide(verdict);
    }

    /// Ends the stream of lines with `fault` (the first decision wins). The channel closes
    /// once the line the reader thread may hold, if any, has been delivered.
    fn decide(&mut self, fault: BotFault) {
        if self.decided {
            return;
        }
        self.decided = true;
        self.stdout_deadline = None;
        *lock(&self.shared.terminal) = Some(fault);
        self.outlet.close();
    }

    /// Kills the whole tree for breaking a limit and ends the stream of lines with `fault`.
    fn enforce(&mut self, fault: BotFault) {
        if self.limit_fault.is_some() || self.exited {
            return;
        }
        tracing::debug!("bot broke a limit: {fault}");
        self.limit_fault = Some(fault.clone());
        self.shared.signal_tree(Signal::SIGKILL, EndedBy::Kill);
        self.decide(fault);
    }

    fn check_output(&mut self) {
        if let Some(limit) = self.watch.limits.max_output_bytes
            && self.shared.output_bytes.load(Ordering::Relaxed) > limit
        {
            self.enforce(BotFault::OutputLimit { limit });
        }
    }

    /// Reaps adopted orphans; with limits, measures the tree and enforces them. The
    /// measurement (a walk of the tree's `/proc` entries, as long as the bot has processes)
    /// runs on the blocking pool, never on the thread that times the games' replies.
    async fn on_tick(&mut self) {
        lock(&self.shared.tree).reap_orphans();
        if self.exited {
            return;
        }
        if self.limit_fault.is_some() {
            // Processes forked while the kill was under way.
            lock(&self.shared.tree).signal(Signal::SIGKILL);
            return;
        }
        let limits = self.watch.limits;
        let watch = self.watch;
        if !(limits.max_cpu_secs.is_some()
            || watch.count_processes
            || (watch.sample_memory && limits.max_memory_bytes.is_some())
            || limits.max_memory_bytes.is_some())
        {
            return;
        }
        let shared = Arc::clone(&self.shared);
        let measure = move || {
            let mut tree = lock(&shared.tree);
            let cpu = if limits.max_cpu_secs.is_some() { tree.cpu_time() } else { None };
            let sample =
                if watch.count_processes || (watch.sample_memory && limits.max_memory_bytes.is_some()) {
                    tree.sample(watch.sample_memory && limits.max_memory_bytes.is_some())
                } else {
                    TreeSample::default()
                };
            let oom = tree.cgroup().is_some_and(|c| c.memory_limited() && c.oom_killed());
            (cpu, sample, oom)
        };
        let Ok((cpu, sample, oom)) = tokio::task::spawn_blocking(measure).await else { return };
        if let (Some(limit), Some(used)) = (limits.max_cpu_secs, cpu)
            && used >= Duration::from_secs(limit)
        {
            self.enforce(BotFault::CpuLimit);
            return;
        }
        if oom {
            self.enforce(BotFault::MemoryLimit);
            return;
        }
        if let (true, Some(limit)) = (self.watch.sample_memory, limits.max_memory_bytes)
            && sample.memory_bytes > limit
        {
            self.enforce(BotFault::MemoryLimit);
            return;
        }
        if let (true, Some(limit)) = (self.watch.count_processes, limits.max_processes)
            && sample.processes.saturating_sub(self.watch.helper_processes) > limit
        {
            self.enforce(BotFault::ProcessLimit);
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

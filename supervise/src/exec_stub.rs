//! `EXE __exec-bot [OPTIONS] -- PROGRAM [ARGS...]`: the hidden re-exec stub.
//!
//! Any executable that starts bots hosts the stub by calling [`run_if_requested`] first thing
//! in `main` (`bao-referee` and `bao-bench` do); the supervisor then re-executes
//! [`std::env::current_exe`], whatever the file is called.
//!
//! The referee is multithreaded (tokio), so it cannot safely run code between `fork` and
//! `exec` in the child. Instead it starts this stub: a fresh, single-threaded process (no
//! runtime) that sets up the bot's environment with ordinary system calls and then replaces
//! itself with the bot (`exec`), keeping its pid, process group, pipes and working
//! directory. In order it:
//! 1. sets `RLIMIT_CORE` to 0 (a crashing bot leaves no core file);
//! 2. joins the bot's cgroup (`--cgroup DIR`), so every later fork is inside it;
//! 3. asks for SIGKILL when the referee dies (`PR_SET_PDEATHSIG`), and exits if the referee
//!    (`--parent-pid`) is already gone;
//! 4. creates the namespaces asked for (`--no-network`, `--pid-namespace`; plus a user
//!    namespace when not root); on failure it warns on stderr and goes on without them;
//! 5. with a PID namespace, blocks SIGTERM (so that it reaches only the bot), starts itself
//!    once more as the namespace's init (which does steps 6–7, so the bot is pid 1), waits
//!    for it and exits the same way;
//! 6. sets `RLIMIT_DATA` (`--rlimit-data`), `RLIMIT_CPU` (`--rlimit-cpu`, soft; hard one
//!    second later) and, when not root, `RLIMIT_NPROC` (the user's current tasks plus
//!    `--nproc-allowance`);
//! 7. `exec`s the program (std's `CommandExt::exec`: `execvp` with SIGPIPE back to its
//!    default); if that fails it prints why and exits with 127 (not found) or 126 (other
//!    errors), like a shell.
//!
//! It also starts by unblocking every signal, so the bot inherits an empty signal mask.

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;

use nix::sched::CloneFlags;
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::Signal;
use nix::unistd::{Pid, getppid};

/// The arguments of the hidden `__exec-bot` subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct ExecBotArgs {
    /// `RLIMIT_DATA` in bytes (memory backstop when no cgroup limits memory).
    #[arg(long, value_name = "BYTES")]
    pub rlimit_data: Option<u64>,
    /// `RLIMIT_CPU` in seconds (soft limit: SIGXCPU; SIGKILL one second later).
    #[arg(long, value_name = "SECONDS")]
    pub rlimit_cpu: Option<u64>,
    /// Tasks (processes and threads) allowed beyond the user's current ones (`RLIMIT_NPROC`,
    /// applied only when not root, since root is exempt from it).
    #[arg(long, value_name = "TASKS")]
    pub nproc_allowance: Option<u64>,
    /// The referee's pid: exit at once if the parent is no longer this process.
    #[arg(long, value_name = "PID")]
    pub parent_pid: Option<i32>,
    /// A cgroup v2 directory to move into before anything else.
    #[arg(long, value_name = "DIR")]
    pub cgroup: Option<PathBuf>,
    /// Run the bot in a new network namespace (no network).
    #[arg(long)]
    pub no_network: bool,
    /// Run the bot as init of a new PID namespace.
    #[arg(long)]
    pub pid_namespace: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<OsString>,
}

const NAME: &str = "__exec-bot";

/// Set by [`run_if_requested`]: this executable's `main` hosts the stub.
static HOSTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this executable hosts the stub (its `main` called [`run_if_requested`]).
pub(crate) fn hosted_here() -> bool {
    HOSTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The command line of the stub alone.
#[derive(Debug, clap::Parser)]
#[command(name = "__exec-bot", no_binary_name = true)]
struct StubCli {
    #[command(flatten)]
    args: ExecBotArgs,
}

/// Call first thing in `main`: when this process was started as the re-exec stub
/// (`EXE __exec-bot ...`), runs the stub and never returns; otherwise records that this
/// executable hosts the stub and returns.
pub fn run_if_requested() {
    let mut argv = std::env::args_os().skip(1);
    if argv.next().as_deref() != Some(std::ffi::OsStr::new(crate::EXEC_STUB_SUBCOMMAND)) {
        HOSTED.store(true, std::sync::atomic::Ordering::Relaxed);
        return;
    }
    let code = match <StubCli as clap::Parser>::try_parse_from(argv) {
        Ok(cli) => run(cli.args),
        Err(e) => {
            eprintln!("{NAME}: {e}");
            126
        }
    };
    std::process::exit(i32::from(code));
}

/// Runs the stub; returns only on failure (or, with a PID namespace, with the bot's exit code).
#[must_use]
pub fn run(args: ExecBotArgs) -> u8 {
    // The bot starts with no blocked signals, whatever the referee had blocked.
    let _ = nix::sys::signal::SigSet::all().thread_unblock();
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    if let Some(cgroup) = &args.cgroup {
        let procs = cgroup.join("cgroup.procs");
        if let Err(e) = std::fs::write(&procs, std::process::id().to_string()) {
            eprintln!("{NAME}: warning: cannot join cgroup {}: {e}", cgroup.display());
        }
    }
    if let Err(e) = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL) {
        eprintln!("{NAME}: warning: cannot set the parent-death signal: {e}");
    }
    if let Some(parent) = args.parent_pid
        && getppid() != Pid::from_raw(parent)
    {
        return 125; // The referee died before we could ask to follow it.
    }
    let in_pid_namespace = (args.pid_namespace || args.no_network) && enter_namespaces(&args);
    if in_pid_namespace {
        return run_as_namespace_init(&args);
    }
    set_rlimits(&args);
    exec(&args.command)
}

/// Unshares the namespaces asked for; returns whether a PID namespace was created.
fn enter_namespaces(args: &ExecBotArgs) -> bool {
    let mut flags = CloneFlags::empty();
    if args.no_network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    if args.pid_namespace {
        flags |= CloneFlags::CLONE_NEWPID;
    }
    if !nix::unistd::geteuid().is_root() {
        flags |= CloneFlags::CLONE_NEWUSER;
    }
    match nix::sched::unshare(flags) {
        Ok(()) => args.pid_namespace,
        Err(e) => {
            eprintln!("{NAME}: warning: cannot create namespaces ({e}); running the bot without isolation");
            false
        }
    }
}

/// Starts the stub again (its first child becomes init of the new PID namespace), waits
/// for it, and reports its exit the same way: same code, or death by the same signal.
fn run_as_namespace_init(args: &ExecBotArgs) -> u8 {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("{NAME}: cannot find my own executable: {e}");
            return 126;
        }
    };
    // SIGTERM to the bot's process group must reach the bot (pid 1 of the namespace, which
    // decides with its own handler), not end this process, whose death SIGKILLs the bot
    // through the parent-death signal. Blocked here; the child starts with an empty mask.
    let mut term = nix::sys::signal::SigSet::empty();
    term.add(Signal::SIGTERM);
    if let Err(e) = term.thread_block() {
        eprintln!("{NAME}: warning: cannot block SIGTERM: {e}");
    }
    let mut command = std::process::Command::new(exe);
    command.arg(crate::EXEC_STUB_SUBCOMMAND);
    if let Some(bytes) = args.rlimit_data {
        command.arg("--rlimit-data").arg(bytes.to_string());
    }
    if let Some(seconds) = args.rlimit_cpu {
        command.arg("--rlimit-cpu").arg(seconds.to_string());
    }
    if let Some(tasks) = args.nproc_allowance {
        command.arg("--nproc-allowance").arg(tasks.to_string());
    }
    command.arg("--").args(&args.command);
    let status = match command.status() {
        Ok(status) => status,
        Err(e) => {
            eprintln!("{NAME}: cannot start the namespace's init: {e}");
            return 126;
        }
    };
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    let signal = status.signal().unwrap_or(0);
    if let Ok(signal) = Signal::try_from(signal) {
        let _ = nix::sys::signal::raise(signal);
    }
    u8::try_from((128 + signal) & 0xff).unwrap_or(1)
}

fn set_rlimits(args: &ExecBotArgs) {
    if let Some(bytes) = args.rlimit_data
        && let Err(e) = setrlimit(Resource::RLIMIT_DATA, bytes, bytes)
    {
        eprintln!("{NAME}: warning: cannot set RLIMIT_DATA: {e}");
    }
    if let Some(seconds) = args.rlimit_cpu
        && let Err(e) = setrlimit(Resource::RLIMIT_CPU, seconds, seconds.saturating_add(1))
    {
        eprintln!("{NAME}: warning: cannot set RLIMIT_CPU: {e}");
    }
    if let Some(allowance) = args.nproc_allowance {
        let uid = nix::unistd::getuid();
        if !uid.is_root() {
            let tasks = user_tasks(uid.as_raw()).saturating_add(allowance);
            if let Err(e) = setrlimit(Resource::RLIMIT_NPROC, tasks, tasks) {
                eprintln!("{NAME}: warning: cannot set RLIMIT_NPROC: {e}");
            }
        }
    }
}

/// The tasks (threads) that `uid` runs now: what `RLIMIT_NPROC` counts.
fn user_tasks(uid: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        .map(|e| std::fs::read_dir(e.path().join("task")).map_or(1, |tasks| tasks.count() as u64))
        .sum()
}

/// Replaces this process with the program (`execvp` through std, which also restores the
/// default SIGPIPE disposition that Rust programs start with ignored); returns only on failure.
fn exec(command: &[OsString]) -> u8 {
    let Some((program, args)) = command.split_first() else {
        eprintln!("{NAME}: no program given");
        return 126;
    };
    let error = std::process::Command::new(program).args(args).exec();
    eprintln!("{NAME}: cannot execute {}: {error}", program.to_string_lossy());
    if error.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 }
}

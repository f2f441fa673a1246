//! `EXE __exec-bot [OPTIONS] -- PROGRAM [ARGS...]`: the hidden re-exec stub.
//!
//! Any executable that starts bots hosts the stub by calling [`run_if_requested`] first thing
//! in `main` (`bao-referee`, `bao-bench` and the server's e2e test binary do); the supervisor then starts the
//! dedicated stub executable `bao-exec-stub` ([`run_standalone`]) found next to it, or else
//! re-executes [`std::env::current_exe`], whatever the file is called (`crate::StubChoice`).
//!
//! Usually the stub is not `exec`'d per bot: the same executable runs once per referee
//! process as the spawn server (`__spawn-server`, `spawn_server.rs`), whose forked child
//! makes itself what `Command` makes of an `exec`'d stub and then runs [`run`], the very
//! steps below; the `exec` is the fallback.
//!
//! The referee is multithreaded (tokio), so it cannot safely run code between `fork` and
//! `exec` in the child. Instead it starts this stub: a fresh, single-threaded process (no
//! runtime) that sets up the bot's environment with ordinary system calls and then replaces
//! itself with the bot (`exec`), keeping its pid, process group, pipes and working
//! directory. In order it:
//! 1. sets `RLIMIT_CORE` to 0 (a crashing bot leaves no core file);
//! 2. joins the bot's cgroups (`--cgroup DIR`), so every later fork is inside them — except,
//!    with a PID namespace, the cgroup v2, which the namespace's init is born in instead
//!    (`clone3(CLONE_INTO_CGROUP)`, see `clone_into_cgroup`: no migration, which can wait
//!    milliseconds for an RCU grace period);
//! 3. asks for SIGKILL when the referee dies (`PR_SET_PDEATHSIG`), and exits if the referee
//!    (`--parent-pid`) is already gone;
//! 4. with `--isolation pid|full`, creates the namespaces (`sandbox.rs`: user, PID, IPC,
//!    and network with `--no-network`); if the kernel refuses, it says why on stderr and
//!    exits with 125 (the referee checked beforehand, see `isolation_probe`);
//! 5. then blocks SIGTERM (so that it reaches only the bot), forks the namespace's init (no
//!    second `exec` of the stub: the child goes on running this code, see
//!    `clone_into_cgroup`), and exits the way the bot ended as soon as the init reports it
//!    (not waiting for the init's own exit, which tears down mount namespaces). The init asks
//!    for SIGKILL when this stub dies, makes the mount namespace, mounts its own `/proc`,
//!    hides the cgroup file system, locks the mounts or switches to the separate uid
//!    (`--uid`, `--gid`: a root caller's, or, not as root, one of the caller's subordinate
//!    ids, which the stub maps into its user namespace with `newuidmap` and `newgidmap`,
//!    see `id_mapper`), and goes on with steps 6–7, starting the bot as its child;
//! 6. sets `RLIMIT_DATA` (`--rlimit-data`), `RLIMIT_CPU` (`--rlimit-cpu`, soft; hard one
//!    second later) and, when not root, `RLIMIT_NPROC` (the user's current tasks plus
//!    `--nproc-allowance`, counted before `/proc` is replaced);
//! 7. `exec`s the program (std's `CommandExt::exec`: `execvp` with SIGPIPE back to its
//!    default); if that fails it prints why and exits with 127 (not found) or 126 (other
//!    errors), like a shell.
//!
//! With `--probe` it does everything but step 7 and exits with 0: the referee's check that
//! the kernel allows the isolation asked for.
//!
//! It also starts by unblocking every signal, so the bot inherits an empty signal mask.

use std::ffi::OsString;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;

use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::Signal;
use nix::sys::wait::WaitStatus;
use nix::unistd::{Pid, getppid};

use crate::clone_into_cgroup::{Forked, fork_into};
use crate::options::IsolationLevel;
use crate::sandbox::{self, BotUser, MappedIds};

pub use crate::stub_args::{ExecBotArgs, STUB_PROTOCOL};

const NAME: &str = "__exec-bot";
/// The exit code when the stub could not set up the bot's isolation.
const ISOLATION_FAILED: u8 = 125;

/// Set by [`run_if_requested`]: this executable's `main` hosts the stub.
static HOSTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this executable hosts the stub (its `main` called [`run_if_requested`]).
pub(crate) fn hosted_here() -> bool {
    HOSTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Call first thing in `main`: when this process was started as the re-exec stub
/// (`EXE __exec-bot ...`) or as the spawn server (`EXE __spawn-server ...`, see
/// `spawn_server.rs`), runs it and never returns; otherwise records that this executable
/// hosts the stub and returns.
pub fn run_if_requested() {
    let mut argv = std::env::args_os().skip(1);
    let code = match argv.next() {
        Some(first) if first == crate::EXEC_STUB_SUBCOMMAND => parse_and_run(argv),
        Some(first) if first == crate::spawn_server::SPAWN_SERVER_SUBCOMMAND => {
            crate::spawn_server::serve(argv)
        }
        _ => {
            HOSTED.store(true, std::sync::atomic::Ordering::Relaxed);
            return;
        }
    };
    std::process::exit(i32::from(code));
}

/// The whole `main` of the dedicated stub executable (`bao-exec-stub`): runs the stub with
/// this process's arguments (`__exec-bot` first, as for any executable hosting the stub, or
/// left out), or the spawn server (`__spawn-server` first), and exits.
pub fn run_standalone() -> ! {
    let mut argv = std::env::args_os().skip(1).peekable();
    let first = argv.peek().cloned();
    let code = match first {
        Some(first) if first == crate::spawn_server::SPAWN_SERVER_SUBCOMMAND => {
            argv.next();
            crate::spawn_server::serve(argv)
        }
        Some(first) if first == crate::EXEC_STUB_SUBCOMMAND => {
            argv.next();
            parse_and_run(argv)
        }
        _ => parse_and_run(argv),
    };
    std::process::exit(i32::from(code));
}

fn parse_and_run(argv: impl Iterator<Item = OsString>) -> u8 {
    match crate::stub_args::parse(argv) {
        Ok(args) if args.stub_protocol => {
            println!("{STUB_PROTOCOL}");
            0
        }
        Ok(args) => run(args),
        Err(e) => {
            eprintln!("{NAME}: {e}");
            126
        }
    }
}

/// Runs the stub; returns only on failure (or, with a PID namespace, with the bot's exit code).
#[must_use]
pub fn run(args: ExecBotArgs) -> u8 {
    crate::stage_times::mark("stub");
    // The bot starts with no blocked signals, whatever the referee had blocked.
    let _ = nix::sys::signal::SigSet::all().thread_unblock();
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    // With a PID namespace the namespace's init is born in the cgroup v2 (see
    // `clone_into_cgroup`): this process does not move into it. Every other cgroup is joined
    // here, before anything else.
    let born_into =
        if args.isolation == IsolationLevel::None { None } else { cgroup2_to_be_born_in(&args.cgroup) };
    for cgroup in &args.cgroup {
        if born_into.as_ref().is_none_or(|(dir, _)| dir != cgroup) {
            join_cgroup(cgroup);
        }
    }
    if !follow_the_referee(args.parent_pid) {
        return ISOLATION_FAILED;
    }
    if args.isolation == IsolationLevel::None {
        if args.no_network
            && let Err(e) = sandbox::enter_network_namespace()
        {
            eprintln!("{NAME}: cannot isolate the bot: {e}");
            return ISOLATION_FAILED;
        }
        if args.probe {
            return 0;
        }
        let uid = nix::unistd::getuid();
        let nproc = args
            .nproc_allowance
            .filter(|_| !uid.is_root())
            .map(|allowance| user_tasks(uid.as_raw()).saturating_add(allowance));
        set_rlimits(&args, nproc);
        return exec(&args.command);
    }
    // Counted here, while /proc still shows every process of the user (root is exempt from
    // RLIMIT_NPROC; a bot's separate user is not).
    let uid = args.uid.unwrap_or_else(|| nix::unistd::getuid().as_raw());
    // In a sandbox the program runs under a uid of its own or in a user namespace of its
    // own, where the kernel counts its tasks from zero: the allowance is the exact limit.
    let nproc_limit = if args.isolation == IsolationLevel::Full {
        args.nproc_allowance
    } else {
        args.nproc_allowance.filter(|_| uid != 0).map(|allowance| user_tasks(uid).saturating_add(allowance))
    };
    // A sandbox with subordinate ids joins the user namespace the spawn server made for them
    // when it made one (`shared_user_namespace`), before its own namespaces: it is root
    // there, so it makes no user namespace of its own. Every sandbox makes its own network
    // namespace.
    let full = args.isolation == IsolationLevel::Full;
    if let Err(e) = crate::shared_user_namespace::join(full && bot_user(&args).is_some()) {
        eprintln!("{NAME}: cannot isolate the bot: {e}");
        return ISOLATION_FAILED;
    }
    let own_network = args.no_network || full;
    crate::stage_times::mark("cgroups");
    let mapped = match sandbox::enter(own_network, bot_user(&args)) {
        Ok(mapped) => mapped,
        Err(e) => {
            eprintln!("{NAME}: cannot isolate the bot: {e}");
            return ISOLATION_FAILED;
        }
    };
    crate::stage_times::mark("namespaces");
    // The credentials changed: ask again to follow the referee.
    if !follow_the_referee(args.parent_pid) {
        return ISOLATION_FAILED;
    }
    run_as_namespace_init(&args, nproc_limit, born_into, mapped)
}

/// Moves this process into `cgroup` (a warning on stderr if it cannot).
fn join_cgroup(cgroup: &std::path::Path) {
    let procs = cgroup.join("cgroup.procs");
    if let Err(e) = std::fs::write(&procs, std::process::id().to_string()) {
        eprintln!("{NAME}: warning: cannot join cgroup {}: {e}", cgroup.display());
    }
}

/// The first of `cgroups` on a cgroup v2 file system, opened as a directory (for
/// `CLONE_INTO_CGROUP`).
fn cgroup2_to_be_born_in(
    cgroups: &[std::path::PathBuf],
) -> Option<(std::path::PathBuf, std::os::fd::OwnedFd)> {
    use nix::sys::statfs::{CGROUP2_SUPER_MAGIC, statfs};
    let dir = cgroups
        .iter()
        .find(|dir| statfs(dir.as_path()).is_ok_and(|fs| fs.filesystem_type() == CGROUP2_SUPER_MAGIC))?;
    let flags = nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_DIRECTORY | nix::fcntl::OFlag::O_CLOEXEC;
    let fd = nix::fcntl::open(dir.as_path(), flags, nix::sys::stat::Mode::empty()).ok()?;
    Some((dir.clone(), fd))
}

/// Forks the namespace's init: born in `born_into` (`clone3`), or, where that is refused,
/// after this process joined the cgroup (the C library's `fork`).
fn fork_init(
    born_into: Option<(std::path::PathBuf, std::os::fd::OwnedFd)>,
) -> Result<Forked, nix::errno::Errno> {
    use std::os::fd::AsFd;
    if let Some((dir, cgroup)) = born_into {
        match fork_into(Some(cgroup.as_fd())) {
            Ok(forked) => return Ok(forked),
            // Before Linux 5.7, a cgroup that refuses it, or a C library whose thread-id cache
            // cannot be found: the old way.
            Err(_) => join_cgroup(&dir),
        }
    }
    fork_into(None)
}

/// Asks for SIGKILL when the parent dies; false if the parent (`expected`) is already gone.
fn follow_the_referee(expected: Option<i32>) -> bool {
    if let Err(e) = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL) {
        eprintln!("{NAME}: warning: cannot set the parent-death signal: {e}");
    }
    expected.is_none_or(|parent| getppid() == Pid::from_raw(parent))
}

fn bot_user(args: &ExecBotArgs) -> Option<BotUser> {
    Some(BotUser { uid: args.uid?, gid: args.gid? })
}

/// The init of the bot's PID namespace (pid 1 there), a child forked by the outer stub
/// (`outer`, its host pid): follows the outer stub, sets up the mounts and the user, starts
/// the bot as its child (so the bot keeps ordinary signal semantics, which pid 1 does not
/// have), reaps every orphan of the namespace, and when the bot ends reports how on `status`
/// (see [`run_as_namespace_init`]) and exits, which makes the kernel kill whatever is left in
/// the namespace. Never returns: a panic ends it with 126.
fn init_main(
    args: &ExecBotArgs,
    nproc_limit: Option<u64>,
    outer: u32,
    status: std::fs::File,
    mapped: Option<MappedIds>,
) -> ! {
    let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_init(args, nproc_limit, outer, StatusPipe(status), mapped)
    }))
    .unwrap_or(126);
    exit_forked(code)
}

/// Ends a forked child of the spawn server or of the outer stub (an outer stub, a namespace's
/// init) with `code`, at once: `_exit`, not [`std::process::exit`], which would first run
/// std's clean-up (flushing its stdout buffer, taking down the signal alternate stack) and the
/// C library's `exit` (the `atexit` handlers, every shared object's destructors in `_dl_fini`,
/// flushing C stdio). In a fork each of those writes to pages still shared with the parent,
/// copying them (page faults, 10–15 a process here) only to discard them a moment later;
/// and none has anything to do: these processes write only unbuffered (stderr through
/// `eprintln!`, the status pipe and the bot's descriptors with direct writes), never through
/// std's stdout or C stdio, and register no exit handler.
pub(crate) fn exit_forked(code: u8) -> ! {
    crate::clone_into_cgroup::exit_at_once(code)
}

fn run_init(
    args: &ExecBotArgs,
    nproc_limit: Option<u64>,
    outer: u32,
    mut status: StatusPipe,
    mapped: Option<MappedIds>,
) -> u8 {
    // A fork keeps the outer stub's mask, with SIGTERM blocked; std's `Command` does not reset
    // the mask of the program it starts, so the bot would start with SIGTERM blocked. As pid 1
    // of its namespace this process ignores SIGTERM anyway (it has no handler), blocked or not.
    let _ = nix::sys::signal::SigSet::all().thread_unblock();
    crate::stage_times::mark("init");
    // Opened while /proc is still the host's: reading the outer stub's stat fails once it
    // has died.
    let outer_stat = short_text(format_args!("/proc/{outer}/stat"))
        .and_then(|path| std::fs::File::open(path.as_str()).ok());
    if args.isolation == IsolationLevel::Full {
        return run_sandbox_init(args, nproc_limit, outer, outer_stat, status, mapped);
    }
    // Kept open until this process exits (see `sandbox::lock_mounts`).
    let _first_mount_namespace = match sandbox::prepare_init(bot_user(args), Some(outer), mapped) {
        Ok(held) => held,
        Err(e) => {
            eprintln!("{NAME}: cannot isolate the bot: {e}");
            return ISOLATION_FAILED;
        }
    };
    // After every change of credentials, which clears the parent-death signal.
    crate::stage_times::mark("mounts");
    let _ = follow_the_referee(None);
    if !outer_alive(outer_stat) {
        return ISOLATION_FAILED; // The outer stub died before we could follow it.
    }
    if args.probe {
        return 0;
    }
    set_rlimits(args, nproc_limit);
    // The bot is root of its user namespace, with this process's user id outside it: without
    // this it could trace this process or open its descriptors under /proc/1/fd (the status
    // pipe, on which it could write a false end). Not inherited: the bot's `exec` makes it
    // dumpable again.
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        eprintln!("{NAME}: warning: cannot make the namespace's init undumpable: {e}");
    }
    let Some((program, program_args)) = args.command.split_first() else {
        eprintln!("{NAME}: no program given");
        return 126;
    };
    crate::stage_times::mark("exec");
    // The bot's stdin, stdout and stderr are this process's, inherited from the outer stub.
    let bot = match std::process::Command::new(program).args(program_args).spawn() {
        Ok(bot) => bot,
        Err(error) => {
            eprintln!("{NAME}: cannot execute {}: {error}", program.to_string_lossy());
            let code = if error.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
            status.send(format_args!("exit {code}"));
            return code;
        }
    };
    // Only the bot may hold its pipes: a bot that closes its stdout must be seen to close it.
    release_stdio();
    let bot_pid = Pid::from_raw(i32::try_from(bot.id()).unwrap_or(i32::MAX));
    loop {
        match nix::sys::wait::waitpid(None::<Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == bot_pid => {
                status.send(format_args!("exit {code}"));
                return u8::try_from(code & 0xff).unwrap_or(1);
            }
            Ok(WaitStatus::Signaled(pid, signal, core)) if pid == bot_pid => {
                status.send(format_args!("signal {} {}", signal as i32, u8::from(core)));
                return u8::try_from((128 + signal as i32) & 0xff).unwrap_or(1);
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return 126,
        }
    }
}

/// Whether the outer stub (whose `/proc/PID/stat` is `outer_stat`, opened while it lived) is
/// still alive: one read of the start is enough, it fails once the process is gone.
fn outer_alive(outer_stat: Option<std::fs::File>) -> bool {
    let Some(mut outer_stat) = outer_stat else { return true };
    let mut start = [0u8; 64];
    loop {
        match std::io::Read::read(&mut outer_stat, &mut start) {
            Ok(_) => return true,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// The init of a sandbox (`--isolation full`): builds the new root (`sandbox_root`), forks
/// the program's process ([`sandbox_program`]: its own ids, rlimits, Landlock, seccomp, then
/// the program), reaps every orphan, and when the program ends ends every process of the
/// sandbox, copies a writable program folder back to the host, and reports the end on
/// `status`. The init keeps its ids and is never filtered: the program cannot trace it
/// (seccomp, and it is undumpable), nor signal it (Landlock's scope, and the PID namespace's
/// init ignores signals it has no handler for).
fn run_sandbox_init(
    args: &ExecBotArgs,
    nproc_limit: Option<u64>,
    outer: u32,
    outer_stat: Option<std::fs::File>,
    mut status: StatusPipe,
    mapped: Option<MappedIds>,
) -> u8 {
    let program_dir = match std::env::current_dir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("{NAME}: cannot isolate the bot: no working directory: {e}");
            return ISOLATION_FAILED;
        }
    };
    let user = bot_user(args);
    let plan = crate::sandbox_root::RootPlan {
        program_dir: &program_dir,
        writable_mib: args.writable_mib,
        read_only: &args.read_only,
        tmp_mib: args.tmp_mib.unwrap_or(crate::SandboxProfile::DEFAULT_TMP_MIB),
        owner: user.filter(|_| nix::unistd::geteuid().is_root()),
    };
    let built = match sandbox::prepare_sandbox(&plan, outer) {
        Ok(built) => built,
        Err(e) => {
            eprintln!("{NAME}: cannot isolate the bot: {e}");
            return ISOLATION_FAILED;
        }
    };
    let _ = follow_the_referee(None);
    if !outer_alive(outer_stat) {
        return ISOLATION_FAILED;
    }
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        eprintln!("{NAME}: warning: cannot make the namespace's init undumpable: {e}");
    }
    let paths = crate::sandbox_root::visible_paths(&plan);
    crate::stage_times::mark("root");
    let program = match fork_into(None) {
        Ok(Forked::Child) => exit_forked(sandbox_program(args, nproc_limit, user, mapped, &paths)),
        Ok(Forked::Parent(pid)) => {
            crate::stage_times::mark("forked");
            pid
        }
        Err(e) => {
            eprintln!("{NAME}: cannot start the program's process: {e}");
            status.send(format_args!("exit 126"));
            return 126;
        }
    };
    // Where a copy back can fail, its error goes to the program's stderr.
    let report_to = built.host_program_dir.as_ref().and_then(|_| nix::unistd::dup(std::io::stderr()).ok());
    // Only the program may hold its pipes: a program that closes its stdout must be seen to.
    release_stdio();
    let end = loop {
        match nix::sys::wait::waitpid(None::<Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == program => break BotEnd::Exit(code),
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == program => {
                break BotEnd::Signal(signal as i32);
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return 126,
        }
    };
    if let Some(host) = &built.host_program_dir {
        // Nothing of the sandbox may write while its folder is copied back.
        let _ = nix::sys::signal::kill(Pid::from_raw(-1), Signal::SIGKILL);
        while matches!(nix::sys::wait::waitpid(None::<Pid>, None), Ok(_) | Err(nix::errno::Errno::EINTR)) {}
        let budget = args.writable_mib.unwrap_or(0) << 20;
        match crate::tree_copy::copy_back(host, &program_dir, budget) {
            Ok(left_out) => {
                if let Some(stderr) = report_to {
                    let mut stderr = std::fs::File::from(stderr);
                    for link in left_out {
                        let message = format!(
                            "{NAME}: left out the symbolic link {}: it leads out of the program's folder\n",
                            link.display()
                        );
                        let _ = std::io::Write::write_all(&mut stderr, message.as_bytes());
                    }
                }
            }
            Err(e) => {
                if let Some(stderr) = report_to {
                    let message = format!("{NAME}: cannot copy the program's folder back: {e}\n");
                    let _ = std::io::Write::write_all(&mut std::fs::File::from(stderr), message.as_bytes());
                }
                status.send(format_args!("exit 126"));
                return 126;
            }
        }
    }
    match end {
        BotEnd::Exit(code) => {
            status.send(format_args!("exit {code}"));
            u8::try_from(code & 0xff).unwrap_or(1)
        }
        BotEnd::Signal(signal) => {
            status.send(format_args!("signal {signal} 0"));
            u8::try_from((128 + signal) & 0xff).unwrap_or(1)
        }
    }
}

/// The program's process in a sandbox, forked by its init inside the new root: drops to its
/// own ids (the sandbox's uid for a root caller, or a locking user namespace), follows the
/// init, sets the rlimits, restricts itself with Landlock (`paths`: read-only and writable)
/// and seccomp (`no_new_privs` with them), then becomes the program with an environment of
/// `PATH`, `LANG`, the supervisor's marker and the `--pass-env` variables (the caller's),
/// `TMPDIR=/tmp` and `HOME=/tmp`. A root caller's pipes on its stdin, stdout and stderr are
/// given to the sandbox's uid first, so that the program can open `/dev/stdout`. With
/// `--probe` it says on stdout what it could enforce (`seccomp on`, `landlock ABI`) and exits
/// with 0 instead.
fn sandbox_program(
    args: &ExecBotArgs,
    nproc_limit: Option<u64>,
    user: Option<BotUser>,
    mapped: Option<MappedIds>,
    (read_only, writable): &(Vec<std::path::PathBuf>, Vec<std::path::PathBuf>),
) -> u8 {
    // The init made itself undumpable before the fork; its child must not be (its /proc/self
    // files would belong to root, and it could not write its own id maps). The program's
    // `exec` would make it dumpable anyway.
    let _ = nix::sys::prctl::set_dumpable(true);
    crate::stage_times::mark("program");
    let identity = match user {
        Some(user) if nix::unistd::geteuid().is_root() => {
            give_pipes(user);
            sandbox::switch_user(user)
        }
        _ => sandbox::lock_mounts(mapped).map(drop),
    };
    if let Err(e) = identity {
        eprintln!("{NAME}: cannot isolate the bot: {e}");
        return ISOLATION_FAILED;
    }
    let _ = follow_the_referee(None);
    set_rlimits(args, nproc_limit);
    crate::stage_times::mark("identity");
    let landlock = match crate::landlock_rules::restrict(read_only, writable) {
        Ok(abi) => abi,
        Err(e) => {
            eprintln!("{NAME}: cannot isolate the bot: {e}");
            return ISOLATION_FAILED;
        }
    };
    crate::stage_times::mark("landlock");
    let seccomp = crate::seccomp_filter::install();
    crate::stage_times::mark("seccomp");
    if let Err(e) = &seccomp {
        eprintln!("{NAME}: warning: {e}");
    }
    // In the shared user namespace, they keep sandboxes apart besides their uids.
    if crate::shared_user_namespace::joined()
        && (seccomp.is_err() || landlock.is_none_or(|abi| abi < crate::shared_user_namespace::SCOPES_ABI))
    {
        eprintln!(
            "{NAME}: cannot isolate the bot: the shared user namespace needs the seccomp filter and Landlock's scopes"
        );
        return ISOLATION_FAILED;
    }
    if args.probe {
        let mut report = String::new();
        if seccomp.is_ok() {
            report.push_str("seccomp on\n");
        }
        if let Some(abi) = landlock {
            report.push_str(&format!("landlock {abi}\n"));
        }
        let mut stdout = std::io::stdout().lock();
        let _ = std::io::Write::write_all(&mut stdout, report.as_bytes());
        let _ = std::io::Write::flush(&mut stdout);
        return 0;
    }
    let Some((program, program_args)) = args.command.split_first() else {
        eprintln!("{NAME}: no program given");
        return 126;
    };
    // Only the few variables a program needs, not the caller's whole environment; the
    // caller's home is not in the sandbox: `/tmp` is a home that exists and is writable.
    let mut command = std::process::Command::new(program);
    command.env_clear();
    let kept = ["PATH", "LANG", crate::tree::MARKER_VARIABLE]
        .into_iter()
        .chain(args.pass_env.iter().map(String::as_str));
    for name in kept {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    if std::env::var_os("PATH").is_none() {
        command.env("PATH", "/usr/local/bin:/usr/bin:/bin");
    }
    crate::stage_times::mark("exec");
    let error = command.args(program_args).env("TMPDIR", "/tmp").env("HOME", "/tmp").exec();
    eprintln!("{NAME}: cannot execute {}: {error}", program.to_string_lossy());
    if error.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 }
}

/// Gives the pipes (and sockets) on fds 0, 1 and 2 to `user`: they are the caller's (root's,
/// mode 600), and `/dev/stdout` is opened anew through `/proc/self/fd/1`, which checks the
/// pipe's owner. A terminal or a file is left as it is.
fn give_pipes(user: BotUser) {
    use nix::sys::stat::SFlag;
    for fd in [std::io::stdin().as_fd(), std::io::stdout().as_fd(), std::io::stderr().as_fd()] {
        let Ok(stat) = nix::sys::stat::fstat(fd) else { continue };
        let kind = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT;
        if kind == SFlag::S_IFIFO || kind == SFlag::S_IFSOCK {
            let owner =
                (Some(nix::unistd::Uid::from_raw(user.uid)), Some(nix::unistd::Gid::from_raw(user.gid)));
            if let Err(e) = nix::unistd::fchown(fd, owner.0, owner.1) {
                eprintln!("{NAME}: warning: cannot give the bot its standard streams: {e}");
            }
        }
    }
}

/// The init's end of the status pipe.
struct StatusPipe(std::fs::File);

impl StatusPipe {
    /// Writes `line` and a newline, in one `write` (formatted on the stack: see
    /// [`ShortText`]).
    fn send(&mut self, line: std::fmt::Arguments<'_>) {
        if let Some(text) = short_text(format_args!("{line}\n")) {
            let _ = std::io::Write::write_all(&mut self.0, text.as_bytes());
        }
    }
}

/// How the bot ended, as the init reported it on the status pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BotEnd {
    Exit(i32),
    Signal(i32),
}

/// Reads the status pipe until a line says how the bot ended (`None` at its end of file or
/// on an error), into a buffer on the stack: the status is one short line, one `write`.
fn read_status(mut pipe: impl std::io::Read) -> Option<BotEnd> {
    let mut buffer = [0u8; 64];
    let mut len = 0;
    loop {
        let read = match pipe.read(&mut buffer[len..]) {
            Ok(0) => return None,
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        len += read;
        while let Some(newline) = buffer[..len].iter().position(|&b| b == b'\n') {
            if let Some(end) = std::str::from_utf8(&buffer[..newline]).ok().and_then(parse_status) {
                return Some(end);
            }
            buffer.copy_within(newline + 1..len, 0);
            len -= newline + 1;
        }
        if len == buffer.len() {
            len = 0; // A line too long to be a status.
        }
    }
}

fn parse_status(line: &str) -> Option<BotEnd> {
    let mut words = line.split_whitespace();
    match (words.next()?, words.next()?.parse().ok()?) {
        ("exit", code) => Some(BotEnd::Exit(code)),
        ("signal", signal) => Some(BotEnd::Signal(signal)),
        _ => None,
    }
}

/// Forks the init of the new PID namespace (its first child, which runs [`init_main`]), and
/// ends the way the bot ended, as soon as the init reports it: same exit code, or death by
/// the same signal.
///
/// The init writes `exit CODE` or `signal NUMBER CORE` on the status pipe when the bot has
/// ended.
fn run_as_namespace_init(
    args: &ExecBotArgs,
    nproc_limit: Option<u64>,
    born_into: Option<(std::path::PathBuf, std::os::fd::OwnedFd)>,
    mapped: Option<MappedIds>,
) -> u8 {
    // SIGTERM to the bot's process group must reach the bot, not end this process, whose
    // death SIGKILLs the init and so the bot. Blocked here only: the init unblocks it (as pid
    // 1 of its namespace it ignores it anyway), so the bot starts with an empty mask.
    let mut term = nix::sys::signal::SigSet::empty();
    term.add(Signal::SIGTERM);
    if let Err(e) = term.thread_block() {
        eprintln!("{NAME}: warning: cannot block SIGTERM: {e}");
    }
    let (status_read, status_write) = match nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC) {
        Ok(pipe) => pipe,
        Err(e) => {
            eprintln!("{NAME}: cannot create the status pipe: {e}");
            return 126;
        }
    };
    let outer = std::process::id();
    let init = match fork_init(born_into) {
        Ok(Forked::Child) => {
            drop(status_read);
            init_main(args, nproc_limit, outer, std::fs::File::from(status_write), mapped)
        }
        Ok(Forked::Parent(init)) => init,
        Err(e) => {
            eprintln!("{NAME}: cannot start the namespace's init: {e}");
            return 126;
        }
    };
    drop(status_write);
    // Only the bot may hold its pipes (the init has its own copies, which it hands on).
    release_stdio();
    // Ended as soon as the status comes, without waiting for the init: its exit tears down
    // the bot's mount namespaces, which waits for RCU grace periods (milliseconds). It is
    // re-parented to the referee (a subreaper), which kills and reaps it with the rest of the
    // bot's cgroup in the background.
    let end = read_status(std::fs::File::from(status_read));
    let signal = match end {
        Some(BotEnd::Exit(code)) => return u8::try_from(code & 0xff).unwrap_or(1),
        Some(BotEnd::Signal(signal)) => signal,
        None => {
            // No status (the probe, or an init that died): its own end is the bot's.
            loop {
                match nix::sys::wait::waitpid(init, None) {
                    Ok(WaitStatus::Exited(_, code)) => return u8::try_from(code & 0xff).unwrap_or(1),
                    Ok(WaitStatus::Signaled(_, signal, _)) => break signal as i32,
                    Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                    Err(_) => return 126,
                }
            }
        }
    };
    if let Ok(signal) = Signal::try_from(signal) {
        // Blocked signals (SIGTERM) first unblocked; twice, because std's handler for SIGSEGV
        // and SIGBUS (stack overflow reports) takes the first one and restores the default.
        let mut set = nix::sys::signal::SigSet::empty();
        set.add(signal);
        let _ = set.thread_unblock();
        let _ = nix::sys::signal::raise(signal);
        let _ = nix::sys::signal::raise(signal);
    }
    u8::try_from((128 + signal) & 0xff).unwrap_or(1)
}

/// Points this process's stdout, stderr and stdin at `/dev/null` (opened once).
fn release_stdio() {
    if let Ok(null) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
        let _ = nix::unistd::dup2_stderr(&null);
        let _ = nix::unistd::dup2_stdin(&null);
    }
}

/// A short text on the stack: in a forked child every page the allocator touches is one more
/// page copied from the parent (a page fault), so the stub's children format their few short
/// texts (paths under `/proc`, id maps, status lines) into one of these.
pub(crate) type ShortText = arrayvec::ArrayString<64>;

/// `args` formatted into a [`ShortText`]; `None` if the text does not fit in it.
pub(crate) fn short_text(args: std::fmt::Arguments<'_>) -> Option<ShortText> {
    let mut text = ShortText::new();
    std::fmt::Write::write_fmt(&mut text, args).ok()?;
    Some(text)
}

/// Sets the rlimits; `nproc_limit` is `RLIMIT_NPROC`, if one applies.
fn set_rlimits(args: &ExecBotArgs, nproc_limit: Option<u64>) {
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
    if let Some(tasks) = nproc_limit
        && let Err(e) = setrlimit(Resource::RLIMIT_NPROC, tasks, tasks)
    {
        eprintln!("{NAME}: warning: cannot set RLIMIT_NPROC: {e}");
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

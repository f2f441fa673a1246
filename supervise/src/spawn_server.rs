//! `EXE __spawn-server --parent-pid PID`: the spawn server (a "zygote"), started once per
//! referee process so that starting a bot costs a fork of an already-running stub instead of
//! an `exec` of it (the dynamic loader, relocations, the C library's and std's start-up: about
//! 1 ms per bot here, `bao-bench bench spawn`).
//!
//! It is the stub's own executable in a fresh, single-threaded process, started by the
//! referee (`spawn_client.rs`) with one end of a `SOCK_SEQPACKET` socket pair as its stdin.
//! It first closes every descriptor it inherited but 0, 1 and 2 and says which stub protocol
//! it speaks ([`STUB_PROTOCOL`]), then serves one request at a time ([`SpawnRequest`]: the
//! stub's arguments, the bot's environment and directory, with the bot's stdin, stdout and
//! stderr pipe ends as `SCM_RIGHTS`):
//! 1. it enters the bot's directory and makes its own environment exactly the bot's (it has
//!    one thread: `clone_into_cgroup::install_environment`, entries in the request's order,
//!    sorted by name as `Command` passes them), which the child inherits — a directory it
//!    cannot enter is an error answer, as `Command`'s `chdir` is a spawn error;
//! 2. it forks with `clone3(CLONE_PARENT | CLONE_PIDFD)` (`clone_into_cgroup::fork_for_parent`),
//!    so that the child is the **referee's** child — reaped by it, its orphans re-parented to
//!    it as subreaper, its `getppid()` the referee, exactly as a stub the referee started
//!    itself — closes the received descriptors, answers the referee with the child's pid and
//!    pidfd ([`SpawnAnswer`]) and only then writes the child its word to go on (on a pipe of
//!    its own: a child whose server died before it could answer exits without running
//!    anything);
//! 3. the child (a copy of a one-thread process, so it may run ordinary code) puts the pipes
//!    on 0, 1 and 2 (it holds no other descriptor but its end of that pipe, close-on-exec),
//!    makes its own process group (as `process_group(0)`), waits for the word, and runs the
//!    very steps an `exec`'d stub runs after parsing its command line (`exec_stub::run`:
//!    rlimits, cgroups, the parent-death signal on the referee, the namespaces, the init, the
//!    bot's `exec`).
//!
//! Its signal dispositions are those of a freshly `exec`'d stub, because the server is one and
//! changes none: what the referee ignored stays ignored (as `exec` keeps it), SIGPIPE ignored
//! as std starts every program, std's SIGSEGV/SIGBUS handlers; the stub unblocks every signal
//! first thing, as always.
//!
//! The server never runs bot code, is in the referee's cgroup, not a bot's, has its own
//! process group (a terminal's Ctrl-C reaches the referee, which ends the bots in order), asks
//! for SIGKILL when the referee dies and exits when the referee closes the socket. A request
//! it cannot serve gets an answer that says why.

use std::ffi::OsString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::sys::signal::Signal;
use nix::unistd::Pid;

use crate::clone_into_cgroup::{ForkedForParent, fork_for_parent, install_environment};
use crate::seqpacket::{self, Received};
use crate::spawn_wire::{GO, MAX_REQUEST_BYTES, SpawnAnswer, SpawnRequest};
use crate::stub_args::{ExecBotArgs, STUB_PROTOCOL};

/// The hidden subcommand that runs the spawn server.
pub(crate) const SPAWN_SERVER_SUBCOMMAND: &str = "__spawn-server";

/// Runs the spawn server with its command line (after the subcommand) until the referee
/// closes the socket or dies; returns the exit code.
pub(crate) fn serve(argv: impl Iterator<Item = OsString>) -> u8 {
    let parent = match parse(argv) {
        Ok(parent) => parent,
        Err(e) => {
            eprintln!("{SPAWN_SERVER_SUBCOMMAND}: {e}");
            return 2;
        }
    };
    if let Err(e) = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL) {
        eprintln!("{SPAWN_SERVER_SUBCOMMAND}: cannot set the parent-death signal: {e}");
        return 1;
    }
    if nix::unistd::getppid() != parent {
        return 0; // The referee is already gone.
    }
    let (stdin, stdout, stderr) = (std::io::stdin(), std::io::stdout(), std::io::stderr());
    // 0, 1 and 2 must be open, so that no descriptor received or made here lands on them
    // (the child puts the bot's pipes there).
    for fd in [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()] {
        if nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_GETFD).is_err() {
            eprintln!("{SPAWN_SERVER_SUBCOMMAND}: descriptor {} is not open", fd.as_raw_fd());
            return 1;
        }
    }
    close_inherited_fds();
    let socket = stdin.as_fd();
    if seqpacket::send(socket, STUB_PROTOCOL.as_bytes(), &[]).is_err() {
        return 0;
    }
    let mut buffer = vec![0u8; MAX_REQUEST_BYTES + 1];
    loop {
        let received = match seqpacket::receive(socket, &mut buffer) {
            Ok(Some(received)) => received,
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("{SPAWN_SERVER_SUBCOMMAND}: cannot read a request: {e}");
                return 1;
            }
        };
        let len = received.len;
        if serve_one(socket, &buffer[..len], received).is_err() {
            return 0; // The referee is gone.
        }
    }
}

fn parse(argv: impl Iterator<Item = OsString>) -> Result<Pid, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(argv);
    let mut parent = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("parent-pid") => {
                let value: i32 =
                    parser.value().map_err(|e| e.to_string())?.parse().map_err(|e| format!("{e}"))?;
                parent = Some(Pid::from_raw(value));
            }
            _ => return Err(arg.unexpected().to_string()),
        }
    }
    parent.ok_or_else(|| "'--parent-pid' is required".to_owned())
}

/// Serves one request (in the server: the child never returns from here). `Err` when the
/// answer cannot be sent (the referee is gone).
fn serve_one(socket: BorrowedFd<'_>, bytes: &[u8], received: Received) -> Result<(), Errno> {
    let started = match start(bytes, received) {
        Ok(started) => started,
        Err(answer) => return seqpacket::send(socket, &answer.encode(), &[]),
    };
    let Started { pid, pidfd, go } = started;
    seqpacket::send(socket, &SpawnAnswer::Started { pid: pid.as_raw() }.encode(), &[pidfd.as_fd()])?;
    // Only now that the referee knows it (a child that reads end of file instead exits).
    let _ = nix::unistd::write(&go, &[GO]);
    Ok(())
}

/// A child forked for a request: its pid, its pidfd, and the pipe to tell it to go on.
struct Started {
    pid: Pid,
    pidfd: OwnedFd,
    go: OwnedFd,
}

fn failed(errno: Errno, message: String) -> SpawnAnswer {
    SpawnAnswer::Failed { errno: errno as i32, message, pid: None }
}

/// Checks the request, prepares what the child inherits and forks it; the answer when
/// nothing was forked.
fn start(bytes: &[u8], received: Received) -> Result<Started, SpawnAnswer> {
    if received.truncated {
        return Err(failed(Errno::E2BIG, "the request did not fit in one message".to_owned()));
    }
    let Ok(stdio) = <[OwnedFd; 3]>::try_from(received.fds) else {
        return Err(failed(
            Errno::EINVAL,
            "a request comes with 3 descriptors (stdin, stdout, stderr)".to_owned(),
        ));
    };
    let SpawnRequest { stub_args, environment, dir } = SpawnRequest::decode(bytes)
        .map_err(|e| failed(Errno::EINVAL, format!("a malformed request: {e}")))?;
    let args = match crate::stub_args::parse(stub_args) {
        Ok(args) if !args.probe && !args.stub_protocol => args,
        Ok(_) => return Err(failed(Errno::EINVAL, "the spawn server only starts bots".to_owned())),
        Err(e) => return Err(failed(Errno::EINVAL, format!("bad stub arguments: {e}"))),
    };
    // Made once, for every sandbox forked from here.
    if args.isolation == crate::IsolationLevel::Full {
        crate::shared_user_namespace::prepare(args.uid.is_some() && args.gid.is_some());
        crate::seccomp_filter::prepare();
    }
    nix::unistd::chdir(dir.as_os_str()).map_err(|e| {
        failed(e, format!("cannot enter the directory {}: {e}", std::path::Path::new(&dir).display()))
    })?;
    install_environment(&environment).map_err(|e| failed(e, format!("cannot set the environment: {e}")))?;
    // Freed before the fork: freeing after it would write to heap pages that the child still
    // shares, which copies them (a page fault each, in the server).
    drop((environment, dir));
    let (go_read, go_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| failed(e, format!("cannot make the child's pipe: {e}")))?;
    match fork_for_parent() {
        Ok(ForkedForParent::Child) => {
            drop(go_write);
            become_the_stub(args, stdio, go_read)
        }
        // The child has its own copies of the pipes. The server leaves the bot's directory, so
        // that it does not keep it (or its mount) busy.
        Ok(ForkedForParent::Forker { pid, pidfd }) => {
            if let Err(e) = nix::unistd::chdir("/") {
                tracing::debug!("the spawn server cannot leave the bot's directory: {e}");
            }
            Ok(Started { pid, pidfd, go: go_write })
        }
        Err(e @ (Errno::ENOSYS | Errno::EINVAL | Errno::E2BIG | Errno::ENOTSUP | Errno::EPERM)) => {
            Err(SpawnAnswer::Unsupported {
                errno: e as i32,
                message: format!("clone3(CLONE_PARENT | CLONE_PIDFD) is refused here: {e}"),
            })
        }
        Err(e) => Err(failed(e, format!("cannot fork the bot's stub: {e}"))),
    }
}

/// In the child: puts the bot's pipes on 0, 1 and 2, makes its own process group, waits for
/// the server's word (`go`), and runs the stub's steps. Never returns (a panic ends it with
/// 126).
fn become_the_stub(args: ExecBotArgs, stdio: [OwnedFd; 3], go: OwnedFd) -> ! {
    let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        if let Err(e) = prepare(stdio) {
            eprintln!("{SPAWN_SERVER_SUBCOMMAND}: {e}");
            return 126;
        }
        let mut word = [0u8; 1];
        loop {
            match nix::unistd::read(&go, &mut word) {
                Ok(1) if word[0] == GO => break,
                Err(Errno::EINTR) => {}
                // The server died or could not tell the referee: nobody knows this process.
                _ => return 126,
            }
        }
        drop(go);
        crate::exec_stub::run(args)
    }))
    .unwrap_or(126);
    crate::exec_stub::exit_forked(code)
}

/// What `Command::spawn` does in its child before `exec` for the stub today, but the
/// directory and the environment (the server set those): stdio on 0, 1 and 2, its own
/// process group (`process_group(0)`).
fn prepare(stdio: [OwnedFd; 3]) -> Result<(), String> {
    let [stdin, stdout, stderr] = stdio;
    nix::unistd::dup2_stdin(&stdin).map_err(|e| format!("cannot set up the bot's stdin: {e}"))?;
    nix::unistd::dup2_stdout(&stdout).map_err(|e| format!("cannot set up the bot's stdout: {e}"))?;
    nix::unistd::dup2_stderr(&stderr).map_err(|e| format!("cannot set up the bot's stderr: {e}"))?;
    drop((stdin, stdout, stderr));
    nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0))
        .map_err(|e| format!("cannot give the bot its own process group: {e}"))
}

/// Closes every descriptor above 2: whatever the server inherited (no Rust object owns any
/// of them). Called once, first thing, so that the children hold only the descriptors the
/// server gives them.
fn close_inherited_fds() {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else { return };
    let open: Vec<RawFd> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    // The directory's own descriptor is among them, already closed: that close fails, harmlessly.
    for fd in open {
        let _ = nix::unistd::close(fd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_names_the_referee() {
        let args = |text: &str| text.split_whitespace().map(OsString::from).collect::<Vec<_>>().into_iter();
        assert_eq!(parse(args("--parent-pid 42")), Ok(Pid::from_raw(42)));
        assert!(parse(args("")).unwrap_err().contains("required"));
        assert!(parse(args("--parent-pid x")).is_err());
        assert!(parse(args("--other")).is_err());
    }
}

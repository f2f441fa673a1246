//! `EXE __spawn-server --parent-pid PID`: the spawn server (a "zygote"), started once per
//! referee process so that starting a bot costs a fork of an already-running stub instead of
//! an `exec` of it (the dynamic loader, relocations, the C library's and std's start-up: about
//! 1 ms per bot here, `bao-bench bench spawn`).
//!
//! It is the stub's own executable in a fresh, single-threaded process, started by the
//! referee (`spawn_client.rs`) with one end of a `SOCK_SEQPACKET` socket pair as its stdin.
//! It first says which stub protocol it speaks ([`STUB_PROTOCOL`]), then serves one request
//! at a time ([`SpawnRequest`]: the stub's arguments, the bot's environment and directory,
//! with the bot's stdin, stdout and stderr pipe ends as `SCM_RIGHTS`):
//! 1. it forks with `clone3(CLONE_PARENT | CLONE_PIDFD)` (`clone_into_cgroup::fork_for_parent`),
//!    so that the child is the **referee's** child — reaped by it, its orphans re-parented to
//!    it as subreaper, its `getppid()` the referee, exactly as a stub the referee started
//!    itself — and closes the received descriptors;
//! 2. the child (a copy of a one-thread process, so it may run ordinary code) makes itself
//!    what `Command` makes of a stub it starts: the pipes on 0, 1 and 2 and **no other
//!    descriptor**, its own process group, the bot's directory, the bot's environment exactly
//!    (`NAME=value` entries as `Command` passes them); it reports that to the server, which
//!    only then answers the referee with the child's pid and pidfd ([`SpawnAnswer`]), and
//!    then tells the child to go on; a child whose server dies before that exits without
//!    running anything;
//! 3. the child then runs the very steps an `exec`'d stub runs after parsing its command line
//!    (`exec_stub::run`: rlimits, cgroups, the parent-death signal on the referee, the
//!    namespaces, the init, the bot's `exec`).
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

use crate::clone_into_cgroup::{ForkedForParent, fork_for_parent, replace_environment};
use crate::seqpacket::{self, Received};
use crate::spawn_wire::{ChildReport, GO, MAX_ANSWER_BYTES, MAX_REQUEST_BYTES, SpawnAnswer, SpawnRequest};
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

/// What became of one request in the server.
enum Outcome {
    /// Nothing was forked: this is the answer.
    Answer(SpawnAnswer),
    /// A child was forked and has reported.
    Forked { pid: Pid, pidfd: OwnedFd, control: OwnedFd, report: ChildReport },
}

/// Serves one request (in the server: the child never returns from here). `Err` when the
/// answer cannot be sent (the referee is gone).
fn serve_one(socket: BorrowedFd<'_>, bytes: &[u8], received: Received) -> Result<(), Errno> {
    match start(bytes, received) {
        Outcome::Answer(answer) => seqpacket::send(socket, &answer.encode(), &[]),
        Outcome::Forked { pid, pidfd, control, report: ChildReport::Ready } => {
            seqpacket::send(socket, &SpawnAnswer::Started { pid: pid.as_raw() }.encode(), &[pidfd.as_fd()])?;
            // Only now that the referee knows it (a child that never hears this exits).
            let _ = seqpacket::send(control.as_fd(), &[GO], &[]);
            Ok(())
        }
        Outcome::Forked { pid, pidfd, control, report: ChildReport::Failed { errno, message } } => {
            drop(control);
            let answer = SpawnAnswer::Failed { errno, message, pid: Some(pid.as_raw()) };
            seqpacket::send(socket, &answer.encode(), &[pidfd.as_fd()])
        }
    }
}

fn failed(errno: Errno, message: String) -> Outcome {
    Outcome::Answer(SpawnAnswer::Failed { errno: errno as i32, message, pid: None })
}

/// Checks the request, forks the child and waits for its report.
fn start(bytes: &[u8], received: Received) -> Outcome {
    if received.truncated {
        return failed(Errno::E2BIG, "the request did not fit in one message".to_owned());
    }
    let Ok([stdin, stdout, stderr]) = <[OwnedFd; 3]>::try_from(received.fds) else {
        return failed(
            Errno::EINVAL,
            "a request comes with 3 descriptors (stdin, stdout, stderr)".to_owned(),
        );
    };
    let request = match SpawnRequest::decode(bytes) {
        Ok(request) => request,
        Err(e) => return failed(Errno::EINVAL, format!("a malformed request: {e}")),
    };
    let args = match crate::stub_args::parse(request.stub_args.clone()) {
        Ok(args) if !args.probe && !args.stub_protocol => args,
        Ok(_) => return failed(Errno::EINVAL, "the spawn server only starts bots".to_owned()),
        Err(e) => return failed(Errno::EINVAL, format!("bad stub arguments: {e}")),
    };
    let (control, child_control) = match seqpacket::pair() {
        Ok(pair) => pair,
        Err(e) => return failed(e, format!("cannot make the child's control socket: {e}")),
    };
    let (pid, pidfd) = match fork_for_parent() {
        Ok(ForkedForParent::Child) => {
            drop(control);
            become_the_stub(args, &request, [stdin, stdout, stderr], child_control)
        }
        Ok(ForkedForParent::Forker { pid, pidfd }) => (pid, pidfd),
        Err(e @ (Errno::ENOSYS | Errno::EINVAL | Errno::E2BIG | Errno::ENOTSUP | Errno::EPERM)) => {
            return Outcome::Answer(SpawnAnswer::Unsupported {
                errno: e as i32,
                message: format!("clone3(CLONE_PARENT | CLONE_PIDFD) is refused here: {e}"),
            });
        }
        Err(e) => return failed(e, format!("cannot fork the bot's stub: {e}")),
    };
    // The child has its own copies.
    drop((stdin, stdout, stderr, child_control));
    let mut buffer = [0u8; MAX_ANSWER_BYTES];
    let report = match seqpacket::receive(control.as_fd(), &mut buffer) {
        Ok(Some(received)) if !received.truncated => ChildReport::decode(&buffer[..received.len])
            .unwrap_or_else(|e| ChildReport::Failed { errno: Errno::EIO as i32, message: e }),
        _ => ChildReport::Failed {
            errno: Errno::EIO as i32,
            message: "the bot's stub ended while it was being set up".to_owned(),
        },
    };
    Outcome::Forked { pid, pidfd, control, report }
}

/// In the child: becomes the stub that `Command` would have started, reports to the server,
/// waits for its word, and runs the stub's steps. Never returns (a panic ends it with 126).
fn become_the_stub(args: ExecBotArgs, request: &SpawnRequest, stdio: [OwnedFd; 3], control: OwnedFd) -> ! {
    let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let report = match prepare(request, stdio, control.as_raw_fd()) {
            Ok(()) => ChildReport::Ready,
            Err(failed) => failed,
        };
        let ready = report == ChildReport::Ready;
        if seqpacket::send(control.as_fd(), &report.encode(), &[]).is_err() || !ready {
            return 126;
        }
        let mut word = [0u8; 1];
        match seqpacket::receive(control.as_fd(), &mut word) {
            Ok(Some(received)) if received.len == 1 && word[0] == GO => {}
            // The server died or could not tell the referee: nobody knows this process.
            _ => return 126,
        }
        drop(control);
        crate::exec_stub::run(args)
    }))
    .unwrap_or(126);
    std::process::exit(i32::from(code))
}

/// What `Command::spawn` does in its child before `exec` for the stub today: stdio on 0, 1
/// and 2, its own process group (`process_group(0)`), the directory, the environment; and no
/// descriptor but those and `keep` (the control socket, close-on-exec).
fn prepare(request: &SpawnRequest, stdio: [OwnedFd; 3], keep: RawFd) -> Result<(), ChildReport> {
    let failed =
        |what: String, e: Errno| ChildReport::Failed { errno: e as i32, message: format!("{what}: {e}") };
    let [stdin, stdout, stderr] = stdio;
    nix::unistd::dup2_stdin(&stdin).map_err(|e| failed("cannot set up the bot's stdin".into(), e))?;
    nix::unistd::dup2_stdout(&stdout).map_err(|e| failed("cannot set up the bot's stdout".into(), e))?;
    nix::unistd::dup2_stderr(&stderr).map_err(|e| failed("cannot set up the bot's stderr".into(), e))?;
    drop((stdin, stdout, stderr));
    close_other_fds(keep);
    nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0))
        .map_err(|e| failed("cannot give the bot its own process group".into(), e))?;
    let dir = std::path::Path::new(&request.dir);
    nix::unistd::chdir(dir)
        .map_err(|e| failed(format!("cannot enter the directory {}", dir.display()), e))?;
    replace_environment(&request.environment)
        .map_err(|e| failed("cannot set the bot's environment".into(), e))?;
    Ok(())
}

/// Closes every descriptor above 2 but `keep`: whatever the server inherited or holds (no
/// Rust object of the child owns any of them any more).
fn close_other_fds(keep: RawFd) {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else { return };
    let open: Vec<RawFd> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2 && fd != keep)
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

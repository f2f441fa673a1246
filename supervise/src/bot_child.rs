//! [`BotChild`]: the main process of a bot just started, and its three pipes, whichever way it
//! was started — by `tokio::process::Command` (directly, or through an `exec` of the stub),
//! or by the spawn server (`spawn_client.rs`), which hands over a pidfd of a child of the
//! referee. The pump waits for its exit; it is SIGKILLed if dropped before it was reaped.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
use nix::unistd::Pid;
use tokio::io::unix::AsyncFd;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

/// A bot's main process and its pipes.
#[derive(Debug)]
pub(crate) struct BotChild {
    /// Its stdin (the referee's end).
    pub(crate) stdin: Option<ChildStdin>,
    /// Its stdout.
    pub(crate) stdout: Option<ChildStdout>,
    /// Its stderr.
    pub(crate) stderr: Option<ChildStderr>,
    pid: u32,
    exit: Exit,
}

#[derive(Debug)]
enum Exit {
    /// Started by tokio (`kill_on_drop`), which reaps it.
    Command(tokio::process::Child),
    /// A child of the referee known by its pidfd.
    Pidfd(PidfdChild),
}

impl BotChild {
    /// A child that tokio started with piped stdio; `None` if it has already been reaped.
    pub(crate) fn from_command(mut child: tokio::process::Child) -> Option<Self> {
        let pid = child.id()?;
        Some(Self {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            pid,
            exit: Exit::Command(child),
        })
    }

    /// A child of this process known by `pidfd`, with the referee's ends of its pipes (pipes,
    /// close-on-exec). Must be called on a tokio runtime. On error the child is SIGKILLed (and
    /// reaped).
    pub(crate) fn from_pidfd(
        pid: Pid,
        pidfd: OwnedFd,
        stdin: OwnedFd,
        stdout: OwnedFd,
        stderr: OwnedFd,
    ) -> io::Result<Self> {
        // Dropped on an error below: the child is then killed and reaped.
        let mut exit = PidfdChild { pid, pidfd: None, reaped: false };
        exit.pidfd = Some(crate::clone_into_cgroup::register_owned_fd(pidfd)?);
        let mut child = Self {
            stdin: None,
            stdout: None,
            stderr: None,
            pid: pid.as_raw().unsigned_abs(),
            exit: Exit::Pidfd(exit),
        };
        child.stdin = Some(ChildStdin::from_std(std::process::ChildStdin::from(stdin))?);
        child.stdout = Some(ChildStdout::from_std(std::process::ChildStdout::from(stdout))?);
        child.stderr = Some(ChildStderr::from_std(std::process::ChildStderr::from(stderr))?);
        Ok(child)
    }

    /// Its pid.
    pub(crate) fn id(&self) -> u32 {
        self.pid
    }

    /// Waits for it to exit and reaps it (cancel-safe).
    pub(crate) async fn wait(&mut self) -> io::Result<ExitStatus> {
        match &mut self.exit {
            Exit::Command(child) => child.wait().await,
            Exit::Pidfd(child) => child.wait().await,
        }
    }
}

/// A child of the referee known by its pidfd (readable once it has exited), reaped with
/// `waitid(P_PIDFD)`. Its pid stays its own until it is reaped, so a `kill` by pid never
/// reaches another process.
#[derive(Debug)]
struct PidfdChild {
    pid: Pid,
    pidfd: Option<AsyncFd<OwnedFd>>,
    reaped: bool,
}

impl PidfdChild {
    async fn wait(&mut self) -> io::Result<ExitStatus> {
        let Some(pidfd) = &self.pidfd else { return Err(io::Error::other("no pidfd")) };
        loop {
            let mut ready = pidfd.readable().await?;
            let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG;
            let waited = match waitid(Id::PIDFd(pidfd.get_ref().as_fd()), flags) {
                // `waitid(P_PIDFD)` came in Linux 5.4, a pollable pidfd in 5.3: the pid stays
                // this process's child until it is reaped, so waiting by pid is as safe.
                Err(nix::errno::Errno::EINVAL) => waitid(Id::Pid(self.pid), flags),
                other => other,
            };
            match waited {
                Ok(WaitStatus::StillAlive) => ready.clear_ready(),
                Ok(status) => {
                    self.reaped = true;
                    return exit_status(status)
                        .ok_or_else(|| io::Error::other(format!("waitid: {status:?}")));
                }
                Err(nix::errno::Errno::EINTR) => {}
                Err(e) => {
                    // ECHILD: reaped by someone else (it cannot be: only this handle reaps it).
                    // Any other error leaves it unreaped, for the kill and reap on drop.
                    self.reaped = e == nix::errno::Errno::ECHILD;
                    return Err(io::Error::from(e));
                }
            }
        }
    }
}

impl Drop for PidfdChild {
    fn drop(&mut self) {
        if self.reaped {
            return;
        }
        // Like tokio's `kill_on_drop`, then reaped off this thread.
        let _ = kill(self.pid, Signal::SIGKILL);
        let pidfd = self.pidfd.take().map(AsyncFd::into_inner);
        let pid = self.pid;
        let reap = move || {
            let by_pidfd = pidfd.as_ref().map(|pidfd| waitid(Id::PIDFd(pidfd.as_fd()), WaitPidFlag::WEXITED));
            if !matches!(by_pidfd, Some(Ok(_))) {
                let _ = waitid(Id::Pid(pid), WaitPidFlag::WEXITED);
            }
        };
        if std::thread::Builder::new().name("bot reaper".to_owned()).spawn(reap).is_err() {
            tracing::debug!("cannot start a thread to reap bot {pid}");
        }
    }
}

/// The exit status that `waitid` reported.
fn exit_status(status: WaitStatus) -> Option<ExitStatus> {
    match status {
        WaitStatus::Exited(_, code) => Some(ExitStatus::from_raw((code & 0xff) << 8)),
        WaitStatus::Signaled(_, signal, core) => {
            Some(ExitStatus::from_raw(signal as i32 | if core { 0x80 } else { 0 }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses_read_as_a_wait_status_would() {
        let exited = exit_status(WaitStatus::Exited(Pid::from_raw(1), 3)).unwrap();
        assert_eq!((exited.code(), exited.signal()), (Some(3), None));
        let killed = exit_status(WaitStatus::Signaled(Pid::from_raw(1), Signal::SIGSEGV, true)).unwrap();
        assert_eq!((killed.code(), killed.signal(), killed.core_dumped()), (None, Some(11), true));
        assert!(exit_status(WaitStatus::StillAlive).is_none());
    }
}

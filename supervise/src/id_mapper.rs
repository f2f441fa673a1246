//! The id maps of a sandbox of an unprivileged caller with subordinate ids
//! (`subordinate_ids.rs`), written from outside its user namespace.
//!
//! A process may write only a one-id map for itself (its own id), and only from inside the
//! namespace: a map that also holds the sandbox's own uid, which the caller does not own,
//! must be written by the setuid helpers `newuidmap` and `newgidmap`, run by the caller's user
//! in the parent namespace (a setuid program run inside the new namespace gains nothing). So
//! the stub forks one helper for each map **before** it creates the namespace ([`start`]);
//! each waits on a pipe; once the stub has made the namespace it tells them to go on and waits
//! for them ([`Mapper::finish`]). Each helper then `exec`s its tool on the stub's pid:
//!
//! ```text
//! newuidmap PID 0 CALLER_UID 1 SANDBOX_UID SANDBOX_UID 1
//! newgidmap PID 0 CALLER_GID 1 SANDBOX_GID SANDBOX_GID 1
//! ```
//!
//! The caller's ids are root inside (for the init, which mounts the new root), the sandbox's
//! ids are themselves inside (the program's process switches to them with `setresuid`, which
//! drops every capability, as a root caller's sandbox does). `newgidmap` leaves `setgroups`
//! allowed (the caller owns subordinate gids), so the program's process can drop the
//! caller's supplementary groups.
//!
//! Two `exec`s of setuid programs per sandbox cost ≈ 4.7 ms of its start on the project's
//! loaded machine (BENCHMARKS.md, "The sandbox"): a stub forked by the spawn server does
//! without them where the server made the shared user namespace of its sandboxes, which maps
//! every subordinate id once (`shared_user_namespace.rs`); this is the way of an `exec`'d stub and of
//! the isolation probe.
//!
//! A helper that fails says why on stderr; [`Mapper::finish`] returns its message. Under
//! `no_new_privs` (systemd's `NoNewPrivileges=yes`) the setuid helpers gain nothing and fail:
//! the isolation probe finds that once, and the caller's sandboxes then share its uid.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;

use nix::sys::wait::WaitStatus;
use nix::unistd::Pid;

use crate::clone_into_cgroup::{Forked, fork_into};
use crate::sandbox::BotUser;

/// The word a helper waits for.
const GO: u8 = b'g';

/// The two helpers, waiting.
pub(crate) struct Mapper {
    /// The write end of the helpers' pipe (closed without a word: they exit).
    go: Option<OwnedFd>,
    /// Each helper: its tool's name, its pid, the read end of its stderr.
    helpers: Vec<(&'static str, Pid, OwnedFd)>,
}

/// Forks the two helpers for `user` (the sandbox's ids), to map the ids of this process (the
/// stub, before it creates its user namespace).
///
/// # Errors
/// A tool that is not installed, or a fork that failed.
pub(crate) fn start(user: BotUser) -> Result<Mapper, String> {
    let stub = std::process::id().to_string();
    let own = (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw());
    let (go_read, go_write) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| format!("cannot make a pipe: {e}"))?;
    let mut mapper = Mapper { go: Some(go_write), helpers: Vec::new() };
    for (name, own, id) in [("newuidmap", own.0, user.uid), ("newgidmap", own.1, user.gid)] {
        let tool = crate::subordinate_ids::tool(name)
            .ok_or_else(|| format!("no {name} on this system (Debian's package uidmap)"))?;
        let args: Vec<OsString> = [
            stub.clone(),
            "0".into(),
            own.to_string(),
            "1".into(),
            id.to_string(),
            id.to_string(),
            "1".into(),
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
        let (err_read, err_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
            .map_err(|e| format!("cannot make a pipe: {e}"))?;
        match fork_into(None) {
            Ok(Forked::Child) => {
                drop(mapper.go.take());
                drop(err_read);
                helper(&tool, &args, &go_read, &err_write)
            }
            Ok(Forked::Parent(pid)) => mapper.helpers.push((name, pid, err_read)),
            Err(e) => return Err(format!("cannot start {name}: {e}")),
        }
    }
    Ok(mapper)
}

/// A helper: waits for the word, then becomes the tool (its stderr on `stderr`); exits with
/// 1 without the word (the stub failed before it made its namespace).
fn helper(tool: &std::path::Path, args: &[OsString], go: &OwnedFd, stderr: &OwnedFd) -> ! {
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    let mut word = [0u8; 1];
    loop {
        match nix::unistd::read(go, &mut word) {
            Ok(1) if word[0] == GO => break,
            Err(nix::errno::Errno::EINTR) => {}
            _ => crate::exec_stub::exit_forked(1),
        }
    }
    let _ = nix::unistd::dup2_stderr(stderr);
    let error = std::process::Command::new(tool).args(args).stdin(std::process::Stdio::null()).exec();
    eprintln!("cannot execute {}: {error}", tool.display());
    crate::exec_stub::exit_forked(1)
}

impl Mapper {
    /// Lets the helpers map this process's ids (call once its user namespace exists) and
    /// waits for them.
    ///
    /// # Errors
    /// Which tool failed, with what it said.
    pub(crate) fn finish(mut self) -> Result<(), String> {
        if let Some(go) = self.go.take() {
            let words = [GO; 2];
            let _ = nix::unistd::write(&go, &words[..self.helpers.len()]);
        }
        let mut failures = Vec::new();
        for (name, pid, stderr) in std::mem::take(&mut self.helpers) {
            let status = wait(pid);
            if status != Some(0) {
                let mut said = String::new();
                let _ = std::io::Read::read_to_string(&mut std::fs::File::from(stderr), &mut said);
                let said = said.trim().replace('\n', "; ");
                let how = status.map_or_else(|| "was killed".to_owned(), |code| format!("ended with {code}"));
                failures.push(format!("{name} {how}: {said}"));
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(format!("cannot map the sandbox's subordinate ids: {}", failures.join("; ")))
        }
    }
}

impl Drop for Mapper {
    /// Without [`Mapper::finish`]: the helpers read the end of their pipe and exit; reaped.
    fn drop(&mut self) {
        drop(self.go.take());
        for (_, pid, _) in std::mem::take(&mut self.helpers) {
            let _ = wait(pid);
        }
    }
}

/// The exit code of `pid` (`None` if a signal ended it or it could not be waited for).
fn wait(pid: Pid) -> Option<i32> {
    loop {
        match nix::sys::wait::waitpid(pid, None) {
            Ok(WaitStatus::Exited(_, code)) => return Some(code),
            Ok(WaitStatus::Signaled(..)) => return None,
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return None,
        }
    }
}

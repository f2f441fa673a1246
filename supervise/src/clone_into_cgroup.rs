//! Starting a process born inside a cgroup: `clone3(CLONE_INTO_CGROUP)`, then `execve` (the
//! stub uses it for the namespace's init, so that no process of the bot's tree is ever moved
//! into its cgroup).
//!
//! Moving a process into a cgroup (writing `cgroup.procs`) takes the kernel's cgroup
//! threadgroup lock for writing, which waits for an RCU grace period whenever the lock has not
//! been taken for a while: 8–11 ms after any pause of 20–30 ms (issue 10; the lead's `strace`
//! of a game showed 7.8 ms for one such write). A process created by `clone3` with
//! `CLONE_INTO_CGROUP` is born in the cgroup and takes the lock only for reading.
//!
//! `unsafe` here, and only here in this crate, because no maintained crate wraps `clone3`
//! safely: std and `nix` have no `clone3`, `rustix` leaves it out on purpose, and the `clone3`
//! crate (0.2.3) offers only an `unsafe fn call`; std's `Command` cannot pass a cgroup (and its
//! `pre_exec` hook, which runs after the fork, would be too late). What makes it sound:
//! the caller is the stub, a single-threaded process, and the call is fork-like (no
//! `CLONE_VM`: the child has its own copy of memory); everything the child needs (paths,
//! argument and environment arrays) is built before the call, and the child makes only three
//! raw system calls — `dup2`, `execve`, `_exit` — none of which depends on state the C
//! library keeps per thread (which `clone3` outside glibc does not update in the child).

#![expect(unsafe_code, reason = "clone3 has no safe wrapper in std, nix or rustix; see the module docs")]

use std::ffi::{CString, OsString};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use nix::errno::Errno;
use nix::unistd::Pid;

/// `CLONE_INTO_CGROUP` (Linux 5.7; `libc` has it with the wrong type on glibc targets).
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// Starts `program` with `args` (the first is its `argv[0]`) and this process's environment,
/// born in the cgroup whose directory `cgroup` is open on, with `stdin` as its standard input
/// and the other descriptors inherited as by `fork`; returns its pid, as a child that sends
/// SIGCHLD when it ends (reap it with `waitpid`).
///
/// # Errors
/// What `clone3` said: `ENOSYS` before Linux 5.3, `EINVAL` or `E2BIG` where
/// `CLONE_INTO_CGROUP` is unknown (before 5.7), `EACCES`/`EPERM` where the cgroup may not be
/// written, `EOPNOTSUPP` for a cgroup that cannot hold processes. A failed `execve` in the
/// child ends it with exit code 126.
pub(crate) fn spawn(
    cgroup: BorrowedFd<'_>,
    program: &Path,
    args: &[OsString],
    stdin: BorrowedFd<'_>,
) -> Result<Pid, Errno> {
    let c_string = |bytes: &[u8]| CString::new(bytes).map_err(|_| Errno::EINVAL);
    let program = c_string(program.as_os_str().as_bytes())?;
    let args: Vec<CString> = args.iter().map(|a| c_string(a.as_bytes())).collect::<Result<_, _>>()?;
    let env: Vec<CString> = std::env::vars_os()
        .map(|(name, value)| {
            let mut entry = name.as_bytes().to_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            c_string(&entry)
        })
        .collect::<Result<_, _>>()?;
    let argv: Vec<*const libc::c_char> =
        args.iter().map(|a| a.as_ptr()).chain(std::iter::once(std::ptr::null())).collect();
    let envp: Vec<*const libc::c_char> =
        env.iter().map(|e| e.as_ptr()).chain(std::iter::once(std::ptr::null())).collect();
    let stdin = stdin.as_raw_fd();
    let mut clone_args = libc::clone_args {
        flags: CLONE_INTO_CGROUP,
        pidfd: 0,
        child_tid: 0,
        parent_tid: 0,
        exit_signal: libc::SIGCHLD as u64,
        stack: 0,
        stack_size: 0,
        tls: 0,
        set_tid: 0,
        set_tid_size: 0,
        cgroup: u64::try_from(cgroup.as_raw_fd()).map_err(|_| Errno::EBADF)?,
    };
    // SAFETY: `clone_args` is a valid `struct clone_args` of the size passed. Without
    // `CLONE_VM` the child runs on its own copy of this single-threaded process's memory.
    let pid = unsafe {
        libc::syscall(libc::SYS_clone3, &raw mut clone_args, std::mem::size_of::<libc::clone_args>())
    };
    if pid == 0 {
        // SAFETY: in the child, only async-signal-safe system calls on data built above
        // (NUL-terminated strings and NULL-terminated arrays of them), then the end.
        unsafe {
            if stdin != 0 && libc::dup2(stdin, 0) < 0 {
                libc::_exit(126);
            }
            libc::execve(program.as_ptr(), argv.as_ptr(), envp.as_ptr());
            libc::_exit(126);
        }
    }
    if pid < 0 {
        return Err(Errno::last());
    }
    Ok(Pid::from_raw(i32::try_from(pid).map_err(|_| Errno::EOVERFLOW)?))
}

//! Forking the stub with the child born inside a cgroup: `clone3(CLONE_INTO_CGROUP)` used
//! the way the C library's `fork` uses `clone`. The namespace's init is such a child: it goes
//! on running the stub's own code, with no second `execve` of the stub (one exec, about 1 ms,
//! fewer per bot: docs/benchmarks/referee.md), and no process of the bot's tree is ever moved
//! into its cgroup.
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
//! `pre_exec` hook, which runs after the fork, would be too late).
//!
//! # Why the child may run ordinary Rust code
//! A child of `fork` in a process with **one thread** may do anything its parent could: it has
//! its own copy of a memory in which no other thread was half-way through anything (no lock
//! of the allocator, of stdio or of std held, no data structure mid-update). [`fork_into`]
//! first makes the kernel check that there is one thread: `unshare(CLONE_THREAD)` fails with
//! `EINVAL` when the thread group has another thread and otherwise does nothing
//! (`check_unshare_flags` in the kernel's `kernel/fork.c`). Nothing can start a thread in
//! between: the one thread is making the call.
//!
//! What a raw `clone3` does not do that glibc's `fork` does (`_Fork`, glibc
//! `sysdeps/nptl/_Fork.c`; `posix/fork.c`):
//! - **The cached thread id.** glibc keeps the thread's id in its thread descriptor
//!   (`struct pthread`'s `tid`), set at start-up by `pd->tid = set_tid_address(&pd->tid)`
//!   (`sysdeps/nptl/dl-tls_init_tp.c`), and its `fork` has the kernel write the child's id
//!   there: `arch_fork(&THREAD_SELF->tid)` is `clone(CLONE_CHILD_SETTID |
//!   CLONE_CHILD_CLEARTID | SIGCHLD, ..., ctid)` (`sysdeps/unix/sysv/linux/arch-fork.h`). A
//!   child that kept the parent's id would get recursive and error-checking mutexes, the
//!   dynamic loader's lock and `pthread_kill` of other threads subtly wrong (`raise` and
//!   `abort` are not affected: `__pthread_kill_implementation` asks the kernel with `gettid`
//!   "so that it refers to the current thread even if called after vfork", `nptl/pthread_kill.c`).
//!   [`fork_into`] passes the same two flags at the same address, so the child's descriptor is
//!   exactly as after glibc's `fork`. The address is not public, but the kernel gives it back:
//!   it is the thread's `clear_child_tid`, which `prctl(PR_GET_TID_ADDRESS)` returns; it is
//!   used only if it holds this thread's id (`gettid`), which proves it is the C library's
//!   cache (musl, for one, registers its thread-list lock there instead, which holds 0: then,
//!   or where the kernel lacks `PR_GET_TID_ADDRESS` (built without `CHECKPOINT_RESTORE`), the
//!   caller falls back to glibc's own `fork`). The value is read through `/proc/self/mem`,
//!   so that even a bad address is an error, not a fault; once per process tree: a child
//!   forked since, whose `clear_child_tid` is still that address, has it only because its
//!   fork wrote the child's id there (see `tid_cache`).
//! - **The robust-mutex list** (`set_robust_list`), which the kernel does not copy: the child
//!   has none registered. It matters only to robust process-shared mutexes, which neither
//!   the stub nor std uses; the parent held none at the call.
//! - **`pthread_atfork` handlers and the locks `fork` takes around the call** (allocator arenas,
//!   the stdio list, the dynamic loader's lock, glibc's `getrandom` state): they exist so that
//!   a lock held by *another thread* is not copied held. With one thread, the only holder
//!   would be the caller, which is not inside any of them; nothing in the stub registers an
//!   atfork handler.
//! - **The pid cache** of glibc before 2.25 (the stub's `getpid` would return the parent's
//!   pid): there is none since 2.25, and Rust's std needs glibc 2.17 only, so this matters
//!   only for `getpid` on those old systems, and then only the pid reported in an error.
//!
//! Without `CLONE_VM` the kernel copies the memory (copy on write), so the child returns from
//! the system call on its own copy of the stack, like a child of `fork`; the `rseq`
//! registration and the signal alternate stack are inherited with it.

//! # The spawn server's fork, and the other unsafe operations
//! The spawn server (`spawn_server.rs`, a one-thread process like the stub) forks each outer
//! stub with [`fork_for_parent`]: `clone3(CLONE_PARENT | CLONE_PIDFD)` with the same thread-id
//! flags, so that the referee, not the server, is the child's parent (it reaps it and gets its
//! orphans, as when it started the stub itself), and the server gets a pidfd to hand over.
//! Besides, four things that std and `nix` offer only as `unsafe`, or not at all:
//! - [`receive_with_fds`]: taking ownership of the descriptors the kernel has just installed
//!   in this process for an `SCM_RIGHTS` message (`recvmsg` gives them as raw numbers; nothing
//!   else in the process knows them), in the same function that receives them;
//! - [`install_environment`]: pointing the C library's `environ` at an environment block
//!   owned here, in the spawn server, which has one thread (checked each time with
//!   `unshare(CLONE_THREAD)`), so no other thread reads the environment meanwhile (`setenv`
//!   would do, but it keeps every string it is given: a leak per bot in a long-lived server);
//! - [`exit_at_once`]: the C library's `_exit` (std cannot exit without its own and the C
//!   library's clean-up, and `nix` 0.30 has no wrapper), with which the forked children of
//!   the server and of the outer stub end (see `exec_stub::exit_forked`);
//! - [`register_owned_fd`]: tokio's `AsyncFd::register` (`unsafe` since tokio 1.54, which
//!   cannot check that the descriptor stays the same while registered), for a pidfd the
//!   referee was handed: an `OwnedFd`, which keeps its descriptor open and unchanged until it
//!   is dropped.

#![expect(
    unsafe_code,
    reason = "clone3, fds received by SCM_RIGHTS, the environment of a one-thread child and _exit have no safe API in std or nix; see the module docs"
)]

use std::ffi::OsString;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::sched::CloneFlags;
use nix::unistd::Pid;

/// `CLONE_INTO_CGROUP` (Linux 5.7; `libc` has it with the wrong type on glibc targets).
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;
/// `CLONE_PIDFD` (Linux 5.2).
const CLONE_PIDFD: u64 = 0x1000;
/// `CLONE_PARENT`.
const CLONE_PARENT: u64 = 0x8000;

/// Where [`fork_into`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Forked {
    /// In the parent, with the child's pid (a child that sends SIGCHLD when it ends: reap it
    /// with `waitpid`).
    Parent(Pid),
    /// In the child.
    Child,
}

/// Forks this process, which must have one thread (checked: `EINVAL` otherwise), the child
/// born in the cgroup whose directory `cgroup` is open on, or, with `None`, wherever the
/// parent is (then the C library's own `fork`). The child goes on from here, like a child of
/// `fork`.
///
/// # Errors
/// `EINVAL` when this process has more than one thread; with a cgroup, what `clone3` said
/// (`ENOSYS` before Linux 5.3, `EINVAL` or `E2BIG` where `CLONE_INTO_CGROUP` is unknown,
/// before 5.7, `EACCES`/`EPERM` where the cgroup may not be written, `EOPNOTSUPP` for a cgroup
/// that cannot hold processes), or `ENOTSUP`/`EINVAL` when the C library's thread-id cache
/// cannot be found (see the module docs); without, what `fork` said. The caller may fall back
/// to joining the cgroup and forking with `None`.
pub(crate) fn fork_into(cgroup: Option<BorrowedFd<'_>>) -> Result<Forked, Errno> {
    one_thread()?;
    let pid = match cgroup {
        Some(cgroup) => clone3(CLONE_INTO_CGROUP, Some(cgroup), None)?,
        // SAFETY: the C library's `fork` (which keeps its own per-thread state right in the
        // child) in a process checked above to have one thread, so the child's copy of memory
        // is consistent (see the module docs).
        None => Errno::result(unsafe { libc::fork() })?,
    };
    Ok(if pid == 0 { Forked::Child } else { Forked::Parent(Pid::from_raw(pid)) })
}

/// Where [`fork_for_parent`] returned.
#[derive(Debug)]
pub(crate) enum ForkedForParent {
    /// In the forking process, with the child's pid and a pidfd of it (`O_CLOEXEC`).
    Forker {
        /// The child's pid.
        pid: Pid,
        /// A pidfd of the child.
        pidfd: OwnedFd,
    },
    /// In the child, whose parent is the forking process's parent.
    Child,
}

/// Forks this process, which must have one thread (checked: `EINVAL` otherwise), the child
/// made a child of this process's **parent** (`CLONE_PARENT`: the parent reaps it, gets
/// `SIGCHLD` — this process's own exit signal — and adopts its orphans as subreaper), with a
/// pidfd of it for this process (`CLONE_PIDFD`). The child goes on from here, like a child of
/// `fork`, with the C library's thread-id cache right (see the module docs).
///
/// # Errors
/// `EINVAL` when this process has more than one thread; what `clone3` said (`ENOSYS` before
/// Linux 5.3, `EINVAL` where a flag is unknown, `EAGAIN`/`ENOMEM` when the kernel cannot make
/// a process); `ENOTSUP` when the thread-id cache cannot be found. There is no fallback: the
/// C library's `fork` cannot give the child to the parent.
pub(crate) fn fork_for_parent() -> Result<ForkedForParent, Errno> {
    one_thread()?;
    let mut pidfd: libc::c_int = -1;
    let pid = clone3(CLONE_PARENT | CLONE_PIDFD, None, Some(&mut pidfd))?;
    if pid == 0 {
        return Ok(ForkedForParent::Child);
    }
    // SAFETY: with `CLONE_PIDFD` the kernel installed a new descriptor in this process and
    // stored its number in `pidfd` (only when the call succeeded, which it did: `pid` > 0);
    // nothing else owns it.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    Ok(ForkedForParent::Forker { pid: Pid::from_raw(pid), pidfd })
}

/// `clone3(flags | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID)`, into `cgroup` if given, with
/// the pidfd stored in `pidfd` if given (pass `CLONE_PIDFD` in `flags` then): 0 in the child,
/// the child's pid in the parent.
fn clone3(
    flags: u64,
    cgroup: Option<BorrowedFd<'_>>,
    pidfd: Option<&mut libc::c_int>,
) -> Result<libc::pid_t, Errno> {
    let tid_cache = tid_cache()?;
    let cgroup = match cgroup {
        Some(cgroup) => u64::try_from(cgroup.as_raw_fd()).map_err(|_| Errno::EBADF)?,
        None => 0,
    };
    // With `CLONE_PARENT` the kernel takes the exit signal of this process's own leader and
    // requires 0 here.
    let exit_signal = if flags & CLONE_PARENT == 0 { libc::SIGCHLD as u64 } else { 0 };
    let mut clone_args = libc::clone_args {
        flags: flags | libc::CLONE_CHILD_SETTID as u64 | libc::CLONE_CHILD_CLEARTID as u64,
        pidfd: pidfd.map_or(0, |fd| std::ptr::from_mut(fd) as u64),
        child_tid: tid_cache as u64,
        parent_tid: 0,
        exit_signal,
        stack: 0,
        stack_size: 0,
        tls: 0,
        set_tid: 0,
        set_tid_size: 0,
        cgroup,
    };
    // SAFETY: `clone_args` is a valid `struct clone_args` of the size passed; `pidfd`, when
    // set, points to a live `c_int` the kernel writes the new descriptor's number to. Without
    // `CLONE_VM` the child runs on its own copy of this process's memory, which has one
    // thread (checked by the callers); `child_tid` is the C library's cache of this thread's
    // id (checked by `tid_cache`), which the kernel sets to the child's id in the child's
    // memory, exactly as glibc's `fork` has it do (see the module docs).
    let pid = unsafe {
        libc::syscall(libc::SYS_clone3, &raw mut clone_args, std::mem::size_of::<libc::clone_args>())
    };
    Errno::result(pid)?;
    libc::pid_t::try_from(pid).map_err(|_| Errno::EOVERFLOW)
}

/// `recvmsg` of one message into `buffer`, taking ownership of the descriptors that came with
/// it (`SCM_RIGHTS`, received close-on-exec; at most `MAX_FDS`, more are closed by the
/// kernel and the message marked truncated): its length, its flags and the descriptors.
pub(crate) fn receive_with_fds<const MAX_FDS: usize>(
    socket: BorrowedFd<'_>,
    buffer: &mut [u8],
) -> Result<(usize, nix::sys::socket::MsgFlags, Vec<OwnedFd>), Errno> {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
    let mut control = nix::cmsg_space!([RawFd; MAX_FDS]);
    let mut iov = [std::io::IoSliceMut::new(buffer)];
    let message =
        recvmsg::<()>(socket.as_raw_fd(), &mut iov, Some(&mut control), MsgFlags::MSG_CMSG_CLOEXEC)?;
    let mut fds = Vec::new();
    for control in message.cmsgs()? {
        if let ControlMessageOwned::ScmRights(raw) = control {
            // SAFETY: each number is a descriptor the kernel has just installed in this process
            // for this message (`SCM_RIGHTS`); nothing else in the process knows or owns it.
            fds.extend(raw.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
        }
    }
    Ok((message.bytes, message.flags, fds))
}

/// Registers `fd` with the current tokio runtime (which it must be called on), for waiting
/// until it is readable (a pidfd: until the process has exited).
///
/// # Errors
/// What the runtime's reactor said (the descriptor is then closed).
pub(crate) fn register_owned_fd(fd: OwnedFd) -> std::io::Result<tokio::io::unix::AsyncFd<OwnedFd>> {
    // SAFETY: an `OwnedFd` owns its descriptor: it stays open and refers to the same open file
    // description until the `OwnedFd` (here, the `AsyncFd` that holds it) is dropped, and its
    // `as_raw_fd` always returns that descriptor (tokio's condition for `register`).
    unsafe { tokio::io::unix::AsyncFd::register(fd) }.map_err(std::io::Error::from)
}

/// An environment block owned by this process: `NAME=value` strings and the null-terminated
/// array of pointers to them that `environ` points at.
struct EnvironmentBlock {
    /// Every string, each NUL-terminated, one after the other: one allocation, not one per
    /// entry, so that the server writes fewer heap pages per bot (after a fork, each is a page
    /// fault).
    _strings: Vec<u8>,
    pointers: Vec<*mut libc::c_char>,
}

// SAFETY: the pointers point into the block's own strings, which move with it (their heap
// buffer does not move); nothing in it is tied to a thread.
unsafe impl Send for EnvironmentBlock {}

/// The block `environ` points at, once [`install_environment`] has run; replaced (and the
/// previous one freed) by the next call, never dropped otherwise.
static INSTALLED_ENVIRONMENT: std::sync::Mutex<Option<EnvironmentBlock>> = std::sync::Mutex::new(None);

/// Makes this process's environment exactly `vars` (`NAME=value` each, in that order), as
/// `Command::env_clear().envs(..)` gives a child, by pointing `environ` at a block owned here.
/// Unlike `setenv`, which keeps every string it was ever given (so that pointers `getenv`
/// returned stay valid), nothing is kept from one call to the next: the spawn server does this
/// once per bot. Entries the C library cannot hold (no `=`, an empty name, a NUL) are left
/// out.
///
/// For the one-thread spawn server, which calls neither `setenv` nor `putenv` (the C
/// library's own copy of the array would point into a block freed by the next call).
///
/// # Errors
/// `EINVAL` when this process has more than one thread (checked first, as in [`fork_into`]):
/// the environment is then left alone.
pub(crate) fn install_environment(vars: &[OsString]) -> Result<(), Errno> {
    use std::os::unix::ffi::OsStrExt;
    one_thread()?;
    let entries = || {
        vars.iter()
            .map(|entry| entry.as_bytes())
            .filter(|entry| entry.iter().skip(1).any(|&b| b == b'=') && !entry.contains(&0))
    };
    let mut strings = Vec::with_capacity(entries().map(|entry| entry.len() + 1).sum());
    for entry in entries() {
        strings.extend_from_slice(entry);
        strings.push(0);
    }
    // `strings` is complete and never changed again: its buffer stays where it is.
    let base = strings.as_ptr();
    let mut pointers: Vec<*mut libc::c_char> = Vec::with_capacity(vars.len() + 1);
    let mut start = 0;
    for entry in entries() {
        pointers.push(base.wrapping_add(start).cast::<libc::c_char>().cast_mut());
        start += entry.len() + 1;
    }
    pointers.push(std::ptr::null_mut());
    let block = EnvironmentBlock { _strings: strings, pointers };
    let mut installed = INSTALLED_ENVIRONMENT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: this process has one thread (checked above), so nothing reads `environ`
    // meanwhile; it then points at a null-terminated array of pointers to NUL-terminated
    // `NAME=value` strings, all owned by `block`, which is kept (below) until the next call has
    // pointed `environ` elsewhere. Nothing in this process calls `setenv` or `putenv` (see
    // the function's docs), so no other copy of the array points into the block freed below.
    unsafe { libc::environ = block.pointers.as_ptr().cast_mut() };
    // The previous block, if any, is no longer pointed at: freed here.
    *installed = Some(block);
    Ok(())
}

/// Ends this process at once with `code` (`_exit`): no `atexit` handler, no destructor of a
/// shared object, no flush of any buffer, std's or the C library's.
pub(crate) fn exit_at_once(code: u8) -> ! {
    // SAFETY: `_exit` has no precondition: it ends the process (every thread) without running
    // any more of its code, so nothing can observe a state it leaves half-done.
    unsafe { libc::_exit(i32::from(code)) }
}

/// The kernel's check that this process has one thread (`unshare(CLONE_THREAD)`: `EINVAL`
/// otherwise, a no-op if it has); nothing can start a thread meanwhile: the one thread is
/// making the call.
fn one_thread() -> Result<(), Errno> {
    nix::sched::unshare(CloneFlags::CLONE_THREAD)
}

/// The address [`tid_cache`] last found to be the C library's thread-id cache (0: none yet),
/// by this process or by the one it was forked from.
static CHECKED_TID_CACHE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The address of the C library's cache of this thread's id: the thread's `clear_child_tid`
/// (`prctl(PR_GET_TID_ADDRESS)`), if it holds this thread's id.
///
/// The value there is read (through `/proc/self/mem`) once per process tree: a child forked
/// since has the same memory layout, and its `clear_child_tid` is the same address only
/// because its fork was asked to write the child's id there (`CLONE_CHILD_SETTID |
/// CLONE_CHILD_CLEARTID`, or glibc's `fork`, which does the same), so the address found and
/// checked once is still the cache. Saves an `open`, a `pread` and a `close` per fork.
fn tid_cache() -> Result<*mut libc::c_int, Errno> {
    use std::sync::atomic::Ordering;
    let mut address: *mut libc::c_int = std::ptr::null_mut();
    // SAFETY: `PR_GET_TID_ADDRESS` stores one pointer at the address passed, a local of that type.
    Errno::result(unsafe { libc::prctl(libc::PR_GET_TID_ADDRESS, &raw mut address) })?;
    if address.is_null() {
        return Err(Errno::ENOTSUP);
    }
    if CHECKED_TID_CACHE.load(Ordering::Relaxed) == address as usize {
        return Ok(address);
    }
    // Read through the kernel (`/proc/self/mem`), so that even a bad address is an error,
    // not a fault.
    let mut value = [0u8; std::mem::size_of::<libc::c_int>()];
    let mem = std::fs::File::open("/proc/self/mem").map_err(|_| Errno::ENOTSUP)?;
    std::os::unix::fs::FileExt::read_exact_at(&mem, &mut value, address as u64)
        .map_err(|_| Errno::ENOTSUP)?;
    if libc::c_int::from_ne_bytes(value) != nix::unistd::gettid().as_raw() {
        return Err(Errno::ENOTSUP);
    }
    CHECKED_TID_CACHE.store(address as usize, Ordering::Relaxed);
    Ok(address)
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;
    use std::path::Path;

    use nix::sys::wait::{WaitStatus, waitpid};

    use super::*;

    #[test]
    fn a_process_with_threads_is_refused() {
        // A second thread for certain, alive during the call (whatever the harness runs on).
        let (stop, wait) = std::sync::mpsc::channel::<()>();
        let other = std::thread::spawn(move || wait.recv());
        assert_eq!(fork_into(None), Err(Errno::EINVAL));
        drop(stop);
        let _ = other.join();
    }

    /// What the child of a one-thread process found wrong, by its exit code (0: nothing).
    const WHAT_FAILED: [&str; 7] = [
        "",
        "a child of fork_into does not have its own thread id in the C library's cache",
        "no thread-id cache found in a one-thread process (glibc expected)",
        "fork_into into the cgroup failed",
        "fork_into without a cgroup failed",
        "the child of fork_into did not end well",
        "the child of fork_into into the cgroup was not born in it",
    ];

    /// In a one-thread process (a child of glibc's `fork` of this test process): both ways of
    /// `fork_into` give a child whose C library knows its own thread id, and the child of the
    /// way into a bot's cgroup is in that cgroup.
    #[test]
    fn the_child_has_its_own_thread_id_and_cgroup() {
        let cgroup = match crate::cgroup::BotCgroup::create(&crate::ResourceLimits::default(), None, false) {
            Ok(cgroup) => Some(cgroup),
            Err(why) => {
                let why = format!("skipped: the way into a cgroup ({why})");
                eprintln!("{why}");
                assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
                None
            }
        };
        let leaf = cgroup.as_ref().and_then(|c| std::fs::File::open(c.path()).ok().map(|f| (c.path(), f)));
        // SAFETY: glibc's `fork` of the (multithreaded) test process. The child only makes
        // system calls, allocates (glibc's `fork` keeps the allocator usable in the child),
        // never prints (another thread may hold std's stdout lock) and ends with `_exit`.
        let forked = unsafe { nix::unistd::fork() }.expect("fork");
        if forked.is_child() {
            let code =
                std::panic::catch_unwind(|| in_one_thread(leaf.as_ref().map(|(p, f)| (*p, f.as_fd()))))
                    .unwrap_or(5);
            // SAFETY: ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(code) }
        }
        let nix::unistd::ForkResult::Parent { child } = forked else { unreachable!("the child exited") };
        let status = waitpid(child, None).expect("waitpid");
        if let Some(cgroup) = cgroup {
            crate::cgroup::wait_until_empty(cgroup.dir(), std::time::Duration::from_secs(5));
            cgroup.remove();
        }
        let WaitStatus::Exited(_, code) = status else { panic!("the test's child: {status:?}") };
        let what = usize::try_from(code).ok().and_then(|c| WHAT_FAILED.get(c)).unwrap_or(&"?");
        assert_eq!(code, 0, "{what}");
    }

    fn in_one_thread(cgroup: Option<(&Path, BorrowedFd<'_>)>) -> i32 {
        if tid_cache().is_err() {
            return 2;
        }
        let ways = cgroup.map(|(path, fd)| (Some(fd), Some(path), 3)).into_iter().chain([(None, None, 4)]);
        for (way, path, failed) in ways {
            match fork_into(way) {
                Ok(Forked::Child) => {
                    // Read the cache again (not the check the parent made): its value must be
                    // this child's own id.
                    CHECKED_TID_CACHE.store(0, std::sync::atomic::Ordering::Relaxed);
                    let own_id = tid_cache().is_ok() && nix::unistd::gettid() == nix::unistd::getpid();
                    let me = std::process::id().to_string();
                    let born_in = path.is_none_or(|path| {
                        std::fs::read_to_string(path.join("cgroup.procs"))
                            .is_ok_and(|p| p.lines().any(|l| l == me))
                    });
                    let code = if !own_id {
                        1
                    } else if !born_in {
                        6
                    } else {
                        0
                    };
                    // SAFETY: ends the grandchild at once.
                    unsafe { libc::_exit(code) }
                }
                Ok(Forked::Parent(child)) => match waitpid(child, None) {
                    Ok(WaitStatus::Exited(_, 0)) => {}
                    Ok(WaitStatus::Exited(_, code @ (1 | 6))) => return code,
                    _ => return 5,
                },
                Err(_) => return failed,
            }
        }
        0
    }
}

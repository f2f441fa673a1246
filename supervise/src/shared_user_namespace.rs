//! One user namespace shared by every sandbox (`--isolation full`) that a spawn server,
//! started by an unprivileged caller, runs as the caller's subordinate ids
//! (`subordinate_ids.rs`), instead of one per sandbox (`docs/supervision.md`, "Identity").
//!
//! Its root stands for the caller and each of the caller's subordinate ranges for itself,
//! written once per server by `newuidmap` and `newgidmap`: the spawn server makes it the first
//! time it is asked for such a sandbox (a child that `unshare`s it and is ended once the server
//! holds a descriptor of it), and each such sandbox's stub joins it (`setns`). There the stub
//! is root, with the sandbox's ids mapped: it takes the root caller's way (no user namespace of
//! its own; it makes the sandbox's network, PID and IPC namespaces with the capabilities it
//! holds there, and the program switches to the sandbox's uid, so holds no capability in it),
//! and no helper is `exec`'d per sandbox (`id_mapper.rs`; a sandbox's start 10.6 → 4.5 ms in
//! `bao-bench bench sandbox` as an unprivileged user, BENCHMARKS.md).
//!
//! Only the user namespace is shared: every sandbox still has a network namespace of its own
//! (made by its stub, `sandbox::enter`), since sandboxes in one network namespace see each
//! other's bound abstract Unix names and ports in `/proc/net` (a channel for data of their
//! choosing, in the names) and collide on them.
//!
//! Made only where the kernel enforces Landlock's scopes (a sandbox can neither signal nor
//! reach an abstract Unix socket of a process outside its Landlock domain) and has seccomp
//! filters; a program whose stub joined it refuses to start without either ([`joined`]).
//! Otherwise, or where it cannot be made (said once on stderr), each sandbox maps its own.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::sched::{CloneFlags, setns, unshare};

use crate::sandbox_profile::IdRange;

/// The shared user namespace, made by the spawn server, inherited by the stubs it forks.
static SHARED: Mutex<Option<OwnedFd>> = Mutex::new(None);
/// Whether the spawn server already tried to make it (once per server).
static TRIED: AtomicBool = AtomicBool::new(false);
/// Set in a stub that joined it (and so in the sandbox's init and program, forked from it).
static JOINED: AtomicBool = AtomicBool::new(false);

/// The Landlock ABI from which the scopes exist.
pub(crate) const SCOPES_ABI: u32 = 6;

/// In the spawn server, before it forks a sandbox's stub: for an unprivileged caller's
/// sandbox with subordinate ids (`subordinate`), makes the shared user namespace if that was
/// not tried yet and the kernel allows (see the module docs); otherwise nothing, and the
/// sandboxes make their own. A failure is said on stderr once.
pub(crate) fn prepare(subordinate: bool) {
    if !subordinate || nix::unistd::geteuid().is_root() || TRIED.swap(true, Ordering::Relaxed) {
        return;
    }
    if !landlock_scopes() || !seccomp_filters() {
        return;
    }
    match make() {
        Ok(made) => {
            if let Ok(mut shared) = SHARED.lock() {
                *shared = Some(made);
            }
        }
        Err(e) => eprintln!("bao-supervise: warning: every sandbox gets a user namespace of its own: {e}"),
    }
}

/// A child makes the user namespace, `newuidmap` and `newgidmap` write its maps, the server
/// opens it, and the child is ended.
fn make() -> Result<OwnedFd, String> {
    use crate::clone_into_cgroup::{Forked, fork_into};
    let ranges = crate::subordinate_ids::own_ranges()?;
    let pipe =
        || nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| format!("cannot make a pipe: {e}"));
    let (ready_read, ready_write) = pipe()?;
    let (hold_read, hold_write) = pipe()?;
    let child = match fork_into(None).map_err(|e| format!("cannot fork: {e}"))? {
        Forked::Child => {
            drop((ready_read, hold_write));
            let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
            let made = unshare(CloneFlags::CLONE_NEWUSER).map_err(|e| e.to_string());
            let word: &[u8] = match &made {
                Ok(()) => b"y",
                Err(e) => e.as_bytes(),
            };
            let _ = nix::unistd::write(&ready_write, word);
            drop(ready_write);
            // Until the server holds the namespace (it closes the pipe).
            let _ = nix::unistd::read(&hold_read, &mut [0u8; 1]);
            crate::exec_stub::exit_forked(0)
        }
        Forked::Parent(pid) => pid,
    };
    drop((ready_write, hold_read));
    let outcome = hold_namespace(child, &ready_read, &ranges);
    drop(hold_write);
    let _ = nix::sys::wait::waitpid(child, None);
    outcome
}

/// In the server: waits for the child's word, writes the subordinate maps (`ranges`), opens
/// the child's user namespace.
fn hold_namespace(
    child: nix::unistd::Pid,
    ready: &OwnedFd,
    (uids, gids): &(Vec<IdRange>, Vec<IdRange>),
) -> Result<OwnedFd, String> {
    let mut word = [0u8; 256];
    let n = loop {
        match nix::unistd::read(ready, &mut word) {
            Err(nix::errno::Errno::EINTR) => {}
            other => break other.unwrap_or(0),
        }
    };
    if &word[..n] != b"y" {
        return Err(format!(
            "cannot make the sandboxes' user namespace: {}",
            String::from_utf8_lossy(&word[..n])
        ));
    }
    let own = (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw());
    map_with("newuidmap", child, own.0, uids)?;
    map_with("newgidmap", child, own.1, gids)?;
    let path = format!("/proc/{child}/ns/user");
    std::fs::File::open(&path).map(OwnedFd::from).map_err(|e| format!("cannot open {path}: {e}"))
}

/// Runs `tool` (`newuidmap` or `newgidmap`) for `pid`: root stands for `own`, each of
/// `ranges` for itself.
fn map_with(tool: &str, pid: nix::unistd::Pid, own: u32, ranges: &[IdRange]) -> Result<(), String> {
    let path = crate::subordinate_ids::tool(tool).ok_or_else(|| format!("no {tool} on this system"))?;
    if ranges.iter().any(|r| r.first == 0 || (r.first..r.first.saturating_add(r.count)).contains(&own)) {
        return Err(format!("a subordinate range of this user holds id 0 or its own id {own}"));
    }
    let mut command = std::process::Command::new(&path);
    command.arg(pid.to_string()).args(["0", &own.to_string(), "1"]);
    for range in ranges {
        command.args([range.first.to_string(), range.first.to_string(), range.count.to_string()]);
    }
    let output = command
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{tool} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(())
}

/// Whether the kernel enforces Landlock's scopes (a ruleset asking for them as a hard
/// requirement can be made).
fn landlock_scopes() -> bool {
    use landlock::{CompatLevel, Compatible, Ruleset, RulesetAttr, Scope};
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .and_then(Ruleset::create)
        .is_ok()
}

/// Whether the kernel has seccomp filters (`/proc/self/status` counts them).
fn seccomp_filters() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| status.contains("\nSeccomp_filters:"))
}

/// In a stub, before its namespaces are made: for a sandbox with subordinate ids
/// (`subordinate`), joins the shared user namespace if the spawn server made it (otherwise the
/// sandbox maps its own). The descriptor is closed here either way: no init or program holds
/// it.
pub(crate) fn join(subordinate: bool) -> Result<(), String> {
    let shared = SHARED.lock().ok().and_then(|mut shared| shared.take());
    let Some(user) = shared.filter(|_| subordinate) else {
        return Ok(());
    };
    setns(user.as_fd(), CloneFlags::CLONE_NEWUSER)
        .map_err(|e| format!("cannot join the sandboxes' user namespace: {e}"))?;
    JOINED.store(true, Ordering::Relaxed);
    Ok(())
}

/// Whether this process's stub joined the shared user namespace (then the program must not
/// start without Landlock's scopes and the seccomp filter).
pub(crate) fn joined() -> bool {
    JOINED.load(Ordering::Relaxed)
}

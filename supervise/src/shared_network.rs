//! One empty network namespace shared by every sandbox (`--isolation full`) a spawn server
//! starts, instead of a new one per bot (`docs/supervision.md`, "The sandbox's network").
//!
//! A new network namespace cost each bot 0.7–0.8 ms in the stub's `unshare` alone, and 0.2–2.9
//! ms of its start in side-by-side runs at loads of 7–11 (`bao-bench bench sandbox`, `pid`
//! against `pid+no-network`, and its `--stages`): the kernel registers a loopback device, its
//! sysctl tables and per-protocol state, and later tears them down. The spawn server
//! (`spawn_server.rs`) makes one, with only its loopback device, down, the first time it is
//! asked for a sandbox, keeps a descriptor of it, and each sandbox's stub joins it (`setns`)
//! instead of unsharing a namespace of its own.
//!
//! What keeps sandboxes that share it from reaching one another, all of which must hold or
//! the namespace is not shared (each bot then gets a namespace of its own, as before):
//! - the caller is root: the namespace belongs to the host's user namespace, where a sandbox
//!   holds no capability, so no sandbox can bring the loopback up or give it an address —
//!   with it down, no IP packet reaches anyone (to 127.0.0.1 `ENETUNREACH`; to 0.0.0.0 it
//!   goes to the downed loopback, which drops it); for an unprivileged caller, the same
//!   holds one level down: the spawn server makes one user namespace for its sandboxes
//!   (below), which owns the shared network namespace, and every sandbox's program runs in it
//!   or below it without a capability there;
//! - Landlock scopes (ABI 6 and later): no sandbox can connect or send to an abstract Unix
//!   socket bound by a process outside its own Landlock domain (abstract names are per
//!   network namespace), nor signal one; checked here once as a hard requirement, and again
//!   by each program's process, which refuses to start without them (`joined`);
//! - Landlock's TCP rules refuse every TCP `bind` and `connect` besides;
//! - the seccomp filter refuses netlink sockets but `NETLINK_ROUTE` (`NETLINK_USERSOCK` lets
//!   unprivileged processes of one namespace message each other), and every socket family
//!   but Unix, IP and netlink; a program whose filter cannot be installed is not started.
//!
//! An unprivileged caller cannot make a network namespace outside a user namespace of its
//! own, and a sandbox may join a network namespace only from the user namespace that owns it
//! (or one it descends from). So the spawn server makes, once, a user namespace with the
//! network namespace (a child that `unshare`s both and is ended once the server holds a
//! descriptor of each), and every sandbox's stub joins both (`setns`) before it goes on.
//! Which ids that user namespace maps decides who joins it:
//! - where the caller's sandboxes run as its subordinate ids (`subordinate_ids.rs`), its root
//!   stands for the caller and each of the caller's subordinate ranges stands for itself,
//!   written once by `newuidmap` and `newgidmap`. A stub that joins it is root there, with
//!   the sandbox's ids mapped: it takes the root caller's way (no user namespace of its own,
//!   the program switches to the sandbox's uid and so holds no capability in it), and no
//!   helper is `exec`'d per sandbox (`id_mapper.rs`; a sandbox's start 10.6 → 4.5 ms in
//!   `bao-bench bench sandbox` as an unprivileged user, BENCHMARKS.md);
//! - where they run as the caller's uid, it maps that uid to itself (written by the child),
//!   and each sandbox makes its own user namespace below it, as before.
//!
//! A sandbox of the other kind (a sandbox with subordinate ids from a server whose first
//! sandbox had none, or the reverse) makes its own network namespace, as before.
//!
//! What sandboxes sharing it can still see of each other: the socket tables of `/proc/net`
//! (which ports and abstract names are bound), a channel no more than the shared CPU load or
//! `/proc/loadavg` that any two programs on one machine have; no data can be sent. And the
//! names: a second sandbox binding the same abstract Unix name or UDP port gets `EADDRINUSE`.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::sched::{CloneFlags, setns, unshare};

use crate::sandbox_profile::IdRange;

/// What the spawn server made: the network namespace, and for an unprivileged caller the user
/// namespace that owns it.
struct Shared {
    /// The empty network namespace.
    network: OwnedFd,
    /// An unprivileged caller's: the user namespace, and whether it maps the caller's
    /// subordinate ids (then only stubs of sandboxes with subordinate ids join it; otherwise
    /// only those without).
    user: Option<(OwnedFd, bool)>,
}

/// The shared namespaces, made by the spawn server, inherited by the stubs it forks.
static SHARED: Mutex<Option<Shared>> = Mutex::new(None);
/// Whether the spawn server already tried to make it (once per server).
static TRIED: AtomicBool = AtomicBool::new(false);
/// Set in a stub that joined it (and so in the sandbox's init and program, forked from it).
static JOINED: AtomicBool = AtomicBool::new(false);

/// The Landlock ABI from which the scopes exist.
pub(crate) const SCOPES_ABI: u32 = 6;

/// In the spawn server, before it forks a sandbox's stub: makes the shared namespace if it
/// was not tried yet and this caller may share one (see the module docs; `separate_user`:
/// whether this first sandbox runs as a uid of its own, which for an unprivileged caller
/// means its subordinate ids); otherwise nothing, and the sandboxes make their own. A failure
/// is said on stderr once.
pub(crate) fn prepare(separate_user: bool) {
    if TRIED.swap(true, Ordering::Relaxed) {
        return;
    }
    match make(separate_user) {
        Ok(Some(made)) => {
            if let Ok(mut shared) = SHARED.lock() {
                *shared = Some(made);
            }
        }
        Ok(None) => {}
        Err(e) => eprintln!("bao-supervise: warning: every sandbox gets a network namespace of its own: {e}"),
    }
}

/// Whether this caller may share one namespace, and if so the namespace, made.
fn make(separate_user: bool) -> Result<Option<Shared>, String> {
    if !landlock_scopes() || !seccomp_filters() {
        return Ok(None);
    }
    if !nix::unistd::geteuid().is_root() {
        return make_unprivileged(separate_user).map(Some);
    }
    let open = |what: &str| {
        std::fs::File::open("/proc/thread-self/ns/net")
            .map(OwnedFd::from)
            .map_err(|e| format!("cannot open {what} network namespace: {e}"))
    };
    let home = open("this process's")?;
    unshare(CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("cannot make the shared network namespace: {e}"))?;
    let shared = open("the shared");
    if let Err(e) = setns(home.as_fd(), CloneFlags::CLONE_NEWNET) {
        // Never seen (root may always go back); the server would start every later stub in
        // the empty namespace, which is no hole, but `--isolation pid` bots would lose their
        // network: stop serving instead.
        eprintln!("bao-supervise: cannot go back to the host's network namespace: {e}");
        std::process::exit(1);
    }
    shared.map(|network| Some(Shared { network, user: None }))
}

/// An unprivileged caller's: a child makes the user and network namespaces, their maps are
/// written (by the child itself for the caller's own ids, by `newuidmap` and `newgidmap` for
/// `subordinate` ids), the server opens both, and the child is ended.
fn make_unprivileged(subordinate: bool) -> Result<Shared, String> {
    use crate::clone_into_cgroup::{Forked, fork_into};
    let ranges = if subordinate { Some(crate::subordinate_ids::own_ranges()?) } else { None };
    let pipe =
        || nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| format!("cannot make a pipe: {e}"));
    let (ready_read, ready_write) = pipe()?;
    let (hold_read, hold_write) = pipe()?;
    let child = match fork_into(None).map_err(|e| format!("cannot fork: {e}"))? {
        Forked::Child => {
            drop((ready_read, hold_write));
            let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
            let made = if subordinate {
                unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET).map_err(|e| e.to_string())
            } else {
                crate::sandbox::enter_network_namespace()
            };
            let word: &[u8] = match &made {
                Ok(()) => b"y",
                Err(e) => e.as_bytes(),
            };
            let _ = nix::unistd::write(&ready_write, word);
            drop(ready_write);
            // Until the server holds both namespaces (it closes the pipe).
            let _ = nix::unistd::read(&hold_read, &mut [0u8; 1]);
            crate::exec_stub::exit_forked(0)
        }
        Forked::Parent(pid) => pid,
    };
    drop((ready_write, hold_read));
    let outcome = hold_namespaces(child, &ready_read, ranges.as_ref());
    drop(hold_write);
    let _ = nix::sys::wait::waitpid(child, None);
    outcome
}

/// In the server: waits for the child's word, writes the subordinate maps (`ranges`), opens
/// the child's namespaces.
fn hold_namespaces(
    child: nix::unistd::Pid,
    ready: &OwnedFd,
    ranges: Option<&(Vec<IdRange>, Vec<IdRange>)>,
) -> Result<Shared, String> {
    let mut word = [0u8; 256];
    let n = loop {
        match nix::unistd::read(ready, &mut word) {
            Err(nix::errno::Errno::EINTR) => {}
            other => break other.unwrap_or(0),
        }
    };
    if &word[..n] != b"y" {
        return Err(format!(
            "cannot make the sandboxes' user and network namespaces: {}",
            String::from_utf8_lossy(&word[..n])
        ));
    }
    if let Some((uids, gids)) = ranges {
        let own = (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw());
        map_with("newuidmap", child, own.0, uids)?;
        map_with("newgidmap", child, own.1, gids)?;
    }
    let open = |kind: &str| {
        let path = format!("/proc/{child}/ns/{kind}");
        std::fs::File::open(&path).map(OwnedFd::from).map_err(|e| format!("cannot open {path}: {e}"))
    };
    Ok(Shared { network: open("net")?, user: Some((open("user")?, ranges.is_some())) })
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

/// In a stub, before its user namespace is made: for a sandbox (`sandbox`), joins the shared
/// namespaces if the spawn server made them and they are for this sandbox's kind
/// (`separate_user`: whether it runs as a uid of its own); whether it did (otherwise the
/// caller makes its own network namespace). The descriptors are closed here either way: no
/// init or program holds them.
pub(crate) fn join(sandbox: bool, separate_user: bool) -> Result<bool, String> {
    let shared = SHARED.lock().ok().and_then(|mut shared| shared.take());
    let Some(shared) = shared.filter(|_| sandbox) else {
        return Ok(false);
    };
    if let Some((user, subordinate)) = &shared.user {
        if *subordinate != separate_user {
            return Ok(false);
        }
        setns(user.as_fd(), CloneFlags::CLONE_NEWUSER)
            .map_err(|e| format!("cannot join the sandboxes' user namespace: {e}"))?;
    }
    setns(shared.network.as_fd(), CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("cannot join the sandboxes' network namespace: {e}"))?;
    JOINED.store(true, Ordering::Relaxed);
    Ok(true)
}

/// Whether this process's stub joined the shared namespace (then the program must not start
/// without Landlock's scopes and the seccomp filter).
pub(crate) fn joined() -> bool {
    JOINED.load(Ordering::Relaxed)
}

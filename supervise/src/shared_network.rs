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
//!   goes to the downed loopback, which drops it); an unprivileged
//!   caller's sandboxes would need a namespace owned by a user namespace that each of theirs
//!   descends from (not done: each bot gets its own namespace there);
//! - Landlock scopes (ABI 6 and later): no sandbox can connect or send to an abstract Unix
//!   socket bound by a process outside its own Landlock domain (abstract names are per
//!   network namespace), nor signal one; checked here once as a hard requirement, and again
//!   by each program's process, which refuses to start without them (`joined`);
//! - Landlock's TCP rules refuse every TCP `bind` and `connect` besides;
//! - the seccomp filter refuses netlink sockets but `NETLINK_ROUTE` (`NETLINK_USERSOCK` lets
//!   unprivileged processes of one namespace message each other), and every socket family
//!   but Unix, IP and netlink; a program whose filter cannot be installed is not started.
//!
//! What sandboxes sharing it can still see of each other: the socket tables of `/proc/net`
//! (which ports and abstract names are bound), a channel no more than the shared CPU load or
//! `/proc/loadavg` that any two programs on one machine have; no data can be sent. And the
//! names: a second sandbox binding the same abstract Unix name or UDP port gets `EADDRINUSE`.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::sched::{CloneFlags, setns, unshare};

/// The shared namespace, made by the spawn server, inherited by the stubs it forks.
static SHARED: Mutex<Option<OwnedFd>> = Mutex::new(None);
/// Whether the spawn server already tried to make it (once per server).
static TRIED: AtomicBool = AtomicBool::new(false);
/// Set in a stub that joined it (and so in the sandbox's init and program, forked from it).
static JOINED: AtomicBool = AtomicBool::new(false);

/// The Landlock ABI from which the scopes exist.
pub(crate) const SCOPES_ABI: u32 = 6;

/// In the spawn server, before it forks a sandbox's stub: makes the shared namespace if it
/// was not tried yet and this caller may share one (see the module docs); otherwise nothing,
/// and the sandboxes make their own. A failure is said on stderr once.
pub(crate) fn prepare() {
    if TRIED.swap(true, Ordering::Relaxed) {
        return;
    }
    match make() {
        Ok(Some(namespace)) => {
            if let Ok(mut shared) = SHARED.lock() {
                *shared = Some(namespace);
            }
        }
        Ok(None) => {}
        Err(e) => eprintln!("bao-supervise: warning: every sandbox gets a network namespace of its own: {e}"),
    }
}

/// Whether this caller may share one namespace, and if so the namespace, made.
fn make() -> Result<Option<OwnedFd>, String> {
    if !nix::unistd::geteuid().is_root() || !landlock_scopes() || !seccomp_filters() {
        return Ok(None);
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
    shared.map(Some)
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
/// namespace if the spawn server made one; whether it did (otherwise the caller makes its
/// own). The descriptor is closed here either way: no init or program holds it.
pub(crate) fn join(sandbox: bool) -> Result<bool, String> {
    let namespace = SHARED.lock().ok().and_then(|mut shared| shared.take());
    let Some(namespace) = namespace.filter(|_| sandbox) else {
        return Ok(false);
    };
    setns(namespace.as_fd(), CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("cannot join the sandboxes' network namespace: {e}"))?;
    JOINED.store(true, Ordering::Relaxed);
    Ok(true)
}

/// Whether this process's stub joined the shared namespace (then the program must not start
/// without Landlock's scopes and the seccomp filter).
pub(crate) fn joined() -> bool {
    JOINED.load(Ordering::Relaxed)
}

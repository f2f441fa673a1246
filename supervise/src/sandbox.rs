//! The namespaces of an isolated bot, set up by the re-exec stub (`docs/supervision.md`,
//! "Isolation").
//!
//! In two steps:
//! 1. [`enter`], in the stub before it forks the namespace's init: a new user namespace (the
//!    stub's uid and gid mapped to root inside, so that the init may mount; the bot gets its
//!    own ids back in step 2, and holds no capability outside its namespaces), PID namespace,
//!    IPC namespace, and with `no_network` a network namespace (every sandbox has one of its
//!    own). When the referee is root and the bot is to run under a separate uid, no user
//!    namespace is made: the init drops to that uid instead; so too in a stub that joined the
//!    user namespace its spawn server made for sandboxes with subordinate ids
//!    (`shared_user_namespace.rs`), where it is root. Otherwise, when it is not root and the
//!    bot runs under a separate uid of its subordinate ids, `newuidmap` and `newgidmap` write
//!    the maps from outside (`id_mapper.rs`): root inside for the stub's ids, and the bot's
//!    ids as themselves.
//! 2. [`prepare_init`], in the init (pid 1 of the new PID namespace): a mount namespace of its
//!    own (made here, not by the outer stub, so that only the init's exit tears one down, and
//!    nobody waits for that), every mount made private
//!    (nothing propagates back to the host), a fresh `/proc` that shows only the namespace's
//!    processes, an empty read-only tmpfs over `/sys/fs/cgroup`, then either the switch to
//!    the separate uid, or a second user and mount namespace that locks those mounts (so that
//!    a bot running as root inside cannot unmount its `/proc` and find the host's below it).
//!    Before that, the namespace's next pid is moved past the outer stub's host pid
//!    ([`spread_pids`]), so that two bots running at once do not both get pid 2.

use std::path::Path;

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::unistd::{Gid, Uid, getegid, geteuid};

use crate::exec_stub::short_text;

/// A separate unprivileged user for the bot (only when the referee runs as root).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BotUser {
    /// The uid.
    pub(crate) uid: u32,
    /// The gid.
    pub(crate) gid: u32,
}

/// The ids outside the user namespace [`enter`] made that its root (0) stands for: the
/// stub's own effective uid and gid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MappedIds {
    uid: u32,
    gid: u32,
}

/// Step 1: unshares the namespaces (the PID namespace applies to the children forked next);
/// the ids the new user namespace's root stands for, if one was made (for [`prepare_init`]).
pub(crate) fn enter(no_network: bool, user: Option<BotUser>) -> Result<Option<MappedIds>, String> {
    let uid = geteuid();
    let gid = getegid();
    // No mount namespace here: the init makes its own (see `prepare_init`), so that the outer
    // stub's exit does not tear one down (which waits for RCU grace periods).
    let mut flags = CloneFlags::CLONE_NEWPID | CloneFlags::CLONE_NEWIPC;
    if no_network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    let user_namespace = !(user.is_some() && uid.is_root());
    if user_namespace {
        flags |= CloneFlags::CLONE_NEWUSER;
    }
    // An unprivileged caller's separate user (its subordinate ids): mapped by helpers started
    // outside the namespace, so before it is made (see `id_mapper`).
    let mapper = user.filter(|_| user_namespace).map(crate::id_mapper::start).transpose()?;
    unshare(flags).map_err(|e| format!("cannot create the namespaces ({flags:?}): {e}"))?;
    if user_namespace {
        // Root inside: the init (a fork of this process) has every capability in the
        // namespace, to mount the bot's /proc (the bot gets its own ids back in `lock_mounts`,
        // or switches to its separate user, mapped as itself beside root).
        match mapper {
            Some(mapper) => mapper.finish()?,
            None => map_ids((Uid::from_raw(0), uid), (Gid::from_raw(0), gid))?,
        }
        return Ok(Some(MappedIds { uid: uid.as_raw(), gid: gid.as_raw() }));
    }
    Ok(None)
}

/// Only a network namespace (`--isolation none --no-network`), with a user namespace when
/// not root (an unprivileged process may create one only from inside a user namespace).
pub(crate) fn enter_network_namespace() -> Result<(), String> {
    let uid = geteuid();
    let gid = getegid();
    let mut flags = CloneFlags::CLONE_NEWNET;
    if !uid.is_root() {
        flags |= CloneFlags::CLONE_NEWUSER;
    }
    unshare(flags).map_err(|e| format!("cannot create the namespaces ({flags:?}): {e}"))?;
    if !uid.is_root() {
        map_ids((uid, uid), (gid, gid))?;
    }
    Ok(())
}

/// Step 2, in the namespace's init: its own mount namespace with private mounts, its own
/// `/proc`, no cgroup file system,
/// the bot's pid moved past `pid_base` (see [`spread_pids`]), then the separate uid or a
/// locking user namespace (`mapped`: what [`enter`] said, or `None` to read it from
/// `/proc/self/uid_map` and `gid_map`).
///
/// Returns, after the locking namespace, a descriptor of the first mount namespace, for the
/// init to keep open until it exits (see [`lock_mounts`]).
pub(crate) fn prepare_init(
    user: Option<BotUser>,
    pid_base: Option<u32>,
    mapped: Option<MappedIds>,
) -> Result<Option<std::fs::File>, String> {
    unshare(CloneFlags::CLONE_NEWNS).map_err(|e| format!("cannot create the mount namespace: {e}"))?;
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|e| format!("cannot make the mounts private: {e}"))?;
    let hardened = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
    mount(Some("proc"), "/proc", Some("proc"), hardened, none)
        .map_err(|e| format!("cannot mount a private /proc: {e}"))?;
    let cgroup_fs = Path::new("/sys/fs/cgroup");
    if cgroup_fs.is_dir() {
        mount(
            Some("tmpfs"),
            cgroup_fs,
            Some("tmpfs"),
            hardened | MsFlags::MS_RDONLY,
            Some("size=4k,mode=555"),
        )
        .map_err(|e| format!("cannot hide {}: {e}", cgroup_fs.display()))?;
    }
    if let Some(base) = pid_base {
        spread_pids(base);
    }
    match user {
        Some(user) if geteuid().is_root() => switch_user(user).map(|()| None),
        _ => lock_mounts(mapped),
    }
}

/// Step 2 of the sandbox (`--isolation full`), in the namespace's init: its own mount
/// namespace with private mounts, the new root (`sandbox_root`), the program's pid moved past
/// `pid_base`. The init keeps its ids and capabilities in the namespaces (for the copy back of
/// a writable folder); the program's process, forked next, drops them
/// ([`switch_user`] or [`lock_mounts`]).
pub(crate) fn prepare_sandbox(
    plan: &crate::sandbox_root::RootPlan<'_>,
    pid_base: u32,
) -> Result<crate::sandbox_root::BuiltRoot, String> {
    unshare(CloneFlags::CLONE_NEWNS).map_err(|e| format!("cannot create the mount namespace: {e}"))?;
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|e| format!("cannot make the mounts private: {e}"))?;
    let built = crate::sandbox_root::build(plan)?;
    spread_pids(pid_base);
    Ok(built)
}

/// Makes the namespace's next process get the pid after `base` (the outer stub's host pid,
/// which no other running bot's stub has) instead of 2.
///
/// Programs name files in shared directories after their pid: the JVM keeps
/// `/tmp/hsperfdata_USER/PID` locked, so two Java bots that were both pid 2 in their
/// namespaces could not run at once (the second wrote "Cannot use file ... because it is
/// locked by another process" on stdout). The bot's own children may still meet another bot's
/// pids. Best effort: where the kernel refuses (it needs `CAP_SYS_ADMIN` in the namespace, held
/// here until the mounts are locked), the bot is pid 2 as before.
fn spread_pids(base: u32) {
    if let Some(text) = short_text(format_args!("{base}")) {
        let _ = std::fs::write("/proc/sys/kernel/ns_last_pid", text.as_bytes());
    }
}

/// Becomes the separate unprivileged user (no supplementary groups; every capability is
/// lost with the uid).
pub(crate) fn switch_user(user: BotUser) -> Result<(), String> {
    let (uid, gid) = (Uid::from_raw(user.uid), Gid::from_raw(user.gid));
    nix::unistd::setgroups(&[]).map_err(|e| format!("cannot drop the supplementary groups: {e}"))?;
    nix::unistd::setresgid(gid, gid, gid).map_err(|e| format!("cannot switch to gid {gid}: {e}"))?;
    nix::unistd::setresuid(uid, uid, uid).map_err(|e| format!("cannot switch to uid {uid}: {e}"))?;
    Ok(())
}

/// A second user and mount namespace: the kernel locks every mount inherited from a more
/// privileged mount namespace, so the bot can neither unmount its `/proc` nor the tmpfs over
/// the cgroup file system, even as root of its namespace. In it the bot has its own uid and
/// gid again (those of the referee), mapped to root of the first namespace (`mapped`, or read
/// from its maps).
///
/// Returns a descriptor of the first mount namespace (close-on-exec: the bot does not get
/// it), opened before it is left, if it could be opened (best effort: without it the kernel
/// frees the namespace inside the `unshare`, as before). Leaving it drops its last reference,
/// and the kernel would free it inside this `unshare` — waiting for RCU grace periods on the
/// bot's start path (`bench spawn`'s `ns-floor-keep-mntns`: 180 µs median, up to 7 ms, against
/// 44 µs with the namespace held; about 0.23 ms of wall a bot). Held by the init until it
/// exits, it is freed then, when nobody waits for it; until then each bot holds two mount
/// namespaces (two copies of the host's mount table, counted against
/// `user.max_mnt_namespaces`).
pub(crate) fn lock_mounts(mapped: Option<MappedIds>) -> Result<Option<std::fs::File>, String> {
    let (host_uid, host_gid) = match mapped {
        Some(ids) => (ids.uid, ids.gid),
        None => (outside_id("/proc/self/uid_map")?, outside_id("/proc/self/gid_map")?),
    };
    let uid = geteuid();
    let gid = getegid();
    let first = std::fs::File::open("/proc/self/ns/mnt").ok();
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
        .map_err(|e| format!("cannot create the locking user namespace: {e}"))?;
    map_ids((Uid::from_raw(host_uid), uid), (Gid::from_raw(host_gid), gid))?;
    Ok(first)
}

/// The id outside the current user namespace that its id 0 stands for (from a one-line
/// `/proc/self/uid_map` or `gid_map`: `0 OUTSIDE 1`).
fn outside_id(map: &str) -> Result<u32, String> {
    let text = std::fs::read_to_string(map).map_err(|e| format!("cannot read {map}: {e}"))?;
    let mut fields = text.split_whitespace();
    match (fields.next(), fields.next()) {
        (Some("0"), Some(outside)) => outside.parse().map_err(|_| format!("{map} is {text:?}")),
        _ => Err(format!("{map} does not map id 0: {text:?}")),
    }
}

/// Writes the id maps of a user namespace just created: one id inside for the process's own
/// id outside, as `(inside, outside)` pairs (the only map a process may write for itself once
/// inside; the kernel requires `setgroups` to be denied first). Files of other users appear
/// as owned by the overflow id `nobody`.
fn map_ids((uid, outside_uid): (Uid, Uid), (gid, outside_gid): (Gid, Gid)) -> Result<(), String> {
    // Formatted on the stack (see `ShortText`).
    let write = |file: &str, text: std::fmt::Arguments<'_>| {
        let text = short_text(text).ok_or_else(|| format!("{text} is too long for {file}"))?;
        std::fs::write(file, text.as_bytes())
            .map_err(|e| format!("cannot write {:?} to {file}: {e}", text.as_str()))
    };
    match std::fs::write("/proc/self/setgroups", "deny") {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot write \"deny\" to /proc/self/setgroups: {e}"));
        }
        _ => {}
    }
    write("/proc/self/uid_map", format_args!("{uid} {outside_uid} 1"))?;
    write("/proc/self/gid_map", format_args!("{gid} {outside_gid} 1"))
}

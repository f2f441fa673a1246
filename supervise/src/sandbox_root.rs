//! The sandbox's new root (`--isolation full`), built by the namespace's init in its own
//! mount namespace, before the program's process is forked (`docs/supervision.md`, "The
//! sandbox"):
//!
//! ```text
//! /            tmpfs, read-only (only the mount points below)
//! /usr /etc …  read-only binds of the host's system folders (/lib, /bin… as the host's links)
//! /etc/shadow  …and the other secrets: an empty read-only file (or folder) over each
//! /opt/…       the profile's read-only paths, bound read-only at the same place
//! /PROGRAM/DIR the program's folder: read-only bind, or a size-limited tmpfs copy (build)
//! /tmp         a private tmpfs of `tmp_mib` (TMPDIR), also at /dev/shm
//! /dev         null zero full random urandom tty (binds of the host's nodes), fd, std*
//! /proc        the sandbox's own PID namespace
//! /.oldroot    an empty tmpfs of mode 000, over the host's root
//! ```
//!
//! The steps, as bubblewrap takes them: a tmpfs is mounted on `/tmp` and made the root
//! (`pivot_root`), the host's root then being at `/oldroot` (the tmpfs moved away from its
//! `/tmp`, which shows the host's `/tmp` again); the new root is built in `/newroot` from
//! binds of `/oldroot/…`; a second `pivot_root` makes it the root, the old one going to
//! `/.oldroot`, under an empty tmpfs (not detached: see [`build`]). Binds are not recursive:
//! mounts below a bound folder are not shown.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sys::statvfs::{FsFlags, statvfs};

use crate::sandbox::BotUser;

/// The host's system folders every sandbox shows read-only (those that exist; a link, such
/// as `/lib -> usr/lib`, is recreated as the same link).
pub(crate) const SYSTEM_PATHS: [&str; 8] =
    ["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc"];

/// Files of `/etc` hidden behind an empty file of mode 000: passwords, their backups.
const SECRET_FILES: [&str; 6] =
    ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd", "/etc/sudoers"];
/// Folders of `/etc` hidden behind an empty folder of mode 000: private keys, sudo rules.
const SECRET_DIRS: [&str; 3] = ["/etc/ssl/private", "/etc/sudoers.d", "/etc/ssh/keys"];
/// Where the host's root goes in the new root (hidden under an empty tmpfs), as a path from
/// the new root's folder and as the folder made for it before the new root is entered.
const OLD_ROOT_NAME: &str = ".oldroot";
const OLD_ROOT_IN_NEW: &str = "/newroot/.oldroot";
/// The devices bound into `/dev`.
const DEVICES: [&str; 6] = ["null", "zero", "full", "random", "urandom", "tty"];

/// What to build.
#[derive(Debug)]
pub(crate) struct RootPlan<'a> {
    /// The program's folder on the host (canonical): the working directory.
    pub(crate) program_dir: &'a Path,
    /// The folder writable in a tmpfs of this many MiB (a build), or read-only.
    pub(crate) writable_mib: Option<u64>,
    /// More host paths to show read-only.
    pub(crate) read_only: &'a [PathBuf],
    /// The size of `/tmp`, in MiB.
    pub(crate) tmp_mib: u64,
    /// The sandbox's own user (a root caller), who must own `/tmp` and the folder's copy.
    pub(crate) owner: Option<BotUser>,
}

/// What the init keeps from the host once in the new root.
#[derive(Debug)]
pub(crate) struct BuiltRoot {
    /// The host's program folder, for the copy back of a writable folder (close-on-exec).
    pub(crate) host_program_dir: Option<OwnedFd>,
}

/// Every path the program sees, with whether it may write there (for Landlock).
pub(crate) fn visible_paths(plan: &RootPlan<'_>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut read_only: Vec<PathBuf> = SYSTEM_PATHS.iter().map(PathBuf::from).collect();
    read_only.extend(plan.read_only.iter().cloned());
    // /dev is a read-only tmpfs: what may be written there are its devices (/dev/null).
    let mut writable = vec![PathBuf::from("/tmp"), PathBuf::from("/proc"), PathBuf::from("/dev")];
    match plan.writable_mib {
        Some(_) => writable.push(plan.program_dir.to_path_buf()),
        None => read_only.push(plan.program_dir.to_path_buf()),
    }
    (read_only, writable)
}

/// Builds the new root and enters it (see the module docs); the working directory is then
/// the program's folder. Call in a fresh mount namespace whose mounts are private.
pub(crate) fn build(plan: &RootPlan<'_>) -> Result<BuiltRoot, String> {
    if plan.program_dir == Path::new("/") {
        return Err("the program's folder may not be / in the sandbox".to_owned());
    }
    let none: Option<&str> = None;
    let base = Path::new("/tmp");
    mount(
        Some("tmpfs"),
        base,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("size=1m,mode=755"),
    )
    .map_err(|e| format!("cannot mount the sandbox's base tmpfs: {e}"))?;
    std::env::set_current_dir(base).map_err(|e| format!("cannot enter the base tmpfs: {e}"))?;
    for dir in ["newroot", "oldroot"] {
        std::fs::create_dir(dir).map_err(|e| format!("cannot create /tmp/{dir}: {e}"))?;
    }
    nix::unistd::pivot_root(".", "oldroot").map_err(|e| format!("cannot pivot into the base tmpfs: {e}"))?;
    std::env::set_current_dir("/").map_err(|e| format!("cannot enter the base tmpfs: {e}"))?;
    crate::stage_times::mark("root-base");
    // Mode 000: a secret's cover cannot even be opened by the program (`EACCES`).
    std::fs::write("/empty", b"").map_err(|e| format!("cannot create /empty: {e}"))?;
    std::fs::create_dir("/emptydir").map_err(|e| format!("cannot create /emptydir: {e}"))?;
    for cover in ["/empty", "/emptydir"] {
        std::fs::set_permissions(cover, std::os::unix::fs::PermissionsExt::from_mode(0o000))
            .map_err(|e| format!("cannot protect {cover}: {e}"))?;
    }
    mount(
        Some("tmpfs"),
        "/newroot",
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("size=1m,nr_inodes=4096,mode=755"),
    )
    .map_err(|e| format!("cannot mount the new root: {e}"))?;

    // /tmp, then /dev (whose /dev/shm is /tmp again), first: a read-only path or the
    // program's folder may lie below /tmp.
    let tmp = Path::new("/newroot/tmp");
    make_dir(tmp)?;
    let tmp_options = format!("size={}m,mode=1777", plan.tmp_mib.max(1));
    mount(
        Some("tmpfs"),
        tmp,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(tmp_options.as_str()),
    )
    .map_err(|e| format!("cannot mount the sandbox's /tmp: {e}"))?;
    build_dev()?;
    crate::stage_times::mark("root-tmp-dev");

    for path in SYSTEM_PATHS {
        bind_host(Path::new(path), true)?;
    }
    for path in SECRET_FILES {
        mask(Path::new(path), "/empty")?;
    }
    for path in SECRET_DIRS {
        mask(Path::new(path), "/emptydir")?;
    }
    mask_ssh_host_keys()?;
    for path in plan.read_only {
        bind_host(path, false)?;
    }
    crate::stage_times::mark("root-system");

    let host_program_dir = program_dir(plan)?;
    crate::stage_times::mark("root-program");

    let proc = Path::new("/newroot/proc");
    make_dir(proc)?;
    mount(
        Some("proc"),
        proc,
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        none,
    )
    .map_err(|e| format!("cannot mount the sandbox's /proc: {e}"))?;

    // The host's root goes to /.oldroot, under an empty read-only tmpfs of mode 000, instead
    // of being detached: a detach waits for an RCU grace period (4.5 ms measured here, on the
    // bot's start path); the mounts below are freed when the namespace ends, when nobody
    // waits. The program cannot uncover them: it has no capability, its seccomp filter
    // refuses every mount call, a user namespace caller's mounts are locked, and Landlock
    // does not let it reach /.oldroot.
    crate::stage_times::mark("root-proc");
    make_dir(Path::new(OLD_ROOT_IN_NEW))?;
    std::env::set_current_dir("/newroot").map_err(|e| format!("cannot enter the new root: {e}"))?;
    nix::unistd::pivot_root(".", OLD_ROOT_NAME)
        .map_err(|e| format!("cannot pivot into the new root: {e}"))?;
    std::env::set_current_dir("/").map_err(|e| format!("cannot enter the new root: {e}"))?;
    mount(
        Some("tmpfs"),
        OLD_ROOT_NAME,
        Some("tmpfs"),
        MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        Some("size=4k,nr_inodes=1,mode=000"),
    )
    .map_err(|e| format!("cannot hide the host's root: {e}"))?;
    mount(none, "/", none, MsFlags::MS_REMOUNT | MsFlags::MS_BIND | MsFlags::MS_RDONLY, none)
        .map_err(|e| format!("cannot make the new root read-only: {e}"))?;
    std::env::set_current_dir(plan.program_dir)
        .map_err(|e| format!("cannot enter {} in the sandbox: {e}", plan.program_dir.display()))?;
    Ok(BuiltRoot { host_program_dir })
}

/// `/oldroot/PATH` bound at `/newroot/PATH` (a link recreated as the same link; nothing if
/// it does not exist and `optional`).
fn bind_host(path: &Path, optional: bool) -> Result<(), String> {
    let relative = path.strip_prefix("/").map_err(|_| format!("{} is not absolute", path.display()))?;
    let source = Path::new("/oldroot").join(relative);
    let target = Path::new("/newroot").join(relative);
    let meta = match std::fs::symlink_metadata(&source) {
        Ok(meta) => meta,
        Err(_) if optional => return Ok(()),
        Err(e) => return Err(format!("cannot show {} in the sandbox: {e}", path.display())),
    };
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(&source)
            .map_err(|e| format!("cannot read the link {}: {e}", path.display()))?;
        if std::fs::symlink_metadata(&target).is_err() {
            make_parent(&target)?;
            std::os::unix::fs::symlink(&link, &target)
                .map_err(|e| format!("cannot link {} in the sandbox: {e}", path.display()))?;
        }
        return Ok(());
    }
    make_mount_point(&target, meta.is_dir())?;
    bind(&source, &target)
}

/// `source` bound read-only at `target`: `nosuid`, `nodev`, the source's `noexec` kept.
fn bind(source: &Path, target: &Path) -> Result<(), String> {
    let none: Option<&str> = None;
    mount(Some(source), target, none, MsFlags::MS_BIND, none)
        .map_err(|e| format!("cannot bind {} into the sandbox: {e}", source.display()))?;
    let flags = MsFlags::MS_REMOUNT
        | MsFlags::MS_BIND
        | MsFlags::MS_RDONLY
        | MsFlags::MS_NOSUID
        | MsFlags::MS_NODEV
        | locked_flags(source);
    mount(none, target, none, flags, none)
        .map_err(|e| format!("cannot make {} read-only in the sandbox: {e}", source.display()))
}

/// The flags of the mount `path` is on that a user namespace may not clear (`noexec` and the
/// access-time flags): a read-only remount of a bind must keep them.
fn locked_flags(path: &Path) -> MsFlags {
    let Ok(stat) = statvfs(path) else { return MsFlags::empty() };
    let flags = stat.flags();
    let mut out = MsFlags::empty();
    for (from, to) in [
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if flags.contains(from) {
            out |= to;
        }
    }
    out
}

/// Hides `/newroot/PATH` behind `cover` (`/empty` or `/emptydir`), if the host has it as the
/// same kind of file.
fn mask(path: &Path, cover: &str) -> Result<(), String> {
    let relative = path.strip_prefix("/").unwrap_or(path);
    let target = Path::new("/newroot").join(relative);
    let Ok(meta) = std::fs::symlink_metadata(&target) else { return Ok(()) };
    if meta.is_dir() != (cover == "/emptydir") || meta.file_type().is_symlink() {
        return Ok(());
    }
    // One mount, not made read-only (a second mount call per secret): the cover is empty,
    // and a program that could change it (in a user namespace it owns the cover) would change
    // only the sandbox's own tmpfs; Landlock keeps /etc read-only anyway.
    let none: Option<&str> = None;
    mount(Some(cover), &target, none, MsFlags::MS_BIND, none)
        .map_err(|e| format!("cannot hide {}: {e}", path.display()))
}

/// Hides the ssh host keys (`/etc/ssh/ssh_host_*_key`).
fn mask_ssh_host_keys() -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir("/newroot/etc/ssh") else { return Ok(()) };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("ssh_host_") && name.ends_with("_key") {
            mask(&Path::new("/etc/ssh").join(name.as_ref()), "/empty")?;
        }
    }
    Ok(())
}

/// `/newroot/dev`: a small read-only tmpfs with binds of the host's harmless devices, the
/// usual links, and `/dev/shm` (the sandbox's `/tmp`).
fn build_dev() -> Result<(), String> {
    let dev = Path::new("/newroot/dev");
    make_dir(dev)?;
    mount(
        Some("tmpfs"),
        dev,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC,
        Some("size=64k,nr_inodes=64,mode=755"),
    )
    .map_err(|e| format!("cannot mount the sandbox's /dev: {e}"))?;
    let none: Option<&str> = None;
    for name in DEVICES {
        let source = Path::new("/oldroot/dev").join(name);
        if std::fs::metadata(&source).is_err() {
            continue;
        }
        let target = dev.join(name);
        std::fs::write(&target, b"").map_err(|e| format!("cannot create /dev/{name}: {e}"))?;
        mount(Some(&source), &target, none, MsFlags::MS_BIND, none)
            .map_err(|e| format!("cannot bind /dev/{name}: {e}"))?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(target, dev.join(name))
            .map_err(|e| format!("cannot link /dev/{name}: {e}"))?;
    }
    let shm = dev.join("shm");
    make_dir(&shm)?;
    mount(Some("/newroot/tmp"), &shm, none, MsFlags::MS_BIND, none)
        .map_err(|e| format!("cannot bind /dev/shm: {e}"))?;
    mount(
        none,
        dev,
        none,
        MsFlags::MS_REMOUNT | MsFlags::MS_BIND | MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC,
        none,
    )
    .map_err(|e| format!("cannot make /dev read-only: {e}"))?;
    Ok(())
}

/// The program's folder: a read-only bind, or a tmpfs of `writable_mib` holding a copy of it
/// (owned by the sandbox's user), with the host's folder kept open for the copy back.
fn program_dir(plan: &RootPlan<'_>) -> Result<Option<OwnedFd>, String> {
    let Some(mib) = plan.writable_mib else {
        bind_host(plan.program_dir, false)?;
        return Ok(None);
    };
    let relative = plan.program_dir.strip_prefix("/").unwrap_or(plan.program_dir);
    let source = Path::new("/oldroot").join(relative);
    let target = Path::new("/newroot").join(relative);
    make_mount_point(&target, true)?;
    let owner = plan.owner.map(|u| format!(",uid={},gid={}", u.uid, u.gid)).unwrap_or_default();
    // Inodes bounded too: a million empty files would cost nothing here and a million on
    // the host's disk once copied back.
    let options = format!("size={}m,nr_inodes={},mode=755{owner}", mib.max(1), (mib * 256).max(4096));
    mount(
        Some("tmpfs"),
        &target,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(options.as_str()),
    )
    .map_err(|e| format!("cannot mount the program's folder: {e}"))?;
    let host = nix::fcntl::open(
        &source,
        nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_DIRECTORY | nix::fcntl::OFlag::O_CLOEXEC,
        nix::sys::stat::Mode::empty(),
    )
    .map_err(|e| format!("cannot open the program's folder {}: {e}", plan.program_dir.display()))?;
    let mut budget = mib << 20;
    crate::tree_copy::copy_tree(&source, &target, plan.owner, &mut budget)
        .map_err(|e| format!("cannot copy the program's folder into the sandbox: {e}"))?;
    Ok(Some(host))
}

fn make_dir(path: &Path) -> Result<(), String> {
    std::fs::create_dir_all(path).map_err(|e| format!("cannot create {}: {e}", path.display()))
}

fn make_parent(path: &Path) -> Result<(), String> {
    path.parent().map_or(Ok(()), make_dir)
}

/// A folder or an empty file at `target` to mount on (its missing parents created, mode 755).
fn make_mount_point(target: &Path, dir: bool) -> Result<(), String> {
    if dir {
        return make_dir(target);
    }
    make_parent(target)?;
    match std::fs::symlink_metadata(target) {
        Ok(meta) if meta.is_file() => Ok(()),
        _ => std::fs::write(target, b"").map_err(|e| format!("cannot create {}: {e}", target.display())),
    }
}

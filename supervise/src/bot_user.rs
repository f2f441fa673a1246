//! The separate unprivileged user of a bot under `--isolation full`: when the referee runs as
//! root, a uid (and gid of the same number) of its own, from a range no account uses; when it
//! does not, a uid and gid of its subordinate ids (`subordinate_ids.rs`); and
//! the check that this user can reach the program and its folder in the sandbox at all (so that
//! a bot that cannot run under it gets a clear error before it starts, not a forfeit).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sandbox::BotUser;
use crate::sandbox_profile::IdRange;

/// Where a root caller's leases of sandbox ids are locked: one file per id, each held with
/// `flock` by the process whose sandbox runs as it (root-only `/run`: no other user can make
/// or hold them).
const LEASE_DIR: &str = "/run/bao-sandbox-ids";

/// How many ids a lease tries past its starting point before it gives up locking.
const LEASE_TRIES: u32 = 4096;

/// A sandbox's own user, held until dropped: while the lease lives, no other lease on this
/// machine (any process's, with the same [`LEASE_DIR`]) gets the same id.
#[derive(Debug)]
pub(crate) struct IdLease {
    /// The user leased.
    pub(crate) user: BotUser,
    /// The locked file of the id and its path (`None` when no lock could be taken: see
    /// [`lease`]); removed when the lease is dropped, while still locked.
    lock: Option<(nix::fcntl::Flock<std::fs::File>, std::path::PathBuf)>,
}

impl Drop for IdLease {
    fn drop(&mut self) {
        if let Some((_, path)) = &self.lock {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A fresh user for one bot of a root caller from `range` (checked with
/// [`IdRange::validate`]), its gid of the same number, leased in [`LEASE_DIR`] (see
/// [`lease_in`]).
pub(crate) fn lease(range: IdRange) -> IdLease {
    lease_in(range, range.first, Some(Path::new(LEASE_DIR)))
}

/// A fresh user for one bot of an unprivileged caller from its subordinate ids, leased in the
/// caller's own lock folder ([`subordinate_lease_dir`]).
pub(crate) fn lease_subordinate(range: crate::subordinate_ids::SubRange) -> IdLease {
    lease_in(range.uids, range.gid_first, subordinate_lease_dir().as_deref())
}

/// Where an unprivileged caller's leases of subordinate ids are locked: `bao-sandbox-ids` in
/// `$XDG_RUNTIME_DIR`, or else `bao-sandbox-ids-UID` in the system's temporary folder; made
/// with mode 700, and used only if it is a folder of this user that no other user may write
/// (`None` if neither is: leases are then unlocked, distinct within this process).
fn subordinate_lease_dir() -> Option<std::path::PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let uid = nix::unistd::geteuid().as_raw();
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(std::path::PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("bao-sandbox-ids"));
    let temporary = std::env::temp_dir().join(format!("bao-sandbox-ids-{uid}"));
    runtime.into_iter().chain([temporary]).find(|dir| {
        let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
        std::fs::symlink_metadata(dir)
            .is_ok_and(|meta| meta.is_dir() && meta.uid() == uid && meta.mode() & 0o022 == 0)
    })
}

/// A fresh user for one bot from `range` (the n-th uid with the gid `gid_first + n`), leased:
/// the first id from this bot's starting point (the process's pid and its count of bots spread
/// them, so an id just released, whose processes the kernel may still be tearing down, is
/// not taken again at once) whose lock file in `dir` no other lease holds, so that concurrent
/// referees and servers, sharing a range or overlapping ones, never run two sandboxes as one
/// uid. Where no lock can be taken (no folder, not allowed) it falls back to an unlocked
/// id, distinct within this process.
fn lease_in(range: IdRange, gid_first: u32, dir: Option<&Path>) -> IdLease {
    static SEQUENCE: AtomicU32 = AtomicU32::new(0);
    let count = range.count.max(1);
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let start = std::process::id().wrapping_mul(4096).wrapping_add(n) % count;
    let user = |offset: u32| BotUser {
        uid: range.first.saturating_add(offset),
        gid: gid_first.saturating_add(offset),
    };
    let dir = dir.filter(|dir| std::fs::create_dir_all(dir).is_ok());
    if let Some(dir) = dir {
        for attempt in 0..LEASE_TRIES.min(count) {
            let offset = start.wrapping_add(attempt) % count;
            let path = dir.join(range.first.saturating_add(offset).to_string());
            let Ok(file) = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path)
            else {
                break;
            };
            match nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock) {
                // Locked, and still the file at `path` (not one a releasing lease just removed).
                Ok(lock)
                    if std::fs::metadata(&path)
                        .ok()
                        .zip(lock.metadata().ok())
                        .is_some_and(|(named, held)| named.ino() == held.ino()) =>
                {
                    return IdLease { user: user(offset), lock: Some((lock, path)) };
                }
                Ok(_) => {}
                Err((_, nix::errno::Errno::EWOULDBLOCK)) => {}
                Err(_) => break,
            }
        }
    }
    tracing::debug!("no lock on a sandbox id in {dir:?}: an unlocked id");
    IdLease { user: user(start), lock: None }
}

/// The user the isolation probe runs as: the one just past the default range.
pub(crate) fn probe_user() -> BotUser {
    let range = IdRange::default();
    BotUser { uid: range.first + range.count, gid: range.first + range.count }
}

/// Why the sandbox's own user (neither owner nor group of anything) could not run `program`
/// from its folder `dir`, if it could not: the folder (when read-only: a writable one is a
/// copy owned by that user) not searchable or readable by other users, or the program not
/// executable by them. The folders above are the sandbox's own (mode 755).
pub(crate) fn unreachable_in_sandbox(program: &Path, dir: &Path, writable: bool) -> Option<String> {
    if !writable {
        let mode = std::fs::metadata(dir).map(|m| m.mode()).unwrap_or(0);
        if mode & 0o005 != 0o005 {
            return Some(format!(
                "its folder {} (mode {:o}) may not be read and searched by other users",
                dir.display(),
                mode & 0o7777
            ));
        }
        if program.starts_with(dir) {
            for ancestor in program.parent()?.ancestors().take_while(|a| a.starts_with(dir) && *a != dir) {
                if let Some(why) = not_searchable(ancestor) {
                    return Some(format!("{} is out of reach: {why}", program.display()));
                }
            }
        }
    }
    let mode = std::fs::metadata(program).map(|m| m.permissions().mode()).unwrap_or(0);
    (mode & 0o001 == 0)
        .then(|| format!("{} is not executable by other users (mode {:o})", program.display(), mode & 0o7777))
}

fn not_searchable(dir: &Path) -> Option<String> {
    let meta = std::fs::metadata(dir).ok()?;
    (meta.mode() & 0o001 == 0).then(|| {
        format!("{} (mode {:o}) may not be searched by other users", dir.display(), meta.mode() & 0o7777)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_in_range() {
        let (a, b) = (lease(IdRange::default()), lease(IdRange::default()));
        assert_ne!(a.user.uid, b.user.uid);
        for user in [a.user, b.user, probe_user()] {
            assert!(user.uid >= IdRange::default().first && user.uid == user.gid);
        }
        let small = IdRange { first: 7000, count: 10 };
        assert!((7000..7010).contains(&lease(small).user.uid));
    }

    /// A held lease's id is skipped (the lock is per open file, so another lease of this
    /// process is refused it as another process's would be), and comes free when dropped.
    #[test]
    fn leases_are_exclusive_until_dropped() {
        if !nix::unistd::geteuid().is_root() {
            let why = "leases_are_exclusive_until_dropped: skipped: the lease directory is root's";
            assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
            eprintln!("{why}");
            return;
        }
        let range = IdRange { first: 3_999_000_000, count: 2 };
        let first = lease(range);
        let second = lease(range);
        assert_ne!(first.user.uid, second.user.uid, "both ids of the range, once each");
        let taken = first.user.uid;
        let file = Path::new(LEASE_DIR).join(taken.to_string());
        assert!(file.exists());
        drop(first);
        assert!(!file.exists(), "a dropped lease leaves no file");
        let (third, fourth) = (lease(range), lease(range));
        assert!([third.user.uid, fourth.user.uid].contains(&taken), "a dropped lease's id is free again");
    }

    /// An unprivileged caller's leases: distinct uids of its range, each with the gid at the
    /// same offset, locked in a folder of the caller's own.
    #[test]
    fn subordinate_leases_pair_each_uid_with_its_gid() {
        let range = crate::subordinate_ids::SubRange {
            uids: IdRange { first: 100_000, count: 50 },
            gid_first: 300_000,
        };
        let (a, b) = (lease_subordinate(range), lease_subordinate(range));
        assert_ne!(a.user.uid, b.user.uid);
        for lease in [&a, &b] {
            assert!((100_000..100_050).contains(&lease.user.uid), "{lease:?}");
            assert_eq!(lease.user.gid - 300_000, lease.user.uid - 100_000, "{lease:?}");
        }
        let dir = subordinate_lease_dir().expect("a lock folder of this user");
        let mode = std::fs::metadata(&dir).unwrap().mode();
        assert_eq!(mode & 0o077, 0, "{} has mode {mode:o}", dir.display());
        assert!(a.lock.is_some() && dir.join(a.user.uid.to_string()).exists(), "locked in {}", dir.display());
    }

    #[test]
    fn a_private_folder_or_program_is_out_of_reach() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("bot");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let why = unreachable_in_sandbox(&program, dir.path(), false).expect("out of reach");
        assert!(why.contains("may not be read and searched by other users"), "{why}");
        assert_eq!(unreachable_in_sandbox(&program, dir.path(), true), None, "a build's folder is a copy");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(unreachable_in_sandbox(&program, dir.path(), false), None);
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(unreachable_in_sandbox(&program, dir.path(), false).unwrap().contains("not executable"));
    }
}

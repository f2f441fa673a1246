//! The separate unprivileged user of a bot under `--isolation full` when the referee runs as
//! root: a uid (and gid of the same number) of its own, from a range no account uses, and
//! the check that this user can reach the program and its working directory at all (so that
//! a bot that cannot run under it gets a clear error before it starts, not a forfeit).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sandbox::BotUser;

/// The first uid (and gid) given to bots: far above the ranges of accounts and of the
/// subordinate ids of rootless containers (`/etc/subuid` usually starts at 100000).
pub(crate) const FIRST_ID: u32 = 1_500_000_000;
/// How many ids bots use (per referee process the ids advance by one per bot).
const IDS: u32 = 100_000_000;

/// A fresh user for one bot: distinct for every bot of this process, and unlikely to meet
/// the ids of another referee's bots (the referee's pid spreads them).
pub(crate) fn next() -> BotUser {
    static SEQUENCE: AtomicU32 = AtomicU32::new(0);
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let spread = std::process::id().wrapping_mul(4096).wrapping_add(n) % IDS;
    let id = FIRST_ID + spread;
    BotUser { uid: id, gid: id }
}

/// The user the isolation probe runs as.
pub(crate) fn probe_user() -> BotUser {
    BotUser { uid: FIRST_ID + IDS, gid: FIRST_ID + IDS }
}

/// Why a user who is neither owner nor group of anything cannot run `program` from `dir`, if
/// it cannot: a directory on the way that others may not search, or a program that others
/// may not execute (or, for a script, read).
pub(crate) fn unreachable(program: &Path, dir: &Path) -> Option<String> {
    for ancestor in dir.ancestors().collect::<Vec<_>>().into_iter().rev() {
        if let Some(why) = not_searchable(ancestor) {
            return Some(format!("its working directory is out of reach: {why}"));
        }
    }
    let program_dir = program.parent().unwrap_or(Path::new("/"));
    for ancestor in program_dir.ancestors().collect::<Vec<_>>().into_iter().rev() {
        if let Some(why) = not_searchable(ancestor) {
            return Some(format!("{} is out of reach: {why}", program.display()));
        }
    }
    let mode = std::fs::metadata(program).map(|m| m.permissions().mode()).unwrap_or(0);
    if mode & 0o001 == 0 {
        return Some(format!(
            "{} is not executable by other users (mode {:o})",
            program.display(),
            mode & 0o7777
        ));
    }
    None
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
        let (a, b) = (next(), next());
        assert_ne!(a.uid, b.uid);
        for user in [a, b, probe_user()] {
            assert!(user.uid >= FIRST_ID && user.uid == user.gid);
        }
    }

    #[test]
    fn a_private_directory_is_out_of_reach() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let program = dir.path().join("bot");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let why = unreachable(&program, Path::new("/")).expect("out of reach");
        assert!(why.contains("may not be searched by other users"), "{why}");
        assert_eq!(unreachable(Path::new("/bin/sh"), Path::new("/")), None);
    }
}

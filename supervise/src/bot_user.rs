//! The separate unprivileged user of a bot under `--isolation full` when the referee runs as
//! root: a uid (and gid of the same number) of its own, from a range no account uses, and
//! the check that this user can reach the program and its folder in the sandbox at all (so that
//! a bot that cannot run under it gets a clear error before it starts, not a forfeit).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sandbox::BotUser;
use crate::sandbox_profile::IdRange;

/// A fresh user for one bot from `range` (checked with [`IdRange::validate`]): distinct for
/// every bot of this process while the range lasts, and unlikely to meet the ids of another
/// referee's bots (the referee's pid spreads them).
pub(crate) fn next(range: IdRange) -> BotUser {
    static SEQUENCE: AtomicU32 = AtomicU32::new(0);
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let spread = std::process::id().wrapping_mul(4096).wrapping_add(n) % range.count.max(1);
    let id = range.first.saturating_add(spread);
    BotUser { uid: id, gid: id }
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
        let (a, b) = (next(IdRange::default()), next(IdRange::default()));
        assert_ne!(a.uid, b.uid);
        for user in [a, b, probe_user()] {
            assert!(user.uid >= IdRange::default().first && user.uid == user.gid);
        }
        let small = IdRange { first: 7000, count: 10 };
        assert!((7000..7010).contains(&next(small).uid));
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

//! Copying a folder's tree for a sandbox's writable program folder (a build): into its
//! size-limited tmpfs before the program starts ([`copy_tree`]), and back over the host's
//! folder when it has ended ([`copy_back`]). Regular files, folders and symbolic links only
//! (a link is copied as a link, never followed); anything else is left out.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::sandbox::BotUser;

/// Copies what is in `from` into the existing folder `to`, each entry owned by `owner` when
/// given, at most `budget` bytes of file contents (a file that would pass it is left out and
/// named on stderr): a sparse file in a tmpfs costs nothing there but its full size on a
/// disk.
pub(crate) fn copy_tree(
    from: &Path,
    to: &Path,
    owner: Option<BotUser>,
    budget: &mut u64,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let source = entry.path();
        let target = to.join(entry.file_name());
        let meta = std::fs::symlink_metadata(&source)?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&source, &target, owner, budget)?;
            std::fs::set_permissions(
                &target,
                std::fs::Permissions::from_mode(meta.mode() & 0o7777 & !0o6000),
            )?;
        } else if kind.is_file() {
            if meta.len() > *budget {
                eprintln!(
                    "__exec-bot: left out {} ({} bytes): past the folder's size limit",
                    source.display(),
                    meta.len()
                );
                continue;
            }
            *budget -= meta.len();
            std::fs::copy(&source, &target)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(meta.mode() & 0o777))?;
        } else {
            continue;
        }
        if let Some(user) = owner {
            std::os::unix::fs::lchown(&target, Some(user.uid), Some(user.gid))?;
        }
    }
    Ok(())
}

/// Replaces the contents of the host's folder `host` (open, possibly outside this process's
/// root) with those of `from`, at most `budget` bytes of file contents.
pub(crate) fn copy_back(host: &OwnedFd, from: &Path, mut budget: u64) -> std::io::Result<()> {
    let host = PathBuf::from(format!("/proc/self/fd/{}", host.as_raw_fd()));
    for entry in std::fs::read_dir(&host)? {
        let path = entry?.path();
        // Neither follows links: a link is removed, not what it points at.
        if std::fs::symlink_metadata(&path)?.is_dir() {
            std::fs::remove_dir_all(&path)?;
        } else {
            std::fs::remove_file(&path)?;
        }
    }
    copy_tree(from, &host, None, &mut budget)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_files_folders_and_links_as_links_within_the_budget() {
        let base = tempfile::tempdir().unwrap();
        let (from, to, outside) =
            (base.path().join("from"), base.path().join("to"), base.path().join("outside"));
        for dir in [&from, &to, &outside] {
            std::fs::create_dir(dir).unwrap();
        }
        std::fs::write(outside.join("secret"), "s").unwrap();
        std::fs::create_dir(from.join("sub")).unwrap();
        std::fs::write(from.join("sub/a"), "aaaa").unwrap();
        std::fs::write(from.join("big"), vec![0u8; 100]).unwrap();
        std::os::unix::fs::symlink(outside.join("secret"), from.join("link")).unwrap();
        std::fs::write(to.join("old"), "old").unwrap();
        std::os::unix::fs::symlink(&outside, to.join("oldlink")).unwrap();
        let host = nix::fcntl::open(&to, nix::fcntl::OFlag::O_RDONLY, nix::sys::stat::Mode::empty()).unwrap();
        copy_back(&host, &from, 50).unwrap();
        assert_eq!(std::fs::read_to_string(to.join("sub/a")).unwrap(), "aaaa");
        assert!(!to.join("big").exists(), "past the budget");
        assert!(!to.join("old").exists() && std::fs::symlink_metadata(to.join("oldlink")).is_err());
        assert_eq!(std::fs::read_link(to.join("link")).unwrap(), outside.join("secret"));
        assert!(outside.join("secret").exists(), "the old link's target is untouched");
    }
}

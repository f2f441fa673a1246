//! Copying a folder's tree for a sandbox's writable program folder (a build): into its
//! size-limited tmpfs before the program starts ([`copy_tree`]), and back over the host's
//! folder when it has ended ([`copy_back`]). Regular files, folders and symbolic links only
//! (a link is copied as a link, never followed); anything else is left out. What is copied
//! back to the host never gains rights there: modes at most `0o755` (no set-id, sticky,
//! group- or world-writable bits), and only the links that stay within the folder (relative,
//! resolving inside it); every other link is left out and named.

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
    copy_entries(from, to, owner, budget, None)
}

/// [`copy_tree`]; with `back` (the copy back to the host, with the root of the tree copied
/// and the names of the links left out), modes masked with `0o755` and only the links kept
/// that resolve within that root.
fn copy_entries(
    from: &Path,
    to: &Path,
    owner: Option<BotUser>,
    budget: &mut u64,
    mut back: Option<(&Path, &mut Vec<PathBuf>)>,
) -> std::io::Result<()> {
    let mask = if back.is_some() { 0o755 } else { 0o7777 & !0o6000 };
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let source = entry.path();
        let target = to.join(entry.file_name());
        let meta = std::fs::symlink_metadata(&source)?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = std::fs::read_link(&source)?;
            if let Some((root, left_out)) = back.as_mut()
                && !stays_within(&source, &link, root)
            {
                left_out.push(source);
                continue;
            }
            std::os::unix::fs::symlink(link, &target)?;
        } else if kind.is_dir() {
            std::fs::create_dir(&target)?;
            let inner = back.as_mut().map(|(root, left_out)| (*root, &mut **left_out));
            copy_entries(&source, &target, owner, budget, inner)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(meta.mode() & mask))?;
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
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(meta.mode() & mask & 0o777))?;
        } else {
            continue;
        }
        if let Some(user) = owner {
            std::os::unix::fs::lchown(&target, Some(user.uid), Some(user.gid))?;
        }
    }
    Ok(())
}

/// Whether the link `source` (to `link`) is relative and resolves, here, to something within
/// `root`: a link to an absolute path, out of the folder or to nothing is not.
fn stays_within(source: &Path, link: &Path, root: &Path) -> bool {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    link.is_relative() && std::fs::canonicalize(source).is_ok_and(|resolved| resolved.starts_with(&root))
}

/// Replaces the contents of the host's folder `host` (open, possibly outside this process's
/// root) with those of `from`, at most `budget` bytes of file contents, every mode masked with
/// `0o755`; returns the links of `from` left out (absolute, leading out of it or to nothing).
pub(crate) fn copy_back(host: &OwnedFd, from: &Path, mut budget: u64) -> std::io::Result<Vec<PathBuf>> {
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
    let mut left_out = Vec::new();
    copy_entries(from, &host, None, &mut budget, Some((from, &mut left_out)))?;
    Ok(left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_back_files_folders_and_the_links_within_the_folder_within_the_budget() {
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
        std::os::unix::fs::symlink("../outside/secret", from.join("escape")).unwrap();
        std::os::unix::fs::symlink("sub/a", from.join("inner")).unwrap();
        std::os::unix::fs::symlink("..", from.join("sub/up")).unwrap();
        std::os::unix::fs::symlink("sub/up/..", from.join("chain")).unwrap();
        std::fs::create_dir(from.join("open")).unwrap();
        std::fs::set_permissions(from.join("open"), std::fs::Permissions::from_mode(0o1777)).unwrap();
        std::fs::set_permissions(from.join("sub/a"), std::fs::Permissions::from_mode(0o6777)).unwrap();
        std::fs::write(to.join("old"), "old").unwrap();
        std::os::unix::fs::symlink(&outside, to.join("oldlink")).unwrap();
        let host = nix::fcntl::open(&to, nix::fcntl::OFlag::O_RDONLY, nix::sys::stat::Mode::empty()).unwrap();
        let mut left_out = copy_back(&host, &from, 50).unwrap();
        left_out.sort();
        assert_eq!(left_out, vec![from.join("chain"), from.join("escape"), from.join("link")]);
        assert_eq!(std::fs::read_to_string(to.join("sub/a")).unwrap(), "aaaa");
        assert!(!to.join("big").exists(), "past the budget");
        assert!(!to.join("old").exists() && std::fs::symlink_metadata(to.join("oldlink")).is_err());
        for gone in ["link", "escape", "chain"] {
            assert!(std::fs::symlink_metadata(to.join(gone)).is_err(), "{gone} is not copied back");
        }
        assert_eq!(std::fs::read_link(to.join("inner")).unwrap(), Path::new("sub/a"), "a link within stays");
        assert_eq!(std::fs::read_link(to.join("sub/up")).unwrap(), Path::new(".."));
        let mode = |path: &str| std::fs::symlink_metadata(to.join(path)).unwrap().mode() & 0o7777;
        assert_eq!((mode("open"), mode("sub/a")), (0o755, 0o755), "no rights gained on the host");
        assert!(outside.join("secret").exists(), "the old link's target is untouched");
    }
}

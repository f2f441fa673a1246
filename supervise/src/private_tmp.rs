//! A private writable temporary directory for every bot (`TMPDIR`): created before the bot
//! starts (mode 700, owned by the bot's user), removed after its whole tree has ended. The
//! directories of referee processes that no longer exist (killed with SIGKILL) are removed
//! by the next bot's referee.
//!
//! **Reuse within a run.** While a [`PrivateTmpReuse`] guard lives (a tournament holds one),
//! the directory of a bot that runs as the referee's own user is not removed when its tree
//! has ended: it is emptied, checked (still the same directory, ours, mode 700) and handed to
//! a later bot; the guard's end removes the directories kept. On an ext4 file system without
//! a journal (this machine's) a `mkdir` skips, one by one, every inode freed in the last
//! minute (`find_inode_bit` → `recently_deleted`), so creating and removing two directories a
//! game made every later file creation slower: a `mkdir` + `rmdir` cost about 220 µs of CPU
//! here against 16 µs on tmpfs. A bot that runs as a separate user (`--isolation full` as
//! root) always gets a fresh directory. The kept directory's extended attributes are not
//! reset; every bot that can be handed one runs as the same user as the bot before it, which
//! could change the next bot's directory directly anyway (its path is guessable).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once, PoisonError};

use crate::sandbox::BotUser;

const PREFIX: &str = "bao-bot-";
/// The most directories kept for reuse (two a game at the tournament's highest concurrency
/// is far less).
const MAX_KEPT: usize = 256;

/// The directories kept for reuse, and how many guards allow it.
struct Pool {
    guards: usize,
    kept: Vec<Identity>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { guards: 0, kept: Vec::new() });

fn pool() -> std::sync::MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A directory and the inode it was created as.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

/// While one lives, the private directories of bots that run as the referee's own user are
/// emptied and reused instead of removed and created again (see the module docs); when the
/// last one is dropped, the directories kept are removed.
///
/// Hold it around a run of many games, outliving the runtime that runs them (whose drop
/// waits for the bots' cleanups), so that no directory is handed back after it is gone.
#[derive(Debug)]
#[must_use = "reuse lasts as long as the guard"]
pub struct PrivateTmpReuse(());

impl PrivateTmpReuse {
    /// Starts allowing reuse.
    pub fn start() -> Self {
        pool().guards += 1;
        Self(())
    }
}

impl Drop for PrivateTmpReuse {
    fn drop(&mut self) {
        let kept = {
            let mut pool = pool();
            pool.guards = pool.guards.saturating_sub(1);
            if pool.guards > 0 {
                return;
            }
            std::mem::take(&mut pool.kept)
        };
        for dir in kept {
            remove(&dir.path);
        }
    }
}

/// One bot's temporary directory; removed when dropped.
#[derive(Debug)]
pub(crate) struct PrivateTmp {
    dir: Identity,
    /// The bot runs as the referee's own user: the directory may be reused.
    own_user: bool,
}

impl PrivateTmp {
    /// Creates the directory in the system's temporary directory, owned by `user` if given
    /// (or takes one kept for reuse, when there is no `user`).
    pub(crate) fn create(user: Option<BotUser>) -> std::io::Result<Self> {
        let base = std::env::temp_dir();
        static CLEAN_STALE: Once = Once::new();
        CLEAN_STALE.call_once(|| remove_stale(&base));
        if user.is_none()
            && let Some(dir) = pool().kept.pop()
        {
            return Ok(Self { dir, own_user: true });
        }
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PREFIX}{}-", std::process::id()))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(&base)?;
        let meta = std::fs::symlink_metadata(dir.path())?;
        let tmp = Self {
            dir: Identity { path: dir.keep(), dev: meta.dev(), ino: meta.ino() },
            own_user: user.is_none(),
        };
        if let Some(user) = user {
            nix::unistd::chown(
                tmp.path(),
                Some(nix::unistd::Uid::from_raw(user.uid)),
                Some(nix::unistd::Gid::from_raw(user.gid)),
            )
            .map_err(std::io::Error::from)?;
        }
        Ok(tmp)
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.dir.path
    }

    /// Ends the directory of a bot whose whole tree has ended: kept for the next bot when
    /// reuse is allowed and it can be emptied and is still the directory made for it;
    /// removed otherwise. Only call this once no process of the bot can still write in it.
    pub(crate) fn recycle(self) {
        let mut this = self;
        if !this.own_user || pool().guards == 0 || !empty_for_reuse(&this.dir) {
            return; // dropped: removed
        }
        let mut pool = pool();
        if pool.guards > 0 && pool.kept.len() < MAX_KEPT {
            // Taken out of `this`, whose drop then removes nothing.
            let dir = std::mem::replace(&mut this.dir, Identity { path: PathBuf::new(), dev: 0, ino: 0 });
            pool.kept.push(dir);
        }
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        if !self.dir.path.as_os_str().is_empty() {
            remove(&self.dir.path);
        }
    }
}

/// Removes a bot's directory: one `rmdir` when the bot left it empty (most do), otherwise the
/// whole tree (`remove_dir_all`, which does not follow symbolic links).
fn remove(dir: &Path) {
    match std::fs::remove_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => {
            if let Err(e) = std::fs::remove_dir_all(dir)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!("cannot remove the bot's TMPDIR {}: {e}", dir.display());
            }
        }
    }
}

/// Empties `dir` for the next bot: true if it is still the directory created (not a symbolic
/// link or another directory put in its place), owned by the referee's user, now with mode
/// 700 and nothing in it.
fn empty_for_reuse(dir: &Identity) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(&dir.path) else { return false };
    if !meta.file_type().is_dir()
        || (meta.dev(), meta.ino()) != (dir.dev, dir.ino)
        || meta.uid() != nix::unistd::geteuid().as_raw()
    {
        return false;
    }
    if meta.mode() & 0o7777 != 0o700
        && std::fs::set_permissions(&dir.path, std::fs::Permissions::from_mode(0o700)).is_err()
    {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(&dir.path) else { return false };
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let path = entry.path();
        let removed = match entry.file_type() {
            Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(e) => Err(e),
        };
        if removed.is_err() {
            return false;
        }
    }
    true
}

/// Removes the bot directories left by referee processes that no longer exist.
fn remove_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else { continue };
        let Some(owner) = rest.split('-').next().filter(|o| o.bytes().all(|b| b.is_ascii_digit())) else {
            continue;
        };
        let path: PathBuf = entry.path();
        if !Path::new("/proc").join(owner).exists() && path.is_dir() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bao-private-tmp-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).expect("a scratch folder");
        dir
    }

    fn identity(path: &Path) -> Identity {
        let meta = std::fs::symlink_metadata(path).expect("there");
        Identity { path: path.to_path_buf(), dev: meta.dev(), ino: meta.ino() }
    }

    #[test]
    fn emptying_removes_everything_inside_follows_no_link_and_resets_the_mode() {
        let base = scratch("empty");
        let outside = base.join("outside");
        std::fs::create_dir(&outside).expect("a folder");
        std::fs::write(outside.join("keep"), "k").expect("a file");
        let dir = base.join("bot");
        std::fs::create_dir(&dir).expect("a folder");
        let identity = identity(&dir);
        std::fs::create_dir_all(dir.join("a/b")).expect("a subfolder");
        std::fs::write(dir.join("a/b/file"), "x").expect("a file");
        std::fs::write(dir.join("top"), "y").expect("a file");
        std::os::unix::fs::symlink(&outside, dir.join("link")).expect("a link");
        std::os::unix::fs::symlink(&outside, dir.join("a/link")).expect("a link");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o2777)).expect("chmod");

        assert!(empty_for_reuse(&identity));
        assert_eq!(std::fs::read_dir(&dir).expect("listed").count(), 0, "emptied");
        assert_eq!(std::fs::metadata(&dir).expect("there").mode() & 0o7777, 0o700);
        assert!(outside.join("keep").exists(), "links are removed, not followed");
        std::fs::remove_dir_all(&base).expect("removed");
    }

    #[test]
    fn a_directory_or_link_put_in_its_place_is_not_reused() {
        let base = scratch("impostor");
        let dir = base.join("bot");
        std::fs::create_dir(&dir).expect("a folder");
        let identity = identity(&dir);
        std::fs::rename(&dir, base.join("moved")).expect("moved away");
        std::fs::create_dir(&dir).expect("another folder");
        assert!(!empty_for_reuse(&identity), "another directory");
        std::fs::remove_dir(&dir).expect("removed");
        std::os::unix::fs::symlink(base.join("moved"), &dir).expect("a link");
        assert!(!empty_for_reuse(&identity), "a link to the first one");
        std::fs::remove_file(&dir).expect("removed");
        assert!(!empty_for_reuse(&identity), "nothing");
        std::fs::remove_dir_all(&base).expect("removed");
    }

    /// Without a guard (no test of this crate holds one), a directory is removed once its
    /// bot has ended.
    #[test]
    fn without_a_guard_the_directory_is_removed() {
        let tmp = PrivateTmp::create(None).expect("a directory");
        let path = tmp.path().to_path_buf();
        assert!(path.is_dir());
        std::fs::write(path.join("file"), "x").expect("a file");
        tmp.recycle();
        assert!(!path.exists(), "removed");
    }
}

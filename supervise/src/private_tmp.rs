//! A private writable temporary directory for every bot (`TMPDIR`): created before the bot
//! starts (mode 700, owned by the bot's user), removed after its whole tree has ended. The
//! directories of referee processes that no longer exist (killed with SIGKILL) are removed
//! by the next bot's referee.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Once;

use crate::sandbox::BotUser;

const PREFIX: &str = "bao-bot-";

/// One bot's temporary directory; removed when dropped.
#[derive(Debug)]
pub(crate) struct PrivateTmp {
    dir: tempfile::TempDir,
}

impl PrivateTmp {
    /// Creates the directory in the system's temporary directory, owned by `user` if given.
    pub(crate) fn create(user: Option<BotUser>) -> std::io::Result<Self> {
        let base = std::env::temp_dir();
        static CLEAN_STALE: Once = Once::new();
        CLEAN_STALE.call_once(|| remove_stale(&base));
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PREFIX}{}-", std::process::id()))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(&base)?;
        if let Some(user) = user {
            nix::unistd::chown(
                dir.path(),
                Some(nix::unistd::Uid::from_raw(user.uid)),
                Some(nix::unistd::Gid::from_raw(user.gid)),
            )
            .map_err(std::io::Error::from)?;
        }
        Ok(Self { dir })
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
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

//! The output folder of a tournament (`--out DIR`):
//!
//! | path | what |
//! |------|------|
//! | `plan.json` | the plan (see `plan`) |
//! | `journal.jsonl` | one line per finished game, appended and fsynced |
//! | `games/00012.jsonl` | the log of game 12 |
//! | `games/00012.html` | its replay page (`replay_pages`) |
//! | `games/replay.js`, `games/replay.css` | shared by the log pages |
//! | `index.html` | the index page (`index_page`) |
//! | `results.json` | the statistics, rewritten at the end of every run |
//! | `.lock` | held (flock) while a referee works in the folder |

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

/// The files of an output folder.
#[derive(Debug, Clone)]
pub struct OutDir {
    root: PathBuf,
}

pub use crate::error::LockError;

impl OutDir {
    /// The folder at `root` (nothing is created yet).
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> OutDir {
        OutDir { root: root.into() }
    }

    /// The folder.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `plan.json`.
    #[must_use]
    pub fn plan(&self) -> PathBuf {
        self.root.join("plan.json")
    }

    /// `journal.jsonl`.
    #[must_use]
    pub fn journal(&self) -> PathBuf {
        self.root.join("journal.jsonl")
    }

    /// `results.json`.
    #[must_use]
    pub fn results(&self) -> PathBuf {
        self.root.join("results.json")
    }

    /// `games/`.
    #[must_use]
    pub fn games(&self) -> PathBuf {
        self.root.join("games")
    }

    /// The log of `game`, relative to the folder: `games/00012.jsonl`.
    #[must_use]
    pub fn relative_log(game: u32) -> String {
        format!("games/{game:05}.jsonl")
    }

    /// The log of `game`.
    #[must_use]
    pub fn log(&self, game: u32) -> PathBuf {
        self.root.join(Self::relative_log(game))
    }

    /// Creates the folder and `games/`, and takes the folder's lock (released when dropped).
    ///
    /// # Errors
    /// Another referee holds the lock, or I/O.
    pub fn create_and_lock(&self) -> Result<Flock<File>, LockError> {
        let path = self.root.join(".lock");
        let io = |reason| LockError::Io { path: path.clone(), reason };
        std::fs::create_dir_all(self.games()).map_err(io)?;
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
        Flock::lock(file, FlockArg::LockExclusiveNonblock).map_err(|(_, errno)| {
            if errno == nix::errno::Errno::EWOULDBLOCK {
                LockError::Busy(self.root.clone())
            } else {
                io(std::io::Error::from(errno))
            }
        })
    }
}

/// Whether a file named `name` may be left in a folder without `plan.json` by a referee that
/// was killed while it started the folder: the lock, the games folder, the journal, and the
/// temporary file of an atomic write (`plan.json.tmp`, `results.json.tmp`). Such a folder is
/// started again from scratch.
#[must_use]
pub fn is_leftover_of_a_start(name: &std::ffi::OsStr) -> bool {
    [".lock", "games", "journal.jsonl", "plan.json.tmp", "results.json.tmp"].iter().any(|n| name == *n)
}

/// Fsyncs a folder, so that files created or renamed in it survive a crash.
///
/// # Errors
/// Any I/O error.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    File::open(dir)?.sync_all()
}

/// Replaces `path` with `bytes` all at once: a temporary file, fsync, rename, fsync of the folder.
///
/// # Errors
/// Any I/O error.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |file| file.write_all(bytes))
}

/// [`write_atomically`] for a file written piece by piece by `write` (through a buffer, so
/// that a large file is never held in memory whole).
///
/// # Errors
/// Any I/O error, or `write`'s.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut file = std::io::BufWriter::with_capacity(64 * 1024, File::create(&tmp)?);
    write(&mut file)?;
    let file = file.into_inner().map_err(std::io::IntoInnerError::into_error)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_the_lock() {
        let root = std::env::temp_dir().join(format!("bao-outdir-{}", std::process::id()));
        let out = OutDir::new(&root);
        assert_eq!(OutDir::relative_log(12), "games/00012.jsonl");
        assert_eq!(OutDir::relative_log(123_456), "games/123456.jsonl");
        assert_eq!(out.log(3), root.join("games/00003.jsonl"));
        let lock = out.create_and_lock().unwrap();
        assert!(root.join("games").is_dir());
        assert!(matches!(out.create_and_lock(), Err(LockError::Busy(_))));
        drop(lock);
        let again = out.create_and_lock().unwrap();
        drop(again);
        write_atomically(&out.results(), b"{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(out.results()).unwrap(), "{}\n");
        std::fs::remove_dir_all(&root).unwrap();
    }
}

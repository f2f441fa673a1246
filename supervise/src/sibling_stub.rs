//! The dedicated stub executable, `bao-exec-stub`, next to the running executable: found and
//! checked once per process, for [`StubChoice::Auto`](crate::StubChoice::Auto).
//!
//! Starting the stub costs what its executable costs to map and relocate: `bao-referee` is
//! tens of megabytes, `bao-exec-stub` a few hundred kilobytes (BENCHMARKS.md, issue 10). It
//! is used only if it answers `__exec-bot --stub-protocol` with this build's
//! [`STUB_PROTOCOL`], so that a stale copy left by an older build is never used; otherwise
//! the running executable re-executes itself as the stub, as it always could.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::stub_args::STUB_PROTOCOL;

/// The file name of the dedicated stub executable.
pub const STUB_EXECUTABLE: &str = "bao-exec-stub";

/// `bao-exec-stub` next to `exe`, if it is there and speaks this build's protocol (asked once
/// per process; the answer is kept).
pub(crate) fn next_to(exe: &Path) -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(|| check(&exe.with_file_name(STUB_EXECUTABLE))).as_deref()
}

fn check(candidate: &Path) -> Option<PathBuf> {
    if !candidate.is_file() {
        tracing::debug!(
            "no {} next to this executable: bots are started through this executable itself",
            candidate.display()
        );
        return None;
    }
    let answer = std::process::Command::new(candidate)
        .arg(crate::EXEC_STUB_SUBCOMMAND)
        .arg("--stub-protocol")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match answer {
        Ok(output) if output.status.success() && output.stdout.trim_ascii() == STUB_PROTOCOL.as_bytes() => {
            Some(candidate.to_path_buf())
        }
        Ok(output) => {
            tracing::warn!(
                "{} is not the stub of this build (it answered {:?} with {}, expected {STUB_PROTOCOL:?}); \
                 bots are started through this executable itself (slower); rebuild or reinstall both",
                candidate.display(),
                String::from_utf8_lossy(output.stdout.trim_ascii()),
                output.status
            );
            None
        }
        Err(e) => {
            tracing::warn!(
                "cannot run {} ({e}); bots are started through this executable itself (slower)",
                candidate.display()
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join(STUB_EXECUTABLE);
        crate::test_executable::write(&path, text);
        path
    }

    #[test]
    fn only_a_stub_of_this_build_is_used() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(check(&dir.path().join(STUB_EXECUTABLE)), None, "missing");
        let stale = script(dir.path(), "#!/bin/sh\necho bao-exec-stub 0.0.1 protocol 1\n");
        assert_eq!(check(&stale), None, "another protocol");
        let good = script(
            dir.path(),
            &format!("#!/bin/sh\n[ \"$1 $2\" = '__exec-bot --stub-protocol' ] && echo '{STUB_PROTOCOL}'\n"),
        );
        assert_eq!(check(&good), Some(good.clone()));
    }
}

//! Locating the workspace's binaries for end-to-end tests.
//!
//! The binaries of other workspace packages are not visible through
//! `CARGO_BIN_EXE_*`, so the first test that needs one builds them all with
//! the same cargo that runs the tests, once per test process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The directory holding the built binaries (target/debug or the like).
fn bin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--workspace", "--bins", "--quiet"])
            .current_dir(workspace_root())
            .status()
            .expect("run cargo build for the workspace binaries");
        assert!(status.success(), "cargo build --workspace --bins failed");
        // This test binary lives in target/<profile>/deps/.
        let exe = std::env::current_exe().expect("current_exe");
        exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf()
    })
}

/// The path of a workspace binary, e.g. `bao-referee` or `bao-random`.
pub fn bin(name: &str) -> PathBuf {
    let path = bin_dir().join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

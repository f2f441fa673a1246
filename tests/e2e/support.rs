//! Locating the binaries under test and making scratch folders for end-to-end tests.
//!
//! `bao-referee-e2e` is the `bao-referee` command line built as a binary of this package (its
//! `main` is the same one line), and `bao-misbehave` is the misbehaving bot: Cargo builds both
//! for the tests in the tests' own profile and names them in `CARGO_BIN_EXE_*`, so
//! `cargo test --release` and `cargo nextest run` run fresh binaries and no test builds anything.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The path of a binary under test: `bao-referee` or `bao-misbehave`.
pub fn bin(name: &str) -> PathBuf {
    let path = match name {
        "bao-referee" => env!("CARGO_BIN_EXE_bao-referee-e2e"),
        "bao-misbehave" => env!("CARGO_BIN_EXE_bao-misbehave"),
        "bao-scripted" => env!("CARGO_BIN_EXE_bao-scripted"),
        "bao-many-games" => env!("CARGO_BIN_EXE_bao-many-games"),
        "bao-keeper" => env!("CARGO_BIN_EXE_bao-keeper"),
        other => panic!("no binary {other} in the e2e package"),
    };
    PathBuf::from(path)
}

/// A path inside a fresh temporary folder that is removed when this value is dropped (also
/// when the test fails).
#[derive(Debug)]
pub struct Scratch {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Scratch {
    /// `name` inside a new temporary folder labelled `label`.
    pub fn new(label: &str, name: &str) -> Scratch {
        let dir =
            tempfile::Builder::new().prefix(&format!("bao-e2e-{label}-")).tempdir().expect("a temp dir");
        let path = dir.path().join(name);
        Scratch { _dir: dir, path }
    }

    /// A new, empty temporary folder labelled `label`.
    pub fn dir(label: &str) -> Scratch {
        let dir =
            tempfile::Builder::new().prefix(&format!("bao-e2e-{label}-")).tempdir().expect("a temp dir");
        let path = dir.path().to_path_buf();
        Scratch { _dir: dir, path }
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}

/// Whether `python3` runs here. A missing `python3` prints a `skipped:` line naming `test`
/// and returns false; with `BAO_REQUIRE_ALL=1` (CI) it fails the test instead.
pub fn have_python3(test: &str) -> bool {
    let found =
        std::process::Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "{test}: python3 is required (BAO_REQUIRE_ALL=1)"
        );
        eprintln!("{test}: skipped: python3 is not installed");
    }
    found
}

/// A finished command's status, stdout and stderr, for an assertion's message.
pub fn describe(out: &std::process::Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

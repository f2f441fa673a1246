//! Writing an executable script for a test, without the `ETXTBSY` race.
//!
//! A file this process opens for writing can be inherited by a child that another test's
//! thread forks at that moment; until that child `exec`s, the file has a writer, and running
//! the script fails with "Text file busy". So the script is written by a `sh` child of its
//! own: this process never holds it open for writing.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes `text` to `path` and makes it executable (mode 755), from a child process.
pub(crate) fn write(path: &Path, text: &str) {
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("sh starts");
    child.stdin.take().expect("a piped stdin").write_all(text.as_bytes()).expect("the script is written");
    assert!(child.wait().expect("sh ends").success(), "cannot write {}", path.display());
}

//! The documentation's examples run as written: every line of every ```sh block of README.md,
//! PROTOCOL.md and docs/*.md is a line of docs/examples.sh, and that script runs to the end
//! (exit 0) with the `bao-referee` under test first on PATH, as a new user runs it after the
//! README's two commands.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{Scratch, bin, workspace_root};

/// Setup commands of the docs (installing tools, building, giving the server's user its
/// subordinate ids): prerequisites, not examples.
const SETUP_COMMANDS: [&str; 4] = ["cargo", "apt-get", "npm", "usermod"];

/// The files whose examples must run.
fn documents() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut files = vec![root.join("README.md"), root.join("PROTOCOL.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The lines of the ```sh blocks of `text`, trimmed, without blank lines and setup commands.
fn sh_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            inside = !inside && trimmed == "```sh";
            continue;
        }
        let first_word = trimmed.split_whitespace().next().unwrap_or("");
        if inside && !trimmed.is_empty() && !SETUP_COMMANDS.contains(&first_word) {
            lines.push(trimmed.to_owned());
        }
    }
    lines
}

#[test]
fn every_documented_example_is_in_the_examples_script() {
    let script = std::fs::read_to_string(workspace_root().join("docs/examples.sh")).unwrap();
    let script_lines: Vec<&str> = script.lines().map(str::trim).collect();
    let mut checked = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in sh_lines(&text) {
            assert!(
                script_lines.contains(&line.as_str()),
                "{}: the example line\n    {line}\nis not in docs/examples.sh (add it there, as written, so that the tests run it)",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} example lines found: is the ```sh fence still used?");
}

#[test]
fn the_sh_blocks_are_found() {
    let text = "intro\n```sh\ncargo build\nbao-referee match \\\n  --json\n\n```\n```text\nnot me\n```\n";
    assert_eq!(sh_lines(text), ["bao-referee match \\", "--json"]);
}

/// A folder holding `bao-referee`, a link to the binary under test.
fn path_with_referee(scratch: &Path) -> String {
    let dir = scratch.join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(bin("bao-referee"), dir.join("bao-referee")).unwrap();
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

#[test]
fn the_examples_script_runs_as_written() {
    let python = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !python {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "python3 is required (BAO_REQUIRE_ALL=1)"
        );
        eprintln!("skipped: python3 is not installed (the examples use the Python sample bot)");
        return;
    }
    let scratch = Scratch::dir("doc-examples");
    let work = scratch.join("repo");
    std::fs::create_dir_all(&work).unwrap();
    // The examples name files of the repository relative to its root.
    std::os::unix::fs::symlink(workspace_root().join("sample-bots"), work.join("sample-bots")).unwrap();
    let out = Command::new("bash")
        .arg(workspace_root().join("docs/examples.sh"))
        .current_dir(&work)
        .env("PATH", path_with_referee(&scratch))
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "docs/examples.sh failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("ok: "), "verify printed its verdict: {stdout}");
    assert!(stdout.contains("[Result \""), "record printed the game: {stdout}");
    assert!(stdout.contains("All 18 checks passed."), "{stdout}");
    assert!(work.join("results/all/results.json").exists(), "the merge wrote its folder");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

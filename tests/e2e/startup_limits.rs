//! A bot that breaks a resource limit while it starts (issue 14): a Python bot that allocates
//! before it answers `ready`, under `--max-memory 20M`, is reported as exceeding its memory
//! limit (naming the option and its value), and loses by `memory_limit`, not by
//! `handshake_failed`.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{Scratch, bin, have_python3};

fn referee(args: &[&str]) -> Output {
    Command::new(bin("bao-referee")).args(args).stdin(Stdio::null()).output().expect("the referee runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A bot that grows by 1 MiB every 20 ms up to 200 MiB and only then reads `hello`. The
/// growth is slow enough for the referee's 50 ms memory sampler (where the kernel does not
/// enforce the limit) to see it long before the 2x `RLIMIT_DATA` backstop makes the
/// allocation fail, so the verdict is the memory limit on every machine.
fn memory_hog(dir: &Path) -> String {
    let script = r#"import sys, time
chunks = []
for _ in range(200):
    chunks.append(bytearray(b"x" * (1 << 20)))
    time.sleep(0.02)
sys.stdin.readline()
print('{"type": "ready", "name": "hog"}', flush=True)
sys.stdin.readline()
"#;
    let file = dir.join("hog.py");
    std::fs::write(&file, script).expect("the bot is written");
    format!("python3 {}", file.display())
}

const EXPECTED: &str =
    "bot \"python3\" cannot start: it exceeded its memory limit (--max-memory 20M) while starting";

#[test]
fn a_bot_killed_for_its_memory_while_starting_is_told_so_in_match() {
    if !have_python3("a_bot_killed_for_its_memory_while_starting_is_told_so_in_match") {
        return;
    }
    let scratch = Scratch::dir("startup-limits");
    let hog = memory_hog(&scratch);
    let log = scratch.join("game.jsonl");
    let base =
        ["match", "--north", &hog, "--max-memory", "20M", "--startup-time", "20s", "--log", path(&log)];
    let out = referee(&base);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(EXPECTED), "{err}");
    assert!(!log.exists(), "no game was played");

    // Played anyway, the bot loses by the limit it broke, and the log says so and verifies.
    let out = referee(&[&base[..], &["--forfeit-unstartable", "--json"]].concat());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&format!("warning: {EXPECTED}")), "{err}");
    let result: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(result["result"], "S wins (memory_limit)", "{result}");
    assert!(result["detail"].as_str().unwrap().contains("exceeded its memory limit"), "{result}");
    let text = std::fs::read_to_string(&log).expect("the log");
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["reason"], "memory_limit", "{last}");
    assert_eq!(last["offense"]["side"], "N", "{last}");
    let verified = referee(&["verify", path(&log)]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
}

#[test]
fn a_bot_killed_for_its_memory_while_starting_stops_the_tournament_naming_it() {
    if !have_python3("a_bot_killed_for_its_memory_while_starting_stops_the_tournament_naming_it") {
        return;
    }
    let scratch = Scratch::dir("startup-limits");
    let hog = memory_hog(&scratch);
    let out_dir = scratch.join("t");
    let hog_bot = format!("cmd={hog}");
    let out = referee(&[
        "tournament",
        "--plain",
        "--bot",
        "name=ok",
        "cmd=bao-referee sample-bot random",
        "--bot",
        "name=hog",
        &hog_bot,
        "--max-memory",
        "20M",
        "--startup-time",
        "20s",
        "--out",
        path(&out_dir),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "bot \"hog\" cannot start: it exceeded its memory limit (--max-memory 20M) while starting"
        ),
        "{err}"
    );
    assert!(!out_dir.exists(), "no folder was made");
}

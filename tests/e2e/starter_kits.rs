//! The starter kits (`sample-bots/{python,js,cpp,java}`): each passes every check of
//! `bao-referee check`, and two of them play a real match whose log verifies.
//!
//! A kit whose toolchain (python3, node, g++, java) is missing is skipped with a
//! `skipped: <lang>: <tool> not found` line on stderr; with `BAO_REQUIRE_ALL=1` (as in
//! CI) the test fails instead.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::{bin, workspace_root};

/// The number of checks `bao-referee check` runs.
const CHECKS: u64 = 18;

/// Whether `tool` can be run (`tool --version` succeeds).
fn tool_found(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Whether the kit for `lang` can run: its `tool` is installed. If not, says so on stderr
/// and returns false, or fails the test when `BAO_REQUIRE_ALL=1`.
fn toolchain(lang: &str, tool: &str) -> bool {
    if tool_found(tool) {
        return true;
    }
    assert!(
        std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
        "{lang}: {tool} not found, and BAO_REQUIRE_ALL=1 requires every starter kit to be tested"
    );
    eprintln!("skipped: {lang}: {tool} not found");
    false
}

/// Where the compiled C++ kit goes: Cargo's scratch folder for integration tests, inside
/// `target/` (nothing is left in the system's temporary folder).
fn build_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("starter-kits");
    std::fs::create_dir_all(&dir).expect("create the build directory");
    dir
}

/// The C++ kit compiled with `g++ -O2 -std=c++17` into the temporary directory, once.
fn cpp_bot() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = build_dir().join("bot-cpp");
        let output = Command::new("g++")
            .args(["-O2", "-std=c++17", "-Wall", "-Wextra", "-o"])
            .arg(&exe)
            .arg(workspace_root().join("sample-bots/cpp/bot.cpp"))
            .output()
            .expect("run g++");
        assert!(output.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&output.stderr));
        exe
    })
}

/// A kit's bot command line, run from the workspace root, and the name its `ready` gives;
/// `None` if its toolchain is missing (and skipping is allowed).
fn kit(lang: &str, seed: u32) -> Option<(String, &'static str)> {
    match lang {
        "python" => toolchain(lang, "python3")
            .then(|| (format!("python3 -B sample-bots/python/random_bot.py --seed {seed}"), "random-py")),
        "js" => toolchain(lang, "node")
            .then(|| (format!("node sample-bots/js/bot.js --seed {seed}"), "random-js")),
        "cpp" => {
            (toolchain(lang, "g++")).then(|| (format!("{} --seed {seed}", cpp_bot().display()), "random-cpp"))
        }
        "java" => toolchain(lang, "java")
            .then(|| (format!("java sample-bots/java/Bot.java --seed {seed}"), "random-java")),
        other => panic!("no starter kit {other}"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `bao-referee ARGS...` from the workspace root.
fn referee(args: &[&str]) -> Output {
    Command::new(bin("bao-referee"))
        .args(args)
        .current_dir(workspace_root())
        .stdin(Stdio::null())
        .output()
        .expect("run bao-referee")
}

/// `bao-referee check --json COMMAND` exits 0, and its report says that all 18 checks
/// passed, run against the kit's own program (its `ready` carries `name`).
fn assert_passes_every_check(lang: &str) {
    let Some((command, name)) = kit(lang, 7) else { return };
    // `java Bot.java` compiles the file at every start: give it time on a loaded machine.
    let output = referee(&["check", "--json", "--startup-time", "30s", &command]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{lang}: no JSON report ({e}): {}\nstderr: {}", text(&output.stdout), text(&output.stderr))
    });
    assert_eq!(output.status.code(), Some(0), "{lang}: `check {command}` failed: {report:#}");
    assert_eq!(report["all_passed"], true, "{lang}: {report:#}");
    assert_eq!(
        (report["passed"].as_u64(), report["failed"].as_u64(), report["skipped"].as_u64()),
        (Some(CHECKS), Some(0), Some(0)),
        "{lang}: {report:#}"
    );
    let checks = report["checks"].as_array().expect("checks");
    assert_eq!(checks.len() as u64, CHECKS);
    for check in checks {
        assert_eq!(check["status"], "pass", "{lang}: {check:#}");
    }
    // The kit says "games":"many" (protocol 1.1): two-games played its two games in one process
    // (a kit that plays one game per process passes with a note instead).
    let two_games = checks.iter().find(|c| c["name"] == "two-games").expect("the two-games check");
    assert_eq!(two_games["note"], Value::Null, "{lang}: {two_games:#}");
    // The bot that answered is the kit's (not some other program).
    let handshake = &checks[0];
    assert_eq!(handshake["name"], "handshake");
    let ready = handshake["exchange"]["head"]
        .as_array()
        .expect("exchange")
        .iter()
        .find(|line| line["dir"] == "received")
        .expect("the bot's ready line");
    let ready: Value = serde_json::from_str(ready["line"].as_str().expect("line")).expect("ready is JSON");
    assert_eq!(ready["name"], name, "{lang}: {ready}");
}

#[test]
fn the_python_kit_passes_every_check() {
    assert_passes_every_check("python");
}

#[test]
fn the_js_kit_passes_every_check() {
    assert_passes_every_check("js");
}

#[test]
fn the_cpp_kit_passes_every_check() {
    assert_passes_every_check("cpp");
}

#[test]
fn the_java_kit_passes_every_check() {
    assert_passes_every_check("java");
}

#[test]
fn the_cpp_and_js_kits_play_a_match_whose_log_verifies() {
    let (Some((south, south_name)), Some((north, north_name))) = (kit("cpp", 1), kit("js", 2)) else {
        return;
    };
    let log = crate::support::Scratch::new("kits", "cpp-vs-js.jsonl");
    let log_arg = log.to_str().expect("a UTF-8 temporary path");
    let output = referee(&[
        "match",
        "--json",
        "--south",
        &south,
        "--north",
        &north,
        "--max-plies",
        "0",
        "--log",
        log_arg,
    ]);
    assert!(output.status.success(), "match failed: {}\n{}", text(&output.stdout), text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).expect("one JSON result");
    // Without a ply limit, a game between two correct bots ends by the rules.
    let reason = result["reason"].as_str().expect("reason");
    assert!(reason == "front_row_empty" || reason == "no_legal_moves", "{result}");
    let plies = result["plies"].as_u64().expect("plies");
    assert!(plies > 0, "{result}");

    let verified = referee(&["verify", log_arg]);
    assert!(verified.status.success(), "verify failed: {}", text(&verified.stderr));
    assert_eq!(
        text(&verified.stdout).trim(),
        format!("ok: {plies} plies, {}", result["result"].as_str().expect("result"))
    );
    // Each bot's reported name is in its `ready` record, after the header.
    let records: Vec<Value> = std::fs::read_to_string(&log)
        .expect("read the log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    let ready = |side: &str| {
        records.iter().find(|r| r["type"] == "ready" && r["side"] == side).map(|r| r["name"].clone())
    };
    assert_eq!(ready("S"), Some(Value::from(south_name)));
    assert_eq!(ready("N"), Some(Value::from(north_name)));
}

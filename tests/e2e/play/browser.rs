//! A person plays a whole game against the random reference bot in headless Chromium, through
//! `bao-referee play`: its first moves by keys only, the others by clicking `data-move`
//! elements or pits on a 360 px screen, with the sound switched on, reloading mid-game; the game
//! log then verifies and holds the moves played by keys. Runs `viewer/browser-tests/play-test.mjs` (playwright-core
//! driving the system's Chromium); screenshots go to `target/play-screenshots/`.
//!
//! Needs `node` (20 or later), `npm` (to install playwright-core from
//! viewer/browser-tests/package-lock.json when its `node_modules` is missing) and Chromium
//! (`/usr/bin/chromium`, or `BAO_CHROMIUM`). When one is missing the test fails if
//! `BAO_REQUIRE_ALL=1`, and otherwise prints `skipped: <why>` to stderr and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::server::{Play, verify};

/// Fails when `BAO_REQUIRE_ALL=1`; otherwise says why the test is skipped.
fn unavailable(why: &str) {
    if std::env::var("BAO_REQUIRE_ALL").as_deref() == Ok("1") {
        panic!("play browser test cannot run (BAO_REQUIRE_ALL=1): {why}");
    }
    eprintln!("skipped: play browser test: {why}");
}

/// The major version of `node` (`v20.20.2` -> 20), if it runs.
fn node_major_version() -> Option<u32> {
    let out = Command::new("node").arg("--version").output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim().trim_start_matches('v').split('.').next()?.parse().ok()
}

#[test]
fn a_person_plays_a_whole_game_in_chromium_and_the_log_verifies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf();
    let harness = root.join("viewer/browser-tests");
    let chromium = std::env::var("BAO_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    let Some(node_major) = node_major_version() else {
        return unavailable("`node` is not installed (Node.js 20 or later is needed)");
    };
    if node_major < 20 {
        return unavailable(&format!(
            "node v{node_major} is too old: playwright-core needs Node.js 20 or later"
        ));
    }
    if !Path::new(&chromium).exists() {
        return unavailable(&format!(
            "no Chromium at {chromium} (apt-get install -y chromium, or set BAO_CHROMIUM)"
        ));
    }
    if !harness.join("node_modules/playwright-core/package.json").exists() {
        let installed = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&harness)
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            return unavailable(&format!(
                "playwright-core is not installed and `npm ci` in {} failed",
                harness.display()
            ));
        }
    }

    // North: the bot moves first, so its sowing is animated from the start.
    let mut play = Play::start(&["--bot", "random", "--side", "north", "--max-plies", "60"]);
    let screenshots = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is target/tmp")
        .join("play-screenshots");
    let spec =
        json!({"url": play.url, "screenshots": screenshots, "reload_after": 3, "keyboard": 4, "sound": true});
    let spec_file = play.log.with_file_name("spec.json");
    std::fs::write(&spec_file, spec.to_string()).expect("write the spec");
    let run = Command::new("node")
        .arg(harness.join("play-test.mjs"))
        .arg(&spec_file)
        .env("BAO_CHROMIUM", &chromium)
        .current_dir(&harness)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    eprintln!("{stdout}{stderr}");
    if run.status.code() == Some(3) {
        return unavailable(&format!("Chromium ({chromium}) could not be started: {}", stderr.trim()));
    }
    assert!(run.status.success(), "the browser checks failed ({}):\n{stdout}\n{stderr}", run.status);
    assert!(stdout.contains(" checks, 0 failed"), "the harness did not report its checks:\n{stdout}");

    // The game is over and its log complete: it verifies, and it holds the person's moves.
    verify(&play.log);
    let log = std::fs::read_to_string(&play.log).expect("the log");
    let records: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).expect("JSON lines")).collect();
    let person_plies = records.iter().filter(|r| r["type"] == "ply" && r["side"] == "N").count();
    let clicked: usize = std::fs::read_to_string(screenshots.join("moves.txt"))
        .expect("the harness counts its moves")
        .trim()
        .parse()
        .expect("a count");
    assert_eq!(person_plies, clicked, "every click is one ply of the person's in the log");
    // The moves played by keys reached the referee: they are the person's first plies.
    let by_keys: Vec<String> = std::fs::read_to_string(screenshots.join("keyboard-moves.txt"))
        .expect("the harness lists the moves it played by keys")
        .lines()
        .map(str::to_owned)
        .collect();
    let person_moves: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "ply" && r["side"] == "N")
        .filter_map(|r| r["move"].as_str())
        .collect();
    assert!(!by_keys.is_empty() && by_keys.len() == clicked.min(4), "moves by keys: {by_keys:?}");
    assert_eq!(person_moves[..by_keys.len()], by_keys[..], "the moves played by keys are in the log");
    assert!(records.last().is_some_and(|r| r["type"] == "result"), "the log ends with the result");
    assert_eq!(records[0]["north"]["command"], json!(["(a person)"]));
    // Lag compensation: the browser answered the socket's Pings by itself, so the person's
    // moves were credited the measured round trip (up to the 1 s cap), the bot's never.
    assert_eq!(records[0]["max_lag_credit_us"], json!([0, 1_000_000]), "{}", records[0]);
    let credits: Vec<u64> = records
        .iter()
        .filter(|r| r["type"] == "ply" && r["side"] == "N")
        .map(|r| r["lag_credit_us"].as_u64().unwrap_or_else(|| panic!("a person's ply has a credit: {r}")))
        .collect();
    assert!(credits.iter().all(|&c| c <= 1_000_000), "{credits:?}");
    assert!(credits.iter().any(|&c| c > 0), "the round trip was measured: {credits:?}");
    assert!(
        records
            .iter()
            .filter(|r| r["type"] == "ply" && r["side"] == "S")
            .all(|r| r.get("lag_credit_us").is_none()),
        "the bot's plies have no credit"
    );
    assert!(play.child.try_wait().expect("wait").is_none(), "the page is still served after the game");
}

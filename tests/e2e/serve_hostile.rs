//! Bots of the hostile battery (`bao-misbehave`) submitted to the competition server through
//! its API are judged as `bao-referee match` and `bao-referee check` judge them: the
//! conformance gate rejects each one, its report fails the same checks as `check` run by hand
//! with the gate's settings, and the first failure's verdict is the reason `match` gives.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::serve_support::{QUICK, Served, TestArena, script};
use crate::support::bin;

/// The gate's clocks in the test arena (as `bao-referee check --move-time 1s --startup-time 5s`).
const GATE_MOVE: &str = "1s";
const GATE_STARTUP: &str = "5s";

/// The reason `bao-referee match` gives when `command` plays South against the random bot.
fn match_reason(command: &str) -> String {
    let north = format!("{} sample-bot random --seed 7", bin("bao-referee").display());
    let out = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--south", command, "--north", &north, "--tc", "3+0"])
        .args(["--startup-time", GATE_STARTUP, "--forfeit-unstartable"])
        .stdin(Stdio::null())
        .output()
        .expect("match runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("match printed no JSON ({e}): {stdout}{}", String::from_utf8_lossy(&out.stderr))
    });
    assert_eq!(result["winner"], "N", "the misbehaving bot loses: {result}");
    result["reason"].as_str().expect("a reason").to_owned()
}

/// The checks `bao-referee check` fails for `command` with the gate's settings, with their
/// reasons.
fn check_failures(command: &str) -> Vec<(String, String)> {
    let out = Command::new(bin("bao-referee"))
        .args(["check", command, "--json", "--move-time", GATE_MOVE, "--startup-time", GATE_STARTUP])
        .stdin(Stdio::null())
        .output()
        .expect("check runs");
    assert_eq!(out.status.code(), Some(1), "check fails {command}: {}", String::from_utf8_lossy(&out.stdout));
    let report: Value = serde_json::from_slice(&out.stdout).expect("check --json prints JSON");
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| (c["name"].as_str().expect("name").to_owned(), c["why"].as_str().unwrap_or("").to_owned()))
        .collect()
}

/// The `FAIL name: why` lines of the gate's report.
fn gate_failures(report: &str) -> Vec<(String, String)> {
    report
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL "))
        .map(|l| match l.split_once(": ") {
            Some((name, why)) => (name.to_owned(), why.to_owned()),
            None => (l.to_owned(), String::new()),
        })
        .collect()
}

/// The verdict a check's reason ends with: `... (verdict: timeout)`.
fn verdict(why: &str) -> Option<&str> {
    why.rsplit_once("(verdict: ")?.1.strip_suffix(')')
}

#[test]
fn hostile_bots_submitted_through_the_api_are_judged_as_in_match() {
    let mut edits = QUICK.to_vec();
    edits.push(("submissions_per_hour = 12", "submissions_per_hour = 100"));
    let arena = TestArena::new("serve-hostile", "mallory", &edits);
    let server = Served::start(&arena);
    let misbehave = bin("bao-misbehave").display().to_string();
    // A bot that hangs, one that plays an illegal move, one that crashes, one of the wrong shape.
    let modes = ["never-answer", "illegal-move", "crash", "wrong-shape"];
    let mut submitted = Vec::new();
    for mode in modes {
        let command = format!("{misbehave} --mode {mode}");
        let file = script(arena.path(&format!("{mode}.sh")), &command);
        let v = server.submit(&arena.token, &format!("hostile-{mode}"), &file, "executable");
        submitted.push((mode, command, v["id"].as_i64().expect("an id")));
    }
    for (mode, command, id) in submitted {
        let v = server.settled(id, &arena.token, 300);
        assert_eq!(v["state"], "rejected", "{mode}: {v}");
        assert!(v["reason"].as_str().unwrap_or("").contains("conformance"), "{mode}: {v}");
        let report = v["check_report"].as_str().expect("the gate's report");
        let at_gate = gate_failures(report);
        let by_hand = check_failures(&command);
        let names = |f: &[(String, String)]| f.iter().map(|(n, _)| n.clone()).collect::<BTreeSet<_>>();
        assert_eq!(
            names(&at_gate),
            names(&by_hand),
            "{mode}: the gate and check fail different checks:\n{report}"
        );
        // Each failure has the same verdict at the gate as in `check`.
        for ((name, gate_why), (_, hand_why)) in at_gate.iter().zip(&by_hand) {
            assert_eq!(verdict(gate_why), verdict(hand_why), "{mode}/{name}: {gate_why} vs {hand_why}");
        }
        // The first failure's verdict is the reason `match` ends the game with.
        let first =
            verdict(&at_gate[0].1).unwrap_or_else(|| panic!("{mode}: no verdict in {:?}", at_gate[0]));
        assert_eq!(first, match_reason(&command), "{mode}: the gate's report:\n{report}");
    }
    // None of them played a game.
    let (_, games) = server.get_json("/api/games", None);
    assert_eq!(games.as_array().map(Vec::len), Some(0), "{games}");
    assert_eq!(server.terminate().code(), Some(130), "a stop by SIGTERM exits 130");
}

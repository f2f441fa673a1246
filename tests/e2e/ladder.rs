//! The searching reference bot against the weaker ones, through real tournaments:
//! `bao-referee sample-bot alphabeta` at a small fixed depth beats random and greedy, and
//! at 0.05 s per move it never loses on time. (Its legality on every rules case is
//! checked by direct calls in sample-bots/tests/legality.rs.)

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{Scratch, bin};

/// A tournament folder to be, inside a temporary folder removed when the test ends.
fn out_dir(name: &str) -> Scratch {
    Scratch::new("ladder", name)
}

/// `--bot` words for the built-in sample bot `kind` with `extra` arguments.
fn sample(name: &str, kind: &str, extra: &[&str]) -> Vec<String> {
    let mut words = vec![
        "--bot".to_owned(),
        format!("name={name}"),
        format!("cmd='{}'", bin("bao-referee").display()),
        "arg=sample-bot".to_owned(),
        format!("arg={kind}"),
    ];
    words.extend(extra.iter().map(|a| format!("arg={a}")));
    words
}

/// Runs a two-bot tournament of `games` games into `out` and returns its results.json.
fn tournament(out: &Path, first: &[String], second: &[String], games: u32, extra: &[&str]) -> Value {
    let output = Command::new(bin("bao-referee"))
        .arg("tournament")
        .args(first)
        .args(second)
        .args(["--games", &games.to_string(), "--openings", "random:4", "--seed", "2026"])
        .args(["--max-plies", "400", "--plain", "--out"])
        .arg(out)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("run bao-referee tournament");
    assert!(
        output.status.success(),
        "tournament failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    serde_json::from_str(&text).expect("results.json is JSON")
}

/// The first bot's points (the run must be complete).
fn first_points(results: &Value) -> f64 {
    assert_eq!(results["complete"], true, "{results}");
    results["pairings"][0]["first_points"].as_f64().expect("first_points")
}

#[test]
fn alphabeta_at_depth_2_beats_random_and_greedy() {
    let ab = sample("alphabeta", "alphabeta", &["--depth", "2"]);
    let dir = out_dir("random");
    let results = tournament(
        &dir,
        &ab,
        &sample("random", "random", &[]),
        20,
        &["--tc", "30+0.1", "--concurrency", "2"],
    );
    let points = first_points(&results);
    assert!(points >= 19.0, "alphabeta --depth 2 scored {points}/20 against random: {results}");
    let dir = out_dir("greedy");
    let results = tournament(
        &dir,
        &ab,
        &sample("greedy", "greedy", &[]),
        20,
        &["--tc", "30+0.1", "--concurrency", "2"],
    );
    let points = first_points(&results);
    assert!(points >= 17.0, "alphabeta --depth 2 scored {points}/20 against greedy: {results}");
}

#[test]
fn alphabeta_never_loses_on_time_at_50_ms_per_move() {
    let dir = out_dir("time");
    let results = tournament(
        &dir,
        &sample("alphabeta", "alphabeta", &["--time"]),
        &sample("random", "random", &[]),
        20,
        // The referee's default margin (100 ms) absorbs scheduling on a loaded CI machine;
        // the bot itself aims at 42.5 ms (bao_sdk::Deadline).
        &["--move-time", "50ms", "--concurrency", "1"],
    );
    let reasons = &results["reasons"];
    let reasons = reasons.as_object().expect("reasons");
    assert!(!reasons.contains_key("timeout"), "a game was lost on time: {results}");
    assert_eq!(reasons.values().filter_map(Value::as_u64).sum::<u64>(), 20, "{results}");
    let points = first_points(&results);
    assert!(points >= 19.0, "alphabeta --time scored {points}/20 against random: {results}");
}

//! `tournament --trace DIR` writes one timestamped trace per game, `DIR/NNNNN.trace`, and
//! `tournament --debug` prints every game's lines on stderr with the game's number (issue 14).

use std::process::{Command, Output, Stdio};

use crate::support::{Scratch, bin};

fn tournament(extra: &[&str]) -> Output {
    Command::new(bin("bao-referee"))
        .args(["tournament", "--plain", "--games", "2", "--max-plies", "2", "--concurrency", "1"])
        .args(["--bot", "name=r", "cmd=bao-referee sample-bot random"])
        .args(["--bot", "name=g", "cmd=bao-referee sample-bot greedy"])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("the referee runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every line starts with a time in seconds.
fn assert_timestamped(text: &str) {
    for line in text.lines() {
        let time = line.split_whitespace().next().unwrap_or("");
        assert!(time.parse::<f64>().is_ok(), "a timestamp first: {line}");
    }
}

#[test]
fn trace_dir_holds_one_file_per_game_with_every_line() {
    let scratch = Scratch::dir("tournament-trace");
    let (out_dir, trace_dir) = (scratch.join("t"), scratch.join("traces/new"));
    let out = tournament(&["--out", out_dir.to_str().unwrap(), "--trace", trace_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut names: Vec<String> = std::fs::read_dir(&trace_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["00000.trace", "00001.trace"]);
    // Game 0: r is South, g is North (game 1 swaps the colours).
    let text = std::fs::read_to_string(trace_dir.join("00000.trace")).unwrap();
    assert_timestamped(&text);
    assert!(text.contains(">r(S): {\"type\":\"hello\""), "{text}");
    assert!(text.contains("<g(N): {\"type\":\"ready\""), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(": {\"type\":\"move\",")).count(), 2, "{text}");
    // The sample bots say "games":"many": their processes are kept for game 1 (protocol 1.1),
    // so game 0 ends with game_over to both, and no quit.
    assert_eq!(text.lines().filter(|l| l.contains(": {\"type\":\"game_over\",")).count(), 2, "{text}");
    assert_eq!(text.lines().filter(|l| l.ends_with(": {\"type\":\"quit\"}")).count(), 0, "{text}");
    let second = std::fs::read_to_string(trace_dir.join("00001.trace")).unwrap();
    assert!(second.contains(">g(S): {\"type\":\"hello\""), "{second}");
}

#[test]
fn debug_prints_every_game_s_lines_with_its_number() {
    let out_dir = Scratch::new("tournament-trace", "t");
    let out = tournament(&["--out", out_dir.to_str().unwrap(), "--debug"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    for game in ["game 0 ", "game 1 "] {
        let lines: Vec<&str> = err.lines().filter(|l| l.contains(game) && l.contains("): {")).collect();
        assert!(lines.iter().any(|l| l.contains(&format!("{game}>r("))), "{err}");
        assert_eq!(lines.iter().filter(|l| l.contains("{\"type\":\"move\",")).count(), 2, "{game}: {err}");
        assert_timestamped(&lines.join("\n"));
    }
}

#[test]
fn a_trace_dir_that_cannot_be_made_is_refused_before_any_game() {
    let scratch = Scratch::dir("tournament-trace");
    let file = scratch.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out_dir = scratch.join("t");
    let bad = file.join("traces");
    let out = tournament(&["--out", out_dir.to_str().unwrap(), "--trace", bad.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--trace") && err.contains(bad.to_str().unwrap()), "{err}");
    assert!(!out_dir.exists(), "no game was played");
    let both = tournament(&["--out", out_dir.to_str().unwrap(), "--trace", "x", "--debug"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(stderr(&both).contains("cannot be used with"), "{}", stderr(&both));
}

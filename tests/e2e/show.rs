//! `bao-referee show`: a real game's log drawn in the terminal, as an HTML replay, and followed
//! while it is being written.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::support::{Scratch, bin};

fn referee(args: &[&str]) -> Output {
    Command::new(bin("bao-referee")).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A finished 20-ply game between the sample bots.
fn game(name: &str) -> Scratch {
    let log = Scratch::new("show", name);
    let out = referee(&["match", "--json", "--max-plies", "20", "--log", log.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    log
}

#[test]
fn show_draws_every_ply_and_the_result_as_plain_text_when_not_a_terminal() {
    let log = game("all.jsonl");
    let out = referee(&["show", log.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.starts_with("Ply 0: kiswahili start position"), "{shown}");
    assert!(shown.contains("Ply 20: "), "{shown}");
    assert!(
        shown.trim_end().ends_with("Result: draw, max_plies: adjudicated a draw after 20 plies"),
        "{shown}"
    );
    assert!(!shown.contains('\x1b'), "no colour when stdout is a pipe");
    let coloured = referee(&["show", log.to_str().unwrap(), "--colour", "always"]);
    assert!(text(&coloured.stdout).contains("\x1b["), "colour on request");
}

#[test]
fn show_ply_draws_one_board_and_names_a_ply_that_is_not_there() {
    let log = game("one.jsonl");
    let out = referee(&["show", log.to_str().unwrap(), "--ply", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.starts_with("Ply 3: South ("), "{shown}");
    assert!(!shown.contains("Ply 4"), "{shown}");
    let out = referee(&["show", log.to_str().unwrap(), "--ply", "21"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--ply 21: the log has 20 plies"), "{}", text(&out.stderr));
}

#[test]
fn show_html_writes_one_self_contained_replay_with_the_games_steps() {
    let log = game("html.jsonl");
    let html = Scratch::new("show", "replay.html");
    let out = referee(&["show", log.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") || page.starts_with("<!doctype html>"), "{}", &page[..80]);
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"), "no network resources");
    assert!(page.contains(r#""op":"drop""#), "the rules engine's sowing steps are embedded");
    assert!(page.contains("max_plies"), "the result is embedded");
}

#[test]
fn show_rejects_a_file_that_is_not_a_log() {
    let bad = Scratch::new("show", "bad.jsonl");
    std::fs::write(&bad, "not json\n").unwrap();
    let out = referee(&["show", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("line 1: not a log record"), "{}", text(&out.stderr));
    let out = referee(&["show", "/nonexistent/log.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read /nonexistent/log.jsonl"), "{}", text(&out.stderr));
}

#[test]
fn show_follow_draws_plies_as_the_log_grows_and_stops_at_the_result() {
    let finished = game("follow-source.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&finished).unwrap().lines().map(str::to_owned).collect();
    let growing = Scratch::new("show", "growing.jsonl");
    // The header and the first 5 plies, then the rest a line at a time.
    std::fs::write(&growing, lines[..6].iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let child = Command::new(bin("bao-referee"))
        .args(["show", "--follow", growing.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut file = std::fs::OpenOptions::new().append(true).open(&growing).unwrap();
    for line in &lines[6..] {
        std::thread::sleep(Duration::from_millis(30));
        file.write_all(format!("{line}\n").as_bytes()).unwrap();
    }
    drop(file);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    for ply in 0..=20 {
        assert_eq!(shown.matches(&format!("Ply {ply}: ")).count(), 1, "ply {ply} drawn once:\n{shown}");
    }
    assert!(shown.contains("Result: draw"), "{shown}");
}

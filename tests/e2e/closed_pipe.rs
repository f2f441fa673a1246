//! Output to a closed pipe (`| head`) ends every printing subcommand quietly, with its usual
//! exit code (issue 14). `first_hour.rs` covers the text forms of check, tournament, match,
//! record, show, verify and `rules start`; these are the rest: every `--json`, the other
//! `rules` commands, `merge`, `--version`, and the sample bots themselves.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support::{Scratch, bin};

/// Runs the referee with `args`, stdout a pipe whose reader is already gone (as after
/// `| head -1` exited) and `input` on stdin.
fn into_closed_pipe(args: &[&str], input: &str) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = Command::new(bin("bao-referee"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the referee runs");
    let mut stdin = child.stdin.take().expect("a stdin");
    // A bot may stop reading early; what it did not read does not matter.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("it ends")
}

fn assert_quiet(args: &[&str], input: &str) {
    let out = into_closed_pipe(args, input);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe") && !err.contains("os error 32"),
        "{args:?}: {err}"
    );
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn every_json_and_rules_output_ends_quietly_on_a_closed_pipe() {
    let scratch = Scratch::dir("closed-pipe");
    let log = scratch.join("g.jsonl");
    let trace = scratch.join("g.trace");
    let played = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--max-plies", "4", "--log", path(&log), "--trace", path(&trace)])
        .output()
        .unwrap();
    assert!(played.status.success(), "{}", String::from_utf8_lossy(&played.stderr));
    let (folder, merged) = (scratch.join("t"), scratch.join("merged"));
    let start = String::from_utf8(
        Command::new(bin("bao-referee")).args(["rules", "start", "kiswahili"]).output().unwrap().stdout,
    )
    .unwrap()
    .trim()
    .to_owned();
    let tournament = [
        "tournament",
        "--json",
        "--plain",
        "--max-plies",
        "2",
        "--bot",
        "name=r",
        "cmd=bao-referee sample-bot random",
        "--bot",
        "name=g",
        "cmd=bao-referee sample-bot greedy",
        "--out",
        path(&folder),
    ];
    for args in [
        &["match", "--json", "--max-plies", "2", "--log", path(&scratch.join("m.jsonl"))][..],
        &tournament[..],
        &["merge", path(&folder), "--out", path(&merged)][..],
        &["merge", path(&folder), "--json", "--out", path(&scratch.join("merged-json"))][..],
        &["record", "--json", path(&log)][..],
        &["show", path(&log), "--ply", "2"][..],
        &["show", path(&log), "--follow"][..],
        &["rules", "legal", &start][..],
        &["rules", "play", &start, "A7<", "a5<"][..],
        &["rules", "perft", &start, "2"][..],
        &["rules", "show", &start][..],
        &["--version"][..],
        &["tournament", "--dry-run", "--json", "--bot", "cmd=a", "--bot", "cmd=b"][..],
    ] {
        assert_quiet(args, "");
    }
    // The rules batch mode reads positions from stdin.
    assert_quiet(&["rules", "legal"], &format!("{start}\n{start}\n"));

    // A sample bot whose stdout is closed (the referee has gone) ends quietly too.
    let to_south: String = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.split_once("(S): ").filter(|(head, _)| head.contains('>')).map(|(_, line)| format!("{line}\n"))
        })
        .collect();
    assert!(to_south.contains("\"type\":\"move_request\""), "{to_south}");
    for kind in ["random", "greedy", "alphabeta", "mcts"] {
        assert_quiet(&["sample-bot", kind, "--seed", "1"], &to_south);
    }
}

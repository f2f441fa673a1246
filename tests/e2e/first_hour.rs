//! A bot author's first hour (issue 14): nothing fails silently, every bad value is refused
//! with exit 2 and the option's name, output to a closed pipe ends quietly, and the tools a
//! cutechess user looks for (`--debug`, `--trace`, info beside moves, per-bot clocks and
//! options, `record`).

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

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A Python bot: `on_hello` and `on_game_over` are Python statements run with `m` the message.
fn python_bot(dir: &Path, name: &str, on_hello: &str, on_game_over: &str) -> String {
    let script = format!(
        r#"import json, sys
def send(obj):
    print(json.dumps(obj), flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        {on_hello}
        send({{"type": "ready", "name": "{name}"}})
    elif m["type"] == "move_request":
        send({{"type": "move", "id": m["id"], "move": m["legal"][0]}})
    elif m["type"] == "game_over":
        {on_game_over}
    elif m["type"] == "quit":
        break
"#
    );
    let file = dir.join(format!("{name}.py"));
    std::fs::write(&file, script).expect("the bot is written");
    format!("python3 {}", file.display())
}

#[test]
fn a_bot_that_cannot_start_stops_the_match_with_exit_2_naming_it() {
    let log = Scratch::new("first-hour", "game.jsonl");
    for (north, dir, needles) in [
        (
            "no-such-bot-xyz --fast",
            None,
            &["\"no-such-bot-xyz\"", "command: no-such-bot-xyz --fast", "not found"][..],
        ),
        ("sh -c 'echo cannot open bot.js >&2; exit 1'", None, &["cannot open bot.js", "exit code 1"][..]),
        ("sh -c 'read hello; sleep 5'", None, &["no ready within the startup time"][..]),
        ("true", Some("/no/such/dir"), &["directory: /no/such/dir", "is not a directory"][..]),
    ] {
        let mut args = vec!["match", "--north", north, "--startup-time", "1s", "--log", path(&log)];
        if let Some(dir) = dir {
            args.extend(["--north-dir", dir]);
        }
        let out = referee(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{north}: {err}");
        assert!(err.contains("error: bot "), "{north}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{north}: no {needle:?} in {err}");
        }
        assert!(stdout(&out).is_empty(), "{north}: no game is shown: {}", stdout(&out));
    }
}

#[test]
fn bao_referee_in_a_bot_command_is_this_referee() {
    let log = Scratch::new("first-hour", "self.jsonl");
    let out = referee(&[
        "match",
        "--json",
        "--max-plies",
        "6",
        "--north",
        "bao-referee sample-bot greedy",
        "--log",
        path(&log),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(result["reason"], "max_plies", "{result}");
}

#[test]
fn a_tournament_with_an_unstartable_bot_stops_unless_it_is_scored_as_forfeits() {
    let out_dir = Scratch::new("first-hour", "t");
    let bots = [
        "--bot",
        "name=ok",
        "cmd=bao-referee sample-bot random",
        "--bot",
        "name=typo",
        "cmd=bao-refere sample-bot",
    ];
    let mut args = vec!["tournament", "--plain", "--games", "2", "--out", path(&out_dir)];
    args.extend(bots);
    let out = referee(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bot \"typo\" cannot start") && err.contains("command: bao-refere sample-bot"),
        "{err}"
    );
    assert!(err.contains("--forfeit-unstartable"), "the way out is named: {err}");
    assert!(!out_dir.exists(), "no game was played and no folder was made");

    args.push("--forfeit-unstartable");
    let out = referee(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("warning: bot \"typo\" cannot start"), "{err}");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["reasons"]["handshake_failed"], 2, "{results:#}");
}

#[test]
fn zero_absurd_and_conflicting_values_are_refused_naming_the_option() {
    let kujifunza = stdout(&referee(&["rules", "start", "kujifunza"])).trim().to_owned();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--move-time", "0"], "--move-time"),
        (vec!["--startup-time", "0"], "--startup-time"),
        (vec!["--max-memory", "0"], "--max-memory"),
        (vec!["--max-output", "0"], "--max-output"),
        (vec!["--max-cpu", "0"], "--max-cpu"),
        (vec!["--max-processes", "0"], "--max-processes"),
        (vec!["--tc", "10"], "10+0"),
        (vec!["--tc", "1e19+0"], "--tc"),
        (vec!["--tc", "10+1e19"], "--tc"),
        (vec!["--startup-time", "1e19"], "--startup-time"),
        (vec!["--margin", "1e19"], "--margin"),
        (vec!["--variant", "kiswahili", "--start", &kujifunza], "--variant kiswahili conflicts with --start"),
    ];
    for (extra, needle) in &cases {
        for command in ["match", "tournament"] {
            let mut args = vec![command];
            if command == "tournament" {
                args.extend(["--dry-run", "--bot", "cmd=a", "--bot", "cmd=b"]);
            }
            args.extend(extra.iter().copied());
            let out = referee(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{command} {extra:?}: {err}");
            assert!(err.contains(needle), "{command} {extra:?}: no {needle:?} in {err}");
            assert!(!err.contains("panicked"), "{command} {extra:?}: {err}");
        }
    }
    for (args, needle) in [
        (&["tournament", "--concurrency", "0", "--bot", "cmd=a", "--bot", "cmd=b"][..], "--concurrency"),
        (&["tournament", "--resume", "--bot", "cmd=a", "--bot", "cmd=b"][..], "--resume needs --out"),
        (&["tournament", "--dry-run", "--bot", "cmd=a", "tc=10", "--bot", "cmd=b"][..], "--bot #1: tc=10"),
        (&["check", "true", "--tc", "0+1"][..], "--tc"),
    ] {
        let out = referee(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn errors_are_printed_once_with_their_path_and_prefix() {
    let scratch = Scratch::dir("first-hour");
    let file = scratch.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("out");
    let out = referee(&[
        "tournament",
        "--bot",
        "name=r",
        "cmd=bao-referee sample-bot random",
        "--bot",
        "name=g",
        "cmd=bao-referee sample-bot greedy",
        "--out",
        path(&under_file),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("os error 20").count(), 1, "the OS error once: {err}");
    assert!(err.contains(path(&under_file)), "{err}");

    let out = referee(&["match", "--max-plies", "2", "--log", "/dev/full"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("/dev/full"), "{}", stderr(&out));

    let bad_log = scratch.join("bad.jsonl");
    std::fs::write(&bad_log, "{\"type\":\"nonsense\"}\n").unwrap();
    let out = referee(&["verify", path(&bad_log)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
}

#[test]
fn merge_into_a_taken_folder_is_exit_2() {
    let scratch = Scratch::dir("first-hour");
    let played = scratch.join("played");
    let out = referee(&[
        "tournament",
        "--plain",
        "--games",
        "2",
        "--max-plies",
        "4",
        "--bot",
        "name=a",
        "cmd=bao-referee sample-bot random",
        "--bot",
        "name=b",
        "cmd=bao-referee sample-bot greedy",
        "--out",
        path(&played),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = referee(&["merge", path(&played), "--out", path(&played)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--out"), "{}", stderr(&out));
}

#[test]
fn the_match_console_shows_one_result_and_the_bots_info() {
    let log = Scratch::new("first-hour", "console.jsonl");
    let out = referee(&["match", "--max-plies", "4", "--log", path(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().filter(|l| l.starts_with("Result:")).count(), 1, "{text}");
    assert!(!text.contains("ongoing"), "{text}");
    // The greedy sample bot (South) reports its search with every move.
    let first = text.lines().find(|l| l.trim_start().starts_with("1. S ")).expect("the first move");
    assert!(first.contains("depth ") && first.contains("nodes "), "{first}");
}

#[test]
fn debug_and_trace_show_every_line_with_its_time() {
    let scratch = Scratch::dir("first-hour");
    let log = scratch.join("g.jsonl");
    let trace = scratch.join("trace.txt");
    let out = referee(&["match", "--max-plies", "2", "--log", path(&log), "--trace", path(&trace)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().any(|l| l.contains(">sample-greedy(S): {\"type\":\"hello\"")), "{text}");
    assert!(lines.iter().any(|l| l.contains("<sample-random(N): {\"type\":\"ready\"")), "{text}");
    assert_eq!(lines.iter().filter(|l| l.contains(": {\"type\":\"move\",")).count(), 2, "{text}");
    assert!(lines.iter().any(|l| l.contains(">sample-random(N): {\"type\":\"game_over\"")), "{text}");
    assert_eq!(lines.iter().filter(|l| l.ends_with(": {\"type\":\"quit\"}")).count(), 2, "{text}");
    for line in &lines {
        let time = line.split_whitespace().next().unwrap();
        assert!(time.parse::<f64>().is_ok(), "a timestamp first: {line}");
    }
    let out = referee(&["match", "--max-plies", "2", "--log", path(&log), "--debug"]);
    assert!(stderr(&out).contains(">sample-random(N): {\"type\":\"move_request\""), "{}", stderr(&out));
}

#[test]
fn record_prints_numbered_move_pairs_and_the_result() {
    let log = Scratch::new("first-hour", "record.jsonl");
    let out = referee(&["match", "--json", "--max-plies", "5", "--log", path(&log)]);
    assert_eq!(out.status.code(), Some(0));
    let plies: Vec<Value> = std::fs::read_to_string(&*log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "ply")
        .collect();
    let text = stdout(&referee(&["record", path(&log)]));
    let mv = |i: usize| plies[i]["move"].as_str().unwrap().to_owned();
    let first_pair = format!("1. {} {}", mv(0), mv(1).to_lowercase());
    assert!(text.contains(&first_pair), "{first_pair:?} in {text}");
    assert!(text.contains(&format!("3. {}\n", mv(4))), "{text}");
    assert!(
        text.contains("[Result \"draw (max_plies)\"]")
            && text.contains("\ndraw (max_plies)\n{adjudicated a draw after 5 plies}"),
        "{text}"
    );
    let json: Value = serde_json::from_slice(&referee(&["record", "--json", path(&log)]).stdout).unwrap();
    assert_eq!(json["moves"][0]["north"], mv(1).to_lowercase());
    assert_eq!(json["plies"], 5);
    assert_eq!(json["reason"], "max_plies");
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    let log = Scratch::new("first-hour", "pipe.jsonl");
    let scratch = Scratch::dir("first-hour");
    let logs_dir = scratch.join("t");
    for args in [
        &["check", "--json", "bao-referee sample-bot random", "--only", "first-move"][..],
        &["check", "bao-referee sample-bot random", "--only", "first-move,north-reply"][..],
        &["tournament", "--dry-run", "--bot", "cmd=a", "--bot", "cmd=b"][..],
        &[
            "tournament",
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
            path(&logs_dir),
        ][..],
        &["match", "--max-plies", "4", "--log", path(&log)][..],
        &["record", path(&log)][..],
        &["show", path(&log)][..],
        &["verify", path(&log)][..],
        &["rules", "start", "kiswahili"][..],
        &["--help"][..],
    ] {
        // A pipe whose read end is already closed, as after `| head -1` has exited.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(bin("bao-referee"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn a_replaying_tournament_warns_before_it_starts() {
    let base = ["tournament", "--dry-run", "--bot", "cmd=a", "--bot", "cmd=b"];
    let out = referee(&[&base[..], &["--games", "4"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The dry run writes nothing and plays nothing, so it does not warn; a real run does.
    let dir = Scratch::new("first-hour", "replay");
    let real = [
        "tournament",
        "--plain",
        "--games",
        "4",
        "--max-plies",
        "2",
        "--bot",
        "name=a",
        "cmd=bao-referee sample-bot random",
        "--bot",
        "name=b",
        "cmd=bao-referee sample-bot greedy",
        "--out",
        path(&dir),
    ];
    let out = referee(&real);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning: every game starts from the same position"), "{}", stderr(&out));
    let distinct = Scratch::new("first-hour", "distinct");
    let mut args = real.to_vec();
    let last = args.len() - 1;
    args[last] = path(&distinct);
    args.extend(["--openings", "random:4"]);
    let out = referee(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning: every game"), "{}", stderr(&out));
}

#[test]
fn per_bot_clocks_and_options_reach_the_bot() {
    let dir = Scratch::new("first-hour", "per-bot");
    let out = referee(&[
        "tournament",
        "--plain",
        "--games",
        "2",
        "--max-plies",
        "2",
        "--bot",
        "name=a",
        "cmd=bao-referee sample-bot random",
        "option.seed=9",
        "tc=3+0.5",
        "--bot",
        "name=b",
        "cmd=bao-referee sample-bot greedy",
        "st=0.7",
        "--out",
        path(&dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log = std::fs::read_to_string(dir.join("games/00000.jsonl")).unwrap();
    let header: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    let command = header["south"]["command"].as_array().unwrap();
    assert_eq!(command[command.len() - 2..], [Value::from("--seed"), Value::from("9")], "{header:#}");
    assert_eq!(header["time_controls"][0]["base"], 3000, "{header:#}");
    assert_eq!(header["time_controls"][0]["increment"], 500, "{header:#}");
    assert_eq!(header["time_controls"][1]["move_time"], 700, "{header:#}");
    let plies = log.lines().filter(|l| l.contains("\"type\":\"ply\"")).count();
    assert_eq!(plies, 2, "both bots played under their own clocks: {log}");
}

#[test]
fn check_fails_a_bot_that_only_handles_one_clock_or_answers_game_over() {
    if !have_python3("check_fails_a_bot_that_only_handles_one_clock_or_answers_game_over") {
        return;
    }
    let scratch = Scratch::dir("first-hour");
    let fischer_crash = python_bot(
        &scratch,
        "movetime-only",
        r#"if m["time_control"]["base_ms"] is not None: sys.exit("no idea what base_ms is")"#,
        "pass",
    );
    let out = referee(&["check", "--json", &fischer_crash]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["base_ms"], 10000, "Fischer is the default, as in match");
    let status = |name: &str| {
        let check = report["checks"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap();
        (check["status"].as_str().unwrap().to_owned(), check.clone())
    };
    assert_eq!(status("handshake").0, "fail", "{report:#}");
    let out = referee(&["check", "--json", "--move-time", "1s", &fischer_crash]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["fischer-clock"], "{report:#}");
    let check = report["checks"].as_array().unwrap().iter().find(|c| c["name"] == "fischer-clock").unwrap();
    assert!(check["stderr_tail"].as_str().unwrap_or("").contains("no idea what base_ms is"), "{check:#}");

    let replier =
        python_bot(&scratch, "replier", "pass", r#"send({"type": "move", "id": 0, "move": "A1<"})"#);
    let out = referee(&["check", "--json", &replier, "--only", "game-over-no-reply"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check =
        report["checks"].as_array().unwrap().iter().find(|c| c["name"] == "game-over-no-reply").unwrap();
    assert_eq!(check["status"], "fail", "{report:#}");
    assert!(check["why"].as_str().unwrap().contains("after game_over"), "{check:#}");
    let shown = serde_json::to_string(&check["exchange"]).unwrap();
    assert!(shown.contains("game_over") && shown.contains(r#"\"id\": 0"#), "the lines are shown: {shown}");
}

//! `bao-referee check`: the conformance checker passes the sample bots and the Python
//! template, fails misbehaving bots on the right checks with the offending line shown, exits
//! 0 / 1 / 2 as documented, and leaves no process behind.

use std::collections::BTreeSet;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{bin, workspace_root};

/// Every check, in the order the checker runs them.
const ALL_CHECKS: [&str; 17] = [
    "handshake",
    "first-move",
    "fischer-clock",
    "move-time-clock",
    "north-reply",
    "namua-midgame",
    "mtaji-kujifunza",
    "mtaji-kiswahili",
    "one-legal-move",
    "takasia",
    "safari-choice",
    "ids-increase",
    "game-over-quit",
    "game-over-no-reply",
    "end-of-input",
    "unknown-fields",
    "long-game",
];

/// The checks that ask the bot for a move.
const MOVE_CHECKS: [&str; 14] = [
    "first-move",
    "fischer-clock",
    "move-time-clock",
    "north-reply",
    "game-over-no-reply",
    "namua-midgame",
    "mtaji-kujifunza",
    "mtaji-kiswahili",
    "one-legal-move",
    "takasia",
    "safari-choice",
    "ids-increase",
    "unknown-fields",
    "long-game",
];

/// A unique word to find a test's bot processes in /proc.
fn unique_tag(what: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!("check-{what}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// Runs `bao-referee check COMMAND ARGS...`, failing the test if it takes over a minute.
fn check(command: &str, args: &[&str]) -> Output {
    let started = Instant::now();
    let output = Command::new(bin("bao-referee"))
        .arg("check")
        .arg(command)
        .args(args)
        .current_dir(workspace_root())
        .stdin(Stdio::null())
        .output()
        .expect("run bao-referee check");
    assert!(started.elapsed() < Duration::from_secs(60), "check of {command} took {:?}", started.elapsed());
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs the checker with `--json` and returns its report, asserting the exit code.
fn check_json(command: &str, args: &[&str], code: i32) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = check(command, &all);
    assert_eq!(
        output.status.code(),
        Some(code),
        "check of {command}: stdout: {}\nstderr: {}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout(&output).trim())
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {}", stdout(&output)))
}

/// The names of the checks of a JSON report with `status`.
fn with_status(report: &Value, status: &str) -> BTreeSet<String> {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == status)
        .map(|c| c["name"].as_str().expect("name").to_owned())
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// The report of one check.
fn check_named<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"].as_array().expect("checks").iter().find(|c| c["name"] == name).expect("check present")
}

fn assert_all_pass(command: &str) {
    let report = check_json(command, &["--move-time", "1s"], 0);
    assert_eq!(with_status(&report, "pass"), set(&ALL_CHECKS), "{report:#}");
    assert_eq!(report["all_passed"], true);
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64()), (Some(17), Some(0)));
    let names: Vec<&str> =
        report["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ALL_CHECKS, "the checks run in their documented order");
    // The exchange is recorded for passing checks too: the long game ends with a note.
    let long_game = check_named(&report, "long-game");
    let tail = long_game["exchange"]["tail"].as_array().unwrap();
    let last = tail.last().expect("an exchange");
    assert_eq!(last["dir"], "note", "{long_game:#}");
    assert!(last["line"].as_str().unwrap().starts_with("the game "), "{last}");
}

#[test]
fn the_sample_bots_pass_every_check() {
    let referee = bin("bao-referee").display().to_string();
    assert_all_pass(&format!("{referee} sample-bot random"));
    assert_all_pass(&format!("{referee} sample-bot greedy --seed 3"));
}

#[test]
fn the_python_template_passes_every_check() {
    let script = workspace_root().join("sample-bots/python/random_bot.py");
    assert_all_pass(&format!("python3 {} --seed 5", script.display()));
}

#[test]
fn the_report_for_people_has_one_line_per_check() {
    let referee = bin("bao-referee").display().to_string();
    let output = check(&format!("{referee} sample-bot random"), &["--move-time", "1s"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("Checking `"), "{text}");
    for (line, name) in lines[1..].iter().zip(ALL_CHECKS) {
        assert_eq!(*line, format!("PASS {name}"));
    }
    assert_eq!(lines.last(), Some(&"All 17 checks passed."));
    assert_eq!(lines.len(), 19, "{text}");
}

#[test]
fn an_illegal_move_fails_every_move_check_and_shows_the_line() {
    let tag = unique_tag("illegal");
    let command = format!("{} --mode illegal-move --tag {tag}", bin("bao-misbehave").display());
    let output = check(&command, &["--move-time", "1s"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let text = stdout(&output);
    for name in MOVE_CHECKS {
        assert!(text.contains(&format!("\nFAIL {name}: ")), "{name} should fail:\n{text}");
    }
    for name in ["handshake", "game-over-quit", "end-of-input"] {
        assert!(text.contains(&format!("\nPASS {name}\n")), "{name} should pass:\n{text}");
    }
    // The failure says why, what a correct bot does, and shows the bot's line, indented.
    let first = text.split("\nFAIL first-move: ").nth(1).expect("first-move failed");
    let block: Vec<&str> = first.split("\nFAIL ").next().unwrap().lines().collect();
    assert!(block[0].starts_with(r#"the move "A1<" is illegal"#), "{}", block[0]);
    assert!(block[0].ends_with("(verdict: illegal_move)"), "{}", block[0]);
    assert!(block[0].contains("A6< A6> A7< A7>"), "the legal moves are listed: {}", block[0]);
    assert!(block[1].starts_with("    expected: A correct bot"), "{}", block[1]);
    assert!(block.contains(&r#"      <- {"type":"move","id":1,"move":"A1<"}"#), "{block:#?}");
    assert!(
        block.iter().any(|l| l.starts_with(r#"      -> {"type":"move_request","id":1,"ply":0"#)),
        "{block:#?}"
    );
    assert!(text.trim_end().ends_with("3 of 17 checks passed; failed: first-move, fischer-clock, move-time-clock, north-reply, namua-midgame, mtaji-kujifunza, mtaji-kiswahili, one-legal-move, takasia, safari-choice, ids-increase, game-over-no-reply, unknown-fields, long-game."), "{text}");
    assert!(crate::hostile::processes_with(&tag).is_empty(), "processes left behind");
}

#[test]
fn a_bot_that_never_answers_fails_on_time() {
    let tag = unique_tag("never");
    let command = format!("{} --mode never-answer --tag {tag}", bin("bao-misbehave").display());
    let started = Instant::now();
    let report =
        check_json(&command, &["--move-time", "0.3s", "--only", "first-move,long-game,game-over-quit"], 1);
    assert!(started.elapsed() < Duration::from_secs(15), "took {:?}", started.elapsed());
    assert_eq!(with_status(&report, "fail"), set(&["first-move", "long-game"]), "{report:#}");
    assert_eq!(with_status(&report, "pass"), set(&["handshake", "game-over-quit"]), "{report:#}");
    let why = check_named(&report, "first-move")["why"].as_str().unwrap();
    assert_eq!(
        why,
        "no move within 400 ms (the move time of 300 ms plus the margin of 100 ms) (verdict: timeout)"
    );
    // The last line of the exchange is the request left unanswered.
    let head = check_named(&report, "first-move")["exchange"]["head"].as_array().unwrap();
    let last = head.last().unwrap();
    assert_eq!(last["dir"], "sent");
    assert!(last["line"].as_str().unwrap().starts_with(r#"{"type":"move_request","id":1,"#), "{last}");
    assert!(crate::hostile::processes_with(&tag).is_empty(), "processes left behind");
}

#[test]
fn a_bot_that_exits_at_once_fails_the_handshake_and_nothing_else_runs() {
    let command = format!("{} --mode exit-at-once", bin("bao-misbehave").display());
    let report = check_json(&command, &[], 1);
    assert_eq!(with_status(&report, "fail"), set(&["handshake"]));
    assert_eq!(with_status(&report, "skip").len(), 16, "{report:#}");
    assert_eq!(
        (report["passed"].as_u64(), report["failed"].as_u64(), report["skipped"].as_u64()),
        (Some(0), Some(1), Some(16))
    );
    let why = check_named(&report, "handshake")["why"].as_str().unwrap();
    assert!(why.contains("exit code 3") && why.ends_with("(verdict: handshake_failed)"), "{why}");
}

#[test]
fn a_bot_that_answers_twice_fails_only_the_checks_with_several_requests() {
    let command = format!("{} --mode answer-twice", bin("bao-misbehave").display());
    let report = check_json(&command, &["--move-time", "1s"], 1);
    // The second answer to the last request comes after game_over in game-over-no-reply.
    let failed = set(&["ids-increase", "long-game", "game-over-no-reply"]);
    assert_eq!(with_status(&report, "fail"), failed, "{report:#}");
    let ids = check_named(&report, "ids-increase");
    assert!(
        ids["why"].as_str().unwrap().starts_with("answered with id 1, but the request's id was 2"),
        "{ids:#}"
    );
    let tail = ids["exchange"]["tail"].as_array().unwrap();
    assert_eq!(
        tail.last().unwrap()["line"],
        r#"{"type":"move","id":1,"move":"A5<"}"#,
        "the stray answer is shown"
    );
}

#[test]
fn other_misbehaviours_name_their_verdict() {
    let misbehave = bin("bao-misbehave").display().to_string();
    for (mode, check_name, verdict) in [
        ("bad-handshake", "handshake", "handshake_failed"),
        ("crash", "first-move", "bot_exited"),
        ("wrong-shape", "first-move", "malformed_line"),
        ("stale-id", "first-move", "wrong_id"),
        ("wrong-side", "first-move", "illegal_move"),
    ] {
        let report = check_json(
            &format!("{misbehave} --mode {mode}"),
            &["--move-time", "1s", "--only", "first-move"],
            1,
        );
        let why = check_named(&report, check_name)["why"].as_str().unwrap().to_owned();
        assert!(why.ends_with(&format!("(verdict: {verdict})")), "{mode}: {why}");
    }
    // --after delays the misbehaviour: single moves pass, the game fails.
    let report = check_json(
        &format!("{misbehave} --mode illegal-move --after 2"),
        &["--move-time", "1s", "--only", "first-move,ids-increase"],
        1,
    );
    assert_eq!(with_status(&report, "fail"), set(&["ids-increase"]), "{report:#}");
}

#[test]
fn a_bot_that_ignores_quit_and_end_of_input_fails_and_is_stopped() {
    let tag = unique_tag("stubborn");
    let misbehave = bin("bao-misbehave").display().to_string();
    // Answers hello, then becomes a process that ignores its input and never exits.
    let command = format!(
        r#"sh -c 'read hello; echo "{{\"type\":\"ready\",\"name\":\"stubborn\"}}"; echo "stubborn bot here" >&2; exec {misbehave} --mode sleeper --tag {tag}'"#
    );
    let report = check_json(&command, &["--only", "game-over-quit,end-of-input"], 1);
    assert_eq!(with_status(&report, "fail"), set(&["game-over-quit", "end-of-input"]), "{report:#}");
    let quit = check_named(&report, "game-over-quit");
    assert_eq!(
        quit["why"],
        "the bot was still running 1000 ms after quit; the referee would stop it with SIGTERM"
    );
    assert_eq!(quit["stderr_tail"], "stubborn bot here");
    let eof = check_named(&report, "end-of-input")["why"].as_str().unwrap().to_owned();
    assert!(eof.starts_with("the bot was still running 1000 ms after its stdin was closed"), "{eof}");
    assert!(crate::hostile::processes_with(&tag).is_empty(), "processes left behind");
}

#[test]
fn bad_arguments_exit_2() {
    for (command, args, message) in [
        ("no-such-bot-program-xyz", &[][..], "not found"),
        ("'unterminated", &[][..], "missing closing quote"),
        ("true", &["--move-time", "0"][..], "must be more than zero"),
        ("true", &["--tc", "10"][..], "10+0"),
        ("true", &["--dir", "/no/such/directory"][..], "is not a directory"),
        ("true", &["--only", "no-such-check"][..], "no-such-check"),
    ] {
        let output = check(command, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command} {args:?}: {stderr}");
        assert!(stderr.contains(message), "{command} {args:?}: {stderr}");
    }
}

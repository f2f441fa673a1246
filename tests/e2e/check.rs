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
const ALL_CHECKS: [&str; 18] = [
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
    "two-games",
];

/// The checks that ask the bot for a move.
const MOVE_CHECKS: [&str; 15] = [
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
    "two-games",
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
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64()), (Some(18), Some(0)));
    let names: Vec<&str> =
        report["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ALL_CHECKS, "the checks run in their documented order");
    // Every bot checked here says "games":"many": two-games played both games, with no note.
    assert_eq!(check_named(&report, "two-games")["note"], Value::Null, "{report:#}");
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
    assert_eq!(lines.last(), Some(&"All 18 checks passed."));
    assert_eq!(lines.len(), 20, "{text}");
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
    assert!(text.trim_end().ends_with("3 of 18 checks passed; failed: first-move, fischer-clock, move-time-clock, north-reply, namua-midgame, mtaji-kujifunza, mtaji-kiswahili, one-legal-move, takasia, safari-choice, ids-increase, game-over-no-reply, unknown-fields, long-game, two-games."), "{text}");
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
    assert_eq!(with_status(&report, "skip").len(), 17, "{report:#}");
    assert_eq!(
        (report["passed"].as_u64(), report["failed"].as_u64(), report["skipped"].as_u64()),
        (Some(0), Some(1), Some(17))
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

/// The `two-games` check of `bao-many-games --second MODE [ARGS]`, alone (with the handshake).
fn two_games(mode: &str, args: &[&str], code: i32) -> Value {
    let command = format!("{} --second {mode} {}", bin("bao-many-games").display(), args.join(" "));
    let report = check_json(&command, &["--move-time", "1s", "--only", "two-games"], code);
    assert_eq!(check_named(&report, "handshake")["status"], "pass", "{report:#}");
    check_named(&report, "two-games").clone()
}

/// The lines of a check's exchange sent to the bot, or received from it (`dir`), as shown
/// (the start and the end of a long exchange).
fn exchanged(check: &Value, dir: &str) -> Vec<String> {
    let view = &check["exchange"];
    let lines = view["head"].as_array().unwrap().iter().chain(view["tail"].as_array().unwrap());
    lines.filter(|e| e["dir"] == dir).map(|e| e["line"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_bot_that_declares_many_games_must_play_a_second_game_in_the_same_process() {
    let record = crate::support::Scratch::new("two-games", "record.txt");
    let check = two_games("ready", &["--record", record.to_str().unwrap()], 0);
    assert_eq!(check["status"], "pass", "{check:#}");
    assert_eq!(check["note"], Value::Null, "it played both games: {check:#}");
    // What the bot read, recorded by the bot: two processes (a pid line each), the handshake
    // check's and then two-games', which got two hellos, South in Kiswahili then North in
    // Kujifunza with the other clock mode, each game's requests from id 1, a game_over after
    // each game, and quit once, at the end.
    let lines: Vec<String> = std::fs::read_to_string(&record).unwrap().lines().map(str::to_owned).collect();
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with("pid ")).collect();
    assert_eq!(starts.len(), 2, "{lines:#?}");
    let messages: Vec<Value> =
        lines[starts[1] + 1..].iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<&str> = messages.iter().map(|m| m["type"].as_str().unwrap()).collect();
    let game = ["hello", "move_request", "move_request", "move_request", "game_over"];
    assert_eq!(kinds, [&game[..], &game[..], &["quit"]].concat(), "{lines:#?}");
    let (first, second) = (&messages[0], &messages[5]);
    assert_eq!((&first["side"], &first["variant"]), (&Value::from("S"), &Value::from("kiswahili")));
    assert_eq!((&second["side"], &second["variant"]), (&Value::from("N"), &Value::from("kujifunza")));
    assert_eq!(first["time_control"]["move_time_ms"], 1000);
    assert_eq!(second["time_control"]["move_time_ms"], Value::Null, "the other clock mode: {second}");
    assert!(second["time_control"]["base_ms"].is_u64(), "{second}");
    let ids: Vec<u64> =
        messages.iter().filter(|m| m["type"] == "move_request").map(|m| m["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3, 1, 2, 3]);
    // The second game's requests are North's, from the Kujifunza start.
    assert!(
        messages[6]["position"]["notation"].as_str().unwrap().starts_with("kujifunza N "),
        "{}",
        messages[6]
    );
    let received = exchanged(&check, "received");
    assert!(received.iter().any(|l| l.contains(r#""games":"many""#)), "{received:#?}");
}

#[test]
fn a_bot_that_declares_many_games_and_fails_the_second_hello_fails_the_check() {
    for (mode, why) in [
        (
            "exit",
            "the second game's hello (after game_over, in the same process): the bot ended (exit code 0) \
             instead of answering hello with ready (verdict: handshake_failed); a bot that says \
             \"games\":\"many\" must not exit after game_over",
        ),
        (
            "silent",
            "the second game's hello (after game_over, in the same process): no ready within the startup \
             time of 5000 ms (verdict: handshake_failed)",
        ),
        (
            "move",
            "the second game's hello (after game_over, in the same process): answered hello with a move \
             message instead of ready (verdict: handshake_failed)",
        ),
        ("old-ids", "in the second game: answered with id 4, but the request's id was 1"),
    ] {
        let started = Instant::now();
        let check = two_games(mode, &[], 1);
        assert_eq!(check["status"], "fail", "{mode}: {check:#}");
        let said = check["why"].as_str().unwrap();
        // A bot that exits may be seen as gone when the hello is written, or when ready is awaited.
        let exited_on_write = mode == "exit"
            && said.starts_with(
                "the second game's hello (after game_over, in the same process): could not write",
            )
            && said.contains("must not exit after game_over");
        assert!(said.starts_with(why) || exited_on_write, "{mode}: {said}");
        assert!(started.elapsed() < Duration::from_secs(20), "{mode}: {:?}", started.elapsed());
    }
}

#[test]
fn a_bot_that_plays_one_game_per_process_passes_with_a_note() {
    let noted = two_games("exit", &["--declare", "one"], 0);
    assert_eq!(noted["status"], "pass", "{noted:#}");
    let note = noted["note"].as_str().expect("a note");
    assert!(note.contains("one game per process"), "{note}");
    let sent = exchanged(&noted, "sent");
    assert_eq!(sent.iter().filter(|l| l.contains(r#""type":"hello""#)).count(), 1, "{sent:#?}");
    assert_eq!(sent.last().map(String::as_str), Some(r#"{"type":"quit"}"#));
    // Without the declaration, the same bot's mistake does not matter: it never gets a second hello.
    let command = format!("{} --second exit --declare one", bin("bao-many-games").display());
    let output = check(&command, &["--move-time", "1s", "--only", "two-games"]);
    let text = stdout(&output);
    assert!(
        text.contains(
            "\nPASS two-games (one game per process: the bot does not declare \"games\":\"many\")\n"
        ),
        "{text}"
    );
}

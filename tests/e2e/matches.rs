//! `bao-referee match` between well-behaved bots, and `verify` on its logs.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{Scratch, bin, workspace_root};

fn temp_log(name: &str) -> Scratch {
    Scratch::new("matches", name)
}

fn referee(args: &[&str]) -> Output {
    Command::new(bin("bao-referee")).args(args).output().unwrap()
}

fn verify(log: &Path) -> Output {
    Command::new(bin("bao-referee")).arg("verify").arg(log).output().unwrap()
}

fn json_result(out: &Output) -> Value {
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sample_bots_play_to_the_end_and_the_log_verifies() {
    let log = temp_log("sample.jsonl");
    let out = referee(&["match", "--json", "--max-plies", "0", "--log", log.to_str().unwrap()]);
    let result = json_result(&out);
    let reason = result["reason"].as_str().unwrap();
    assert!(reason == "front_row_empty" || reason == "no_legal_moves", "{result}");
    let plies = result["plies"].as_u64().unwrap();
    assert!(plies > 0);
    let v = verify(&log);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    let text = String::from_utf8(v.stdout).unwrap();
    assert_eq!(text.trim(), format!("ok: {plies} plies, {}", result["result"].as_str().unwrap()));
    // One header, one line per ply, the stderr records, one result.
    let records: Vec<Value> =
        std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records[0]["type"], "header");
    assert_eq!(records.iter().filter(|r| r["type"] == "ply").count() as u64, plies);
    assert_eq!(records.last().unwrap()["type"], "result");
    // The header is written before the bots start; what they reported follows it.
    let ready: Vec<&Value> = records.iter().filter(|r| r["type"] == "ready").collect();
    assert_eq!(ready.len(), 2, "{ready:?}");
    assert!(ready.iter().any(|r| r["side"] == "S" && r["name"] == "greedy"), "{ready:?}");
}

#[test]
fn the_human_console_shows_moves_board_and_result() {
    let log = temp_log("console.jsonl");
    // A fixed seed: with a fresh one the random bot sometimes loses within 10 plies.
    let out = referee(&["match", "--max-plies", "10", "--seed", "1", "--log", log.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("   1. S "), "{text}");
    assert!(text.contains("South A"), "{text}");
    assert!(text.contains("Result: draw (max_plies)"), "{text}");
}

#[test]
fn the_python_template_bot_plays_a_whole_game() {
    let log = temp_log("python.jsonl");
    let script = workspace_root().join("sample-bots/python/random_bot.py");
    let south = format!("python3 {}", script.display());
    let out =
        referee(&["match", "--json", "--south", &south, "--max-plies", "0", "--log", log.to_str().unwrap()]);
    let result = json_result(&out);
    assert!(result["reason"] == "front_row_empty" || result["reason"] == "no_legal_moves", "{result}");
    assert!(verify(&log).status.success());
}

#[test]
fn kujifunza_and_a_custom_start_position() {
    let log = temp_log("kujifunza.jsonl");
    let out = referee(&[
        "match",
        "--json",
        "--variant",
        "kujifunza",
        "--max-plies",
        "20",
        "--log",
        log.to_str().unwrap(),
    ]);
    let result = json_result(&out);
    assert!(verify(&log).status.success());
    assert!(result["plies"].as_u64().unwrap() <= 20);
    let header: Value =
        serde_json::from_str(std::fs::read_to_string(&log).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(header["variant"], "kujifunza");

    // A position with one legal move for South, who wins with it.
    let start = "kiswahili S 0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 1,1 -- -";
    let log2 = temp_log("custom-start.jsonl");
    let out = referee(&["match", "--json", "--start", start, "--log", log2.to_str().unwrap()]);
    let result = json_result(&out);
    assert_eq!(result["result"], "S wins (front_row_empty)", "{result}");
    assert_eq!(result["plies"], 1);
    assert!(verify(&log2).status.success());
}

#[test]
fn bad_arguments_are_named_and_exit_2() {
    for (args, needle) in [
        (vec!["match", "--tc", "fast"], "--tc"),
        (vec!["match", "--variant", "chess"], "chess"),
        (vec!["match", "--start", "kiswahili S 1,2"], "field"),
        (vec!["match", "--south", "'unclosed"], "--south"),
        (vec!["match", "--south", ""], "empty"),
        (vec!["match", "--max-memory", "lots"], "lots"),
    ] {
        let out = referee(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_missing_program_loses_by_handshake_failure() {
    let log = temp_log("missing.jsonl");
    let out = referee(&[
        "match",
        "--json",
        "--forfeit-unstartable",
        "--south",
        "/nonexistent/bot",
        "--log",
        log.to_str().unwrap(),
    ]);
    let result = json_result(&out);
    assert_eq!(result["reason"], "handshake_failed");
    assert_eq!(result["winner"], "N");
    assert!(verify(&log).status.success());
}

/// Plays a short game and returns its log's lines.
fn short_game_lines(name: &str) -> Vec<String> {
    let log = temp_log(name);
    let out = referee(&["match", "--json", "--max-plies", "12", "--log", log.to_str().unwrap()]);
    json_result(&out);
    std::fs::read_to_string(&log).unwrap().lines().map(str::to_owned).collect()
}

fn write_lines(name: &str, lines: &[String]) -> Scratch {
    let path = temp_log(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

fn edit(line: &str, f: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(line).unwrap();
    f(&mut v);
    v.to_string()
}

#[test]
fn verify_rejects_a_changed_move_position_or_result() {
    let lines = short_game_lines("tamper.jsonl");
    let ply3 = lines.iter().position(|l| l.contains(r#""ply":3,"#)).unwrap();

    // A changed move: ply 3 claims another move (keeping its position).
    let mut changed = lines.clone();
    let record: Value = serde_json::from_str(&lines[ply3]).unwrap();
    let other = ["A1>", "A2>", "A3>", "A4>", "A6<", "A6>", "A7<", "B8>"]
        .into_iter()
        .find(|m| *m != record["move"])
        .unwrap();
    changed[ply3] = edit(&lines[ply3], |v| v["move"] = Value::from(other));
    let out = verify(&write_lines("tamper-move.jsonl", &changed));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("line {}", ply3 + 1)));

    // A changed position after ply 3.
    let mut changed = lines.clone();
    changed[ply3] = edit(&lines[ply3], |v| {
        let p = v["position"].as_str().unwrap().replacen(" S ", " N ", 1).replacen(" N ", " S ", 1);
        let p = if p == v["position"].as_str().unwrap() { p.replacen("0,", "1,", 1) } else { p };
        v["position"] = Value::from(p);
    });
    let out = verify(&write_lines("tamper-position.jsonl", &changed));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("line {}", ply3 + 1)) && err.contains("position"), "{err}");

    // A changed result: a front-row win for the side that did not win (a random North can
    // really lose by front_row_empty within 12 plies, so the claimed winner must differ).
    let mut changed = lines.clone();
    let last = changed.len() - 1;
    let record: Value = serde_json::from_str(&lines[last]).unwrap();
    let claimed = if record["winner"] == "S" { "N" } else { "S" };
    changed[last] = edit(&lines[last], |v| {
        v["winner"] = Value::from(claimed);
        v["result"] = Value::from(format!("{claimed} wins (front_row_empty)"));
        v["reason"] = Value::from("front_row_empty");
    });
    let out = verify(&write_lines("tamper-result.jsonl", &changed));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("line {}", last + 1)));

    // A log cut off by a kill: the last line has no result.
    let cut = &lines[..lines.len() - 1];
    let out = verify(&write_lines("tamper-cut.jsonl", cut));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("incomplete"));

    // Not JSON at all.
    let mut garbage = lines.clone();
    garbage[1] = "not json".to_owned();
    let out = verify(&write_lines("tamper-garbage.jsonl", &garbage));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));

    // The untouched log verifies.
    assert!(verify(&write_lines("untouched.jsonl", &lines)).status.success());
}

#[test]
fn ctrl_c_while_the_bots_are_first_started_writes_no_log_and_leaves_no_bot() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let log = temp_log("interrupted.jsonl");
    let tag = format!("interrupted-{}", std::process::id());
    // A bot that never answers hello: the referee is stopped in its preflight.
    let south = format!("sh -c 'sleep 30; echo {tag}'");
    let child = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--startup-time", "20s", "--south", &south, "--log", log.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // SIGINT once the bot runs: the referee is then in its preflight, its handlers installed (a
    // fixed pause could end before them on a busy machine, and the signal kill it). The bot is
    // a process with the tag in its arguments but not `--south`: the referee's own hold both,
    // and so do those of a process it forks before its handlers are installed.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !crate::hostile::processes_with(&tag).iter().any(|(_, args)| !args.contains("--south")) {
        assert!(std::time::Instant::now() < until, "the bot was never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    kill(Pid::from_raw(i32::try_from(child.id()).unwrap()), Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT while the bots were being started"), "{err}");
    assert!(out.stdout.is_empty(), "no game, no result: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!log.exists(), "no game was played, so no log claims bots were 'not started'");
    assert!(crate::hostile::processes_with(&tag).is_empty());
}

#[test]
fn ctrl_c_during_the_game_s_handshake_logs_the_running_bot_as_killed() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let scratch = Scratch::dir("matches");
    let log = scratch.join("interrupted.jsonl");
    let (first, second) = (scratch.join("first-start"), scratch.join("second-start"));
    let tag = format!("interrupted-game-{}", std::process::id());
    // Answers ready when first started (the preflight), hangs when started for the game.
    let south = format!(
        r#"sh -c 'if [ -e {first} ]; then touch {second}; sleep 30; echo {tag}; else touch {first}; read l; echo "{{\"type\":\"ready\",\"name\":\"x\"}}"; read l; fi'"#,
        first = first.display(),
        second = second.display(),
    );
    let child = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--startup-time", "20s", "--south", &south, "--log", log.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !second.exists() {
        assert!(std::time::Instant::now() < until, "the bot was never started for the game");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    kill(Pid::from_raw(i32::try_from(child.id()).unwrap()), Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["result"], "aborted");
    let text = std::fs::read_to_string(&log).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let south_exit = last["exits"][0].as_str().unwrap();
    assert!(!south_exit.contains("not started"), "South was running: {last}");
    let v = verify(&log);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    assert!(crate::hostile::processes_with(&tag).is_empty());
}

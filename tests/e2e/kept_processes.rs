//! Protocol 1.1 in tournaments (issue 27): bots that declare `"games":"many"` keep their
//! processes from game to game; results are those of restarted processes; a fault, a limit or
//! a crash ends the process and the next game starts a new one; `verify` checks the logs'
//! fresh/kept records. Each bot (`bao-keeper`) writes `PROCESS GAME` to a counter file at each
//! game's first request (PROCESS: a random number each process draws at its start), so which
//! process played which game is seen from outside the referee.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{Scratch, bin, describe};

/// `--bot` words for a keeper bot named `name` with its own options.
fn keeper(name: &str, options: &[&str]) -> Vec<String> {
    let mut words =
        vec!["--bot".to_owned(), format!("name={name}"), format!("cmd='{}'", bin("bao-keeper").display())];
    words.extend(options.iter().map(|o| format!("arg={o}")));
    words
}

fn tournament(out: &Path, bots: &[Vec<String>], extra: &[&str]) -> Output {
    let mut cmd = Command::new(bin("bao-referee"));
    cmd.arg("tournament");
    for words in bots {
        cmd.args(words);
    }
    cmd.args(["--tc", "10+0.1", "--max-plies", "30", "--plain", "--out"]).arg(out).args(extra);
    cmd.stdin(Stdio::null()).output().expect("the referee runs")
}

/// The journal's entries by game number.
fn journal(dir: &Path) -> BTreeMap<u64, Value> {
    let text = std::fs::read_to_string(dir.join("journal.jsonl")).expect("a journal");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a journal line"))
        .map(|e| (e["game"].as_u64().expect("a game number"), e))
        .collect()
}

/// The `ready` records of game `game`'s log, by side (`S`, `N`).
fn ready_records(dir: &Path, game: u64) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(dir.join(format!("games/{game:05}.jsonl"))).expect("a log");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a log line"))
        .filter(|r| r["type"] == "ready")
        .map(|r| (r["side"].as_str().expect("a side").to_owned(), r))
        .collect()
}

/// The lines `PROCESS GAME` of a counter file.
fn counter(path: &Path) -> Vec<(u64, u32)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| {
            let (process, game) = l.split_once(' ').expect("PROCESS GAME");
            (process.parse().expect("a process number"), game.parse().expect("a count"))
        })
        .collect()
}

fn verify(paths: &[&Path]) -> Output {
    Command::new(bin("bao-referee")).arg("verify").args(paths).output().expect("verify runs")
}

#[test]
fn kept_processes_give_the_results_of_restarted_ones() {
    let scratch = Scratch::dir("kept-same-results");
    let run = |label: &str, restart: &str| {
        let out = scratch.join(label);
        let counters: Vec<_> =
            ["a", "b", "c"].iter().map(|n| scratch.join(format!("{label}-{n}.count"))).collect();
        let bots: Vec<_> = ["a", "b", "c"]
            .iter()
            .zip(&counters)
            .map(|(name, file)| {
                keeper(name, &["--many", "--salt", name, "--counter", &file.display().to_string()])
            })
            .collect();
        let output = tournament(
            &out,
            &bots,
            &["--games", "2", "--rounds", "2", "--concurrency", "2", "--restart", restart],
        );
        assert!(output.status.success(), "{label}: {}", describe(&output));
        let games: BTreeMap<u64, (String, u64)> = journal(&out)
            .into_iter()
            .map(|(g, e)| {
                (g, (e["result"].as_str().unwrap_or_default().to_owned(), e["plies"].as_u64().unwrap_or(0)))
            })
            .collect();
        let lines: Vec<Vec<(u64, u32)>> = counters.iter().map(|c| counter(c)).collect();
        (out, games, lines)
    };
    let (restarted_dir, restarted, restarted_lines) = run("restarted", "always");
    let (kept_dir, kept, kept_lines) = run("kept", "on-fault");
    assert_eq!(restarted.len(), 12, "3 pairings x 2 games x 2 rounds: {restarted:?}");
    assert_eq!(kept, restarted, "the same games, results and lengths with kept processes");

    // Restarted: every game of every bot in a process of its own, and no process record.
    for lines in &restarted_lines {
        assert_eq!(lines.len(), 8, "each bot plays 8 games: {lines:?}");
        assert!(lines.iter().all(|&(_, game)| game == 1), "a new process for every game: {lines:?}");
        let pids: BTreeSet<u64> = lines.iter().map(|&(pid, _)| pid).collect();
        assert_eq!(pids.len(), 8, "{lines:?}");
    }
    assert!(ready_records(&restarted_dir, 0).values().all(|r| r.get("process").is_none()));

    // Kept: far fewer processes, some of which played several games; the logs say so.
    let mut kept_games = 0;
    for lines in &kept_lines {
        assert_eq!(lines.len(), 8, "{lines:?}");
        let pids: BTreeSet<u64> = lines.iter().map(|&(pid, _)| pid).collect();
        assert!(pids.len() < 8, "some process played several games: {lines:?}");
        kept_games += lines.iter().filter(|&&(_, game)| game > 1).count();
    }
    let mut logged_kept = 0;
    for game in kept.keys() {
        for record in ready_records(&kept_dir, *game).values() {
            let process = &record["process"];
            assert_eq!(record["games"], "many", "{record}");
            assert_eq!(process["fresh"], process["games_before"] == 0, "{record}");
            logged_kept += usize::from(process["fresh"] == false);
        }
    }
    assert_eq!(logged_kept, kept_games, "the logs' kept games are the games the bots saw in a kept process");
    let checked = verify(&[&kept_dir.join("games")]);
    assert!(checked.status.success(), "{}", describe(&checked));
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(said.contains(&format!("{kept_games} games played in a kept process")), "{said}");
}

#[test]
fn a_bot_that_crashes_in_its_third_game_loses_that_game_only_and_the_fourth_runs_in_a_new_process() {
    let scratch = Scratch::dir("kept-crash");
    let out = scratch.join("out");
    let count = scratch.join("a.count");
    let bots = [
        keeper("a", &["--many", "--salt", "a", "--counter", &count.display().to_string(), "--crash-at", "3"]),
        keeper("b", &["--many", "--salt", "b"]),
    ];
    let output = tournament(&out, &bots, &["--games", "6", "--concurrency", "1"]);
    assert!(output.status.success(), "{}", describe(&output));
    let entries = journal(&out);
    assert_eq!(entries.len(), 6);
    // Games are played in order with one slot: a's third game is game 2.
    for (game, entry) in &entries {
        let a_side = if entry["south"] == "a" { "S" } else { "N" };
        if *game == 2 {
            assert_eq!(entry["reason"], "bot_exited", "{entry}");
            assert_ne!(entry["winner"], a_side, "{entry}");
        } else {
            assert!(
                !["bot_exited", "handshake_failed", "timeout"]
                    .contains(&entry["reason"].as_str().unwrap_or_default()),
                "only the third game is lost by a fault: {entry}"
            );
        }
    }
    // From outside: games 1-3 in one process (counts 1, 2, 3), the 4th in a new one.
    let lines = counter(&count);
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[..3].iter().map(|&(_, g)| g).collect::<Vec<_>>(), [1, 2, 3], "{lines:?}");
    assert!(lines[..3].iter().all(|&(pid, _)| pid == lines[0].0), "{lines:?}");
    assert_ne!(lines[3].0, lines[2].0, "the 4th game runs in a new process: {lines:?}");
    assert_eq!(lines[3].1, 1, "{lines:?}");
    // The logs agree: a's process in game 2 had played 2 games, in game 3 it is fresh.
    let side_of_a = |game: u64| if entries[&game]["south"] == "a" { "S" } else { "N" };
    let before = |game: u64| ready_records(&out, game)[side_of_a(game)]["process"].clone();
    assert_eq!(before(2)["games_before"], 2, "{}", before(2));
    assert_eq!(before(3)["fresh"], true, "{}", before(3));
    assert_ne!(before(3)["pid"], before(2)["pid"]);
    let checked = verify(&[&out.join("games")]);
    assert!(checked.status.success(), "{}", describe(&checked));
}

#[test]
fn a_bot_that_leaks_memory_across_games_is_judged_in_the_game_where_it_hits_its_limit() {
    let scratch = Scratch::dir("kept-leak");
    let out = scratch.join("out");
    let count = scratch.join("a.count");
    let bots = [
        keeper("a", &["--many", "--salt", "a", "--counter", &count.display().to_string(), "--leak-mb", "48"]),
        keeper("b", &["--many", "--salt", "b"]),
    ];
    let output = tournament(&out, &bots, &["--games", "6", "--concurrency", "1", "--max-memory", "128M"]);
    assert!(output.status.success(), "{}", describe(&output));
    let entries = journal(&out);
    let reasons: Vec<&str> = entries.values().map(|e| e["reason"].as_str().unwrap_or_default()).collect();
    // 48 MiB a game: 96 MiB after two games, 144 MiB in the third: over 128 MiB.
    assert_eq!(reasons.iter().filter(|r| **r == "memory_limit").count(), 2, "games 3 and 6: {reasons:?}");
    for (game, entry) in &entries {
        let a_side = if entry["south"] == "a" { "S" } else { "N" };
        if *game == 2 || *game == 5 {
            assert_eq!(entry["reason"], "memory_limit", "{entry}");
            assert_ne!(entry["winner"], a_side, "{entry}");
        } else {
            assert_ne!(entry["reason"], "memory_limit", "{entry}");
        }
    }
    let lines = counter(&count);
    assert_eq!(lines.iter().map(|&(_, g)| g).collect::<Vec<_>>(), [1, 2, 3, 1, 2, 3], "{lines:?}");
    assert_ne!(lines[3].0, lines[2].0, "a new process after the limit: {lines:?}");
    let checked = verify(&[&out.join("games")]);
    assert!(checked.status.success(), "{}", describe(&checked));
}

#[test]
fn verify_rejects_a_forged_fresh_flag() {
    let scratch = Scratch::dir("kept-forged");
    let out = scratch.join("out");
    let bots = [keeper("a", &["--many", "--salt", "a"]), keeper("b", &["--many", "--salt", "b"])];
    let output = tournament(&out, &bots, &["--games", "4", "--concurrency", "1"]);
    assert!(output.status.success(), "{}", describe(&output));
    let log = out.join("games/00002.jsonl");
    let text = std::fs::read_to_string(&log).expect("game 2's log");
    assert!(text.contains(r#""process":{"fresh":false,"games_before":2,"#), "{text}");
    let ok = verify(&[&log]);
    assert!(ok.status.success(), "{}", describe(&ok));

    // fresh, but two games before: inconsistent within the log.
    std::fs::write(
        &log,
        text.replacen(r#""fresh":false,"games_before":2"#, r#""fresh":true,"games_before":2"#, 1),
    )
    .expect("forged");
    let forged = verify(&[&log]);
    assert_eq!(forged.status.code(), Some(1), "{}", describe(&forged));
    assert!(
        String::from_utf8_lossy(&forged.stderr).contains("fresh is true, but games_before is 2"),
        "{}",
        describe(&forged)
    );

    // fresh with no game before: consistent alone, but game 0 already is that process's first game.
    std::fs::write(
        &log,
        text.replace(r#""fresh":false,"games_before":2"#, r#""fresh":true,"games_before":0"#),
    )
    .expect("forged");
    let alone = verify(&[&log]);
    let all = verify(&[&out.join("games")]);
    assert_eq!(all.status.code(), Some(1), "{}", describe(&all));
    let said = String::from_utf8_lossy(&all.stderr);
    assert!(
        said.contains("both claim to be game 1 of process") && said.contains("both call it fresh"),
        "{said}"
    );
    // Alone, the log is rejected only if its process started before the game's second.
    if alone.status.success() {
        eprintln!(
            "verify_rejects_a_forged_fresh_flag: the forged log alone passes (its process started in the game's second)"
        );
    } else {
        assert!(String::from_utf8_lossy(&alone.stderr).contains("before the game"), "{}", describe(&alone));
    }
}

#[test]
fn max_games_per_process_and_per_process_limits_start_processes_anew() {
    let scratch = Scratch::dir("kept-max-games");
    let count = scratch.join("a.count");
    let bots = [
        keeper("a", &["--many", "--salt", "a", "--counter", &count.display().to_string()]),
        keeper("b", &["--many", "--salt", "b"]),
    ];
    let output = tournament(
        &scratch.join("two"),
        &bots,
        &["--games", "6", "--concurrency", "1", "--max-games-per-process", "2"],
    );
    assert!(output.status.success(), "{}", describe(&output));
    let lines = counter(&count);
    assert_eq!(lines.iter().map(|&(_, g)| g).collect::<Vec<_>>(), [1, 2, 1, 2, 1, 2], "{lines:?}");
    let pids: BTreeSet<u64> = lines.iter().map(|&(pid, _)| pid).collect();
    assert_eq!(pids.len(), 3, "three processes of two games each: {lines:?}");

    // A CPU-time limit is counted per process by the supervisor: no process is kept.
    std::fs::remove_file(&count).expect("the counter");
    let output = tournament(
        &scratch.join("cpu"),
        &bots,
        &["--games", "4", "--concurrency", "1", "--max-cpu", "60", "--restart", "on-fault"],
    );
    assert!(output.status.success(), "{}", describe(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("keeps no process with --max-cpu"),
        "{}",
        describe(&output)
    );
    let lines = counter(&count);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines.iter().all(|&(_, g)| g == 1), "a new process for every game: {lines:?}");
}

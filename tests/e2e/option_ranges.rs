//! Every count and size option refuses zero, negative and absurd values with exit 2 and a
//! message naming the option and its allowed range (issue 14); the cases `first_hour.rs`
//! does not already cover.

use std::process::{Command, Output, Stdio};

use crate::support::{Scratch, bin};

fn referee(args: &[&str]) -> Output {
    Command::new(bin("bao-referee")).args(args).stdin(Stdio::null()).output().expect("the referee runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Each command exits 2 and its stderr holds every needle, without a panic.
fn assert_refused(cases: &[(Vec<&str>, &[&str])]) {
    for (args, needles) in cases {
        let out = referee(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        for needle in *needles {
            assert!(err.contains(needle), "{args:?}: no {needle:?} in {err}");
        }
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn tournament_counts_are_refused_beyond_their_range() {
    let t = |extra: &[&'static str]| {
        let mut args = vec!["tournament", "--dry-run", "--bot", "cmd=a", "--bot", "cmd=b"];
        args.extend(extra);
        args
    };
    let random_range: &[&str] = &["--openings", "from 1 to 100", "--openings start"];
    assert_refused(&[
        (t(&["--openings", "random:0"]), random_range),
        (t(&["--openings", "random:101"]), random_range),
        (t(&["--openings", "random:99999999999"]), random_range),
        (t(&["--openings", "random:-1"]), random_range),
        (t(&["--games", "0"]), &["--games 0", "even and at least 2"]),
        (t(&["--games", "3"]), &["--games 3"]),
        (t(&["--games", "-2"]), &["--games"]),
        (t(&["--games", "4000000000"]), &["--games", "more than the limit of 10000000"]),
        (t(&["--rounds", "0"]), &["--rounds must be at least 1"]),
        (t(&["--rounds", "4000000000"]), &["--rounds", "more than the limit"]),
        (t(&["--concurrency", "1025"]), &["--concurrency", "from 1 to 1024"]),
        (t(&["--concurrency", "-1"]), &["--concurrency"]),
        (t(&["--shard", "0/2"]), &["--shard", "1 <= I <= N"]),
        (t(&["--shard", "3/2"]), &["--shard", "1 <= I <= N"]),
        (t(&["--sprt", "elo0=0", "elo1=1e9"]), &["--sprt", "between -200 and 200"]),
        (
            t(&["--sprt", "elo0=0", "elo1=5", "alpha=0"]),
            &["--sprt", "alpha must be strictly between 0 and 1"],
        ),
        (t(&["--max-memory", "2000000G"]), &["--max-memory", "at most 1048576G"]),
        (t(&["--max-output", "2000000G"]), &["--max-output", "at most 1048576G"]),
        (t(&["--max-cpu", "86401"]), &["--max-cpu", "1..=86400"]),
        (t(&["--max-processes", "0"]), &["--max-processes"]),
        (t(&["--margin", "-1"]), &["--margin"]),
        (t(&["--max-plies", "-1"]), &["--max-plies"]),
    ]);
}

#[test]
fn match_and_check_refuse_absurd_limits_and_a_log_under_a_file() {
    let scratch = Scratch::dir("option-ranges");
    let file = scratch.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("game.jsonl");
    let under_file = under_file.to_str().unwrap();
    assert_refused(&[
        (vec!["match", "--max-memory", "2000000G"], &["--max-memory", "at most 1048576G"]),
        (vec!["match", "--max-plies", "2", "--log", under_file], &["--log", "is not a directory"]),
        (vec!["check", "true", "--startup-time", "0"], &["--startup-time", "more than zero"]),
        (vec!["check", "true", "--move-time", "0"], &["--move-time", "more than zero"]),
        (vec!["check", "true", "--startup-time", "86401"], &["--startup-time", "one day"]),
        (vec!["check", "true", "--tc", "10"], &["--tc", "10+0"]),
    ]);
}

#[test]
fn sample_bot_search_options_are_refused_out_of_range_or_where_unused() {
    assert_refused(&[
        (vec!["sample-bot", "alphabeta", "--depth", "0"], &["--depth", "1..=88"]),
        (vec!["sample-bot", "alphabeta", "--depth", "89"], &["--depth", "1..=88"]),
        (vec!["sample-bot", "mcts", "--nodes", "0"], &["--nodes", "1..=1000000000000"]),
        (vec!["sample-bot", "alphabeta", "--nodes", "1000000000001"], &["--nodes"]),
        (vec!["sample-bot", "random", "--depth", "2"], &["--depth: the random sample bot does not search"]),
        (vec!["sample-bot", "greedy", "--nodes", "50"], &["--nodes: the greedy sample bot does not search"]),
        (vec!["sample-bot", "greedy", "--time"], &["--time: the greedy sample bot"]),
        (vec!["sample-bot", "alphabeta", "--depth", "2", "--time"], &["--depth", "--time"]),
    ]);
}

#[test]
fn a_failed_start_played_anyway_shows_one_result_and_never_ongoing() {
    let log = Scratch::new("option-ranges", "forfeit.jsonl");
    let out =
        referee(&["match", "--north", "false", "--forfeit-unstartable", "--log", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().filter(|l| l.contains("Result:")).count(), 1, "{text}");
    assert!(!text.contains("ongoing"), "{text}");
    assert!(text.contains("Result: S wins (handshake_failed)"), "{text}");
    assert!(stderr(&out).contains("warning: bot \"false\" cannot start"), "{}", stderr(&out));
}

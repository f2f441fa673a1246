//! A tournament folder's web pages: `index.html` with the standings and a link to every game's
//! replay, written next to its log: by default a log page (the log embedded, the viewer's script
//! and style shared in games/), `--replays full` the self-contained animated page, `--replays
//! none` none.

use std::process::Command;

use crate::support::{Scratch, bin};

#[test]
fn a_tournament_writes_an_index_and_a_replay_next_to_every_log() {
    let dir = Scratch::dir("pages");
    let out = dir.join("run");
    let referee = bin("bao-referee").display().to_string();
    let status = Command::new(&referee)
        .args(["tournament", "--out"])
        .arg(&out)
        .args(["--bot", "name=greedy", &format!("cmd={referee} sample-bot greedy")])
        .args(["--bot", "name=random<b>", &format!("cmd={referee} sample-bot random --seed 4")])
        .args(["--games", "4", "--openings", "random:4", "--seed", "3", "--json"])
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let index = std::fs::read_to_string(out.join("index.html")).expect("index.html");
    assert!(index.contains("Standings") && index.contains("greedy"), "{index}");
    assert!(index.contains("random&lt;b&gt;") && !index.contains("random<b>"), "names are escaped");
    for game in 0..4 {
        let log = format!("games/{game:05}.jsonl");
        let replay = format!("games/{game:05}.html");
        assert!(index.contains(&format!("href=\"{replay}\"")), "index links {replay}");
        let page = std::fs::read_to_string(out.join(&replay)).expect("a replay next to the log");
        assert!(page.contains("../index.html"), "the replay links back");
        let text = std::fs::read_to_string(out.join(&log)).expect("the log");
        let first = text.lines().next().expect("a header");
        let escaped = first.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026");
        assert!(page.contains(&escaped), "the log page embeds the log, escaped");
        assert!(!page.contains("random<b>"), "no name unescaped in {replay}");
        assert!(page.contains(r#"<script src="replay.js"></script>"#), "the script is shared");
        assert!(
            page.len() < text.len() + 8_000,
            "{replay}: {} bytes for a {}-byte log",
            page.len(),
            text.len()
        );
    }
    let script = std::fs::read_to_string(out.join("games/replay.js")).expect("the shared script");
    assert!(script.contains("bao-replay-log"), "the shared script reads log pages");
    assert!(out.join("games/replay.css").exists(), "the shared style");
}

/// Plays two games into a new folder (`run` in the scratch folder returned) with `--replays PAGES`.
fn tournament_with(pages: &str) -> Scratch {
    let dir = Scratch::dir(&format!("pages-{pages}"));
    let out = dir.join("run");
    let referee = bin("bao-referee").display().to_string();
    let run = Command::new(&referee)
        .args(["tournament", "--replays", pages, "--out"])
        .arg(&out)
        .args(["--bot", "name=greedy", &format!("cmd={referee} sample-bot greedy")])
        .args(["--bot", "name=random", &format!("cmd={referee} sample-bot random --seed 4")])
        .args(["--games", "2", "--json"])
        .output()
        .unwrap();
    assert!(run.status.success(), "--replays {pages}: {}", String::from_utf8_lossy(&run.stderr));
    dir
}

#[test]
fn replays_full_writes_self_contained_pages_and_none_writes_none() {
    let full_dir = tournament_with("full");
    let full = full_dir.join("run");
    for game in 0..2 {
        let page = std::fs::read_to_string(full.join(format!("games/{game:05}.html"))).expect("a full page");
        assert!(page.contains(r#"id="bao-replay-data""#), "the replay data is inlined");
        assert!(!page.contains(r#"src="replay.js""#), "nothing is shared");
    }
    assert!(!full.join("games/replay.js").exists(), "full pages need no shared script");

    let none_dir = tournament_with("none");
    let none = none_dir.join("run");
    let index = std::fs::read_to_string(none.join("index.html")).expect("index.html");
    for game in 0..2 {
        assert!(!none.join(format!("games/{game:05}.html")).exists(), "no page for game {game}");
        assert!(!index.contains(&format!("games/{game:05}.html")), "the index links no page");
        assert!(index.contains(&format!("games/{game:05}.jsonl")), "the index links the log");
    }
}

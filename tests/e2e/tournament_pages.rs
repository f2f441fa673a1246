//! A tournament folder's web pages: `index.html` with the standings and a link to every game's
//! replay, written next to its log.

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
        assert!(out.join(&log).exists());
    }
}

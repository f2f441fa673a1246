//! A bot the referee itself cannot start — no descriptors left, here under `prlimit --nofile`
//! — is the referee's failure, never the bot's: `match` exits 3 saying so, and no game is
//! recorded as a verdict against a bot (issue 22).

use std::process::{Command, Stdio};

use crate::support::{Scratch, bin};

#[test]
fn a_bot_the_referee_cannot_start_is_never_charged() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        let why = "prlimit (util-linux) is not installed";
        assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "BAO_REQUIRE_ALL=1: {why}");
        eprintln!("skipped: {why}");
        return;
    }
    let (mut referee_faults, mut games) = (0, 0);
    // From too few descriptors to start any bot up to enough for a whole game (about 24 with
    // the sample bots); below 10 the referee cannot even start its runtime.
    for n in 10..=32 {
        let log = Scratch::new("referee-fault", "game.jsonl");
        let out = Command::new("prlimit")
            .arg(format!("--nofile={n}:{n}"))
            .arg("--")
            .arg(bin("bao-referee"))
            .arg("match")
            .arg("--log")
            .arg(&log)
            .stdin(Stdio::null())
            .output()
            .expect("prlimit runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let result =
            std::fs::read_to_string(&log).unwrap_or_default().lines().last().unwrap_or("").to_owned();
        match out.status.code() {
            Some(0) => {
                games += 1;
                assert!(
                    !result.contains("open files") && !result.contains("handshake_failed"),
                    "--nofile={n}: a played game blames a bot for the referee's want of descriptors: {result}"
                );
            }
            Some(3) => {
                referee_faults += 1;
                assert!(stderr.contains("not the bot's fault"), "--nofile={n}: {stderr}");
                // A game that had begun is recorded aborted: no winner, no verdict.
                if !result.is_empty() {
                    assert!(result.contains("\"reason\":\"aborted\""), "--nofile={n}: {result}");
                    assert!(result.contains("\"winner\":null"), "--nofile={n}: {result}");
                }
            }
            other => panic!(
                "--nofile={n}: exit {other:?}, expected 0 (a game) or 3 (the referee's failure): {stderr}"
            ),
        }
    }
    assert!(referee_faults > 0, "no limit was low enough to stop the referee");
    assert!(games > 0, "no limit was high enough for a game");
}

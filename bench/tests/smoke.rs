//! `bao-bench` runs as its own executable: the sample bots and the stub are its subcommands.

use std::process::Command;

#[test]
fn the_bench_subcommand_plays_games_and_reports_json() {
    let out = Command::new(env!("CARGO_BIN_EXE_bao-bench"))
        .args(["bench", "games", "--games", "2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["games"], 2);
    assert!(report["plies"].as_u64().unwrap() > 0);
    assert_eq!(
        report["south_wins"].as_u64().unwrap()
            + report["north_wins"].as_u64().unwrap()
            + report["draws"].as_u64().unwrap(),
        2
    );
}

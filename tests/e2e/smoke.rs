//! The binary starts and prints the start position.

use std::process::Command;

use crate::support::bin;

#[test]
fn rules_start_prints_the_kiswahili_start() {
    let out = Command::new(bin("bao-referee")).args(["rules", "start", "kiswahili"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -\n"
    );
}

#[test]
fn the_bench_subcommand_plays_games_and_reports_json() {
    let out =
        Command::new(bin("bao-referee")).args(["bench", "games", "--games", "2", "--json"]).output().unwrap();
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

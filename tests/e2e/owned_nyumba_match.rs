//! Rules revision 2 (docs/rules.md 3.4, Donkers' rule 2.4c) in a real match: a scripted bot
//! starts a namua takasa from a singleton while its nyumba is owned with fewer than 6 seeds;
//! the referee accepts the move and `bao-referee verify` accepts the log. With the nyumba not
//! owned, the same move loses by forfeit, and that log verifies too.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{Scratch, bin};

/// The position of issue 29: South's A3 holds 1, the owned nyumba A5 holds 5; no capture.
const OWNED: &str = "kiswahili S 0,0,1,0,5,0,0,0/0,0,0,1,1,0,2,3/1,0,0,0,7,0,0,1/0,0,0,0,0,1,2,3 18,18 SN -";

/// The same board with South's nyumba not owned.
const NOT_OWNED: &str =
    "kiswahili S 0,0,1,0,5,0,0,0/0,0,0,1,1,0,2,3/1,0,0,0,7,0,0,1/0,0,0,0,0,1,2,3 18,18 -N -";

/// Plays `start` for two plies: South plays `south_move` whatever it is offered, North the
/// first legal move. Returns the `--json` result and the log's records.
fn play(start: &str, south_move: &str, log: &Path) -> (Value, Vec<Value>) {
    let south = format!("{} --moves {south_move}", bin("bao-scripted").display());
    let north = format!("{} --mode good", bin("bao-misbehave").display());
    let out = Command::new(bin("bao-referee"))
        .args(["match", "--json", "--start", start, "--max-plies", "2", "--south", &south, "--north", &north])
        .arg("--log")
        .arg(log)
        .output()
        .unwrap();
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let records =
        std::fs::read_to_string(log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (result, records)
}

fn verify(log: &Path) -> Output {
    Command::new(bin("bao-referee")).arg("verify").arg(log).output().unwrap()
}

#[test]
fn a_singleton_start_with_the_nyumba_owned_below_six_is_accepted_and_verifies() {
    // Worked by hand (rules/tests/data/README.md, owned-nyumba.jsonl): A3 becomes 2 and is
    // lifted; `<` sows A2, A1 (empty: the move ends); `>` sows A4, then A5 reaches 6, and a
    // takasa lap that ends in the owned nyumba of 6 or more stops there.
    let cases = [
        ("A3<", "kiswahili N 1,1,0,0,5,0,0,0/0,0,0,1,1,0,2,3/1,0,0,0,7,0,0,1/0,0,0,0,0,1,2,3 17,18 SN -"),
        ("A3>", "kiswahili N 0,0,0,1,6,0,0,0/0,0,0,1,1,0,2,3/1,0,0,0,7,0,0,1/0,0,0,0,0,1,2,3 17,18 SN -"),
    ];
    for (south_move, after) in cases {
        let log = Scratch::new("owned-nyumba", "game.jsonl");
        let (result, records) = play(OWNED, south_move, &log);
        assert_eq!(result["result"], "draw (max_plies)", "{south_move}: {result}");
        assert_eq!(result["plies"], 2, "{south_move}: {result}");
        let header = &records[0];
        assert_eq!((header["log_version"].as_u64(), header["rules_revision"].as_u64()), (Some(3), Some(2)));
        let first = records.iter().find(|r| r["type"] == "ply").expect("a ply record");
        assert_eq!((first["side"].as_str(), first["move"].as_str()), (Some("S"), Some(south_move)));
        assert_eq!(first["position"], after, "{south_move}");
        let v = verify(&log);
        assert!(v.status.success(), "{south_move}: {}", String::from_utf8_lossy(&v.stderr));
        assert_eq!(String::from_utf8_lossy(&v.stdout).trim(), "ok: 2 plies, draw (max_plies)");
    }
}

#[test]
fn the_same_start_without_the_nyumba_is_forfeited_and_the_verdict_verifies() {
    let log = Scratch::new("owned-nyumba", "forfeit.jsonl");
    let (result, records) = play(NOT_OWNED, "A3<", &log);
    assert_eq!(result["result"], "N wins (illegal_move)", "{result}");
    assert_eq!(result["plies"], 0, "{result}");
    let detail = result["detail"].as_str().unwrap();
    assert!(detail.contains("A3<: pit A3 holds 1 seed; without a nyumba"), "{detail}");
    assert!(!records.iter().any(|r| r["type"] == "ply"));
    let v = verify(&log);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    assert_eq!(String::from_utf8_lossy(&v.stdout).trim(), "ok: 0 plies, N wins (illegal_move)");
}

//! A tournament's folder does not grow with its game count where it need not: `plan.json`
//! holds the schedule's parameters (plan version 2), and a resume streams the journal into
//! running counts. A journal written here line by line (no game is played) resumes to the sums
//! of its lines; a damaged winner and a plan of the old format are clear errors.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{Scratch, bin, describe};

/// `tournament --dry-run` of two sample bots, `a` and `b`: the plan, as JSON text.
fn dry_run(games: &str) -> Vec<u8> {
    let referee = bin("bao-referee");
    let out = Command::new(&referee)
        .arg("tournament")
        .args(["--bot", "name=a", &format!("cmd='{}' sample-bot random", referee.display())])
        .args(["--bot", "name=b", &format!("cmd='{}' sample-bot greedy", referee.display())])
        .args(["--games", games, "--openings", "random:4", "--seed", "5", "--dry-run"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    out.stdout
}

/// The journal line of game `game` of the two-bot plan: games 4k and 4k+1 are won by `a`,
/// 4k+2 is a draw, 4k+3 is won by `b`. `winner` overrides the winner's JSON.
fn line(game: u64, winner: Option<&str>) -> String {
    let (south, north) = if game.is_multiple_of(2) { (0, 1) } else { (1, 0) };
    let (result, default) = match game % 4 {
        0 => ("S wins (front_row_empty)", r#""S""#),
        1 => ("N wins (front_row_empty)", r#""N""#),
        2 => ("draw (max_plies)", "null"),
        _ => ("S wins (front_row_empty)", r#""S""#),
    };
    let reason = if game % 4 == 2 { "max_plies" } else { "front_row_empty" };
    let names = ["a", "b"];
    format!(
        r#"{{"game":{game},"pair":{},"round":0,"pairing":0,"south_bot":{south},"north_bot":{north},"south":"{}","north":"{}","opening":{},"result":"{result}","winner":{},"reason":"{reason}","plies":4,"duration_ms":1,"log":"games/{game:05}.jsonl","verified":true,"worst_lag_us":{},"finished_at":"2026-12-01T12:00:00Z"}}"#,
        game / 2,
        names[south],
        names[north],
        game / 2,
        winner.unwrap_or(default),
        if game == 777 { 9_000_000 } else { 100 },
    )
}

/// A folder holding the plan of `games` games and a journal of `lines` (no game played).
fn folder(dir: &Path, games: &str, journal: &str) {
    std::fs::create_dir_all(dir.join("games")).unwrap();
    std::fs::write(dir.join("plan.json"), dry_run(games)).unwrap();
    std::fs::write(dir.join("journal.jsonl"), journal).unwrap();
}

fn resume(dir: &Path) -> Output {
    Command::new(bin("bao-referee"))
        .args(["tournament", "--resume", "--plain", "--json", "--out"])
        .arg(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_plan_does_not_grow_with_the_game_count() {
    let small = dry_run("2");
    let large = dry_run("2000000");
    // Only the digits of the two counts (games per round, games) differ.
    assert!(
        large.len() <= small.len() + 12,
        "{} bytes for 2 games, {} for 2,000,000",
        small.len(),
        large.len()
    );
    let plan: Value = serde_json::from_slice(&large).unwrap();
    assert_eq!(plan["plan_version"], 2);
    assert_eq!(plan["games"], 2_000_000);
}

#[test]
fn a_journal_of_twenty_thousand_games_resumes_to_the_sums_of_its_lines() {
    let dir = Scratch::dir("tournament-scale");
    let mut journal: String = (0..20_000).map(|g| line(g, None) + "\n").collect();
    // A torn last line (a kill while it was written) is cut off, and nothing is played.
    journal.push_str(&line(20_000, None)[..50]);
    folder(&dir, "20002", &journal);
    let out = resume(&dir);
    // Games 20,000 and 20,001 are missing: the resume plays them (real sample bots).
    let results: Value = match out.status.code() {
        Some(0) => serde_json::from_slice(&out.stdout).unwrap(),
        _ => panic!("{}", describe(&out)),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("20000 of 20002 games already played (a torn last journal line was cut off)"),
        "{stderr}"
    );
    assert_eq!(results["games_counted"], 20_002, "{results}");
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 20_002);
    assert!(journal.ends_with('\n'));

    let first = &results["pairings"][0]["stats"];
    // Bot a: per four games a win, a win, a draw and a loss; the two new games are one more pair.
    let (w, l, d) = (
        first["wdl"]["wins"].as_u64().unwrap(),
        first["wdl"]["losses"].as_u64().unwrap(),
        first["wdl"]["draws"].as_u64().unwrap(),
    );
    assert_eq!(w + l + d, 20_002);
    assert!(
        (10_000..=10_002).contains(&w) && (5_000..=5_002).contains(&l) && (5_000..=5_002).contains(&d),
        "{first}"
    );
    let pairs = &first["pentanomial"];
    assert!(pairs["ld"].as_u64().unwrap() >= 5_000 && pairs["ww"].as_u64().unwrap() >= 5_000, "{pairs}");
    let total: u64 = ["ll", "ld", "dd_or_wl", "wd", "ww"].iter().map(|k| pairs[*k].as_u64().unwrap()).sum();
    assert_eq!(total, 10_001, "{pairs}");
    assert_eq!(results["worst_lag_game"], 777, "{results}");
    assert!(results["reasons"]["max_plies"].as_u64().unwrap() >= 5_000, "{results}");
    assert_eq!(results["complete"], true);

    // Run again: the finished tournament plays nothing and prints the same figures.
    let again = resume(&dir);
    assert!(again.status.success(), "{}", describe(&again));
    let second: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(second["pairings"], results["pairings"]);
    assert_eq!(second["standings"], results["standings"]);
    assert_eq!(std::fs::read_to_string(dir.join("journal.jsonl")).unwrap().lines().count(), 20_002);
}

#[test]
fn a_winner_other_than_s_n_or_null_is_a_damaged_line_named_by_its_number() {
    let dir = Scratch::dir("tournament-winner");
    let journal = format!("{}\n{}\n", line(0, None), line(1, Some(r#""south""#)));
    folder(&dir, "2", &journal);
    let out = resume(&dir);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r#"journal.jsonl:2: not a journal entry (winner "south": expected "S", "N" or null"#),
        "{stderr}"
    );
    assert!(stderr.contains("the journal is damaged"), "{stderr}");
}

#[test]
fn a_plan_of_version_1_is_refused_naming_its_version() {
    let dir = Scratch::dir("tournament-v1");
    folder(&dir, "2", "");
    let mut plan: Value = serde_json::from_slice(&dry_run("2")).unwrap();
    plan["plan_version"] = Value::from(1);
    plan["schedule"] = serde_json::json!([]);
    std::fs::write(dir.join("plan.json"), plan.to_string()).unwrap();
    let out = resume(&dir);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("plan_version 1 (written by an earlier referee"), "{stderr}");
    assert!(stderr.contains("this referee reads plan_version 2"), "{stderr}");
}

/// A tournament started under another rules revision is not resumed under this one (its plan
/// written before revisions were recorded counts as revision 1), so that one table never mixes
/// games judged by two sets of rules.
#[test]
fn a_plan_of_another_rules_revision_is_refused_naming_it() {
    for (revision, named) in [(None, 1), (Some(3), 3)] {
        let dir = Scratch::dir("tournament-rules-revision");
        folder(&dir, "2", "");
        let mut plan: Value = serde_json::from_slice(&dry_run("2")).unwrap();
        assert_eq!(plan["rules_revision"], bao_rules::RULES_REVISION);
        match revision {
            None => {
                plan.as_object_mut().unwrap().remove("rules_revision");
            }
            Some(r) => plan["rules_revision"] = Value::from(r),
        }
        std::fs::write(dir.join("plan.json"), plan.to_string()).unwrap();
        let out = resume(&dir);
        assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "the tournament was started under rules revision {named}, and this referee plays rules revision {}",
                bao_rules::RULES_REVISION
            )),
            "{stderr}"
        );
        assert!(!dir.join("games").read_dir().unwrap().any(|_| true), "a game was played");
    }
}

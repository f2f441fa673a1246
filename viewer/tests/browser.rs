//! The replay page and the tournament index in a real browser (headless Chromium).
//!
//! This test writes two replays (a game played with bao-rules, and one with hostile bot names)
//! and an index linking to them, plus a spec with the expected count of every pit at every ply
//! computed from the rules engine's positions, then runs `node browser-tests/replay-test.mjs`
//! (playwright-core driving the system's Chromium). Screenshots go to
//! `target/viewer-screenshots/`.
//!
//! Needs `node` (20 or later), `npm` (to install playwright-core from browser-tests/package-lock.json when
//! `browser-tests/node_modules` is missing) and Chromium (`/usr/bin/chromium`, or `BAO_CHROMIUM`).
//! When one is missing the test fails if `BAO_REQUIRE_ALL=1`, and otherwise prints
//! `skipped: <why>` to stderr and passes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use bao_rules::{Pit, Position, Row, Side, Variant};
use bao_viewer::{
    CrossCell, CrossTable, EloInterval, GameRow, IndexData, ReplayData, SideCode, SprtState, StandingRow,
    absolute_pit_name, replay_html, tournament_index_html,
};
use serde_json::{Value, json};

const HOSTILE: &str = "</script><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">";

/// Fails when `BAO_REQUIRE_ALL=1`; otherwise says why the test is skipped.
fn unavailable(why: &str) {
    if std::env::var("BAO_REQUIRE_ALL").as_deref() == Ok("1") {
        panic!("browser test cannot run (BAO_REQUIRE_ALL=1): {why}");
    }
    eprintln!("skipped: browser test: {why}");
}

/// The major version of `node` (`v20.20.2` -> 20), if it runs.
fn node_major_version() -> Option<u32> {
    let out = Command::new("node").arg("--version").output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim().trim_start_matches('v').split('.').next()?.parse().ok()
}

/// The expected counts of every pit (absolute names) and both hands, from the engine.
fn board_spec(position: &Position) -> Value {
    let pits: serde_json::Map<String, Value> =
        all_pits().into_iter().map(|(side, pit, name)| (name, json!(position.count(side, pit)))).collect();
    json!({"pits": pits, "hands": [position.hand(Side::South), position.hand(Side::North)]})
}

fn replay_spec(file: &Path, game: &common::Game) -> Value {
    json!({
        "file": file,
        "south": game.data.south_name,
        "north": game.data.north_name,
        "title": game.data.title.clone().unwrap_or_default(),
        "reason": game.data.result.as_ref().map(|r| r.reason.clone()).unwrap_or_default(),
        "boards": game.positions.iter().map(board_spec).collect::<Vec<_>>(),
        "biggest_capture": game.data.plies.iter().max_by_key(|p| p.captured).map_or(0, |p| p.number),
    })
}

fn game_row(id: &str, data: &ReplayData, href: &str) -> GameRow {
    let result = data.result.as_ref().expect("fixture games finish");
    GameRow {
        id: id.to_owned(),
        south: data.south_name.clone(),
        north: data.north_name.clone(),
        winner: result.winner,
        result: match result.winner {
            Some(side) => format!("{} wins ({})", side.letter(), result.reason),
            None => format!("draw ({})", result.reason),
        },
        reason: result.reason.clone(),
        plies: data.plies.len() as u32,
        replay_href: Some(href.to_owned()),
        log_href: None,
    }
}

fn standing(name: &str, data: &[&ReplayData]) -> StandingRow {
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for game in data {
        let side = if game.south_name == name { SideCode::South } else { SideCode::North };
        match game.result.as_ref().and_then(|r| r.winner) {
            Some(w) if w == side => wins += 1,
            Some(_) => losses += 1,
            None => draws += 1,
        }
    }
    StandingRow {
        name: name.to_owned(),
        games: data.len() as u64,
        wins,
        losses,
        draws,
        points: wins as f64 + draws as f64 / 2.0,
        // Made-up figures, to see how real bounds and pair counts look.
        elo: Some(if wins > losses {
            EloInterval { estimate: f64::INFINITY, lower: 24.1, upper: f64::INFINITY }
        } else {
            EloInterval { estimate: -190.8, lower: f64::NEG_INFINITY, upper: -24.1 }
        }),
        pentanomial: Some([0, 0, losses, 0, wins]),
    }
}

/// The game log of a fixture game, as the referee writes it (every field, so that
/// `replay_from_log` reads it too), with `south` as South's name and `comment` in every info.
fn log_of(game: &common::Game, south: &str, comment: &str) -> String {
    let data = &game.data;
    let mut lines = vec![json!({
        "type": "header", "log_version": 3, "rules_revision": 2, "referee": "bao-referee 0.1.0", "variant": data.variant,
        "start": game.positions[0].to_string(),
        "south": {"name": south, "command": ["s"], "dir": null, "reported": null},
        "north": {"name": data.north_name, "command": ["n"], "dir": null, "reported": null},
        "time_control": {"base": 60000, "increment": 0, "move_time": null, "startup": 5000, "margin": 100},
        "max_plies": null, "seed": 0,
        "limits": {"max_memory_bytes": null, "max_cpu_secs": null, "max_processes": null, "max_output_bytes": null},
        "started_at": "2026-12-01T10:00:00Z"
    })];
    for (ply, after) in data.plies.iter().zip(&game.positions[1..]) {
        lines.push(json!({
            "type": "ply", "ply": ply.number, "side": ply.side, "move": ply.mv, "time_us": ply.time_us,
            "cpu_us": null, "clock_ms": ply.clock_ms.unwrap_or([0, 0]), "position": after.to_string(),
            "info": [{"depth": 3, "score": -5, "comment": comment}]
        }));
    }
    let result = data.result.as_ref().expect("fixture games finish");
    lines.push(json!({
        "type": "result", "result": "fixture", "winner": result.winner, "reason": result.reason,
        "detail": result.detail, "plies": data.plies.len(), "duration_ms": 1,
        "final_position": game.positions.last().expect("a start").to_string(), "exits": ["exit 0", "exit 0"]
    }));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn replay_and_index_in_headless_chromium() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let harness = manifest.join("browser-tests");
    let chromium = std::env::var("BAO_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    let Some(node_major) = node_major_version() else {
        return unavailable("`node` is not installed (Node.js 20 or later is needed)");
    };
    if node_major < 20 {
        return unavailable(&format!(
            "node v{node_major} is too old: playwright-core 1.65 needs Node.js 20 or later"
        ));
    }
    if !Path::new(&chromium).exists() {
        return unavailable(&format!(
            "no Chromium at {chromium} (apt-get install -y chromium, or set BAO_CHROMIUM)"
        ));
    }
    if !harness.join("node_modules/playwright-core/package.json").exists() {
        let installed = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&harness)
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            return unavailable(&format!(
                "playwright-core is not installed and `npm ci` in {} failed",
                harness.display()
            ));
        }
    }

    // The pages, laid out as a tournament folder: index.html and games/NAME.html.
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer-browser");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(out.join("games")).expect("create the output folder");
    let screenshots = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is target/tmp")
        .join("viewer-screenshots");

    let mut game = common::play_game(Variant::Kiswahili, "greedy", "lcg-random");
    game.data.title = Some("Game 1: greedy vs lcg-random".to_owned());
    game.data.back_href = Some("../index.html".to_owned());
    let mut hostile = common::play_game(Variant::Kujifunza, HOSTILE, "lcg-random");
    hostile.data.title = Some(HOSTILE.to_owned());
    hostile.data.back_href = Some("javascript:window.__pwned=3".to_owned());
    // A game in progress with no plies yet, from a position with takasia (a6) and no nyumba.
    let takasia: Position =
        "kiswahili N 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- A6"
            .parse()
            .expect("valid");
    let waiting = common::Game {
        data: ReplayData {
            variant: "kiswahili".to_owned(),
            south_name: "south-bot".to_owned(),
            north_name: "north-bot".to_owned(),
            start: bao_viewer::BoardJson::from_position(&takasia),
            plies: Vec::new(),
            result: None,
            title: None,
            back_href: None,
        },
        positions: vec![takasia],
    };
    // A ply pushed into that page through its live API (window.baoReplay.addPly).
    let live_move = takasia.legal_moves()[0];
    let (live_after, _) = takasia.play(live_move).expect("legal");
    let live_ply = bao_viewer::PlyData::from_positions(1, &takasia, live_move, &live_after);
    let third = out.join("games/0003.html");
    std::fs::write(&third, replay_html(&waiting.data)).expect("write replay 3");
    let first = out.join("games/0001.html");
    let second = out.join("games/0002.html");
    std::fs::write(&first, replay_html(&game.data)).expect("write replay 1");
    std::fs::write(&second, replay_html(&hostile.data)).expect("write replay 2");
    // A log page, as a tournament writes it: the log embedded, the script and style shared.
    let log = log_of(&game, HOSTILE, HOSTILE);
    let from_log = bao_viewer::replay_from_log(&log).expect("the fixture log reads");
    assert_eq!(from_log.plies.len(), game.data.plies.len(), "the fixture log holds every ply");
    let fourth = out.join("games/0004.html");
    std::fs::write(&fourth, bao_viewer::replay_html_of_log(&log, Some(HOSTILE), Some("../index.html")))
        .expect("write replay 4");
    for (name, content) in bao_viewer::REPLAY_ASSETS {
        std::fs::write(out.join("games").join(name), content).expect("write the shared files");
    }
    let mut logged = common::Game { data: game.data.clone(), positions: game.positions.clone() };
    logged.data.south_name = HOSTILE.to_owned();
    logged.data.title = Some(HOSTILE.to_owned());

    let both = [&game.data, &hostile.data];
    let index = IndexData {
        title: "browser test".to_owned(),
        written_at: "2026-12-01T10:00:00Z".to_owned(),
        complete: true,
        games_planned: Some(2),
        notes: vec!["two fixture games".to_owned()],
        standings: vec![
            standing("greedy", &both[..1]),
            standing(HOSTILE, &both[1..]),
            standing("lcg-random", &both),
        ],
        cross_table: Some(CrossTable {
            names: vec!["greedy".to_owned(), HOSTILE.to_owned(), "lcg-random".to_owned()],
            cells: vec![
                vec![None, None, Some(CrossCell { wins: 1, losses: 0, draws: 0 })],
                vec![None, None, Some(CrossCell { wins: 1, losses: 0, draws: 0 })],
                vec![
                    Some(CrossCell { wins: 0, losses: 1, draws: 0 }),
                    Some(CrossCell { wins: 0, losses: 1, draws: 0 }),
                    None,
                ],
            ],
        }),
        // Made-up figures, to see how an SPRT line looks.
        sprt: Some(SprtState {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            llr: Some(0.41),
            lower_bound: -2.94,
            upper_bound: 2.94,
            decision: "continue".to_owned(),
        }),
        games: vec![
            game_row("1", &game.data, "games/0001.html"),
            game_row("2", &hostile.data, "games/0002.html"),
        ],
    };
    let index_file = out.join("index.html");
    std::fs::write(&index_file, tournament_index_html(&index)).expect("write the index");

    let spec = json!({
        "replays": [replay_spec(&first, &game), replay_spec(&second, &hostile), replay_spec(&third, &waiting)],
        "log_page": replay_spec(&fourth, &logged),
        "log_page_comment": HOSTILE,
        "live": {"ply": live_ply, "board": board_spec(&live_after)},
        "index": index_file,
        "index_links": 2,
        "link_id": "1",
        "link_target": "games/0001.html",
        "screenshots": screenshots,
    });
    let spec_file = out.join("spec.json");
    std::fs::write(&spec_file, serde_json::to_string_pretty(&spec).expect("spec serialises"))
        .expect("write spec");

    let run = Command::new("node")
        .arg(harness.join("replay-test.mjs"))
        .arg(&spec_file)
        .env("BAO_CHROMIUM", &chromium)
        .current_dir(&harness)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    eprintln!("{stdout}{stderr}");
    if run.status.code() == Some(3) {
        return unavailable(&format!("Chromium ({chromium}) could not be started: {}", stderr.trim()));
    }
    assert!(run.status.success(), "the browser checks failed ({}):\n{stdout}\n{stderr}", run.status);
    assert!(stdout.contains(" checks, 0 failed"), "the harness did not report its checks:\n{stdout}");
}

/// Every pit of both sides, with its absolute name.
fn all_pits() -> Vec<(Side, Pit, String)> {
    let mut out = Vec::new();
    for side in Side::ALL {
        for row in [Row::Front, Row::Back] {
            for col in 1..=8 {
                let pit = Pit::new(row, col).expect("columns 1..=8 exist");
                out.push((side, pit, absolute_pit_name(side, pit)));
            }
        }
    }
    out
}

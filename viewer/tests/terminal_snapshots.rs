//! Snapshot tests of the terminal rendering, against golden files in tests/data/.
//!
//! Timings are redacted before comparing (`time [redacted]`, `clocks [redacted]`), so the
//! snapshots hold for any timings. Set `UPDATE_GOLDEN=1` to rewrite the files after a deliberate
//! change, and review the diff.

mod common;

use std::path::PathBuf;

use bao_rules::{Position, Variant};
use bao_viewer::{
    BoardJson, ResultData, SideCode, TerminalStyle, render_board, render_game, render_ply, render_result,
};

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Replaces the figures after `time ` and `clocks ` (up to the end of the field) by `[redacted]`.
fn redact_timings(text: &str) -> String {
    text.lines()
        .map(|line| {
            line.split(" · ")
                .map(|field| {
                    let trimmed = field.trim_start();
                    let indent = &field[..field.len() - trimmed.len()];
                    for key in ["time ", "clocks "] {
                        if trimmed.starts_with(key) {
                            return format!("{indent}{key}[redacted]");
                        }
                    }
                    field.to_owned()
                })
                .collect::<Vec<_>>()
                .join(" · ")
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

fn check_golden(name: &str, actual: &str) {
    let path = golden_path(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("cannot read {} ({e}); run with UPDATE_GOLDEN=1 to create it", path.display())
    });
    assert!(
        expected == actual,
        "{} differs from the rendering (UPDATE_GOLDEN=1 rewrites it):\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

#[test]
fn redaction_hides_only_timings() {
    let text = "  captured 4 · time 1.2 ms · clocks S 9.87 s N 10.00 s\n";
    assert_eq!(redact_timings(text), "  captured 4 · time [redacted] · clocks [redacted]\n");
}

#[test]
fn start_position_plain() {
    let board = BoardJson::from_position(&Position::start(Variant::Kiswahili));
    check_golden(
        "start-kiswahili.txt",
        &render_board(&board, "sample-greedy", "sample-random", TerminalStyle::PLAIN),
    );
}

#[test]
fn takasia_and_lost_nyumba() {
    let position: Position =
        "kiswahili N 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- A6"
            .parse()
            .unwrap();
    let board = BoardJson::from_position(&position);
    assert_eq!(board.takasia.as_deref(), Some("a6"));
    let text = render_board(&board, "south-bot", "north-bot", TerminalStyle::PLAIN);
    assert!(text.contains("<  2>"), "takasia pit a6 marked:\n{text}");
    assert!(!text.lines().take(8).any(|l| l.contains('[')), "no nyumba is owned:\n{text}");
    check_golden("takasia.txt", &text);
}

#[test]
fn plies_of_a_game_plain_and_coloured() {
    let game = common::play_game(Variant::Kiswahili, "greedy", "lcg-random");
    let data = &game.data;
    // A South namua ply, a North namua capture, and the biggest capture.
    let capture = (0..data.plies.len()).max_by_key(|&i| data.plies[i].captured).expect("the game has plies");
    assert!(data.plies[capture].captured > 10, "a big capture");
    let mut text = String::new();
    for ply in [1, 2, capture + 1] {
        text += &render_ply(data, ply, TerminalStyle::PLAIN).unwrap();
        text.push('\n');
    }
    check_golden("game-plies.txt", &redact_timings(&text));

    let coloured = render_ply(data, 1, TerminalStyle::COLOUR).unwrap();
    assert!(coloured.contains("\x1b[35mNorth"), "North in magenta:\n{coloured:?}");
    assert!(coloured.contains("\x1b[1;33m[  6]\x1b[0m"), "nyumba in yellow:\n{coloured:?}");
    check_golden("game-ply-1-colour.txt", &redact_timings(&coloured));
    assert!(render_ply(data, data.plies.len() + 1, TerminalStyle::PLAIN).is_none());
}

#[test]
fn a_ply_header_says_everything() {
    let game = common::play_game(Variant::Kiswahili, "greedy", "lcg-random");
    assert_eq!(game.data.plies[1].captured, 1, "North's namua capture of A4");
    let ply2 = render_ply(&game.data, 2, TerminalStyle::PLAIN).unwrap();
    let first_line = ply2.lines().next().unwrap();
    let mv = &game.data.plies[1].mv;
    let record = &game.data.plies[1].record;
    assert_eq!(first_line, format!("Ply 2: North (lcg-random) played {mv} (record {record}), namua"));
    assert_ne!(mv, record, "North's record form has a lower-case row");
    let ply1 = render_ply(&game.data, 1, TerminalStyle::PLAIN).unwrap();
    assert!(ply1.contains("info: depth 2,"), "{ply1}");
}

#[test]
fn the_whole_game_ends_with_its_result() {
    let game = common::play_game(Variant::Kujifunza, "greedy", "lcg-random");
    let text = render_game(&game.data, TerminalStyle::PLAIN);
    assert_eq!(text.matches("\nPly ").count(), game.data.plies.len());
    let final_board = BoardJson::from_position(game.positions.last().unwrap());
    assert_eq!(game.data.board_after(game.data.plies.len()), Some(&final_board));
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("Result: "), "{last}");
}

#[test]
fn results() {
    let won = ResultData {
        winner: Some(SideCode::North),
        reason: "illegal_move".into(),
        detail: "S (mybot): illegal move A3>".into(),
    };
    assert_eq!(
        render_result(&won, "mybot", "other", TerminalStyle::PLAIN),
        "Result: North (other) wins, illegal_move: S (mybot): illegal move A3>\n"
    );
    let draw = ResultData { winner: None, reason: "max_plies".into(), detail: String::new() };
    assert_eq!(render_result(&draw, "a", "b", TerminalStyle::PLAIN), "Result: draw, max_plies\n");
}

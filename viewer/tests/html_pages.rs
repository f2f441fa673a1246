//! The HTML pages as text: self-contained, the data embedded and readable back, hostile text
//! inert, the index's figures and links. (The pages' behaviour in a browser: tests/browser.rs.)

mod common;

use bao_rules::Variant;
use bao_viewer::{
    CrossCell, CrossTable, EloInterval, GameRow, IndexData, ReplayData, SideCode, SprtState, StandingRow,
    replay_html, tournament_index_html,
};

const HOSTILE: &str = "</script><script>window.__pwned=1</script><img src=x onerror=alert(1)> & \u{2028}";

/// The JSON in the page's data element, parsed back.
fn embedded_data(html: &str) -> ReplayData {
    let open = "<script type=\"application/json\" id=\"bao-replay-data\">";
    let start = html.find(open).expect("the data element") + open.len();
    let end = start + html[start..].find("</script>").expect("the data element is closed");
    serde_json::from_str(&html[start..end]).expect("the embedded data is valid JSON of ReplayData")
}

#[test]
fn the_replay_embeds_the_data_and_nothing_external() {
    let game = common::play_game(Variant::Kiswahili, "greedy", "lcg-random");
    assert_eq!(game.positions.len(), game.data.plies.len() + 1, "one position per ply and the start");
    let html = replay_html(&game.data);
    assert_eq!(embedded_data(&html), game.data);
    assert!(html.starts_with("<!DOCTYPE html>"));
    let lower = html.to_ascii_lowercase();
    for external in ["http://", "https://", "<link", " src=", "@import", "url("] {
        assert!(!lower.contains(external), "the page refers to something outside it: {external}");
    }
    // The stylesheet and script are inlined, their markers gone.
    assert!(!html.contains("@BAO_"), "a template marker is left");
    assert!(html.contains("data-pit"), "the script that draws the pits is inlined");
}

#[test]
fn hostile_names_cannot_break_out_of_the_data() {
    let mut game = common::play_game(Variant::Kujifunza, HOSTILE, HOSTILE);
    game.data.result.as_mut().unwrap().detail = HOSTILE.to_owned();
    game.data.plies[0].info[1].comment = Some(HOSTILE.to_owned());
    game.data.title = Some(HOSTILE.to_owned());
    let html = replay_html(&game.data);
    // Exactly two script elements close: the data and the code.
    assert_eq!(html.matches("</script").count(), 2, "a name closed the script element");
    assert!(!html.contains("<img"), "markup from a name reached the page");
    assert!(!html.contains('\u{2028}'));
    assert_eq!(embedded_data(&html), game.data, "the text survives unchanged as data");
}

fn index_fixture() -> IndexData {
    IndexData {
        title: "round <robin> & co".into(),
        written_at: "2026-12-01T10:00:00Z".into(),
        complete: false,
        games_planned: Some(4),
        notes: vec!["kiswahili, 10+0.1 s".into()],
        standings: vec![
            StandingRow {
                name: "greedy".into(),
                games: 3,
                wins: 3,
                losses: 0,
                draws: 0,
                points: 3.0,
                elo: Some(EloInterval { estimate: 190.83, lower: 24.06, upper: f64::INFINITY }),
                pentanomial: Some([0, 0, 0, 0, 1]),
            },
            StandingRow {
                name: HOSTILE.into(),
                games: 3,
                wins: 0,
                losses: 3,
                draws: 0,
                points: 0.5,
                elo: None,
                pentanomial: None,
            },
        ],
        cross_table: Some(CrossTable {
            names: vec!["greedy".into(), HOSTILE.into()],
            cells: vec![
                vec![None, Some(CrossCell { wins: 3, losses: 0, draws: 0 })],
                vec![Some(CrossCell { wins: 0, losses: 3, draws: 0 }), None],
            ],
        }),
        sprt: Some(SprtState {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            llr: Some(1.234),
            lower_bound: -2.94,
            upper_bound: 2.94,
            decision: "continue".into(),
        }),
        games: vec![
            GameRow {
                id: "1".into(),
                south: "greedy".into(),
                north: HOSTILE.into(),
                winner: Some(SideCode::South),
                result: "S wins (front_row_empty)".into(),
                reason: "front_row_empty".into(),
                plies: 41,
                replay_href: Some("games/game 1.html".into()),
                log_href: Some("games/game 1.jsonl".into()),
            },
            GameRow {
                id: "2".into(),
                south: HOSTILE.into(),
                north: "greedy".into(),
                winner: None,
                result: "running".into(),
                reason: String::new(),
                plies: 3,
                replay_href: Some("javascript:alert(1)".into()),
                log_href: None,
            },
        ],
    }
}

#[test]
fn the_index_shows_the_figures_and_links() {
    let html = tournament_index_html(&index_fixture());
    assert!(html.contains("+190.8 [+24.1, +inf]"), "Elo with its real bounds");
    assert!(html.contains("0, 0, 0, 0, 1"), "pentanomial counts");
    assert!(html.contains("3/3"), "cross-table cell");
    assert!(html.contains("LLR <b>1.23</b> in [-2.94, 2.94]"), "SPRT state");
    assert!(html.contains("href=\"games/game%201.html\""), "relative link to the replay");
    assert!(html.contains("href=\"javascript%3Aalert%281%29\""), "no scheme survives in a link");
    assert!(html.contains("1 of 4 games"), "progress counts finished games");
    assert!(html.contains("reload the page"), "an unfinished tournament suggests reloading");
    assert!(html.contains("<time>2026-12-01T10:00:00Z</time>"));
    assert!(html.contains("round &lt;robin&gt; &amp; co"));
    assert!(!html.contains("<script"), "no script, not even from a name");
    assert!(!html.contains("<img"), "markup from a name reached the page");
    let lower = html.to_ascii_lowercase();
    // (" src=" does occur, escaped, as text of the hostile name.)
    for external in ["http://", "https://", "<link", "@import", "url("] {
        assert!(!lower.contains(external), "the page refers to something outside it: {external}");
    }
}

#[test]
fn a_finished_tournament_says_so() {
    let mut data = index_fixture();
    data.complete = true;
    let html = tournament_index_html(&data);
    assert!(html.contains("Tournament complete"));
    assert!(!html.contains("reload the page"));
}

#[test]
fn replay_data_reads_steps_it_does_not_know() {
    let json = r#"[{"op":"hand"},{"op":"lap","n":2},{"op":"pick","pit":"A5","seeds":3},{"op":"drop","pit":"A6"},
                  {"op":"capture","pit":"b5","seeds":4},{"op":"nyumba_lost","pit":"a5"}]"#;
    let steps: Vec<bao_viewer::Step> = serde_json::from_str(json).unwrap();
    assert_eq!(steps.len(), 6);
    assert_eq!(steps[5], bao_viewer::Step::NyumbaLost { pit: "a5".into() });
    assert_eq!(steps[1], bao_viewer::Step::Other);
    assert_eq!(steps[2], bao_viewer::Step::Pick { pit: "A5".into(), seeds: 3 });
}

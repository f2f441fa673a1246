//! A game's result in words, the one way every page says it: "South wins:
//! North's front row is empty", "Draw: the ply limit was reached", "Aborted
//! (not counted): the server stopped during the game", rather than `0–1` and a
//! raw reason name.
//!
//! The stored reason of a finished game is the log's reason name, optionally
//! followed by `: detail` (see the scheduler); [`game_in_words`] reads it so.

use bao_rules::Side;
pub use bao_viewer::result_in_words;

use crate::domain::{GameResult, GameState};

/// A stored game's result in words: its state, result and stored reason (`name` or `name: detail`).
#[must_use]
pub fn game_in_words(
    state: GameState,
    result: Option<GameResult>,
    reason: &str,
    with_detail: bool,
) -> String {
    match (state, result) {
        (GameState::Running, _) => "Being played".to_owned(),
        (GameState::Aborted, _) => {
            let why = reason.trim();
            if with_detail && !why.is_empty() {
                format!("Aborted (not counted): {why}")
            } else {
                "Aborted (not counted)".to_owned()
            }
        }
        (GameState::Finished, result) => {
            let winner = match result {
                Some(GameResult::South) => Some(Side::South),
                Some(GameResult::North) => Some(Side::North),
                Some(GameResult::Draw) | None => None,
            };
            let (name, detail) = reason.split_once(':').unwrap_or((reason, ""));
            result_in_words(winner, name, detail, with_detail)
        }
    }
}

/// A result of the viewer's (`bao_viewer::ResultData`) as JSON with its words added
/// (`text`, with the detail), which the viewer's page shows in place of the reason's name.
#[must_use]
pub fn result_json(result: &bao_viewer::ResultData) -> serde_json::Value {
    let mut value = serde_json::to_value(result).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        let text = result_in_words(result.winner, &result.reason, &result.detail, true);
        object.insert("text".to_owned(), serde_json::Value::String(text));
    }
    value
}

/// The viewer's replay page of `data`, its result (if any) in words.
#[must_use]
pub fn replay_html(data: &bao_viewer::ReplayData) -> String {
    let mut value = serde_json::to_value(data).unwrap_or_default();
    if let (Some(result), Some(object)) = (&data.result, value.as_object_mut()) {
        object.insert("result".to_owned(), result_json(result));
    }
    bao_viewer::replay_html_with_json(&bao_viewer::script_json(&value))
}

/// The template filter `outcome` (`{{ g | outcome }}`, `{{ g | outcome(true) }}` with the
/// detail) over a serialized [`crate::games::Game`]: its `state`, `result` and `reason`.
pub fn outcome_filter(game: &minijinja::Value, with_detail: Option<bool>) -> String {
    let text = |key: &str| game.get_attr(key).ok().and_then(|v| v.as_str().map(str::to_owned));
    let state = text("state").and_then(|s| s.parse::<GameState>().ok());
    let result = text("result").and_then(|s| s.parse::<GameResult>().ok());
    let reason = text("reason").unwrap_or_default();
    match state {
        Some(state) => game_in_words(state, result, &reason, with_detail.unwrap_or(false)),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bao_game::Reason;

    #[test]
    fn results_read_as_sentences() {
        let fin = GameState::Finished;
        assert_eq!(
            game_in_words(fin, Some(GameResult::South), "front_row_empty", false),
            "South wins: North's front row is empty"
        );
        assert_eq!(
            game_in_words(fin, Some(GameResult::North), "no_legal_moves", false),
            "North wins: South has no legal move"
        );
        assert_eq!(
            game_in_words(fin, Some(GameResult::North), "timeout: no answer within 1000 ms", true),
            "North wins: South ran out of time — no answer within 1000 ms"
        );
        assert_eq!(
            game_in_words(fin, Some(GameResult::North), "timeout: no answer within 1000 ms", false),
            "North wins: South ran out of time"
        );
        assert_eq!(
            game_in_words(fin, Some(GameResult::Draw), "max_plies", false),
            "Draw: the ply limit was reached"
        );
        assert_eq!(
            game_in_words(GameState::Aborted, None, "the server stopped during the game", true),
            "Aborted (not counted): the server stopped during the game"
        );
        assert_eq!(game_in_words(GameState::Running, None, "", true), "Being played");
        // A reason a later referee adds is shown as it is, never dropped.
        assert_eq!(
            game_in_words(fin, Some(GameResult::South), "new_reason", false),
            "South wins (new_reason)"
        );
        // Every reason of the protocol has its words (no raw snake_case name).
        for r in Reason::ALL {
            for w in [Some(Side::South), Some(Side::North), None] {
                let t = result_in_words(w, r.name(), "", false);
                assert!(!t.contains('_') && !t.contains(r.name()), "{r}: {t}");
            }
        }
    }

    #[test]
    fn the_viewers_result_gets_its_words() {
        let r = bao_viewer::ResultData {
            winner: Some(Side::North),
            reason: "bot_exited".into(),
            detail: "exit status 3".into(),
        };
        let v = result_json(&r);
        assert_eq!(v["text"], "North wins: South's program exited — exit status 3");
        assert_eq!((v["winner"].as_str(), v["reason"].as_str()), (Some("N"), Some("bot_exited")), "{v}");
        let data = bao_viewer::ReplayData {
            variant: "kiswahili".into(),
            south_name: "a".into(),
            north_name: "b".into(),
            start: bao_viewer::BoardJson::from_position(&bao_rules::Position::start(
                bao_rules::Variant::Kiswahili,
            )),
            plies: Vec::new(),
            result: Some(r),
            title: None,
            back_href: None,
        };
        let html = replay_html(&data);
        assert!(html.contains("program exited — exit status 3"), "the words are in the page's data");
    }

    #[test]
    fn the_filter_reads_a_serialized_game() {
        let g = minijinja::Value::from_serialize(serde_json::json!({
            "state": "finished", "result": "north", "reason": "illegal_move: A9> is not legal"
        }));
        assert_eq!(outcome_filter(&g, None), "North wins: South played an illegal move");
        assert_eq!(
            outcome_filter(&g, Some(true)),
            "North wins: South played an illegal move — A9> is not legal"
        );
        assert_eq!(outcome_filter(&minijinja::Value::from(3), None), "");
    }
}

//! `verify` on logs edited by hand (checked in under `tests/data/`): each forgery is rejected
//! with a message naming its line; the genuine log they were made from verifies.

use bao_game::verify::{VerifyError, verify_log};

fn rejected(text: &str) -> VerifyError {
    match verify_log(text) {
        Ok(v) => panic!("a forged log verified: {v:?}"),
        Err(e) => e,
    }
}

fn assert_rejected(text: &str, line: usize, says: &str) {
    let e = rejected(text);
    assert_eq!(e.line, line, "{e}");
    assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
    assert!(e.message.contains(says), "{e}");
    assert!(!e.malformed && !e.incomplete, "{e}");
}

#[test]
fn the_genuine_log_verifies() {
    let v = verify_log(include_str!("data/genuine.jsonl")).unwrap();
    assert_eq!((v.plies, v.result.as_str()), (6, "draw (max_plies)"));
}

#[test]
fn a_move_time_no_clock_allows_is_rejected() {
    // 99.999999 s for one move under 10+0.1.
    assert_rejected(include_str!("data/forged-time.jsonl"), 6, "S took 99999999 µs with 10197282 µs allowed");
}

#[test]
fn clocks_that_the_time_control_does_not_give_are_rejected() {
    assert_rejected(include_str!("data/forged-clocks.jsonl"), 5, "clock_ms is [1, 999999]");
}

#[test]
fn a_timeout_verdict_against_the_side_not_to_move_is_rejected() {
    assert_rejected(
        include_str!("data/forged-timeout-not-to-move.jsonl"),
        12,
        "a timeout verdict against N, but S was to move",
    );
}

#[test]
fn a_timeout_verdict_against_a_bot_that_still_had_time_is_rejected() {
    assert_rejected(
        include_str!("data/forged-timeout-with-time-left.jsonl"),
        11,
        "a timeout verdict against N after 5000 µs, but N had 10299575 µs",
    );
}

#[test]
fn an_excused_lag_is_rejected() {
    // Since version 2 every move is charged to its reply's arrival: there is nothing to excuse.
    assert_rejected(
        include_str!("data/forged-excuse.jsonl"),
        4,
        "lag_excused_us 100000, but a version 3 referee excuses no lag",
    );
}

#[test]
fn plies_beyond_max_plies_are_rejected() {
    assert_rejected(
        include_str!("data/forged-beyond-max-plies.jsonl"),
        8,
        "ply 5, but the game is adjudicated after 4 plies",
    );
}

#[test]
fn a_log_with_only_its_header_is_incomplete_not_unreadable() {
    let e = rejected(include_str!("data/header-only.jsonl"));
    assert!(e.incomplete && !e.malformed, "{e}");
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("incomplete"), "{e}");
    // So are an empty log (killed before the header was written) and a cut-off line.
    let e = rejected("");
    assert!(e.incomplete && !e.malformed, "{e}");
    let genuine = include_str!("data/genuine.jsonl");
    let cut = &genuine[..genuine.len() - 20];
    let e = rejected(cut);
    assert!(e.incomplete && !e.malformed, "{e}");
    assert!(e.message.contains("cut off"), "{e}");
}

/// A log of a game that ended before its first ply: the genuine header, `ready` of the bots
/// in `ready`, and a verdict `reason` against North.
fn ended_while_starting(ready: &[&str], reason: &str) -> String {
    let genuine = include_str!("data/genuine.jsonl");
    let header = genuine.lines().next().unwrap();
    let start = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -";
    let mut text = format!("{header}\n");
    for side in ready {
        text.push_str(&format!(
            "{{\"type\":\"ready\",\"side\":\"{side}\",\"name\":\"x\",\"author\":null,\"version\":null}}\n"
        ));
    }
    text.push_str(&format!(
        "{{\"type\":\"result\",\"result\":\"S wins ({reason})\",\"winner\":\"S\",\"reason\":\"{reason}\",\
         \"detail\":\"N: during the handshake\",\"plies\":0,\"duration_ms\":1,\"final_position\":\"{start}\",\
         \"offense\":{{\"side\":\"N\",\"line\":null,\"move\":null}},\"exits\":[\"exit code 0\",\"killed\"]}}\n"
    ));
    text
}

#[test]
fn a_limit_broken_while_starting_verifies_against_the_bot_not_to_move() {
    // North, not to move, was killed for its memory before its ready: memory_limit, 0 plies.
    let v = verify_log(&ended_while_starting(&["S"], "memory_limit")).unwrap();
    assert_eq!((v.plies, v.result.as_str()), (0, "S wins (memory_limit)"));
    assert!(verify_log(&ended_while_starting(&["S"], "handshake_failed")).is_ok());
    // Other verdicts need a bot that had started; a ready bot cannot fail the handshake.
    assert_rejected(
        &ended_while_starting(&["S"], "timeout"),
        3,
        "a timeout verdict against N, which had not answered ready",
    );
    assert_rejected(
        &ended_while_starting(&["S", "N"], "handshake_failed"),
        4,
        "a handshake_failed verdict against N, which had answered ready",
    );
    assert_rejected(
        &ended_while_starting(&["S", "N"], "memory_limit"),
        4,
        "a memory_limit verdict against N, but S was to move",
    );
}

proptest::proptest! {
    /// The corpus-free smoke test of the `verify_log` fuzz target: any edit of the genuine log
    /// is verified without panicking, and an error names a line of the text (or one past it).
    #[test]
    fn an_edited_log_never_panics_the_verifier(
        edits in proptest::collection::vec((0usize..4000, proptest::prelude::any::<u8>()), 1..6),
        cut in 0usize..4000,
    ) {
        let mut bytes = include_bytes!("data/genuine.jsonl").to_vec();
        for (at, byte) in edits {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
        bytes.truncate(bytes.len() - cut % bytes.len());
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let lines = text.split_inclusive('\n').count();
            if let Err(e) = verify_log(text) {
                proptest::prop_assert!(e.line >= 1 && e.line <= lines + 1, "{e}");
            }
        }
    }
}

/// `text` with the first `from` after `after` replaced by `to`, and the line it is on.
fn edited(text: &str, after: &str, from: &str, to: &str) -> (String, usize) {
    let start = text.find(after).expect("the genuine log has the record");
    let at = start + text[start..].find(from).expect("the record has the field");
    let line = text[..at].matches('\n').count() + 1;
    (format!("{}{to}{}", &text[..at], &text[at + from.len()..]), line)
}

#[test]
fn a_side_other_than_s_or_n_is_unreadable_and_the_error_names_the_field() {
    let genuine = include_str!("data/genuine.jsonl");
    let cases = [
        (r#""type":"ready""#, r#""side":"S""#, r#""side":"X""#, r#"side is "X", expected "S" or "N""#),
        (r#""type":"ply""#, r#""side":"S""#, r#""side":"south""#, r#"side is "south""#),
        (r#""type":"stderr""#, r#""side":"N""#, r#""side":"n""#, r#"side is "n""#),
        (
            r#""type":"result""#,
            r#""winner":null"#,
            r#""winner":"W""#,
            r#"winner is "W", expected "S" or "N""#,
        ),
    ];
    for (record, from, to, says) in cases {
        let (text, line) = edited(genuine, record, from, to);
        let e = rejected(&text);
        assert!(e.malformed, "{to}: {e}");
        assert_eq!(e.line, line, "{to}: {e}");
        assert!(e.message.contains(says), "{to}: {e}");
    }
}

#[test]
fn the_typed_sides_write_the_log_as_it_was_read() {
    for line in include_str!("data/genuine.jsonl").lines() {
        let record: bao_game::log::LogRecord = serde_json::from_str(line).expect("a log record");
        let written = serde_json::to_value(&record).expect("serialises");
        let read: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert_eq!(written, read, "{line}");
    }
}

/// A log is judged only by the rules it was played under: a log of another rules revision is
/// refused on its header line, with both revisions named, never replayed under these rules.
#[test]
fn a_log_of_another_rules_revision_is_refused_naming_the_revisions() {
    // The genuine game as a version 2 referee wrote it (rules revision 1, not recorded). Its
    // moves are legal under both revisions, so only the header's versions can refuse it.
    let old = include_str!("data/played-under-rules-revision-1.jsonl");
    assert!(old.starts_with(r#"{"type":"header","log_version":2,"referee""#));
    assert_rejected(
        old,
        1,
        "the game was played under rules revision 1 (log_version 2), but this referee judges by \
         rules revision 2 (log_version 3)",
    );
    let genuine = include_str!("data/genuine.jsonl");
    let (recorded_one, line) =
        edited(genuine, r#""type":"header""#, r#""rules_revision":2"#, r#""rules_revision":1"#);
    assert_eq!(line, 1);
    assert_rejected(&recorded_one, 1, "played under rules revision 1 (log_version 3)");
    let (newer, _) = edited(genuine, r#""type":"header""#, r#""rules_revision":2"#, r#""rules_revision":3"#);
    assert_rejected(&newer, 1, "played under rules revision 3 (log_version 3)");
    let (unrecorded, _) = edited(genuine, r#""type":"header""#, r#""rules_revision":2,"#, "");
    assert_rejected(&unrecorded, 1, "log_version 3, but the header has no rules_revision");
    let (version_one, _) = edited(genuine, r#""type":"header""#, r#""log_version":3"#, r#""log_version":1"#);
    assert_rejected(&version_one, 1, "log_version 1 is not 3");
}

#[test]
fn a_log_records_the_rules_revision_of_the_engine() {
    let header = include_str!("data/genuine.jsonl").lines().next().unwrap();
    let bao_game::log::LogRecord::Header(h) = serde_json::from_str(header).expect("a header") else {
        panic!("not a header: {header}");
    };
    assert_eq!(
        (h.log_version, h.rules_revision),
        (bao_game::log::LOG_VERSION, Some(bao_rules::RULES_REVISION))
    );
}

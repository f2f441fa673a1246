//! Writing and reading the referee → bot messages: the documented shapes, round trips, errors.

use bao_protocol::{
    Clock, GameOver, Hello, Limits, MoveRequest, PerSide, PositionJson, ProtocolError, Reason,
    RefereeMessage, Rows, Side, TimeControl,
};
use serde_json::{Value, json};

const START: &str = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -";

fn start_position() -> PositionJson {
    let front = [0, 0, 0, 0, 6, 2, 2, 0];
    PositionJson {
        notation: START.into(),
        variant: "kiswahili".into(),
        to_move: Side::South,
        rows: Rows { south_front: front, south_back: [0; 8], north_front: front, north_back: [0; 8] },
        hands: PerSide { south: 22, north: 22 },
        stage: "namua".into(),
        nyumba: PerSide { south: true, north: true },
        takasia: None,
    }
}

fn request() -> MoveRequest {
    MoveRequest {
        id: 1,
        ply: 0,
        position: start_position(),
        legal: vec!["A6<".into(), "A6>".into(), "A7<".into(), "A7>".into()],
        opponent_move: None,
        clock: Clock { you_ms: 60000, opponent_ms: 60000, increment_ms: 1000, move_time_ms: None },
    }
}

fn as_json(message: &RefereeMessage) -> Value {
    serde_json::from_str(&message.to_line()).expect("to_line writes JSON")
}

#[test]
fn hello_has_the_documented_shape() {
    let hello =
        RefereeMessage::hello(Side::North, "kiswahili", START, TimeControl::fischer(60000, 1000, 5000, 100));
    assert_eq!(
        as_json(&hello),
        json!({"type":"hello","protocol":1,"side":"N","variant":"kiswahili","start":START,
            "time_control":{"base_ms":60000,"increment_ms":1000,"move_time_ms":null,"startup_ms":5000,"margin_ms":100},
            "limits":{"max_line_bytes":65536,"max_info_per_move":100,"max_comment_bytes":1024}})
    );
    let fixed = RefereeMessage::hello(Side::South, "kujifunza", "x", TimeControl::move_time(250, 5000, 100));
    assert_eq!(
        as_json(&fixed)["time_control"],
        json!({"base_ms":null,"increment_ms":0,"move_time_ms":250,"startup_ms":5000,"margin_ms":100})
    );
}

#[test]
fn move_request_has_the_documented_shape() {
    let line = RefereeMessage::MoveRequest(request()).to_line();
    assert!(!line.contains('\n'));
    assert_eq!(
        serde_json::from_str::<Value>(&line).expect("JSON"),
        json!({"type":"move_request","id":1,"ply":0,
            "position":{"notation":START,"variant":"kiswahili","to_move":"S",
                "rows":{"A":[0,0,0,0,6,2,2,0],"B":[0,0,0,0,0,0,0,0],"a":[0,0,0,0,6,2,2,0],"b":[0,0,0,0,0,0,0,0]},
                "hands":{"S":22,"N":22},"stage":"namua","nyumba":{"S":true,"N":true},"takasia":null},
            "legal":["A6<","A6>","A7<","A7>"],"opponent_move":null,
            "clock":{"you_ms":60000,"opponent_ms":60000,"increment_ms":1000,"move_time_ms":null}})
    );
}

#[test]
fn game_over_and_quit_have_the_documented_shapes() {
    let over = RefereeMessage::GameOver(GameOver {
        result: "S wins (front_row_empty)".into(),
        winner: Some(Side::South),
        reason: Reason::FrontRowEmpty.name().into(),
        plies: 57,
    });
    assert_eq!(
        over.to_line(),
        r#"{"type":"game_over","result":"S wins (front_row_empty)","winner":"S","reason":"front_row_empty","plies":57}"#
    );
    let draw = RefereeMessage::GameOver(GameOver {
        result: "draw (max_plies)".into(),
        winner: None,
        reason: Reason::MaxPlies.name().into(),
        plies: 1000,
    });
    assert_eq!(as_json(&draw)["winner"], Value::Null);
    assert_eq!(RefereeMessage::Quit.to_line(), r#"{"type":"quit"}"#);
}

#[test]
fn round_trips_every_referee_message() {
    let mut later = request();
    later.id = 9;
    later.ply = 17;
    later.opponent_move = Some("A4>".into());
    later.position.takasia = Some("A3".into());
    later.position.stage = "mtaji".into();
    later.position.to_move = Side::North;
    later.clock.move_time_ms = Some(500);
    let messages = [
        RefereeMessage::hello(Side::South, "kiswahili", START, TimeControl::fischer(1, 2, 5000, 100)),
        RefereeMessage::MoveRequest(request()),
        RefereeMessage::MoveRequest(later),
        RefereeMessage::GameOver(GameOver {
            result: "N wins (timeout)".into(),
            winner: Some(Side::North),
            reason: "timeout".into(),
            plies: 3,
        }),
        RefereeMessage::Quit,
    ];
    for message in messages {
        let line = message.to_line();
        assert_eq!(RefereeMessage::parse(&line), Ok(message.clone()), "{line}");
        assert_eq!(RefereeMessage::parse(&format!("{line}\n")), Ok(message));
    }
}

#[test]
fn parse_ignores_unknown_fields_and_defaults_new_limits() {
    let line = r#"{"type":"hello","protocol":1,"side":"S","variant":"kiswahili","start":"s","future":[1],
        "time_control":{"base_ms":null,"increment_ms":0,"move_time_ms":100,"startup_ms":5000,"margin_ms":100},
        "limits":{"max_line_bytes":65536,"max_info_per_move":100}}"#
        .replace('\n', "");
    let Ok(RefereeMessage::Hello(hello)) = RefereeMessage::parse(&line) else {
        panic!("hello should parse");
    };
    assert_eq!(
        hello,
        Hello {
            protocol: 1,
            side: Side::South,
            variant: "kiswahili".into(),
            start: "s".into(),
            time_control: TimeControl::move_time(100, 5000, 100),
            limits: Limits::default(),
        }
    );
    assert_eq!(RefereeMessage::parse(r#"{"type":"quit","why":"done"}"#), Ok(RefereeMessage::Quit));
}

#[test]
fn parse_errors_name_the_message_and_the_problem() {
    let err = RefereeMessage::parse(r#"{"type":"move","id":1}"#).expect_err("bot type");
    assert_eq!(
        err.to_string(),
        r#"unknown type "move", expected one of hello, move_request, game_over, quit"#
    );
    let err = RefereeMessage::parse(r#"{"type":"game_over","winner":"S","reason":"timeout","plies":3}"#)
        .expect_err("missing result");
    assert!(matches!(err, ProtocolError::InvalidMessage { message_type: "game_over", .. }), "{err:?}");
    assert!(err.to_string().starts_with("game_over message: missing field `result`"), "{err}");
    let err =
        RefereeMessage::parse(r#"{"type":"game_over","result":"r","winner":"X","reason":"r","plies":3}"#)
            .expect_err("bad side");
    assert!(err.to_string().contains("unknown side \"X\""), "{err}");
    assert_eq!(RefereeMessage::parse("").expect_err("empty"), ProtocolError::EmptyLine);
    assert!(matches!(RefereeMessage::parse("[]"), Err(ProtocolError::NotAnObject("an array"))));
}

#[test]
fn reasons_are_unique_snake_case_and_include_the_rules_reasons() {
    let mut sorted: Vec<&str> = Reason::ALL.iter().map(|r| r.name()).collect();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), Reason::ALL.len());
    assert!(Reason::ALL.iter().all(|r| r.name().bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
    assert_eq!(&Reason::ALL[..2], &[Reason::FrontRowEmpty, Reason::NoLegalMoves]);
    for reason in Reason::ALL {
        assert_eq!(serde_json::to_value(reason).expect("serialises"), json!(reason.name()));
        assert_eq!(reason.name().parse::<Reason>(), Ok(reason));
    }
    assert!("resigned".parse::<Reason>().is_err());
}

/// The reasons in the Verdicts table of PROTOCOL.md, in order.
fn documented_reasons() -> Vec<String> {
    let doc = include_str!("../../PROTOCOL.md");
    let table = doc.split("## Verdicts").nth(1).expect("PROTOCOL.md has a Verdicts section");
    table
        .lines()
        .skip_while(|l| !l.starts_with("| reason"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('`').nth(1).expect("a reason in back-quotes").to_owned())
        .collect()
}

#[test]
fn every_reason_in_protocol_md_is_a_variant_and_the_reverse() {
    let documented = documented_reasons();
    let variants: Vec<String> = Reason::ALL.iter().map(|r| r.name().to_owned()).collect();
    assert_eq!(documented, variants, "PROTOCOL.md's Verdicts table and Reason::ALL differ");
}

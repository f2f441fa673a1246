//! Reading and writing the bot → referee messages, and every error path of `BotMessage::parse`.

use bao_protocol::{BotMessage, GamesPerProcess, Info, MAX_LINE_BYTES, MoveReply, ProtocolError, Ready};

fn parse_err(line: &str) -> ProtocolError {
    BotMessage::parse(line).expect_err(line)
}

#[test]
fn parses_ready_with_all_fields() {
    let msg = BotMessage::parse(r#"{"type":"ready","name":"greedy","author":"Ann","version":"0.1.0"}"#);
    assert_eq!(
        msg,
        Ok(BotMessage::Ready(Ready {
            name: "greedy".into(),
            author: Some("Ann".into()),
            version: Some("0.1.0".into()),
            games: GamesPerProcess::One,
        }))
    );
}

#[test]
fn parses_ready_with_only_a_name_and_null_optionals() {
    let expected = BotMessage::Ready(Ready::named("x"));
    assert_eq!(BotMessage::parse(r#"{"type":"ready","name":"x"}"#), Ok(expected.clone()));
    assert_eq!(
        BotMessage::parse(r#"{"type":"ready","name":"x","author":null,"version":null}"#),
        Ok(expected)
    );
}

#[test]
fn parses_move() {
    assert_eq!(
        BotMessage::parse("{\"type\":\"move\",\"id\":12,\"move\":\"A5>+\"}\n"),
        Ok(BotMessage::Move(MoveReply { id: 12, move_text: "A5>+".into() }))
    );
}

#[test]
fn parses_info_full_and_empty() {
    assert_eq!(
        BotMessage::parse(r#"{"type":"info","depth":3,"score":-12,"nodes":1000,"comment":"thinking"}"#),
        Ok(BotMessage::Info(Info {
            depth: Some(3),
            score: Some(-12),
            nodes: Some(1000),
            comment: Some("thinking".into()),
        }))
    );
    assert_eq!(BotMessage::parse(r#"{"type":"info"}"#), Ok(BotMessage::Info(Info::default())));
}

#[test]
fn ignores_unknown_fields_and_accepts_crlf() {
    assert_eq!(
        BotMessage::parse("{\"type\":\"move\",\"id\":1,\"move\":\"A6<\",\"pv\":[\"A6<\"],\"x\":{}}\r\n"),
        Ok(BotMessage::Move(MoveReply { id: 1, move_text: "A6<".into() }))
    );
}

#[test]
fn round_trips_every_bot_message() {
    let messages = [
        BotMessage::Ready(Ready { author: Some("a".into()), ..Ready::named("n") }),
        BotMessage::Move(MoveReply { id: u64::MAX, move_text: "B3>".into() }),
        BotMessage::Info(Info {
            depth: None,
            score: Some(i64::MIN),
            nodes: None,
            comment: Some("é\"\n".into()),
        }),
        BotMessage::Info(Info::default()),
    ];
    for message in messages {
        let line = message.to_line();
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(BotMessage::parse(&line), Ok(message));
    }
}

#[test]
fn writes_the_documented_shapes() {
    assert_eq!(
        BotMessage::Move(MoveReply { id: 1, move_text: "A6<".into() }).to_line(),
        r#"{"type":"move","id":1,"move":"A6<"}"#
    );
    assert_eq!(
        BotMessage::Ready(Ready { version: Some("0.1.0".into()), ..Ready::named("greedy") }).to_line(),
        r#"{"type":"ready","name":"greedy","version":"0.1.0"}"#
    );
    assert_eq!(BotMessage::Info(Info::comment("hi")).to_line(), r#"{"type":"info","comment":"hi"}"#);
}

#[test]
fn line_length_limit_excludes_the_newline() {
    let pad = |n: usize| format!(r#"{{"type":"info","comment":"{}"}}"#, "x".repeat(n));
    let overhead = pad(0).len();
    let at_limit = pad(MAX_LINE_BYTES - overhead);
    assert_eq!(at_limit.len(), MAX_LINE_BYTES);
    assert!(BotMessage::parse(&format!("{at_limit}\n")).is_ok());
    let over = pad(MAX_LINE_BYTES - overhead + 1);
    let err = parse_err(&over);
    assert_eq!(err, ProtocolError::LineTooLong { bytes: MAX_LINE_BYTES + 1, max: MAX_LINE_BYTES });
    assert_eq!(err.to_string(), "line too long: 65537 bytes, the limit is 65536 bytes");
    assert_eq!(err.verdict_reason().name(), "line_too_long");
}

#[test]
fn empty_line_is_named() {
    for line in ["", "\n", "   \t", "\r\n"] {
        let err = parse_err(line);
        assert_eq!(err, ProtocolError::EmptyLine);
        assert!(err.to_string().contains("empty line"));
        assert_eq!(err.verdict_reason().name(), "malformed_line");
    }
}

#[test]
fn not_json_quotes_serde_with_position() {
    let err = parse_err(r#"{"type":"move","id":1,"move":"A6<""#);
    assert!(matches!(err, ProtocolError::NotJson(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with("not JSON: "), "{text}");
    assert!(text.contains("line 1 column"), "{text}");
    assert!(parse_err("move A6<").to_string().starts_with("not JSON: expected value at line 1 column 1"));
}

#[test]
fn non_objects_are_named_by_kind() {
    let cases = [
        ("[1,2]", "expected a JSON object, found an array"),
        ("42", "expected a JSON object, found a number"),
        ("\"move\"", "expected a JSON object, found a string"),
        ("null", "expected a JSON object, found null"),
        ("true", "expected a JSON object, found a boolean"),
    ];
    for (line, message) in cases {
        assert_eq!(parse_err(line).to_string(), message, "{line}");
    }
}

#[test]
fn type_field_errors() {
    let err = parse_err(r#"{"id":1,"move":"A6<"}"#);
    assert_eq!(err, ProtocolError::MissingType);
    assert!(err.to_string().contains(r#"missing field "type""#));
    assert_eq!(parse_err(r#"{"type":3}"#).to_string(), r#"field "type" must be a string, found a number"#);
    assert_eq!(parse_err(r#"{"type":null}"#).to_string(), r#"field "type" must be a string, found null"#);
    let err = parse_err(r#"{"type":"resign"}"#);
    assert_eq!(err.to_string(), r#"unknown type "resign", expected one of ready, move, info"#);
    // Types are case-sensitive, and referee types are not bot types.
    assert!(matches!(parse_err(r#"{"type":"Move","id":1,"move":"A6<"}"#), ProtocolError::UnknownType { .. }));
    assert!(matches!(parse_err(r#"{"type":"hello"}"#), ProtocolError::UnknownType { .. }));
}

#[test]
fn unknown_type_is_quoted_at_most_64_bytes() {
    let long = "t".repeat(1000);
    let ProtocolError::UnknownType { found, .. } = parse_err(&format!(r#"{{"type":"{long}"}}"#)) else {
        panic!("expected UnknownType");
    };
    assert_eq!(found.len(), 64);
}

#[test]
fn missing_fields_name_message_and_field() {
    assert_eq!(
        parse_err(r#"{"type":"move","move":"A6<"}"#).to_string(),
        r#"move message: missing field "id""#
    );
    assert_eq!(parse_err(r#"{"type":"move","id":1}"#).to_string(), r#"move message: missing field "move""#);
    assert_eq!(parse_err(r#"{"type":"ready"}"#).to_string(), r#"ready message: missing field "name""#);
}

#[test]
fn wrong_field_types_name_message_field_and_problem() {
    let cases = [
        (r#"{"type":"move","id":"1","move":"A6<"}"#, r#"move message: field "id": invalid type: string "1""#),
        (
            r#"{"type":"move","id":-1,"move":"A6<"}"#,
            r#"move message: field "id": invalid value: integer `-1`"#,
        ),
        (
            r#"{"type":"move","id":1.5,"move":"A6<"}"#,
            r#"move message: field "id": invalid type: floating point"#,
        ),
        (r#"{"type":"move","id":null,"move":"A6<"}"#, r#"move message: field "id": invalid type: null"#),
        (r#"{"type":"move","id":1,"move":["A6<"]}"#, r#"move message: field "move": invalid type: sequence"#),
        (r#"{"type":"ready","name":7}"#, r#"ready message: field "name": invalid type: integer `7`"#),
        (r#"{"type":"ready","name":"x","author":1}"#, r#"ready message: field "author": invalid type"#),
        (r#"{"type":"info","depth":-3}"#, r#"info message: field "depth": invalid value: integer `-3`"#),
        (r#"{"type":"info","score":"good"}"#, r#"info message: field "score": invalid type: string"#),
        (r#"{"type":"info","nodes":1e3}"#, r#"info message: field "nodes": invalid type: floating point"#),
        (r#"{"type":"info","comment":false}"#, r#"info message: field "comment": invalid type: boolean"#),
    ];
    for (line, prefix) in cases {
        let err = parse_err(line);
        assert!(matches!(err, ProtocolError::InvalidField { .. }), "{line}: {err:?}");
        assert!(err.to_string().starts_with(prefix), "{line}: {err}");
        assert_eq!(err.verdict_reason().name(), "malformed_line");
    }
}

#[test]
fn ready_name_is_checked() {
    assert_eq!(
        parse_err(r#"{"type":"ready","name":""}"#).to_string(),
        r#"ready message: field "name": must not be empty"#
    );
    assert!(parse_err(r#"{"type":"ready","name":"  "}"#).to_string().contains("must not be empty"));
    let ok = "é".repeat(64);
    assert!(BotMessage::parse(&format!(r#"{{"type":"ready","name":"{ok}"}}"#)).is_ok());
    let long = "é".repeat(65);
    assert_eq!(
        parse_err(&format!(r#"{{"type":"ready","name":"{long}"}}"#)).to_string(),
        r#"ready message: field "name": has 65 characters; at most 64 are allowed"#
    );
    assert_eq!(
        parse_err(r#"{"type":"ready","name":"a\nb"}"#).to_string(),
        r#"ready message: field "name": contains the control character '\n'"#
    );
}

#[test]
fn info_comment_truncation_keeps_char_boundaries() {
    let info = Info::comment("é".repeat(1000)).truncated();
    let comment = info.comment.expect("comment kept");
    assert_eq!(comment.len(), 1024);
    let info = Info::comment(format!("a{}", "é".repeat(1000))).truncated();
    assert_eq!(info.comment.expect("comment kept").len(), 1023);
    assert_eq!(Info::comment("short").truncated().comment.as_deref(), Some("short"));
}

#[test]
fn ready_games_field_is_optional_and_defaults_to_one() {
    let parsed = |line: &str| match BotMessage::parse(line) {
        Ok(BotMessage::Ready(ready)) => ready.games,
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(parsed(r#"{"type":"ready","name":"x"}"#), GamesPerProcess::One);
    assert_eq!(parsed(r#"{"type":"ready","name":"x","games":null}"#), GamesPerProcess::One);
    assert_eq!(parsed(r#"{"type":"ready","name":"x","games":"one"}"#), GamesPerProcess::One);
    assert_eq!(parsed(r#"{"type":"ready","name":"x","games":"many"}"#), GamesPerProcess::Many);
}

#[test]
fn ready_games_field_rejects_unknown_values_naming_the_field() {
    for (line, problem) in [
        (
            r#"{"type":"ready","name":"x","games":"Many"}"#,
            r#"ready message: field "games": unknown variant `Many`, expected `one` or `many`"#,
        ),
        (
            r#"{"type":"ready","name":"x","games":"2"}"#,
            r#"ready message: field "games": unknown variant `2`, expected `one` or `many`"#,
        ),
        (r#"{"type":"ready","name":"x","games":2}"#, r#"ready message: field "games": invalid type"#),
        (r#"{"type":"ready","name":"x","games":true}"#, r#"ready message: field "games": invalid type"#),
    ] {
        let err = parse_err(line);
        assert!(matches!(err, ProtocolError::InvalidField { field: "games", .. }), "{line}: {err:?}");
        assert!(err.to_string().starts_with(problem), "{line}: {err}");
    }
}

#[test]
fn ready_writes_games_only_when_many() {
    assert_eq!(BotMessage::Ready(Ready::named("b")).to_line(), r#"{"type":"ready","name":"b"}"#);
    let many = BotMessage::Ready(Ready { games: GamesPerProcess::Many, ..Ready::named("b") });
    assert_eq!(many.to_line(), r#"{"type":"ready","name":"b","games":"many"}"#);
    assert_eq!(BotMessage::parse(&many.to_line()), Ok(many));
    assert_eq!(GamesPerProcess::Many.as_str(), "many");
    assert_eq!(GamesPerProcess::One.as_str(), "one");
}

#[test]
fn a_problem_quoting_control_characters_escapes_them() {
    // serde quotes an unknown value as sent: a NUL there once made the result's write fail.
    let err = parse_err("{\"type\":\"ready\",\"name\":\"x\",\"games\":\"\\u0000\\n\"}");
    let ProtocolError::InvalidField { field: "games", problem, .. } = &err else { panic!("{err:?}") };
    assert!(!problem.chars().any(char::is_control), "{problem:?}");
    assert!(problem.contains("\\u{0}\\n"), "the characters are shown escaped: {problem}");
}

//! The raw SDK's protocol loop, driven through `run_with_io` with in-memory transcripts.

use std::io::Cursor;

use bao_protocol::{
    BotMessage, Clock, GameOver, Hello, Info, MoveReply, MoveRequest, PerSide, PositionJson, ProtocolError,
    Ready, RefereeMessage, Rows, Side, TimeControl,
};
use bao_sdk::raw::{Bot, Identity, InfoSink, SDK_MAX_LINE_BYTES, SdkError, run_with_io};

/// Plays the last legal move, reports one info per move, and records what it saw.
#[derive(Default)]
struct Recorder {
    hellos: Vec<Hello>,
    requests: Vec<u64>,
    infos_sent: Vec<usize>,
    game_overs: Vec<GameOver>,
}

impl Bot for Recorder {
    fn identity(&self) -> Identity {
        Identity::new("recorder").with_author("tests").with_version("1.2.3")
    }

    fn hello(&mut self, hello: &Hello) {
        self.hellos.push(hello.clone());
    }

    fn choose_move(&mut self, request: &MoveRequest, info: &mut InfoSink<'_>) -> String {
        self.requests.push(request.id);
        info.send(&Info {
            depth: Some(1),
            score: Some(-5),
            nodes: Some(request.legal.len() as u64),
            comment: None,
        });
        self.infos_sent.push(info.sent());
        request.legal.last().cloned().unwrap_or_default()
    }

    fn game_over(&mut self, game_over: &GameOver) {
        self.game_overs.push(game_over.clone());
    }
}

fn request(id: u64, legal: &[&str]) -> RefereeMessage {
    RefereeMessage::MoveRequest(MoveRequest {
        id,
        ply: u32::try_from(2 * id - 1).expect("small"),
        position: PositionJson {
            notation: "kujifunza N 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 0,0 -- -"
                .into(),
            variant: "kujifunza".into(),
            to_move: Side::North,
            rows: Rows { south_front: [2; 8], south_back: [2; 8], north_front: [2; 8], north_back: [2; 8] },
            hands: PerSide { south: 0, north: 0 },
            stage: "mtaji".into(),
            nyumba: PerSide { south: false, north: false },
            takasia: None,
        },
        legal: legal.iter().map(|m| (*m).to_owned()).collect(),
        opponent_move: Some("A1>".into()),
        clock: Clock { you_ms: 1000, opponent_ms: 900, increment_ms: 0, move_time_ms: None },
    })
}

fn transcript(messages: &[RefereeMessage]) -> String {
    messages.iter().map(|m| format!("{}\n", m.to_line())).collect()
}

fn run_on(bot: &mut Recorder, input: &str) -> (Result<(), SdkError>, Vec<BotMessage>) {
    let mut output = Vec::new();
    let result = run_with_io(&mut *bot, Cursor::new(input.as_bytes().to_vec()), &mut output);
    let text = String::from_utf8(output).expect("UTF-8 output");
    assert!(text.is_empty() || text.ends_with('\n'), "every line ends with a newline: {text:?}");
    let replies = text.lines().map(|l| BotMessage::parse(l).expect("valid bot line")).collect();
    (result, replies)
}

fn hello() -> RefereeMessage {
    RefereeMessage::hello(Side::North, "kujifunza", "start", TimeControl::fischer(1000, 0, 5000, 100))
}

#[test]
fn answers_a_whole_game_and_stops_at_quit() {
    let over = GameOver {
        result: "S wins (no_legal_moves)".into(),
        winner: Some(Side::South),
        reason: "no_legal_moves".into(),
        plies: 4,
    };
    let input = transcript(&[
        hello(),
        request(1, &["A1>", "A2<"]),
        request(2, &["B8<"]),
        RefereeMessage::GameOver(over.clone()),
        RefereeMessage::Quit,
        request(3, &["A1>"]), // after quit: never read
    ]);
    let mut bot = Recorder::default();
    let (result, replies) = run_on(&mut bot, &input);
    result.expect("clean exit on quit");
    let info = BotMessage::Info(Info { depth: Some(1), score: Some(-5), nodes: None, comment: None });
    let info_with = |nodes| match &info {
        BotMessage::Info(i) => BotMessage::Info(Info { nodes: Some(nodes), ..i.clone() }),
        _ => unreachable!(),
    };
    assert_eq!(
        replies,
        vec![
            BotMessage::Ready(Ready {
                name: "recorder".into(),
                author: Some("tests".into()),
                version: Some("1.2.3".into()),
                games: bao_protocol::GamesPerProcess::Many,
            }),
            info_with(2),
            BotMessage::Move(MoveReply { id: 1, move_text: "A2<".into() }),
            info_with(1),
            BotMessage::Move(MoveReply { id: 2, move_text: "B8<".into() }),
        ]
    );
    assert_eq!(bot.hellos.len(), 1);
    assert_eq!(bot.hellos[0].side, Side::North);
    assert_eq!(bot.requests, vec![1, 2]);
    assert_eq!(bot.infos_sent, vec![1, 1]);
    assert_eq!(bot.game_overs, vec![over]);
}

#[test]
fn end_of_input_is_a_clean_exit_even_without_a_final_newline() {
    let mut bot = Recorder::default();
    let input = format!("{}\n{}", hello().to_line(), request(1, &["A3<"]).to_line());
    let (result, replies) = run_on(&mut bot, &input);
    result.expect("EOF is a clean exit");
    assert_eq!(replies.last(), Some(&BotMessage::Move(MoveReply { id: 1, move_text: "A3<".into() })));
    let (result, replies) = run_on(&mut Recorder::default(), "");
    result.expect("empty input");
    assert!(replies.is_empty());
}

#[test]
fn a_bad_referee_line_stops_the_loop_with_its_line_number() {
    let input = format!("{}\n{{\"type\":\"move_request\",\"id\":2}}\n", hello().to_line());
    let (result, replies) = run_on(&mut Recorder::default(), &input);
    assert_eq!(replies.len(), 1, "ready was sent before the bad line");
    let err = result.expect_err("bad line");
    assert!(
        matches!(
            &err,
            SdkError::Protocol {
                line_number: 2,
                source: ProtocolError::InvalidMessage { message_type: "move_request", .. }
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with("line 2 from the referee: move_request message: missing field"),
        "{err}"
    );
}

#[test]
fn another_protocol_version_is_refused_before_ready() {
    let mut line = hello().to_line();
    line = line.replace("\"protocol\":1", "\"protocol\":2");
    let (result, replies) = run_on(&mut Recorder::default(), &format!("{line}\n"));
    assert!(replies.is_empty());
    assert!(matches!(result, Err(SdkError::UnsupportedProtocol { found: 2, supported: 1 })), "{result:?}");
}

#[test]
fn overlong_and_non_utf8_referee_lines_are_errors() {
    let input = "x".repeat(SDK_MAX_LINE_BYTES + 10);
    let (result, _) = run_on(&mut Recorder::default(), &input);
    assert!(
        matches!(
            result,
            Err(SdkError::Protocol { line_number: 1, source: ProtocolError::LineTooLong { .. } })
        ),
        "{result:?}"
    );
    let mut output = Vec::new();
    let result =
        run_with_io(Recorder::default(), Cursor::new(b"{\"type\":\"qu\xffit\"}\n".to_vec()), &mut output);
    assert!(
        matches!(result, Err(SdkError::Protocol { source: ProtocolError::NotUtf8 { valid_up_to: 11 }, .. })),
        "{result:?}"
    );
}

/// A writer that fails every write.
struct Broken;

impl std::io::Write for Broken {
    fn write(&mut self, _buf: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "closed"))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_closed_stdout_is_an_io_error() {
    let input = transcript(&[hello()]);
    let result = run_with_io(Recorder::default(), Cursor::new(input.into_bytes()), Broken);
    assert!(
        matches!(result, Err(SdkError::Io(ref e)) if e.kind() == std::io::ErrorKind::BrokenPipe),
        "{result:?}"
    );
    // A failing info write is reported after the move is chosen, before the move is sent.
    let input = transcript(&[request(1, &["A1>"])]);
    let mut bot = Recorder::default();
    let result = run_with_io(&mut bot, Cursor::new(input.into_bytes()), Broken);
    assert!(matches!(result, Err(SdkError::Io(_))), "{result:?}");
    assert_eq!(bot.requests, vec![1]);
    assert_eq!(bot.infos_sent, vec![0], "the failed info is not counted as sent");
}

#[test]
fn plays_a_second_game_after_game_over_in_the_same_loop() {
    // Protocol 1.1: ready says "games":"many" by default, and a hello after game_over (here
    // South, the other side) starts the next game: ready again, the hook again, ids from 1.
    let draw = RefereeMessage::GameOver(GameOver {
        result: "draw (max_plies)".into(),
        winner: None,
        reason: "max_plies".into(),
        plies: 2,
    });
    let second =
        RefereeMessage::hello(Side::South, "kiswahili", "start", TimeControl::move_time(300, 5000, 100));
    let input = transcript(&[
        hello(),
        request(1, &["A1>"]),
        draw.clone(),
        second,
        request(1, &["A6<", "A7<"]),
        draw,
        RefereeMessage::Quit,
    ]);
    let mut bot = Recorder::default();
    let (result, replies) = run_on(&mut bot, &input);
    result.expect("two games, then quit");
    assert_eq!(bot.hellos.iter().map(|h| h.side).collect::<Vec<_>>(), [Side::North, Side::South]);
    assert_eq!(bot.hellos[1].time_control.move_time_ms, Some(300));
    assert_eq!(bot.requests, [1, 1]);
    assert_eq!(bot.game_overs.len(), 2);
    let readies: Vec<_> = replies
        .iter()
        .filter_map(|r| match r {
            BotMessage::Ready(ready) => Some(ready.games),
            _ => None,
        })
        .collect();
    assert_eq!(readies, [bao_protocol::GamesPerProcess::Many; 2], "{replies:?}");
    let moves: Vec<_> = replies
        .iter()
        .filter_map(|r| match r {
            BotMessage::Move(reply) => Some(reply.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        moves,
        [MoveReply { id: 1, move_text: "A1>".into() }, MoveReply { id: 1, move_text: "A7<".into() }]
    );
}

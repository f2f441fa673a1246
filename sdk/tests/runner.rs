//! The typed runner driven through `run_with_io` with in-memory transcripts.

use std::io::Cursor;

use bao_protocol::{
    BotMessage, Clock, GameOver, MoveReply, MoveRequest, PerSide, PositionJson, RefereeMessage, Rows,
    TimeControl,
};
use bao_sdk::{
    Bot, Deadline, GameEnd, Identity, Info, Move, MoveList, NewGame, Position, SdkError, Side, TimeMode,
    Variant,
};

/// Plays the last legal move, queues one info per move, and records what it saw.
#[derive(Default)]
struct Recorder {
    games: Vec<NewGame>,
    positions: Vec<Position>,
    modes: Vec<TimeMode>,
    ends: Vec<GameEnd>,
    queued: Vec<Info>,
    play_illegal: bool,
}

impl Bot for Recorder {
    fn identity(&self) -> Identity {
        Identity::new("recorder")
    }

    fn new_game(&mut self, game: &NewGame) {
        self.games.push(game.clone());
    }

    fn choose_move(&mut self, position: &Position, legal: &MoveList, deadline: &Deadline) -> Move {
        assert!(!deadline.expired(), "a fresh deadline");
        self.positions.push(*position);
        self.modes.push(deadline.mode());
        self.queued.push(Info { depth: Some(1), nodes: Some(legal.len() as u64), ..Info::default() });
        if self.play_illegal {
            return Move::new(bao_rules::Pit::LEFT_KICHWA, bao_rules::Direction::Clockwise, true);
        }
        *legal.last().expect("never empty")
    }

    fn take_info(&mut self) -> Vec<Info> {
        std::mem::take(&mut self.queued)
    }

    fn game_over(&mut self, end: &GameEnd) {
        self.ends.push(end.clone());
    }
}

fn request(id: u64, position: &Position, legal: Vec<String>) -> RefereeMessage {
    RefereeMessage::MoveRequest(MoveRequest {
        id,
        ply: 0,
        position: PositionJson {
            notation: position.to_string(),
            variant: position.variant().to_string(),
            to_move: bao_protocol::Side::South,
            rows: Rows::default(),
            hands: PerSide::default(),
            stage: "namua".into(),
            nyumba: PerSide::default(),
            takasia: None,
        },
        legal,
        opponent_move: None,
        clock: Clock { you_ms: 9000, opponent_ms: 9000, increment_ms: 100, move_time_ms: None },
    })
}

fn legal_texts(position: &Position) -> Vec<String> {
    position.legal_moves().iter().map(ToString::to_string).collect()
}

fn transcript(messages: &[RefereeMessage]) -> Cursor<Vec<u8>> {
    Cursor::new(messages.iter().map(|m| format!("{}\n", m.to_line())).collect::<String>().into_bytes())
}

fn run(bot: &mut Recorder, messages: &[RefereeMessage]) -> (Result<(), SdkError>, Vec<BotMessage>) {
    let mut output = Vec::new();
    let result = bao_sdk::run_with_io(bot, transcript(messages), &mut output);
    let lines = String::from_utf8(output)
        .expect("UTF-8")
        .lines()
        .map(|l| BotMessage::parse(l).expect("valid line"))
        .collect();
    (result, lines)
}

#[test]
fn a_game_is_typed_end_to_end() {
    let start = Position::start(Variant::Kiswahili);
    let mut bot = Recorder::default();
    let (result, lines) = run(
        &mut bot,
        &[
            RefereeMessage::hello(
                bao_protocol::Side::North,
                "kiswahili",
                &start.to_string(),
                TimeControl::fischer(9000, 100, 5000, 100),
            ),
            request(1, &start, legal_texts(&start)),
            RefereeMessage::GameOver(GameOver {
                result: "S wins (front_row_empty)".into(),
                winner: Some(bao_protocol::Side::South),
                reason: "front_row_empty".into(),
                plies: 31,
            }),
            RefereeMessage::Quit,
        ],
    );
    result.expect("clean run");
    assert_eq!(bot.games.len(), 1);
    assert_eq!(
        (bot.games[0].side, bot.games[0].variant, bot.games[0].start),
        (Side::North, Variant::Kiswahili, start)
    );
    assert_eq!(bot.positions, [start]);
    assert_eq!(
        bot.modes,
        [TimeMode::Fischer {
            remaining: std::time::Duration::from_secs(9),
            increment: std::time::Duration::from_millis(100)
        }]
    );
    assert_eq!(bot.ends.len(), 1);
    assert_eq!((bot.ends[0].winner, bot.ends[0].plies), (Some(Side::South), 31));
    assert!(matches!(&lines[0], BotMessage::Ready(r) if r.name == "recorder"));
    assert!(matches!(&lines[1], BotMessage::Info(i) if i.nodes == Some(4) && i.depth == Some(1)));
    assert_eq!(lines[2], BotMessage::Move(MoveReply { id: 1, move_text: "A7>".into() }));
    assert_eq!(lines.len(), 3);
}

#[test]
fn a_legal_list_that_differs_from_the_engine_stops_the_bot() {
    let start = Position::start(Variant::Kiswahili);
    let mut listed = legal_texts(&start);
    listed.pop();
    let mut bot = Recorder::default();
    let (result, lines) = run(&mut bot, &[request(4, &start, listed)]);
    let err = result.expect_err("mismatch");
    assert!(matches!(err, SdkError::LegalMismatch { id: 4, .. }), "{err}");
    assert!(err.to_string().contains("[\"A6<\", \"A6>\", \"A7<\", \"A7>\"]"), "{err}");
    assert!(lines.is_empty() && bot.positions.is_empty());
}

#[test]
fn an_unreadable_position_is_an_error_naming_it() {
    let start = Position::start(Variant::Kiswahili);
    let RefereeMessage::MoveRequest(mut bad) = request(2, &start, legal_texts(&start)) else {
        unreachable!("a move request")
    };
    bad.position.notation = "kiswahili S nonsense".into();
    let mut bot = Recorder::default();
    let (result, _) = run(&mut bot, &[RefereeMessage::MoveRequest(bad)]);
    let err = result.expect_err("bad position");
    assert!(matches!(err, SdkError::BadPosition { id: 2, .. }), "{err}");
    assert!(err.to_string().contains("\"kiswahili S nonsense\""), "{err}");
}

#[test]
fn an_illegal_choice_is_not_sent() {
    let start = Position::start(Variant::Kiswahili);
    let mut bot = Recorder { play_illegal: true, ..Recorder::default() };
    let (result, lines) = run(&mut bot, &[request(3, &start, legal_texts(&start))]);
    let err = result.expect_err("illegal");
    assert!(matches!(&err, SdkError::IllegalChoice { id: 3, chosen, .. } if chosen == "A1>+"), "{err}");
    assert!(lines.is_empty(), "nothing sent: {lines:?}");
}

#[test]
fn a_finished_position_and_a_bad_hello_are_errors() {
    let over: Position =
        "kujifunza S 0,0,0,0,0,0,0,0/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 0,0 -- -"
            .parse()
            .expect("valid");
    let mut bot = Recorder::default();
    let (result, _) = run(&mut bot, &[request(9, &over, Vec::new())]);
    assert!(matches!(result, Err(SdkError::NoLegalMove { id: 9, .. })), "{result:?}");
    let hello = RefereeMessage::hello(
        bao_protocol::Side::South,
        "chess",
        "e4",
        TimeControl::move_time(100, 5000, 100),
    );
    let (result, lines) = run(&mut bot, &[hello]);
    let err = result.expect_err("bad hello");
    assert!(err.to_string().contains("unknown variant \"chess\""), "{err}");
    assert!(lines.is_empty());
}

#[test]
fn the_end_of_input_is_a_clean_stop() {
    let mut bot = Recorder::default();
    let (result, lines) = run(&mut bot, &[]);
    result.expect("clean");
    assert!(lines.is_empty());
}

/// The lines of a game's end: `game_over` (a draw at the ply limit after `plies`).
fn draw(plies: u32) -> RefereeMessage {
    RefereeMessage::GameOver(GameOver {
        result: "draw (max_plies)".into(),
        winner: None,
        reason: "max_plies".into(),
        plies,
    })
}

#[test]
fn two_games_in_one_process_each_from_its_own_hello() {
    // Protocol 1.1: after game_over, a kept process gets the next game's hello instead of quit:
    // here the other side, the other variant and another clock mode, with ids from 1 again.
    let kiswahili = Position::start(Variant::Kiswahili);
    let kujifunza = Position::start(Variant::Kujifunza);
    let (after_south, _) = kujifunza.play(kujifunza.legal_moves()[0]).expect("legal");
    let RefereeMessage::MoveRequest(mut second) = request(1, &after_south, legal_texts(&after_south)) else {
        unreachable!("a move request")
    };
    second.clock = Clock { you_ms: 700, opponent_ms: 700, increment_ms: 0, move_time_ms: Some(700) };
    let mut bot = Recorder::default();
    let (result, lines) = run(
        &mut bot,
        &[
            RefereeMessage::hello(
                bao_protocol::Side::South,
                "kiswahili",
                &kiswahili.to_string(),
                TimeControl::fischer(9000, 100, 5000, 100),
            ),
            request(1, &kiswahili, legal_texts(&kiswahili)),
            draw(1),
            RefereeMessage::hello(
                bao_protocol::Side::North,
                "kujifunza",
                &kujifunza.to_string(),
                TimeControl::move_time(700, 5000, 100),
            ),
            RefereeMessage::MoveRequest(second),
            draw(2),
            RefereeMessage::Quit,
        ],
    );
    result.expect("clean run over two games");
    let sides: Vec<_> = bot.games.iter().map(|g| (g.side, g.variant, g.start)).collect();
    assert_eq!(
        sides,
        [(Side::South, Variant::Kiswahili, kiswahili), (Side::North, Variant::Kujifunza, kujifunza)]
    );
    assert_eq!(bot.positions, [kiswahili, after_south]);
    assert_eq!(after_south.side_to_move(), Side::North);
    assert!(matches!(bot.modes[..], [TimeMode::Fischer { .. }, TimeMode::MoveTime(_)]), "{:?}", bot.modes);
    assert_eq!(bot.ends.iter().map(|e| e.plies).collect::<Vec<_>>(), [1, 2]);
    let ready = |line: &BotMessage| match line {
        BotMessage::Ready(ready) => Some((ready.name.clone(), ready.games)),
        _ => None,
    };
    let declared = Some(("recorder".to_owned(), bao_sdk::GamesPerProcess::Many));
    assert_eq!(ready(&lines[0]), declared, "{lines:?}");
    assert_eq!(ready(&lines[3]), declared, "the second hello is answered with ready: {lines:?}");
    let last_legal = after_south.legal_moves().last().expect("a move").to_string();
    assert_eq!(lines[2], BotMessage::Move(MoveReply { id: 1, move_text: "A7>".into() }));
    assert_eq!(lines[5], BotMessage::Move(MoveReply { id: 1, move_text: last_legal }));
    assert_eq!(lines.len(), 6, "{lines:?}");
}

/// A bot that can play only one game per process.
struct OneGame;

impl Bot for OneGame {
    fn identity(&self) -> Identity {
        Identity::new("one-game").one_game_per_process()
    }

    fn choose_move(&mut self, _position: &Position, legal: &MoveList, _deadline: &Deadline) -> Move {
        legal[0]
    }
}

#[test]
fn every_bot_declares_many_games_unless_it_opts_out() {
    let hello = RefereeMessage::hello(
        bao_protocol::Side::South,
        "kiswahili",
        &Position::start(Variant::Kiswahili).to_string(),
        TimeControl::move_time(100, 5000, 100),
    );
    let ready_line = |output: Vec<u8>| String::from_utf8(output).expect("UTF-8");
    let mut many = Vec::new();
    bao_sdk::run_with_io(Recorder::default(), transcript(std::slice::from_ref(&hello)), &mut many)
        .expect("clean");
    assert_eq!(ready_line(many), "{\"type\":\"ready\",\"name\":\"recorder\",\"games\":\"many\"}\n");
    let mut one = Vec::new();
    bao_sdk::run_with_io(OneGame, transcript(std::slice::from_ref(&hello)), &mut one).expect("clean");
    assert_eq!(ready_line(one), "{\"type\":\"ready\",\"name\":\"one-game\"}\n");
}

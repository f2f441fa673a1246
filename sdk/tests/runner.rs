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

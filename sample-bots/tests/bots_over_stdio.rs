//! Runs the sample bots as processes (the two binaries and the Python template) on a
//! scripted transcript, and checks every line they write and how they exit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use bao_protocol::{
    BotMessage, Clock, GameOver, GamesPerProcess, MoveRequest, PerSide, PositionJson, RefereeMessage, Rows,
    Side, TimeControl,
};

const START: &str = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -";
/// The position after South's first legal move from the start: North to move.
fn after_first_move() -> String {
    let start: bao_rules::Position = START.parse().expect("valid position");
    start.play(start.legal_moves()[0]).expect("legal").0.to_string()
}

fn request(id: u64, notation: &str, legal: &[String]) -> RefereeMessage {
    let position: bao_rules::Position = notation.parse().expect("valid position");
    let to_move = match position.side_to_move() {
        bao_rules::Side::South => Side::South,
        bao_rules::Side::North => Side::North,
    };
    RefereeMessage::MoveRequest(MoveRequest {
        id,
        ply: u32::try_from(id - 1).expect("small"),
        position: PositionJson {
            notation: notation.into(),
            variant: position.variant().to_string(),
            to_move,
            rows: Rows::default(),
            hands: PerSide {
                south: position.hand(bao_rules::Side::South),
                north: position.hand(bao_rules::Side::North),
            },
            stage: "namua".into(),
            nyumba: PerSide { south: true, north: true },
            takasia: None,
        },
        legal: legal.to_vec(),
        opponent_move: None,
        clock: Clock { you_ms: 5000, opponent_ms: 5000, increment_ms: 0, move_time_ms: None },
    })
}

fn legal(notation: &str) -> Vec<String> {
    let position: bao_rules::Position = notation.parse().expect("valid position");
    position.legal_moves().iter().map(ToString::to_string).collect()
}

/// Feeds `input` to `command`, closes stdin, and returns (exit success, stdout messages).
fn converse(mut command: Command, input: &str) -> (bool, Vec<BotMessage>) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {command:?}: {e}"));
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write transcript");
    let output = child.wait_with_output().expect("bot finishes");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
    let messages = stdout
        .lines()
        .map(|line| BotMessage::parse(line).unwrap_or_else(|e| panic!("{command:?} wrote {line:?}: {e}")))
        .collect();
    (output.status.success(), messages)
}

fn transcript(with_quit: bool) -> String {
    let mut messages = vec![
        RefereeMessage::hello(Side::South, "kiswahili", START, TimeControl::fischer(5000, 0, 5000, 100)),
        request(1, START, &legal(START)),
        request(2, &after_first_move(), &legal(&after_first_move())),
        RefereeMessage::GameOver(GameOver {
            result: "draw (max_plies)".into(),
            winner: None,
            reason: "max_plies".into(),
            plies: 2,
        }),
    ];
    if with_quit {
        messages.push(RefereeMessage::Quit);
    }
    messages.iter().map(|m| format!("{}\n", m.to_line())).collect()
}

/// Checks one bot's answers: `ready` first, then one legal move per request with its id.
fn check_conversation(command: impl Fn() -> Command, name: &str) {
    for with_quit in [true, false] {
        let (success, messages) = converse(command(), &transcript(with_quit));
        assert!(success, "{name} exits 0 (quit: {with_quit})");
        let Some(BotMessage::Ready(ready)) = messages.first() else {
            panic!("{name} starts with ready: {messages:?}");
        };
        assert_eq!(ready.name, name);
        let moves: Vec<_> = messages
            .iter()
            .filter_map(|m| match m {
                BotMessage::Move(reply) => Some(reply.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(moves.len(), 2, "{name}: {messages:?}");
        assert_eq!(moves[0].id, 1);
        assert!(legal(START).contains(&moves[0].move_text), "{name}: {}", moves[0].move_text);
        assert_eq!(moves[1].id, 2);
        assert!(legal(&after_first_move()).contains(&moves[1].move_text), "{name}: {}", moves[1].move_text);
    }
}

#[test]
fn bao_random_converses_and_exits_cleanly() {
    check_conversation(
        || {
            let mut c = Command::new(env!("CARGO_BIN_EXE_bao-random"));
            c.args(["--seed", "9"]);
            c
        },
        "random",
    );
}

#[test]
fn bao_greedy_converses_and_exits_cleanly() {
    check_conversation(|| Command::new(env!("CARGO_BIN_EXE_bao-greedy")), "greedy");
}

#[test]
fn python_template_converses_and_exits_cleanly() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/random_bot.py");
    check_conversation(
        || {
            let mut c = Command::new("python3");
            c.arg("-B").arg(&script).args(["--seed", "4"]);
            c
        },
        "random-py",
    );
}

#[test]
fn bad_arguments_exit_2() {
    let status = Command::new(env!("CARGO_BIN_EXE_bao-random"))
        .args(["--seed", "minus-one"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run bao-random");
    assert_eq!(status.code(), Some(2));
}

/// `position` after `plies` first legal moves.
fn after(position: &str, plies: usize) -> String {
    let mut position: bao_rules::Position = position.parse().expect("valid position");
    for _ in 0..plies {
        position = position.play(position.legal_moves()[0]).expect("legal").0;
    }
    position.to_string()
}

/// The lines of a game: `hello` for `side` from `start`, a request for each of `positions`
/// (ids from 1), then `game_over`.
fn game(side: Side, start: &str, clock: TimeControl, positions: &[String]) -> Vec<RefereeMessage> {
    let variant = start.split(' ').next().expect("a variant");
    let mut messages = vec![RefereeMessage::hello(side, variant, start, clock)];
    for (id, notation) in (1..).zip(positions) {
        messages.push(request(id, notation, &legal(notation)));
    }
    messages.push(RefereeMessage::GameOver(GameOver {
        result: "draw (max_plies)".into(),
        winner: None,
        reason: "max_plies".into(),
        plies: 4,
    }));
    messages
}

fn lines(messages: &[RefereeMessage]) -> String {
    messages.iter().map(|m| format!("{}\n", m.to_line())).collect()
}

/// The moves of `messages` (the bot's lines), as (id, move).
fn moves(messages: &[BotMessage]) -> Vec<(u64, String)> {
    messages
        .iter()
        .filter_map(|m| match m {
            BotMessage::Move(reply) => Some((reply.id, reply.move_text.clone())),
            _ => None,
        })
        .collect()
}

/// Protocol 1.1: the bot declares `"games":"many"`, answers a second `hello` (after
/// `game_over`, the other side, the other variant, another clock) with `ready`, plays the
/// second game legally with ids from 1, and plays it exactly as a fresh process does (its
/// seed and tables start again at every game, as documented).
fn check_two_games(command: impl Fn() -> Command, name: &str) {
    let kujifunza = bao_rules::Position::start(bao_rules::Variant::Kujifunza).to_string();
    let first = game(
        Side::South,
        START,
        TimeControl::fischer(5000, 0, 5000, 100),
        &[START.to_owned(), after(START, 2)],
    );
    let second = game(
        Side::North,
        &kujifunza,
        TimeControl::move_time(2000, 5000, 100),
        &[after(&kujifunza, 1), after(&kujifunza, 3)],
    );
    let both: Vec<RefereeMessage> =
        first.iter().chain(&second).cloned().chain([RefereeMessage::Quit]).collect();
    let (success, kept) = converse(command(), &lines(&both));
    assert!(success, "{name} exits 0 after two games");
    let readies: Vec<_> = kept
        .iter()
        .filter_map(|m| match m {
            BotMessage::Ready(ready) => Some((ready.name.as_str(), ready.games)),
            _ => None,
        })
        .collect();
    assert_eq!(readies, [(name, GamesPerProcess::Many); 2], "{name}: {kept:?}");
    let kept_moves = moves(&kept);
    assert_eq!(kept_moves.iter().map(|m| m.0).collect::<Vec<_>>(), [1, 2, 1, 2], "{name}: {kept:?}");
    for ((_, mv), notation) in kept_moves
        .iter()
        .zip([START.to_owned(), after(START, 2)].iter().chain(&[after(&kujifunza, 1), after(&kujifunza, 3)]))
    {
        assert!(legal(notation).contains(mv), "{name}: {mv} in {notation}");
    }
    let alone: Vec<RefereeMessage> = second.into_iter().chain([RefereeMessage::Quit]).collect();
    let (success, fresh) = converse(command(), &lines(&alone));
    assert!(success, "{name} exits 0 after one game");
    assert_eq!(kept_moves[2..], moves(&fresh)[..], "{name}: the kept game is the fresh one");
}

#[test]
fn the_sample_bots_play_two_games_in_one_process() {
    let bot = |program: &'static str, args: &'static [&'static str]| {
        move || {
            let mut c = Command::new(program);
            c.args(args);
            c
        }
    };
    check_two_games(bot(env!("CARGO_BIN_EXE_bao-random"), &["--seed", "9"]), "random");
    check_two_games(bot(env!("CARGO_BIN_EXE_bao-greedy"), &["--seed", "2"]), "greedy");
    check_two_games(bot(env!("CARGO_BIN_EXE_bao-alphabeta"), &["--seed", "3", "--depth", "3"]), "alphabeta");
    check_two_games(bot(env!("CARGO_BIN_EXE_bao-mcts"), &["--seed", "4", "--nodes", "200"]), "mcts");
}

#[test]
fn the_python_template_plays_two_games_in_one_process() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/random_bot.py");
    check_two_games(
        || {
            let mut c = Command::new("python3");
            c.arg("-B").arg(&script).args(["--seed", "4"]);
            c
        },
        "random-py",
    );
}
